/* test_sweep.c - the sweep's rules on the archive (a job's allocation
 * once per node, its elapsed time from the scheduler's start, waste and
 * cost per group, the owner and window filters; by tool, a job's waste
 * shared by its tools' CPU time), its SQL (the owner's uid in the query,
 * the limit; by tool, tracer.tools joined by summary) and its request's
 * checks; the idle hosts (idle_host records per host, the window's part,
 * EC2 instance-hours, cost) and the archive's readers telling records
 * from summaries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "json.h"
#include "proto.h"
#include "sumfile.h"
#include "summary.h"
#include "sweep.h"
#include "unit.h"

#define GIB (1024.0 * 1024 * 1024)

/* one step's summary */
static cJSON *step(const char *job, const char *host, const char *user, long uid, double start,
		   double wall, int cpus, double mem_gib, double cpu_s, double peak_gib,
		   const char *state)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "{\"identity\":{\"scheduler\":\"slurm\",\"cluster\":\"c\",\"job_id\":\"%s\","
		 "\"user\":\"%s\",\"uid\":%ld,\"allocation\":{\"cpus\":%d,\"mem_bytes\":%.0f}},"
		 "\"host\":{\"hostname\":\"%s\"},\"start_ns\":\"%.0f\",\"end_ns\":\"%.0f\","
		 "\"totals\":{\"cpu_s\":%g},\"memory\":{\"peak_bytes\":%.0f},\"state\":\"%s\"}",
		 job, user, uid, cpus, mem_gib * GIB, host, start * 1e9, (start + wall) * 1e9, cpu_s,
		 peak_gib * GIB, state);
	return cJSON_Parse(text);
}

/* step s with tools "name:cpu_s,..." */
static cJSON *with_tools(cJSON *s, const char *tools)
{
	cJSON *arr = cJSON_AddArrayToObject(s, "tools");
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", tools);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		cJSON *o = cJSON_CreateObject();
		char *colon = strchr(t, ':');

		*colon = '\0';
		cJSON_AddStringToObject(o, "tool", t);
		cJSON_AddNumberToObject(o, "cpu_s", strtod(colon + 1, NULL));
		cJSON_AddItemToArray(arr, o);
	}
	return s;
}

static cJSON *sweep_of(const struct sweep_query *q)
{
	struct sweep_acc *a = sweep_acc_new(q);
	const double t = 1.8e9;
	cJSON *s[] = {
		/* job 1 of alice: two steps on n1, one on n2, 4 CPUs 8 GiB a node, 1 h */
		with_tools(step("1", "n1", "alice", 1000, t, 3600, 4, 8, 600, 1, "COMPLETED"),
			   "bwa:400,sort:200"),
		with_tools(step("1", "n1", "alice", 1000, t + 60, 3540, 4, 8, 1800, 3, "COMPLETED"),
			   "bwa:1800"),
		with_tools(step("1", "n2", "alice", 1000, t + 60, 3540, 4, 8, 1800, 2, "COMPLETED"),
			   "bwa:900,sort:900"),
		/* job 2 of bob, 30 min, out of memory; its tools used no CPU */
		with_tools(step("2", "n2", "bob", 1001, t, 1800, 8, 16, 1800, 16, "OUT_OF_MEMORY"),
			   "bwa:0,gzip:0"),
		/* job 3 of bob, before the window */
		step("3", "n1", "bob", 1001, t - 86400, 3600, 16, 8, 0, 1, "TIMEOUT"),
	};
	cJSON *ans;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(s[i]);
		CU_ASSERT(sweep_acc_add(a, s[i]) == 0);
		cJSON_Delete(s[i]);
	}
	ans = sweep_acc_answer(a);
	sweep_acc_free(a);
	return ans;
}

/* counts are written raw (json.c) */
static double rnum(const cJSON *row, const char *key)
{
	return json_get_num(row, key, -1);
}

static void test_archive_rules(void)
{
	struct sweep_query q = {.by = SWEEP_BY_USER, .from_s = 1.8e9 - 3600, .limit = 10, .uid = -1,
				.price_cpu_hour = 0.05, .price_gb_hour = 0.01};
	cJSON *ans = sweep_of(&q), *rows, *a, *b;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ans);
	rows = cJSON_GetObjectItem(ans, "rows");
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(rows), 2);
	a = cJSON_GetArrayItem(rows, 0);
	b = cJSON_GetArrayItem(rows, 1);
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(a, "key")->valuestring, "alice");
	/* 8 CPUs (once per node) x 1 h - 4200 s of CPU */
	CU_ASSERT_DOUBLE_EQUAL(rnum(a, "idle_core_hours"), (8 * 3600 - 4200) / 3600.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(rnum(a, "unused_mem_gib_hours"), 11, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(rnum(cJSON_GetObjectItem(a, "cost"), "total"),
			       (8 * 3600 - 4200) / 3600.0 * 0.05 + 0.11, 1e-6);
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(b, "key")->valuestring, "bob");
	CU_ASSERT_DOUBLE_EQUAL(rnum(b, "idle_core_hours"), 3.5, 1e-6); /* job 3 is outside */
	CU_ASSERT_DOUBLE_EQUAL(rnum(b, "ooms"), 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(rnum(b, "timeouts"), 0, 1e-9);
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(b, "worst_job")->valuestring, "2");
	cJSON_Delete(ans);
}

