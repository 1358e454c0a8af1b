/*
 * container_apptainer.h - Apptainer and Singularity containers, which
 * make no cgroup of their own (unless asked to with their cgroup
 * options) and so cannot be told by the cgroup path (container.h).
 *
 * Such a container starts when a process execs the runtime's `starter`
 * (or `starter-suid`) binary, installed as
 *   PREFIX/libexec/apptainer/bin/starter[-suid]     apptainer
 *   PREFIX/libexec/singularity/bin/starter[-suid]   singularity
 * The starter sets up the namespaces and execs the user's command, in
 * its own pid or in a child: the starter and its descendants are the
 * container's processes.  Its image comes from the command line of the
 * `apptainer`/`singularity` CLI that exec'd the starter
 * (`apptainer exec|run|shell|test|instance start [options] IMAGE ...`).
 * The starter's environment and the configuration it reads from a pipe
 * are never read.
 *
 * Apptainer has no container id: tracer makes one from the starter's pid
 * and start time (container_apptainer_id), 64 hex digits like the others.
 */
#ifndef TRACER_CONTAINER_APPTAINER_H
#define TRACER_CONTAINER_APPTAINER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "container.h"

/* "apptainer" or "singularity" when path is that runtime's starter, else NULL. */
const char *container_apptainer_starter(const char *path);

struct apptainer_cli {
	char runtime[16];   /* "apptainer" or "singularity": the CLI's name */
	char action[16];    /* exec, run, shell, test, "instance start", "instance run" */
	char image[256];    /* the image argument as given ("" when none) */
	char instance[128]; /* the instance name of `instance start` ("" else) */
};

/*
 * Parse the command line of the runtime's CLI: argv is len bytes of
 * NUL-terminated arguments (as in /proc/PID/cmdline; the last NUL may be
 * missing).  The CLI is argv[0], or argv[1] when argv[0] is the
 * interpreter of a CLI script.  Options and the values of those known to
 * take one are skipped (an unknown option is taken to take none).
 * 0 when it is a CLI starting a container (out set), -1 when not.
 */
int container_apptainer_cli(const char *argv, size_t len, struct apptainer_cli *out);

/* The container id of the starter pid started at start_ns: 64 hex digits
 * and a NUL into id (CONTAINER_ID_LEN + 1 bytes). */
void container_apptainer_id(pid_t pid, uint64_t start_ns, char *id);

/*
 * A container object for the starter at path (pid, started at start_ns),
 * with the image (and, for an instance, its name) of the CLI command line
 * cli (may be NULL or not a CLI).  0 when path is a starter, -1 when not.
 */
int container_apptainer_info(const char *path, pid_t pid, uint64_t start_ns,
			     const char *cli, size_t cli_len, struct container_info *out);

#endif
