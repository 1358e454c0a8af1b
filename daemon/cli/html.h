/*
 * html.h - the self-contained HTML report of `tracer show --html` and
 * `tracer report --run RUN --html`: one file, inline CSS, inline SVG
 * drawn here, a little inline JavaScript (hover, click, sorting, copy),
 * a Content-Security-Policy that forbids every request.  Every chart and
 * number is in the markup, so the page reads the same with JavaScript
 * off.  Every string from a summary goes through htmlesc_escape.
 *
 * Parts: html_page.c (document, entry points), html_job.c (one job),
 * html_run.c (a run's tasks), html_timeline.c (lanes of bars), html_io.c
 * (network, disk, containers), svg.c (charts and bars).
 */
#ifndef TRACER_CLI_HTML_H
#define TRACER_CLI_HTML_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "cli.h"
#include "htmlesc.h"

/* Bounds that keep a page small whatever the job (a 100,000-process job
 * gives well under 2 MB): what is beyond them is aggregated, and the
 * page says so. */
#define HTML_MAX_PROCS 400     /* processes drawn and listed one by one */
#define HTML_MAX_TOOL_LANES 40 /* timeline lanes; the rest share one */
#define HTML_MAX_TASK_LANES 300
#define HTML_MAX_TOOLS 200     /* rows of a tools table */
#define HTML_MAX_TASKS 1000    /* rows of a run's tasks table */
#define HTML_CMD_TITLE 240     /* bytes of a command line in a tooltip */
#define HTML_CMD_ROW 600       /* ... in the process table */
#define HTML_PALETTE 12

/* The two entry points: write the page to path ("-": stdout).
 * 0, or 1 after a message on stderr. */
int html_write_job(const cJSON *summary, const char *path);
int html_write_run(cJSON *summaries, const char *run, const char *path);
/* `tracer report --run RUN --html FILE`: the run's tasks from the
 * archive (file sink and rotated files), whenever they ended. */
int html_report_run(struct cli *cli, const char *run, const char *path);
/* Any page: fill(f, data, arg) writes it between html_begin and html_end
 * into memory, then it goes to path ("-": stdout) as a whole.  0, or 1
 * after a message on stderr. */
int html_write_page(const char *path, void (*fill)(FILE *, const void *, const char *),
		    const void *data, const char *arg);

/* ---- shared by the parts ---- */

/* escaped text (the whole string, or at most max bytes, marked) */
static inline void h_text(FILE *f, const char *s) { htmlesc_escape(f, s, 0); }
static inline void h_cut(FILE *f, const char *s, size_t max) { htmlesc_escape(f, s, max); }

/* "#4e79a7": the colour of the i-th tool or task */
const char *html_colour(int i);

/* The job's Network and Disk rows, and its Container row (html_io.c);
 * a summary entry's network (sent + received) and disk (block read +
 * written) bytes, 0 when absent. */
void html_io_rows(FILE *f, const cJSON *s);
void html_container_rows(FILE *f, const cJSON *s);
double html_net_bytes(const cJSON *o);
double html_disk_bytes(const cJSON *o);

/* Start and end of the page around the parts (html_page.c). */
void html_begin(FILE *f, const char *title);
void html_end(FILE *f);

/* nanoseconds since the epoch of an ISO time ("...Z"); 0 when absent */
int64_t html_time_ns(const cJSON *o, const char *key);
/* the job's start_ns / end_ns (decimal strings or numbers) */
int64_t html_ns_field(const cJSON *o, const char *key);

/* A table cell with a bar under a value: frac of the column's largest,
 * the value as text; data-v carries the number for sorting. */
void svg_cell_bar(FILE *f, double v, double max, const char *text, const char *colour);

/* A chart of a quantity over time: n points (t in seconds since the
 * start, v values), against an optional limit (NAN: none). */
struct chart {
	const char *id;          /* element id */
	const char *title;       /* e.g. "CPU cores in use" */
	const char *limit_label; /* e.g. "allocation 4 CPUs" */
	const double *t, *v;
	int n;
	double t_end;            /* the x axis: 0 .. t_end seconds */
	double limit;
	const double *limit_v;   /* or a limit per point (a run's tasks) */
	bool bytes;              /* values are bytes (else plain numbers) */
	const char *colour;
};
void svg_chart(FILE *f, const struct chart *c);
/* "1.5 GiB" or "2.25": one axis label */
const char *svg_value(double v, bool bytes, char *buf, size_t len);

/* The process_tree of a summary as an array, and which of its entries
 * are shown one by one (the heaviest HTML_MAX_PROCS by CPU, the
 * registrant and the roots); the others are aggregated (html_timeline.c). */
struct procs {
	const cJSON **v;
	int n;
	unsigned char *keep;
	int nkeep;
};
int html_procs_load(struct procs *ps, const cJSON *summary);
void html_procs_free(struct procs *ps);
/* the colour index of a tool: its rank in the summary's tools[] */
int html_tool_rank(const cJSON *tools, const char *tool);

/* ---- the job page (html_job.c) and its timeline (html_timeline.c) ---- */
void html_job_body(FILE *f, const cJSON *s);
/* html_gpu.c: the job's GPUs over time and per device (none: nothing) */
void html_gpu_section(FILE *f, const cJSON *s);
void html_notes(FILE *f, const cJSON *flags, const char *task);
void html_snippets(FILE *f, const cJSON *rec, const char *task);
void html_job_timeline(FILE *f, const cJSON *s, const struct procs *ps);
/* the tooltip text of a process (escaped) */
void html_proc_tip(FILE *f, const cJSON *p, int64_t t0);

/* ---- a run (html_run.c) ---- */
void html_run_body(FILE *f, const cJSON *summaries, const char *run);
/* one lane per task: summaries sorted by start */
void html_run_timeline(FILE *f, const cJSON *summaries, int64_t t0, int64_t t1);

#endif
