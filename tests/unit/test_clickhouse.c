/*
 * test_clickhouse.c - what needs no server in lib/clickhouse.c: a
 * migration file split into statements (comments, SET and empty ones
 * dropped, ";" and "--" inside quotes kept), server versions and the
 * settings each gets, the error answers that mean "no such table", and
 * the jobs row the sink makes of a summary (schema version 3's columns).
 */
#include "unit.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "clickhouse.h"
#include "growbuf.h"
#include "sink.h"
#include "sink_priv.h"

struct seen {
	char stmt[8][256];
	int n;
};

static int take(void *ctx, const char *stmt)
{
	struct seen *s = ctx;

	if (s->n == 8)
		return 7;
	snprintf(s->stmt[s->n++], sizeof(s->stmt[0]), "%s", stmt);
	return 0;
}

static void test_statements(void)
{
	char sql[] = "-- a file\n"
		     "SET allow_experimental_low_cardinality_type = 1;\n"
		     "CREATE TABLE t (a String) -- a comment; with a semicolon\n"
		     "ENGINE = Memory;\n"
		     "\n"
		     "INSERT INTO t SELECT 'x;y -- not a comment', 'it\\'s';\n"
		     " ;\n"
		     "SELECT 1";
	struct seen s = {0};

	CU_ASSERT_EQUAL(clickhouse_statements(sql, take, &s), 0);
	CU_ASSERT_EQUAL_FATAL(s.n, 3);
	CU_ASSERT_STRING_EQUAL(s.stmt[0], "CREATE TABLE t (a String) \nENGINE = Memory");
	CU_ASSERT_STRING_EQUAL(s.stmt[1], "INSERT INTO t SELECT 'x;y -- not a comment', 'it\\'s'");
	CU_ASSERT_STRING_EQUAL(s.stmt[2], "SELECT 1");
}

static void test_statements_stop(void)
{
	char sql[] = "SELECT 1; SELECT 2; SELECT 3; SELECT 4; SELECT 5; SELECT 6; SELECT 7; "
		     "SELECT 8; SELECT 9;";
	struct seen s = {0};

	CU_ASSERT_EQUAL(clickhouse_statements(sql, take, &s), 7);
	CU_ASSERT_EQUAL(s.n, 8);
}

static void test_versions_and_settings(void)
{
	struct clickhouse_server old, mid, cur;
	char set[256];

	CU_ASSERT_EQUAL(clickhouse_parse_version("18.16.1\n", &old), 0);
	CU_ASSERT_EQUAL(clickhouse_parse_version("21.11.4.14", &mid), 0);
	CU_ASSERT_EQUAL(clickhouse_parse_version("24.3.2.23", &cur), 0);
	CU_ASSERT_EQUAL(clickhouse_parse_version("Code: 516", &cur), -1);
	CU_ASSERT_EQUAL(clickhouse_parse_version("24.3.2.23", &cur), 0);
	CU_ASSERT_TRUE(clickhouse_has(&old, 18, 16));
	CU_ASSERT_FALSE(clickhouse_has(&old, 19, 1));
	CU_ASSERT_TRUE(clickhouse_has(&cur, 22, 2));

	clickhouse_settings(&old, CLICKHOUSE_DDL, set, sizeof(set));
	CU_ASSERT_STRING_EQUAL(set, "&allow_experimental_low_cardinality_type=1");
	clickhouse_settings(&cur, CLICKHOUSE_DDL, set, sizeof(set));
	CU_ASSERT_STRING_EQUAL(set, "");
	clickhouse_settings(&old, CLICKHOUSE_INSERT, set, sizeof(set));
	CU_ASSERT_STRING_EQUAL(set, "&input_format_skip_unknown_fields=1");
	clickhouse_settings(&mid, CLICKHOUSE_INSERT, set, sizeof(set));
	CU_ASSERT_STRING_EQUAL(set, "&input_format_skip_unknown_fields=1&async_insert=1"
				    "&wait_for_async_insert=1");
}

