/*
 * redact_cmd.h - walking a command line: which command each argument
 * belongs to (through wrappers: sudo, srun, docker exec...) and the
 * command strings of shells (sh -c "mysql -pPW"), whose words are
 * redacted as command lines of their own.  Internal to the redact*.c
 * files.
 */
#ifndef TRACER_REDACT_CMD_H
#define TRACER_REDACT_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "redact_span.h"

/* Command strings inside command strings are split this deep; deeper
 * ones are judged as one argument (the work stays linear). */
#define REDACT_CMD_DEPTH 2

/*
 * Mark the secrets of args[0..n) (NUL-terminated, lens[i] bytes, at
 * offsets off[i] of the span).  aws_key_id: an AWS key id is on the
 * command line.  depth: command strings already entered.
 */
void redact_cmd_walk(const char *const *args, const size_t *lens,
		     const size_t *off, size_t n, bool aws_key_id, int depth,
		     struct redact_span *s);

#endif
