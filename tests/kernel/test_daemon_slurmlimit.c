/*
 * test_daemon_slurmlimit.c - Slurm time limits (daemon/slurmlimit.c): the
 * answers of squeue as it prints them, and the state word of a step
 * stopped at its job's deadline.  Pure logic: needs no root, lives here
 * because it links tracerd's objects.
 */
#include <signal.h>
#include <stdint.h>

#include "job_state.h"
#include "slurmlimit.h"
#include "../unit/unit.h"

static void test_parse(void)
{
	uint64_t lim = 1, end = 1;

	CU_ASSERT_EQUAL(slurmlimit_parse("1:00:00|1763915000\n", &lim, &end), 0);
	CU_ASSERT_EQUAL(lim, 3600);
	CU_ASSERT_EQUAL(end, 1763915000);
	CU_ASSERT_EQUAL(slurmlimit_parse("1:00|1763915000\n", &lim, &end), 0);
	CU_ASSERT_EQUAL(lim, 60); /* minutes:seconds */
	CU_ASSERT_EQUAL(slurmlimit_parse("2-03:04:05|N/A\n", &lim, &end), 0);
	CU_ASSERT_EQUAL(lim, 2 * 86400 + 3 * 3600 + 4 * 60 + 5);
	CU_ASSERT_EQUAL(end, 0);
	CU_ASSERT_EQUAL(slurmlimit_parse("UNLIMITED|Unknown\n", &lim, &end), 0);
	CU_ASSERT_EQUAL(lim, 0);
	CU_ASSERT_EQUAL(end, 0);
	/* as squeue prints an unlimited running job: an end a year ahead */
	CU_ASSERT_EQUAL(slurmlimit_parse("UNLIMITED|1795453307\n", &lim, &end), 0);
	CU_ASSERT_EQUAL(lim, 0);
	CU_ASSERT_EQUAL(end, 0);
	CU_ASSERT_EQUAL(slurmlimit_parse("", &lim, &end), -1);
	CU_ASSERT_EQUAL(slurmlimit_parse("slurm_load_jobs error: Invalid job id\n", &lim, &end), -1);
	CU_ASSERT_EQUAL(slurmlimit_parse("1:2:3:4|5\n", &lim, &end), -1);
	CU_ASSERT_EQUAL(slurmlimit_parse("10|5\n", &lim, &end), 0);
	CU_ASSERT_EQUAL(lim, 600); /* minutes */
}

static void test_deadline(void)
{
	struct job *j = job_new("t", NULL, 4);

	CU_ASSERT_FATAL(j != NULL);
	j->id.alloc.time_limit_s = 60;
	j->id.alloc.deadline_s = 1000;
	/* the step started 5 s after its job: 57 s of its own wall */
	j->end_ns = 1002ull * 1000000000ull;
	CU_ASSERT_STRING_EQUAL(job_state(j, SIGTERM, 57000000000ull), "TIMEOUT");
	CU_ASSERT_STRING_EQUAL(job_state(j, 0, 57000000000ull), "COMPLETED");
	CU_ASSERT_STRING_EQUAL(job_state(j, SIGSEGV, 57000000000ull), "FAILED");
	/* cancelled well before the deadline */
	j->end_ns = 900ull * 1000000000ull;
	CU_ASSERT_STRING_EQUAL(job_state(j, SIGTERM, 5000000000ull), "CANCELLED");
	job_free(j);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"squeue answers", test_parse},
		{"a step stopped at its job's deadline", test_deadline},
	};

	return UNIT_RUN("slurmlimit", tests);
}
