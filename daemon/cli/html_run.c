/*
 * html_run.c - the page of a run: every task of it on one page.  The
 * run's totals (tasks by state, CPU against the allocated core-seconds,
 * memory against the requests, cost), the tasks' flags as notes and
 * their right-sizing snippets, CPU and memory over time summed over the
 * tasks against what they had allocated, a timeline with one lane per
 * task, the tasks (sortable) and the tools over the whole run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

#define BUCKETS 600     /* points of the run's charts */
#define MAX_NOTES 200   /* flags listed; the rest counted */
#define MAX_SNIPPETS 50 /* task names with a recommendation */
#define MAX_RUN_TOOLS 2000

struct tool_sum {
	const char *name;
	double procs, cpu, peak, rchar, wchar;
};

struct run_sums {
	int tasks, failed;
	double cpu, core_s, mem_peak, mem_used, mem_req, cost;
	bool has_cost;
	int64_t t0, t1;
	struct tool_sum *tools;
	int ntools;
	bool tools_cut;
};

static double num0(const cJSON *o, const char *key)
{
	double v = cli_jnum(o, key);
	return isfinite(v) ? v : 0;
}

static double task_cpus(const cJSON *s)
{
	double c = cli_jnum(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "identity"), "allocation"), "cpus");

	if (!(c > 0))
		c = cli_jnum(cJSON_GetObjectItem(s, "host"), "cpus");
	return c > 0 ? c : 0;
}

static void add_tools(struct run_sums *r, const cJSON *s)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, cJSON_GetObjectItem(s, "tools")) {
		const char *name = fmt_or_dash(cli_jstr(t, "tool"));
		int k;

		for (k = 0; k < r->ntools && strcmp(r->tools[k].name, name); k++)
			;
		if (k == r->ntools) {
			if (k == MAX_RUN_TOOLS) {
				r->tools_cut = true;
				continue;
			}
			r->tools[r->ntools++].name = name;
		}
		r->tools[k].procs += num0(t, "processes");
		r->tools[k].cpu += num0(t, "cpu_s");
		r->tools[k].peak = fmax(r->tools[k].peak, num0(t, "peak_rss_bytes"));
		r->tools[k].rchar += num0(t, "rchar");
		r->tools[k].wchar += num0(t, "wchar");
	}
}

static void sum_up(struct run_sums *r, const cJSON *summaries)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, summaries) {
		const cJSON *mem = cJSON_GetObjectItem(s, "memory");
		const cJSON *cost = cJSON_GetObjectItem(s, "cost");
		int64_t st = html_ns_field(s, "start_ns"), en = html_ns_field(s, "end_ns");
		const char *state = cli_jstr(s, "state");

		r->tasks++;
		r->failed += state && strcmp(state, "COMPLETED") != 0;
		r->cpu += num0(cJSON_GetObjectItem(s, "totals"), "cpu_s");
		r->core_s += num0(s, "wall_s") * task_cpus(s);
		r->mem_peak = fmax(r->mem_peak, num0(mem, "peak_bytes"));
		if (num0(mem, "allocated_bytes") > 0) {
			r->mem_used += num0(mem, "peak_bytes");
			r->mem_req += num0(mem, "allocated_bytes");
		}
		if (cJSON_IsObject(cost) && isfinite(cli_jnum(cost, "total"))) {
			r->cost += cli_jnum(cost, "total");
			r->has_cost = true;
		}
		if (st && (!r->t0 || st < r->t0))
			r->t0 = st;
		if (en > r->t1)
			r->t1 = en;
		add_tools(r, s);
	}
	if (r->t1 <= r->t0)
		r->t1 = r->t0 + 1000000000;
}

