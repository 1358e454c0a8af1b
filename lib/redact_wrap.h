/*
 * redact_wrap.h - commands that run another command (sudo, env, timeout,
 * nice, ionice, srun, mpirun, docker/podman exec and run, apptainer exec,
 * time, xargs...) and shells that run a command string (sh -c, su -c):
 * where the wrapped command starts, so that its tool's rules apply to
 * its arguments (sudo sshpass -pPW, srun mysql -pPW).  Internal to the
 * redact*.c files.
 */
#ifndef TRACER_REDACT_WRAP_H
#define TRACER_REDACT_WRAP_H

#include <stdbool.h>
#include <stddef.h>

/*
 * args[0..n): a command line; args[k] is a command word whose basename is
 * tool.  Returns the index of the command it wraps (after its options and
 * operands), n when it wraps none.  *cmdstring: the index of an argument
 * that is a shell command string (sh -c STR, su -c STR), else n.  Each
 * argument is looked at a bounded number of times.
 */
size_t redact_wrap_next(const char *tool, const char *const *args, size_t n,
			size_t k, size_t *cmdstring);

/* NAME=VALUE with a shell variable name (env, sudo and a shell take
 * these before the command). */
bool redact_wrap_assignment(const char *a);

#endif
