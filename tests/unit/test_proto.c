/* test_proto.c - request parsing (hostile input) and message building. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "unit.h"

static struct proto_request req;
static char err[512];

static int parse(const char *line)
{
	err[0] = '\0';
	return proto_parse_request(line, strlen(line), &req, err, sizeof(err));
}

/* Expect a rejection whose reason contains want. */
static void rejects(const char *line, const char *want)
{
	int r = parse(line);

	if (r == 0 || !strstr(err, want))
		fprintf(stderr, "\n  %.80s: got %d \"%s\", want \"%s\"\n", line, r,
			err, want);
	CU_ASSERT_EQUAL(r, -1);
	CU_ASSERT(strstr(err, want) != NULL);
	CU_ASSERT_EQUAL(req.op, PROTO_OP_INVALID);
}

static void test_valid(void)
{
	CU_ASSERT_EQUAL(parse("{\"op\":\"status\",\"v\":1}\n"), 0);
	CU_ASSERT_EQUAL(req.op, PROTO_OP_STATUS);
	CU_ASSERT_EQUAL(parse("{\"op\":\"status\"}"), 0); /* v is optional */
	CU_ASSERT_EQUAL(parse("  {\"op\":\"status\"}  \r\n"), 0);

	CU_ASSERT_EQUAL(parse("{\"op\":\"register\",\"v\":1,\"identity\":"
			      "{\"scheduler\":\"slurm\",\"job_id\":\"7\","
			      "\"step_id\":\"0\",\"uid\":0,"
			      "\"allocation\":{\"cpus\":2}}}"), 0);
	CU_ASSERT_EQUAL(req.op, PROTO_OP_REGISTER);
	CU_ASSERT_STRING_EQUAL(req.identity.job_id, "7");
	CU_ASSERT_EQUAL(req.identity.uid, 0);
	CU_ASSERT_EQUAL(req.identity.alloc.cpus, 2);
	CU_ASSERT_EQUAL(req.identity.attempt, -1);

	CU_ASSERT_EQUAL(parse("{\"op\":\"task_exit\",\"v\":1,\"job\":\"j-1\","
			      "\"status\":256}"), 0);
	CU_ASSERT_EQUAL(req.op, PROTO_OP_TASK_EXIT);
	CU_ASSERT_STRING_EQUAL(req.job, "j-1");
	CU_ASSERT_EQUAL(req.status, 256);
	CU_ASSERT_EQUAL(parse("{\"op\":\"end\",\"job\":\"j-1\"}"), 0);
	CU_ASSERT_EQUAL(req.op, PROTO_OP_END);
	CU_ASSERT_EQUAL(req.status, -1);
	CU_ASSERT_EQUAL(parse("{\"op\":\"end\",\"job\":\"j\",\"status\":-1,"
			      "\"extra\":{\"ignored\":true}}"), 0);
	/* the pid never comes from the message: a "pid" field is just ignored */
	CU_ASSERT_EQUAL(parse("{\"op\":\"status\",\"pid\":1}"), 0);
}

