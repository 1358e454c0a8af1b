/*
 * test_runner.c - running the job's command (lib/runner, lib/registrant):
 * which signals are passed on, the shell's exit codes when the command
 * cannot run, signals that came before the child existed and during the
 * wait reaching it, orphans reaped as a child subreaper, and that nothing
 * is printed (problems go to the report callback).
 *
 * Helpers (tests/helpers/): catch_usr1 OUT READY catches SIGUSR1 (noted
 * in OUT) and leaves every other signal at its default, which a shell
 * cannot do for real-time signals; orphan FILE leaves an orphan that
 * surely dies after its parent.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "registrant.h"
#include "runner.h"
#include "unit.h"

#define DEADLINE_MS 20000 /* a bound for what must happen, never expected */

static char dir[] = "/tmp/tracer-runner-XXXXXX";
static char helpers[4096], catch_usr1[4200], orphan[4200];

struct reports {
	int n;
	char msg[8][512];
};

static void on_report(void *arg, const char *msg)
{
	struct reports *r = arg;

	if (r->n < 8)
		snprintf(r->msg[r->n], sizeof(r->msg[0]), "%s", msg);
	r->n++;
}

struct reaps {
	int n;
	pid_t pid[16];
	int status[16];
	int null_usage;
};

static void on_reap(void *arg, pid_t pid, int status, const struct rusage *ru)
{
	struct reaps *r = arg;

	if (r->n < 16) {
		r->pid[r->n] = pid;
		r->status[r->n] = status;
	}
	r->n++;
	r->null_usage += ru == NULL;
}

/* Index of pid among the reaped, or -1. */
static int reaped(const struct reaps *r, pid_t pid)
{
	for (int i = 0; i < r->n && i < 16; i++)
		if (r->pid[i] == pid)
			return i;
	return -1;
}

/* reports and reaps through one callback argument */
struct both {
	struct reports rep;
	struct reaps rp;
};

static void both_report(void *arg, const char *msg)
{
	on_report(&((struct both *)arg)->rep, msg);
}

static void both_reap(void *arg, pid_t pid, int status, const struct rusage *ru)
{
	on_reap(&((struct both *)arg)->rp, pid, status, ru);
}

/*
 * The runner blocks signals in the calling process and ignores
 * SIGTTIN/SIGTTOU: each test puts them back, so tests stay independent.
 */
struct saved {
	sigset_t mask;
	struct sigaction ttin, ttou;
};

static void save_state(struct saved *s)
{
	sigprocmask(SIG_SETMASK, NULL, &s->mask);
	sigaction(SIGTTIN, NULL, &s->ttin);
	sigaction(SIGTTOU, NULL, &s->ttou);
}

static void restore_state(const struct saved *s)
{
	struct timespec zero = {0, 0};
	sigset_t set;

	/* whatever is still pending would hit us once unblocked */
	runner_forwarded_signals(&set);
	sigaddset(&set, SIGCHLD);
	while (sigtimedwait(&set, NULL, &zero) > 0)
		;
	sigprocmask(SIG_SETMASK, &s->mask, NULL);
	sigaction(SIGTTIN, &s->ttin, NULL);
	sigaction(SIGTTOU, &s->ttou, NULL);
}

/* Poll for path until the deadline: 0 once it exists, -1 if it never did. */
static int wait_for_file(const char *path)
{
	struct timespec step = {0, 5 * 1000000L};
	uint64_t deadline = clock_mono_ms() + DEADLINE_MS;

	do {
		if (access(path, F_OK) == 0)
			return 0;
		nanosleep(&step, NULL);
	} while (clock_mono_ms() < deadline);
	return access(path, F_OK) == 0 ? 0 : -1;
}

/* The whole of a small file as a string ("" when unreadable). */
static const char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static void path_in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* A script without execute permission, in path. */
static void make_noexec(char *path, size_t len)
{
	int fd;

	path_in_dir(path, len, "not-executable");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, "#!/bin/sh\nexit 0\n", 17) == 17);
	close(fd);
	CU_ASSERT_FATAL(chmod(path, 0644) == 0);
}

static void test_forwarded_set(void)
{
	static const int yes[] = {
		SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH,
		SIGCONT, SIGTSTP, SIGALRM, SIGPIPE, SIGVTALRM, SIGPROF, SIGURG,
		SIGXCPU, SIGXFSZ, SIGIO, SIGPWR,
	};
	static const int no[] = {
		SIGCHLD, SIGKILL, SIGSTOP, SIGSEGV, SIGBUS, SIGFPE, SIGILL,
		SIGTRAP, SIGSYS, SIGABRT, SIGTTIN, SIGTTOU,
	};
	sigset_t set;

	runner_forwarded_signals(&set);
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		CU_ASSERT_EQUAL(sigismember(&set, yes[i]), 1);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		CU_ASSERT_EQUAL(sigismember(&set, no[i]), 0);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		CU_ASSERT_EQUAL(sigismember(&set, sig), 1);
}

