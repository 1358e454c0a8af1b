/*
 * proto.c - parsing and building the one-line JSON messages of the
 * registration protocol (see proto.h).  Requests come from any local
 * process, so the parser checks everything and explains what it rejects:
 * the reason goes back to the sender in the error reply.
 */
#include "proto.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "json.h"

static enum proto_op op_from_name(const char *s)
{
	if (strcmp(s, "register") == 0)
		return PROTO_OP_REGISTER;
	if (strcmp(s, "task_exit") == 0)
		return PROTO_OP_TASK_EXIT;
	if (strcmp(s, "end") == 0)
		return PROTO_OP_END;
	if (strcmp(s, "status") == 0)
		return PROTO_OP_STATUS;
	if (strcmp(s, "summaries") == 0)
		return PROTO_OP_SUMMARIES;
	if (strcmp(s, "summary") == 0)
		return PROTO_OP_SUMMARY;
	if (strcmp(s, "sweep") == 0)
		return PROTO_OP_SWEEP;
	if (strcmp(s, "tune_runs") == 0)
		return PROTO_OP_TUNE_RUNS;
	return PROTO_OP_INVALID;
}

static int check_version(const cJSON *o, char *err, size_t errlen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "v");

	if (!v)
		return 0;
	if (!cJSON_IsNumber(v))
		return errmsg_fail(err, errlen, "\"v\": expected a number");
	if (v->valuedouble != PROTO_VERSION)
		return errmsg_fail(err, errlen,
				"unsupported protocol version %g (this side speaks %d)",
				v->valuedouble, PROTO_VERSION);
	return 0;
}

/* "job" (required) and "status" (optional, a wait status or -1). */
static int parse_job_fields(const cJSON *o, struct proto_request *req,
			    char *err, size_t errlen)
{
	const cJSON *job = cJSON_GetObjectItemCaseSensitive(o, "job");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status");
	size_t n;

	if (!job)
		return errmsg_fail(err, errlen, "\"job\": missing");
	if (!cJSON_IsString(job) || !job->valuestring)
		return errmsg_fail(err, errlen, "\"job\": expected a string");
	n = strlen(job->valuestring);
	if (n == 0 || n >= sizeof(req->job))
		return errmsg_fail(err, errlen,
				"\"job\": empty or too long (at most %zu bytes)",
				sizeof(req->job) - 1);
	memcpy(req->job, job->valuestring, n + 1);
	if (!st || cJSON_IsNull(st))
		return 0;
	if (!cJSON_IsNumber(st))
		return errmsg_fail(err, errlen, "\"status\": expected a number");
	/* a wait(2) status is 16 bits; -1 means unknown */
	if (!(st->valuedouble >= -1 && st->valuedouble <= 0xffff) ||
	    (double)(int)st->valuedouble != st->valuedouble)
		return errmsg_fail(err, errlen,
				"\"status\": expected a wait status (0..65535) or -1");
	req->status = (int)st->valuedouble;
	return 0;
}

static int parse_fields(const cJSON *o, struct proto_request *req, char *err,
			size_t errlen)
{
	const cJSON *op = cJSON_GetObjectItemCaseSensitive(o, "op");
	const cJSON *ident, *stays;
	char sub[200];

	if (!cJSON_IsObject(o))
		return errmsg_fail(err, errlen, "request must be a JSON object");
	if (check_version(o, err, errlen) < 0)
		return -1;
	if (!op)
		return errmsg_fail(err, errlen, "\"op\": missing");
	if (!cJSON_IsString(op) || !op->valuestring)
		return errmsg_fail(err, errlen, "\"op\": expected a string");
	req->op = op_from_name(op->valuestring);
	switch (req->op) {
	case PROTO_OP_REGISTER:
		ident = cJSON_GetObjectItemCaseSensitive(o, "identity");
		if (!ident)
			return errmsg_fail(err, errlen, "\"identity\": missing");
		if (identity_from_json(ident, &req->identity, sub,
				       sizeof(sub)) < 0)
			return errmsg_fail(err, errlen, "identity: %s", sub);
		stays = cJSON_GetObjectItemCaseSensitive(o, "stays");
		if (stays && !cJSON_IsBool(stays) && !cJSON_IsNull(stays))
			return errmsg_fail(err, errlen, "\"stays\": expected true or false");
		req->stays = cJSON_IsTrue(stays);
		return 0;
	case PROTO_OP_TASK_EXIT:
	case PROTO_OP_END:
	case PROTO_OP_SUMMARY:
		return parse_job_fields(o, req, err, errlen);
	case PROTO_OP_SUMMARIES:
	case PROTO_OP_TUNE_RUNS:
		return proto_parse_query(o, &req->query, err, errlen);
	case PROTO_OP_SWEEP:
		return proto_parse_sweep(o, &req->sweep, err, errlen);
	case PROTO_OP_STATUS:
		return 0;
	case PROTO_OP_INVALID:
		break;
	}
	/* the name may be any bytes: quote only a bounded prefix */
	return errmsg_fail(err, errlen, "unknown op \"%.40s\"", op->valuestring);
}

