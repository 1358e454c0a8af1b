/*
 * test_procfs.c - /proc parsers on odd input (children's times and
 * faults, Tgid), and the readers on /proc/self: per-thread I/O, start
 * time.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"
#include "clock.h"
#include "unit.h"

static const char *self_argv0;

/* Parse from an exact-size heap copy: any read past len is caught by ASan/valgrind. */
static int parse_stat_exact(const char *text, size_t len, struct procfs_stat *st)
{
	char *copy = malloc(len ? len : 1);
	int r;

	CU_ASSERT_FATAL(copy != NULL);
	memcpy(copy, text, len);
	r = procfs_parse_stat(copy, len, st);
	free(copy);
	return r;
}

#define STAT_TAIL " S 1 1234 1234 34816 1234 4194560 1000 2000 3 4 50 60 0 0 20 0 " \
		  "3 0 123456 12345678 789 18446744073709551615 1 1 0 0 0 0 0 0 0 " \
		  "0 0 0 17 1 0 0 0 0 0\n"

static void test_stat_normal(void)
{
	static const char line[] = "1234 (bash)" STAT_TAIL;
	struct procfs_stat st;

	CU_ASSERT_EQUAL(parse_stat_exact(line, strlen(line), &st), 0);
	CU_ASSERT_EQUAL(st.pid, 1234);
	CU_ASSERT_STRING_EQUAL(st.comm, "bash");
	CU_ASSERT_EQUAL(st.state, 'S');
	CU_ASSERT_EQUAL(st.ppid, 1);
	CU_ASSERT_EQUAL(st.minflt, 1000);
	CU_ASSERT_EQUAL(st.majflt, 3);
	CU_ASSERT_EQUAL(st.utime_ticks, 50);
	CU_ASSERT_EQUAL(st.stime_ticks, 60);
	CU_ASSERT_EQUAL(st.num_threads, 3);
	CU_ASSERT_EQUAL(st.start_ticks, 123456);
	CU_ASSERT_EQUAL(st.rss_pages, 789);
}

static void test_stat_odd_comm(void)
{
	static const char odd[] = "42 (a) b (c)" STAT_TAIL;
	static const char paren[] = "43 ())" STAT_TAIL;
	static const char fake[] = "44 (x) R 9 9 9) " STAT_TAIL;
	static const char spaces[] = "45 (  )" STAT_TAIL;
	static const char nl[] = "46 (a\nb)" STAT_TAIL;
	static const char longc[] = "47 (0123456789abcdefXYZ)" STAT_TAIL;
	struct procfs_stat st;

	CU_ASSERT_EQUAL(parse_stat_exact(odd, strlen(odd), &st), 0);
	CU_ASSERT_STRING_EQUAL(st.comm, "a) b (c");
	CU_ASSERT_EQUAL(st.state, 'S');
	CU_ASSERT_EQUAL(st.ppid, 1);
	CU_ASSERT_EQUAL(st.rss_pages, 789);
	CU_ASSERT_EQUAL(parse_stat_exact(paren, strlen(paren), &st), 0);
	CU_ASSERT_STRING_EQUAL(st.comm, ")");
	/* a comm that imitates the following fields: the LAST ')' decides */
	CU_ASSERT_EQUAL(parse_stat_exact(fake, strlen(fake), &st), 0);
	CU_ASSERT_STRING_EQUAL(st.comm, "x) R 9 9 9");
	CU_ASSERT_EQUAL(st.ppid, 1);
	CU_ASSERT_EQUAL(parse_stat_exact(spaces, strlen(spaces), &st), 0);
	CU_ASSERT_STRING_EQUAL(st.comm, "  ");
	CU_ASSERT_EQUAL(parse_stat_exact(nl, strlen(nl), &st), 0);
	CU_ASSERT_STRING_EQUAL(st.comm, "a\nb");
	CU_ASSERT_EQUAL(parse_stat_exact(longc, strlen(longc), &st), 0);
	CU_ASSERT_STRING_EQUAL(st.comm, "0123456789abcde");
}