static void test_owner_and_limit(void)
{
	struct sweep_query q = {.by = SWEEP_BY_HOST, .from_s = 1.8e9 - 3600, .limit = 1, .uid = 1001};
	cJSON *ans = sweep_of(&q), *rows;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ans);
	rows = cJSON_GetObjectItem(ans, "rows");
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(rows), 1);
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "key")->valuestring,
			       "n2");
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(ans, "prices")); /* none set */
	CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(ans, "all_users")));
	cJSON_Delete(ans);
}

static const cJSON *row_of(const cJSON *rows, const char *key)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, rows)
		if (strcmp(cJSON_GetObjectItem(r, "key")->valuestring, key) == 0)
			return r;
	return NULL;
}

static void test_by_tool(void)
{
	struct sweep_query q = {.by = SWEEP_BY_TOOL, .from_s = 1.8e9 - 3600, .limit = 10, .uid = -1};
	cJSON *ans = sweep_of(&q), *rows;
	const cJSON *bwa, *sort, *gzip;
	double idle1 = (8 * 3600 - 4200) / 3600.0; /* job 1: bwa 3100 s, sort 1100 s */

	CU_ASSERT_PTR_NOT_NULL_FATAL(ans);
	CU_ASSERT_PTR_NOT_NULL(strstr(json_get_str(ans, "attribution", ""), "CPU time"));
	rows = cJSON_GetObjectItem(ans, "rows");
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(rows), 3);
	bwa = row_of(rows, "bwa");
	sort = row_of(rows, "sort");
	gzip = row_of(rows, "gzip");
	CU_ASSERT_PTR_NOT_NULL_FATAL(bwa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sort);
	CU_ASSERT_PTR_NOT_NULL_FATAL(gzip);
	CU_ASSERT(cJSON_GetArrayItem(rows, 0) == bwa); /* the most */
	CU_ASSERT_DOUBLE_EQUAL(rnum(bwa, "jobs"), 2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(rnum(bwa, "cpu_hours"), 3100 / 3600.0, 1e-6);
	/* job 2's 3.5 h shared equally: no tool used CPU */
	CU_ASSERT_DOUBLE_EQUAL(rnum(bwa, "idle_core_hours"), idle1 * 31 / 42 + 1.75, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(rnum(bwa, "unused_mem_gib_hours"), 11.0 * 31 / 42, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(rnum(bwa, "ooms"), 1, 1e-9);
	CU_ASSERT_STRING_EQUAL(json_get_str(bwa, "worst_job", ""), "1");
	CU_ASSERT_DOUBLE_EQUAL(rnum(sort, "idle_core_hours"), idle1 * 11 / 42, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(rnum(sort, "cpu_hours"), 1100 / 3600.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(rnum(gzip, "idle_core_hours"), 1.75, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(rnum(gzip, "jobs"), 1, 1e-9);
	cJSON_Delete(ans);
	/* by user, no cpu_hours and no attribution */
	q.by = SWEEP_BY_USER;
	ans = sweep_of(&q);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ans);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(ans, "attribution"));
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(ans, "rows"), 0),
					       "cpu_hours"));
	cJSON_Delete(ans);
}

static void test_tool_sql(void)
{
	struct sweep_query q = {.by = SWEEP_BY_TOOL, .from_s = 1800000000.5, .limit = 7, .uid = 42};
	char sql[16384];
	const char *p;

	CU_ASSERT_FATAL(sweep_tool_sql(&q, "lake", sql, sizeof(sql)) == 0);
	/* the jobs' waste of sweep_sql (job_use) with their tools (schema
	 * v8), each name's CPU seconds summed per job; no join with tools */
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "sum(inc_cpus)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "arrayMap((n, c) -> (n, c), tool_names, tool_cpu_s) AS j_t"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "groupArrayArray(arrayMap((n, c) -> (n, c), tool_names,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "arrayFilter((c, l) -> l, cum, last) AS lc"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "WHERE tools_kind > 0"));
	CU_ASSERT_PTR_NULL(strstr(sql, "lake.tools"));
	CU_ASSERT_PTR_NULL(strstr(sql, "summary_id"));
	/* every read of lake.job_use keeps the owner's rows only */
	p = strstr(sql, "AND uid = 42");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_PTR_NOT_NULL(strstr(p + 1, "AND uid = 42"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "LIMIT 7 FORMAT JSONEachRow"));
	q.uid = -1;
	CU_ASSERT_FATAL(sweep_tool_sql(&q, "lake", sql, sizeof(sql)) == 0);
	CU_ASSERT_PTR_NULL(strstr(sql, "uid ="));
	CU_ASSERT(sweep_tool_sql(&q, "lake", sql, 100) == -1); /* does not fit */
	CU_ASSERT_EQUAL(sweep_by_parse("tool", &q.by), 0);
	CU_ASSERT_EQUAL(q.by, SWEEP_BY_TOOL);
}

