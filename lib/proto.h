/*
 * proto.h - the registration protocol between registrants and tracerd.
 *
 * Transport: a unix stream socket; each message is ONE JSON object on one
 * line ('\n' terminated), at most PROTO_MAX_MSG bytes.  Each request gets
 * exactly one reply line: {"ok":true,...} or {"ok":false,"error":"..."}.
 *
 * Requests ("op"):
 *   register   {"op":"register","v":1,"identity":{...}[,"stays":true]}
 *              -> {"ok":true,"job":"<uid>","tag":<n>}
 *              The pid to tag is the peer's (SO_PEERCRED), never a field.
 *              "stays": the registering process stays the job's parent
 *              (`tracer run`, tracer-wrap) instead of becoming its work
 *              (the SPANK plugin's task execs the user's program): it is
 *              the job's registrant, not one of its tools.
 *   task_exit  {"op":"task_exit","v":1,"job":"<uid>","status":<wait status>}
 *   end        {"op":"end","v":1,"job":"<uid>","status":<wait status or -1>}
 *   status     {"op":"status","v":1} -> {"ok":true,"status":{...}}
 *
 * Archive queries (proto_query.c), answered by tracerd for the asker's
 * own jobs (every job for root and admin_group) as a stream: one summary
 * per line, then a last line {"ok":true,"count":N,"files":F,
 * "truncated":bool,"skipped_lines":B} (or {"ok":false,"error":...});
 * lines are at most PROTO_STREAM_LINE_MAX bytes:
 *   summaries  {"op":"summaries","v":1,"limit":N,"all_files":bool,
 *               "filter":{"users":"a,b","states":..,"names":..,"runs":..,
 *                         "job_ids":..,"accounts":..,"partitions":..,
 *                         "nodes":..,"since_ns":"<ns>","until_ns":"<ns>"}}
 *              the newest N (0: every one) that pass, oldest first;
 *              all_files: the rotated files too.  Optional, for job
 *              listings: "jobs":J (J > 0) and, in the filter,
 *              "job_states":"s,t" ask a datalake for every summary of the
 *              newest J jobs whose state (the worst of their steps') is
 *              one of those; a file archive, or a tracerd that does not
 *              know these fields, answers by "limit" as before, so that
 *              a client sends both and rolls the jobs up itself
 *   summary    {"op":"summary","v":1,"job":"<uid, job id or task name>"}
 *   sweep      {"op":"sweep","v":1,"by":"user","since_s":N,"limit":N}
 *              one line: {"ok":true,"sweep":{...}} (docs/sweep.md), the
 *              waste of the asker's jobs (every user's for root and
 *              admin_group) per group
 *   tune_runs  {"op":"tune_runs","v":1,"limit":N,"filter":{... as summaries,
 *               "pipeline":"P"}}: from the datalake only, one row per job
 *              with the columns `tracer tune` needs (lib/tune_read.c)
 *              instead of summaries; a file archive answers with an error
 */
#ifndef TRACER_PROTO_H
#define TRACER_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "defaults.h"
#include "identity.h"

#define PROTO_VERSION 1
#define PROTO_MAX_MSG 65536

enum proto_op {
	PROTO_OP_INVALID = 0,
	PROTO_OP_REGISTER,
	PROTO_OP_TASK_EXIT,
	PROTO_OP_END,
	PROTO_OP_STATUS,
	PROTO_OP_SUMMARIES,
	PROTO_OP_SUMMARY,
	PROTO_OP_SWEEP,
	PROTO_OP_TUNE_RUNS,
};

#define PROTO_STREAM_LINE_MAX (16 << 20)
#define PROTO_QUERY_LIST_MAX 256 /* bytes of one filter list */

/* An archive query's selection (summaries). */
struct proto_query {
	long limit;    /* 0: every one */
	bool all_files;
	char users[PROTO_QUERY_LIST_MAX], states[PROTO_QUERY_LIST_MAX];
	char names[PROTO_QUERY_LIST_MAX], runs[PROTO_QUERY_LIST_MAX];
	char job_ids[PROTO_QUERY_LIST_MAX], accounts[PROTO_QUERY_LIST_MAX];
	char partitions[PROTO_QUERY_LIST_MAX], nodes[PROTO_QUERY_LIST_MAX];
	int64_t since_ns, until_ns; /* INT64_MIN / INT64_MAX: any */
	char pipeline[PROTO_QUERY_LIST_MAX]; /* tune_runs: one pipeline ("" any) */
	long jobs;     /* > 0: the newest this many jobs, from a datalake */
	char job_states[PROTO_QUERY_LIST_MAX]; /* with jobs: the jobs' states */
};

/* A sweep's question (lib/sweep.h answers it). */
struct proto_sweep {
	char by[16];       /* user, account, partition, pipeline, host, tool */
	double since_s;    /* the window: jobs that ended in the last since_s */
	int limit;         /* the top N groups */
};

struct proto_request {
	enum proto_op op;
	struct tracer_identity identity; /* register */
	bool stays;                      /* register: the registrant stays */
	char job[TRACER_JOIN_KEY_LEN];   /* task_exit, end: a job uid or join key */
	int status;                      /* task_exit, end; -1 = unknown */
	struct proto_query query;        /* summaries (summary: job) */
	struct proto_sweep sweep;        /* sweep */
};

/*
 * Parse one request line (len bytes, need not be NUL-terminated).
 * Returns 0, or -1 with a reason in err (the daemon sends it back).
 */
int proto_parse_request(const char *buf, size_t len, struct proto_request *req,
			char *err, size_t errlen);

/* Build request objects (caller frees). */
cJSON *proto_register_request(const struct tracer_identity *id, bool stays);
cJSON *proto_job_request(const char *op, const char *job, int status);

/* proto_query.c: the fields of a summaries request into q (0, or -1
 * with a reason in err); a summaries request from q and a limit. */
int proto_parse_query(const cJSON *o, struct proto_query *q, char *err, size_t errlen);
cJSON *proto_query_request(const struct proto_query *q);
/* the fields of a sweep request (0, or -1 with err); a sweep request */
int proto_parse_sweep(const cJSON *o, struct proto_sweep *sw, char *err, size_t errlen);
cJSON *proto_sweep_request(const struct proto_sweep *sw);
/* a tune_runs request from q (its pipeline included) */
cJSON *proto_tune_request(const struct proto_query *q);

/* Render an error reply line {"ok":false,"error":msg}\n into a malloc'd string. */
char *proto_error_reply(const char *msg);
/* The same with the message formatted (at most 511 bytes of it). */
char *proto_error_replyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Render {"ok":true}\n, with "job" and "tag" when job is not NULL. */
char *proto_ok_reply(const char *job, uint64_t tag);

/* Serialize obj unformatted with a trailing '\n' (malloc'd), NULL on OOM. */
char *proto_render_line(const cJSON *obj);

#endif
