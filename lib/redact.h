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
 * Redact argv (len NUL-separated bytes) argument by argument: the same
 * arguments, NUL-terminated, secrets replaced.  *out_len gets the bytes
 * returned.  Returns a malloc'd buffer, NULL when out of memory.
 */
char *redact_argv(const char *argv, size_t len, size_t *out_len);

/* Redact one argument in place if it is a secret; previous is the
 * argument before it (or NULL). Returns 1 when something was redacted. */
int redact_arg(char *arg, size_t size, const char *previous);

#endif
