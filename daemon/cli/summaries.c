/*
 * summaries.c - where `tracer show`, `tracer jobs` and `tracer report` get
 * finished jobs' summaries (cli.h).  The archive is readable by root and
 * admin_group only: other users ask tracerd over its socket, which
 * answers with their own jobs (daemon/archive.c).  Root reads the file
 * itself, so that it works without tracerd.  With datalake = clickhouse
 * the same holds for the datalake: root asks ClickHouse (datalake_read.c),
 * a user the local tracerd (a reader on a login node), which holds the
 * credentials.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "datalake_read.h"
#include "proto.h"

bool cli_archive_remote(void)
{
	return geteuid() != 0;
}

static void report_status(const char *path, const struct sumfile_status *st)
{
	if (st->open_errno)
		fprintf(stderr, "tracer: cannot read %s: %s\n", st->failed_path[0] ? st->failed_path : path,
			strerror(st->open_errno));
	if (st->bad)
		fprintf(stderr, "tracer: %lu unreadable line(s) skipped\n", st->bad);
}

/* one filter list into a query's field: 0, or -1 (said) when it is longer
 * than tracerd takes; cutting it would ask for other jobs than asked */
static int query_list(char *dst, const char *list)
{
	if (list && strlen(list) >= PROTO_QUERY_LIST_MAX) {
		fprintf(stderr, "tracer: a filter list of %zu bytes (\"%.40s...\"): tracerd takes "
			"at most %d: ask for fewer at a time\n", strlen(list), list,
			PROTO_QUERY_LIST_MAX - 1);
		return -1;
	}
	snprintf(dst, PROTO_QUERY_LIST_MAX, "%s", list ? list : "");
	return 0;
}

/* f as a request's selection: 0, or -1 after a message */
static int query_from_filter(struct proto_query *q, const struct job_filter *f, size_t max)
{
	memset(q, 0, sizeof(*q));
	q->limit = (long)max;
	q->since_ns = f ? f->since_ns : INT64_MIN;
	q->until_ns = f ? f->until_ns : INT64_MAX;
	if (!f)
		return 0;
	if (query_list(q->users, f->users) || query_list(q->states, f->states) ||
	    query_list(q->names, f->names) || query_list(q->runs, f->runs) ||
	    query_list(q->job_ids, f->job_ids) || query_list(q->accounts, f->accounts) ||
	    query_list(q->partitions, f->partitions) || query_list(q->nodes, f->nodes))
		return -1;
	return 0;
}

struct collect {
	cJSON *arr;      /* summaries and find: kept */
	summary_fn fn;   /* each: handed on */
	void *ctx;
	int rc;
};

static int collect_line(cJSON *o, void *ctx)
{
	struct collect *k = ctx;

	if (k->fn) {
		k->rc = k->fn(o, k->ctx);
		cJSON_Delete(o);
		return k->rc;
	}
	cJSON_AddItemToArray(k->arr, o);
	return 0;
}

/*
 * Ask tracerd.  0 with the closing line in *last; 1 when tracerd is not
 * running (the caller reads the file itself); -1 after a message.
 */
static int ask(struct cli *c, cJSON *req, struct collect *k, cJSON **last)
{
	char err[300];
	int rc;

	if (!req) {
		fprintf(stderr, "tracer: out of memory\n");
		return -1;
	}
	rc = client_request_stream(c->cfg.socket_path, TRACER_ARCHIVE_TIMEOUT_MS, req,
				   collect_line, k, last, err, sizeof(err));
	cJSON_Delete(req);
	if (rc == -2 && datalake_configured(&c->cfg)) {
		fprintf(stderr, "tracer: tracerd is not running (%s): the datalake is read "
			"through it\n", c->cfg.socket_path);
		return -1;
	}
	if (rc == -2)
		return 1;
	if (rc != 0) {
		if (k->rc == 0)
			fprintf(stderr, "tracer: %s\n", err);
		return -1;
	}
	if (cJSON_IsTrue(cJSON_GetObjectItem(*last, "truncated")))
		fprintf(stderr, "tracer: tracerd's answer is incomplete (archive too large to "
				"read at once); narrow the selection\n");
	if (cli_jnum(*last, "skipped_lines") > 0)
		fprintf(stderr, "tracer: %.0f unreadable line(s) skipped\n",
			cli_jnum(*last, "skipped_lines"));
	return 0;
}

