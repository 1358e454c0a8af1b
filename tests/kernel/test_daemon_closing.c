/*
 * test_daemon_closing.c - the end of a job without waiting (daemon/
 * closing.c) and the reconcile of lost exit records, on a real job with
 * tracer's BPF programs loaded (root): a process gone from the kernel's
 * table without an exit record is counted lost (never waited for); an
 * end request whose processes are not settled yet is answered later,
 * through the answer callback, once the summary is done.
 */
#include "closing.h"
#include "events_fixture.h"

static uint64_t answered_ticket;
static int answers;

static void on_answer(void *ctx, uint64_t ticket, char *reply)
{
	(void)ctx;
	answered_ticket = ticket;
	answers++;
	free(reply);
}

/* closing_step until no job is closing, for at most 5 s */
static bool settle_all(void)
{
	uint64_t end = clock_mono_ns() + 5000000000ull;

	while (closing_busy(&js) && clock_mono_ns() < end) {
		closing_step(&js);
		usleep(1000);
	}
	return !closing_busy(&js);
}

static void test_reconcile_lost_exit(void)
{
	struct tracer_fork_event f;

	JOB_UP();
	/* a process the kernel never had in its table (its record lost) */
	fork_rec(&f, FAKE_PID, (__u32)root_pid, job->tag, "ghost");
	feed(&f, sizeof(f));
	CU_ASSERT_EQUAL(job->nlive, 2);
	closing_reconcile(&js); /* first sight: its record may be in flight */
	CU_ASSERT_EQUAL(job->nlive, 2);
	CU_ASSERT_EQUAL(job->exits_lost, 0);
	closing_reconcile(&js); /* still not there: lost */
	CU_ASSERT_EQUAL(job->nlive, 1);
	CU_ASSERT_EQUAL(job->exits_lost, 1);
	CU_ASSERT_EQUAL(js.stats.exits_lost, 1);
	/* the registered process is in the table: never counted lost */
	closing_reconcile(&js);
	closing_reconcile(&js);
	CU_ASSERT_EQUAL(job->nlive, 1);
	job_down();
}

static void test_end_answered_later(void)
{
	struct tracer_fork_event f;
	struct tracer_proc kp;
	struct peer peer = {.pid = 0, .uid = 0, .gid = 0, .trusted = true};
	char uid[TRACER_JOB_UID_LEN];
	char *reply;

	JOB_UP();
	closing_set_answer(&js, on_answer, NULL);
	answers = 0;
	snprintf(uid, sizeof(uid), "%s", job->uid);
	fork_rec(&f, FAKE_PID, (__u32)root_pid, job->tag, "ghost");
	feed(&f, sizeof(f));
	/* the ghost is pending (its record could still come): no reply yet */
	reply = jobs_end(&js, uid, 0, &peer, 42);
	CU_ASSERT_PTR_NULL(reply);
	free(reply);
	CU_ASSERT(closing_busy(&js));
	CU_ASSERT_TRUE(settle_all());
	CU_ASSERT_EQUAL(answers, 1);
	CU_ASSERT_EQUAL(answered_ticket, 42);
	CU_ASSERT_EQUAL(js.nopen, 0);
	CU_ASSERT_EQUAL(js.stats.exits_lost, 1);
	/* the live registered process outlived the job: no longer tagged */
	CU_ASSERT_EQUAL(bpf_loader_lookup_proc(bpf, root_pid, &kp), -ENOENT);
	job_down();
}

static void test_end_without_ticket(void)
{
	struct peer peer = {.pid = 0, .uid = 0, .gid = 0, .trusted = true};
	char uid[TRACER_JOB_UID_LEN];
	char *reply;

	JOB_UP();
	closing_set_answer(&js, on_answer, NULL);
	answers = 0;
	snprintf(uid, sizeof(uid), "%s", job->uid);
	/* only a live process: settled at once, the reply says ok */
	reply = jobs_end(&js, uid, 0, &peer, 0);
	CU_ASSERT_PTR_NOT_NULL(reply);
	if (reply)
		CU_ASSERT_PTR_NOT_NULL(strstr(reply, "\"ok\":true"));
	free(reply);
	CU_ASSERT_TRUE(settle_all());
	CU_ASSERT_EQUAL(js.nopen, 0);
	CU_ASSERT_EQUAL(answers, 0);
	job_down();
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"reconcile: a process gone from the table without record is lost",
		 test_reconcile_lost_exit},
		{"end: answered through the callback once the job is settled",
		 test_end_answered_later},
		{"end: a job that settles at once is answered at once",
		 test_end_without_ticket},
	};

	return events_main("daemon closing", tests, sizeof(tests) / sizeof(tests[0]));
}
