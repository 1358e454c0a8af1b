/*
 * runner.c - run one command as our child the way tini does: the
 * forwarded signals are blocked in the parent and taken with sigtimedwait,
 * every zombie is reaped with wait4 (orphans too, as PID 1 or as a child
 * subreaper), and the child gets the original signal mask and
 * dispositions, the standard file descriptors and the terminal untouched.
 * Shared by `tracer run` and tracer-wrap; see runner.h.
 */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Signals passed on to the child (asynchronous ones a job cares about). */
static const int forwarded[] = {
	SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT,
};

/* Without a tick we still wake up now and then: a lost SIGCHLD costs 1 s. */
#define IDLE_WAKEUP_MS 1000

static void runner_sigset(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(set, forwarded[i]);
	sigaddset(set, SIGCHLD);
}

static uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * In the child, before exec.  Only async-signal-safe calls: we may be the
 * fork of a multi-threaded process.  SIGTTOU is still ignored here, so a
 * background child may take the terminal's foreground.
 */
static void child_setup(const struct runner *r,
			const struct sigaction *ttin,
			const struct sigaction *ttou)
{
	if (r->opts.signal_pgroup) {
		if (setpgid(0, 0) < 0)
			dprintf(STDERR_FILENO, "runner: setpgid: %s\n",
				strerror(errno));
		/* ENOTTY: no controlling terminal, nothing to hand over */
		if (isatty(STDIN_FILENO) &&
		    tcsetpgrp(STDIN_FILENO, getpgrp()) < 0 && errno != ENOTTY &&
		    errno != ENXIO)
			dprintf(STDERR_FILENO,
				"runner: tcsetpgrp: %s (job stays in the background)\n",
				strerror(errno));
	}
	sigaction(SIGTTIN, ttin, NULL);
	sigaction(SIGTTOU, ttou, NULL);
	sigprocmask(SIG_SETMASK, &r->saved_mask, NULL);
}

/*
 * Wait for the child's exec through a close-on-exec pipe: EOF means the
 * exec worked, 4 bytes are the errno of a failed one.
 */
static int wait_exec(int fd, int *exec_errno)
{
	int err = 0;
	ssize_t n;

	do
		n = read(fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		fprintf(stderr, "runner: reading the exec status: %s\n",
			strerror(errno));
		return -1;
	}
	*exec_errno = n == (ssize_t)sizeof(err) ? err : 0;
	return 0;
}

int runner_start(struct runner *r, char *const argv[],
		 const struct runner_opts *opts)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, ttin, ttou;
	sigset_t set;
	int pipefd[2] = {-1, -1};
	int exec_errno = 0, status, ret = -1;
	bool restore_sigs = false;

	memset(r, 0, sizeof(*r));
	r->opts = *opts;
	r->child = -1;
	r->child_status = -1;
	if (!argv || !argv[0]) {
		fprintf(stderr, "runner: no command to run\n");
		return -1;
	}

	runner_sigset(&set);
	if (sigprocmask(SIG_BLOCK, &set, &r->saved_mask) < 0) {
		fprintf(stderr, "runner: sigprocmask: %s\n", strerror(errno));
		return -1;
	}
	/* like tini: handing the terminal over must not stop us */
	if (sigaction(SIGTTIN, &ign, &ttin) < 0 ||
	    sigaction(SIGTTOU, &ign, &ttou) < 0) {
		fprintf(stderr, "runner: sigaction(SIGTTIN/SIGTTOU): %s\n",
			strerror(errno));
		goto cleanup;
	}
	restore_sigs = true;

	if (opts->subreaper && getpid() != 1 &&
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		/* not fatal: orphans then go to init instead of us */
		fprintf(stderr, "runner: prctl(PR_SET_CHILD_SUBREAPER): %s\n",
			strerror(errno));

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		fprintf(stderr, "runner: pipe2: %s\n", strerror(errno));
		goto cleanup;
	}

	r->child = fork();
	if (r->child < 0) {
		fprintf(stderr, "runner: fork: %s\n", strerror(errno));
		goto cleanup;
	}
	if (r->child == 0) {
		int err;

		close(pipefd[0]);
		child_setup(r, &ttin, &ttou);
		execvp(argv[0], argv);
		err = errno; /* the parent says what failed */
		if (write(pipefd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(err == ENOENT ? 127 : 126);
	}
	/* both sides set the group, so neither races the other */
	if (opts->signal_pgroup && setpgid(r->child, r->child) < 0 &&
	    errno != EACCES && errno != ESRCH)
		fprintf(stderr, "runner: setpgid(%d): %s\n", (int)r->child,
			strerror(errno));

	close(pipefd[1]);
	pipefd[1] = -1;
	if (wait_exec(pipefd[0], &exec_errno) < 0)
		goto cleanup;
	if (exec_errno) {
		/* the command never ran: collect its child and say so */
		while (waitpid(r->child, &status, 0) < 0 && errno == EINTR)
			;
		r->child_status = status;
		fprintf(stderr, "runner: could not run %s: %s\n", argv[0],
			strerror(exec_errno));
		goto cleanup;
	}
	ret = 0;

cleanup:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (ret < 0) {
		if (restore_sigs) {
			sigaction(SIGTTIN, &ttin, NULL);
			sigaction(SIGTTOU, &ttou, NULL);
		}
		sigprocmask(SIG_SETMASK, &r->saved_mask, NULL);
	}
	return ret;
}

/* Reap every zombie there is now; true once the child itself is reaped. */
static bool reap_zombies(struct runner *r)
{
	bool child_done = false;
	struct rusage ru;
	int status;
	pid_t pid;

	for (;;) {
		memset(&ru, 0, sizeof(ru));
		pid = wait4(-1, &status, WNOHANG, &ru);
		if (pid == 0)
			break;
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			if (errno != ECHILD)
				fprintf(stderr, "runner: wait4: %s\n",
					strerror(errno));
			break;
		}
		if (pid == r->child) {
			r->child_status = status;
			child_done = true;
		}
		if (r->opts.on_reap)
			r->opts.on_reap(r->opts.arg, pid, status, &ru);
	}
	return child_done;
}

