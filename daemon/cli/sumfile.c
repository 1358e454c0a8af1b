/*
 * sumfile.c - read job summaries back from the NDJSON file sink.  Lines
 * that do not parse (a partial line from a full disk, say) are skipped
 * and counted on stderr; the rest of the file is still read.  The file
 * sink's rotated files (FILE.1 the newest ... FILE.N) are read too by
 * summaries_each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

struct reader {
	FILE *f;
	char *line;
	size_t cap;
	unsigned long bad;
};

static int reader_open(struct reader *r, const char *path)
{
	memset(r, 0, sizeof(*r));
	r->f = fopen(path, "re");
	if (!r->f) {
		fprintf(stderr, "tracer: cannot read %s: %m\n", path);
		return -1;
	}
	return 0;
}

static void reader_close(struct reader *r)
{
	if (r->bad)
		fprintf(stderr, "tracer: %lu unreadable line(s) skipped\n", r->bad);
	free(r->line);
	if (r->f)
		fclose(r->f);
}

static cJSON *parse_line(struct reader *r, ssize_t n)
{
	cJSON *o;

	if (n <= 1)
		return NULL;
	o = cJSON_ParseWithLength(r->line, (size_t)n);
	if (!o || !cJSON_IsObject(o)) {
		r->bad++;
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Every summary that passes f, in file order (max == 0). */
static cJSON *summaries_all(struct reader *r, const struct job_filter *f)
{
	cJSON *out = cJSON_CreateArray();
	ssize_t len;

	while (out && (len = getline(&r->line, &r->cap, r->f)) > 0) {
		cJSON *o = parse_line(r, len);
		if (!o)
			continue;
		if (f && !job_filter_summary(f, o))
			cJSON_Delete(o);
		else
			cJSON_AddItemToArray(out, o);
	}
	return out;
}

cJSON *summaries_tail(const char *path, size_t max, const struct job_filter *f)
{
	struct reader r;
	cJSON **ring = NULL, *out = NULL;
	size_t n = 0;
	ssize_t len;

	if (reader_open(&r, path) != 0)
		return NULL;
	if (max == 0) {
		out = summaries_all(&r, f);
		goto cleanup;
	}
	ring = calloc(max, sizeof(*ring));
	if (!ring)
		goto cleanup;
	while ((len = getline(&r.line, &r.cap, r.f)) > 0) {
		cJSON *o = parse_line(&r, len);
		if (!o)
			continue;
		if (f && !job_filter_summary(f, o)) {
			cJSON_Delete(o);
			continue;
		}
		cJSON_Delete(ring[n % max]);
		ring[n % max] = o;
		n++;
	}
	out = cJSON_CreateArray();
	size_t first = n > max ? n - max : 0;
	for (size_t i = first; out && i < n; i++) {
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

static int matches(const cJSON *s, const char *name)
{
	const cJSON *id = cJSON_GetObjectItem(s, "identity");
	const char *uid = jstr(s, "job");

	if (uid && !strcmp(uid, name))
		return 2;
	if (id) {
		const char *job_id = jstr(id, "job_id");
		const char *step = jstr(id, "step_id");
		char both[TRACER_JOIN_KEY_LEN];
		if (job_id && step) {
			snprintf(both, sizeof(both), "%s.%s", job_id, step);
			if (!strcmp(both, name))
				return 1;
		}
		if (job_id && !strcmp(job_id, name))
			return 1;
		const char *task = jstr(id, "task_name");
		if (task && !strcmp(task, name))
			return 1;
	}
	return 0;
}

cJSON *summary_find(const char *path, const char *name)
{
	struct reader r;
	cJSON *best = NULL;
	ssize_t len;
	bool last = !strcmp(name, "last");

	if (reader_open(&r, path) != 0)
		return NULL;
	/* the newest match wins: read to the end */
	while ((len = getline(&r.line, &r.cap, r.f)) > 0) {
		if (!last && !strstr(r.line, name))
			continue;
		cJSON *o = parse_line(&r, len);
		if (!o)
			continue;
		if (last || matches(o, name)) {
			cJSON_Delete(best);
			best = o;
		} else {
			cJSON_Delete(o);
		}
	}
	reader_close(&r);
	return best;
}

/* ---- the whole archive: FILE.N ... FILE.1 (rotated), then FILE ---- */

#define ARCHIVE_MAX_ROTATED 1000

static int each_in_file(const char *path, summary_fn fn, void *ctx, unsigned long *bad)
{
	struct reader r;
	ssize_t len;
	int rc = 0;

	if (reader_open(&r, path) != 0)
		return -1;
	while (rc == 0 && (len = getline(&r.line, &r.cap, r.f)) > 0) {
		cJSON *o = parse_line(&r, len);
		if (o)
			rc = fn(o, ctx);
		cJSON_Delete(o);
	}
	*bad += r.bad;
	r.bad = 0; /* counted once, by the caller */
	reader_close(&r);
	return rc;
}

int summaries_each(const char *path, summary_fn fn, void *ctx, int *files)
{
	char rotated[4096];
	unsigned long bad = 0;
	int n = 0, last = 0, rc = 0;

	/* the oldest first: the highest number that exists */
	for (int i = 1; i <= ARCHIVE_MAX_ROTATED; i++) {
		snprintf(rotated, sizeof(rotated), "%s.%d", path, i);
		if (access(rotated, F_OK) != 0)
			break;
		last = i;
	}
	for (int i = last; rc >= 0 && i >= 1; i--) {
		snprintf(rotated, sizeof(rotated), "%s.%d", path, i);
		if ((rc = each_in_file(rotated, fn, ctx, &bad)) == 0)
			n++;
	}
	if (rc == 0 && access(path, F_OK) == 0 && (rc = each_in_file(path, fn, ctx, &bad)) == 0)
		n++;
	if (bad)
		fprintf(stderr, "tracer: %lu unreadable line(s) skipped\n", bad);
	*files = n;
	return rc;
}
