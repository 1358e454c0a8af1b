/*
 * report.c - `tracer report`: totals, efficiencies, flags and cost across
 * the jobs of the local archive (the file sink and its rotated files),
 * grouped by run, task, tool, user or pipeline; a table, JSON or CSV
 * (report_out.c).  Reads summaries one at a time: memory grows with the
 * number of groups, not of jobs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "filter_opts.h"
#include "html.h"
#include "jobview.h"
#include "report.h"

#define DEFAULT_SINCE "7d"

static const char *const by_names[] = {"all", "run", "task", "tool", "user", "pipeline"};

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: tracer report [--since DURATION] [--by run|task|tool|user|pipeline]\n"
		"                     [-j JOBID] [-u USER] [-A ACCOUNT] [--partition P]\n"
		"                     [-N HOST] [-S TIME] [-E TIME]\n"
		"                     [--json | --csv | --wide] [--clickhouse]\n"
		"       tracer report --run RUN --html FILE\n"
		"Totals across the jobs of the local archive (the summary file and its\n"
		"rotated files FILE.1 ... FILE.N) that ended in the window, per group: jobs,\n"
		"failures, wall and CPU time, CPU and memory efficiency, bytes read and\n"
		"written, flags and cost.  A job of several steps or nodes counts once,\n"
		"rolled up as `tracer show JOB` shows it: its allocation once per node.\n"
		"      --since DURATION  the window: 90m, 24h, 7d, 2w (default %s)\n"
		"      --by GROUP        run, task, tool, user or pipeline (default: all jobs\n"
		"                        as one group)\n"
		"  -j, --jobs JOBID[,...]  only these jobs (1234, 1234.0, 1234_7), and:\n"
		"  -u, --user USER[,...]   of these users\n"
		"  -A, --account A[,...]   of these accounts\n"
		"      --partition P[,...] in these partitions\n"
		"  -N, --nodelist H[,...]  their steps on these nodes\n"
		"  -S, --starttime TIME    running at or after TIME (now-7days, today,\n"
		"                          2026-11-22T06:30; local time unless it ends\n"
		"                          in Z or an offset such as +01:00)\n"
		"  -E, --endtime TIME      started at or before TIME\n"
		"      --json            the groups as JSON\n"
		"      --csv             the groups as CSV\n"
		"      --wide            the table as wide as it needs (default: the\n"
		"                        terminal's width, 80 when not a terminal)\n"
		"      --clickhouse      the same from ClickHouse's tables (every node's jobs;\n"
		"                        clickhouse_url, clickhouse_database, ...; no cost)\n"
		"      --run RUN         only the tasks of run RUN (its id or name)\n"
		"      --html FILE       with --run: every task of the run on one self-contained\n"
		"                        HTML page, whenever they ended (FILE - : stdout)\n"
		"  -h, --help            this help\n", DEFAULT_SINCE);
}

/* 0, 1 after --help, 2 on a usage error (one line said why) */
static int parse_args(struct report *r, int argc, char **argv)
{
	enum { O_JSON = 256, O_CSV, O_SINCE, O_BY, O_CLICKHOUSE, O_RUN, O_HTML };
	static const struct option own[] = {
		{"json", no_argument, NULL, O_JSON},
		{"csv", no_argument, NULL, O_CSV},
		{"since", required_argument, NULL, O_SINCE},
		{"by", required_argument, NULL, O_BY},
		{"clickhouse", no_argument, NULL, O_CLICKHOUSE},
		{"run", required_argument, NULL, O_RUN},
		{"html", required_argument, NULL, O_HTML},
		{"wide", no_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct option opts[sizeof(own) / sizeof(own[0]) + FILTER_OPTS_COUNT];
	const char *since = DEFAULT_SINCE;
	int c, taken;

	job_filter_init(&r->filter);
	if (filter_opts_table(opts, sizeof(opts) / sizeof(opts[0]), own) != 0)
		return 2;
	while ((c = cli_getopt(argc, argv, ":h" FILTER_OPTS_SHORT, opts, "report")) != -1) {
		taken = filter_opts_take(c, optarg, "report", &r->filter);
		if (taken == 2)
			return 2;
		if (taken == 0)
			continue;
		if (c == O_JSON) {
			r->format = REPORT_JSON;
		} else if (c == O_CSV) {
			r->format = REPORT_CSV;
		} else if (c == O_CLICKHOUSE) {
			r->clickhouse = true;
		} else if (c == O_RUN) {
			r->run = optarg;
		} else if (c == O_HTML) {
			r->html = optarg;
		} else if (c == O_SINCE) {
			since = optarg;
		} else if (c == O_BY) {
			const char *b = optarg;
			r->by = -1;
			for (int k = 1; k < (int)(sizeof(by_names) / sizeof(by_names[0])); k++)
				if (!strcmp(b, by_names[k]))
					r->by = (enum report_by)k;
			if ((int)r->by < 0) {
				fprintf(stderr, "tracer report: --by %s: expected run, task, tool, user or pipeline\n", b);
				return 2;
			}
		} else if (c == 'w') {
			r->wide = true;
		} else if (c == 'h') {
			report_usage(stdout);
			return 1;
		} else {
			return 2;
		}
	}
	if (optind < argc)
		return cli_extra_arg("report", argv[optind]);
	if (r->html && (!r->run || r->clickhouse)) {
		fprintf(stderr, "tracer report: --html needs --run RUN (and the local archive)\n");
		return 2;
	}
	r->since_s = clock_parse_duration(since);
	if (r->since_s < 0) {
		fprintf(stderr, "tracer report: --since %s: expected a duration such as 90m, 24h, 7d, 2w\n", since);
		return 2;
	}
	snprintf(r->since_text, sizeof(r->since_text), "%s", since);
	r->by_name = by_names[r->by];
	return 0;
}

/* ---- groups: open addressing on the key ---- */

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int grow(struct report *r)
{
	size_t cap = r->cap ? r->cap * 2 : 64;
	struct group **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < r->cap; i++) {
		if (!r->slots[i])
			continue;
		size_t k = hash(r->slots[i]->key) & (cap - 1);
		while (slots[k])
			k = (k + 1) & (cap - 1);
		slots[k] = r->slots[i];
	}
	free(r->slots);
	r->slots = slots;
	r->cap = cap;
	return 0;
}

struct group *report_group(struct report *r, const char *key)
{
	size_t k;

	if ((r->ngroups + 1) * 10 > r->cap * 7 && grow(r) != 0)
		return NULL;
	for (k = hash(key) & (r->cap - 1); r->slots[k]; k = (k + 1) & (r->cap - 1))
		if (!strcmp(r->slots[k]->key, key))
			return r->slots[k];
	struct group *g = calloc(1, sizeof(*g));
	if (!g || !(g->key = strdup(key))) {
		free(g);
		return NULL;
	}
	r->slots[k] = g;
	r->ngroups++;
	return g;
}

static void group_free(struct group *g)
{
	for (size_t i = 0; i < g->nflags; i++)
		free(g->flags[i].id);
	free(g->flags);
	free(g->key);
	free(g);
}

void report_add_flag(struct group *g, const char *id, uint64_t n)
{
	for (size_t i = 0; i < g->nflags; i++)
		if (!strcmp(g->flags[i].id, id)) {
			g->flags[i].n += n;
			return;
		}
	struct flag_count *f = realloc(g->flags, (g->nflags + 1) * sizeof(*f));
	if (!f)
		return;
	g->flags = f;
	if ((f[g->nflags].id = strdup(id)) != NULL)
		f[g->nflags++].n = n;
}

/* ---- one summary ---- */

/* nanoseconds since the epoch: a string (tracer.job/2) or a number */
static double end_time_s(const cJSON *s)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, "end_ns");

	if (cJSON_IsString(v))
		return strtod(v->valuestring, NULL) / 1e9;
	if (cJSON_IsNumber(v))
		return v->valuedouble / 1e9;
	return NAN;
}

