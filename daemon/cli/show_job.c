/*
 * show_job.c - what `tracer show NAME` shows: a job id names the whole
 * job (every step on every node the reader may see, rolled up by
 * lib/jobview), JOB.STEP one step, a job uid or task name one summary;
 * --node HOST keeps one node's part.  And the job view's table of steps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "jobview.h"
#include "term.h"

/* steps listed on the one screen; --json has them all */
#define SHOW_STEPS 8

struct gather {
	cJSON *arr;
	const cJSON *like; /* the job the steps belong to */
};

static int gather_one(const cJSON *s, void *ctx)
{
	struct gather *g = ctx;
	cJSON *copy;

	if (!jobview_same_job(g->like, s))
		return 0;
	if (cJSON_GetArraySize(g->arr) >= TRACER_DEFAULT_JOBVIEW_MAX_STEPS)
		return 1;
	copy = cJSON_Duplicate(s, 1);
	if (!copy || !cJSON_AddItemToArray(g->arr, copy)) {
		cJSON_Delete(copy);
		return -1;
	}
	return 0;
}

/* Is name the job (not one step, nor a uid or task name) of s? */
static bool names_job(const cJSON *s, const char *name)
{
	const cJSON *id = cJSON_GetObjectItem(s, "identity");
	const char *job_id = cli_jstr(id, "job_id"), *uid = cli_jstr(s, "job");

	return job_id && !strcmp(job_id, name) && !(uid && !strcmp(uid, name));
}

/* The newest summary of step name (JOB.STEP) on node. */
static cJSON *step_on_node(struct cli *c, const char *name, const char *node)
{
	struct job_filter f;
	cJSON *arr, *s;

	job_filter_init(&f);
	f.job_ids = name;
	f.nodes = node;
	arr = cli_summaries_select(c, &f);
	s = arr ? cJSON_DetachItemFromArray(arr, cJSON_GetArraySize(arr) - 1) : NULL;
	cJSON_Delete(arr);
	return s;
}

cJSON *cli_job_view(struct cli *c, const char *name, const char *node)
{
	cJSON *s = cli_summary_find(c, name), *arr, *keep, *view = NULL;
	const cJSON *x;
	struct job_filter f;
	struct gather g;

	if (!s)
		return NULL;
	if (!names_job(s, name)) {
		const char *host = job_filter_node_of(s);

		if (!node || (host && !strcmp(host, node)))
			return s;
		cJSON_Delete(s);
		return strchr(name, '.') ? step_on_node(c, name, node) : NULL;
	}
	job_filter_init(&f);
	f.job_ids = cli_jstr(cJSON_GetObjectItem(s, "identity"), "job_id");
	f.nodes = node;
	arr = cli_summaries_select(c, &f);
	keep = cJSON_CreateArray();
	g = (struct gather){.arr = keep, .like = s};
	/* -j JOBID also selects the tasks of an array of that id: keep the job */
	cJSON_ArrayForEach(x, arr)
		if (!keep || gather_one(x, &g) != 0)
			break;
	if (cJSON_GetArraySize(keep) > 0)
		view = jobview_build(keep, &c->cfg);
	cJSON_Delete(arr);
	cJSON_Delete(keep);
	cJSON_Delete(s);
	return view;
}

/* Is s of Slurm job job_id on cluster (any cluster: NULL)? */
static bool of_cluster(const cJSON *s, const char *job_id, const char *cluster)
{
	const cJSON *id = cJSON_GetObjectItem(s, "identity");
	const char *j = cli_jstr(id, "job_id"), *cl = cli_jstr(id, "cluster");

	return j && !strcmp(j, job_id) && (!cluster || (cl && !strcmp(cl, cluster)));
}

cJSON *cli_job_view_of(struct cli *c, const char *job_id, const char *cluster, const char *user,
		       const char *node)
{
	struct job_filter f;
	cJSON *arr, *keep, *view = NULL;
	const cJSON *x, *like = NULL;
	struct gather g;

	job_filter_init(&f);
	f.job_ids = job_id;
	f.users = user;
	f.nodes = node;
	arr = cli_summaries_select(c, &f);
	/* the newest of the job's summaries on that cluster names the job */
	for (int i = cJSON_GetArraySize(arr) - 1; i >= 0 && !like; i--)
		if (of_cluster(cJSON_GetArrayItem(arr, i), job_id, cluster))
			like = cJSON_GetArrayItem(arr, i);
	keep = like ? cJSON_CreateArray() : NULL;
	g = (struct gather){.arr = keep, .like = like};
	cJSON_ArrayForEach(x, arr)
		if (!keep || gather_one(x, &g) != 0)
			break;
	if (keep && cJSON_GetArraySize(keep) > 0)
		view = jobview_build(keep, &c->cfg);
	cJSON_Delete(arr);
	cJSON_Delete(keep);
	return view;
}

/* "HH:MM:SS" (UTC) of epoch ns as text */
static const char *time_of_day(const char *ns, char *buf, size_t len)
{
	time_t t = ns ? (time_t)(strtoll(ns, NULL, 10) / 1000000000LL) : 0;
	struct tm tm;

	if (!ns || !gmtime_r(&t, &tm))
		return "-";
	strftime(buf, len, "%H:%M:%S", &tm);
	return buf;
}

void show_job_steps(const cJSON *view, int width)
{
	static const struct table_col cols[] = {
		{"STEP", 'l', 8, 0}, {"HOST", 'l', 8, 0}, {"START", 'r', 0, 2},
		{"WALL", 'r', 0, 0}, {"CPU", 'r', 0, 0}, {"PEAK", 'r', 0, 1},
		{"STATE", 'l', 0, 0},
	};
	const cJSON *steps = cJSON_GetObjectItem(view, "steps"), *st;
	int n = cJSON_GetArraySize(steps), listed = 0;
	struct table *tb;

	if (!cli_jstr(view, "scope") || n < 2)
		return;
	printf("\nSTEPS (%d on %d node(s), UTC)\n", n,
	       cJSON_GetArraySize(cJSON_GetObjectItem(view, "hosts")));
	tb = table_new(cols, 7);
	cJSON_ArrayForEach(st, steps) {
		char t[32], w[32], cpu[32], peak[32];

		if (listed++ == SHOW_STEPS)
			break;
		const char *row[] = {
			fmt_or_dash(cli_jstr(st, "step_id")), fmt_or_dash(cli_jstr(st, "host")),
			time_of_day(cli_jstr(st, "start_ns"), t, sizeof(t)),
			fmt_secs(cli_jnum(st, "wall_s"), w, sizeof(w)),
			fmt_secs(cli_jnum(st, "cpu_s"), cpu, sizeof(cpu)),
			fmt_bytes((uint64_t)cli_jnum(st, "mem_peak_bytes"), peak, sizeof(peak)),
			fmt_or_dash(cli_jstr(st, "state")),
		};
		table_add(tb, row);
	}
	table_print(tb, width, "");
	if (n > SHOW_STEPS)
		printf("%d more steps (--json lists them)\n", n - SHOW_STEPS);
}