static void header(FILE *f, const cJSON *summaries, const struct run_sums *r, const char *run)
{
	const cJSON *id = cJSON_GetObjectItem(cJSON_GetArrayItem(summaries, 0), "identity");
	char a[32], b[32], c[32];

	fputs("<header><h1>Run ", f);
	h_cut(f, run, 200);
	fputs("</h1>\n<table class=\"kv\" id=\"identity\"><tr><th>Run</th><td>", f);
	h_text(f, fmt_or_dash(cli_jstr(id, "run_id")));
	fputs(" <span class=\"muted\">name</span> ", f);
	h_text(f, fmt_or_dash(cli_jstr(id, "run_name")));
	fputs(" <span class=\"muted\">pipeline</span> ", f);
	h_text(f, fmt_or_dash(cli_jstr(id, "pipeline")));
	fprintf(f, "</td></tr>\n<tr><th>Tasks</th><td><b>%d</b>, %d not COMPLETED</td></tr>\n",
		r->tasks, r->failed);
	fprintf(f, "<tr><th>Time</th><td>wall of the run %s (first start to last end)</td></tr>\n",
		fmt_secs((double)(r->t1 - r->t0) / 1e9, a, sizeof(a)));
	fprintf(f, "<tr><th>CPU</th><td>%s of %s allocated core-seconds: efficiency "
		   "<b class=\"cpu-eff\">%s</b></td></tr>\n",
		fmt_secs(r->cpu, a, sizeof(a)), fmt_secs(r->core_s, b, sizeof(b)),
		fmt_pct(r->core_s > 0 ? r->cpu / r->core_s : NAN, c, sizeof(c)));
	fprintf(f, "<tr><th>Memory</th><td>largest task peak <b class=\"mem-peak\">%s</b>",
		fmt_bytes((uint64_t)r->mem_peak, a, sizeof(a)));
	if (r->mem_req > 0)
		fprintf(f, "; tasks with a request used %s of it",
			fmt_pct(r->mem_used / r->mem_req, b, sizeof(b)));
	fputs("</td></tr>\n", f);
	if (r->has_cost)
		fprintf(f, "<tr><th>Cost</th><td><b>%.4f</b></td></tr>\n", r->cost);
	fputs("</table></header>\n", f);
}

static void notes(FILE *f, const cJSON *summaries)
{
	const cJSON *s;
	const char *seen[MAX_SNIPPETS];
	int nflags = 0, nseen = 0, shown = 0;

	fputs("<section id=\"notes\"><h2>Notes</h2>\n", f);
	cJSON_ArrayForEach(s, summaries) {
		const cJSON *flags = cJSON_GetObjectItem(s, "flags");
		int n = cJSON_GetArraySize(flags);
		nflags += n;
		if (n > 0 && shown + n <= MAX_NOTES) {
			html_notes(f, flags, fmt_or_dash(cli_jstr(cJSON_GetObjectItem(s, "identity"), "task_name")));
			shown += n;
		}
	}
	if (nflags == 0)
		fputs("<p class=\"muted\">No findings.</p>\n", f);
	else if (shown < nflags)
		fprintf(f, "<p class=\"small\">%d flags in all; %d listed.</p>\n", nflags, shown);
	/* one snippet per task name: its newest task's (summaries are by
	 * start: walk back from the last) */
	for (s = summaries && summaries->child ? summaries->child->prev : NULL; s && nseen < MAX_SNIPPETS;
	     s = s == summaries->child ? NULL : s->prev) {
		const char *name = fmt_or_dash(cli_jstr(cJSON_GetObjectItem(s, "identity"), "task_name"));
		bool dup = false;

		if (!cJSON_IsObject(cJSON_GetObjectItem(s, "recommendation")))
			continue;
		for (int k = 0; k < nseen && !dup; k++)
			dup = !strcmp(seen[k], name);
		if (dup)
			continue;
		seen[nseen++] = name;
		html_snippets(f, cJSON_GetObjectItem(s, "recommendation"), name);
	}
	fputs("</section>\n", f);
}

/* the tasks' series summed on one grid: cores and memory in use, and
 * what the tasks running then had allocated */
