/*
 * html_timeline.c - timelines as inline SVG.  A job: one lane per tool
 * (first started first), a bar per process from its start to its end in
 * the tool's colour, overlapping processes on sub-rows; a bar's tooltip
 * (an SVG <title>, which browsers show without JavaScript) holds its
 * command line and totals, and a click selects its row in the process
 * table.  Processes beyond the bounds are drawn as one pale bar per lane
 * that says how many it stands for.  A run: one lane per task.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

#define TW 1000    /* width in SVG units */
#define LABEL 190  /* left margin for lane names */
#define ROWH 9     /* a bar's row */
#define ROWS_MAX 6 /* sub-rows per lane; more overlap */
#define LANE_PAD 5
#define AXIS 22
#define AGG_BINS 120 /* the aggregated processes of a lane: a density strip */
#define AGG_H 8

/* ---- which processes are shown one by one ---- */

static int cmp_cpu_desc(const void *a, const void *b)
{
	double x = cli_jnum(**(const cJSON *const *const *)a, "cpu_s");
	double y = cli_jnum(**(const cJSON *const *const *)b, "cpu_s");

	x = isnan(x) ? -1 : x;
	y = isnan(y) ? -1 : y;
	return x < y ? 1 : x > y ? -1 : 0;
}

int html_procs_load(struct procs *ps, const cJSON *s)
{
	const cJSON *tree = cJSON_GetObjectItem(s, "process_tree"), *p;
	const cJSON ***order;
	int i = 0;

	memset(ps, 0, sizeof(*ps));
	ps->n = cJSON_IsArray(tree) ? cJSON_GetArraySize(tree) : 0;
	ps->v = calloc(ps->n ? ps->n : 1, sizeof(*ps->v));
	ps->keep = calloc(ps->n ? ps->n : 1, 1);
	order = calloc(ps->n ? ps->n : 1, sizeof(*order));
	if (!ps->v || !ps->keep || !order) {
		free(order);
		html_procs_free(ps);
		return -1;
	}
	cJSON_ArrayForEach(p, tree)
		ps->v[i++] = p;
	for (i = 0; i < ps->n; i++)
		order[i] = &ps->v[i];
	qsort(order, (size_t)ps->n, sizeof(*order), cmp_cpu_desc);
	for (i = 0; i < ps->n && ps->nkeep < HTML_MAX_PROCS; i++) {
		ps->keep[order[i] - ps->v] = 1;
		ps->nkeep++;
	}
	/* the registrant and the roots: the top of the tree (a few) */
	for (i = 0; i < ps->n && ps->nkeep < HTML_MAX_PROCS + 16; i++)
		if (!ps->keep[i] && (cJSON_IsTrue(cJSON_GetObjectItem(ps->v[i], "registrant")) ||
				     cJSON_IsTrue(cJSON_GetObjectItem(ps->v[i], "root")))) {
			ps->keep[i] = 1;
			ps->nkeep++;
		}
	free(order);
	return 0;
}

void html_procs_free(struct procs *ps)
{
	free(ps->v);
	free(ps->keep);
	memset(ps, 0, sizeof(*ps));
}

int html_tool_rank(const cJSON *tools, const char *tool)
{
	const cJSON *t;
	int i = 0;

	cJSON_ArrayForEach(t, tools) {
		const char *name = cli_jstr(t, "tool");
		if (name && tool && !strcmp(name, tool))
			return i;
		i++;
	}
	return -1;
}

