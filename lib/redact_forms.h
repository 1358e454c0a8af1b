/*
 * redact_forms.h - the secret forms the generic rules (redact_rules.c)
 * cannot see: tokens with a well-known shape (ghp_..., glpat-..., xoxb-...,
 * AKIA... with its secret key, JWTs, inline private keys) and options
 * that hold a secret only for some tools (mysql -pPW, curl -su user:pw,
 * openssl pass:pw, sshpass -pPW, ldapsearch -w PW, lftp -u user,pw...).
 * Internal to the redact*.c files; every rule only marks a redact_span.
 */
#ifndef TRACER_REDACT_FORMS_H
#define TRACER_REDACT_FORMS_H

#include <stdbool.h>
#include <stddef.h>

#include "redact_span.h"

/* What one command (a tool and its arguments) says about them. */
struct redact_forms_ctx {
	char tool[64];     /* basename of the command word */
	bool login;        /* "docker login"-like: -p is a password */
	bool aws_key_id;   /* an AWS access key id is on the command line:
			      40-character secret keys are masked too */
};

/* ctx->tool from a command word of n bytes (its basename); the rest
 * cleared but aws_key_id, which the whole command line sets. */
void redact_forms_tool(struct redact_forms_ctx *ctx, const char *word,
		       size_t n);

/* Is "login" a subcommand that makes -p a password for this tool? */
bool redact_forms_login_tool(const char *tool);

/* Does an AWS access key id appear in these len bytes?  Linear. */
bool redact_forms_aws_key_id(const char *buf, size_t len);

/*
 * Tool-specific options: arg (n bytes, NUL-terminated, at offset base of
 * the span), previous the argument before it (may be NULL).  True when
 * it marked something: the generic rules are then not needed.
 */
bool redact_forms_option(const char *arg, size_t n, size_t base,
			 const char *previous,
			 const struct redact_forms_ctx *ctx,
			 struct redact_span *s);

/* Well-known token shapes anywhere in arg. */
void redact_forms_tokens(const char *arg, size_t n, size_t base,
			 bool aws_key_id, struct redact_span *s);

#endif
