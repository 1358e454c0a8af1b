/*
 * test_bpf.c - the BPF programs and their loader against the running
 * kernel (run as root): tagged children are followed through fork, exec and
 * exit, and the exit totals match what wait4() reports for the same child.
 * Every child is started and reaped here, by pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <CUnit/Basic.h>

#include "bpf_loader.h"

#define JOB 42
#define CG_JOB 77
#define PIN_DIR "/sys/fs/bpf/tracer-test"
#define MIB (1024 * 1024)

static struct bpf_loader *L;
static char tmpdir[PATH_MAX];
static char true_path[PATH_MAX]; /* realpath of /bin/true */
static char self_exe[PATH_MAX];  /* this program, for the I/O child */

/* ---- event store: copies of every record, reset per test ---- */

struct rec {
	size_t size;
	union {
		struct tracer_event_hdr hdr;
		struct tracer_fork_event fork;
		struct tracer_exec_event exec;
		struct tracer_exit_event exit;
		struct tracer_oom_event oom;
	} u;
};

static struct rec *recs;
static size_t nrecs, caprecs, bad_recs;

static size_t min_size(__u32 type)
{
	switch (type) {
	case TRACER_EV_FORK: return sizeof(struct tracer_fork_event);
	case TRACER_EV_EXEC: return offsetof(struct tracer_exec_event, argv);
	case TRACER_EV_EXIT: return sizeof(struct tracer_exit_event);
	case TRACER_EV_OOM: return sizeof(struct tracer_oom_event);
	}
	return SIZE_MAX;
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct tracer_event_hdr *h = data;
	struct rec *r;

	if (size < sizeof(*h) || size < min_size(h->type) || size > sizeof(r->u)) {
		bad_recs++;
		return 0;
	}
	if (nrecs == caprecs) {
		size_t cap = caprecs ? caprecs * 2 : 1024;
		struct rec *n = realloc(recs, cap * sizeof(*n));

		if (!n) {
			bad_recs++;
			return 0;
		}
		recs = n;
		caprecs = cap;
	}
	r = &recs[nrecs++];
	memset(&r->u, 0, sizeof(r->u));
	memcpy(&r->u, data, size);
	r->size = size;
	if (h->type == TRACER_EV_EXEC &&
	    size != offsetof(struct tracer_exec_event, argv) + r->u.exec.argv_len)
		bad_recs++;
	return 0;
}

static void reset(void)
{
	bpf_loader_consume(L);
	nrecs = 0;
}

static int count_recs(pid_t pid, __u32 type)
{
	int n = 0;

	for (size_t i = 0; i < nrecs; i++)
		n += recs[i].u.hdr.pid == (__u32)pid && recs[i].u.hdr.type == type;
	return n;
}

static struct rec *find(pid_t pid, __u32 type)
{
	for (size_t i = 0; i < nrecs; i++)
		if (recs[i].u.hdr.pid == (__u32)pid && recs[i].u.hdr.type == type)
			return &recs[i];
	return NULL;
}

/* ---- children ---- */

