/* test_jobview.c - one job across its steps and nodes, from hand-made
 * step summaries: one step, a batch step and two srun steps on one node
 * (the allocation counted once), two nodes, array tasks as jobs of their
 * own, the worst state, flags and cost made once for the job. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jobview.h"
#include "unit.h"

#define GiB 1073741824.0
#define T0 1800000000000000000LL /* ns */
#define S 1000000000LL

static struct tracer_config cfg;

struct step {
	const char *job, *step, *host, *state;
	int exit_code;
	long long start_s, end_s; /* after T0 */
	double cpu_s, peak_gib, alloc_gib;
	int alloc_cpus;
	const char *array_job; /* NULL: not an array task */
};

/* A step summary with the fields the job view reads. */
static cJSON *step_summary(const struct step *s)
{
	char buf[4096], arr[96] = "";

	if (s->array_job)
		snprintf(arr, sizeof(arr), "\"array_job_id\":\"%s\",\"array_index\":1,",
			 s->array_job);
	snprintf(buf, sizeof(buf),
		 "{\"schema\":\"tracer.job/2\",\"job\":\"u-%s-%s-%s\","
		 "\"summary_id\":\"00000000-0000-4000-8000-000000000000\","
		 "\"identity\":{\"scheduler\":\"slurm\",\"cluster\":\"c1\",\"job_id\":\"%s\","
		 "\"step_id\":\"%s\",%s\"user\":\"alice\",\"uid\":1001,\"task_name\":\"align\","
		 "\"allocation\":{\"cpus\":%d,\"mem_bytes\":%.0f,\"time_limit_s\":36000,"
		 "\"cpuset\":\"0-3\"}},"
		 "\"host\":{\"hostname\":\"%s\",\"kernel\":\"k\",\"cpus\":8,\"mem_bytes\":%.0f},"
		 "\"start_ns\":\"%lld\",\"end_ns\":\"%lld\",\"wall_s\":%lld,"
		 "\"exit\":{\"status\":%d,\"code\":%d,\"signal\":null},\"state\":\"%s\","
		 "\"totals\":{\"cpu_s\":%g,\"user_s\":%g,\"sys_s\":0,\"rchar\":10,\"wchar\":20,"
		 "\"read_bytes\":100,\"write_bytes\":200,\"max_rss_bytes\":%.0f,"
		 "\"net\":{\"sent_bytes\":5,\"recv_bytes\":7,\"tcp_remote_endpoints_capped\":false},"
		 "\"block\":{\"read_bytes\":1,\"write_bytes\":2,\"requests\":3},\"run_delay_s\":0},"
		 "\"memory\":{\"peak_bytes\":%.0f,\"samples\":3},"
		 "\"processes\":{\"total\":2,\"exited\":2},\"oom_kills\":%d,"
		 "\"tools\":[{\"tool\":\"bwa\",\"path\":\"/usr/bin/bwa\",\"processes\":1,"
		 "\"cpu_s\":%g,\"peak_rss_bytes\":%.0f,\"wall_s\":%lld,\"cpu_efficiency\":0.5,"
		 "\"first_start\":\"2027-01-15T08:0%lld:00.000Z\",\"exit_codes\":"
		 "[{\"code\":%d,\"signal\":null,\"count\":1}]}],"
		 "\"allocation_use\":{\"method\":\"sampled\",\"concurrency\":{\"p95\":2}},"
		 "\"process_tree\":[{\"pid\":1}],\"drops\":{\"events\":1},"
		 "\"flags\":[{\"id\":\"memory_overallocated\",\"severity\":\"warning\","
		 "\"message\":\"per step\",\"evidence\":{}}]}",
		 s->job, s->step, s->host, s->job, s->step, arr, s->alloc_cpus, s->alloc_gib * GiB,
		 s->host, 64 * GiB, T0 + s->start_s * S, T0 + s->end_s * S, s->end_s - s->start_s,
		 s->exit_code ? 256 * s->exit_code : 0, s->exit_code, s->state, s->cpu_s, s->cpu_s,
		 s->peak_gib * GiB, s->peak_gib * GiB, strcmp(s->state, "OUT_OF_MEMORY") ? 0 : 1,
		 s->cpu_s, s->peak_gib * GiB, s->end_s - s->start_s, s->start_s / 60 % 10,
		 s->exit_code);
	return cJSON_Parse(buf);
}