static double num0(const cJSON *o, const char *key)
{
	double v = cli_jnum(o, key);
	return isnan(v) ? 0 : v;
}

/* cost: a number, or an object with "total" (and "unused") */
static void add_cost(struct group *g, const cJSON *cost)
{
	if (cJSON_IsNumber(cost)) {
		g->cost += cost->valuedouble;
		g->has_cost = true;
	} else if (cJSON_IsObject(cost) && !isnan(cli_jnum(cost, "total"))) {
		g->cost += cli_jnum(cost, "total");
		g->cost_unused += num0(cost, "unused");
		g->has_cost = true;
	}
}

static bool job_failed(const cJSON *s)
{
	const char *state = cli_jstr(s, "state");
	const cJSON *e = cJSON_GetObjectItem(s, "exit");

	if (state)
		return strcmp(state, "COMPLETED") != 0;
	return !isnan(cli_jnum(e, "signal")) || (!isnan(cli_jnum(e, "code")) && cli_jnum(e, "code") != 0);
}

/* the job's core-seconds: wall x allocated CPUs (or the host's), as
 * the summary's cpu_efficiency */
static double core_seconds(const cJSON *s)
{
	const cJSON *id = cJSON_GetObjectItem(s, "identity");
	double cpus = cli_jnum(cJSON_GetObjectItem(id, "allocation"), "cpus");

	if (isnan(cpus) || cpus <= 0)
		cpus = cli_jnum(cJSON_GetObjectItem(s, "host"), "cpus");
	return isnan(cpus) ? 0 : num0(s, "wall_s") * cpus;
}

