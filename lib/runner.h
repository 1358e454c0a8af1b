/*
 * runner.h - run a command as our child the way a good init does: every
 * catchable asynchronous signal is passed on to it, every zombie is
 * reaped (orphaned grandchildren included, as PID 1 or as a child
 * subreaper), and its wait status is reported.  Shared by `tracer run`
 * and tracer-wrap (through registrant.h, and standalone mode).
 *
 * Nothing here prints: problems go to opts->report, and the binary says
 * them in its own voice.
 */
#ifndef TRACER_RUNNER_H
#define TRACER_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

/* Exit codes when the command did not run, as the shell and env(1) say. */
#define RUNNER_EXIT_FAILED 125    /* we could not start it (fork, pipe...) */
#define RUNNER_EXIT_NOEXEC 126    /* found, but cannot be executed */
#define RUNNER_EXIT_NOTFOUND 127  /* no such command */

struct runner_opts {
	bool signal_pgroup;  /* the child leads its own process group and
				signals go to the whole group */
	bool subreaper;      /* become a child subreaper when not PID 1 */
	int tick_ms;         /* call on_tick every tick_ms (0 = never) */
	void (*on_tick)(void *arg);
	/* called for every reaped process (child or adopted orphan) */
	void (*on_reap)(void *arg, pid_t pid, int status, const struct rusage *ru);
	/* one line per problem, without a trailing newline (NULL: dropped) */
	void (*report)(void *arg, const char *msg);
	void *arg;
};

#define RUNNER_EARLY_MAX 64 /* signals kept from before the child existed */

struct runner {
	struct runner_opts opts;
	pid_t child;
	int child_status;   /* wait status once the child exited, or -1 */
	int exit_code;      /* runner_start failed: RUNNER_EXIT_* */
	bool blocked;       /* runner_block_signals() done */
	bool reaped;        /* the child's status is in */
	sigset_t saved_mask;
	struct sigaction saved_chld; /* SIGCHLD as we found it (for the child) */
	int early[RUNNER_EARLY_MAX]; /* pending before the child existed */
	int nearly;
};

/*
 * The signals passed on to the child: every catchable asynchronous one,
 * the real-time signals included (as tini).  Not SIGCHLD (ours), nor
 * the synchronous faults, nor SIGTTIN/SIGTTOU (terminal hand-over).
 */
void runner_forwarded_signals(sigset_t *set);

/*
 * Block the forwarded signals and SIGCHLD from now on: one that comes
 * before the child exists stays pending and reaches the child once it
 * runs.  SIGCHLD gets its default action (an inherited SIG_IGN would
 * have the kernel reap the child before we could).  Call it as early as
 * possible in main(); runner_start() does it if not done.  0, or -1
 * (reported).
 */
int runner_block_signals(struct runner *r, const struct runner_opts *opts);

/*
 * r starts zeroed (then runner_block_signals() may come first).
 * Fork and exec argv[0] (PATH search) in the child with the original
 * signal mask and dispositions.  0, or -1 when the command did not start
 * (reported, e.g. "foo: command not found"), with r->exit_code and
 * r->child_status set as a shell would have them.
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