static void test_stat_broken(void)
{
	static const char full[] = "1234 (bash)" STAT_TAIL;
	struct procfs_stat st;
	const char *bad[] = {
		"",
		"1234",
		"1234 bash S 1",
		"1234 (bash S 1 2 3",
		"(bash) S 1 2 3",
		"-5 (bash)" STAT_TAIL,
		"1234 (bash) 7 1 2",
		"1234 (bash) S 1 1234 1234",              /* missing fields */
		"1234 (bash) S x 1234 1234 34816 1234 4194560 1000 2000 3 4 50 60 0 0 20 0 3 0 1 2 3",
		"99999999999999999999 (x)" STAT_TAIL,
		"1234 (bash) S 1 1234 1234 34816 1234 4194560 -1000 2000 3 4 50 60 0 0 20 0 3 0 1 2 3",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse_stat_exact(bad[i], strlen(bad[i]), &st);

		if (r != -1)
			fprintf(stderr, "\n  accepted: \"%s\"\n", bad[i]);
		CU_ASSERT_EQUAL(r, -1);
	}
	/* every truncation of a good line that cuts into the first 24 fields fails */
	for (size_t len = 0; len < strlen(full); len++) {
		int r = parse_stat_exact(full, len, &st);
		const char *rss_end = strstr(full, " 789 ") + 4;

		if (len < (size_t)(rss_end - full))
			CU_ASSERT_EQUAL(r, -1);
	}
	CU_ASSERT_EQUAL(procfs_parse_stat(NULL, 10, &st), -1);
}

static void test_io(void)
{
	static const char io[] = "rchar: 100\nwchar: 200\nsyscr: 3\nsyscw: 4\n"
				 "read_bytes: 4096\nwrite_bytes: 8192\n"
				 "cancelled_write_bytes: 512\n";
	static const char partial[] = "rchar: 7\nwchar: 8";
	struct procfs_io st;

	CU_ASSERT_EQUAL(procfs_parse_io(io, strlen(io), &st), 0);
	CU_ASSERT_EQUAL(st.rchar, 100);
	CU_ASSERT_EQUAL(st.wchar, 200);
	CU_ASSERT_EQUAL(st.syscr, 3);
	CU_ASSERT_EQUAL(st.syscw, 4);
	CU_ASSERT_EQUAL(st.read_bytes, 4096);
	CU_ASSERT_EQUAL(st.write_bytes, 8192);
	CU_ASSERT_EQUAL(st.cancelled_write_bytes, 512);
	/* missing fields are 0; an unterminated last line may be cut: ignored */
	CU_ASSERT_EQUAL(procfs_parse_io(partial, strlen(partial), &st), 0);
	CU_ASSERT_EQUAL(st.rchar, 7);
	CU_ASSERT_EQUAL(st.wchar, 0);
	CU_ASSERT_EQUAL(st.read_bytes, 0);
	CU_ASSERT_EQUAL(procfs_parse_io(partial, 12, &st), 0); /* "rchar: 7\nwch" */
	CU_ASSERT_EQUAL(st.rchar, 7);
	CU_ASSERT_EQUAL(procfs_parse_io(partial, 8, &st), -1); /* "rchar: 7" */
	CU_ASSERT_EQUAL(procfs_parse_io("garbage", 7, &st), -1);
	CU_ASSERT_EQUAL(procfs_parse_io("rchar: x\n", 9, &st), -1);
	CU_ASSERT_EQUAL(procfs_parse_io("", 0, &st), -1);
	CU_ASSERT_EQUAL(procfs_parse_io("rchar: 99999999999999999999\n", 28, &st), -1);
}

static void test_status(void)
{
	static const char status[] =
		"Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\n"
		"Uid:\t1000\t1001\t1002\t1003\nGid:\t100\t100\t100\t100\n"
		"VmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nThreads:\t4\n"
		"voluntary_ctxt_switches:\t55\nnonvoluntary_ctxt_switches:\t6\n";
	static const char kthread[] = "Name:\tkworker/0:1\nState:\tI (idle)\n"
				      "Uid:\t0\t0\t0\t0\nThreads:\t1\n";
	struct procfs_status st;

	CU_ASSERT_EQUAL(procfs_parse_status(status, strlen(status), &st), 0);
	CU_ASSERT_EQUAL(st.vm_rss_kb, 10240);
	CU_ASSERT_EQUAL(st.vm_hwm_kb, 20480);
	CU_ASSERT_EQUAL(st.threads, 4);
	CU_ASSERT_EQUAL(st.voluntary_ctxt_switches, 55);
	CU_ASSERT_EQUAL(st.nonvoluntary_ctxt_switches, 6);
	CU_ASSERT_EQUAL(st.uid, 1000);
	/* kernel threads have no Vm lines */
	CU_ASSERT_EQUAL(procfs_parse_status(kthread, strlen(kthread), &st), 0);
	CU_ASSERT_EQUAL(st.vm_rss_kb, 0);
	CU_ASSERT_EQUAL(st.uid, 0);
	CU_ASSERT_EQUAL(procfs_parse_status("Name:\tx\n", 8, &st), -1);
	CU_ASSERT_EQUAL(procfs_parse_status("VmRSS:\t12", 10, &st), -1);
	CU_ASSERT_EQUAL(st.uid, (uid_t)-1);
}

