/*
 * runner.c - run one command as our child the way tini does: the
 * forwarded signals are blocked in the parent and taken with sigtimedwait,
 * every zombie is reaped with wait4 (orphans too, as PID 1 or as a child
 * subreaper), and the child gets the original signal mask and
 * dispositions, the standard file descriptors and the terminal untouched.
 * See runner.h.
 */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

/* Without a tick we still wake up now and then: a lost SIGCHLD costs 1 s. */
#define IDLE_WAKEUP_MS 1000

/* What the child tells the parent through the exec pipe before exec. */
enum child_note { NOTE_EXEC_FAILED = 1, NOTE_SETPGID, NOTE_TCSETPGRP };
struct child_msg {
	int note; /* enum child_note */
	int err;  /* errno */
};

static void report(const struct runner_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void report(const struct runner_opts *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!o || !o->report)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->report(o->arg, msg);
}

void runner_forwarded_signals(sigset_t *set)
{
	/* delivered by the kernel to the thread that faulted, or ours */
	static const int not_forwarded[] = {
		SIGCHLD, SIGFPE, SIGILL, SIGSEGV, SIGBUS, SIGABRT, SIGTRAP,
		SIGSYS, SIGTTIN, SIGTTOU, SIGKILL, SIGSTOP,
	};

	sigfillset(set);
	for (size_t i = 0; i < sizeof(not_forwarded) / sizeof(not_forwarded[0]); i++)
		sigdelset(set, not_forwarded[i]);
}

/* What the runner blocks: the forwarded signals and SIGCHLD. */
static void blocked_set(sigset_t *set)
{
	runner_forwarded_signals(set);
	sigaddset(set, SIGCHLD);
}

int runner_block_signals(struct runner *r, const struct runner_opts *opts)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t set;

	if (r->blocked)
		return 0;
	blocked_set(&set);
	if (sigprocmask(SIG_BLOCK, &set, &r->saved_mask) < 0) {
		report(opts, "sigprocmask: %s", strerror(errno));
		return -1;
	}
	/* SIG_IGN (or SA_NOCLDWAIT) is inherited across exec, and would let
	 * the kernel reap our child: wait4 would never see it */
	sigemptyset(&dfl.sa_mask);
	if (sigaction(SIGCHLD, &dfl, &r->saved_chld) < 0)
		report(opts, "sigaction(SIGCHLD): %s", strerror(errno));
	r->blocked = true;
	return 0;
}

/* A signal we caused ourselves (SIGPIPE of a write to a closed stderr,
 * our own raise()): not the job's to receive. */
static bool self_sent(const siginfo_t *info)
{
	return (info->si_code == SI_USER || info->si_code == SI_TKILL) &&
	       info->si_pid == getpid();
}

/*
 * Take the signals already pending, before the child exists: a ^C typed
 * then was not seen by the child, so it must be passed on whatever its
 * origin.  SIGCHLD is left alone (reaping reads it anyway).
 */
static void take_early_signals(struct runner *r)
{
	struct timespec zero = {0, 0};
	siginfo_t info;
	sigset_t set;
	int sig;

	runner_forwarded_signals(&set);
	r->nearly = 0;
	while (r->nearly < RUNNER_EARLY_MAX &&
	       (sig = sigtimedwait(&set, &info, &zero)) > 0)
		if (!self_sent(&info))
			r->early[r->nearly++] = sig;
}

/* Tell the parent about a problem; async-signal-safe. */
static void child_note(int fd, int note, int err)
{
	struct child_msg m = {.note = note, .err = err};

	/* nothing to do if the parent is gone: it reports the exec anyway */
	if (write(fd, &m, sizeof(m)) < 0)
		return;
}

/*
 * In the child, before exec.  Only async-signal-safe calls: we may be the
 * fork of a multi-threaded process.  SIGTTOU is still ignored here, so a
 * background child may take the terminal's foreground.
 */
static void child_setup(const struct runner *r, int fd,
			const struct sigaction *ttin,
			const struct sigaction *ttou)
{
	if (r->opts.signal_pgroup) {
		if (setpgid(0, 0) < 0)
			child_note(fd, NOTE_SETPGID, errno);
		/* ENOTTY: no controlling terminal, nothing to hand over */
		if (isatty(STDIN_FILENO) &&
		    tcsetpgrp(STDIN_FILENO, getpgrp()) < 0 && errno != ENOTTY &&
		    errno != ENXIO)
			child_note(fd, NOTE_TCSETPGRP, errno);
	}
	sigaction(SIGTTIN, ttin, NULL);
	sigaction(SIGTTOU, ttou, NULL);
	sigaction(SIGCHLD, &r->saved_chld, NULL);
	sigprocmask(SIG_SETMASK, &r->saved_mask, NULL);
}

/*
 * Read the child's notes until EOF (the exec worked: the pipe is
 * close-on-exec) and return the errno of a failed exec, or 0.
 */
