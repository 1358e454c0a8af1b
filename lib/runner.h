/*
 * runner.h - run a command as our child the way a good init does: forward
 * signals to it, reap every zombie (orphaned grandchildren included, as
 * PID 1 or as a child subreaper), and report its wait status.  Shared by
 * `tracer run` and tracer-wrap.
 */
#ifndef TRACER_RUNNER_H
#define TRACER_RUNNER_H

#include <stdbool.h>
#include <sys/types.h>
#include <sys/resource.h>

struct runner_opts {
	bool signal_pgroup;  /* forward signals to the child's process group */
	bool subreaper;      /* become a child subreaper when not PID 1 */
	int tick_ms;         /* call on_tick every tick_ms (0 = never) */
	void (*on_tick)(void *arg);
	/* called for every reaped process (child or adopted orphan) */
	void (*on_reap)(void *arg, pid_t pid, int status, const struct rusage *ru);
	void *arg;
};

struct runner {
	struct runner_opts opts;
	pid_t child;
	int child_status;   /* wait status once the child exited */
	sigset_t saved_mask;
};

/*
 * Block the forwarded signals, fork and exec argv[0] (PATH search) in the
 * child with the original signal mask and dispositions restored.  Returns
 * 0, or -1 with a message on stderr (the command could not be started).
 */
int runner_start(struct runner *r, char *const argv[],
		 const struct runner_opts *opts);

/*
 * Forward signals and reap until the child has exited; then reap what is
 * left over without waiting.  Returns the child's wait status.
 */
int runner_wait(struct runner *r);

/* Shell convention: exit code, or 128 + signal number. */
int runner_exit_code(int wait_status);

#endif