static pid_t spawn(void (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	CU_ASSERT_FATAL(pid > 0);
	return pid;
}

/*
 * The exit record is sent at the dead thread's last context switch, which
 * may come a moment after the parent's wait4() has returned.
 */
static struct rec *wait_rec(pid_t pid, __u32 type)
{
	struct pollfd pfd = {.fd = bpf_loader_ringbuf_fd(L), .events = POLLIN};
	struct rec *r;

	for (int i = 0; i < 200; i++) {
		bpf_loader_consume(L);
		r = find(pid, type);
		if (r)
			return r;
		poll(&pfd, 1, 10);
	}
	return NULL;
}

static int reap_quiet(pid_t pid, struct rusage *ru)
{
	int status = -1;
	struct rusage dummy;

	while (wait4(pid, &status, 0, ru ? ru : &dummy) < 0 && errno == EINTR)
		;
	bpf_loader_consume(L);
	return status;
}

/* Reap a traced child and wait for its exit record. */
static int reap(pid_t pid, struct rusage *ru)
{
	int status = reap_quiet(pid, ru);

	CU_ASSERT(wait_rec(pid, TRACER_EV_EXIT) != NULL);
	return status;
}

static double ns_of(const struct timeval *tv)
{
	return tv->tv_sec * 1e9 + tv->tv_usec * 1e3;
}

static int near(double got, double want, double tol)
{
	double d = got > want ? got - want : want - got;

	if (getenv("TEST_BPF_VERBOSE"))
		fprintf(stderr, " [%.0f vs %.0f: %.3f%%] ", got, want, 100 * d / want);
	if (d <= want * tol)
		return 1;
	fprintf(stderr, "\n  got %.0f, want %.0f (off by %.2f%%)\n", got, want, 100 * d / want);
	return 0;
}

static void burn_ms(long ms)
{
	struct timespec t;
	long long end;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	end = t.tv_sec * 1000000000LL + t.tv_nsec + ms * 1000000LL;
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while (t.tv_sec * 1000000000LL + t.tv_nsec < end);
}

static void exec_true(void *arg)
{
	execl("/bin/true", "true", (char *)NULL);
	_exit(127);
}

/* A child forked while we are untagged: it and its descendants are not traced. */
static pid_t spawn_untagged(void (*fn)(void *), void *arg)
{
	pid_t pid;

	CU_ASSERT_FATAL(bpf_loader_untag_pid(L, getpid()) == 0);
	pid = spawn(fn, arg);
	CU_ASSERT_FATAL(bpf_loader_tag_pid(L, getpid(), JOB) == 0);
	return pid;
}

/* ---- tests ---- */

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
			   e->u.exec.argc == 1 && e->u.exec.argv_len == 5 &&
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

static int io_child(const char *path, int report_fd)
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

	if (tmode == WORKER_EXECS) {
		while (idx == 1 && !__atomic_load_n(&all_started, __ATOMIC_ACQUIRE))
			usleep(1000);
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

/* ---- what is and is not traced ---- */

struct fork_exec_arg {
	int cmd_fd;   /* read one byte before starting */
	int pid_fd;   /* grandchild pid written here */
};

static void fork_exec_on_cmd(void *p)
{
	struct fork_exec_arg *a = p;
	char c;
	pid_t pid;
	int st;

	if (read(a->cmd_fd, &c, 1) != 1)
		_exit(1);
	pid = fork();
	if (pid == 0)
		exec_true(NULL);
	if (pid < 0 || write(a->pid_fd, &pid, sizeof(pid)) != sizeof(pid))
		_exit(2);
	_exit(waitpid(pid, &st, 0) == pid && st == 0 ? 0 : 3);
}

/* Start an untagged child, run `between` with it, let it fork+exec. */
static void untagged_run(void (*between)(pid_t, void *), void *arg, pid_t *child, pid_t *grandchild)
{
	struct fork_exec_arg a;
	int cmd[2], pids[2];

	CU_ASSERT_FATAL(pipe(cmd) == 0 && pipe(pids) == 0);
	a.cmd_fd = cmd[0];
	a.pid_fd = pids[1];
	*child = spawn_untagged(fork_exec_on_cmd, &a);
	if (between)
		between(*child, arg);
	CU_ASSERT(write(cmd[1], "x", 1) == 1);
	CU_ASSERT(read(pids[0], grandchild, sizeof(*grandchild)) == sizeof(*grandchild));
	CU_ASSERT_EQUAL(reap_quiet(*child, NULL), 0);
	close(cmd[0]);
	close(cmd[1]);
	close(pids[0]);
	close(pids[1]);
}

static void test_untagged(void)
{
	pid_t child, grandchild;
	struct tracer_proc p;

	reset();
	untagged_run(NULL, NULL, &child, &grandchild);
	usleep(50 * 1000); /* let a wrong late record arrive */
	bpf_loader_consume(L);
	for (size_t i = 0; i < nrecs; i++)
		CU_ASSERT(recs[i].u.hdr.pid != (__u32)child && recs[i].u.hdr.pid != (__u32)grandchild);
	CU_ASSERT_EQUAL(bpf_loader_lookup_proc(L, child, &p), -ENOENT);
}

static void join_cgroup(pid_t pid, void *dir)
{
	char path[PATH_MAX], buf[32];
	struct stat st;
	int fd, n;

	snprintf(path, sizeof(path), "%s/cgroup.procs", (char *)dir);
	fd = open(path, O_WRONLY);
	CU_ASSERT_FATAL(fd >= 0);
	n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	CU_ASSERT(write(fd, buf, n) == n);
	close(fd);
	CU_ASSERT_FATAL(stat(dir, &st) == 0);
	CU_ASSERT_EQUAL(bpf_loader_tag_cgroup(L, st.st_ino, CG_JOB), 0);
}

static void test_cgroup_tag(void)
{
	const char *dir = "/sys/fs/cgroup/unified/tracer-bpf-test";
	pid_t child, grandchild;
	struct rec *e, *x;
	struct stat st;

	reset();
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		CU_FAIL_FATAL("cannot create a cgroup v2 directory under /sys/fs/cgroup/unified");
	}
	CU_ASSERT_FATAL(stat(dir, &st) == 0);
	untagged_run(join_cgroup, (void *)dir, &child, &grandchild);
	CU_ASSERT_EQUAL(bpf_loader_untag_cgroup(L, st.st_ino), 0);
	CU_ASSERT_EQUAL(bpf_loader_untag_cgroup(L, st.st_ino), -ENOENT);
	CU_ASSERT(rmdir(dir) == 0);
	x = wait_rec(grandchild, TRACER_EV_EXIT);
	e = find(grandchild, TRACER_EV_EXEC);
	CU_ASSERT(find(grandchild, TRACER_EV_FORK) != NULL);
	CU_ASSERT_FATAL(e != NULL && x != NULL);
	CU_ASSERT_EQUAL(e->u.hdr.job, CG_JOB);
	CU_ASSERT_EQUAL(e->u.exec.cgroup_id, st.st_ino);
	CU_ASSERT_EQUAL(x->u.hdr.job, CG_JOB);
	CU_ASSERT_EQUAL(count_recs(child, TRACER_EV_EXIT), 0);
}

static void double_fork(void *arg)
{
	int *fd = arg;
	pid_t pid = fork();

	if (pid == 0) {
		usleep(50 * 1000);
		exec_true(NULL);
	}
	_exit(pid > 0 && write(*fd, &pid, sizeof(pid)) == sizeof(pid) ? 0 : 1);
}

static void test_daemonized(void)
{
	pid_t child, orphan = 0;
	int fds[2];
	struct rec *x;

	reset();
	CU_ASSERT_FATAL(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0 && pipe(fds) == 0);
	child = spawn(double_fork, &fds[1]);
	CU_ASSERT_EQUAL(reap(child, NULL), 0);
	CU_ASSERT(read(fds[0], &orphan, sizeof(orphan)) == sizeof(orphan));
	CU_ASSERT_EQUAL_FATAL(reap(orphan, NULL), 0);
	close(fds[0]);
	close(fds[1]);
	x = find(orphan, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT_EQUAL(x->u.hdr.job, JOB);
	CU_ASSERT_EQUAL(x->u.exit.ppid, (__u32)getpid()); /* reparented to us */
}

/* ---- paths and argv ---- */

static void exec_rel(void *dir)
{
	if (chdir(dir) != 0)
		_exit(126);
	execl("./x", "x", "arg1", (char *)NULL);
	_exit(127);
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out = open(to, O_CREAT | O_TRUNC | O_WRONLY, 0755);
	int rc = in >= 0 && out >= 0 ? 0 : -1;

	while (rc == 0 && (n = read(in, buf, sizeof(buf))) > 0)
		rc = write(out, buf, n) == n ? 0 : -1;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0)
		rc = -1;
	return rc;
}

static void test_relative_path(void)
{
	char mnt[PATH_MAX], x[PATH_MAX], want[PATH_MAX];
	struct rec *e;
	pid_t pid;

	reset();
	/* a tmpfs of our own: the walk must cross a mount point */
	snprintf(mnt, sizeof(mnt), "%s/mnt", tmpdir);
	CU_ASSERT_FATAL(mkdir(mnt, 0700) == 0);
	CU_ASSERT_FATAL(mount("tmpfs", mnt, "tmpfs", 0, "size=16m") == 0);
	snprintf(x, sizeof(x), "%s/x", mnt);
	CU_ASSERT(copy_file("/bin/true", x) == 0);
	CU_ASSERT(realpath(x, want) != NULL);
	pid = spawn(exec_rel, mnt);
	CU_ASSERT_EQUAL(reap(pid, NULL), 0);
	CU_ASSERT(umount(mnt) == 0);
	CU_ASSERT(rmdir(mnt) == 0);
	e = find(pid, TRACER_EV_EXEC);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_STRING_EQUAL(e->u.exec.path, want);
	CU_ASSERT_EQUAL(e->u.exec.path_len, strlen(want));
	CU_ASSERT_STRING_EQUAL(e->u.exec.filename, "./x");
	CU_ASSERT_EQUAL(e->u.exec.argc, 2);
	CU_ASSERT(e->u.exec.argv_len == 7 && memcmp(e->u.exec.argv, "x\0arg1", 7) == 0);
	CU_ASSERT_EQUAL(e->u.exec.flags, 0);
}

static void exec_long_argv(void *arg)
{
	static char big[3000];

	memset(big, 'a', sizeof(big) - 1);
	execl("/bin/true", "true", big, (char *)NULL);
	_exit(127);
}

static void exec_deep(void *path)
{
	execl(path, "x", (char *)NULL);
	_exit(127);
}

static void test_truncation(void)
{
	char deep[PATH_MAX];
	size_t n;
	struct rec *e;
	pid_t pid;

	reset();
	pid = spawn(exec_long_argv, NULL);
	CU_ASSERT_EQUAL(reap(pid, NULL), 0);
	e = find(pid, TRACER_EV_EXEC);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT(e->u.exec.flags & TRACER_F_ARGV_TRUNCATED);
	CU_ASSERT_EQUAL(e->u.exec.argv_len, 1024); /* the default argv_max */
	CU_ASSERT_EQUAL(e->u.exec.argc, 2);

	/* deeper than the walk goes: falls back to the name given to execve */
	n = (size_t)snprintf(deep, sizeof(deep), "%s", tmpdir);
	for (int i = 0; i < 70; i++) {
		n += (size_t)snprintf(deep + n, sizeof(deep) - n, "/d");
		CU_ASSERT_FATAL(mkdir(deep, 0700) == 0 || errno == EEXIST);
	}
	snprintf(deep + n, sizeof(deep) - n, "/x");
	CU_ASSERT_FATAL(copy_file("/bin/true", deep) == 0);
	pid = spawn(exec_deep, deep);
	CU_ASSERT_EQUAL(reap(pid, NULL), 0);
	e = find(pid, TRACER_EV_EXEC);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_EQUAL(e->u.exec.flags, TRACER_F_PATH_TRUNCATED | TRACER_F_PATH_FROM_FILENAME);
	CU_ASSERT_STRING_EQUAL(e->u.exec.path, deep);
	unlink(deep);
	while (n > strlen(tmpdir)) { /* remove d/d/.../d, deepest first */
		deep[n] = '\0';
		rmdir(deep);
		n -= 2;
	}
}

/* ---- OOM: v1 memory controller where present, else v2 ---- */

static int memcg_dir(char *dir, size_t len)
{
	char line[512], base[PATH_MAX] = "";
	FILE *f = fopen("/proc/self/cgroup", "r");
	int v1 = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;

		if (!path)
			continue;
		*path++ = '\0';
		path[strcspn(path, "\n")] = '\0';
		if (strcmp(ctl + 1, "memory") == 0) {
			snprintf(base, sizeof(base), "/sys/fs/cgroup/memory%s", path);
			v1 = 1;
		} else if (!v1 && strcmp(ctl + 1, "") == 0) {
			snprintf(base, sizeof(base), "/sys/fs/cgroup%s", path);
		}
	}
	fclose(f);
	snprintf(dir, len, "%s/tracer-oom-%d", base, (int)getpid());
	return v1;
}

