/* test_jobinc.c - a summary's increments to its (job, node) totals: they
 * sum to the node's folded totals (largest allocation, CPU time, unused
 * memory, idle GPUs), a job without a job id is its own, none where the
 * memo cannot vouch for the job's earlier summaries (before its start,
 * an entry dropped when full or idle), "single" for a 1-node batch step
 * alone, and the archive's sweep counting alike with and without them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobinc.h"
#include "json.h"
#include "sweep.h"
#include "unit.h"

#define GIB (1024.0 * 1024 * 1024)
#define T0 1.8e18 /* epoch ns */

/* one step's summary on this node */
static cJSON *step(const char *job_id, const char *step_id, double job_start, int nodes, int cpus,
		   double mem_gib, double cpu_s, double peak_gib)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "{\"job\":\"u-%s-%s\",\"identity\":{\"scheduler\":\"slurm\",\"cluster\":\"c\","
		 "\"job_id\":\"%s\",\"step_id\":\"%s\",\"job_start_ns\":%.0f,\"user\":\"alice\","
		 "\"uid\":1000,\"allocation\":{\"cpus\":%d,\"mem_bytes\":%.0f,\"nodes\":%d}},"
		 "\"host\":{\"hostname\":\"n1\"},\"start_ns\":\"%.0f\",\"end_ns\":\"%.0f\","
		 "\"totals\":{\"cpu_s\":%g},\"memory\":{\"peak_bytes\":%.0f},\"state\":\"COMPLETED\"}",
		 job_id, step_id, job_id, step_id, job_start, cpus, mem_gib * GIB, nodes,
		 job_start + 1e9, job_start + 3601e9, cpu_s, peak_gib * GIB);
	return cJSON_Parse(text);
}

static double inc(const cJSON *s, const char *key)
{
	return json_get_num(cJSON_GetObjectItem(s, "node_increments"), key, -1e18);
}

static bool single(const cJSON *s)
{
	return cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "node_increments"), "single"));
}

static void test_sums(void)
{
	struct jobinc_memo *m = jobinc_new(16, 0, (uint64_t)T0);
	cJSON *s[3] = {step("7", "0", T0 + 1e9, 2, 4, 8, 100, 2), step("7", "1", T0 + 1e9, 2, 4, 8, 50, 5),
		       step("7", "batch", T0 + 1e9, 2, 8, 4, 10, 1)};
	double cpus = 0, cpu_s = 0, unused = 0;
	struct jobinc_stats st;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_FATAL(jobinc_apply(m, s[i], false, (uint64_t)T0 + 10) == 0);
		cpus += inc(s[i], "alloc_cpus");
		cpu_s += inc(s[i], "cpu_s");
		unused += inc(s[i], "unused_mem_bytes");
		CU_ASSERT(!single(s[i]));
	}
	/* the node's totals: 8 CPUs, 160 s, 8 GiB - 5 GiB */
	CU_ASSERT_DOUBLE_EQUAL(cpus, 8, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cpu_s, 160, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(unused, 3 * GIB, 1);
	/* a higher peak leaves less unused: a negative increment */
	CU_ASSERT_DOUBLE_EQUAL(inc(s[1], "unused_mem_bytes"), -3 * GIB, 1);
	CU_ASSERT_DOUBLE_EQUAL(inc(s[2], "alloc_cpus"), 4, 1e-9);
	jobinc_stats(m, &st);
	CU_ASSERT_EQUAL(st.written, 3);
	CU_ASSERT_EQUAL(st.entries, 1); /* a 2-node job: kept */
	for (int i = 0; i < 3; i++)
		cJSON_Delete(s[i]);
	jobinc_free(m);
}

