/*
 * harness.c - the BPF test program's frame: opens the loader and tags this
 * process (job 42) for the whole suite, keeps a copy of every record the
 * ring buffer delivers, and starts and reaps children by pid.  Run as root;
 * `test_bpf --io-child` is the I/O workload test_bpf.c execs.
 * TEST_BPF_VERBOSE=1 prints every measured-vs-wait4 comparison.  Under
 * valgrind: valgrind -q --child-silent-after-fork=yes --error-exitcode=9
 *   --suppressions=tests/bpf/valgrind.supp build/tests/test_bpf
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#include <bpf/bpf.h>

#include "bpf_test.h"

struct bpf_loader *L;
char tmpdir[PATH_MAX];
char pin_dir[64];

const char *test_pin_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", pin_dir, name);
	return buf;
}

/* Whatever this run left in its pin directory, and the directory: a run
 * that failed half-way must not leave programs attached. */
static void bpf_pins_remove(void)
{
	DIR *d = opendir(pin_dir);
	struct dirent *e;
	char p[PATH_MAX];

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", pin_dir, e->d_name);
		if (unlink(p) != 0)
			fprintf(stderr, "unlink %s: %s\n", p, strerror(errno));
	}
	closedir(d);
	if (rmdir(pin_dir) != 0)
		fprintf(stderr, "rmdir %s: %s\n", pin_dir, strerror(errno));
}
char true_path[PATH_MAX];
char self_exe[PATH_MAX];

/* ---- event store: copies of every record, reset per test ---- */


struct rec *recs;
size_t nrecs, bad_recs;
static size_t caprecs;

static size_t min_size(__u32 type)
{
	switch (type) {
	case TRACER_EV_FORK: return sizeof(struct tracer_fork_event);
	case TRACER_EV_EXEC: return offsetof(struct tracer_exec_event, argv);
	case TRACER_EV_EXIT: return sizeof(struct tracer_exit_event);
	case TRACER_EV_OOM: return sizeof(struct tracer_oom_event);
	case TRACER_EV_BLKIO: return sizeof(struct tracer_blkio_event);
	case TRACER_EV_TCP_PEER: return sizeof(struct tracer_tcp_peer_event);
	}
	return SIZE_MAX;
}

int on_event(void *ctx, void *data, size_t size)
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

void reset(void)
{
	bpf_loader_consume(L);
	nrecs = 0;
}

int count_recs(pid_t pid, __u32 type)
{
	int n = 0;

	for (size_t i = 0; i < nrecs; i++)
		n += recs[i].u.hdr.pid == (__u32)pid && recs[i].u.hdr.type == type;
	return n;
}

struct rec *find(pid_t pid, __u32 type)
{
	for (size_t i = 0; i < nrecs; i++)
		if (recs[i].u.hdr.pid == (__u32)pid && recs[i].u.hdr.type == type)
			return &recs[i];
	return NULL;
}

/* ---- children ---- */