static void test_cannot_run(void)
{
	char *missing[] = {"tracer-test-no-such-command", NULL};
	char path[300], want[400];
	char *noexec[] = {path, NULL};
	struct reports rep = {0};
	struct runner_opts opts = {.report = on_report, .arg = &rep};
	struct saved sv;
	struct runner r;

	save_state(&sv);
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL(runner_start(&r, missing, &opts), -1);
	CU_ASSERT_EQUAL(r.exit_code, RUNNER_EXIT_NOTFOUND);
	CU_ASSERT_EQUAL(r.exit_code, 127);
	CU_ASSERT_EQUAL(r.child_status, 127 << 8);
	CU_ASSERT_EQUAL(runner_wait(&r), 127 << 8);
	CU_ASSERT_EQUAL(rep.n, 1);
	CU_ASSERT_STRING_EQUAL(rep.msg[0], "tracer-test-no-such-command: command not found");
	restore_state(&sv);

	/* there, but without execute permission */
	make_noexec(path, sizeof(path));
	rep.n = 0;
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL(runner_start(&r, noexec, &opts), -1);
	CU_ASSERT_EQUAL(r.exit_code, RUNNER_EXIT_NOEXEC);
	CU_ASSERT_EQUAL(r.exit_code, 126);
	CU_ASSERT_EQUAL(r.child_status, 126 << 8);
	CU_ASSERT_EQUAL(rep.n, 1);
	snprintf(want, sizeof(want), "%s: cannot execute: Permission denied", path);
	CU_ASSERT_STRING_EQUAL(rep.msg[0], want);
	restore_state(&sv);
}

/* registrant_run's exit code for argv, with reg (may be NULL). */
static int run_code(struct registrant *reg, char *const argv[],
		    struct reports *rep)
{
	struct runner_opts opts = {.report = on_report, .arg = rep};
	struct saved sv;
	struct runner r;
	int code;

	save_state(&sv);
	memset(&r, 0, sizeof(r));
	code = registrant_run(reg, &r, argv, &opts);
	restore_state(&sv);
	return code;
}

/*
 * SIGCHLD ignored by whoever started us (inherited across exec): the
 * kernel would reap the child itself and wait4 would never see it: the
 * runner takes SIGCHLD back (before, it waited forever).
 */
static void test_sigchld_ignored(void)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old, now;
	char *three[] = {"/bin/sh", "-c", "exit 3", NULL};
	struct reports rep = {0};

	sigemptyset(&ign.sa_mask);
	CU_ASSERT_EQUAL_FATAL(sigaction(SIGCHLD, &ign, &old), 0);
	CU_ASSERT_EQUAL(run_code(NULL, three, &rep), 3);
	CU_ASSERT_EQUAL(rep.n, 0);
	/* the runner leaves SIGCHLD at its default in the parent */
	sigaction(SIGCHLD, NULL, &now);
	CU_ASSERT(now.sa_handler == SIG_DFL);
	sigaction(SIGCHLD, &old, NULL);
}

static void test_registrant_codes(void)
{
	char path[300];
	char *missing[] = {"tracer-test-no-such-command", NULL};
	char *noexec[] = {path, NULL};
	char *ok[] = {"/bin/true", NULL};
	char *three[] = {"/bin/sh", "-c", "exit 3", NULL};
	char *killed[] = {"/bin/sh", "-c", "kill -KILL $$", NULL};
	struct registrant unregistered;
	struct reports rep = {0};

	memset(&unregistered, 0, sizeof(unregistered));
	make_noexec(path, sizeof(path));
	CU_ASSERT_EQUAL(run_code(NULL, missing, &rep), 127);
	CU_ASSERT_EQUAL(run_code(&unregistered, missing, &rep), 127);
	CU_ASSERT_EQUAL(run_code(NULL, noexec, &rep), 126);
	CU_ASSERT_EQUAL(rep.n, 3);
	rep.n = 0;
	CU_ASSERT_EQUAL(run_code(NULL, ok, &rep), 0);
	CU_ASSERT_EQUAL(run_code(&unregistered, three, &rep), 3);
	CU_ASSERT_EQUAL(run_code(NULL, killed, &rep), 128 + SIGKILL);
	/* not registered: nothing to tell tracerd, nothing to report */
	CU_ASSERT_EQUAL(rep.n, 0);
}