static void oom_child(void *dir)
{
	char path[PATH_MAX];
	char *p;
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.procs", (char *)dir);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "0\n", 2) != 2)
		_exit(1);
	close(fd);
	for (int i = 0; i < 64; i++) { /* 512 MiB against a 64 MiB limit */
		p = malloc(8 * MIB);
		if (!p)
			_exit(2);
		memset(p, 1, 8 * MIB);
	}
	_exit(3);
}

static void test_oom(void)
{
	char dir[PATH_MAX], limit[PATH_MAX];
	struct rec *o, *x;
	int v1 = memcg_dir(dir, sizeof(dir)), fd, st;
	pid_t pid;

	reset();
	CU_ASSERT_FATAL(v1 >= 0);
	if (mkdir(dir, 0755) != 0)
		CU_FAIL_FATAL("cannot create a memory cgroup for the OOM test");
	snprintf(limit, sizeof(limit), "%s/%s", dir, v1 ? "memory.limit_in_bytes" : "memory.max");
	fd = open(limit, O_WRONLY);
	CU_ASSERT(fd >= 0 && write(fd, "67108864\n", 9) == 9);
	if (fd >= 0)
		close(fd);
	pid = spawn(oom_child, dir);
	st = reap(pid, NULL);
	CU_ASSERT(rmdir(dir) == 0);
	CU_ASSERT_FATAL(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	o = find(pid, TRACER_EV_OOM);
	x = find(pid, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(o != NULL && x != NULL);
	CU_ASSERT_EQUAL(o->u.hdr.job, JOB);
	CU_ASSERT(x->u.exit.flags & TRACER_F_OOM_KILLED);
	CU_ASSERT_EQUAL(x->u.exit.exit_status, st);
}

/* ---- loader ---- */

static void test_loader(void)
{
	char names[8][32];
	struct stat st;
	__u64 c[TRACER_CNT__MAX];
	int n = bpf_loader_programs(L, names, 8);

	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT(stat(PIN_DIR, &st) == 0 && (st.st_mode & 0777) == 0700);
	CU_ASSERT(stat(PIN_DIR "/procs", &st) == 0 && (st.st_mode & 0777) == 0600);
	CU_ASSERT(stat(PIN_DIR "/counters", &st) == 0);
	CU_ASSERT(stat("/sys/kernel/tracing/events/oom/mark_victim", &st) == 0);
	CU_ASSERT(bpf_loader_ringbuf_fd(L) >= 0);
	CU_ASSERT_EQUAL(bpf_loader_tag_pid(L, 999999999, 1), -ESRCH);
	CU_ASSERT_EQUAL(bpf_loader_untag_pid(L, 999999999), -ENOENT);
	bpf_loader_counters(L, c);
	CU_ASSERT_EQUAL(c[TRACER_CNT_DROP_RINGBUF], 0);
	CU_ASSERT_EQUAL(c[TRACER_CNT_DROP_PROCS_FULL], 0);
	CU_ASSERT_EQUAL(bad_recs, 0);
}

/* ---- suite ---- */

static int suite_init(void)
{
	struct bpf_loader_opts o = {.pin_dir = PIN_DIR};
	char err[512];

	if (geteuid() != 0) {
		fprintf(stderr, "test_bpf must run as root (loads BPF programs)\n");
		return -1;
	}
	if (!realpath("/bin/true", true_path) || !realpath("/proc/self/exe", self_exe)) {
		perror("realpath /bin/true or /proc/self/exe");
		return -1;
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tracer-bpf-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return -1;
	}
	L = bpf_loader_open(&o, on_event, NULL, err, sizeof(err));
	if (!L) {
		fprintf(stderr, "bpf_loader_open: %s\n", err);
		return -1;
	}
	if (bpf_loader_tag_pid(L, getpid(), JOB) != 0) {
		fprintf(stderr, "tagging ourselves failed\n");
		return -1;
	}
	return 0;
}

static int suite_cleanup(void)
{
	struct stat st;
	int rc = 0;

	if (L) {
		bpf_loader_untag_pid(L, getpid());
		bpf_loader_close(L);
		if (stat(PIN_DIR, &st) == 0) {
			fprintf(stderr, "pins left in %s after close\n", PIN_DIR);
			rc = -1;
		}
	}
	if (tmpdir[0] && rmdir(tmpdir) != 0) {
		fprintf(stderr, "rmdir %s: %s\n", tmpdir, strerror(errno));
		rc = -1;
	}
	free(recs);
	return rc;
}

int main(int argc, char **argv)
{
	CU_pSuite s;
	unsigned failed;

	if (argc == 4 && strcmp(argv[1], "--io-child") == 0)
		return io_child(argv[2], atoi(argv[3]));

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("bpf", suite_init, suite_cleanup);
	if (!s ||
	    !CU_add_test(s, "loader", test_loader) ||
	    !CU_add_test(s, "exec storm: 500 fork+exec", test_exec_storm) ||
	    !CU_add_test(s, "cpu within 2% of wait4", test_cpu) ||
	    !CU_add_test(s, "cpu of 1 ms processes within 2% of wait4", test_cpu_short) ||
	    !CU_add_test(s, "maxrss within 2% of wait4", test_maxrss) ||
	    !CU_add_test(s, "rchar/wchar exact", test_io) ||
	    !CU_add_test(s, "exit codes and signals", test_exit_codes) ||
	    !CU_add_test(s, "threads: leader exits first", test_threads_leader_exits) ||
	    !CU_add_test(s, "threads: worker exit_group", test_threads_exit_group) ||
	    !CU_add_test(s, "threads: worker execs", test_threads_exec) ||
	    !CU_add_test(s, "untagged process: no events", test_untagged) ||
	    !CU_add_test(s, "tagged cgroup", test_cgroup_tag) ||
	    !CU_add_test(s, "double fork stays in the job", test_daemonized) ||
	    !CU_add_test(s, "relative exec across a mount", test_relative_path) ||
	    !CU_add_test(s, "argv and path truncation", test_truncation) ||
	    !CU_add_test(s, "OOM kill", test_oom) ||
	    !CU_add_test(s, "no drops at the end", test_loader)) {
		CU_cleanup_registry();
		return 1;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