pid_t spawn(void (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	CU_ASSERT_FATAL(pid > 0);
	return pid;
}

static long long mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/*
 * The exit record is sent at the dead thread's last context switch, which
 * may come a moment after the parent's wait4() has returned (later on a
 * loaded machine, where the dead thread waits for a CPU to make it): up
 * to 10 s, by the clock (a poll woken by other records ends early).
 */
struct rec *wait_rec(pid_t pid, __u32 type)
{
	struct pollfd pfd = {.fd = bpf_loader_ringbuf_fd(L), .events = POLLIN};
	long long end = mono_ms() + 10000;
	struct rec *r;

	for (;;) {
		bpf_loader_consume(L);
		r = find(pid, type);
		if (r || mono_ms() >= end)
			return r;
		poll(&pfd, 1, 10);
	}
}

int reap_quiet(pid_t pid, struct rusage *ru)
{
	int status = -1;
	struct rusage dummy;

	while (wait4(pid, &status, 0, ru ? ru : &dummy) < 0 && errno == EINTR)
		;
	bpf_loader_consume(L);
	return status;
}

/* Reap a traced child and wait for its exit record. */
int reap(pid_t pid, struct rusage *ru)
{
	int status = reap_quiet(pid, ru);

	CU_ASSERT(wait_rec(pid, TRACER_EV_EXIT) != NULL);
	return status;
}

double ns_of(const struct timeval *tv)
{
	return tv->tv_sec * 1e9 + tv->tv_usec * 1e3;
}

int near(double got, double want, double tol)
{
	double d = got > want ? got - want : want - got;

	if (getenv("TEST_BPF_VERBOSE"))
		fprintf(stderr, " [%.0f vs %.0f: %.3f%%] ", got, want, 100 * d / want);
	if (d <= want * tol)
		return 1;
	fprintf(stderr, "\n  got %.0f, want %.0f (off by %.2f%%)\n", got, want, 100 * d / want);
	return 0;
}

void burn_ms(long ms)
{
	struct timespec t;
	long long end;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	end = t.tv_sec * 1000000000LL + t.tv_nsec + ms * 1000000LL;
	do {
		/* mostly in user space: the clock is a system call, and utime
		 * is split from stime by where the ticks land */
		for (volatile int i = 0; i < 100000; i++)
			;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while (t.tv_sec * 1000000000LL + t.tv_nsec < end);
}

void exec_true(void *arg)
{
	execl("/bin/true", "true", (char *)NULL);
	_exit(127);
}

/* A child forked while we are untagged: it and its descendants are not traced. */
pid_t spawn_untagged(void (*fn)(void *), void *arg)
{
	pid_t pid;

	CU_ASSERT_FATAL(bpf_loader_untag_pid(L, getpid()) == 0);
	pid = spawn(fn, arg);
	CU_ASSERT(bpf_loader_tag_pid(L, getpid(), JOB) == 0); /* the caller still reaps */
	return pid;
}

/* ---- suite ---- */

static int suite_cleanup(void);

/* A pin left by an earlier run that died: the loader must replace it. */
static int plant_stale_pin(void)
{
	struct statfs sfs;
	int fd, rc;

	/* a fresh boot has no bpffs yet: the pin needs one, as tracerd does */
	if ((statfs("/sys/fs/bpf", &sfs) != 0 || sfs.f_type != BPF_FS_MAGIC) &&
	    mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700") != 0) {
		perror("mount bpffs on /sys/fs/bpf");
		return -1;
	}
	if (mkdir(pin_dir, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "mkdir %s: %s\n", pin_dir, strerror(errno));
		return -1;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "stale", 4, 4, 1, NULL);
	if (fd < 0) {
		perror("bpf_map_create");
		return -1;
	}
	char p[128];

	rc = bpf_obj_pin(fd, test_pin_path(p, sizeof(p), "procs"));
	if (rc != 0)
		fprintf(stderr, "bpf_obj_pin %s: %s\n", p, strerror(errno));
	close(fd);
	return rc;
}

static int suite_init(void)
{
	struct bpf_loader_opts o = {.pin_dir = pin_dir};
	char err[512];

	snprintf(pin_dir, sizeof(pin_dir), "/sys/fs/bpf/tracer-test-%d", (int)getpid());
	atexit(bpf_pins_remove); /* also when a CUnit assertion ends the run */

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
	if (plant_stale_pin() != 0) {
		suite_cleanup();
		return -1;
	}
	L = bpf_loader_open(&o, on_event, NULL, err, sizeof(err));
	if (!L) {
		fprintf(stderr, "bpf_loader_open: %s\n", err);
		suite_cleanup();
		return -1;
	}
	if (bpf_loader_tag_pid(L, getpid(), JOB) != 0) {
		fprintf(stderr, "tagging ourselves failed\n");
		suite_cleanup();
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
		L = NULL;
		if (stat(pin_dir, &st) == 0) {
			fprintf(stderr, "pins left in %s after close\n", pin_dir);
			rc = -1;
		}
	}
	bpf_pins_remove();
	if (tmpdir[0] && rmdir(tmpdir) != 0) {
		fprintf(stderr, "rmdir %s: %s\n", tmpdir, strerror(errno));
		rc = -1;
	}
	free(recs);
	recs = NULL;
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
	if (!s || !CU_add_test(s, "loader", test_loader) || add_accounting_tests(s) != 0 ||
	    add_scope_tests(s) != 0 || add_netio_tests(s) != 0 || add_switch_tests(s) != 0 ||
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
