/*
 * test_daemon_slurmjob.c - facts about Slurm jobs (daemon/slurmjob.c): the
 * answers of squeue as it prints them, what they fill in an identity, and
 * the state word of a step stopped at its job's deadline.  Pure logic:
 * needs no root, lives here because it links tracerd's objects.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "job_state.h"
#include "slurmjob.h"
#include "../unit/unit.h"

/* A line of squeue with the given limit, end, array fields and tail. */
static int parse(const char *limit, const char *end, const char *tail,
		 struct slurmjob_facts *f)
{
	char line[512];

	snprintf(line, sizeof(line), "%s|%s|acct1|normal|debug|1795832455|1795832457|%s\n",
		 limit, end, tail);
	return slurmjob_parse(line, f);
}

static void test_limits(void)
{
	struct slurmjob_facts f;
	const char *t = "7|N/A|2|2|cpu=2,mem=400M,node=2,billing=2|tn[1-2]";

	CU_ASSERT_EQUAL(parse("1:00:00", "1763915000", t, &f), 0);
	CU_ASSERT_EQUAL(f.limit_s, 3600);
	CU_ASSERT_EQUAL(f.end_s, 1763915000);
	CU_ASSERT_EQUAL(parse("1:00", "1763915000", t, &f), 0);
	CU_ASSERT_EQUAL(f.limit_s, 60);
	CU_ASSERT_EQUAL(parse("2-03:04:05", "N/A", t, &f), 0);
	CU_ASSERT_EQUAL(f.limit_s, 2 * 86400 + 3 * 3600 + 4 * 60 + 5);
	CU_ASSERT_EQUAL(f.end_s, 0);
	CU_ASSERT_EQUAL(parse("UNLIMITED", "Unknown", t, &f), 0);
	CU_ASSERT_EQUAL(f.limit_s, 0);
	/* no limit: the end a year ahead is no deadline */
	CU_ASSERT_EQUAL(parse("UNLIMITED", "1795453307", t, &f), 0);
	CU_ASSERT_EQUAL(f.end_s, 0);
	CU_ASSERT_EQUAL(parse("10", "5", t, &f), 0);
	CU_ASSERT_EQUAL(f.limit_s, 600); /* minutes */
	CU_ASSERT_EQUAL(parse("1:2:3:4", "5", t, &f), -1);
	CU_ASSERT_EQUAL(slurmjob_parse("", &f), -1);
	CU_ASSERT_EQUAL(slurmjob_parse("slurm_load_jobs error: Invalid job id\n", &f), -1);
	CU_ASSERT_EQUAL(slurmjob_parse("1:00|5\n", &f), -1); /* too few fields */
	CU_ASSERT_EQUAL(slurmjob_parse("a|b\nc|d\n", &f), -1);
}

static void test_facts(void)
{
	struct slurmjob_facts f;

	/* squeue pads each field to its width: trimmed */
	CU_ASSERT_EQUAL(slurmjob_parse("10:00 |1795833057 |tracertest |normal |debug |"
				       "1795832455 |1795832457 |2 |1 |3 |2 |"
				       "cpu=3,mem=1G,node=2,billing=3,gres/gpu=2 |tn[1-2] \n",
				       &f), 0);
	CU_ASSERT_STRING_EQUAL(f.account, "tracertest");
	CU_ASSERT_STRING_EQUAL(f.qos, "normal");
	CU_ASSERT_STRING_EQUAL(f.partition, "debug");
	CU_ASSERT_EQUAL(f.submit_s, 1795832455);
	CU_ASSERT_EQUAL(f.start_s, 1795832457);
	CU_ASSERT_STRING_EQUAL(f.array_job_id, "2");
	CU_ASSERT_EQUAL(f.array_task, 1);
	CU_ASSERT_EQUAL(f.cpus, 3);
	CU_ASSERT_EQUAL(f.nodes, 2);
	CU_ASSERT_EQUAL(f.mem_bytes, 1ull << 30);
	CU_ASSERT_EQUAL(f.gpus, 2);
	CU_ASSERT_STRING_EQUAL(f.node_list, "tn[1-2]");
	/* not an array task; pending: no start, no node list */
	CU_ASSERT_EQUAL(slurmjob_parse("UNLIMITED|NONE|root|normal|debug|1795832455|N/A|5|N/A|"
				       "1|1|cpu=1,mem=100M,node=1,billing=1|\n", &f), 0);
	CU_ASSERT_EQUAL(f.array_task, -1);
	CU_ASSERT_STRING_EQUAL(f.array_job_id, "");
	CU_ASSERT_EQUAL(f.start_s, 0);
	CU_ASSERT_EQUAL(f.mem_bytes, 100ull << 20);
	CU_ASSERT_STRING_EQUAL(f.node_list, "");
	/* cut off before its newline: everything but the node list */
	CU_ASSERT_EQUAL(slurmjob_parse("1:00|1|a|normal|debug|1|2|9|N/A|4|1|cpu=4|tn[1-", &f), 0);
	CU_ASSERT_EQUAL(f.cpus, 4);
	CU_ASSERT_STRING_EQUAL(f.node_list, "");
	/* task 0 of an array is an array task */
	CU_ASSERT_EQUAL(slurmjob_parse("1:00|1|a|normal|debug|1|2|9|0|1|1|cpu=1|tn1\n", &f), 0);
	CU_ASSERT_EQUAL(f.array_task, 0);
	CU_ASSERT_STRING_EQUAL(f.array_job_id, "9");
}

