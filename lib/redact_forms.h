/*
 * redact_forms.h - the secret forms redact.c's generic rules cannot see:
 * tokens with a well-known shape (ghp_..., glpat-..., xoxb-..., AKIA...
 * with its secret key, JWTs, inline private keys) and options that hold
 * a secret only for some tools (mysql -pPW, curl -u user:pw, openssl
 * pass:pw, sshpass -p pw...).  Used by redact.c only.
 */
#ifndef TRACER_REDACT_FORMS_H
#define TRACER_REDACT_FORMS_H

#include <stdbool.h>
#include <stddef.h>

/* What the whole command says about each of its arguments. */
struct redact_forms_ctx {
	char tool[64];     /* basename of argv[0] */
	bool login;        /* "docker login"-like: -p is a password */
	bool aws_key_id;   /* an AWS access key id is on the command line:
			      40-character secret keys are masked too */
};

void redact_forms_context(struct redact_forms_ctx *ctx, const char *argv,
			  size_t len);

/* Tool-specific options (previous: the argument before, may be NULL). */
int redact_forms_option(char *arg, size_t size, const char *previous,
			const struct redact_forms_ctx *ctx);

/* Well-known token shapes anywhere in arg (ctx may be NULL). */
int redact_forms_tokens(char *arg, size_t size,
			const struct redact_forms_ctx *ctx);

/* redact.c's masking: arg[from..] or arg[from, to) becomes "***". */
void redact_mask_tail(char *arg, size_t size, size_t from);
size_t redact_mask_range(char *arg, size_t size, size_t from, size_t to);

#endif