static void test_unknown_table(void)
{
	CU_ASSERT_TRUE(clickhouse_is_unknown_table(
		"HTTP status 404: Code: 60, e.displayText() = DB::Exception: Table "
		"tracer.schema_version doesn't exist."));
	CU_ASSERT_TRUE(clickhouse_is_unknown_table(
		"HTTP status 404: Code: 60. DB::Exception: Table tracer.schema_version does not exist."));
	CU_ASSERT_TRUE(clickhouse_is_unknown_table("Code: 81, e.displayText() = DB::Exception: "
						   "Database tracer doesn't exist"));
	CU_ASSERT_FALSE(clickhouse_is_unknown_table("Code: 516. DB::Exception: Authentication failed"));
	CU_ASSERT_FALSE(clickhouse_is_unknown_table("Code: 600, something"));
}

/* the jobs row of one summary, parsed (NULL when there is none) */
static cJSON *jobs_row(const char *summary)
{
	struct growbuf rows[CLICKHOUSE_SINK_TABLES];
	cJSON *row = NULL;

	memset(rows, 0, sizeof(rows));
	if (sink_clickhouse_rows(summary, strlen(summary), rows) == 0 &&
	    rows[CLICKHOUSE_SINK_JOBS].p)
		row = cJSON_Parse(rows[CLICKHOUSE_SINK_JOBS].p);
	for (int t = 0; t < CLICKHOUSE_SINK_TABLES; t++)
		growbuf_free(&rows[t]);
	return row;
}

/* version 3: the allocation's own time limit (time_limit_s is the
 * request's) and the ids of the flags raised; null and [] without them */
static void test_v3_columns(void)
{
	cJSON *r = jobs_row("{\"summary_id\":\"s1\",\"end_ns\":1000000000,"
			    "\"identity\":{\"request\":{\"time_limit_s\":7200},"
			    "\"allocation\":{\"time_limit_s\":3600}},"
			    "\"flags\":[{\"id\":\"low_cpu_efficiency\"},{\"id\":\"oom\"},{}]}");
	const cJSON *ids;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "time_limit_s")), 7200);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "alloc_time_limit_s")), 3600);
	ids = cJSON_GetObjectItem(r, "flag_ids");
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(ids), 2);
	CU_ASSERT_STRING_EQUAL(cJSON_GetArrayItem(ids, 0)->valuestring, "low_cpu_efficiency");
	CU_ASSERT_STRING_EQUAL(cJSON_GetArrayItem(ids, 1)->valuestring, "oom");
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "flags")), 3);
	cJSON_Delete(r);
	r = jobs_row("{\"summary_id\":\"s2\",\"end_ns\":1000000000}");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(r, "alloc_time_limit_s")));
	CU_ASSERT_TRUE(cJSON_IsArray(cJSON_GetObjectItem(r, "flag_ids")));
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(r, "flag_ids")), 0);
	cJSON_Delete(r);
}

/* version 7: the summary's node increments, inc_kind 0 without them */
static void test_v7_columns(void)
{
	cJSON *r = jobs_row("{\"summary_id\":\"s1\",\"end_ns\":1000000000,"
			    "\"node_increments\":{\"alloc_cpus\":4,\"cpu_s\":12.5,"
			    "\"unused_mem_bytes\":-1024,\"gpus_idle\":1,\"single\":true}}");

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "inc_kind")), 1);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "inc_single")), 1);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "inc_cpus")), 4);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "inc_cpu_s")), 12.5);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "inc_unused_mem_bytes")), -1024);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "inc_gpus_idle")), 1);
	cJSON_Delete(r);
	r = jobs_row("{\"summary_id\":\"s2\",\"end_ns\":1000000000}");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "inc_kind")), 0);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(r, "inc_cpus"));
	cJSON_Delete(r);
}

/* version 8: the summary's tools by name (a tool's paths summed),
 * tools_kind 1; empty arrays without tools */
