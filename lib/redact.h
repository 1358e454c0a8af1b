/*
 * redact.h - argv privacy.  Values of arguments that look like secrets
 * (--password=, --token X, *_KEY=..., anything named secret, URLs with
 * user:password@) are replaced by "***" before argv is stored anywhere.
 */
#ifndef TRACER_REDACT_H
#define TRACER_REDACT_H

#include <stddef.h>

/*
 * Join NUL-separated argv bytes (len bytes) into one display string,
 * arguments separated by single spaces, secrets redacted, at most max_out
 * bytes (then "..." ends it).  Returns a malloc'd string (never NULL
 * unless out of memory).  Bytes are kept as they are: JSON encoding of
 * invalid UTF-8 is jsonutil's job.
 */
char *redact_join_argv(const char *argv, size_t len, size_t max_out);

/*
 * The same arguments kept apart: NUL-terminated redacted arguments one
 * after the other (*out_len bytes), whole arguments only, at most
 * max_out bytes; *cut is 1 when arguments were left out.  malloc'd;
 * NULL when out of memory.
 */
char *redact_argv(const char *argv, size_t len, size_t max_out,
		  size_t *out_len, int *cut);

/* Redact one argument in place if it is a secret; previous is the
 * argument before it (or NULL). Returns 1 when something was redacted. */
int redact_arg(char *arg, size_t size, const char *previous);

#endif