static void charts(FILE *f, const cJSON *summaries, const struct run_sums *r)
{
	static double t[BUCKETS], cpu[BUCKETS], mem[BUCKETS], acpu[BUCKETS], amem[BUCKETS], one[BUCKETS];
	double w = (double)(r->t1 - r->t0) / 1e9 / BUCKETS;
	const cJSON *s;
	bool any = false, any_req = false;

	memset(cpu, 0, sizeof(cpu));
	memset(mem, 0, sizeof(mem));
	memset(acpu, 0, sizeof(acpu));
	memset(amem, 0, sizeof(amem));
	for (int b = 0; b < BUCKETS; b++)
		t[b] = (b + 1) * w;
	cJSON_ArrayForEach(s, summaries) {
		const cJSON *ts = cJSON_GetObjectItem(s, "timeseries");
		const cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItem(ts, "t_s"), 0);
		const cJSON *y = cJSON_GetArrayItem(cJSON_GetObjectItem(ts, "cpu_cores"), 0);
		const cJSON *z = cJSON_GetArrayItem(cJSON_GetObjectItem(ts, "mem_bytes"), 0);
		double off = (double)(html_ns_field(s, "start_ns") - r->t0) / 1e9, prev = 0;
		double end = off + num0(s, "wall_s"), req = num0(cJSON_GetObjectItem(s, "memory"), "allocated_bytes");

		for (int b = 0; b < BUCKETS; b++) /* allocation while the task ran */
			if (t[b] > off && t[b] - w < end) {
				acpu[b] += task_cpus(s);
				amem[b] += req;
			}
		memset(one, 0, sizeof(one));
		for (; x && y && z; x = x->next, y = y->next, z = z->next) {
			double t1 = x->valuedouble;
			/* spread the interval's CPU-seconds over the buckets it
			 * covers; its memory holds in each of them */
			for (int b = (int)((off + prev) / w); b < BUCKETS && b >= 0 && b * w < off + t1; b++) {
				double lo = fmax(b * w, off + prev), hi = fmin((b + 1) * w, off + t1);
				if (hi > lo)
					cpu[b] += y->valuedouble * (hi - lo) / w;
				if (z->valuedouble > one[b])
					one[b] = z->valuedouble;
			}
			prev = t1;
			any = true;
		}
		for (int b = 0; b < BUCKETS; b++)
			mem[b] += one[b];
	}
	if (!any) {
		fputs("<p class=\"muted\">No samples over time in these summaries.</p>\n", f);
		return;
	}
	svg_chart(f, &(struct chart){.id = "chart-cpu", .title = "CPU cores in use, all tasks",
		      .limit_label = "CPUs allocated to the tasks running", .t = t, .v = cpu,
		      .n = BUCKETS, .t_end = BUCKETS * w, .limit_v = acpu, .colour = "#4e79a7"});
	for (int b = 0; b < BUCKETS; b++)
		any_req = any_req || amem[b] > 0;
	svg_chart(f, &(struct chart){.id = "chart-mem", .title = "Memory in use, all tasks",
		      .limit_label = "memory requested by the tasks running", .t = t, .v = mem,
		      .n = BUCKETS, .t_end = BUCKETS * w, .limit_v = any_req ? amem : NULL, .bytes = true,
		      .colour = "#59a14f"});
}