static void test_v8_columns(void)
{
	cJSON *r = jobs_row("{\"summary_id\":\"s1\",\"end_ns\":1000000000,\"tools\":["
			    "{\"tool\":\"bwa\",\"path\":\"/a/bwa\",\"cpu_s\":10,\"wall_s\":4,"
			    "\"processes\":3},"
			    "{\"tool\":\"samtools\",\"path\":\"/b/samtools\",\"cpu_s\":2.5,"
			    "\"wall_s\":2,\"processes\":1},"
			    "{\"tool\":\"bwa\",\"path\":\"/c/bwa\",\"cpu_s\":1.5,\"wall_s\":6,"
			    "\"processes\":2},{\"cpu_s\":1}]}");
	const cJSON *n, *c, *w, *p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "tools_kind")), 1);
	n = cJSON_GetObjectItem(r, "tool_names");
	c = cJSON_GetObjectItem(r, "tool_cpu_s");
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(n), 3);
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(c), 3);
	CU_ASSERT_STRING_EQUAL(cJSON_GetArrayItem(n, 0)->valuestring, "bwa");
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetArrayItem(c, 0)), 11.5);
	CU_ASSERT_STRING_EQUAL(cJSON_GetArrayItem(n, 1)->valuestring, "samtools");
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetArrayItem(c, 1)), 2.5);
	CU_ASSERT_STRING_EQUAL(cJSON_GetArrayItem(n, 2)->valuestring, ""); /* as tracer.tools */
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetArrayItem(c, 2)), 1);
	/* a name's longest wall time, its processes summed */
	w = cJSON_GetObjectItem(r, "tool_wall_s");
	p = cJSON_GetObjectItem(r, "tool_processes");
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(w), 3);
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(p), 3);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetArrayItem(w, 0)), 6);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetArrayItem(p, 0)), 5);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetArrayItem(w, 1)), 2);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetArrayItem(p, 1)), 1);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetArrayItem(w, 2)), 0);
	cJSON_Delete(r);
	r = jobs_row("{\"summary_id\":\"s2\",\"end_ns\":1000000000}");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "tools_kind")), 1);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(r, "tool_names")), 0);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(r, "tool_cpu_s")), 0);
	cJSON_Delete(r);
}

/* the sink's question before inserting again: by the job's hash and the
 * summary's, records and bad ids left out; the answer marks the batch */
static void test_seen(void)
{
	const char *t[] = {
		"{\"summary_id\":\"a-1\",\"job\":\"u1\",\"identity\":{\"scheduler\":\"slurm\","
		"\"cluster\":\"c'1\",\"job_id\":\"5001\"}}",
		"{\"summary_id\":\"b-2\",\"job\":\"u2\",\"identity\":{\"scheduler\":\"local\"}}",
		"{\"record\":\"idle_host\",\"summary_id\":\"c-3\"}",
		"{\"summary_id\":\"d'4\",\"job\":\"u4\"}",
	};
	size_t lens[4];
	bool skip[4];
	struct growbuf q = {0};

	for (int i = 0; i < 4; i++)
		lens[i] = strlen(t[i]);
	CU_ASSERT_EQUAL_FATAL(sink_clickhouse_seen_sql("lake", (char *const *)t, lens, 4, &q), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(q.p, "FROM lake.job_use PREWHERE jh IN (cityHash64('slurm', "
					   "'c\\'1', '5001'), cityHash64('local', '', 'u2'))"));
	CU_ASSERT_PTR_NOT_NULL(strstr(q.p, "WHERE sh IN (cityHash64('a-1'), cityHash64('b-2'))"));
	CU_ASSERT_PTR_NOT_NULL(strstr(q.p, "arrayJoin(['a-1', 'b-2'])"));
	CU_ASSERT_PTR_NULL(strstr(q.p, "c-3"));
	CU_ASSERT_PTR_NULL(strstr(q.p, "d\\'4"));
	growbuf_free(&q);
	CU_ASSERT_EQUAL(sink_clickhouse_seen_mark("b-2\n", (char *const *)t, lens, 4, skip), 1);
	CU_ASSERT(!skip[0] && skip[1] && !skip[2] && !skip[3]);
	CU_ASSERT_EQUAL(sink_clickhouse_seen_mark("a-1\nb-22\n", (char *const *)t, lens, 4, skip), 1);
	CU_ASSERT(skip[0] && !skip[1]);
	CU_ASSERT_EQUAL(sink_clickhouse_seen_sql("lake", (char *const *)t + 2, lens + 2, 2, &q), 0);
	growbuf_free(&q);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"a migration file's statements", test_statements},
		{"the callback stops the split", test_statements_stop},
		{"server versions and their settings", test_versions_and_settings},
		{"answers that mean no such table", test_unknown_table},
		{"the jobs row's version 3 columns", test_v3_columns},
		{"the jobs row's version 7 columns", test_v7_columns},
		{"the jobs row's version 8 columns", test_v8_columns},
		{"which summaries are already there", test_seen},
	};

	return UNIT_RUN("clickhouse", tests);
}