static void add_job(struct group *g, const cJSON *s, double core_s)
{
	const cJSON *tot = cJSON_GetObjectItem(s, "totals");
	const cJSON *mem = cJSON_GetObjectItem(s, "memory");
	const cJSON *f;
	double peak = num0(mem, "peak_bytes"), alloc = num0(mem, "allocated_bytes");

	g->jobs++;
	g->failed += job_failed(s);
	g->wall_s += num0(s, "wall_s");
	g->cpu_s += num0(tot, "cpu_s");
	g->core_s += core_s;
	g->read_bytes += num0(tot, "rchar");
	g->write_bytes += num0(tot, "wchar");
	if (peak > g->peak_bytes)
		g->peak_bytes = peak;
	if (alloc > 0) {
		g->mem_used_bytes += peak;
		g->mem_alloc_bytes += alloc;
	}
	add_cost(g, cJSON_GetObjectItem(s, "cost"));
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(s, "flags")) {
		const char *id = cJSON_IsString(f) ? f->valuestring : cli_jstr(f, "id");
		if (id)
			report_add_flag(g, id, 1);
	}
}

static void add_tool(struct group *g, const cJSON *t, double core_s)
{
	const cJSON *x;
	double peak = num0(t, "peak_rss_bytes");

	g->jobs++;
	g->processes += num0(t, "processes");
	g->cpu_s += num0(t, "cpu_s");
	g->wall_s += num0(t, "wall_s");
	g->core_s += core_s;
	g->read_bytes += num0(t, "rchar");
	g->write_bytes += num0(t, "wchar");
	if (peak > g->peak_bytes)
		g->peak_bytes = peak;
	add_cost(g, cJSON_GetObjectItem(t, "cost"));
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(t, "exit_codes"))
		if (!isnan(cli_jnum(x, "signal")) || num0(x, "code") != 0 || cli_jstr(x, "other"))
			g->failed += num0(x, "count");
}

static const char *key_of(const struct report *r, const cJSON *s)
{
	const cJSON *id = cJSON_GetObjectItem(s, "identity");
	const char *k = NULL;

	switch (r->by) {
	case REPORT_BY_RUN:
		k = cli_jstr(id, "run_id") ? cli_jstr(id, "run_id") : cli_jstr(id, "run_name");
		break;
	case REPORT_BY_TASK:
		k = cli_jstr(id, "task_name");
		break;
	case REPORT_BY_USER:
		k = cli_jstr(id, "user");
		break;
	case REPORT_BY_PIPELINE:
		k = cli_jstr(id, "pipeline");
		break;
	default:
		return "all";
	}
	return k && *k ? k : "-";
}

/* A copy of s without what the roll-up does not read (process tree,
 * time series), for the end. */
static int keep_step(struct report *r, const cJSON *s)
{
	cJSON *copy;

	if (!r->steps && !(r->steps = cJSON_CreateArray()))
		return 1;
	copy = cJSON_Duplicate(s, 1);
	if (!copy)
		return 1;
	cJSON_DeleteItemFromObjectCaseSensitive(copy, "process_tree");
	cJSON_DeleteItemFromObjectCaseSensitive(copy, "timeseries");
	if (!cJSON_AddItemToArray(r->steps, copy)) {
		cJSON_Delete(copy);
		return 1;
	}
	return 0;
}