static void test_nothing_printed(void)
{
	char errfile[300], path[300];
	char *missing[] = {"tracer-test-no-such-command", NULL};
	char *noexec[] = {path, NULL};
	char *three[] = {"/bin/sh", "-c", "exit 3", NULL};
	struct reports rep = {0};
	struct runner_opts opts = {.report = on_report, .arg = &rep};
	struct saved sv;
	struct runner r;
	struct stat st;
	int fd, saved_err;

	path_in_dir(errfile, sizeof(errfile), "stderr");
	make_noexec(path, sizeof(path));
	fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	fflush(stderr);
	saved_err = dup(STDERR_FILENO);
	CU_ASSERT_FATAL(saved_err >= 0);
	dup2(fd, STDERR_FILENO);

	save_state(&sv);
	memset(&r, 0, sizeof(r));
	runner_start(&r, missing, &opts);
	restore_state(&sv);
	memset(&r, 0, sizeof(r));
	runner_start(&r, noexec, &opts);
	restore_state(&sv);
	memset(&r, 0, sizeof(r));
	registrant_run(NULL, &r, three, &opts);
	restore_state(&sv);

	fflush(stderr);
	dup2(saved_err, STDERR_FILENO);
	close(saved_err);
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	close(fd);
	CU_ASSERT_EQUAL(st.st_size, 0);
	if (st.st_size)
		fprintf(stderr, "\n  printed: %s\n", slurp(errfile));
	/* the problems went to the callback instead */
	CU_ASSERT_EQUAL(rep.n, 2);
}

/* sig to this process from a short-lived child, as a user's kill would */
static void send_from_other(int sig)
{
	pid_t me = getpid(), pid = fork();

	if (pid == 0)
		_exit(kill(me, sig) == 0 ? 0 : 1);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(waitpid(pid, NULL, 0), pid);
}

static void test_early_signals(void)
{
	char out[300], ready[300];
	char *argv[] = {catch_usr1, out, ready, NULL};
	struct reports rep = {0};
	struct runner_opts opts = {.report = on_report, .arg = &rep};
	struct saved sv;
	struct runner r;
	sigset_t pending;
	int status;

	path_in_dir(out, sizeof(out), "usr1");
	path_in_dir(ready, sizeof(ready), "catch-ready");
	save_state(&sv);
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL_FATAL(runner_block_signals(&r, &opts), 0);
	/* before the child exists, from another process (a signal we send
	 * ourselves is ours, not the job's): they stay pending here */
	send_from_other(SIGUSR1);
	send_from_other(SIGRTMIN + 3);
	/* one of our own (a write to a closed stderr would raise it): if it
	 * were passed on, its default action would end the helper first */
	kill(getpid(), SIGPIPE);
	sigpending(&pending);
	CU_ASSERT_EQUAL(sigismember(&pending, SIGUSR1), 1);
	CU_ASSERT_EQUAL(sigismember(&pending, SIGRTMIN + 3), 1);

	CU_ASSERT_EQUAL(runner_start(&r, argv, &opts), 0);
	/*
	 * Pending signals are passed on by runner_wait; wait first until the
	 * helper catches SIGUSR1, or its default action would kill it.
	 */
	if (r.child > 0 && wait_for_file(ready) != 0) {
		CU_FAIL("the helper never became ready");
		kill(r.child, SIGKILL);
	}
	status = runner_wait(&r);
	/* both reached it: SIGUSR1 was noted, SIGRTMIN+3 ended it */
	CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGRTMIN + 3);
	CU_ASSERT_STRING_EQUAL(slurp(out), "USR1\n");
	CU_ASSERT_EQUAL(runner_exit_code(status), 128 + SIGRTMIN + 3);
	CU_ASSERT_EQUAL(rep.n, 0);
	restore_state(&sv);
}