static void test_own_and_single(void)
{
	struct jobinc_memo *m = jobinc_new(16, 0, (uint64_t)T0);
	cJSON *run = cJSON_Parse("{\"identity\":{\"scheduler\":\"local\",\"allocation\":{\"cpus\":2}},"
				 "\"totals\":{\"cpu_s\":5},\"memory\":{\"peak_bytes\":10}}");
	cJSON *b1 = step("8", "batch", T0 + 1e9, 1, 4, 8, 10, 1);
	cJSON *b2 = step("9", "batch", T0 + 1e9, 1, 4, 8, 10, 1);
	cJSON *b3 = step("9", "0", T0 + 1e9, 1, 4, 8, 10, 1);
	cJSON *w = step("10", "0", T0 + 1e9, 1, 4, 8, 10, 1);
	struct jobinc_stats st;

	CU_ASSERT_FATAL(jobinc_apply(m, run, false, (uint64_t)T0 + 10) == 0);
	CU_ASSERT(single(run));
	CU_ASSERT_DOUBLE_EQUAL(inc(run, "alloc_cpus"), 2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(inc(run, "cpu_s"), 5, 1e-9);
	/* a 1-node job's batch step, nothing else seen nor open: single */
	CU_ASSERT_FATAL(jobinc_apply(m, b1, false, (uint64_t)T0 + 10) == 0);
	CU_ASSERT(single(b1));
	/* another step still open: not */
	CU_ASSERT_FATAL(jobinc_apply(m, b2, true, (uint64_t)T0 + 10) == 0);
	CU_ASSERT(!single(b2));
	CU_ASSERT_FATAL(jobinc_apply(m, b3, false, (uint64_t)T0 + 10) == 0);
	CU_ASSERT(!single(b3));
	CU_ASSERT_DOUBLE_EQUAL(inc(b3, "alloc_cpus"), 0, 1e-9);
	/* tracer-wrap on its own: its own totals, not single with a job id */
	CU_ASSERT_FATAL(jobinc_apply(NULL, w, false, 0) == 0);
	CU_ASSERT(!single(w));
	CU_ASSERT_DOUBLE_EQUAL(inc(w, "alloc_cpus"), 4, 1e-9);
	jobinc_stats(m, &st);
	CU_ASSERT_EQUAL(st.unknown, 0);
	cJSON_Delete(run);
	cJSON_Delete(b1);
	cJSON_Delete(b2);
	cJSON_Delete(b3);
	cJSON_Delete(w);
	jobinc_free(m);
}

static void test_unknown(void)
{
	struct jobinc_memo *m = jobinc_new(2, 3600e9, (uint64_t)T0);
	struct jobinc_stats st;
	cJSON *s;

	/* started before the memo's knowledge begins (a restart) */
	s = step("1", "0", T0 - 1e9, 2, 4, 8, 10, 1);
	CU_ASSERT_FATAL(jobinc_apply(m, s, false, (uint64_t)T0 + 10) == 0);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(s, "node_increments"));
	cJSON_Delete(s);
	/* full: the job that started first is dropped, then unknown */
	for (int i = 0; i < 3; i++) {
		char id[8];
		snprintf(id, sizeof(id), "%d", 20 + i);
		s = step(id, "0", T0 + (i + 1) * 1e9, 2, 4, 8, 10, 1);
		CU_ASSERT_FATAL(jobinc_apply(m, s, false, (uint64_t)T0 + 10) == 0);
		CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(s, "node_increments"));
		cJSON_Delete(s);
	}
	s = step("20", "1", T0 + 1e9, 2, 4, 8, 10, 1);
	CU_ASSERT_FATAL(jobinc_apply(m, s, false, (uint64_t)T0 + 20) == 0);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(s, "node_increments"));
	cJSON_Delete(s);
	/* a job that started after the dropped one: still vouched for */
	s = step("30", "0", T0 + 9e9, 2, 4, 8, 10, 1);
	CU_ASSERT_FATAL(jobinc_apply(m, s, false, (uint64_t)T0 + 20) == 0);
	CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(s, "node_increments"));
	cJSON_Delete(s);
	/* idle past max_idle_ns: dropped, its next summary unknown */
	s = step("30", "1", T0 + 9e9, 2, 4, 8, 10, 1);
	CU_ASSERT_FATAL(jobinc_apply(m, s, false, (uint64_t)T0 + 20 + (uint64_t)7200e9) == 0);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(s, "node_increments"));
	cJSON_Delete(s);
	jobinc_stats(m, &st);
	CU_ASSERT_EQUAL(st.unknown, 3);
	CU_ASSERT_EQUAL(st.dropped_full, 2);
	CU_ASSERT(st.dropped_ttl >= 1);
	jobinc_free(m);
}

/* the archive's sweep of the same summaries with and without increments */
static void test_archive_alike(void)
{
	struct sweep_query q = {.by = SWEEP_BY_HOST, .from_s = 1.7e9, .limit = 10, .uid = -1};
	struct jobinc_memo *m = jobinc_new(16, 0, (uint64_t)T0);
	struct sweep_acc *with = sweep_acc_new(&q), *without = sweep_acc_new(&q);
	cJSON *s[3] = {step("7", "0", T0 + 1e9, 2, 4, 8, 100, 2), step("7", "1", T0 + 1e9, 2, 4, 8, 50, 5),
		       step("7", "batch", T0 + 1e9, 2, 8, 4, 10, 1)};
	cJSON *a, *b;
	char *ta, *tb;

	for (int i = 0; i < 3; i++) {
		CU_ASSERT_FATAL(sweep_acc_add(without, s[i]) == 0);
		CU_ASSERT_FATAL(jobinc_apply(m, s[i], false, (uint64_t)T0 + 10) == 0);
		CU_ASSERT_FATAL(sweep_acc_add(with, s[i]) == 0);
	}
	a = sweep_acc_answer(with);
	b = sweep_acc_answer(without);
	ta = cJSON_PrintUnformatted(cJSON_GetObjectItem(a, "rows"));
	tb = cJSON_PrintUnformatted(cJSON_GetObjectItem(b, "rows"));
	CU_ASSERT_STRING_EQUAL(ta, tb);
	CU_ASSERT_PTR_NOT_NULL(strstr(ta, "\"idle_core_hours\":"));
	free(ta);
	free(tb);
	cJSON_Delete(a);
	cJSON_Delete(b);
	for (int i = 0; i < 3; i++)
		cJSON_Delete(s[i]);
	sweep_acc_free(with);
	sweep_acc_free(without);
	jobinc_free(m);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"increments sum to the node's totals", test_sums},
		{"a job of its own, a single batch step", test_own_and_single},
		{"none where the memo cannot vouch", test_unknown},
		{"the archive counts alike", test_archive_alike},
	};

	return UNIT_RUN("jobinc", tests);
}
