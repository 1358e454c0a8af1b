/* test_analysis.c - the pure parts of the analysis: CPU lists, memory
 * rounding, concurrency percentiles, the state word, /proc processor. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "allocation.h"
#include "analysis.h"
#include "job_state.h"
#include "procfs.h"
#include "unit.h"

static void test_cpulist(void)
{
	unsigned char m[16] = {0};

	CU_ASSERT_EQUAL(allocation_cpulist_parse("0-3,8", m, 16), 5);
	CU_ASSERT(m[0] && m[3] && m[8] && !m[4]);
	memset(m, 0, sizeof(m));
	CU_ASSERT_EQUAL(allocation_cpulist_parse("1", m, 16), 1);
	CU_ASSERT_EQUAL(allocation_cpulist_parse("3-1", m, 16), -1);
	CU_ASSERT_EQUAL(allocation_cpulist_parse("x", m, 16), -1);
	memset(m, 0, sizeof(m));
	CU_ASSERT_EQUAL(allocation_cpulist_parse("14-40", m, 16), 2); /* cut at n */
}

static void test_round_mem(void)
{
	const uint64_t G = 1ull << 30;

	CU_ASSERT_EQUAL(analysis_round_mem(100ull << 20, 1.2), 1);
	CU_ASSERT_EQUAL(analysis_round_mem(G, 1.2), 2);           /* 1.2 -> 2 */
	CU_ASSERT_EQUAL(analysis_round_mem(20 * G, 1.2), 24);
	CU_ASSERT_EQUAL(analysis_round_mem(30 * G, 1.2), 40);     /* 36 -> 40 */
	CU_ASSERT_EQUAL(analysis_round_mem(0, 1.2), 1);
}

static void test_concurrency(void)
{
	struct job *j = job_new("t", NULL, 4);

	CU_ASSERT_FATAL(j != NULL);
	CU_ASSERT_EQUAL(allocation_concurrency_pct(j, 95), 0);
	for (int i = 0; i < 95; i++)
		allocation_note_concurrency(j, 1);
	for (int i = 0; i < 5; i++)
		allocation_note_concurrency(j, 4);
	CU_ASSERT_EQUAL(allocation_concurrency_pct(j, 50), 1);
	CU_ASSERT_EQUAL(allocation_concurrency_pct(j, 95), 1);
	CU_ASSERT_EQUAL(allocation_concurrency_pct(j, 100), 4);
	allocation_note_cpu_busy(j, 1, 2);
	allocation_note_cpu_busy(j, 5000, 2); /* out of range: ignored */
	CU_ASSERT_EQUAL(j->cpu_busy[1], 1);
	job_free(j);
}

static void test_state(void)
{
	struct job *j = job_new("t", NULL, 4);

	CU_ASSERT_FATAL(j != NULL);
	CU_ASSERT_STRING_EQUAL(job_state(j, 0, 1), "COMPLETED");
	CU_ASSERT_STRING_EQUAL(job_state(j, 3 << 8, 1), "FAILED");
	CU_ASSERT_STRING_EQUAL(job_state(j, SIGTERM, 1), "CANCELLED");
	CU_ASSERT_STRING_EQUAL(job_state(j, SIGSEGV, 1), "FAILED");
	CU_ASSERT_STRING_EQUAL(job_state(j, -1, 1), "UNKNOWN");
	j->id.alloc.time_limit_s = 10;
	CU_ASSERT_STRING_EQUAL(job_state(j, SIGTERM, 10000000000ull), "TIMEOUT");
	CU_ASSERT_STRING_EQUAL(job_state(j, 0, 10000000000ull), "COMPLETED");
	j->oom_kills = 1;
	CU_ASSERT_STRING_EQUAL(job_state(j, SIGKILL, 1), "OUT_OF_MEMORY");
	job_free(j);
}

static void test_processor(void)
{
	/* a real line of kernel 6.x (52 fields); processor is field 39 */
	const char *line = "1234 (a b) R 1 1234 1234 0 -1 4194304 100 0 0 0 5 6 0 0 20 0 1 0 "
			   "100 1000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 "
			   "0 0 0 0 0 0 0 0 0 0 0\n";
	struct procfs_stat st;

	CU_ASSERT_EQUAL(procfs_parse_stat(line, strlen(line), &st), 0);
	CU_ASSERT_EQUAL(st.processor, 3);
	CU_ASSERT_EQUAL(st.state, 'R');
	/* an old, short line: no processor */
	line = "1 (x) S 0 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 100 1000 200\n";
	CU_ASSERT_EQUAL(procfs_parse_stat(line, strlen(line), &st), 0);
	CU_ASSERT_EQUAL(st.processor, -1);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"cpu lists", test_cpulist},
		{"memory rounding", test_round_mem},
		{"concurrency percentiles and busy samples", test_concurrency},
		{"state word", test_state},
		{"processor field of /proc/PID/stat", test_processor},
	};

	return UNIT_RUN("analysis", tests);
}