static void test_cgroup_parse(void)
{
	static const char hybrid[] =
		"9:name=systemd:/\n8:pids:/\n4:memory:/slurm/uid_0/job_5/step_0\n"
		"3:blkio:/slurm/uid_0\n2:cpuacct:/slurm/uid_0/job_5\n1:cpu:/\n0::/\n";
	static const char v2[] = "0::/system.slice/slurmstepd.scope/job_7\n";
	static const char joined[] = "5:cpu,cpuacct:/a:b/c\n3:memory:/m\n";
	static struct procfs_cgroup cg;
	static char longer[PROCFS_CGROUP_PATH + 16];

	CU_ASSERT_EQUAL(procfs_parse_cgroup(hybrid, strlen(hybrid), &cg), 0);
	CU_ASSERT_STRING_EQUAL(cg.v2, "/");
	CU_ASSERT_STRING_EQUAL(cg.memory, "/slurm/uid_0/job_5/step_0");
	CU_ASSERT_STRING_EQUAL(cg.cpuacct, "/slurm/uid_0/job_5");
	/* cpu in a hierarchy of its own: its own path (the CFS quota's) */
	CU_ASSERT_STRING_EQUAL(cg.cpu, "/");
	CU_ASSERT_STRING_EQUAL(cg.blkio, "/slurm/uid_0");
	CU_ASSERT_EQUAL(procfs_parse_cgroup(v2, strlen(v2), &cg), 0);
	CU_ASSERT_STRING_EQUAL(cg.v2, "/system.slice/slurmstepd.scope/job_7");
	CU_ASSERT_STRING_EQUAL(cg.memory, "");
	CU_ASSERT_STRING_EQUAL(cg.cpuacct, "");
	CU_ASSERT_STRING_EQUAL(cg.blkio, "");
	/* a joined controller list; a path holding ':' */
	CU_ASSERT_EQUAL(procfs_parse_cgroup(joined, strlen(joined), &cg), 0);
	CU_ASSERT_STRING_EQUAL(cg.v2, "");
	CU_ASSERT_STRING_EQUAL(cg.memory, "/m");
	CU_ASSERT_STRING_EQUAL(cg.cpuacct, "/a:b/c");
	CU_ASSERT_STRING_EQUAL(cg.cpu, "/a:b/c");
	/* a path longer than the field: an error, not a cut path */
	memcpy(longer, "0::/", 4);
	memset(longer + 4, 'x', sizeof(longer) - 6);
	longer[sizeof(longer) - 2] = '\n';
	CU_ASSERT_EQUAL(procfs_parse_cgroup(longer, sizeof(longer) - 1, &cg), -1);
	CU_ASSERT_EQUAL(errno, ENAMETOOLONG);
	CU_ASSERT_STRING_EQUAL(cg.v2, "");
	CU_ASSERT_EQUAL(procfs_parse_cgroup("", 0, &cg), -1);
	CU_ASSERT_EQUAL(procfs_parse_cgroup("garbage\n", 8, &cg), -1);
}