/* The id of an array answers for every task: the job's own line. */
static void test_pick(void)
{
	struct slurmjob_facts f;
	const char *reply =
		"4 |10:00|1|root|normal|debug|1|2|3|1|1|1|cpu=1|tn2\n"
		"3 |10:00|1|root|normal|debug|1|2|3|2|1|1|cpu=1|tn1\n"
		"33|10:00|1|root|normal|debug|1|2|3|0|1|1|cpu=1|tn1\n";

	CU_ASSERT_EQUAL(slurmjob_pick(reply, "3", &f), 0);
	CU_ASSERT_EQUAL(f.array_task, 2);
	CU_ASSERT_EQUAL(slurmjob_pick(reply, "33", &f), 0);
	CU_ASSERT_EQUAL(f.array_task, 0);
	CU_ASSERT_EQUAL(slurmjob_pick(reply, "4", &f), 0);
	CU_ASSERT_STRING_EQUAL(f.node_list, "tn2");
	CU_ASSERT_EQUAL(slurmjob_pick(reply, "5", &f), -1);
	CU_ASSERT_EQUAL(slurmjob_pick("", "5", &f), -1);
}

static void test_nth_node(void)
{
	char n[16];

	const char *l = "a[007-009,12]-ib,b5,c[1-2]";

	CU_ASSERT_EQUAL(slurmjob_nth_node("tn[1-2]", 0, n, sizeof(n)), 0);
	CU_ASSERT_STRING_EQUAL(n, "tn1");
	CU_ASSERT_EQUAL(slurmjob_nth_node("tn[1-2]", 1, n, sizeof(n)), 0);
	CU_ASSERT_STRING_EQUAL(n, "tn2");
	CU_ASSERT_EQUAL(slurmjob_nth_node("tn[1-2]", 2, n, sizeof(n)), -1);
	CU_ASSERT_EQUAL(slurmjob_nth_node(l, 0, n, sizeof(n)), 0);
	CU_ASSERT_STRING_EQUAL(n, "a007-ib");
	CU_ASSERT_EQUAL(slurmjob_nth_node(l, 2, n, sizeof(n)), 0);
	CU_ASSERT_STRING_EQUAL(n, "a009-ib");
	CU_ASSERT_EQUAL(slurmjob_nth_node(l, 3, n, sizeof(n)), 0);
	CU_ASSERT_STRING_EQUAL(n, "a12-ib"); /* as written */
	CU_ASSERT_EQUAL(slurmjob_nth_node(l, 4, n, sizeof(n)), 0);
	CU_ASSERT_STRING_EQUAL(n, "b5");
	CU_ASSERT_EQUAL(slurmjob_nth_node(l, 6, n, sizeof(n)), 0);
	CU_ASSERT_STRING_EQUAL(n, "c2");
	CU_ASSERT_EQUAL(slurmjob_nth_node(l, 7, n, sizeof(n)), -1);
	CU_ASSERT_EQUAL(slurmjob_nth_node("vm", 0, n, sizeof(n)), 0);
	CU_ASSERT_STRING_EQUAL(n, "vm");
	CU_ASSERT_EQUAL(slurmjob_nth_node("", 0, n, sizeof(n)), -1);
	CU_ASSERT_EQUAL(slurmjob_nth_node("n[", 0, n, sizeof(n)), -1);
	CU_ASSERT_EQUAL(slurmjob_nth_node("n[2-1]", 0, n, sizeof(n)), -1);
	CU_ASSERT_EQUAL(slurmjob_nth_node("r[1-2]n[1-4]", 0, n, sizeof(n)), -1);
	CU_ASSERT_EQUAL(slurmjob_nth_node("averyveryverylongname", 0, n, sizeof(n)), -1);
	CU_ASSERT_EQUAL(slurmjob_nth_node("n[1-1000000000]", 999999999, n, sizeof(n)), 0);
	CU_ASSERT_STRING_EQUAL(n, "n1000000000");
}

