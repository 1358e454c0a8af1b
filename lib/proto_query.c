/*
 * proto_query.c - the archive queries of the tracerd protocol (proto.h):
 * which finished jobs a user asks for, and a sweep of their waste.  Any local user sends it, so every
 * field is checked and a rejection says why.
 */
#include "proto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "json.h"

/* A time bound: a decimal string (exact) or a number; null: none. */
static int parse_ns(const cJSON *f, const char *key, int64_t *out, char *err, size_t errlen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, key);
	char *end;
	long long n;

	if (!v || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsNumber(v)) {
		if (!(v->valuedouble >= -9.2e18 && v->valuedouble <= 9.2e18))
			return errmsg_fail(err, errlen, "\"%s\": out of range", key);
		*out = (int64_t)v->valuedouble;
		return 0;
	}
	if (!cJSON_IsString(v) || !v->valuestring)
		return errmsg_fail(err, errlen, "\"%s\": expected nanoseconds as a string", key);
	errno = 0;
	n = strtoll(v->valuestring, &end, 10);
	if (errno || end == v->valuestring || *end)
		return errmsg_fail(err, errlen, "\"%s\": expected nanoseconds as a string", key);
	*out = (int64_t)n;
	return 0;
}

static int parse_list(const cJSON *f, const char *key, char *out, char *err, size_t errlen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, key);

	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v) || !v->valuestring)
		return errmsg_fail(err, errlen, "\"%s\": expected a comma-separated string", key);
	if (strlen(v->valuestring) >= PROTO_QUERY_LIST_MAX)
		return errmsg_fail(err, errlen, "\"%s\": longer than %d bytes", key,
				PROTO_QUERY_LIST_MAX - 1);
	snprintf(out, PROTO_QUERY_LIST_MAX, "%s", v->valuestring);
	return 0;
}

int proto_parse_query(const cJSON *o, struct proto_query *q, char *err, size_t errlen)
{
	const cJSON *limit = cJSON_GetObjectItemCaseSensitive(o, "limit");
	const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(o, "jobs");
	const cJSON *all = cJSON_GetObjectItemCaseSensitive(o, "all_files");
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "filter");

	memset(q, 0, sizeof(*q));
	q->since_ns = INT64_MIN;
	q->until_ns = INT64_MAX;
	if (limit && !cJSON_IsNull(limit)) {
		if (!cJSON_IsNumber(limit) || !(limit->valuedouble >= 0 && limit->valuedouble <= 1e9) ||
		    (double)(long)limit->valuedouble != limit->valuedouble)
			return errmsg_fail(err, errlen, "\"limit\": expected a count (0 or more)");
		q->limit = (long)limit->valuedouble;
	}
	if (jobs && !cJSON_IsNull(jobs)) {
		if (!cJSON_IsNumber(jobs) || !(jobs->valuedouble >= 0 && jobs->valuedouble <= 1e9) ||
		    (double)(long)jobs->valuedouble != jobs->valuedouble)
			return errmsg_fail(err, errlen, "\"jobs\": expected a count of jobs (0 or more)");
		q->jobs = (long)jobs->valuedouble;
	}
	if (all && !cJSON_IsBool(all) && !cJSON_IsNull(all))
		return errmsg_fail(err, errlen, "\"all_files\": expected true or false");
	q->all_files = cJSON_IsTrue(all);
	if (!f || cJSON_IsNull(f))
		return 0;
	if (!cJSON_IsObject(f))
		return errmsg_fail(err, errlen, "\"filter\": expected an object");
	if (parse_list(f, "users", q->users, err, errlen) < 0 ||
	    parse_list(f, "states", q->states, err, errlen) < 0 ||
	    parse_list(f, "names", q->names, err, errlen) < 0 ||
	    parse_list(f, "runs", q->runs, err, errlen) < 0 ||
	    parse_list(f, "job_ids", q->job_ids, err, errlen) < 0 ||
	    parse_list(f, "accounts", q->accounts, err, errlen) < 0 ||
	    parse_list(f, "partitions", q->partitions, err, errlen) < 0 ||
	    parse_list(f, "nodes", q->nodes, err, errlen) < 0 ||
	    parse_list(f, "pipeline", q->pipeline, err, errlen) < 0 ||
	    parse_list(f, "job_states", q->job_states, err, errlen) < 0 ||
	    parse_ns(f, "since_ns", &q->since_ns, err, errlen) < 0 ||
	    parse_ns(f, "until_ns", &q->until_ns, err, errlen) < 0)
		return -1;
	return 0;
}

