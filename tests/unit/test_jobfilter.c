/* test_jobfilter.c - which summaries a filter selects: sacct's -j forms
 * (JOBID, JOBID.STEP, ARRAYJOBID_TASK), accounts, partitions, nodes. */
#include <stdint.h>
#include <string.h>

#include "jobfilter.h"
#include "unit.h"

/* A summary of job (step) on host, with account and partition. */
static cJSON *summary(const char *job, const char *step, const char *array_job, int index,
		      const char *account, const char *queue, const char *host)
{
	cJSON *s = cJSON_CreateObject(), *id = cJSON_AddObjectToObject(s, "identity");
	cJSON *h = cJSON_AddObjectToObject(s, "host");

	cJSON_AddStringToObject(id, "job_id", job);
	if (step)
		cJSON_AddStringToObject(id, "step_id", step);
	if (array_job) {
		cJSON_AddStringToObject(id, "array_job_id", array_job);
		cJSON_AddNumberToObject(id, "array_index", index);
	}
	if (account)
		cJSON_AddStringToObject(id, "account", account);
	if (queue)
		cJSON_AddStringToObject(id, "queue", queue);
	cJSON_AddStringToObject(h, "hostname", host);
	cJSON_AddNumberToObject(s, "start_ns", 1e18);
	cJSON_AddNumberToObject(s, "end_ns", 1.1e18);
	return s;
}

static bool ids(const char *list, const cJSON *s)
{
	struct job_filter f;

	job_filter_init(&f);
	f.job_ids = list;
	return job_filter_summary(&f, s);
}

static void test_job_ids(void)
{
	cJSON *batch = summary("1234", "batch", NULL, 0, NULL, NULL, "n1");
	cJSON *step0 = summary("1234", "0", NULL, 0, NULL, NULL, "n2");
	cJSON *task = summary("1240", "batch", "1238", 2, NULL, NULL, "n1");
	cJSON *dotted = summary("job.v1", NULL, NULL, 0, NULL, NULL, "n1");

	/* JOBID: every step */
	CU_ASSERT(ids("1234", batch));
	CU_ASSERT(ids("1234", step0));
	CU_ASSERT(!ids("123", batch));
	CU_ASSERT(!ids("12345", batch));
	/* JOBID.STEP: that step only */
	CU_ASSERT(ids("1234.0", step0));
	CU_ASSERT(!ids("1234.0", batch));
	CU_ASSERT(ids("1234.batch", batch));
	CU_ASSERT(!ids("1234.1", step0));
	/* a list: any word */
	CU_ASSERT(ids("99,1234.0", step0));
	CU_ASSERT(ids(",,1234", batch));
	CU_ASSERT(!ids("99,1235", batch));
	/* an array task: its own id, the array's id, ARRAY_TASK, ARRAY_TASK.STEP
	 * is not a form; JOBID.STEP of the task's own id is */
	CU_ASSERT(ids("1240", task));
	CU_ASSERT(ids("1238", task));
	CU_ASSERT(ids("1238_2", task));
	CU_ASSERT(!ids("1238_3", task));
	CU_ASSERT(!ids("1240_2", task));
	CU_ASSERT(ids("1240.batch", task));
	/* a job id that holds a dot matches whole */
	CU_ASSERT(ids("job.v1", dotted));
	CU_ASSERT(!ids("job", dotted));
	cJSON_Delete(batch);
	cJSON_Delete(step0);
	cJSON_Delete(task);
	cJSON_Delete(dotted);
}

static void test_account_partition_node(void)
{
	cJSON *s = summary("7", "0", NULL, 0, "proj1", "debug", "n2");
	cJSON *bare = summary("8", "0", NULL, 0, NULL, NULL, "n1");
	struct job_filter f;

	job_filter_init(&f);
	f.accounts = "proj2,proj1";
	CU_ASSERT(job_filter_summary(&f, s));
	CU_ASSERT(!job_filter_summary(&f, bare)); /* no account: not selected */
	f.accounts = "proj";
	CU_ASSERT(!job_filter_summary(&f, s));

	job_filter_init(&f);
	f.partitions = "debug";
	CU_ASSERT(job_filter_summary(&f, s));
	CU_ASSERT(!job_filter_summary(&f, bare));
	f.partitions = "long";
	CU_ASSERT(!job_filter_summary(&f, s));

	job_filter_init(&f);
	f.nodes = "n1,n2";
	CU_ASSERT(job_filter_summary(&f, s));
	CU_ASSERT(job_filter_summary(&f, bare));
	f.nodes = "n1";
	CU_ASSERT(!job_filter_summary(&f, s));
	CU_ASSERT(job_filter_host(&f, "n1"));
	CU_ASSERT(!job_filter_host(&f, NULL));

	/* every field must match */
	job_filter_init(&f);
	f.job_ids = "7";
	f.accounts = "proj1";
	f.nodes = "n1";
	CU_ASSERT(!job_filter_summary(&f, s));
	f.nodes = "n2";
	CU_ASSERT(job_filter_summary(&f, s));
	cJSON_Delete(s);
	cJSON_Delete(bare);
}

/* summaries write start_ns and end_ns as decimal strings */
static void test_times_as_text(void)
{
	cJSON *s = summary("9", "0", NULL, 0, NULL, NULL, "n1");
	struct job_filter f;

	cJSON_ReplaceItemInObject(s, "start_ns", cJSON_CreateString("1800000000000000000"));
	cJSON_ReplaceItemInObject(s, "end_ns", cJSON_CreateString("1800000600000000000"));
	job_filter_init(&f);
	f.since_ns = 1800000300000000000LL;
	CU_ASSERT(job_filter_summary(&f, s));
	f.since_ns = 1800000700000000000LL;
	CU_ASSERT(!job_filter_summary(&f, s));
	job_filter_init(&f);
	f.until_ns = 1799999999000000000LL;
	CU_ASSERT(!job_filter_summary(&f, s));
	cJSON_ReplaceItemInObject(s, "end_ns", cJSON_CreateString("soon"));
	job_filter_init(&f);
	f.since_ns = 0;
	CU_ASSERT(!job_filter_summary(&f, s)); /* not a time: fails a time filter */
	cJSON_Delete(s);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"job ids", test_job_ids},
		{"accounts, partitions, nodes", test_account_partition_node},
		{"times as decimal strings", test_times_as_text},
	};

	return UNIT_RUN("jobfilter", tests);
}