/*
 * Ask tracerd for summaries kept in an array: 0 with it in *out; 1 when
 * tracerd is not running (the caller reads the file itself); -1 after a
 * message.
 */
static int ask_array(struct cli *c, cJSON *req, cJSON **out)
{
	struct collect k = {.arr = cJSON_CreateArray()};
	cJSON *last = NULL;
	int rc;

	if (!k.arr) {
		cJSON_Delete(req);
		fprintf(stderr, "tracer: out of memory\n");
		return -1;
	}
	rc = ask(c, req, &k, &last);
	cJSON_Delete(last);
	if (rc == 0)
		*out = k.arr;
	else
		cJSON_Delete(k.arr);
	return rc;
}

/* ---- root and the datalake ---- */

static bool lake_direct(const struct cli *c)
{
	return !cli_archive_remote() && datalake_configured(&c->cfg);
}

/* datalake_each_fn: one summary into the collection */
static int lake_line(void *ctx, const char *line, size_t len)
{
	struct collect *k = ctx;
	cJSON *o = cJSON_ParseWithLength(line, len);

	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		fprintf(stderr, "tracer: a datalake row that is no summary skipped\n");
		return 0;
	}
	return collect_line(o, k);
}

static cJSON *lake_tail(struct cli *c, size_t max, const struct job_filter *f)
{
	struct collect k = {.arr = cJSON_CreateArray()};
	struct job_filter all;
	char err[600];

	if (!f) {
		job_filter_init(&all);
		f = &all;
	}
	if (!k.arr || datalake_read_summaries(&c->cfg, f, (long)max, lake_line, &k, err,
					      sizeof(err)) != 0) {
		fprintf(stderr, "tracer: %s\n", k.arr ? err : "out of memory");
		cJSON_Delete(k.arr);
		return NULL;
	}
	return k.arr;
}

static cJSON *lake_find(struct cli *c, const char *name)
{
	struct collect k = {.arr = cJSON_CreateArray()};
	struct job_filter all;
	char err[600];
	cJSON *out;

	job_filter_init(&all);
	if (!k.arr || datalake_read_job(&c->cfg, name, &all, lake_line, &k, err,
					sizeof(err)) < 0) {
		fprintf(stderr, "tracer: %s\n", k.arr ? err : "out of memory");
		cJSON_Delete(k.arr);
		return NULL;
	}
	out = cJSON_DetachItemFromArray(k.arr, 0);
	cJSON_Delete(k.arr);
	return out;
}

static int lake_each(struct cli *c, const struct job_filter *f, summary_fn fn, void *ctx,
		     int *files)
{
	struct collect k = {.fn = fn, .ctx = ctx};
	struct job_filter all;
	char err[600];

	job_filter_init(&all);
	*files = 1;
	if (datalake_read_summaries(&c->cfg, f ? f : &all, 0, lake_line, &k, err,
				    sizeof(err)) != 0) {
		fprintf(stderr, "tracer: %s\n", err);
		return -1;
	}
	return k.rc;
}

cJSON *cli_summaries_tail(struct cli *c, size_t max, const struct job_filter *f)
{
	struct sumfile_status st = {0};
	cJSON *out;

	if (lake_direct(c))
		return lake_tail(c, max, f);
	if (cli_archive_remote()) {
		struct proto_query q;
		int rc;

		if (query_from_filter(&q, f, max) != 0)
			return NULL;
		rc = ask_array(c, proto_query_request(&q), &out);
		if (rc <= 0)
			return rc == 0 ? out : NULL;
	}
	out = sumfile_tail(c->cfg.file_path, max, f, &st);
	report_status(c->cfg.file_path, &st);
	return out;
}