static void test_signal_during_wait(void)
{
	char term[300], ready[300];
	char *argv[] = {"/bin/sh", "-c",
			"trap 'echo TERM > \"$1\"; exit 9' TERM; : > \"$2\"; "
			"i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done",
			"sh", term, ready, NULL};
	struct both b;
	struct runner_opts opts = {.on_reap = both_reap, .report = both_report,
				   .arg = &b};
	struct saved sv;
	struct runner r;
	pid_t test = getpid(), watcher;
	int status, ws;

	memset(&b, 0, sizeof(b));
	path_in_dir(term, sizeof(term), "term");
	path_in_dir(ready, sizeof(ready), "term-ready");
	save_state(&sv);
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL_FATAL(runner_start(&r, argv, &opts), 0);
	/* from outside, once the child's trap is set: SIGTERM to the runner */
	watcher = fork();
	CU_ASSERT_FATAL(watcher >= 0);
	if (watcher == 0) {
		if (wait_for_file(ready) != 0)
			_exit(1);
		_exit(kill(test, SIGTERM) == 0 ? 0 : 2);
	}
	status = runner_wait(&r);
	/* the child's trap ran: SIGTERM was passed on to it */
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 9);
	CU_ASSERT_STRING_EQUAL(slurp(term), "TERM\n");
	CU_ASSERT(reaped(&b.rp, r.child) >= 0);
	CU_ASSERT_EQUAL(b.rp.null_usage, 0);
	CU_ASSERT_EQUAL(b.rep.n, 0);
	/* the watcher is our child too: the runner may have reaped it */
	if (waitpid(watcher, &ws, 0) == watcher) {
		CU_ASSERT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	} else {
		int i = reaped(&b.rp, watcher);

		CU_ASSERT_EQUAL(errno, ECHILD);
		CU_ASSERT(i >= 0);
		if (i >= 0)
			CU_ASSERT(WIFEXITED(b.rp.status[i]) &&
				  WEXITSTATUS(b.rp.status[i]) == 0);
	}
	restore_state(&sv);
}

static void test_orphans_reaped(void)
{
	char gfile[300];
	/* the helper leaves an orphan for us and waits until it is reaped */
	char *argv[] = {orphan, gfile, NULL};
	struct both b;
	struct runner_opts opts = {.subreaper = true, .on_reap = both_reap,
				   .report = both_report, .arg = &b};
	struct saved sv;
	struct runner r;
	pid_t orphan;
	int status, i;

	memset(&b, 0, sizeof(b));
	path_in_dir(gfile, sizeof(gfile), "orphan-pid");
	save_state(&sv);
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL_FATAL(runner_start(&r, argv, &opts), 0);
	status = runner_wait(&r);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 4);
	CU_ASSERT_EQUAL(b.rep.n, 0);
	orphan = (pid_t)atoi(slurp(gfile));
	CU_ASSERT(orphan > 0);
	i = reaped(&b.rp, orphan);
	CU_ASSERT(i >= 0);
	if (i >= 0)
		CU_ASSERT(WIFEXITED(b.rp.status[i]) && WEXITSTATUS(b.rp.status[i]) == 5);
	i = reaped(&b.rp, r.child);
	CU_ASSERT(i >= 0);
	if (i >= 0)
		CU_ASSERT_EQUAL(b.rp.status[i], status);
	CU_ASSERT_EQUAL(b.rp.null_usage, 0);

	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	while (waitpid(-1, NULL, WNOHANG) > 0) /* only if the runner missed one */
		;
	restore_state(&sv);
}

int main(int argc, char **argv)
{
	static const struct unit_test tests[] = {
		{"forwarded signals", test_forwarded_set},
		{"command not found, not executable", test_cannot_run},
		{"registrant_run exit codes", test_registrant_codes},
		{"nothing printed", test_nothing_printed},
		{"signals before the child reach it", test_early_signals},
		{"SIGCHLD ignored by our parent", test_sigchld_ignored},
		{"signal during the wait is passed on", test_signal_during_wait},
		{"orphans reaped as subreaper", test_orphans_reaped},
	};
	ssize_t n;
	int rc;

	(void)argc;
	(void)argv;
	/* the helper programs are built beside us: BUILD/tests/helpers/ */
	n = readlink("/proc/self/exe", helpers, sizeof(helpers) - 1);
	if (n <= 0 || !strrchr(helpers, '/'))
		return 1;
	helpers[n] = '\0';
	*strrchr(helpers, '/') = '\0';
	snprintf(catch_usr1, sizeof(catch_usr1), "%s/helpers/catch_usr1", helpers);
	snprintf(orphan, sizeof(orphan), "%s/helpers/orphan", helpers);
	if (access(catch_usr1, X_OK) != 0 || access(orphan, X_OK) != 0) {
		fprintf(stderr, "test_runner: %s or %s missing (make all)\n", catch_usr1, orphan);
		return 1;
	}
	if (unit_make_dir(dir) < 0)
		return 1;
	/*
	 * A PATH entry we may not search (root's home, as another user)
	 * makes execvp fail with EACCES instead of ENOENT for a missing
	 * command: the tests search a PATH of their own.
	 */
	setenv("PATH", "/usr/bin:/bin", 1);
	rc = UNIT_RUN("runner", tests);
	unit_remove_dir(dir);
	return rc;
}