static int only_space(const char *p, const char *end)
{
	for (; p < end; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			return 0;
	return 1;
}

int proto_parse_request(const char *buf, size_t len, struct proto_request *req,
			char *err, size_t errlen)
{
	const char *end = NULL;
	cJSON *o = NULL;
	char *copy = NULL;
	int ret = -1;

	memset(req, 0, sizeof(*req));
	req->op = PROTO_OP_INVALID;
	identity_init(&req->identity);
	req->status = -1;
	if (!buf) {
		errmsg_fail(err, errlen, "no message");
		goto out;
	}
	if (len > PROTO_MAX_MSG) {
		errmsg_fail(err, errlen, "message too long (%zu bytes, at most %d)",
			 len, PROTO_MAX_MSG);
		goto out;
	}
	if (memchr(buf, '\0', len)) {
		errmsg_fail(err, errlen, "message contains a NUL byte");
		goto out;
	}
	if (only_space(buf, buf + len)) {
		errmsg_fail(err, errlen, "empty message");
		goto out;
	}
	/* a terminated copy: the parser then never depends on len alone */
	copy = malloc(len + 1);
	if (!copy) {
		errmsg_fail(err, errlen, "out of memory");
		goto out;
	}
	memcpy(copy, buf, len);
	copy[len] = '\0';
	o = cJSON_ParseWithOpts(copy, &end, 0);
	if (!o) {
		errmsg_fail(err, errlen, "invalid JSON at byte %zu",
			 end && end >= copy ? (size_t)(end - copy) : (size_t)0);
		goto out;
	}
	if (!only_space(end, copy + len)) {
		errmsg_fail(err, errlen, "trailing data after the JSON object");
		goto out;
	}
	if (parse_fields(o, req, err, errlen) < 0) {
		req->op = PROTO_OP_INVALID;
		goto out;
	}
	ret = 0;
out:
	cJSON_Delete(o);
	free(copy);
	return ret;
}

static cJSON *new_request(const char *op)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	if (!cJSON_AddStringToObject(o, "op", op) ||
	    !cJSON_AddNumberToObject(o, "v", PROTO_VERSION)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *proto_register_request(const struct tracer_identity *id, bool stays)
{
	cJSON *o = new_request("register"), *ident;

	if (!o)
		return NULL;
	if (stays && !cJSON_AddTrueToObject(o, "stays")) {
		cJSON_Delete(o);
		return NULL;
	}
	ident = identity_to_json(id);
	if (!ident || !cJSON_AddItemToObject(o, "identity", ident)) {
		cJSON_Delete(ident);
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *proto_job_request(const char *op, const char *job, int status)
{
	cJSON *o;

	if (!op || !job)
		return NULL;
	o = new_request(op);
	if (!o)
		return NULL;
	if (!json_add_str(o, "job", job) ||
	    !cJSON_AddNumberToObject(o, "status", status < 0 ? -1 : status)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

char *proto_error_reply(const char *msg)
{
	cJSON *o = cJSON_CreateObject();
	char *line = NULL;

	if (!o)
		return NULL;
	if (cJSON_AddFalseToObject(o, "ok") &&
	    json_add_str(o, "error", msg ? msg : "error"))
		line = proto_render_line(o);
	cJSON_Delete(o);
	return line;
}

char *proto_error_replyf(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return proto_error_reply(msg);
}

char *proto_ok_reply(const char *job, uint64_t tag)
{
	cJSON *o = cJSON_CreateObject();
	char *line = NULL;

	if (!o)
		return NULL;
	if (cJSON_AddTrueToObject(o, "ok") &&
	    (!job || (json_add_str(o, "job", job) && json_add_u64(o, "tag", tag))))
		line = proto_render_line(o);
	cJSON_Delete(o);
	return line;
}

char *proto_render_line(const cJSON *obj)
{
	char *s, *line;
	size_t n;

	if (!obj)
		return NULL;
	s = cJSON_PrintUnformatted(obj);
	if (!s)
		return NULL;
	n = strlen(s);
	line = malloc(n + 2);
	if (line) {
		memcpy(line, s, n);
		line[n] = '\n';
		line[n + 1] = '\0';
	}
	cJSON_free(s);
	return line;
}