static int on_summary(const cJSON *s, void *ctx)
{
	struct report *r = ctx;
	const cJSON *t;
	const char *sched = cli_jstr(cJSON_GetObjectItem(s, "identity"), "scheduler");
	double end = end_time_s(s), core_s;

	/* processes outside any job (trace_all) are not a job */
	if (sched && !strcmp(sched, "host"))
		return 0;
	if (isnan(end) || end < r->from_s)
		return 0;
	if (r->run) {
		struct job_filter f;
		job_filter_init(&f);
		f.runs = r->run;
		if (!job_filter_summary(&f, s))
			return 0;
	}
	if (!r->rolled && !job_filter_summary(&r->filter, s))
		return 0; /* a job view: its steps were selected */
	/* a scheduler's job may have several steps and nodes: kept to be
	 * rolled up once every summary is read */
	if (cli_jstr(cJSON_GetObjectItem(s, "identity"), "job_id") && !r->rolled)
		return keep_step(r, s);
	r->jobs++;
	core_s = core_seconds(s);
	if (r->by != REPORT_BY_TOOL) {
		struct group *g = report_group(r, key_of(r, s));
		if (!g)
			return 1;
		add_job(g, s, core_s);
		return 0;
	}
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(s, "tools")) {
		struct group *g = report_group(r, cli_jstr(t, "tool") ? cli_jstr(t, "tool") : "-");
		if (!g)
			return 1;
		add_tool(g, t, core_s);
	}
	return 0;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct group *x = *(struct group *const *)a, *y = *(struct group *const *)b;

	if (x->cpu_s != y->cpu_s)
		return x->cpu_s < y->cpu_s ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* The kept steps as jobs: each job's view counted as one job. */
static int add_jobs(struct cli *c, struct report *r)
{
	cJSON *views = jobview_group(r->steps, &c->cfg, 0, NULL, NULL);
	const cJSON *v;
	int rc = 0;

	if (!views)
		return 1;
	r->rolled = true;
	cJSON_ArrayForEach(v, views)
		if ((rc = on_summary(v, r)) != 0)
			break;
	cJSON_Delete(views);
	return rc;
}

int report_command(struct cli *c, int argc, char **argv)
{
	struct report r = {.format = c->json ? REPORT_JSON : REPORT_TABLE};
	struct group **v = NULL;
	int rc, n = 0;

	rc = parse_args(&r, argc, argv);
	if (rc != 0)
		return rc == 1 ? 0 : 2;
	if (r.html)
		return html_report_run(c, r.run, r.html);
	r.now_s = (double)clock_real_ns() / 1e9;
	r.from_s = r.now_s - r.since_s;
	r.path = r.clickhouse ? c->cfg.clickhouse_url : c->cfg.file_path;
	if (r.clickhouse) {
		rc = report_from_clickhouse(&r, &c->cfg) == 0 ? 0 : -1;
	} else {
		/* the selection goes to where the summaries are (tracerd, the
		 * datalake), so that only the window's are read: on_summary
		 * checks each again */
		struct job_filter f = r.filter;
		int64_t from = (int64_t)floor(r.from_s) * 1000000000;

		if (f.since_ns == INT64_MIN || f.since_ns < from)
			f.since_ns = from;
		if (r.run)
			f.runs = r.run;
		rc = cli_summaries_each(c, &f, on_summary, &r, &r.files);
	}
	if (rc == 0 && r.steps)
		rc = add_jobs(c, &r);
	if (rc != 0) {
		if (rc > 0) /* < 0: the file that cannot be read was named */
			fprintf(stderr, "tracer report: out of memory\n");
		rc = 1;
		goto out;
	}
	v = calloc(r.ngroups ? r.ngroups : 1, sizeof(*v));
	if (!v) {
		rc = 1;
		goto out;
	}
	for (size_t i = 0; i < r.cap; i++)
		if (r.slots[i])
			v[n++] = r.slots[i];
	qsort(v, (size_t)n, sizeof(*v), cmp_cpu);
	rc = report_print(&r, v, (size_t)n) == 0 ? 0 : 1;
out:
	for (size_t i = 0; i < r.cap; i++)
		if (r.slots[i])
			group_free(r.slots[i]);
	free(r.slots);
	free(v);
	cJSON_Delete(r.steps);
	return rc;
}
