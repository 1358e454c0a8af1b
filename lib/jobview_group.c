/*
 * jobview_group.c - a listing of summaries as a listing of jobs
 * (jobview.h): the summaries of one job, wherever they are in the list,
 * become its job view, placed where its last summary was.  Summaries are
 * grouped through a hash of (cluster, job id) or the job uid, so that a
 * long listing of one-step jobs costs linear time.
 */
#include "jobview.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

struct group {
	const cJSON *rep; /* its first summary */
	size_t last;      /* where its last summary is */
	cJSON *steps;     /* references to its summaries */
};

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull;
}

/* the hash of what jobview_same_job compares */
static uint64_t job_hash(const cJSON *s)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(s, "identity");
	const char *job = json_get_str(id, "job_id", NULL);

	if (!job)
		return fnv(fnv(14695981039346656037ull, "uid"), json_get_str(s, "job", NULL));
	return fnv(fnv(fnv(14695981039346656037ull, json_get_str(id, "scheduler", NULL)),
		       json_get_str(id, "cluster", NULL)), job);
}

static int by_last(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return x->last < y->last ? -1 : x->last > y->last;
}

/* Group the summaries: *ng groups, ordered by their last summary. */
static struct group *group_all(const cJSON *summaries, size_t *ng)
{
	size_t n = (size_t)cJSON_GetArraySize(summaries), cap = 2 * n + 1, i = 0;
	struct group *g = calloc(n + 1, sizeof(*g));
	size_t *slot = calloc(cap, sizeof(*slot)); /* group index + 1; 0: empty */
	const cJSON *s;

	*ng = 0;
	if (!g || !slot)
		goto fail;
	cJSON_ArrayForEach(s, summaries) {
		size_t h = (size_t)(job_hash(s) % cap), k;

		while (slot[h] && !jobview_same_job(g[slot[h] - 1].rep, s))
			h = (h + 1) % cap;
		if (!slot[h]) {
			g[*ng] = (struct group){.rep = s, .steps = cJSON_CreateArray()};
			if (!g[*ng].steps)
				goto fail;
			slot[h] = ++*ng;
		}
		k = slot[h] - 1;
		g[k].last = i++;
		if (!cJSON_AddItemReferenceToArray(g[k].steps, (cJSON *)s))
			goto fail;
	}
	free(slot);
	qsort(g, *ng, sizeof(*g), by_last);
	return g;
fail:
	for (size_t k = 0; g && k < *ng; k++)
		cJSON_Delete(g[k].steps);
	free(g);
	free(slot);
	return NULL;
}

cJSON *jobview_group(const cJSON *summaries, const struct tracer_config *cfg, size_t max,
		     bool (*keep)(const cJSON *view, void *ctx), void *ctx)
{
	size_t ng = 0, kept = 0;
	struct group *g = group_all(summaries, &ng);
	cJSON *out = cJSON_CreateArray();
	bool ok = g && out;

	/* the newest first, so that max views are all that is built */
	for (size_t k = ng; ok && k-- > 0 && (!max || kept < max);) {
		cJSON *v = jobview_build(g[k].steps, cfg);

		if (!v) {
			ok = false;
		} else if (keep && !keep(v, ctx)) {
			cJSON_Delete(v);
		} else if (!cJSON_InsertItemInArray(out, 0, v)) {
			cJSON_Delete(v);
			ok = false;
		} else {
			kept++;
		}
	}
	for (size_t k = 0; g && k < ng; k++)
		cJSON_Delete(g[k].steps);
	free(g);
	if (!ok) {
		cJSON_Delete(out);
		return NULL;
	}
	return out;
}