static bool add_list(cJSON *f, const char *key, const char *v)
{
	return !v[0] || json_add_str(f, key, v);
}

cJSON *proto_query_request(const struct proto_query *q)
{
	cJSON *o = cJSON_CreateObject(), *f;
	char ns[32];
	bool ok;

	if (!o)
		return NULL;
	ok = cJSON_AddStringToObject(o, "op", "summaries") &&
	     cJSON_AddNumberToObject(o, "v", PROTO_VERSION) &&
	     cJSON_AddNumberToObject(o, "limit", (double)q->limit) &&
	     cJSON_AddBoolToObject(o, "all_files", q->all_files) &&
	     (f = cJSON_AddObjectToObject(o, "filter")) && add_list(f, "users", q->users) &&
	     add_list(f, "states", q->states) && add_list(f, "names", q->names) &&
	     add_list(f, "runs", q->runs) && add_list(f, "job_ids", q->job_ids) &&
	     add_list(f, "accounts", q->accounts) && add_list(f, "partitions", q->partitions) &&
	     add_list(f, "nodes", q->nodes) && add_list(f, "job_states", q->job_states);
	if (ok && q->jobs > 0)
		ok = cJSON_AddNumberToObject(o, "jobs", (double)q->jobs) != NULL;
	if (ok && q->since_ns != INT64_MIN) {
		snprintf(ns, sizeof(ns), "%lld", (long long)q->since_ns);
		ok = cJSON_AddStringToObject(f, "since_ns", ns) != NULL;
	}
	if (ok && q->until_ns != INT64_MAX) {
		snprintf(ns, sizeof(ns), "%lld", (long long)q->until_ns);
		ok = cJSON_AddStringToObject(f, "until_ns", ns) != NULL;
	}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int proto_parse_sweep(const cJSON *o, struct proto_sweep *sw, char *err, size_t errlen)
{
	const cJSON *by = cJSON_GetObjectItemCaseSensitive(o, "by");
	const cJSON *since = cJSON_GetObjectItemCaseSensitive(o, "since_s");
	const cJSON *limit = cJSON_GetObjectItemCaseSensitive(o, "limit");

	if (!cJSON_IsString(by) || !by->valuestring[0] || strlen(by->valuestring) >= sizeof(sw->by))
		return errmsg_fail(err, errlen, "\"by\": expected a group name");
	snprintf(sw->by, sizeof(sw->by), "%s", by->valuestring);
	/* ten years at most: the window is a number ClickHouse is given */
	if (!cJSON_IsNumber(since) || !(since->valuedouble > 0 && since->valuedouble <= 3.2e8))
		return errmsg_fail(err, errlen, "\"since_s\": expected seconds (1 to 10 years)");
	sw->since_s = since->valuedouble;
	if (!cJSON_IsNumber(limit) ||
	    !(limit->valuedouble >= 1 && limit->valuedouble <= TRACER_SWEEP_LIMIT_MAX) ||
	    (double)(int)limit->valuedouble != limit->valuedouble)
		return errmsg_fail(err, errlen, "\"limit\": expected a whole number, 1 to %d",
				TRACER_SWEEP_LIMIT_MAX);
	sw->limit = (int)limit->valuedouble;
	return 0;
}

cJSON *proto_sweep_request(const struct proto_sweep *sw)
{
	cJSON *o = cJSON_CreateObject();

	if (!o || !cJSON_AddStringToObject(o, "op", "sweep") ||
	    !cJSON_AddNumberToObject(o, "v", PROTO_VERSION) ||
	    !cJSON_AddStringToObject(o, "by", sw->by) ||
	    !cJSON_AddNumberToObject(o, "since_s", sw->since_s) ||
	    !cJSON_AddNumberToObject(o, "limit", sw->limit)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *proto_tune_request(const struct proto_query *q)
{
	cJSON *o = proto_query_request(q), *f = cJSON_GetObjectItem(o, "filter");

	if (!o || !cJSON_ReplaceItemInObject(o, "op", cJSON_CreateString("tune_runs")) ||
	    !add_list(f, "pipeline", q->pipeline)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
