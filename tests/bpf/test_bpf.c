/*
 * test_bpf.c - exact totals: every tagged child is recorded through fork,
 * exec and exit, and its exit record matches what wait4() reports for it
 * (CPU, peak RSS, exit status), including multi-threaded processes whose
 * leader is not the last thread; I/O counters are checked byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "bpf_test.h"

static void test_exec_storm(void)
{
	enum { N = 500 };
	static pid_t pids[N];
	int ok_exec = 0, ok_exit = 0, ok_fork = 0, status_ok = 0;
	__u64 c[TRACER_CNT__MAX];

	reset();
	for (int i = 0; i < N; i++) {
		pids[i] = spawn(exec_true, NULL);
		status_ok += reap(pids[i], NULL) == 0;
	}
	CU_ASSERT_EQUAL(status_ok, N);
	for (int i = 0; i < N; i++) {
		struct rec *f = find(pids[i], TRACER_EV_FORK);
		struct rec *e = find(pids[i], TRACER_EV_EXEC);
		struct rec *x = find(pids[i], TRACER_EV_EXIT);

		ok_fork += f && f->u.fork.ppid == (__u32)getpid() && f->u.hdr.job == JOB;
		ok_exec += e && count_recs(pids[i], TRACER_EV_EXEC) == 1 &&
			   strcmp(e->u.exec.path, true_path) == 0 &&
			   strcmp(e->u.exec.filename, "/bin/true") == 0 &&
			   e->u.exec.argv_len == 5 &&
			   memcmp(e->u.exec.argv, "true", 5) == 0 && e->u.hdr.job == JOB &&
			   e->u.exec.flags == 0;
		ok_exit += x && count_recs(pids[i], TRACER_EV_EXIT) == 1 &&
			   x->u.exit.exit_status == 0 && strcmp(x->u.exit.comm, "true") == 0 &&
			   (x->u.exit.flags & TRACER_F_EXECED) && x->u.exit.nr_threads == 1;
	}
	CU_ASSERT_EQUAL(ok_fork, N);
	CU_ASSERT_EQUAL(ok_exec, N);
	CU_ASSERT_EQUAL(ok_exit, N);
	bpf_loader_counters(L, c);
	CU_ASSERT_EQUAL(c[TRACER_CNT_DROP_RINGBUF], 0);
	CU_ASSERT_EQUAL(c[TRACER_CNT_DROP_PROCS_FULL], 0);
	CU_ASSERT(c[TRACER_CNT_EXECS] >= N && c[TRACER_CNT_EXITS] >= N && c[TRACER_CNT_FORKS] >= N);
	CU_ASSERT_EQUAL(bad_recs, 0);
	/* the children are gone from the map */
	struct tracer_proc p;
	CU_ASSERT_EQUAL(bpf_loader_lookup_proc(L, pids[N - 1], &p), -ENOENT);
	CU_ASSERT_EQUAL(bpf_loader_lookup_proc(L, getpid(), &p), 0);
	CU_ASSERT_EQUAL(p.job, JOB);
}

static void burn_300(void *arg) { burn_ms(300); }