static void test_invalid(void)
{
	rejects("", "empty message");
	rejects("\n", "empty message");
	rejects("garbage", "invalid JSON at byte 0");
	rejects("{\"op\":", "invalid JSON");
	rejects("{\"op\":\"status\"", "invalid JSON");
	rejects("[1,2]", "must be a JSON object");
	rejects("\"op\"", "must be a JSON object");
	rejects("42", "must be a JSON object");
	rejects("null", "must be a JSON object");
	rejects("{\"op\":\"status\"}{\"op\":\"status\"}", "trailing data");
	rejects("{\"op\":\"status\"} x", "trailing data");
	rejects("{}", "\"op\": missing");
	rejects("{\"op\":7}", "\"op\": expected a string");
	rejects("{\"op\":\"launch_missiles\"}", "unknown op \"launch_missiles\"");
	rejects("{\"op\":\"status\",\"v\":2}", "unsupported protocol version 2");
	rejects("{\"op\":\"status\",\"v\":\"1\"}", "\"v\": expected a number");
	rejects("{\"op\":\"register\"}", "\"identity\": missing");
	rejects("{\"op\":\"register\",\"identity\":\"x\"}",
		"identity: identity: expected an object");
	rejects("{\"op\":\"register\",\"identity\":{\"job_id\":5}}",
		"identity: job_id: expected a string");
	rejects("{\"op\":\"task_exit\"}", "\"job\": missing");
	rejects("{\"op\":\"task_exit\",\"job\":5}", "\"job\": expected a string");
	rejects("{\"op\":\"task_exit\",\"job\":\"\"}", "\"job\": empty or too long");
	rejects("{\"op\":\"end\",\"job\":\"j\",\"status\":\"0\"}",
		"\"status\": expected a number");
	rejects("{\"op\":\"end\",\"job\":\"j\",\"status\":70000}",
		"\"status\": expected a wait status");
	rejects("{\"op\":\"end\",\"job\":\"j\",\"status\":1.5}",
		"\"status\": expected a wait status");
	rejects("{\"op\":\"end\",\"job\":\"j\",\"status\":-2}",
		"\"status\": expected a wait status");
	{
		/* a job uid or join key fills TRACER_JOIN_KEY_LEN with its NUL */
		char line[TRACER_JOIN_KEY_LEN + 64];

		snprintf(line, sizeof(line), "{\"op\":\"end\",\"job\":\"%0*d\"}",
			 TRACER_JOIN_KEY_LEN, 0);
		rejects(line, "\"job\": empty or too long");
		snprintf(line, sizeof(line), "{\"op\":\"end\",\"job\":\"%0*d\"}",
			 TRACER_JOIN_KEY_LEN - 1, 0);
		CU_ASSERT_EQUAL(proto_parse_request(line, strlen(line), &req, err,
						    sizeof(err)), 0);
	}
}