static void forward_signal(const struct runner *r, int sig)
{
	pid_t target = r->opts.signal_pgroup ? -r->child : r->child;

	if (kill(target, sig) < 0 && errno != ESRCH)
		fprintf(stderr, "runner: passing signal %d to %d: %s\n", sig,
			(int)target, strerror(errno));
}

/*
 * ^C, ^\ and a window resize go from the terminal to its whole foreground
 * group: a child in our group already has them, and a second copy from
 * us would interrupt its handler.  Signals sent with kill() (SI_USER)
 * are always passed on.
 */
static bool from_our_tty(const struct runner *r, const siginfo_t *info)
{
	if (r->opts.signal_pgroup || info->si_code != SI_KERNEL)
		return false;
	if (info->si_signo != SIGINT && info->si_signo != SIGQUIT &&
	    info->si_signo != SIGWINCH)
		return false;
	return getpgid(r->child) == getpgrp();
}

/* Take the terminal back if we gave it to the child's group. */
static void reclaim_terminal(const struct runner *r)
{
	if (!r->opts.signal_pgroup || !isatty(STDIN_FILENO))
		return;
	if (tcgetpgrp(STDIN_FILENO) == r->child &&
	    tcsetpgrp(STDIN_FILENO, getpgrp()) < 0)
		fprintf(stderr, "runner: tcsetpgrp: %s\n", strerror(errno));
}

int runner_wait(struct runner *r)
{
	uint64_t next_tick = 0, now, wait_ms;
	struct timespec ts;
	siginfo_t info;
	sigset_t set;
	bool done = false;
	int sig;

	if (r->child <= 0)
		return r->child_status;
	runner_sigset(&set);
	if (r->opts.tick_ms > 0)
		next_tick = monotonic_ms() + (uint64_t)r->opts.tick_ms;

	/* a SIGCHLD may have come before we started waiting */
	done = reap_zombies(r);
	while (!done) {
		now = monotonic_ms();
		if (r->opts.tick_ms > 0 && now >= next_tick) {
			if (r->opts.on_tick)
				r->opts.on_tick(r->opts.arg);
			now = monotonic_ms();
			next_tick += (uint64_t)r->opts.tick_ms;
			if (next_tick <= now) /* a slow tick: do not pile up */
				next_tick = now + (uint64_t)r->opts.tick_ms;
		}
		wait_ms = r->opts.tick_ms > 0 ? next_tick - now : IDLE_WAKEUP_MS;
		ts.tv_sec = (time_t)(wait_ms / 1000);
		ts.tv_nsec = (long)(wait_ms % 1000) * 1000000L;

		sig = sigtimedwait(&set, &info, &ts);
		if (sig < 0 && errno != EAGAIN && errno != EINTR) {
			struct timespec pause = {0, 10 * 1000000L};

			fprintf(stderr, "runner: sigtimedwait: %s\n",
				strerror(errno));
			nanosleep(&pause, NULL); /* never spin on an error */
		} else if (sig > 0 && sig != SIGCHLD && !from_our_tty(r, &info)) {
			forward_signal(r, sig);
		}
		/* reap after every wake-up: SIGCHLDs coalesce */
		done = reap_zombies(r);
	}
	/* orphans that are already dead; live ones are not waited for */
	reap_zombies(r);
	reclaim_terminal(r);
	return r->child_status;
}

int runner_exit_code(int wait_status)
{
	if (wait_status < 0)
		return 255;
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return 255;
}
