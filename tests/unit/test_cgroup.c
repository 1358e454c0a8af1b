/*
 * test_cgroup.c - cgroup counter parsers, and our own cgroup found
 * through /proc/self/mountinfo.  A cgroup with a known load needs root:
 * tests/kernel/test_cgroup_live.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "cgroup_limits.h"
#include "job_blocked.h"
#include "identity.h"
#include "unit.h"

static void test_parse_cpu_stat(void)
{
	uint64_t ns = 0;

	CU_ASSERT_EQUAL(cgroup_parse_cpu_stat("usage_usec 54173196\nuser_usec 1\n"
					      "system_usec 2\n", &ns), 0);
	CU_ASSERT_EQUAL(ns, 54173196000ull);
	CU_ASSERT_EQUAL(cgroup_parse_cpu_stat("user_usec 1\nusage_usec 7\n", &ns), 0);
	CU_ASSERT_EQUAL(ns, 7000);
	CU_ASSERT_EQUAL(cgroup_parse_cpu_stat("usage_usec_x 5\n", &ns), -1);
	CU_ASSERT_EQUAL(cgroup_parse_cpu_stat("usage_usec abc\n", &ns), -1);
	CU_ASSERT_EQUAL(cgroup_parse_cpu_stat("", &ns), -1);
	CU_ASSERT_EQUAL(cgroup_parse_cpu_stat(NULL, &ns), -1);
	CU_ASSERT_EQUAL(cgroup_parse_cpu_stat("usage_usec 99999999999999999999\n",
					      &ns), -1);
}

static void test_parse_io_stat(void)
{
	uint64_t r = 1, w = 1;

	CU_ASSERT_EQUAL(cgroup_parse_io_stat(
				"8:0 rbytes=100 wbytes=200 rios=1 wios=2 dbytes=0 dios=0\n"
				"259:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=5 dios=6\n",
				&r, &w), 0);
	CU_ASSERT_EQUAL(r, 101);
	CU_ASSERT_EQUAL(w, 202);
	/* no I/O yet: an empty file */
	CU_ASSERT_EQUAL(cgroup_parse_io_stat("", &r, &w), 0);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(w, 0);
	/* look-alike keys do not count */
	CU_ASSERT_EQUAL(cgroup_parse_io_stat("8:0 xrbytes=5 rbytes=x wbytes=3\n",
					     &r, &w), 0);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(w, 3);
	CU_ASSERT_EQUAL(cgroup_parse_io_stat(NULL, &r, &w), -1);
}

static void test_parse_blkio(void)
{
	uint64_t r = 1, w = 1;

	CU_ASSERT_EQUAL(cgroup_parse_blkio_v1("8:0 Read 4096\n8:0 Write 8192\n"
					      "8:0 Sync 0\n8:0 Async 0\n"
					      "8:0 Discard 0\n8:0 Total 12288\n"
					      "8:16 Read 1\nTotal 12289\n",
					      &r, &w), 0);
	CU_ASSERT_EQUAL(r, 4097);
	CU_ASSERT_EQUAL(w, 8192);
	CU_ASSERT_EQUAL(cgroup_parse_blkio_v1("Total 0\n", &r, &w), 0);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(cgroup_parse_blkio_v1("garbage line here\n", &r, &w), 0);
	CU_ASSERT_EQUAL(r, 0);
}

/* Is pid listed in dir/cgroup.procs? */
static int lists_pid(const char *dir, pid_t pid)
{
	char path[700];
	FILE *f;
	long p;
	int found = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "\n  cannot open %s: %s\n", path, strerror(errno));
		return 0;
	}
	while (fscanf(f, "%ld", &p) == 1)
		found |= p == pid;
	fclose(f);
	return found;
}

static void test_own_cgroup(void)
{
	struct cgroup_ref ref;
	struct cgroup_stats a, b;
	struct timespec t0, t1;
	volatile uint64_t x = 0;

	if (cgroup_ref_for_pid(getpid(), &ref) != 0) {
		fprintf(stderr, "\n  no cgroup found for ourselves: is a cgroup "
				"file system mounted?\n");
		CU_FAIL_FATAL("cgroup_ref_for_pid(self)");
	}
	/* every directory found really is our cgroup */
	if (ref.v2[0])
		CU_ASSERT(lists_pid(ref.v2, getpid()));
	if (ref.mem_v1[0])
		CU_ASSERT(lists_pid(ref.mem_v1, getpid()));
	if (ref.cpu_v1[0])
		CU_ASSERT(lists_pid(ref.cpu_v1, getpid()));
	if (ref.blkio_v1[0])
		CU_ASSERT(lists_pid(ref.blkio_v1, getpid()));
	CU_ASSERT(ref.v2[0] || ref.mem_v1[0]);

	CU_ASSERT_EQUAL_FATAL(cgroup_read_stats(&ref, &a), 0);
	CU_ASSERT(a.have_cpu);
	/* burn 50 ms of CPU: the counter must move by about as much */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	} while ((t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec - t0.tv_nsec <
		 50000000L);
	CU_ASSERT_EQUAL_FATAL(cgroup_read_stats(&ref, &b), 0);
	CU_ASSERT(b.cpu_ns >= a.cpu_ns + 40000000ull);
	if (a.have_mem) {
		CU_ASSERT(a.mem_current_bytes > 0);
		CU_ASSERT(a.mem_peak_bytes >= a.mem_current_bytes);
	}
}

