/*
 * jobview_group.c - a listing of summaries as a listing of jobs
 * (jobview.h): the summaries of one job, wherever they are in the list,
 * become its job view, placed where its last summary was.
 */
#include "jobview.h"

#include <stdlib.h>

struct group {
	const cJSON *rep; /* its first summary */
	size_t last;      /* where its last summary is */
	cJSON *steps;     /* references to its summaries */
};

static int by_last(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return x->last < y->last ? -1 : x->last > y->last;
}

cJSON *jobview_group(const cJSON *summaries, const struct tracer_config *cfg)
{
	size_t n = (size_t)cJSON_GetArraySize(summaries), ng = 0, i = 0;
	struct group *g = calloc(n ? n : 1, sizeof(*g));
	cJSON *out = cJSON_CreateArray(), *s;

	if (!g || !out)
		goto fail;
	cJSON_ArrayForEach(s, summaries) {
		size_t k = ng;

		/* the newest groups first: a job's steps end close together */
		while (k > 0 && !jobview_same_job(g[k - 1].rep, s))
			k--;
		if (k == 0) {
			g[ng] = (struct group){.rep = s, .steps = cJSON_CreateArray()};
			if (!g[ng].steps)
				goto fail;
			k = ++ng;
		}
		g[k - 1].last = i++;
		if (!cJSON_AddItemReferenceToArray(g[k - 1].steps, s))
			goto fail;
	}
	qsort(g, ng, sizeof(*g), by_last);
	for (size_t k = 0; k < ng; k++) {
		cJSON *v = jobview_build(g[k].steps, cfg);

		if (!v || !cJSON_AddItemToArray(out, v)) {
			cJSON_Delete(v);
			goto fail;
		}
	}
	for (size_t k = 0; k < ng; k++)
		cJSON_Delete(g[k].steps);
	free(g);
	return out;
fail:
	for (size_t k = 0; g && k < ng; k++)
		cJSON_Delete(g[k].steps);
	free(g);
	cJSON_Delete(out);
	return NULL;
}