void html_proc_tip(FILE *f, const cJSON *p, int64_t t0)
{
	char a[32], b[32], c[32], d[32], e[32], ex[32];
	int64_t st = html_time_ns(p, "start");

	h_cut(f, fmt_or_dash(cli_jstr(p, "tool")), 200);
	fprintf(f, " (pid %.0f, parent %.0f)%s%s\n", cli_jnum(p, "pid"), cli_jnum(p, "ppid"),
		cJSON_IsTrue(cJSON_GetObjectItem(p, "oom_killed")) ? ", OOM-killed" : "",
		cJSON_IsTrue(cJSON_GetObjectItem(p, "outlived")) ? ", outlived the job" : "");
	h_cut(f, fmt_or_dash(cli_jstr(p, "cmdline")), HTML_CMD_TITLE);
	fprintf(f, "\nstart +%.3f s, wall %s, CPU %s, peak memory %s\nread %s, written %s, exit %s",
		st && t0 ? (double)(st - t0) / 1e9 : 0.0, fmt_secs(cli_jnum(p, "wall_s"), a, sizeof(a)),
		fmt_secs(cli_jnum(p, "cpu_s"), b, sizeof(b)),
		fmt_bytes((uint64_t)fmax(cli_jnum(p, "peak_rss_bytes"), 0), c, sizeof(c)),
		fmt_bytes((uint64_t)fmax(cli_jnum(p, "rchar"), 0), d, sizeof(d)),
		fmt_bytes((uint64_t)fmax(cli_jnum(p, "wchar"), 0), e, sizeof(e)),
		fmt_exit_text(p, "code", ex, sizeof(ex)));
}

/* ---- lanes ---- */

struct lane {
	const char *name;
	int64_t first;            /* first start: the lanes' order */
	int rows;
	int64_t row_end[ROWS_MAX];
	/* processes not shown one by one */
	long agg_n;
	double agg_cpu;
	uint32_t bins[AGG_BINS];  /* aggregated processes running in each bin */
	int y;
};

static int cmp_lane_first(const void *a, const void *b)
{
	const struct lane *x = a, *y = b;
	return x->first < y->first ? -1 : x->first > y->first;
}

static double xpos(int64_t t, int64_t t0, int64_t t1)
{
	double span = t1 > t0 ? (double)(t1 - t0) : 1;
	double x = LABEL + (double)(t - t0) / span * (TW - LABEL - 10);

	return x < LABEL ? LABEL : x > TW - 10 ? TW - 10 : x;
}

static void time_axis(FILE *f, int64_t t0, int64_t t1, int height)
{
	double span = (double)(t1 - t0) / 1e9, step = 1;
	static const double steps[] = {0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600,
				       900, 1800, 3600, 7200, 14400, 43200, 86400};

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		step = steps[i];
		if (span / step <= 10)
			break;
	}
	for (double t = 0; t <= span * 1.0001 && step > 0; t += step) {
		double x = xpos(t0 + (int64_t)(t * 1e9), t0, t1);
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
			   "<text x=\"%.1f\" y=\"14\" text-anchor=\"%s\">+%g s</text>\n",
			x, x, AXIS - 4, height, x, x > TW - 40 ? "end" : "middle", t);
	}
}

/* a sub-row where [start, end) fits, else the one free first */
static int place(struct lane *l, int64_t start, int64_t end)
{
	int best = 0;

	for (int r = 0; r < l->rows; r++) {
		if (l->row_end[r] <= start) {
			l->row_end[r] = end;
			return r;
		}
		if (l->row_end[r] < l->row_end[best])
			best = r;
	}
	if (l->rows < ROWS_MAX) {
		l->row_end[l->rows] = end;
		return l->rows++;
	}
	if (end > l->row_end[best])
		l->row_end[best] = end;
	return best;
}

/* one more aggregated process running over [st, en) */
static void count_bins(struct lane *l, int64_t st, int64_t en, int64_t t0, int64_t t1)
{
	double span = t1 > t0 ? (double)(t1 - t0) : 1;
	int a = (int)((double)(st - t0) / span * AGG_BINS), b = (int)((double)(en - t0) / span * AGG_BINS);

	a = a < 0 ? 0 : a >= AGG_BINS ? AGG_BINS - 1 : a;
	b = b < a ? a : b >= AGG_BINS ? AGG_BINS - 1 : b;
	for (int k = a; k <= b; k++)
		l->bins[k]++;
}

/* the density strip of a lane's aggregated processes: its height in
 * each bin is their number running then, against the lane's most */