static void tasks_table(FILE *f, const cJSON *summaries, const struct run_sums *r)
{
	const cJSON *s;
	char a[32], b[32];
	int i = 0;

	fputs("<table class=\"data sortable\" id=\"tasks\"><thead><tr><th>Task</th><th>Job</th>"
	      "<th>State</th><th>Start (s)</th><th>Wall</th><th>CPU</th><th>Efficiency</th>"
	      "<th>Peak memory</th><th>Memory used</th><th>Read</th><th>Written</th><th>Cost</th>"
	      "</tr></thead><tbody>\n", f);
	cJSON_ArrayForEach(s, summaries) {
		const cJSON *tot = cJSON_GetObjectItem(s, "totals");
		const cJSON *mem = cJSON_GetObjectItem(s, "memory");
		const cJSON *id = cJSON_GetObjectItem(s, "identity");

		if (i == HTML_MAX_TASKS)
			break;
		fprintf(f, "<tr id=\"pt%d\"><td><span class=\"sw\" style=\"background:%s\"></span>", i,
			html_colour(i));
		h_cut(f, fmt_or_dash(cli_jstr(id, "task_name")), 200);
		fputs("</td><td>", f);
		h_cut(f, fmt_or_dash(cli_jstr(s, "job")), 100);
		fputs("</td><td>", f);
		h_cut(f, fmt_or_dash(cli_jstr(s, "state")), 40);
		fprintf(f, "</td><td class=\"n\" data-v=\"%.3f\">%.3f</td>",
			(double)(html_ns_field(s, "start_ns") - r->t0) / 1e9,
			(double)(html_ns_field(s, "start_ns") - r->t0) / 1e9);
		svg_cell_bar(f, cli_jnum(s, "wall_s"), (double)(r->t1 - r->t0) / 1e9,
			     fmt_secs(cli_jnum(s, "wall_s"), a, sizeof(a)), html_colour(i));
		fprintf(f, "<td class=\"n\" data-v=\"%.6g\">%s</td>", num0(tot, "cpu_s"),
			fmt_secs(cli_jnum(tot, "cpu_s"), a, sizeof(a)));
		svg_cell_bar(f, cli_jnum(s, "cpu_efficiency"), 1, fmt_pct(cli_jnum(s, "cpu_efficiency"), a, sizeof(a)),
			     html_colour(i));
		svg_cell_bar(f, cli_jnum(mem, "peak_bytes"), r->mem_peak,
			     fmt_bytes((uint64_t)num0(mem, "peak_bytes"), a, sizeof(a)), html_colour(i));
		fprintf(f, "<td class=\"n\" data-v=\"%.6g\">%s</td>", isnan(cli_jnum(mem, "efficiency")) ? -1 :
			cli_jnum(mem, "efficiency"), fmt_pct(cli_jnum(mem, "efficiency"), a, sizeof(a)));
		fprintf(f, "<td class=\"n\" data-v=\"%.0f\">%s</td><td class=\"n\" data-v=\"%.0f\">%s</td>",
			num0(tot, "rchar"), fmt_bytes((uint64_t)num0(tot, "rchar"), a, sizeof(a)),
			num0(tot, "wchar"), fmt_bytes((uint64_t)num0(tot, "wchar"), b, sizeof(b)));
		if (isfinite(cli_jnum(cJSON_GetObjectItem(s, "cost"), "total")))
			fprintf(f, "<td class=\"n\" data-v=\"%.6g\">%.4f</td>",
				cli_jnum(cJSON_GetObjectItem(s, "cost"), "total"),
				cli_jnum(cJSON_GetObjectItem(s, "cost"), "total"));
		else
			fputs("<td class=\"n\" data-v=\"-1\">-</td>", f);
		fputs("</tr>\n", f);
		i++;
	}
	fputs("</tbody></table>\n", f);
	if (r->tasks > HTML_MAX_TASKS)
		fprintf(f, "<p class=\"small\">%d tasks; the first %d listed.</p>\n", r->tasks, HTML_MAX_TASKS);
}

static int cmp_tool_cpu(const void *a, const void *b)
{
	const struct tool_sum *x = a, *y = b;
	return x->cpu < y->cpu ? 1 : x->cpu > y->cpu ? -1 : 0;
}

