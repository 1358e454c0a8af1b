/*
 * tune_html.c - `tracer tune --html FILE`: one page for the selection,
 * a section per step with its runs over time as three small charts
 * (CPUs, memory, wall: used against requested), the request and the
 * saving.  Drawn with svg.c, styled by html_page.c; names escaped.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "tune_write.h"

#define TUNE_HTML_POINTS 500 /* the newest runs of a step drawn */

struct series {
	double *t, *used, *req;
	int n;
};

static int cmp_end(const void *x, const void *y)
{
	const struct tune_run *a = *(const struct tune_run *const *)x;
	const struct tune_run *b = *(const struct tune_run *const *)y;

	return (a->end_ns > b->end_ns) - (a->end_ns < b->end_ns);
}

/* the runs of step s, oldest first, the newest TUNE_HTML_POINTS */
static const struct tune_run **step_runs(const struct tune_report *r, const struct tune_step *s,
					 int *n)
{
	const struct tune_run **v = calloc(r->nruns ? r->nruns : 1, sizeof(*v));
	struct tune_run key = {0};
	int k = 0;

	*n = 0;
	if (!v)
		return NULL;
	memcpy(key.task, s->task, sizeof(key.task));
	memcpy(key.pipeline, s->pipeline, sizeof(key.pipeline));
	memcpy(key.user, s->user, sizeof(key.user));
	key.uid = s->uid;
	for (size_t i = 0; i < r->nruns; i++)
		if (tune_same_step(&key, &r->runs[i], r->params->shared))
			v[k++] = &r->runs[i];
	qsort(v, (size_t)k, sizeof(*v), cmp_end);
	if (k > TUNE_HTML_POINTS) {
		memmove(v, v + k - TUNE_HTML_POINTS, TUNE_HTML_POINTS * sizeof(*v));
		k = TUNE_HTML_POINTS;
	}
	*n = k;
	return v;
}

static void chart(FILE *f, const char *id, const char *title, const char *limit,
		  const struct series *s, double t_end, bool bytes, const char *colour)
{
	svg_chart(f, &(struct chart){.id = id, .title = title, .limit_label = limit, .t = s->t,
		      .v = s->used, .n = s->n, .t_end = t_end, .limit_v = s->req, .bytes = bytes,
		      .colour = colour});
}

static void step_charts(FILE *f, const struct tune_run **v, int n, int idx)
{
	struct series s = {calloc((size_t)n, sizeof(double)), calloc((size_t)n, sizeof(double)),
			   calloc((size_t)n, sizeof(double)), n};
	/* from the first run's start, so that each run is a step of the chart */
	double t0 = n ? (double)v[0]->end_ns / 1e9 - v[0]->wall_s : 0, t_end = 1;
	char id[48];

	if (!s.t || !s.used || !s.req || n == 0)
		goto out;
	for (int i = 0; i < n; i++) {
		s.t[i] = (double)v[i]->end_ns / 1e9 - t0;
		if (s.t[i] > t_end)
			t_end = s.t[i];
	}
	fputs("<p class=\"muted small\">Each step is a run, up to its end (time since the "
	      "first run shown started); the dashed line is what it requested.</p>\n", f);
	for (int i = 0; i < n; i++) {
		s.used[i] = v[i]->cpus_needed;
		s.req[i] = v[i]->alloc_cpus;
	}
	snprintf(id, sizeof(id), "chart-tune-%d-cpu", idx);
	chart(f, id, "CPUs needed per run", "CPUs requested", &s, t_end, false, "#4e79a7");
	for (int i = 0; i < n; i++) {
		s.used[i] = (double)v[i]->peak;
		s.req[i] = (double)v[i]->alloc_mem;
	}
	snprintf(id, sizeof(id), "chart-tune-%d-mem", idx);
	chart(f, id, "Memory peak per run", "memory requested", &s, t_end, true, "#59a14f");
	for (int i = 0; i < n; i++) {
		s.used[i] = v[i]->wall_s;
		s.req[i] = v[i]->time_limit_s;
	}
	snprintf(id, sizeof(id), "chart-tune-%d-wall", idx);
	chart(f, id, "Wall time per run (s)", "time limit", &s, t_end, false, "#f28e2b");
out:
	free(s.t);
	free(s.used);
	free(s.req);
}

static void step_section(FILE *f, const struct tune_report *r, const struct tune_step *s,
			 int idx)
{
	const struct tune_run **v;
	char b1[32], b2[32], b3[32];
	int n = 0;

	fputs("<section class=\"card\">\n<h2>", f);
	h_text(f, s->task);
	fputs(" <span class=\"muted small\">user ", f);
	h_text(f, s->user[0] ? s->user : "(shared)");
	fprintf(f, ", %d run(s): %d completed, %d OOM, %d timeout, %d failed, %d other; "
		"confidence %s</span></h2>\n", s->runs, s->ok, s->oom, s->timeout, s->failed,
		s->other, s->confidence);
	fprintf(f, "<p><b>Request</b>: %d CPU(s), memory %s, time %s",
		s->cpus, fmt_bytes(s->mem_bytes, b1, sizeof(b1)), tune_hms(s->time_s, b2, sizeof(b2)));
	if (s->retry_on_oom)
		fputs(" (retried with more memory after an OOM kill)", f);
	fprintf(f, ".<br><b>Saving</b> over these runs: %.2f core-hours, %.2f GB-hours",
		s->core_h_saved, s->gb_h_saved);
	if (s->has_cost)
		fprintf(f, ", cost %.2f", s->cost_saved);
	fprintf(f, ".<br>Peak p95 %s, max %s; CPUs used p95 %.1f; wall p95 %s",
		fmt_bytes(s->peak_p95, b1, sizeof(b1)), fmt_bytes(s->peak_max, b2, sizeof(b2)),
		s->cpus_used_p95, fmt_secs(s->wall_p95, b3, sizeof(b3)));
	if (s->fit.distinct >= 2)
		fprintf(f, "; memory against input: R&sup2; %.3f, %s", s->fit.r2,
			s->fit_used ? "used" : "not used");
	fputs(".</p>\n", f);
	v = step_runs(r, s, &n);
	if (v)
		step_charts(f, v, n, idx);
	free(v);
	fputs("</section>\n", f);
}

static void fill(FILE *f, const void *data, const char *unused)
{
	const struct tune_report *r = data;
	char title[400];

	snprintf(title, sizeof(title), "tracer tune: %s", r->selection);
	html_begin(f, title);
	fputs("<h1>", f);
	h_text(f, title);
	fprintf(f, "</h1>\n<p class=\"muted\">%zu run(s) from the ", r->nruns);
	h_text(f, r->source);
	fprintf(f, ", %zu step(s).  Requests: CPUs the concurrency p95, memory the peak p95 "
		"(or its fit on input size) &times; %.2f, time the wall p95 &times; %.2f "
		"(docs/tune.md).</p>\n", r->nsteps, r->params->mem_margin, r->params->time_margin);
	for (size_t i = 0; i < r->nsteps; i++)
		step_section(f, r, &r->steps[i], (int)i);
	html_end(f);
}

int tune_write_html(const struct tune_report *r, const char *path)
{
	return html_write_page(path, fill, r, NULL);
}
