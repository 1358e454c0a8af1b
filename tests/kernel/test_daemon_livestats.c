/*
 * test_daemon_livestats.c - the sampling of live processes (daemon/
 * livestats.c) on a real job with tracer's BPF programs loaded (root):
 * a process is sampled into its job only while its pid still names the
 * process the job recorded (same start time); a pid whose process ended
 * unseen and was reused by another is read as gone and counted.
 */
#include "events_fixture.h"

#include "livestats.h"

static void test_sampled_while_same(void)
{
	struct job_proc *p;
	size_t bucket = 0;
	uint64_t reused = 0;

	JOB_UP();
	p = job_proc_find(job, root_pid);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	/* the registered process's start, from /proc at registration */
	CU_ASSERT(p->start_mono_ns > 0);
	livestats_sample_rss(job, &host, &bucket, 1000, &reused);
	CU_ASSERT(p->rss_bytes > 0);
	CU_ASSERT_EQUAL(reused, 0);
	job_down();
}

static void test_reused_pid_not_sampled(void)
{
	struct job_proc *p;
	size_t bucket = 0;
	uint64_t reused = 0;

	JOB_UP();
	p = job_proc_find(job, root_pid);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	livestats_sample_rss(job, &host, &bucket, 1000, &reused);
	CU_ASSERT_FATAL(p->rss_bytes > 0);
	/* the job's record says its process started 10 s earlier: the
	 * process now at that pid is another one */
	p->start_mono_ns -= 10000000000ull;
	bucket = 0;
	livestats_sample_rss(job, &host, &bucket, 1000, &reused);
	CU_ASSERT_EQUAL(p->rss_bytes, 0);
	CU_ASSERT_EQUAL(reused, 1);
	/* nor are its totals so far the job's */
	CU_ASSERT_EQUAL(livestats_read_totals(p), -1);
	job_down();
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"sample: a live process of the job is read", test_sampled_while_same},
		{"sample: a pid reused by another process is not", test_reused_pid_not_sampled},
	};

	return events_main("daemon livestats", tests, sizeof(tests) / sizeof(tests[0]));
}