static void test_read_self(void)
{
	struct procfs_stat st;
	struct procfs_io io;
	struct procfs_status ps;
	char exe[4096], cmd[4096];
	static struct procfs_cgroup cg;
	ssize_t n;

	CU_ASSERT_EQUAL_FATAL(procfs_read_stat(getpid(), &st), 0);
	CU_ASSERT_EQUAL(st.pid, getpid());
	CU_ASSERT_EQUAL(st.ppid, getppid());
	{
		/* the kernel's own view (under valgrind, comm is the tool's) */
		char comm[64] = "";
		FILE *f = fopen("/proc/self/comm", "r");

		CU_ASSERT_FATAL(f != NULL);
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
		CU_ASSERT_STRING_EQUAL(st.comm, comm);
	}
	CU_ASSERT_EQUAL(st.state, 'R');
	CU_ASSERT(st.rss_pages > 0);
	CU_ASSERT(st.start_ticks > 0);
	CU_ASSERT(st.num_threads >= 1);

	CU_ASSERT_EQUAL(procfs_read_io(getpid(), &io), 0);
	CU_ASSERT(io.rchar > 0);
	CU_ASSERT(io.syscr > 0);

	CU_ASSERT_EQUAL(procfs_read_status(getpid(), &ps), 0);
	CU_ASSERT(ps.vm_rss_kb > 0);
	CU_ASSERT(ps.vm_hwm_kb >= ps.vm_rss_kb);
	CU_ASSERT_EQUAL(ps.uid, getuid());
	CU_ASSERT_EQUAL(ps.threads, st.num_threads);

	CU_ASSERT_EQUAL(procfs_read_exe(getpid(), exe, sizeof(exe)), 0);
	CU_ASSERT(strlen(exe) > 12 &&
		  strcmp(exe + strlen(exe) - 12, "/test_procfs") == 0);
	CU_ASSERT_EQUAL(procfs_read_exe(getpid(), exe, 4), -1);
	CU_ASSERT_EQUAL(errno, ENAMETOOLONG);
	CU_ASSERT_EQUAL(exe[3], '\0');

	n = procfs_read_cmdline(getpid(), cmd, sizeof(cmd));
	CU_ASSERT((size_t)n == strlen(self_argv0) + 1);
	CU_ASSERT(memcmp(cmd, self_argv0, strlen(self_argv0) + 1) == 0);
	/* a short buffer gets the first bytes */
	CU_ASSERT_EQUAL(procfs_read_cmdline(getpid(), cmd, 3), 3);

	CU_ASSERT_EQUAL(procfs_read_cgroup(getpid(), &cg), 0);
	CU_ASSERT(cg.v2[0] == '/' || cg.memory[0] == '/');
	/* pid 1 is readable too (we are root in the tests) */
	CU_ASSERT_EQUAL(procfs_read_stat(1, &st), 0);
	CU_ASSERT_EQUAL(st.pid, 1);
}

