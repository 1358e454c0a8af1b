/*
 * redact_rules.h - the rules that judge one argument of a command line
 * (redact_rules.c), in the context of its tool.  Internal to the
 * redact*.c files: redact_cmd.c walks a command line and calls
 * redact_rules_arg() on each argument.
 */
#ifndef TRACER_REDACT_RULES_H
#define TRACER_REDACT_RULES_H

#include <stddef.h>

#include "redact_forms.h"
#include "redact_span.h"

/*
 * Mark what is secret in arg (n bytes, NUL-terminated, at offset base of
 * the span).  previous: the argument before it (NULL for none); ctx: its
 * command (NULL: no tool-specific rules).  Linear in n.
 */
void redact_rules_arg(const char *arg, size_t n, size_t base,
		      const char *previous, const struct redact_forms_ctx *ctx,
		      struct redact_span *s);

#endif
