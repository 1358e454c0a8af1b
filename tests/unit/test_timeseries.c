/* test_timeseries.c - a job's CPU and memory over time (job_series_*):
 * exact rates, bounded length, halving keeps CPU exact and memory peaks. */
#include <math.h>
#include <stdint.h>

#include "timeseries.h"
#include "unit.h"

#define MS 1000000ull
#define START 1000000000000ull

static double num_at(const cJSON *o, const char *key, int i)
{
	const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItem(o, key), i);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void test_rates(void)
{
	struct job_series *s = NULL;
	cJSON *o;

	CU_ASSERT_PTR_NULL(timeseries_json(s, 1000));
	/* 2 cores busy for 1 s, then 0.5 core, memory 1 MiB then 3 MiB */
	timeseries_note(&s, START, START + 1000 * MS, 2000 * MS, 1 << 20);
	timeseries_note(&s, START, START + 2000 * MS, 2500 * MS, 3 << 20);
	o = timeseries_json(s, 1000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(num_at(o, "t_s", 0), 1.0);
	CU_ASSERT_EQUAL(num_at(o, "t_s", 1), 2.0);
	CU_ASSERT_EQUAL(num_at(o, "cpu_cores", 0), 2.0);
	CU_ASSERT_EQUAL(num_at(o, "cpu_cores", 1), 0.5);
	CU_ASSERT_EQUAL(num_at(o, "mem_bytes", 0), 1 << 20);
	CU_ASSERT_EQUAL(num_at(o, "mem_bytes", 1), 3 << 20);
	CU_ASSERT_EQUAL(cJSON_GetObjectItem(o, "points")->valueint, 2);
	CU_ASSERT_EQUAL(cJSON_GetObjectItem(o, "interval_s")->valuedouble, 1.0);
	cJSON_Delete(o);
	/* the CPU never goes backwards (a live reading above an exit total) */
	timeseries_note(&s, START, START + 3000 * MS, 2400 * MS, 0);
	o = timeseries_json(s, 1000);
	CU_ASSERT_EQUAL(num_at(o, "cpu_cores", 2), 0.0);
	cJSON_Delete(o);
	timeseries_free(s);
}

static void test_bounded(void)
{
	struct job_series *s = NULL;
	const uint32_t samples = 10 * SERIES_MAX_POINTS + 3;
	double cpu_sum = 0, mem_max = 0;
	int n;
	cJSON *o;

	/* one core busy throughout; memory peaks once, at sample 5000 */
	for (uint32_t i = 1; i <= samples; i++)
		timeseries_note(&s, START, START + i * 1000 * MS, (uint64_t)i * 1000 * MS,
				i == 5000 ? (uint64_t)7 << 30 : 1 << 20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT(s->cap <= SERIES_MAX_POINTS);
	o = timeseries_json(s, 1000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	n = cJSON_GetArraySize(cJSON_GetObjectItem(o, "t_s"));
	CU_ASSERT(n <= SERIES_MAX_POINTS);
	CU_ASSERT(n >= SERIES_MAX_POINTS / 2);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(o, "cpu_cores")), n);
	CU_ASSERT_EQUAL(cJSON_GetObjectItem(o, "interval_s")->valuedouble, 16.0); /* 20,483 samples: stride 16 */
	/* the last point is the last sample, whatever was merged */
	CU_ASSERT_EQUAL(num_at(o, "t_s", n - 1), samples);
	for (int i = 0; i < n; i++) {
		double dt = num_at(o, "t_s", i) - (i ? num_at(o, "t_s", i - 1) : 0);
		CU_ASSERT(fabs(num_at(o, "cpu_cores", i) - 1.0) < 1e-9);
		cpu_sum += num_at(o, "cpu_cores", i) * dt;
		if (num_at(o, "mem_bytes", i) > mem_max)
			mem_max = num_at(o, "mem_bytes", i);
	}
	CU_ASSERT(fabs(cpu_sum - samples) < 1e-6);
	CU_ASSERT_EQUAL(mem_max, (double)((uint64_t)7 << 30)); /* the peak survives merging */
	cJSON_Delete(o);
	timeseries_free(s);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"cores in use and memory per sample", test_rates},
		{"bounded: halving keeps CPU exact and the memory peak", test_bounded},
	};

	return UNIT_RUN("timeseries", tests);
}
