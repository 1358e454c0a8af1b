/*
 * test_datalake_sql.c - the SQL a job_filter becomes (datalake_sql.c):
 * each field its condition, values quoted with quotes and backslashes
 * escaped (a name a user chose cannot end the literal), control
 * characters refused, sacct's state abbreviations and the job id forms.
 * The queries themselves run against a real ClickHouse in tests/reader.
 */
#include "unit.h"

#include "datalake_sql.h"

static char sql[8192];

static const char *where(const struct job_filter *f)
{
	char err[256];

	if (datalake_sql_where_str(f, sql, sizeof(sql), err, sizeof(err)) != 0)
		return NULL;
	return sql;
}

static void test_all(void)
{
	struct job_filter f;

	job_filter_init(&f);
	CU_ASSERT_STRING_EQUAL(where(&f), "1");
	f.owner_uid = 1234;
	CU_ASSERT_STRING_EQUAL(where(&f), "1 AND uid = 1234");
}

static void test_fields(void)
{
	struct job_filter f;

	job_filter_init(&f);
	f.users = "alice,1001";
	f.states = "CD,failed";
	f.names = "align";
	f.runs = "r1";
	f.accounts = "physics";
	f.partitions = "gpu";
	f.nodes = "n1,n2";
	f.since_ns = 1000;
	f.until_ns = 2000;
	CU_ASSERT_STRING_EQUAL(where(&f),
			       "1 AND (user = 'alice' OR uid = 1001)"
			       " AND (upper(state) = upper('COMPLETED') OR upper(state) = upper('failed'))"
			       " AND (task_name = 'align')"
			       " AND (run_id = 'r1' OR run_name = 'r1')"
			       " AND (account = 'physics') AND (partition = 'gpu')"
			       " AND (host = 'n1' OR host = 'n2')"
			       " AND end >= toDateTime(0) AND end_ns >= 1000 AND start_ns <= 2000");
}

static void test_job_ids(void)
{
	struct job_filter f;

	job_filter_init(&f);
	f.job_ids = "12,12.batch,40_3";
	CU_ASSERT_STRING_EQUAL(where(&f),
			       "1 AND ((job_id = '12' OR array_job_id = '12')"
			       " OR (job_id = '12.batch' OR array_job_id = '12.batch'"
			       " OR (job_id = '12' AND step_id = 'batch'))"
			       " OR (job_id = '40_3' OR array_job_id = '40_3'"
			       " OR (array_job_id = '40' AND array_task_id = 3)))");
}

static void test_injection(void)
{
	struct job_filter f;
	char err[256];

	job_filter_init(&f);
	f.owner_uid = 7;
	f.names = "x' OR 1=1 --";
	CU_ASSERT_STRING_EQUAL(where(&f), "1 AND uid = 7 AND (task_name = 'x\\' OR 1=1 --')");
	/* a trailing backslash cannot escape the closing quote */
	f.names = "a\\";
	CU_ASSERT_STRING_EQUAL(where(&f), "1 AND uid = 7 AND (task_name = 'a\\\\')");
	f.names = "a\\' OR uid != 7 --";
	CU_ASSERT_STRING_EQUAL(where(&f),
			       "1 AND uid = 7 AND (task_name = 'a\\\\\\' OR uid != 7 --')");
	/* a user name of digits is a uid; anything else stays a string */
	f.names = NULL;
	f.users = "1 OR 1=1";
	CU_ASSERT_STRING_EQUAL(where(&f), "1 AND uid = 7 AND (user = '1 OR 1=1')");
	f.users = "a\nb";
	CU_ASSERT_EQUAL(datalake_sql_where_str(&f, sql, sizeof(sql), err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "control character"));
	f.users = NULL;
	f.job_ids = "1.2' OR '1'='1";
	CU_ASSERT_STRING_EQUAL(where(&f), "1 AND uid = 7 AND ((job_id = '1.2\\' OR \\'1\\'=\\'1'"
					  " OR array_job_id = '1.2\\' OR \\'1\\'=\\'1'"
					  " OR (job_id = '1' AND step_id = '2\\' OR \\'1\\'=\\'1')))");
	f.job_ids = "9_1 OR 1=1";
	CU_ASSERT_STRING_EQUAL(where(&f), "1 AND uid = 7 AND ((job_id = '9_1 OR 1=1'"
					  " OR array_job_id = '9_1 OR 1=1'))");
}

static void test_empty_list(void)
{
	struct job_filter f;

	job_filter_init(&f);
	f.names = ",";
	CU_ASSERT_STRING_EQUAL(where(&f), "1 AND (0)");
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"no filter: everything; the owner: a uid", test_all},
		{"every field its condition", test_fields},
		{"job ids: JOB, JOB.STEP, ARRAY_TASK", test_job_ids},
		{"quotes and backslashes cannot end a literal", test_injection},
		{"an empty list matches nothing", test_empty_list},
	};

	return UNIT_RUN("datalake_sql", tests);
}