static cJSON *view_of(const struct step *steps, size_t n)
{
	cJSON *arr = cJSON_CreateArray(), *v;

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, step_summary(&steps[i]));
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(arr), (int)n);
	v = jobview_build(arr, &cfg);
	cJSON_Delete(arr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	{ /* as a reader gets it: counts are written raw */
		char *text = cJSON_PrintUnformatted(v);

		cJSON_Delete(v);
		CU_ASSERT_PTR_NOT_NULL_FATAL(text);
		v = cJSON_Parse(text);
		if (getenv("JOBVIEW_DUMP"))
			fprintf(stderr, "%s\n", text);
		cJSON_free(text);
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	return v;
}

static double at(const cJSON *o, const char *path)
{
	char key[64];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		o = cJSON_GetObjectItemCaseSensitive(o, key);
		path = dot + 1;
	}
	o = cJSON_GetObjectItemCaseSensitive(o, path);
	return cJSON_IsNumber(o) ? o->valuedouble : NAN;
}

static const char *sat(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static int count_flags(const cJSON *v, const char *id)
{
	const cJSON *f;
	int n = 0;

	cJSON_ArrayForEach(f, cJSON_GetObjectItem(v, "flags"))
		n += !strcmp(sat(f, "id"), id);
	return n;
}

static int near(double a, double b)
{
	if (!(fabs(a - b) < 1e-6 * (fabs(b) + 1)))
		fprintf(stderr, "\n  got %.9g, want %.9g\n", a, b);
	return fabs(a - b) < 1e-6 * (fabs(b) + 1);
}

#define NEAR(a, b) CU_ASSERT(near((a), (double)(b)))

static void test_one_step(void)
{
	static const struct step s[] = {
		{"100", "batch", "n1", "COMPLETED", 0, 0, 600, 300, 1, 8, 4, NULL},
	};
	cJSON *v = view_of(s, 1);

	CU_ASSERT_STRING_EQUAL(sat(v, "scope"), "job");
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(v, "steps")), 1);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(v, "hosts")), 1);
	/* the summary itself: its own numbers, flags and process tree */
	NEAR(at(v, "totals.cpu_s"), 300);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(v, "process_tree")), 1);
	CU_ASSERT_EQUAL(count_flags(v, "memory_overallocated"), 1);
	CU_ASSERT_STRING_EQUAL(sat(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "steps"), 0),
				   "step_id"), "batch");
	NEAR(at(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "hosts"), 0), "alloc_cpus"), 4);
	cJSON_Delete(v);
}

/* sbatch with 4 CPUs and 8 GiB on n1: the batch step and two srun steps
 * each report the job's allocation; the job has it once. */
