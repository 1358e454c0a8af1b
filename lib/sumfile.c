/*
 * sumfile.c - read job summaries back from the file sink's archive
 * (sumfile.h).  Lines that do not parse (a partial line from a full disk,
 * say) are skipped and counted; the rest of the file is still read.  A
 * reader with a deadline or a cancel flag stops between lines and says
 * so (tracerd answers users from a worker thread with bounded work).
 */
#include "sumfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "defaults.h"

#define ARCHIVE_MAX_ROTATED 1000

struct reader {
	FILE *f;
	char *line;
	size_t cap;
	struct sumfile_status *st;
	char uid_needle[32]; /* "uid":N when only one owner's jobs pass */
	const char *kind;    /* the "record" read: NULL job summaries (none has one) */
};

static const char *member_str(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int reader_open(struct reader *r, const char *path, const struct job_filter *f,
		       struct sumfile_status *st)
{
	memset(r, 0, sizeof(*r));
	r->st = st;
	if (f && f->owner_uid >= 0)
		snprintf(r->uid_needle, sizeof(r->uid_needle), "\"uid\":%lld",
			 (long long)f->owner_uid);
	r->f = fopen(path, "re");
	if (!r->f) {
		st->open_errno = errno;
		snprintf(st->failed_path, sizeof(st->failed_path), "%s", path);
		return -1;
	}
	return 0;
}

static void reader_close(struct reader *r)
{
	free(r->line);
	if (r->f)
		fclose(r->f);
}

/* The next line, or -1 at the end of the file or when time is up. */
static ssize_t next_line(struct reader *r)
{
	struct sumfile_status *st = r->st;

	if ((st->cancel && *st->cancel) ||
	    (st->deadline_ns && clock_mono_ns() >= st->deadline_ns)) {
		st->truncated = true;
		return -1;
	}
	return getline(&r->line, &r->cap, r->f);
}

/* Cheap test before parsing: a line without its owner's "uid":N (the
 * file sink writes compact JSON) cannot pass the owner filter. */
static bool may_pass(const struct reader *r)
{
	size_t n = strlen(r->uid_needle);

	if (!n)
		return true;
	for (const char *p = r->line; (p = strstr(p, r->uid_needle)); p += n)
		if (p[n] < '0' || p[n] > '9')
			return true;
	return false;
}

/* The line's object when it is of the kind read: a job summary has no
 * "record" member; another record (an idle host's, docs/schema.md) is
 * read only by those who ask for its kind, so that every reader of
 * summaries skips it. */
static cJSON *parse_line(struct reader *r, ssize_t n)
{
	const char *kind;
	cJSON *o;

	if (n <= 1 || (!r->kind && !may_pass(r)))
		return NULL;
	o = cJSON_ParseWithLength(r->line, (size_t)n);
	if (!o || !cJSON_IsObject(o)) {
		r->st->bad++;
		cJSON_Delete(o);
		return NULL;
	}
	kind = member_str(o, "record");
	if (cJSON_GetObjectItemCaseSensitive(o, "record") &&
	    (!r->kind || !kind || strcmp(kind, r->kind) != 0)) {
		cJSON_Delete(o);
		return NULL;
	}
	if (r->kind && !kind) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static bool passes(const struct job_filter *f, const cJSON *o)
{
	return !f || job_filter_summary(f, o);
}

cJSON *sumfile_tail(const char *path, size_t max, const struct job_filter *f,
		      struct sumfile_status *st)
{
	struct reader r;
	cJSON **ring = NULL, *out = NULL;
	size_t n = 0;
	ssize_t len;

	if (reader_open(&r, path, f, st) != 0)
		return NULL;
	if (max > 0 && !(ring = calloc(max, sizeof(*ring))))
		goto cleanup;
	out = cJSON_CreateArray();
	while (out && (len = next_line(&r)) > 0) {
		cJSON *o = parse_line(&r, len);
		if (!o)
			continue;
		if (!passes(f, o)) {
			cJSON_Delete(o);
		} else if (!ring) {
			cJSON_AddItemToArray(out, o);
		} else {
			cJSON_Delete(ring[n % max]);
			ring[n % max] = o;
			n++;
		}
	}
	for (size_t i = n > max ? n - max : 0; out && ring && i < n; i++) {
		cJSON_AddItemToArray(out, ring[i % max]);
		ring[i % max] = NULL;
	}
cleanup:
	if (ring) {
		for (size_t i = 0; i < max; i++)
			cJSON_Delete(ring[i]);
		free(ring);
	}
	reader_close(&r);
	return out;
}

/*
 * How well a summary answers to name: 3 its job uid, 2 the job (or
 * job.step) of a scheduler only root registers, 1 a job id or task name
 * anyone can choose, 0 not at all.  A better match wins over a newer one,
 * so a user's job named "1234.batch" cannot shadow Slurm's step 1234.batch.
 */
static int matches(const cJSON *s, const char *name)
{
	const cJSON *id = cJSON_GetObjectItem(s, "identity");
	const char *uid = member_str(s, "job");
	int rank = 0;

	if (uid && !strcmp(uid, name))
		return 3;
	if (id) {
		const char *job_id = member_str(id, "job_id");
		const char *step = member_str(id, "step_id");
		const char *sched = member_str(id, "scheduler");
		const char *task = member_str(id, "task_name");
		bool trusted = sched && (!strcmp(sched, "slurm") || !strcmp(sched, "aws-batch"));
		char both[TRACER_JOIN_KEY_LEN];

		if (job_id && step) {
			snprintf(both, sizeof(both), "%s.%s", job_id, step);
			if (!strcmp(both, name))
				rank = trusted ? 2 : 1;
		}
		if (job_id && !strcmp(job_id, name))
			rank = trusted ? 2 : 1;
		if (!rank && task && !strcmp(task, name))
			rank = 1;
	}
	return rank;
}

cJSON *sumfile_find(const char *path, const char *name, const struct job_filter *f,
		    struct sumfile_status *st)
{
	struct reader r;
	cJSON *best = NULL;
	ssize_t len;
	bool last = !strcmp(name, "last");
	int best_rank = 0, rank;
	/* a quick filter before parsing: every match holds the name up to
	 * its first '.' (job.step is stored as two fields) */
	char head[TRACER_JOIN_KEY_LEN];

	snprintf(head, sizeof(head), "%.*s", (int)strcspn(name, "."), name);

	if (reader_open(&r, path, f, st) != 0)
		return NULL;
	/* the newest match wins: read to the end */
	while ((len = next_line(&r)) > 0) {
		if (!last && !strstr(r.line, head))
			continue;
		cJSON *o = parse_line(&r, len);
		if (!o)
			continue;
		rank = !passes(f, o) ? 0 : last ? 1 : matches(o, name);
		if (rank && rank >= best_rank) {
			cJSON_Delete(best);
			best = o;
			best_rank = rank;
		} else {
			cJSON_Delete(o);
		}
	}
	reader_close(&r);
	return best;
}

/* ---- the whole archive: FILE.N ... FILE.1 (rotated), then FILE ---- */

static int each_file(const char *path, const char *kind, const struct job_filter *f,
		     summary_fn fn, void *ctx, struct sumfile_status *st)
{
	struct reader r;
	ssize_t len;
	int rc = 0;

	if (reader_open(&r, path, f, st) != 0)
		return -1;
	r.kind = kind;
	while (rc == 0 && (len = next_line(&r)) > 0) {
		cJSON *o = parse_line(&r, len);
		if (o && passes(f, o))
			rc = fn(o, ctx);
		cJSON_Delete(o);
	}
	reader_close(&r);
	return rc;
}

int sumfile_each_file(const char *path, const struct job_filter *f, summary_fn fn,
			void *ctx, struct sumfile_status *st)
{
	return each_file(path, NULL, f, fn, ctx, st);
}

static int each(const char *path, const char *kind, const struct job_filter *f, summary_fn fn,
		void *ctx, int *files, struct sumfile_status *st)
{
	char rotated[4096];
	int n = 0, last = 0, rc = 0;

	/* the oldest first: the highest number that exists */
	for (int i = 1; i <= ARCHIVE_MAX_ROTATED; i++) {
		snprintf(rotated, sizeof(rotated), "%s.%d", path, i);
		if (access(rotated, F_OK) != 0)
			break;
		last = i;
	}
	for (int i = last; rc == 0 && !st->truncated && i >= 1; i--) {
		snprintf(rotated, sizeof(rotated), "%s.%d", path, i);
		if ((rc = each_file(rotated, kind, f, fn, ctx, st)) == 0)
			n++;
	}
	if (rc == 0 && !st->truncated && access(path, F_OK) == 0 &&
	    (rc = each_file(path, kind, f, fn, ctx, st)) == 0)
		n++;
	*files = n;
	return rc;
}

int sumfile_each(const char *path, const struct job_filter *f, summary_fn fn, void *ctx,
		 int *files, struct sumfile_status *st)
{
	return each(path, NULL, f, fn, ctx, files, st);
}

int sumfile_records_each(const char *path, const char *kind, summary_fn fn, void *ctx,
			 int *files, struct sumfile_status *st)
{
	return each(path, kind, NULL, fn, ctx, files, st);
}