static void agg_strip(FILE *f, const struct lane *l, int y, const char *col)
{
	uint32_t most = 1;
	double w = (double)(TW - LABEL - 10) / AGG_BINS;

	for (int k = 0; k < AGG_BINS; k++)
		if (l->bins[k] > most)
			most = l->bins[k];
	fprintf(f, "<path class=\"agg\" fill=\"%s\" d=\"M%d %d", col, LABEL, y + AGG_H);
	for (int k = 0; k < AGG_BINS; k++) {
		double h = (double)l->bins[k] / most * AGG_H;
		fprintf(f, "L%.1f %.1fL%.1f %.1f", LABEL + k * w, y + AGG_H - h, LABEL + (k + 1) * w,
			y + AGG_H - h);
	}
	fprintf(f, "L%d %dZ\"><title>%ld more processes of this lane, aggregated: CPU %.3f s in all; "
		   "the height is how many ran at once (at most %u)</title></path>\n",
		TW - 10, y + AGG_H, l->agg_n, l->agg_cpu, most);
}

static int lane_of(struct lane *lanes, int nl, const char *tool)
{
	for (int i = 0; i < nl - 1; i++)
		if (tool && !strcmp(lanes[i].name, tool))
			return i;
	return nl - 1; /* the shared last lane */
}

void html_job_timeline(FILE *f, const cJSON *s, const struct procs *ps)
{
	const cJSON *tools = cJSON_GetObjectItem(s, "tools"), *t;
	int64_t t0 = html_ns_field(s, "start_ns"), t1 = html_ns_field(s, "end_ns");
	struct lane lanes[HTML_MAX_TOOL_LANES + 1];
	int nl = 0, ntools = cJSON_GetArraySize(tools), y, height, *row;
	long aggregated = 0;

	memset(lanes, 0, sizeof(lanes));
	cJSON_ArrayForEach(t, tools) {
		if (nl == HTML_MAX_TOOL_LANES)
			break;
		lanes[nl].name = fmt_or_dash(cli_jstr(t, "tool"));
		lanes[nl].first = html_time_ns(t, "first_start");
		nl++;
	}
	qsort(lanes, (size_t)nl, sizeof(lanes[0]), cmp_lane_first);
	lanes[nl].name = ntools > HTML_MAX_TOOL_LANES ? "(other tools)" : "(not a tool)";
	nl++;
	row = calloc(ps->n ? ps->n : 1, sizeof(*row));
	if (!row)
		return;
	/* sub-rows of the shown processes, in start order (the tree's order) */
	for (int i = 0; i < ps->n; i++) {
		const cJSON *p = ps->v[i];
		int64_t st = html_time_ns(p, "start"), en = html_time_ns(p, "end");
		struct lane *l = &lanes[lane_of(lanes, nl, cli_jstr(p, "tool"))];

		if (cJSON_IsTrue(cJSON_GetObjectItem(p, "registrant")))
			continue;
		en = en ? en : t1;
		if (!ps->keep[i]) {
			l->agg_n++;
			l->agg_cpu += fmax(cli_jnum(p, "cpu_s"), 0);
			count_bins(l, st, en, t0, t1);
			aggregated++;
			continue;
		}
		row[i] = place(l, st, en);
	}
	y = AXIS;
	for (int k = 0; k < nl; k++) {
		lanes[k].y = y;
		if (lanes[k].rows || lanes[k].agg_n)
			y += (lanes[k].rows ? lanes[k].rows : 1) * ROWH + (lanes[k].agg_n ? AGG_H + 2 : 0) + LANE_PAD * 2;
	}
	height = y + 4;
	fprintf(f, "<figure id=\"timeline\"><svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		   "xmlns=\"http://www.w3.org/2000/svg\"><title>Timeline: a lane per tool, a bar per process"
		   "</title>\n", TW, height, TW, height);
	time_axis(f, t0, t1, height);
	for (int k = 0; k < nl; k++) {
		struct lane *l = &lanes[k];
		int lh = (l->rows ? l->rows : 1) * ROWH + (l->agg_n ? AGG_H + 2 : 0) + LANE_PAD * 2;
		const char *col = html_colour(html_tool_rank(tools, l->name));

		if (!l->rows && !l->agg_n)
			continue;
		fprintf(f, "<g class=\"lane\" data-lane=\"");
		h_text(f, l->name);
		fprintf(f, "\"><rect class=\"lane\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\"/>"
			   "<text x=\"4\" y=\"%d\">", l->y, TW, lh - 2, l->y + LANE_PAD + 8);
		h_cut(f, l->name, 30);
		fputs("</text>\n", f);
		if (l->agg_n)
			agg_strip(f, l, l->y + lh - LANE_PAD - AGG_H - 1, col);
		for (int i = 0; i < ps->n; i++) {
			const cJSON *p = ps->v[i];
			int64_t st, en;

			if (!ps->keep[i] || cJSON_IsTrue(cJSON_GetObjectItem(p, "registrant")) ||
			    &lanes[lane_of(lanes, nl, cli_jstr(p, "tool"))] != l)
				continue;
			st = html_time_ns(p, "start");
			en = html_time_ns(p, "end");
			en = en ? en : t1;
			fprintf(f, "<rect data-p=\"%d\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				   "fill=\"%s\"%s><title>", i, xpos(st, t0, t1),
				l->y + LANE_PAD + row[i] * ROWH, fmax(xpos(en, t0, t1) - xpos(st, t0, t1), 1.5),
				ROWH - 2, col,
				cJSON_IsTrue(cJSON_GetObjectItem(p, "oom_killed")) ? " stroke=\"#c62828\"" : "");
			html_proc_tip(f, p, t0);
			fputs("</title></rect>\n", f);
		}
		fputs("</g>\n", f);
	}
	fputs("</svg>", f);
	fprintf(f, "<figcaption class=\"small\">%d processes drawn one by one", ps->nkeep);
	if (aggregated)
		fprintf(f, "; %ld lighter ones aggregated: the pale strip under a lane shows how many "
			   "of them ran at once", aggregated);
	fputs(".</figcaption></figure>\n", f);
	free(row);
}