static void test_batch_and_sruns_one_node(void)
{
	static const struct step s[] = {
		{"200", "0", "n1", "COMPLETED", 0, 60, 300, 400, 2, 8, 4, NULL},
		{"200", "batch", "n1", "COMPLETED", 0, 0, 1200, 20, 0.5, 8, 4, NULL},
		{"200", "1", "n1", "COMPLETED", 0, 300, 1100, 1500, 3, 8, 4, NULL},
	};
	cJSON *v = view_of(s, 3), *id = cJSON_GetObjectItem(v, "identity");
	const cJSON *steps = cJSON_GetObjectItem(v, "steps");

	CU_ASSERT_STRING_EQUAL(sat(v, "scope"), "job");
	CU_ASSERT_STRING_EQUAL(sat(v, "job"), "200");
	NEAR(at(id, "allocation.cpus"), 4);
	NEAR(at(id, "allocation.mem_bytes"), 8 * GiB);
	NEAR(at(id, "allocation.nodes"), 1);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(id, "step_id"));
	/* first start, last end */
	NEAR(at(v, "wall_s"), 1200);
	CU_ASSERT_STRING_EQUAL(sat(v, "start_ns"), "1800000000000000000");
	CU_ASSERT_STRING_EQUAL(sat(v, "end_ns"), "1800001200000000000");
	/* CPU over every step, efficiency as seff: CPU / (4 CPUs x elapsed) */
	NEAR(at(v, "totals.cpu_s"), 1920);
	NEAR(at(v, "totals.read_bytes"), 300);
	NEAR(at(v, "totals.net.sent_bytes"), 15);
	NEAR(at(v, "totals.block.requests"), 9);
	NEAR(at(v, "totals.max_rss_bytes"), 3 * GiB);
	NEAR(at(v, "cpu_efficiency"), 1920.0 / (4 * 1200));
	CU_ASSERT_STRING_EQUAL(sat(v, "cpu_efficiency_basis"), "allocation");
	/* memory: the largest step's peak against the request */
	NEAR(at(v, "memory.peak_bytes"), 3 * GiB);
	NEAR(at(v, "memory.allocated_bytes"), 8 * GiB);
	NEAR(at(v, "memory.efficiency"), 3.0 / 8);
	NEAR(at(v, "processes.total"), 6);
	NEAR(at(v, "drops.events"), 3);
	/* steps in start order, one host */
	CU_ASSERT_EQUAL(cJSON_GetArraySize(steps), 3);
	CU_ASSERT_STRING_EQUAL(sat(cJSON_GetArrayItem(steps, 0), "step_id"), "batch");
	CU_ASSERT_STRING_EQUAL(sat(cJSON_GetArrayItem(steps, 1), "step_id"), "0");
	CU_ASSERT_STRING_EQUAL(sat(cJSON_GetArrayItem(steps, 2), "step_id"), "1");
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(v, "hosts")), 1);
	NEAR(at(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "hosts"), 0), "alloc_cpus"), 4);
	NEAR(at(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "hosts"), 0), "cpu_s"), 1920);
	/* tools merged by name and path */
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(v, "tools")), 1);
	{
		const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItem(v, "tools"), 0);
		const cJSON *ec = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "exit_codes"), 0);

		NEAR(at(t, "processes"), 3);
		NEAR(at(t, "cpu_s"), 1920);
		NEAR(at(t, "peak_rss_bytes"), 3 * GiB);
		NEAR(at(t, "cpu_efficiency"), 1920.0 / (4 * 1200));
		NEAR(at(ec, "count"), 3);
		CU_ASSERT_STRING_EQUAL(sat(t, "first_start"), "2027-01-15T08:00:00.000Z");
	}
	/* flags made once for the job, not copied from each step */
	CU_ASSERT_EQUAL(count_flags(v, "memory_overallocated"), 1);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(v, "process_tree")), 0);
	NEAR(at(v, "recommendation.mem_bytes"), 3712.0 * 1048576); /* 3 GiB x 1.2, 64 MiB steps */
	NEAR(at(v, "recommendation.time_s"), 1440);       /* 1200 s x 1.2 */
	NEAR(at(v, "recommendation.cpus"), 2);            /* concurrency p95 of the node */
	CU_ASSERT_EQUAL(count_flags(v, "cpu_bound"), 0);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(v, "allocation_use"));
	cJSON_Delete(v);
}

/* An allocation whose first step came late (salloc, then srun): the job's
 * elapsed time starts at the scheduler's start of the job, as sacct's. */