static void test_sql(void)
{
	struct sweep_query q = {.by = SWEEP_BY_ACCOUNT, .from_s = 1800000000.5, .limit = 7, .uid = 42};
	char sql[16384];

	CU_ASSERT_FATAL(sweep_sql(&q, "tracer", sql, sizeof(sql)) == 0);
	/* schema v7's increments: a single job's row as is, the others'
	 * summed per job, a job with a row without them folded per node */
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "WHERE tools_kind > 0 AND inc_single = 1 AND inc_kind > 0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "WHERE tools_kind > 0 AND inc_single = 0 AND inc_kind > 0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "sum(inc_cpus)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "WHERE tools_kind > 0 AND inc_kind = 0"));
	/* schema v8's older rows (tools_kind 0) have twins: never read */
	CU_ASSERT_PTR_NULL(strstr(sql, "tools_kind = 0"));
	CU_ASSERT_PTR_NULL(strstr(sql, "tool_names"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "max(alloc_cpus)"));
	/* a retried row once */
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "LIMIT 1 BY sh"));
	CU_ASSERT_PTR_NULL(strstr(sql, "tracer.jobs"));
	CU_ASSERT_PTR_NULL(strstr(sql, "summary_id"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "end >= toDateTime(1800000000)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "WHERE uid = 42"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "AND uid = 42"));
	/* grouped by the account's hash, named by a join on the column */
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "cityHash64(account) AS gh0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "any(account) AS g"));
	CU_ASSERT_PTR_NULL(strstr(sql, "ARRAY JOIN"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "LIMIT 7 FORMAT JSONEachRow"));
	q.uid = -1;
	CU_ASSERT_FATAL(sweep_sql(&q, "tracer", sql, sizeof(sql)) == 0);
	CU_ASSERT_PTR_NULL(strstr(sql, "uid ="));
	q.by = SWEEP_BY_HOST; /* each node's share on its host */
	CU_ASSERT_FATAL(sweep_sql(&q, "tracer", sql, sizeof(sql)) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "ARRAY JOIN hs AS h"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "any(host) AS g"));
	CU_ASSERT(sweep_sql(&q, "tracer", sql, 100) == -1); /* does not fit */
	/* the idle hosts: schema v5's table, a retried record once */
	CU_ASSERT_FATAL(sweep_idle_sql(&q, "tracer", sql, sizeof(sql)) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "FROM tracer.idle_hosts FINAL WHERE end >= toDateTime(1800000000)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql, "GROUP BY host"));
}

/* one idle_host record */
static char *idle_rec(const char *host, double start, double end, double busy, const char *ec2,
		      double price)
{
	char *text = malloc(1024);

	snprintf(text, 1024,
		 "{\"record\":\"idle_host\",\"summary_id\":\"x\",\"host\":{\"hostname\":\"%s\","
		 "\"cpus\":4,\"mem_bytes\":%.0f},\"cluster\":\"c1\",\"start_ns\":\"%.0f\","
		 "\"end_ns\":\"%.0f\",\"idle_s\":%g,\"cpu_share_busy\":%g%s%s%s%s}",
		 host, 8 * GIB, start * 1e9, end * 1e9, end - start, busy,
		 ec2 ? ",\"ec2\":{\"instance_id\":\"" : "", ec2 ? ec2 : "", ec2 ? "\"}" : "",
		 price > 0 ? ",\"cost\":{\"price_hour\":0.2}" : "");
	return text;
}

static void test_idle_hosts(void)
{
	struct sweep_query q = {.from_s = 100000, .limit = 10, .uid = -1};
	struct sweep_idle *a = sweep_idle_new(&q);
	cJSON *r, *ans, *rows, *n1, *n3;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	/* n1 (EC2, 0.2/h): 3600 s at 1% and 1800 s at 4% busy; n3: a period
	 * that began 600 s before the window; n4: ended before it */
	char *t[] = {idle_rec("n1", 200000, 203600, 0.01, "i-01", 0.2),
		     idle_rec("n1", 210000, 211800, 0.04, "i-01", 0.2),
		     idle_rec("n3", 99400, 100600, 0, NULL, 0), idle_rec("n4", 1000, 2000, 0, NULL, 0)};
	for (size_t i = 0; i < 4; i++) {
		r = cJSON_Parse(t[i]);
		CU_ASSERT_EQUAL(sweep_idle_add(a, r), 0);
		cJSON_Delete(r);
		free(t[i]);
	}
	CU_ASSERT_DOUBLE_EQUAL(sweep_idle_hours_of(a, "n1"), 1.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sweep_idle_hours_of(a, "n3"), 600.0 / 3600, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sweep_idle_hours_of(a, "n4"), 0, 1e-9);
	ans = sweep_idle_answer(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ans);
	rows = cJSON_GetObjectItem(ans, "rows");
	CU_ASSERT_EQUAL(cJSON_GetArraySize(rows), 2); /* n4 is outside */
	n1 = cJSON_GetArrayItem(rows, 0);
	n3 = cJSON_GetArrayItem(rows, 1);
	CU_ASSERT_STRING_EQUAL(json_get_str(n1, "host", ""), "n1"); /* the longest first */
	CU_ASSERT_DOUBLE_EQUAL(json_get_num(n1, "periods", 0), 2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(json_get_num(n1, "idle_core_hours", 0), 6, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(json_get_num(n1, "cpu_share_busy", 0), 0.02, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(json_get_num(n1, "instance_hours_without_job", 0), 1.5, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(json_get_num(n1, "cost", 0), 0.3, 1e-6);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(n3, "ec2"));
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(n3, "cost"));
	CU_ASSERT_DOUBLE_EQUAL(json_get_num(ans, "idle_hours", 0), 1.5 + 600.0 / 3600, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(json_get_num(ans, "instance_hours_without_job", 0), 1.5, 1e-6);
	cJSON_Delete(ans);
	sweep_idle_free(a);
}

static int count_one(const cJSON *s, void *ctx)
{
	(void)s;
	++*(int *)ctx;
	return 0;
}

static void test_archive_kinds(void)
{
	char path[] = "/tmp/test_sweep_kinds.XXXXXX";
	int fd = mkstemp(path), files = 0, sums = 0, idle = 0;
	struct sumfile_status st = {0};
	const char *text = "{\"job\":\"j1\",\"identity\":{\"uid\":1}}\n"
			   "{\"record\":\"idle_host\",\"host\":{\"hostname\":\"n1\"}}\n"
			   "{\"record\":\"another\"}\n";
	cJSON *tail;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	/* the readers of summaries skip the other records; the sweep reads
	 * the idle hosts' by their kind */
	CU_ASSERT_EQUAL(sumfile_each(path, NULL, count_one, &sums, &files, &st), 0);
	CU_ASSERT_EQUAL(sums, 1);
	CU_ASSERT_EQUAL(sumfile_records_each(path, SUMMARY_IDLE_HOST_RECORD, count_one, &idle, &files,
					     &st), 0);
	CU_ASSERT_EQUAL(idle, 1);
	tail = sumfile_tail(path, 0, NULL, &st);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(tail), 1);
	cJSON_Delete(tail);
	CU_ASSERT_EQUAL(st.bad, 0);
	unlink(path);
}

static void test_request(void)
{
	struct proto_request req;
	char err[200];
	const char *ok = "{\"op\":\"sweep\",\"v\":1,\"by\":\"account\",\"since_s\":86400,\"limit\":5}";

	CU_ASSERT(proto_parse_request(ok, strlen(ok), &req, err, sizeof(err)) == 0);
	CU_ASSERT_EQUAL(req.op, PROTO_OP_SWEEP);
	CU_ASSERT_STRING_EQUAL(req.sweep.by, "account");
	CU_ASSERT_EQUAL(req.sweep.limit, 5);
	const char *bad[] = {
		"{\"op\":\"sweep\",\"by\":\"user\",\"since_s\":-1,\"limit\":5}",
		"{\"op\":\"sweep\",\"by\":\"user\",\"since_s\":60,\"limit\":0}",
		"{\"op\":\"sweep\",\"by\":\"user\",\"since_s\":60,\"limit\":1.5}",
		"{\"op\":\"sweep\",\"by\":\"aaaaaaaaaaaaaaaaaaaaaaa\",\"since_s\":60,\"limit\":5}",
		"{\"op\":\"sweep\",\"since_s\":60,\"limit\":5}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT(proto_parse_request(bad[i], strlen(bad[i]), &req, err, sizeof(err)) == -1);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"the archive's rules", test_archive_rules},
		{"owner and limit", test_owner_and_limit},
		{"the datalake's SQL", test_sql},
		{"by tool: the archive's shares", test_by_tool},
		{"by tool: the datalake's SQL", test_tool_sql},
		{"the request", test_request},
		{"idle hosts: per host, the window's part", test_idle_hosts},
		{"the archive: summaries and other records", test_archive_kinds},
	};

	return UNIT_RUN("sweep", tests);
}
