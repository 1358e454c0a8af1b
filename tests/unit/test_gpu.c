/* test_gpu.c - a job's GPU record and its flags (lib/gpu.c,
 * lib/gpu_flags.c): the allocation list against the devices, exact
 * figures replacing sampled ones, the summary's gpu part and the tools',
 * energy only for a GPU the job had alone, the time series kept bounded,
 * the three flags and the GPU count of the request. */
#include <string.h>

#include "config.h"
#include "gpu.h"
#include "gpu_flags.h"
#include "json.h"
#include "unit.h"

#define GiB 1073741824ull

static struct job_gpu *two_gpus(bool accounting)
{
	struct gpu_device d[3];

	memset(d, 0, sizeof(d));
	for (int i = 0; i < 2; i++) {
		d[i].index = i;
		d[i].minor = 4 + (unsigned)i; /* minor numbers differ from the indices */
		snprintf(d[i].uuid, sizeof(d[i].uuid), "GPU-%d000", i);
		snprintf(d[i].name, sizeof(d[i].name), "NVIDIA H100 80GB HBM3");
		d[i].memory_bytes = 80 * GiB;
		d[i].mig_gi = d[i].mig_ci = -1;
		d[i].accounting = accounting;
	}
	d[2] = d[0]; /* a MIG instance of GPU 0 */
	snprintf(d[2].uuid, sizeof(d[2].uuid), "MIG-abc");
	d[2].mig_gi = 1;
	d[2].mig_ci = 0;
	d[2].memory_bytes = 10 * GiB;
	return gpu_job_new(d, 3, true);
}

static void test_alloc_match(void)
{
	struct job_gpu *g = two_gpus(true);
	bool out[GPU_MAX_DEVICES];

	CU_ASSERT_EQUAL(gpu_alloc_match(g, "1", false, out), 0);
	CU_ASSERT(!out[0] && out[1] && !out[2]);
	CU_ASSERT_EQUAL(gpu_alloc_match(g, "4,5", true, out), 0); /* Slurm: minor numbers */
	CU_ASSERT(out[0] && out[1] && !out[2]);
	CU_ASSERT_EQUAL(gpu_alloc_match(g, "4", false, out), 1); /* no NVML index 4 */
	CU_ASSERT_EQUAL(gpu_alloc_match(g, "gpu-1000,MIG-abc", false, out), 0);
	CU_ASSERT(!out[0] && out[1] && out[2]);
	CU_ASSERT_EQUAL(gpu_alloc_match(g, "", false, out), 0);
	CU_ASSERT(!out[0] && !out[1] && !out[2]);
	gpu_job_free(g);
}

/* summary of a 100 s job whose tool "train" used GPU 0 (alloc "0,1") */
static cJSON *summary_of(struct job_gpu *g, double tool_cpu_s)
{
	cJSON *s = cJSON_CreateObject(), *tools = cJSON_AddArrayToObject(s, "tools");
	cJSON *t = cJSON_CreateObject();

	cJSON_AddNumberToObject(s, "wall_s", 100);
	json_add_str(t, "tool", "train");
	cJSON_AddNumberToObject(t, "processes", 1);
	cJSON_AddNumberToObject(t, "cpu_s", tool_cpu_s);
	cJSON_AddNumberToObject(t, "wall_s", 100);
	cJSON_AddItemToArray(tools, t);
	gpu_summary_add(s, g, 100 * 1000000000ull, "0,1", false);
	/* as a sink reads it: the raw numbers become plain ones */
	char *text = cJSON_PrintUnformatted(s);
	cJSON_Delete(s);
	s = cJSON_Parse(text);
	cJSON_free(text);
	CU_ASSERT_FATAL(s != NULL);
	return s;
}

static const cJSON *dev(const cJSON *s, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "gpu"), "devices"), i);
}