static void test_cpu(void)
{
	struct rusage ru;
	struct rec *x;
	pid_t pid;

	reset();
	pid = spawn(burn_300, NULL);
	CU_ASSERT_EQUAL(reap(pid, &ru), 0);
	x = find(pid, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT(near(x->u.exit.totals.cpu_ns, ns_of(&ru.ru_utime) + ns_of(&ru.ru_stime), 0.02));
	CU_ASSERT(x->u.exit.totals.utime_ns > 0);
}

/* Processes of a millisecond: most of their CPU is not yet accounted at
 * sched_process_exit, so this checks that the final value is read. */
static void test_cpu_short(void)
{
	enum { N = 200 };
	double ours = 0, theirs = 0;
	struct rusage ru;
	struct rec *x;
	pid_t pid;

	reset();
	for (int i = 0; i < N; i++) {
		pid = spawn(exec_true, NULL);
		CU_ASSERT_EQUAL(reap(pid, &ru), 0);
		x = find(pid, TRACER_EV_EXIT);
		if (x)
			ours += x->u.exit.totals.cpu_ns;
		theirs += ns_of(&ru.ru_utime) + ns_of(&ru.ru_stime);
	}
	CU_ASSERT(near(ours, theirs, 0.02));
}

static void touch_200m(void *arg)
{
	volatile char *p = malloc(200 * MIB);

	if (!p)
		_exit(1);
	for (size_t i = 0; i < 200 * MIB; i += 4096)
		p[i] = 1;
	usleep(100 * 1000);
	free((void *)p);
	_exit(0);
}

static void test_maxrss(void)
{
	struct rusage ru;
	struct rec *x;
	pid_t pid;

	reset();
	pid = spawn(touch_200m, NULL);
	CU_ASSERT_EQUAL(reap(pid, &ru), 0);
	x = find(pid, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT(ru.ru_maxrss >= 200 * 1024);
	CU_ASSERT(near(x->u.exit.totals.maxrss_kb, ru.ru_maxrss, 0.02));
	CU_ASSERT(x->u.exit.totals.min_flt > 200 * MIB / 4096 / 2);
}

/*
 * The I/O child is this program again (exec of our own path), so that it
 * runs natively even when the test runs under valgrind, whose own reads and
 * writes would otherwise count.  It reads its /proc/self/io first (what the
 * dynamic loader did before main) and reports it with the length of that
 * read; everything after is known exactly.
 */
struct io_report {
	unsigned long long rchar, wchar, syscr, syscw, io_len;
};

static unsigned long long io_field(const char *buf, const char *name)
{
	const char *p = strstr(buf, name);

	return p ? strtoull(p + strlen(name), NULL, 10) : 0;
}

int io_child(const char *path, int report_fd)
{
	static char buf[64 * 1024];
	struct io_report r;
	ssize_t n;
	int fd = open("/proc/self/io", O_RDONLY);

	if (fd < 0 || (n = read(fd, buf, 4095)) <= 0)
		return 1;
	buf[n] = '\0';
	close(fd);
	r.rchar = io_field(buf, "rchar: ");
	r.wchar = io_field(buf, "wchar: ");
	r.syscr = io_field(buf, "syscr: ");
	r.syscw = io_field(buf, "syscw: ");
	r.io_len = (unsigned long long)n;
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	if (fd < 0)
		return 2;
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 10 * MIB / (int)sizeof(buf); i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 3;
	if (lseek(fd, 0, SEEK_SET) != 0)
		return 4;
	for (int i = 0; i < 10 * MIB / (int)sizeof(buf); i++)
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 5;
	close(fd);
	return write(report_fd, &r, sizeof(r)) == sizeof(r) ? 0 : 6;
}

struct io_arg {
	const char *path;
	int fd;
};

static void exec_io_child(void *p)
{
	struct io_arg *a = p;
	char fd[16];

	snprintf(fd, sizeof(fd), "%d", a->fd);
	execl(self_exe, "test_bpf", "--io-child", a->path, fd, (char *)NULL);
	_exit(127);
}

static void test_io(void)
{
	char path[PATH_MAX];
	struct io_report r;
	struct io_arg a;
	struct rec *x;
	int fds[2];
	pid_t pid;

	reset();
	snprintf(path, sizeof(path), "%s/io.dat", tmpdir);
	CU_ASSERT_FATAL(pipe(fds) == 0);
	a.path = path;
	a.fd = fds[1];
	pid = spawn(exec_io_child, &a);
	close(fds[1]);
	CU_ASSERT_EQUAL(reap(pid, NULL), 0);
	CU_ASSERT_FATAL(read(fds[0], &r, sizeof(r)) == sizeof(r));
	close(fds[0]);
	unlink(path);
	x = find(pid, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT_EQUAL(x->u.exit.totals.wchar, r.wchar + 10 * MIB + sizeof(r));
	CU_ASSERT_EQUAL(x->u.exit.totals.rchar, r.rchar + r.io_len + 10 * MIB);
	CU_ASSERT_EQUAL(x->u.exit.totals.syscw, r.syscw + 160 + 1);
	CU_ASSERT_EQUAL(x->u.exit.totals.syscr, r.syscr + 1 + 160);
}

static void wait_forever(void *arg) { for (;;) pause(); }
static void exit_3(void *arg) { _exit(3); }

static void test_exit_codes(void)
{
	struct rec *x;
	pid_t pid;
	int st;

	reset();
	pid = spawn(wait_forever, NULL);
	CU_ASSERT_FATAL(kill(pid, SIGKILL) == 0);
	st = reap(pid, NULL);
	CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	x = find(pid, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT_EQUAL(x->u.exit.exit_status, st);

	pid = spawn(exit_3, NULL);
	st = reap(pid, NULL);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	x = find(pid, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT_EQUAL(x->u.exit.exit_status, st);
	CU_ASSERT_EQUAL(x->u.exit.ppid, (__u32)getpid());
}

/* ---- threads ---- */

enum thread_mode { LEADER_EXITS, WORKER_EXIT_GROUP, WORKER_EXECS };

static enum thread_mode tmode;
static int all_started;

static void *worker(void *arg)
{
	long idx = (long)arg;

	/* all five threads exist before any of them ends */
	while (!__atomic_load_n(&all_started, __ATOMIC_ACQUIRE))
		usleep(1000);
	if (tmode == WORKER_EXECS) {
		if (idx == 1)
			exec_true(NULL); /* de_thread() kills the other four */
		for (;;)
			pause();
	}
	burn_ms(150 + 50 * idx);
	if (tmode == WORKER_EXIT_GROUP && idx == 1)
		syscall(SYS_exit_group, 5); /* others are still burning */
	syscall(SYS_exit, 0); /* this thread only; no libc teardown */
	return NULL;
}

static void threaded(void *arg)
{
	pthread_t t;

	for (long i = 0; i < 4; i++)
		if (pthread_create(&t, NULL, worker, (void *)i) != 0)
			_exit(1);
	__atomic_store_n(&all_started, 1, __ATOMIC_RELEASE);
	if (tmode == WORKER_EXECS)
		for (;;)
			pause();
	burn_ms(50);
	syscall(SYS_exit, 7); /* the leader goes first, the process lives on */
}

static pid_t run_threaded(enum thread_mode mode, int want_status, __u32 want_threads)
{
	struct rusage ru;
	struct rec *x;
	pid_t pid;
	int st;

	reset();
	tmode = mode;
	pid = spawn(threaded, NULL);
	st = reap(pid, &ru);
	if (mode == LEADER_EXITS) {
		/*
		 * Kernels since "signal: Guarantee that SIGNAL_GROUP_EXIT is
		 * set on process exit" report the code of the last thread to
		 * exit (0); older ones the leader's (7).
		 */
		CU_ASSERT(st == 0 || st == 7 << 8);
	} else {
		CU_ASSERT_EQUAL(st, want_status);
	}
	CU_ASSERT_EQUAL(count_recs(pid, TRACER_EV_EXIT), 1);
	x = find(pid, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT_EQUAL(x->u.exit.exit_status, st);
	CU_ASSERT_EQUAL(x->u.exit.nr_threads, want_threads);
	if (mode != WORKER_EXECS) /* the exec'd image runs too briefly for a ratio */
		CU_ASSERT(near(x->u.exit.totals.cpu_ns,
			       ns_of(&ru.ru_utime) + ns_of(&ru.ru_stime), 0.02));
	return pid;
}

static void test_threads_leader_exits(void) { run_threaded(LEADER_EXITS, 0, 5); }
static void test_threads_exit_group(void) { run_threaded(WORKER_EXIT_GROUP, 5 << 8, 5); }

static void test_threads_exec(void)
{
	struct rec *e;

	pid_t pid = run_threaded(WORKER_EXECS, 0, 5);

	e = find(pid, TRACER_EV_EXEC);
	CU_ASSERT(e && strcmp(e->u.exec.path, true_path) == 0);
}

int add_accounting_tests(CU_pSuite s)
{
	return !CU_add_test(s, "exec storm: 500 fork+exec", test_exec_storm) ||
	       !CU_add_test(s, "cpu within 2% of wait4", test_cpu) ||
	       !CU_add_test(s, "cpu of 1 ms processes within 2% of wait4", test_cpu_short) ||
	       !CU_add_test(s, "maxrss within 2% of wait4", test_maxrss) ||
	       !CU_add_test(s, "rchar/wchar exact", test_io) ||
	       !CU_add_test(s, "exit codes and signals", test_exit_codes) ||
	       !CU_add_test(s, "threads: leader exits first", test_threads_leader_exits) ||
	       !CU_add_test(s, "threads: worker exit_group", test_threads_exit_group) ||
	       !CU_add_test(s, "threads: worker execs", test_threads_exec) ? -1 : 0;
}