/* ---- a run: one lane per task ---- */

void html_run_timeline(FILE *f, const cJSON *summaries, int64_t t0, int64_t t1)
{
	int n = cJSON_GetArraySize(summaries), shown = n < HTML_MAX_TASK_LANES ? n : HTML_MAX_TASK_LANES;
	int height = AXIS + shown * (ROWH + 6) + 4, i = 0;
	const cJSON *s;
	char a[32], b[32], c[32];

	fprintf(f, "<figure id=\"timeline\"><svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		   "xmlns=\"http://www.w3.org/2000/svg\"><title>Timeline: a lane per task</title>\n",
		TW, height, TW, height);
	time_axis(f, t0, t1, height);
	cJSON_ArrayForEach(s, summaries) {
		const cJSON *id = cJSON_GetObjectItem(s, "identity");
		int64_t st = html_ns_field(s, "start_ns"), en = html_ns_field(s, "end_ns");
		int y = AXIS + i * (ROWH + 6);

		if (i == shown)
			break;
		fprintf(f, "<g class=\"lane\" data-lane=\"");
		h_text(f, fmt_or_dash(cli_jstr(id, "task_name")));
		fprintf(f, "\"><text x=\"4\" y=\"%d\">", y + ROWH);
		h_cut(f, fmt_or_dash(cli_jstr(id, "task_name")), 30);
		fprintf(f, "</text><rect data-p=\"t%d\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			   "fill=\"%s\"><title>", i, xpos(st, t0, t1), y + 2,
			fmax(xpos(en, t0, t1) - xpos(st, t0, t1), 1.5), ROWH,
			html_colour(i));
		h_cut(f, fmt_or_dash(cli_jstr(id, "task_name")), 200);
		fputs(" (", f);
		h_cut(f, fmt_or_dash(cli_jstr(s, "job")), 100);
		fputs(")\nstate ", f);
		h_cut(f, fmt_or_dash(cli_jstr(s, "state")), 40);
		fprintf(f, ", wall %s, CPU %s, peak memory %s</title></rect></g>\n",
			fmt_secs(cli_jnum(s, "wall_s"), a, sizeof(a)),
			fmt_secs(cli_jnum(cJSON_GetObjectItem(s, "totals"), "cpu_s"), b, sizeof(b)),
			fmt_bytes((uint64_t)fmax(cli_jnum(cJSON_GetObjectItem(s, "memory"), "peak_bytes"), 0),
				  c, sizeof(c)));
		i++;
	}
	fputs("</svg><figcaption class=\"small\">", f);
	fprintf(f, "%d tasks", n);
	if (shown < n)
		fprintf(f, "; the first %d drawn (by start), the others are in the table", shown);
	fputs(".</figcaption></figure>\n", f);
}