static void test_gone(void)
{
	struct procfs_stat st;
	struct procfs_io io;
	struct procfs_status ps;
	static struct procfs_cgroup cg;
	char buf[256];
	pid_t pid = fork();

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
		_exit(0);
	CU_ASSERT_EQUAL(waitpid(pid, NULL, 0), pid);
	CU_ASSERT_EQUAL(procfs_read_stat(pid, &st), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_EQUAL(procfs_read_io(pid, &io), -1);
	CU_ASSERT_EQUAL(procfs_read_status(pid, &ps), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_EQUAL(procfs_read_exe(pid, buf, sizeof(buf)), -1);
	CU_ASSERT_EQUAL(procfs_read_cmdline(pid, buf, sizeof(buf)), -1);
	CU_ASSERT_EQUAL(procfs_read_cgroup(pid, &cg), -1);
	CU_ASSERT_EQUAL(procfs_read_stat(-1, &st), -1);
}

static void test_zombie(void)
{
	struct procfs_stat st;
	char buf[64];
	siginfo_t si;
	pid_t pid = fork();

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
		_exit(3);
	/* wait until it is a zombie without reaping it (WNOWAIT) */
	CU_ASSERT_EQUAL(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	CU_ASSERT_EQUAL(procfs_read_stat(pid, &st), 0);
	CU_ASSERT_EQUAL(st.state, 'Z');
	CU_ASSERT_EQUAL(procfs_read_cmdline(pid, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(procfs_read_exe(pid, buf, sizeof(buf)), -1);
	waitpid(pid, NULL, 0);
}

static void test_list_pids(void)
{
	pid_t pids[65536], few[2];
	size_t n = procfs_list_pids(pids, 65536);
	int self = 0, init = 0;

	CU_ASSERT(n > 2);
	for (size_t i = 0; i < n; i++) {
		self |= pids[i] == getpid();
		init |= pids[i] == 1;
		CU_ASSERT(pids[i] > 0);
	}
	CU_ASSERT(self);
	CU_ASSERT(init);
	/* never more than max */
	CU_ASSERT_EQUAL(procfs_list_pids(few, 2), 2);
	CU_ASSERT_EQUAL(procfs_list_pids(few, 0), 0);
}

static void test_stat_children_fields(void)
{
	/* fields 10-17: minflt cminflt majflt cmajflt utime stime cutime cstime */
	static const char line[] =
		"777 (make) S 1 777 777 0 -1 4194560 11 22 33 44 55 66 77 88 20 0 "
		"2 0 5000 1000 42 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0\n";
	static const char neg[] =
		"778 (make) S 1 778 778 0 -1 4194560 11 22 33 44 55 66 -5 -7 20 0 "
		"1 0 5000 1000 42\n";
	struct procfs_stat st;

	CU_ASSERT_EQUAL(parse_stat_exact(line, strlen(line), &st), 0);
	CU_ASSERT_EQUAL(st.minflt, 11);
	CU_ASSERT_EQUAL(st.cminflt, 22);
	CU_ASSERT_EQUAL(st.majflt, 33);
	CU_ASSERT_EQUAL(st.cmajflt, 44);
	CU_ASSERT_EQUAL(st.utime_ticks, 55);
	CU_ASSERT_EQUAL(st.stime_ticks, 66);
	CU_ASSERT_EQUAL(st.cutime_ticks, 77);
	CU_ASSERT_EQUAL(st.cstime_ticks, 88);
	CU_ASSERT_EQUAL(st.num_threads, 2);
	CU_ASSERT_EQUAL(st.start_ticks, 5000);
	CU_ASSERT_EQUAL(st.rss_pages, 42);
	/* cutime/cstime are signed in the kernel's format: never below 0 here */
	CU_ASSERT_EQUAL(parse_stat_exact(neg, strlen(neg), &st), 0);
	CU_ASSERT_EQUAL(st.cutime_ticks, 0);
	CU_ASSERT_EQUAL(st.cstime_ticks, 0);
	CU_ASSERT_EQUAL(st.utime_ticks, 55);
	CU_ASSERT_EQUAL(st.rss_pages, 42);
}

static void test_status_tgid(void)
{
	static const char thread[] = "Name:\tworker\nUmask:\t0022\nState:\tS (sleeping)\n"
				     "Tgid:\t4321\nNgid:\t0\nPid:\t4325\nPPid:\t1\n"
				     "Threads:\t6\n";
	static const char old[] = "Name:\tx\nPid:\t9\nThreads:\t1\n";
	struct procfs_status st;

	CU_ASSERT_EQUAL(procfs_parse_status(thread, strlen(thread), &st), 0);
	CU_ASSERT_EQUAL(st.tgid, 4321);
	CU_ASSERT_EQUAL(st.threads, 6);
	/* absent: 0 */
	CU_ASSERT_EQUAL(procfs_parse_status(old, strlen(old), &st), 0);
	CU_ASSERT_EQUAL(st.tgid, 0);
	/* and ours is ours */
	CU_ASSERT_EQUAL(procfs_read_status(getpid(), &st), 0);
	CU_ASSERT_EQUAL(st.tgid, getpid());
}

/* A thread that writes, then stays alive until told to go. */
struct writer {
	int fd;          /* scratch file */
	size_t bytes;
	int done[2];     /* writer -> main: written */
	int go[2];       /* main -> writer: you may exit */
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	char buf[4096], c = 'w';
	size_t left = w->bytes;

	memset(buf, 'x', sizeof(buf));
	while (left) {
		ssize_t n = write(w->fd, buf, left < sizeof(buf) ? left : sizeof(buf));

		if (n <= 0)
			break;
		left -= (size_t)n;
	}
	if (write(w->done[1], &c, 1) != 1)
		return NULL;
	/* a thread that is gone no longer has a task/<tid>/io to read */
	if (read(w->go[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

static void test_threads_io(void)
{
	char path[] = "/tmp/tracer-procfs-io-XXXXXX";
	struct writer w = {.bytes = 256 * 1024};
	struct procfs_io before, after;
	pthread_t th;
	char c;

	w.fd = mkstemp(path);
	CU_ASSERT_FATAL(w.fd >= 0);
	unlink(path);
	CU_ASSERT_FATAL(pipe(w.done) == 0);
	CU_ASSERT_FATAL(pipe(w.go) == 0);
	CU_ASSERT_EQUAL(procfs_read_threads_io(getpid(), &before), 0);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, writer_main, &w) == 0);
	CU_ASSERT_EQUAL(read(w.done[0], &c, 1), 1);
	CU_ASSERT_EQUAL(procfs_read_threads_io(getpid(), &after), 0);
	/* the writer is another thread: its writes are in the sum */
	CU_ASSERT(after.wchar >= before.wchar + w.bytes);
	CU_ASSERT(after.syscw > before.syscw);
	CU_ASSERT_EQUAL(write(w.go[1], "g", 1), 1);
	pthread_join(th, NULL);
	close(w.fd);
	close(w.done[0]);
	close(w.done[1]);
	close(w.go[0]);
	close(w.go[1]);
	/* no such process (beyond any pid_max) */
	CU_ASSERT_EQUAL(procfs_read_threads_io(4200000, &after), -1);
}

static void test_stat_blkio(void)
{
	/* fields 39 (processor) = 1, 42 (delayacct_blkio_ticks) = 77 */
	static const char line[] = "1 (x) S 1 1234 1234 34816 1234 4194560 1000 2000 3 4 50 60 0 0 20 0 "
		"3 0 123456 12345678 789 18446744073709551615 1 1 0 0 0 0 0 0 0 "
		"0 0 0 17 1 0 0 77 0 0\n";
	static const char short_line[] = "1 (x)" STAT_TAIL;
	struct procfs_stat st;

	CU_ASSERT_EQUAL(parse_stat_exact(line, strlen(line), &st), 0);
	CU_ASSERT_EQUAL(st.processor, 1);
	CU_ASSERT_EQUAL(st.blkio_ticks, 77);
	CU_ASSERT_EQUAL(parse_stat_exact(short_line, strlen(short_line), &st), 0);
	CU_ASSERT_EQUAL(st.blkio_ticks, 0);
}

static volatile int spinning = 1;

static void *spin_main(void *arg)
{
	(void)arg;
	while (spinning)
		;
	return NULL;
}

static void test_threads_running(void)
{
	struct procfs_threads th;
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		CU_ASSERT_FATAL(pthread_create(&t[i], NULL, spin_main, NULL) == 0);
	CU_ASSERT_EQUAL(procfs_read_threads(getpid(), 128, &th), 0);
	CU_ASSERT_EQUAL(th.read, 3);
	/* the two spinners (and the reader itself) are runnable */
	CU_ASSERT(th.running >= 2);
	/* bounded: one thread read */
	CU_ASSERT_EQUAL(procfs_read_threads(getpid(), 1, &th), 0);
	CU_ASSERT_EQUAL(th.read, 1);
	spinning = 0;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CU_ASSERT_EQUAL(procfs_read_threads(4200000, 8, &th), -1);
}

static void test_start_time(void)
{
	struct procfs_stat st;
	uint64_t now, start, hour = 3600ull * 1000000000ull;

	CU_ASSERT_EQUAL_FATAL(procfs_read_stat(getpid(), &st), 0);
	start = procfs_start_ns(&st, CLOCK_REALTIME);
	now = clock_real_ns();
	/* a sanity bound: we started within the last hour, not in the future
	 * (one second of slack: the clocks are read one after the other) */
	CU_ASSERT(start > now - hour);
	CU_ASSERT(start <= now + 1000000000ull);
}

/* A pid is the recorded process only with the recorded start time. */
static void test_same_start(void)
{
	struct procfs_stat st;
	uint64_t mono, tick = clock_ticks_ns(1);

	CU_ASSERT_EQUAL_FATAL(procfs_read_stat(getpid(), &st), 0);
	mono = procfs_start_ns(&st, CLOCK_MONOTONIC);
	CU_ASSERT_TRUE(procfs_same_start(&st, mono));
	/* the kernel's exact start lies within the tick /proc rounds down to */
	CU_ASSERT_TRUE(procfs_same_start(&st, mono + tick - 1));
	CU_ASSERT_TRUE(procfs_same_start(&st, 0)); /* unknown: not refused */
	/* a process recorded a second before or after is another one */
	CU_ASSERT_FALSE(procfs_same_start(&st, mono + 1000000000ull));
	CU_ASSERT_FALSE(procfs_same_start(&st, mono > 1000000000ull ? mono - 1000000000ull : 1));
}

int main(int argc, char **argv)
{
	static const struct unit_test tests[] = {
		{"stat", test_stat_normal},
		{"stat odd comm", test_stat_odd_comm},
		{"stat broken", test_stat_broken},
		{"io", test_io},
		{"status", test_status},
		{"cgroup lines", test_cgroup_parse},
		{"read /proc/self", test_read_self},
		{"vanished process", test_gone},
		{"zombie", test_zombie},
		{"list pids", test_list_pids},
		{"stat children fields", test_stat_children_fields},
		{"status Tgid", test_status_tgid},
		{"per-thread I/O", test_threads_io},
		{"start time", test_start_time},
		{"same start: a reused pid is another process", test_same_start},
		{"stat blkio delay", test_stat_blkio},
		{"threads running", test_threads_running},
	};

	(void)argc;
	self_argv0 = argv[0];
	return UNIT_RUN("procfs", tests);
}