static void tools_table(FILE *f, struct run_sums *r)
{
	double max_cpu = 0, max_peak = 0, max_r = 0, max_w = 0;
	char a[32];
	int n = r->ntools < HTML_MAX_TOOLS ? r->ntools : HTML_MAX_TOOLS;

	qsort(r->tools, (size_t)r->ntools, sizeof(*r->tools), cmp_tool_cpu);
	for (int k = 0; k < r->ntools; k++) {
		max_cpu = fmax(max_cpu, r->tools[k].cpu);
		max_peak = fmax(max_peak, r->tools[k].peak);
		max_r = fmax(max_r, r->tools[k].rchar);
		max_w = fmax(max_w, r->tools[k].wchar);
	}
	fputs("<table class=\"data sortable\" id=\"tools\"><thead><tr><th>Tool</th><th>Processes</th>"
	      "<th>CPU</th><th>Share of the run's CPU</th><th>Peak memory</th><th>Read</th>"
	      "<th>Written</th></tr></thead><tbody>\n", f);
	for (int k = 0; k < n; k++) {
		const struct tool_sum *t = &r->tools[k];
		fputs("<tr data-tool=\"", f);
		h_text(f, t->name);
		fputs("\"><td>", f);
		h_cut(f, t->name, 200);
		fprintf(f, "</td><td class=\"n\" data-v=\"%.0f\">%.0f</td>", t->procs, t->procs);
		svg_cell_bar(f, t->cpu, max_cpu, fmt_secs(t->cpu, a, sizeof(a)), NULL);
		svg_cell_bar(f, r->cpu > 0 ? t->cpu / r->cpu : NAN, 1,
			     fmt_pct(r->cpu > 0 ? t->cpu / r->cpu : NAN, a, sizeof(a)), NULL);
		svg_cell_bar(f, t->peak, max_peak, fmt_bytes((uint64_t)t->peak, a, sizeof(a)), NULL);
		svg_cell_bar(f, t->rchar, max_r, fmt_bytes((uint64_t)t->rchar, a, sizeof(a)), NULL);
		svg_cell_bar(f, t->wchar, max_w, fmt_bytes((uint64_t)t->wchar, a, sizeof(a)), NULL);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (r->ntools > n || r->tools_cut)
		fprintf(f, "<p class=\"small\">%d%s tools; the %d heaviest listed.</p>\n", r->ntools,
			r->tools_cut ? "+" : "", n);
}

void html_run_body(FILE *f, const cJSON *summaries, const char *run)
{
	struct run_sums r = {0};

	r.tools = calloc(MAX_RUN_TOOLS, sizeof(*r.tools));
	if (!r.tools) {
		fputs("<p>Out of memory.</p>\n", f);
		return;
	}
	sum_up(&r, summaries);
	header(f, summaries, &r, run);
	notes(f, summaries);
	fputs("<section id=\"over-time\"><h2>Over time</h2>\n", f);
	charts(f, summaries, &r);
	fputs("</section>\n<section id=\"timeline-section\"><h2>Timeline</h2>\n", f);
	html_run_timeline(f, summaries, r.t0, r.t1);
	fputs("</section>\n<section id=\"tasks-section\"><h2>Tasks</h2>\n", f);
	tasks_table(f, summaries, &r);
	fputs("</section>\n<section id=\"tools-section\"><h2>Tools over the run</h2>\n", f);
	tools_table(f, &r);
	fputs("</section>\n", f);
	free(r.tools);
}

/* ---- the run's summaries from the archive ---- */

struct collect {
	struct job_filter filter;
	cJSON *out;
};

static int collect_one(const cJSON *s, void *ctx)
{
	struct collect *c = ctx;
	cJSON *copy;

	if (!job_filter_summary(&c->filter, s))
		return 0;
	copy = cJSON_Duplicate(s, true);
	if (!copy)
		return 1;
	cJSON_AddItemToArray(c->out, copy);
	return 0;
}

static int cmp_start(const void *a, const void *b)
{
	int64_t x = html_ns_field(*(const cJSON *const *)a, "start_ns");
	int64_t y = html_ns_field(*(const cJSON *const *)b, "start_ns");
	return x < y ? -1 : x > y;
}

int html_report_run(struct cli *cli, const char *run, const char *path)
{
	struct collect c = {.out = cJSON_CreateArray()};
	cJSON *sorted = cJSON_CreateArray(), **v = NULL;
	int files = 0, n, rc = 1;

	job_filter_init(&c.filter);
	c.filter.runs = run;
	if (!c.out || !sorted)
		goto out;
	if (cli_summaries_each(cli, &c.filter, collect_one, &c, &files) != 0)
		goto out; /* the file was named, or out of memory */
	n = cJSON_GetArraySize(c.out);
	if (n == 0) {
		fprintf(stderr, "tracer report: no task of run %s in %s\n", run, cli->cfg.file_path);
		goto out;
	}
	v = calloc((size_t)n, sizeof(*v));
	if (!v)
		goto out;
	for (int i = 0; i < n; i++)
		v[i] = cJSON_DetachItemFromArray(c.out, 0);
	qsort(v, (size_t)n, sizeof(*v), cmp_start);
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(sorted, v[i]);
	rc = html_write_run(sorted, run, path);
out:
	free(v);
	cJSON_Delete(c.out);
	cJSON_Delete(sorted);
	return rc;
}