cJSON *cli_jobs_tail(struct cli *c, size_t jobs, const struct job_filter *f)
{
	struct job_filter per_step = *f;
	size_t window = jobs * TRACER_DEFAULT_JOBS_STEPS_READ;
	struct sumfile_status st = {0};
	cJSON *out;

	/* the state is the job's (the worst of its steps'), not a step's */
	per_step.states = NULL;
	if (lake_direct(c)) {
		struct collect k = {.arr = cJSON_CreateArray()};
		char err[600];

		if (!k.arr || datalake_read_jobs(&c->cfg, &per_step, f->states, (long)jobs,
						 lake_line, &k, err, sizeof(err)) != 0) {
			fprintf(stderr, "tracer: %s\n", k.arr ? err : "out of memory");
			cJSON_Delete(k.arr);
			return NULL;
		}
		return k.arr;
	}
	if (cli_archive_remote()) {
		struct proto_query q;
		int rc;

		/* the window in jobs for a reader on a datalake; the window in
		 * summaries (tracerd answers at most TRACER_ARCHIVE_LIMIT_MAX)
		 * for a file archive and a tracerd that predates "jobs" */
		if (query_from_filter(&q, &per_step, window > TRACER_ARCHIVE_LIMIT_MAX ?
				      TRACER_ARCHIVE_LIMIT_MAX : window) != 0)
			return NULL;
		q.jobs = (long)jobs;
		snprintf(q.job_states, sizeof(q.job_states), "%s", f->states ? f->states : "");
		rc = ask_array(c, proto_query_request(&q), &out);
		if (rc <= 0)
			return rc == 0 ? out : NULL;
	}
	out = sumfile_tail(c->cfg.file_path, window, &per_step, &st);
	report_status(c->cfg.file_path, &st);
	return out;
}

cJSON *cli_summary_find(struct cli *c, const char *name)
{
	struct sumfile_status st = {0};
	cJSON *out;

	if (lake_direct(c))
		return lake_find(c, name);
	if (cli_archive_remote()) {
		cJSON *arr;
		int rc = ask_array(c, proto_job_request("summary", name, -1), &arr);

		if (rc < 0)
			return NULL;
		if (rc == 0) {
			out = cJSON_DetachItemFromArray(arr, 0);
			cJSON_Delete(arr);
			return out;
		}
	}
	out = sumfile_find(c->cfg.file_path, name, NULL, &st);
	report_status(c->cfg.file_path, &st);
	return out;
}

int cli_summaries_each(struct cli *c, const struct job_filter *f, summary_fn fn, void *ctx,
		       int *files)
{
	struct sumfile_status st = {0};
	int rc;

	if (lake_direct(c))
		return lake_each(c, f, fn, ctx, files);
	if (cli_archive_remote()) {
		struct proto_query q;
		struct collect k = {.fn = fn, .ctx = ctx};
		cJSON *last = NULL;

		if (query_from_filter(&q, f, 0) != 0)
			return -1;
		q.all_files = true;
		rc = ask(c, proto_query_request(&q), &k, &last);
		*files = (int)cli_jnum(last, "files");
		cJSON_Delete(last);
		if (rc <= 0)
			return rc == 0 ? 0 : k.rc ? k.rc : -1;
	}
	rc = sumfile_each(c->cfg.file_path, f, fn, ctx, files, &st);
	report_status(c->cfg.file_path, &st);
	return rc;
}

static int keep_copy(const cJSON *s, void *ctx)
{
	cJSON *arr = ctx, *copy;

	if (cJSON_GetArraySize(arr) >= TRACER_DEFAULT_JOBVIEW_MAX_STEPS)
		return 1; /* enough for one job */
	copy = cJSON_Duplicate(s, 1);
	if (!copy || !cJSON_AddItemToArray(arr, copy)) {
		cJSON_Delete(copy);
		return -1;
	}
	return 0;
}

cJSON *cli_summaries_select(struct cli *c, const struct job_filter *f)
{
	struct sumfile_status st = {0};
	cJSON *out;
	int files = 0, rc;

	if (lake_direct(c))
		return lake_tail(c, TRACER_DEFAULT_JOBVIEW_MAX_STEPS, f);
	if (cli_archive_remote()) {
		struct proto_query q;

		if (query_from_filter(&q, f, TRACER_DEFAULT_JOBVIEW_MAX_STEPS) != 0)
			return NULL;
		q.all_files = true;
		rc = ask_array(c, proto_query_request(&q), &out);
		if (rc <= 0)
			return rc == 0 ? out : NULL;
	}
	out = cJSON_CreateArray();
	if (!out)
		return NULL;
	rc = sumfile_each(c->cfg.file_path, f, keep_copy, out, &files, &st);
	report_status(c->cfg.file_path, &st);
	if (rc < 0 && cJSON_GetArraySize(out) == 0) {
		cJSON_Delete(out);
		return NULL;
	}
	return out;
}