static void test_job_start(void)
{
	static const struct step s[] = {
		{"300", "0", "n1", "COMPLETED", 0, 100, 250, 300, 1, 8, 4, NULL},
		{"300", "1", "n1", "COMPLETED", 0, 250, 400, 300, 1, 8, 4, NULL},
	};
	cJSON *arr = cJSON_CreateArray(), *v;
	char js[32];

	snprintf(js, sizeof(js), "%lld", (long long)T0);
	for (size_t i = 0; i < 2; i++) {
		cJSON *one = step_summary(&s[i]);

		cJSON_AddItemToObject(cJSON_GetObjectItem(one, "identity"), "job_start_ns",
				      cJSON_CreateString(js));
		cJSON_AddItemToArray(arr, one);
	}
	v = jobview_build(arr, &cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	NEAR(at(v, "wall_s"), 400);
	CU_ASSERT_STRING_EQUAL(sat(v, "start_ns"), "1800000000000000000");
	NEAR(at(v, "cpu_efficiency"), 600.0 / (4 * 400));
	cJSON_Delete(v);
	cJSON_Delete(arr);
}

/* Two nodes of 4 CPUs: the batch step on n1, step 0 on n1 and n2. */
static void test_two_nodes(void)
{
	static const struct step s[] = {
		{"300", "batch", "n1", "COMPLETED", 0, 0, 1000, 10, 1, 16, 4, NULL},
		{"300", "0", "n1", "COMPLETED", 0, 10, 990, 900, 6, 16, 4, NULL},
		{"300", "0", "n2", "COMPLETED", 0, 10, 995, 800, 9, 16, 4, NULL},
	};
	cJSON *v;

	cfg.price_cpu_hour = 0.1;
	cfg.price_gb_hour = 0.01;
	v = view_of(s, 3);
	cfg.price_cpu_hour = cfg.price_gb_hour = 0;
	NEAR(at(v, "identity.allocation.cpus"), 8);
	NEAR(at(v, "identity.allocation.mem_bytes"), 16 * GiB); /* per node */
	NEAR(at(v, "identity.allocation.nodes"), 2);
	NEAR(at(v, "identity.node_count"), 2);
	CU_ASSERT_STRING_EQUAL(sat(cJSON_GetObjectItem(v, "host"), "hostname"), "n1,n2");
	NEAR(at(v, "host.cpus"), 16);
	NEAR(at(v, "cpu_efficiency"), 1710.0 / (8 * 1000));
	/* the largest node's peak against the per-node request */
	NEAR(at(v, "memory.peak_bytes"), 9 * GiB);
	NEAR(at(v, "memory.efficiency"), 9.0 / 16);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(v, "hosts")), 2);
	{
		const cJSON *h = cJSON_GetObjectItem(v, "hosts");

		CU_ASSERT_STRING_EQUAL(sat(cJSON_GetArrayItem(h, 0), "hostname"), "n1");
		NEAR(at(cJSON_GetArrayItem(h, 0), "cpu_s"), 910);
		NEAR(at(cJSON_GetArrayItem(h, 0), "mem_peak_bytes"), 6 * GiB);
		NEAR(at(cJSON_GetArrayItem(h, 0), "steps"), 2);
		NEAR(at(cJSON_GetArrayItem(h, 1), "mem_peak_bytes"), 9 * GiB);
	}
	/* the allocation's cost once per node over the job's elapsed time */
	NEAR(at(v, "cost.total"), 1000.0 / 3600 * (8 * 0.1 + 32 * 0.01));
	CU_ASSERT(at(v, "cost.used") <= at(v, "cost.total"));
	cJSON_Delete(v);
}

static void test_array_tasks_are_jobs(void)
{
	static const struct step s[] = {
		{"401", "batch", "n1", "COMPLETED", 0, 0, 100, 10, 1, 8, 4, "400"},
		{"402", "batch", "n1", "COMPLETED", 0, 0, 100, 10, 1, 8, 4, "400"},
		{"401", "0", "n2", "COMPLETED", 0, 0, 100, 10, 1, 8, 4, "400"},
	};
	cJSON *a = step_summary(&s[0]), *b = step_summary(&s[1]), *c = step_summary(&s[2]);
	cJSON *d = step_summary(&s[0]);

	CU_ASSERT(!jobview_same_job(a, b));
	CU_ASSERT(jobview_same_job(a, c));
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(d, "identity"), "cluster",
				  cJSON_CreateString("c2"));
	CU_ASSERT(!jobview_same_job(a, d));
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(d, "identity"), "cluster",
				  cJSON_CreateString("c1"));
	CU_ASSERT(jobview_same_job(a, d));
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(d, "identity"), "scheduler",
				  cJSON_CreateString("local"));
	CU_ASSERT(!jobview_same_job(a, d));
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
	cJSON_Delete(d);
}

static const char *state_of(const struct step *s, size_t n, int *code)
{
	static char state[32];
	cJSON *v = view_of(s, n);

	snprintf(state, sizeof(state), "%s", sat(v, "state"));
	*code = (int)at(v, "exit.code");
	cJSON_Delete(v);
	return state;
}