static void test_bytes(void)
{
	static const char nul[] = "{\"op\":\"status\"}\0xx";
	char *big;
	size_t n;

	CU_ASSERT_EQUAL(proto_parse_request(nul, sizeof(nul) - 1, &req, err,
					    sizeof(err)), -1);
	CU_ASSERT(strstr(err, "NUL byte") != NULL);
	/* len need not be NUL-terminated: only len bytes are read */
	CU_ASSERT_EQUAL(proto_parse_request("{\"op\":\"status\"}GARBAGE", 15,
					    &req, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(proto_parse_request(NULL, 0, &req, err, sizeof(err)), -1);

	/* exactly PROTO_MAX_MSG is accepted, one more byte is not */
	n = PROTO_MAX_MSG + 1;
	big = malloc(n + 1);
	CU_ASSERT_FATAL(big != NULL);
	memset(big, ' ', n);
	memcpy(big, "{\"op\":\"status\"}", 15);
	big[n] = '\0';
	CU_ASSERT_EQUAL(proto_parse_request(big, n - 1, &req, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(proto_parse_request(big, n, &req, err, sizeof(err)), -1);
	CU_ASSERT(strstr(err, "too long (65537 bytes, at most 65536)") != NULL);
	/* deep nesting is refused by the parser, not a stack overflow */
	memset(big, '[', n);
	CU_ASSERT_EQUAL(proto_parse_request(big, PROTO_MAX_MSG, &req, err,
					    sizeof(err)), -1);
	/* invalid UTF-8 and control bytes inside strings: parsed or refused, no crash */
	CU_ASSERT_EQUAL(parse("{\"op\":\"end\",\"job\":\"\xff\xfe\x01\"}"), 0);
	free(big);
	/* a small err buffer is cut, never overflowed */
	CU_ASSERT_EQUAL(proto_parse_request("{\"op\":\"launch\"}", 16, &req, err,
					    8), -1);
	CU_ASSERT_EQUAL(strlen(err), 7);
	CU_ASSERT_EQUAL(proto_parse_request("x", 1, &req, NULL, 0), -1);
}

static void test_builders(void)
{
	struct tracer_identity id;
	cJSON *o;
	char *line;

	identity_init(&id);
	strcpy(id.scheduler, "local");
	strcpy(id.task_name, "demo\nline");
	o = proto_register_request(&id, false);
	CU_ASSERT_FATAL(o != NULL);
	line = proto_render_line(o);
	CU_ASSERT_FATAL(line != NULL);
	{
		static const char head[] = "{\"op\":\"register\",\"v\":1,\"identity\":{";

		CU_ASSERT(strncmp(line, head, strlen(head)) == 0);
	}
	/* one line: the only newline is the final one */
	CU_ASSERT_PTR_EQUAL(strchr(line, '\n'), line + strlen(line) - 1);
	/* what we build, we parse */
	CU_ASSERT_EQUAL(proto_parse_request(line, strlen(line), &req, err,
					    sizeof(err)), 0);
	CU_ASSERT_EQUAL(req.op, PROTO_OP_REGISTER);
	CU_ASSERT_STRING_EQUAL(req.identity.task_name, "demo\nline");
	free(line);
	cJSON_Delete(o);

	o = proto_job_request("task_exit", "job-9", 9);
	line = proto_render_line(o);
	CU_ASSERT_STRING_EQUAL(line,
			       "{\"op\":\"task_exit\",\"v\":1,\"job\":\"job-9\",\"status\":9}\n");
	CU_ASSERT_EQUAL(proto_parse_request(line, strlen(line), &req, err,
					    sizeof(err)), 0);
	CU_ASSERT_EQUAL(req.status, 9);
	free(line);
	cJSON_Delete(o);
	o = proto_job_request("end", "job-9", -5);
	line = proto_render_line(o);
	CU_ASSERT(strstr(line, "\"status\":-1") != NULL);
	free(line);
	cJSON_Delete(o);
	CU_ASSERT_PTR_NULL(proto_job_request("end", NULL, 0));
	CU_ASSERT_PTR_NULL(proto_render_line(NULL));

	line = proto_error_reply("bad \"thing\"\n\xff");
	CU_ASSERT_FATAL(line != NULL);
	CU_ASSERT_STRING_EQUAL(line,
			       "{\"ok\":false,\"error\":\"bad \\\"thing\\\"\\n\\\\xff\"}\n");
	o = cJSON_Parse(line);
	CU_ASSERT(o != NULL);
	cJSON_Delete(o);
	free(line);
	line = proto_error_reply(NULL);
	CU_ASSERT_STRING_EQUAL(line, "{\"ok\":false,\"error\":\"error\"}\n");
	free(line);
}

/* The summaries query: every filter key round-trips, a too long list
 * or a wrong type is refused. */
static void test_query(void)
{
	struct proto_query q;
	cJSON *o;
	char *line;

	memset(&q, 0, sizeof(q));
	q.limit = 5;
	q.since_ns = INT64_MIN;
	q.until_ns = 1700000000123456789LL;
	strcpy(q.users, "alice");
	strcpy(q.job_ids, "1234,1235.0,1236_7");
	strcpy(q.accounts, "proj1");
	strcpy(q.partitions, "debug,long");
	strcpy(q.nodes, "n1");
	o = proto_query_request(&q);
	CU_ASSERT_FATAL(o != NULL);
	line = proto_render_line(o);
	cJSON_Delete(o);
	CU_ASSERT_FATAL(line != NULL);
	CU_ASSERT_EQUAL(proto_parse_request(line, strlen(line), &req, err, sizeof(err)), 0);
	free(line);
	CU_ASSERT_EQUAL(req.op, PROTO_OP_SUMMARIES);
	CU_ASSERT_EQUAL(req.query.limit, 5);
	CU_ASSERT_STRING_EQUAL(req.query.users, "alice");
	CU_ASSERT_STRING_EQUAL(req.query.job_ids, "1234,1235.0,1236_7");
	CU_ASSERT_STRING_EQUAL(req.query.accounts, "proj1");
	CU_ASSERT_STRING_EQUAL(req.query.partitions, "debug,long");
	CU_ASSERT_STRING_EQUAL(req.query.nodes, "n1");
	CU_ASSERT_STRING_EQUAL(req.query.names, "");
	CU_ASSERT(req.query.since_ns == INT64_MIN);
	CU_ASSERT(req.query.until_ns == 1700000000123456789LL);

	rejects("{\"op\":\"summaries\",\"filter\":{\"job_ids\":7}}",
		"\"job_ids\": expected a comma-separated string");
	rejects("{\"op\":\"summaries\",\"filter\":{\"nodes\":[\"n1\"]}}",
		"\"nodes\": expected a comma-separated string");
	{
		char big[PROTO_QUERY_LIST_MAX + 80];
		int n = snprintf(big, sizeof(big), "{\"op\":\"summaries\",\"filter\":{\"accounts\":\"");

		memset(big + n, 'a', PROTO_QUERY_LIST_MAX);
		strcpy(big + n + PROTO_QUERY_LIST_MAX, "\"}}");
		rejects(big, "\"accounts\": longer than");
	}
}

/* A job listing's request: the job window (jobs, job_states) beside the
 * limit in summaries a tracerd that does not know it answers by; a
 * request without it (an older client) parses with none. */
static void test_query_jobs(void)
{
	struct proto_query q;
	cJSON *o;
	char *line;

	memset(&q, 0, sizeof(q));
	q.limit = 1000;
	q.jobs = 20;
	q.since_ns = INT64_MIN;
	q.until_ns = INT64_MAX;
	strcpy(q.job_states, "F,OOM");
	o = proto_query_request(&q);
	CU_ASSERT_FATAL(o != NULL);
	CU_ASSERT_EQUAL(cJSON_GetObjectItem(o, "limit")->valuedouble, 1000);
	line = proto_render_line(o);
	cJSON_Delete(o);
	CU_ASSERT_FATAL(line != NULL);
	CU_ASSERT_EQUAL(proto_parse_request(line, strlen(line), &req, err, sizeof(err)), 0);
	free(line);
	CU_ASSERT_EQUAL(req.query.limit, 1000);
	CU_ASSERT_EQUAL(req.query.jobs, 20);
	CU_ASSERT_STRING_EQUAL(req.query.job_states, "F,OOM");
	CU_ASSERT_STRING_EQUAL(req.query.states, "");

	q.jobs = 0; /* no window: the fields are not sent */
	q.job_states[0] = '\0';
	o = proto_query_request(&q);
	CU_ASSERT_FATAL(o != NULL);
	CU_ASSERT(cJSON_GetObjectItem(o, "jobs") == NULL);
	cJSON_Delete(o);
	line = strdup("{\"op\":\"summaries\",\"v\":1,\"limit\":64}");
	CU_ASSERT_EQUAL(proto_parse_request(line, strlen(line), &req, err, sizeof(err)), 0);
	free(line);
	CU_ASSERT_EQUAL(req.query.limit, 64);
	CU_ASSERT_EQUAL(req.query.jobs, 0);
	rejects("{\"op\":\"summaries\",\"jobs\":-1}", "\"jobs\": expected a count of jobs");
	rejects("{\"op\":\"summaries\",\"jobs\":\"20\"}", "\"jobs\": expected a count of jobs");
	rejects("{\"op\":\"summaries\",\"jobs\":2.5}", "\"jobs\": expected a count of jobs");
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"valid requests", test_valid},
		{"invalid requests", test_invalid},
		{"bytes and bounds", test_bytes},
		{"builders", test_builders},
		{"summaries query", test_query},
		{"job listing's window", test_query_jobs},
	};

	return UNIT_RUN("proto", tests);
}
