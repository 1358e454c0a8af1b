/*
 * redact.h - argv privacy.  Values of arguments that look like secrets
 * (--password=, --token X, *_KEY=..., anything named secret, URLs with
 * user:password@, mysql -pPW through sudo/srun/docker exec, sh -c
 * "command strings"...) are replaced by "***" before argv is stored
 * anywhere.  The work is linear in the length of the command line.
 */
#ifndef TRACER_REDACT_H
#define TRACER_REDACT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Redact a whole exec record: NUL-separated argv bytes (len bytes), at
 * most TRACER_REDACT_INPUT_MAX of them are read (beyond, the record is
 * cut).  last_cut: the record was cut (argv_max): unless the cut fell
 * just after an argument's NUL, its last argument is a piece of one and
 * is hidden whole unless it is certainly harmless (a plain path or
 * number).  Returns NUL-terminated redacted arguments
 * one after the other (*out_len bytes), unbounded; malloc'd, NULL when
 * out of memory.  The other calls below bound or join this result.
 */
char *redact_record(const char *argv, size_t len, bool last_cut,
		    size_t *out_len);

/*
 * Join redacted arguments (as redact_record returns them) into one
 * display string, separated by single spaces, at most max_out bytes
 * (then "..." ends it).  malloc'd; NULL when out of memory.  Bytes are
 * kept as they are: JSON encoding of invalid UTF-8 is json.c's job.
 */
char *redact_join(const char *rargv, size_t rlen, size_t max_out);

/* How many bytes of redacted arguments are whole arguments within
 * max_out bytes; *cut is 1 when arguments are left out. */
size_t redact_fit(const char *rargv, size_t rlen, size_t max_out, int *cut);

/* redact_record (nothing cut) then redact_join. */
char *redact_join_argv(const char *argv, size_t len, size_t max_out);

/*
 * redact_record (nothing cut), then whole arguments only, at most
 * max_out bytes (*out_len); *cut is 1 when arguments were left out.
 * malloc'd; NULL when out of memory.
 */
char *redact_argv(const char *argv, size_t len, size_t max_out,
		  size_t *out_len, int *cut);

/* Redact one argument in place if it is a secret; previous is the
 * argument before it (or NULL). Returns 1 when something was redacted. */
int redact_arg(char *arg, size_t size, const char *previous);

/* Bytes and positions the rules have examined in this thread: a test
 * hook, redaction's work must stay linear in its input. */
size_t redact_work(void);

#endif