static void test_exact_over_sampled(void)
{
	struct job_gpu *g = two_gpus(true);
	cJSON *s, *p;

	gpu_job_note_sample(g, 42, "train", 0, 3 * GiB, 90, 1000);
	gpu_job_note_device_mem(g, 0, 3 * GiB);
	gpu_job_note_exact(g, 42, "train", 0, 2 * GiB, 40000, 50, 7);
	gpu_job_note_sample(g, 42, "train", 0, 9 * GiB, 90, 1000); /* after: left alone */
	g->energy_start_mj[0] = 1000;
	g->energy_end_mj[0] = 501000;
	g->energy_start_mj[1] = 0;
	g->energy_end_mj[1] = 100000;
	g->energy_start_ok = g->energy_end_ok = 3;
	g->shared = 2; /* another's process on GPU 1 */
	s = summary_of(g, 10);
	CU_ASSERT_STRING_EQUAL(json_get_str(s, "gpu_counting", ""), "accounting");
	p = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "gpu"), "processes"), 0);
	CU_ASSERT_EQUAL(json_get_u64(p, "memory_peak_bytes", 0), 2 * GiB);
	CU_ASSERT_DOUBLE_EQUAL(json_get_num(p, "time_s", 0), 40, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(json_get_num(p, "busy_s", 0), 20, 1e-9);
	CU_ASSERT_STRING_EQUAL(json_get_str(p, "counting", ""), "accounting");
	/* the device: the sampled sum of 3 GiB is above the exact 2 GiB */
	CU_ASSERT_EQUAL(json_get_u64(dev(s, 0), "memory_peak_bytes", 0), 3 * GiB);
	CU_ASSERT_DOUBLE_EQUAL(json_get_num(dev(s, 0), "utilization_pct", 0), 20, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(json_get_num(dev(s, 0), "energy_j", 0), 500, 1e-9);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(dev(s, 1), "energy_j"));
	CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(dev(s, 1), "allocated")));
	CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(dev(s, 1), "used")));
	CU_ASSERT_PTR_NULL(dev(s, 2)); /* the MIG instance: neither allocated nor used */
	CU_ASSERT_DOUBLE_EQUAL(json_get_num(cJSON_GetObjectItem(s, "gpu"), "energy_j", 0), 500, 1e-9);
	p = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(s, "tools"), 0), "gpu");
	CU_ASSERT_DOUBLE_EQUAL(json_get_num(p, "utilization_pct", 0), 50, 1e-9);
	cJSON_Delete(s);
	gpu_job_free(g);
}

static void test_flags(void)
{
	struct tracer_config cfg;
	struct job_gpu *g = two_gpus(true);
	cJSON *s, *flags, *f;
	int ids[3] = {0, 0, 0};

	config_defaults(&cfg);
	gpu_job_note_exact(g, 42, "train", 0, 2 * GiB, 80000, 20, 7);
	s = summary_of(g, 95); /* train: a CPU busy 95% of its 100 s */
	flags = cJSON_AddArrayToObject(s, "flags");
	gpu_flags_add(flags, s, &cfg);
	cJSON_ArrayForEach(f, flags) {
		const char *id = json_get_str(f, "id", "");
		const cJSON *e = cJSON_GetObjectItem(f, "evidence");
		if (!strcmp(id, "gpu_idle_allocation")) {
			ids[0]++;
			CU_ASSERT_DOUBLE_EQUAL(json_get_num(e, "gpu_index", -1), 1, 0);
		} else if (!strcmp(id, "gpu_memory_overallocated")) {
			ids[1]++;
			CU_ASSERT_DOUBLE_EQUAL(json_get_num(e, "mig_slices", 0), 1, 0);
			CU_ASSERT(strstr(json_get_str(f, "message", ""), "1g.10gb") != NULL);
		} else if (!strcmp(id, "gpu_underused")) {
			ids[2]++;
			CU_ASSERT_STRING_EQUAL(json_get_str(f, "tool", ""), "train");
		}
	}
	CU_ASSERT_EQUAL(ids[0], 1);
	CU_ASSERT_EQUAL(ids[1], 1);
	CU_ASSERT_EQUAL(ids[2], 1);
	CU_ASSERT_EQUAL(gpu_flags_request(s, &cfg), 1);
	cJSON_Delete(s);
	gpu_job_free(g);
}

static void test_no_gpu(void)
{
	struct tracer_config cfg;
	struct job_gpu *g = gpu_job_new(NULL, 0, false);
	cJSON *s, *flags;

	config_defaults(&cfg);
	s = summary_of(g, 10);
	flags = cJSON_AddArrayToObject(s, "flags");
	gpu_flags_add(flags, s, &cfg);
	CU_ASSERT_STRING_EQUAL(json_get_str(s, "gpu_counting", ""), "none");
	CU_ASSERT_EQUAL(cJSON_GetArraySize(flags), 0);
	CU_ASSERT_EQUAL(gpu_flags_request(s, &cfg), -1);
	cJSON_Delete(s);
	gpu_job_free(g);
}

static void test_points_bounded(void)
{
	struct job_gpu *g = two_gpus(false);

	for (uint64_t i = 0; i < 10 * GPU_MAX_POINTS; i++)
		gpu_job_note_point(g, i * 1000, 50, GiB);
	CU_ASSERT(g->npoints <= GPU_MAX_POINTS);
	CU_ASSERT(g->npoints >= GPU_MAX_POINTS / 2);
	for (size_t i = 1; i < g->npoints; i++)
		CU_ASSERT(g->points[i].t_ms > g->points[i - 1].t_ms);
	gpu_job_free(g);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"allocation list: indices, minor numbers, UUIDs, MIG", test_alloc_match},
		{"exact figures replace sampled ones; energy only unshared", test_exact_over_sampled},
		{"flags: idle, memory with a MIG slice, underused; the request", test_flags},
		{"no NVML: counting none, no flag, no request", test_no_gpu},
		{"the time series stays bounded and ordered", test_points_bounded},
	};

	return UNIT_RUN("gpu", tests);
}