static void test_mixed_states(void)
{
	struct step s[] = {
		{"500", "batch", "n1", "COMPLETED", 0, 0, 100, 10, 1, 8, 4, NULL},
		{"500", "0", "n1", "FAILED", 3, 10, 50, 10, 1, 8, 4, NULL},
		{"500", "1", "n1", "CANCELLED", 0, 50, 90, 10, 1, 8, 4, NULL},
	};
	int code;

	CU_ASSERT_STRING_EQUAL(state_of(s, 3, &code), "FAILED");
	CU_ASSERT_EQUAL(code, 3);
	CU_ASSERT_STRING_EQUAL(state_of(s, 1, &code), "COMPLETED");
	s[2].state = "TIMEOUT";
	CU_ASSERT_STRING_EQUAL(state_of(s, 3, &code), "TIMEOUT");
	s[0].state = "OUT_OF_MEMORY";
	CU_ASSERT_STRING_EQUAL(state_of(s, 3, &code), "OUT_OF_MEMORY");
	s[0].state = "CANCELLED";
	s[1].state = "COMPLETED";
	s[2].state = "COMPLETED";
	CU_ASSERT_STRING_EQUAL(state_of(s, 3, &code), "CANCELLED");
	CU_ASSERT(jobview_state_rank("OUT_OF_MEMORY") > jobview_state_rank("TIMEOUT"));
	CU_ASSERT(jobview_state_rank("TIMEOUT") > jobview_state_rank("FAILED"));
	CU_ASSERT(jobview_state_rank("FAILED") > jobview_state_rank("CANCELLED"));
	CU_ASSERT(jobview_state_rank("CANCELLED") > jobview_state_rank("COMPLETED"));
	CU_ASSERT(jobview_state_rank("COMPLETED") > jobview_state_rank("UNKNOWN"));
	CU_ASSERT_EQUAL(jobview_state_rank(NULL), 0);
	{
		cJSON *v = view_of(s, 0 + 1), *e = cJSON_CreateArray();

		CU_ASSERT_PTR_NULL(jobview_build(e, &cfg));
		cJSON_Delete(e);
		cJSON_Delete(v);
	}
}

static bool not_failed(const cJSON *v, void *ctx)
{
	(void)ctx;
	return strcmp(sat(v, "state"), "FAILED") != 0;
}

/* A listing of several jobs' steps: one view per job, by its last step. */
static void test_group(void)
{
	static const struct step s[] = {
		{"601", "batch", "n1", "COMPLETED", 0, 0, 100, 10, 1, 8, 4, NULL},
		{"602", "batch", "n1", "FAILED", 1, 0, 50, 10, 1, 8, 4, NULL},
		{"601", "0", "n2", "COMPLETED", 0, 10, 90, 10, 1, 8, 4, NULL},
		{"603", "batch", "n1", "COMPLETED", 0, 0, 60, 10, 1, 8, 4, NULL},
	};
	cJSON *arr = cJSON_CreateArray(), *v;

	for (size_t i = 0; i < 4; i++)
		cJSON_AddItemToArray(arr, step_summary(&s[i]));
	v = jobview_group(arr, &cfg, 0, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(v), 3);
	CU_ASSERT_STRING_EQUAL(sat(cJSON_GetArrayItem(v, 0), "job"), "u-602-batch-n1");
	CU_ASSERT_STRING_EQUAL(sat(cJSON_GetArrayItem(v, 1), "job"), "601");
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(v, 1), "steps")), 2);
	cJSON_Delete(v);
	/* the newest 2 */
	v = jobview_group(arr, &cfg, 2, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(v), 2);
	CU_ASSERT_STRING_EQUAL(sat(cJSON_GetArrayItem(v, 0), "job"), "601");
	cJSON_Delete(v);
	/* the newest 2 that pass */
	v = jobview_group(arr, &cfg, 2, not_failed, NULL);
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(v), 2);
	CU_ASSERT_STRING_EQUAL(sat(cJSON_GetArrayItem(v, 0), "job"), "601");
	CU_ASSERT_STRING_EQUAL(sat(cJSON_GetArrayItem(v, 1), "job"), "u-603-batch-n1");
	cJSON_Delete(v);
	v = jobview_group(arr, &cfg, 0, not_failed, NULL);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(v), 2);
	cJSON_Delete(v);
	cJSON_Delete(arr);
	arr = cJSON_CreateArray();
	v = jobview_group(arr, &cfg, 0, NULL, NULL);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(v), 0);
	cJSON_Delete(v);
	cJSON_Delete(arr);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"one step", test_one_step},
		{"batch and two srun steps on one node", test_batch_and_sruns_one_node},
		{"two nodes", test_two_nodes},
		{"the job's start is the scheduler's", test_job_start},
		{"array tasks are jobs of their own", test_array_tasks_are_jobs},
		{"mixed states", test_mixed_states},
		{"a listing grouped into jobs", test_group},
	};

	config_defaults(&cfg);
	return UNIT_RUN("jobview", tests);
}
