/* test_analysis.c - the pure parts of the analysis: CPU lists, memory
 * rounding, concurrency percentiles, the state word, /proc processor,
 * sleeping_tool on a summary made here. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "allocation.h"
#include "analysis.h"
#include "job_state.h"
#include "config.h"
#include "procfs.h"
#include "sleep_flags.h"
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

/*
 * A 20 s job sampled every second: busy (1 core) for its first 10 s,
 * idle after.  cat reads a pipe for 8 s of the busy part, sleep sleeps
 * 4 s of the idle part, nap 0.5 s of it (under 5% of the wall); the
 * shell spans it all.  Only sleep is flagged.
 */
static void test_sleeping(void)
{
	struct tracer_config cfg;
	cJSON *flags = cJSON_CreateArray(), *f;
	char js[4096];
	size_t off;
	cJSON *root;

	off = (size_t)snprintf(js, sizeof(js),
		"{\"start\": \"2026-01-01T00:00:00.000Z\", \"wall_s\": 20, \"tools\": ["
		"{\"tool\": \"sh\", \"processes\": 1, \"cpu_s\": 0.1, \"run_delay_s\": 0,"
		" \"first_start\": \"2026-01-01T00:00:00.000Z\", \"wall_s\": 20},"
		"{\"tool\": \"cat\", \"processes\": 1, \"cpu_s\": 0.05, \"run_delay_s\": 0,"
		" \"first_start\": \"2026-01-01T00:00:01.000Z\", \"wall_s\": 8},"
		"{\"tool\": \"sleep\", \"processes\": 1, \"cpu_s\": 0.001, \"run_delay_s\": 0.01,"
		" \"first_start\": \"2026-01-01T00:00:12.000Z\", \"wall_s\": 4},"
		"{\"tool\": \"nap\", \"processes\": 1, \"cpu_s\": 0.001, \"run_delay_s\": 0,"
		" \"first_start\": \"2026-01-01T00:00:17.000Z\", \"wall_s\": 0.5}],"
		" \"timeseries\": {\"t_s\": [");
	for (int i = 1; i <= 20; i++)
		off += (size_t)snprintf(js + off, sizeof(js) - off, "%s%d", i > 1 ? ", " : "", i);
	off += (size_t)snprintf(js + off, sizeof(js) - off, "], \"cpu_cores\": [");
	for (int i = 1; i <= 20; i++)
		off += (size_t)snprintf(js + off, sizeof(js) - off, "%s%s", i > 1 ? ", " : "",
					i <= 10 ? "1" : "0.01");
	snprintf(js + off, sizeof(js) - off, "]}}");
	root = cJSON_Parse(js);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	config_defaults(&cfg);
	sleep_flags_add(flags, root, &cfg);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(flags), 1);
	f = cJSON_GetArrayItem(flags, 0);
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(f, "id")->valuestring, "sleeping_tool");
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(f, "tool")->valuestring, "sleep");
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(cJSON_GetObjectItem(f, "evidence"), "asleep_s")->valuedouble,
			       3.989, 0.001);
	/* without a time series (tracer-wrap's own summaries): nothing */
	cJSON_DeleteItemFromObject(root, "timeseries");
	cJSON_Delete(flags);
	flags = cJSON_CreateArray();
	sleep_flags_add(flags, root, &cfg);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(flags), 0);
	cJSON_Delete(flags);
	cJSON_Delete(root);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"cpu lists", test_cpulist},
		{"memory rounding", test_round_mem},
		{"concurrency percentiles and busy samples", test_concurrency},
		{"state word", test_state},
		{"processor field of /proc/PID/stat", test_processor},
		{"sleeping_tool: asleep while the job idles, not while it works", test_sleeping},
	};

	return UNIT_RUN("analysis", tests);
}