static int read_child_notes(const struct runner *r, int fd)
{
	struct child_msg m;
	ssize_t n;

	for (;;) {
		n = read(fd, &m, sizeof(m));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			report(&r->opts, "reading the exec status: %s", strerror(errno));
			return 0; /* the child runs or died: runner_wait tells */
		}
		if (n != (ssize_t)sizeof(m))
			return 0;
		if (m.note == NOTE_EXEC_FAILED)
			return m.err ? m.err : EIO;
		report(&r->opts, "%s in the child: %s (the job stays in the background)",
		       m.note == NOTE_SETPGID ? "setpgid" : "tcsetpgrp", strerror(m.err));
	}
}

/*
 * execvp says EACCES when a PATH directory cannot be searched, even when
 * no directory holds the command: is there a file of that name we could
 * see at all?  The shell says "not found" then, and so do we.
 */
static bool in_path(const char *cmd)
{
	const char *path = getenv("PATH");
	char file[4096];

	if (strchr(cmd, '/'))
		return true; /* a path, not a name to search */
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		/* an empty entry is the current directory */
		if (snprintf(file, sizeof(file), "%.*s%s%s", (int)n, p, n ? "/" : "",
			     cmd) < (int)sizeof(file) && access(file, F_OK) == 0)
			return true;
		if (!end)
			return false;
		p = end;
	}
}

/* The command did not run: say why, as the shell does, and set the codes. */
static void exec_failed(struct runner *r, const char *cmd, int err)
{
	int status;

	/* the child exits at once: collect it */
	while (waitpid(r->child, &status, 0) < 0 && errno == EINTR)
		;
	r->child = -1;
	if (err == ENOENT && strchr(cmd, '/')) {
		/* a path: the file, or its #! interpreter, is missing */
		r->exit_code = RUNNER_EXIT_NOTFOUND;
		report(&r->opts, "%s: No such file or directory", cmd);
	} else if (err == ENOENT || (err == EACCES && !in_path(cmd))) {
		r->exit_code = RUNNER_EXIT_NOTFOUND;
		report(&r->opts, "%s: command not found", cmd);
	} else {
		r->exit_code = RUNNER_EXIT_NOEXEC;
		report(&r->opts, "%s: cannot execute: %s", cmd, strerror(err));
	}
	r->child_status = r->exit_code << 8;
}

static void forward_signal(const struct runner *r, int sig);

int runner_start(struct runner *r, char *const argv[],
		 const struct runner_opts *opts)
{
	/* r is zeroed, or set up by runner_block_signals() only */
	struct sigaction ign = {.sa_handler = SIG_IGN}, ttin, ttou;
	int pipefd[2] = {-1, -1};
	bool restore_sigs = false;
	int exec_errno, ret = -1;

	r->opts = *opts;
	r->child = -1;
	r->child_status = RUNNER_EXIT_FAILED << 8;
	r->exit_code = RUNNER_EXIT_FAILED;
	if (!argv || !argv[0]) {
		report(opts, "no command to run");
		return -1;
	}
	if (runner_block_signals(r, opts) < 0)
		return -1;
	/* like tini: handing the terminal over must not stop us */
	if (sigaction(SIGTTIN, &ign, &ttin) < 0 ||
	    sigaction(SIGTTOU, &ign, &ttou) < 0) {
		report(opts, "sigaction(SIGTTIN/SIGTTOU): %s", strerror(errno));
		goto cleanup;
	}
	restore_sigs = true;

	if (opts->subreaper && getpid() != 1 &&
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		/* not fatal: orphans then go to init instead of us */
		report(opts, "prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		report(opts, "pipe2: %s", strerror(errno));
		goto cleanup;
	}
	take_early_signals(r);
	r->reaped = false;
	r->child = fork();
	if (r->child < 0) {
		report(opts, "fork: %s", strerror(errno));
		goto cleanup;
	}
	if (r->child == 0) {
		int err;

		close(pipefd[0]);
		child_setup(r, pipefd[1], &ttin, &ttou);
		execvp(argv[0], argv);
		err = errno;
		child_note(pipefd[1], NOTE_EXEC_FAILED, err);
		_exit(err == ENOENT ? RUNNER_EXIT_NOTFOUND : RUNNER_EXIT_NOEXEC);
	}
	/* both sides set the group, so neither races the other */
	if (opts->signal_pgroup && setpgid(r->child, r->child) < 0 &&
	    errno != EACCES && errno != ESRCH)
		report(opts, "setpgid(%d): %s", (int)r->child, strerror(errno));

	close(pipefd[1]);
	pipefd[1] = -1;
	exec_errno = read_child_notes(r, pipefd[0]);
	if (exec_errno) {
		exec_failed(r, argv[0], exec_errno);
		goto cleanup;
	}
	r->exit_code = 0;
	r->child_status = -1;
	ret = 0;

cleanup:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (ret < 0 && restore_sigs) {
		sigaction(SIGTTIN, &ttin, NULL);
		sigaction(SIGTTOU, &ttou, NULL);
	}
	return ret;
}

/*
 * Stop ourselves as ^Z would (SIGTSTP's default action, so the kernel's
 * rule for orphaned process groups holds), and carry on once continued.
 */
static void stop_self(void)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL}, old;
	sigset_t tstp;

	sigemptyset(&dfl.sa_mask);
	sigemptyset(&tstp);
	sigaddset(&tstp, SIGTSTP);
	if (sigaction(SIGTSTP, &dfl, &old) < 0)
		return;
	raise(SIGTSTP);                          /* pending: it is blocked */
	sigprocmask(SIG_UNBLOCK, &tstp, NULL);   /* stopped here until SIGCONT */
	sigprocmask(SIG_BLOCK, &tstp, NULL);
	sigaction(SIGTSTP, &old, NULL);
}