/* The identity's JSON form carries the facts and queue_wait_s, and reads
 * them back. */
static void test_identity_json(void)
{
	struct tracer_identity id, back;
	cJSON *o, *r;
	char err[128];

	identity_init(&id);
	snprintf(id.scheduler, sizeof(id.scheduler), "slurm");
	snprintf(id.account, sizeof(id.account), "tracertest");
	snprintf(id.node_name, sizeof(id.node_name), "tn2");
	id.submit_ns = 1795832455ull * 1000000000ull;
	id.job_start_ns = 1795832457ull * 1000000000ull;
	id.req.cpus = 2;
	id.req.mem_bytes = 400ull << 20;
	id.alloc.nodes = 2;
	o = identity_to_json(&id);
	CU_ASSERT_FATAL(o != NULL);
	CU_ASSERT_EQUAL(cJSON_GetObjectItem(o, "queue_wait_s")->valuedouble, 2.0);
	r = cJSON_GetObjectItem(o, "request");
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(cJSON_GetObjectItem(r, "cpus")->valuedouble, 2.0);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(r, "gpus"));
	CU_ASSERT_EQUAL(identity_from_json(o, &back, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(back.account, "tracertest");
	CU_ASSERT_STRING_EQUAL(back.node_name, "tn2");
	CU_ASSERT_EQUAL(back.submit_ns, id.submit_ns);
	CU_ASSERT_EQUAL(back.job_start_ns, id.job_start_ns);
	CU_ASSERT_EQUAL(back.req.mem_bytes, id.req.mem_bytes);
	CU_ASSERT_EQUAL(back.alloc.nodes, 2);
	cJSON_Delete(o);
	identity_init(&id);
	o = identity_to_json(&id);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(o, "request")); /* nothing known */
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(o, "queue_wait_s"));
	cJSON_Delete(o);
}

static void test_deadline(void)
{
	struct job *j = job_new("t", NULL, 4);

	CU_ASSERT_FATAL(j != NULL);
	j->id.alloc.time_limit_s = 60;
	j->id.alloc.deadline_s = 1000;
	/* the step started 5 s after its job: 57 s of its own wall */
	j->end_ns = 1002ull * 1000000000ull;
	CU_ASSERT_STRING_EQUAL(job_state(j, SIGTERM, 57000000000ull), "TIMEOUT");
	CU_ASSERT_STRING_EQUAL(job_state(j, 0, 57000000000ull), "COMPLETED");
	CU_ASSERT_STRING_EQUAL(job_state(j, SIGSEGV, 57000000000ull), "FAILED");
	/* cancelled well before the deadline */
	j->end_ns = 900ull * 1000000000ull;
	CU_ASSERT_STRING_EQUAL(job_state(j, SIGTERM, 5000000000ull), "CANCELLED");
	job_free(j);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"squeue answers: limits", test_limits},
		{"squeue answers: the other facts", test_facts},
		{"identity JSON with the facts", test_identity_json},
		{"the n-th node of a hostlist", test_nth_node},
		{"an array's reply: the job's own line", test_pick},
		{"a step stopped at its job's deadline", test_deadline},
	};

	return UNIT_RUN("slurmjob", tests);
}