static void test_missing_dirs(void)
{
	struct cgroup_ref ref;
	struct cgroup_stats st;

	memset(&ref, 0, sizeof(ref));
	CU_ASSERT_EQUAL(cgroup_read_stats(&ref, &st), -1);
	strcpy(ref.v2, "/nonexistent/cgroup");
	strcpy(ref.mem_v1, "/nonexistent/mem");
	CU_ASSERT_EQUAL(cgroup_read_stats(&ref, &st), -1);
	CU_ASSERT_FALSE(st.have_cpu || st.have_mem || st.have_io);
	CU_ASSERT_EQUAL(cgroup_ref_for_pid(-5, &ref), -1);
	CU_ASSERT_EQUAL(cgroup_ref_for_pid(999999999, &ref), -1);
}

static void test_parse_limits(void)
{
	uint64_t some, full;
	double cpus;

	CU_ASSERT_EQUAL(cgroup_parse_cpu_max("max 100000\n", &cpus), 0);
	CU_ASSERT_EQUAL(cpus, 0);
	CU_ASSERT_EQUAL(cgroup_parse_cpu_max("150000 100000\n", &cpus), 0);
	CU_ASSERT_DOUBLE_EQUAL(cpus, 1.5, 1e-9);
	CU_ASSERT_EQUAL(cgroup_parse_cpu_max("150000\n", &cpus), -1);
	CU_ASSERT_EQUAL(cgroup_parse_cpu_max("x y", &cpus), -1);
	CU_ASSERT_EQUAL(cgroup_parse_pressure("some avg10=0.00 avg60=0.00 avg300=0.00 total=1234\n"
					      "full avg10=0.00 avg60=0.00 avg300=0.00 total=567\n",
					      &some, &full), 0);
	CU_ASSERT_EQUAL(some, 1234);
	CU_ASSERT_EQUAL(full, 567);
	/* cpu.pressure before 5.13: no full line */
	CU_ASSERT_EQUAL(cgroup_parse_pressure("some avg10=1.00 avg60=0.00 avg300=0.00 total=9\n",
					      &some, &full), 0);
	CU_ASSERT_EQUAL(some, 9);
	CU_ASSERT_EQUAL(full, 0);
	CU_ASSERT_EQUAL(cgroup_parse_pressure("full avg10=0 total=3\n", &some, &full), -1);
	CU_ASSERT_EQUAL(cgroup_parse_pressure("some avg10=0\n", &some, &full), -1);
	CU_ASSERT_EQUAL(cgroup_parse_pressure("", &some, &full), -1);
}

static void test_limits_to_alloc(void)
{
	struct job_blocked w;
	struct tracer_allocation a;
	uint64_t seen = 0;

	memset(&w, 0, sizeof(w));
	memset(&a, 0, sizeof(a));
	w.limits.mem_bytes = 1ull << 30;
	w.limits.cpus = 1.5;
	job_blocked_limits_to_alloc(&w, &a);
	CU_ASSERT_EQUAL(a.mem_bytes, 1ull << 30);
	CU_ASSERT_EQUAL(a.cpus, 2);
	/* a declared allocation stays; a looser quota does not replace it */
	memset(&w, 0, sizeof(w));
	a.mem_bytes = 4ull << 30;
	a.cpus = 1;
	w.limits.mem_bytes = 1ull << 30;
	w.limits.cpus = 3;
	job_blocked_limits_to_alloc(&w, &a);
	CU_ASSERT_EQUAL(a.mem_bytes, 4ull << 30);
	CU_ASSERT_EQUAL(a.cpus, 1);
	CU_ASSERT_EQUAL(w.limits_used, 0);
	/* block I/O delay: growth only */
	job_blocked_note_blkio(&w, &seen, 100);
	job_blocked_note_blkio(&w, &seen, 50);
	job_blocked_note_blkio(&w, &seen, 60);
	CU_ASSERT_EQUAL(seen, 60);
	CU_ASSERT(w.blkio_ns > 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"cpu.stat", test_parse_cpu_stat},
		{"io.stat", test_parse_io_stat},
		{"blkio v1", test_parse_blkio},
		{"our own cgroup", test_own_cgroup},
		{"missing directories", test_missing_dirs},
		{"limits and pressure", test_parse_limits},
		{"limits as the allocation", test_limits_to_alloc},
	};

	return UNIT_RUN("cgroup", tests);
}