/*
 * With --pgroup the child's group holds the terminal: when ^Z stops it,
 * the shell must get the terminal back and see the job stopped, so take
 * the terminal, stop, and on SIGCONT hand both back to the child.
 */
static void on_child_stopped(const struct runner *r)
{
	bool tty = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == r->child;

	if (tty && tcsetpgrp(STDIN_FILENO, getpgrp()) < 0)
		report(&r->opts, "tcsetpgrp: %s", strerror(errno));
	stop_self();
	if (tty && tcsetpgrp(STDIN_FILENO, r->child) < 0)
		report(&r->opts, "tcsetpgrp: %s", strerror(errno));
	if (kill(-r->child, SIGCONT) < 0 && errno != ESRCH)
		report(&r->opts, "continuing %d: %s", (int)r->child, strerror(errno));
}

/* Reap every zombie there is now; true once the child itself is reaped. */
static bool reap_zombies(struct runner *r)
{
	struct rusage ru;
	int status;
	pid_t pid;

	for (;;) {
		memset(&ru, 0, sizeof(ru));
		pid = wait4(-1, &status, WNOHANG | WUNTRACED, &ru);
		if (pid == 0)
			break;
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			if (errno != ECHILD) {
				report(&r->opts, "wait4: %s", strerror(errno));
			} else if (!r->reaped) {
				/* someone else reaped it: never wait forever */
				report(&r->opts, "the command was reaped elsewhere: "
				       "its exit status is unknown");
				r->child_status = -1;
				r->reaped = true;
			}
			break;
		}
		if (WIFSTOPPED(status)) {
			if (pid == r->child && r->opts.signal_pgroup)
				on_child_stopped(r);
			continue;
		}
		if (pid == r->child) {
			r->child_status = status;
			r->reaped = true;
		}
		if (r->opts.on_reap)
			r->opts.on_reap(r->opts.arg, pid, status, &ru);
	}
	return r->reaped;
}

static void forward_signal(const struct runner *r, int sig)
{
	pid_t target = r->opts.signal_pgroup ? -r->child : r->child;

	if (kill(target, sig) < 0 && errno != ESRCH)
		report(&r->opts, "passing signal %d to %d: %s", sig, (int)target,
		       strerror(errno));
}

/*
 * ^C, ^\, ^Z, a window resize and a hang-up go from the terminal to its
 * whole foreground group: a child in our group already has them, and a
 * second copy from us would interrupt its handler.  Signals sent with
 * kill() (SI_USER) are always passed on.
 */
static bool from_our_tty(const struct runner *r, const siginfo_t *info)
{
	if (r->opts.signal_pgroup || info->si_code != SI_KERNEL)
		return false;
	if (info->si_signo != SIGINT && info->si_signo != SIGQUIT &&
	    info->si_signo != SIGWINCH && info->si_signo != SIGTSTP &&
	    info->si_signo != SIGHUP)
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
		report(&r->opts, "tcsetpgrp: %s", strerror(errno));
}

/* One signal taken from the queue: pass it on, or act on it ourselves. */
static void on_signal(const struct runner *r, const siginfo_t *info)
{
	if (info->si_signo == SIGCHLD || self_sent(info))
		return;
	if (!from_our_tty(r, info)) {
		forward_signal(r, info->si_signo);
		return;
	}
	/* ^Z stopped the child with us: stop too, so the shell sees the job
	 * stopped; its SIGCONT wakes the whole group again */
	if (info->si_signo == SIGTSTP)
		stop_self();
}

int runner_wait(struct runner *r)
{
	uint64_t next_tick = 0, now, wait_ms;
	struct timespec ts;
	siginfo_t info;
	sigset_t set;
	bool done;
	int sig;

	if (r->child <= 0)
		return r->child_status;
	blocked_set(&set);
	if (r->opts.tick_ms > 0)
		next_tick = clock_mono_ms() + (uint64_t)r->opts.tick_ms;
	/* what came before the child existed, whatever its origin */
	for (int i = 0; i < r->nearly; i++)
		forward_signal(r, r->early[i]);
	r->nearly = 0;

	/* a SIGCHLD may have come before we started waiting */
	done = reap_zombies(r);
	while (!done) {
		now = clock_mono_ms();
		if (r->opts.tick_ms > 0 && now >= next_tick) {
			if (r->opts.on_tick)
				r->opts.on_tick(r->opts.arg);
			now = clock_mono_ms();
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

			report(&r->opts, "sigtimedwait: %s", strerror(errno));
			nanosleep(&pause, NULL); /* never spin on an error */
		} else if (sig > 0) {
			on_signal(r, &info);
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
