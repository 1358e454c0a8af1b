/*
 * report_out.c - `tracer report` output: a table for people, JSON and CSV
 * for tools (report.h).  Efficiencies are ratios of sums, as seff would
 * give for the jobs taken together: CPU seconds over allocated
 * core-seconds, peak memory over allocated memory.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "csv.h"
#include "json.h"
#include "report.h"
#include "term.h"
#include "textsafe.h"

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

static void iso_time(double secs, char *buf, size_t len)
{
	time_t t = (time_t)secs;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "-");
}

static int cmp_flag(const void *a, const void *b)
{
	const struct flag_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->id, y->id);
}

/* "id xN, id xN" (table) or "id:N;id:N" (CSV), the most frequent first */
static void flags_text(struct group *g, bool csv, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (g->nflags == 0)
		return;
	qsort(g->flags, g->nflags, sizeof(*g->flags), cmp_flag);
	for (size_t i = 0; i < g->nflags && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, csv ? "%s%s:%llu" : "%s%s x%llu",
					i ? (csv ? ";" : ", ") : "", g->flags[i].id,
					(unsigned long long)g->flags[i].n);
}

static void print_table(const struct report *r, struct group **v, size_t n, int width)
{
	char from[32], a[32], b[32], c[32], d[32], e[32], f[32], h[32], g2[32], fl[256];
	char nj[32], nf[32], span[32];
	/* a key is a name from a user (task, run, tool): escaped, each byte
	 * at most 4 ("\xNN") */
	char key[4 * 1024 + 1];
	bool tools = r->by == REPORT_BY_TOOL;
	/* SPAN (by tool only): CPU over the tool's own spans */
	struct table_col cols[] = {
		{tools ? "TOOL" : r->by == REPORT_BY_ALL ? "" : r->by_name, 'l', 12, 0},
		{"JOBS", 'r', 0, 0}, {"FAILED", 'r', 0, 0}, {tools ? "SPANS" : "WALL", 'r', 0, 0},
		{"CPU", 'r', 0, 0}, {"EFF", 'r', 0, 0}, {"SPAN", 'r', 0, 0},
		{"PEAK MEM", 'r', 0, 0}, {"MEM", 'r', 0, 0}, {"READ", 'r', 0, 3},
		{"WRITE", 'r', 0, 2}, {"COST", 'r', 0, 1}, {"FLAGS", 'l', 12, 0},
	};
	const int ncols = sizeof(cols) / sizeof(cols[0]), span_col = 6;
	struct table *tb;

	if (!tools)
		memmove(cols + span_col, cols + span_col + 1, sizeof(cols[0]) * (ncols - span_col - 1));
	tb = table_new(cols, tools ? ncols : ncols - 1);

	iso_time(r->from_s, from, sizeof(from));
	printf("Since %s (%s): %llu job(s) in %d file(s) of %s\n\n", from, r->since_text,
	       (unsigned long long)r->jobs, r->files, r->path);
	for (size_t i = 0; i < n; i++) {
		struct group *g = v[i];
		if (g->has_cost)
			snprintf(g2, sizeof(g2), "%.2f", g->cost);
		else
			snprintf(g2, sizeof(g2), "-");
		flags_text(g, false, fl, sizeof(fl));
		snprintf(nj, sizeof(nj), "%llu", (unsigned long long)g->jobs);
		snprintf(nf, sizeof(nf), "%llu", (unsigned long long)g->failed);
		text_safe(g->key, key, sizeof(key));
		const char *row[] = {
			key, nj, nf, fmt_secs(g->wall_s, a, sizeof(a)),
			fmt_secs(g->cpu_s, b, sizeof(b)), fmt_pct(ratio(g->cpu_s, g->core_s), c, sizeof(c)),
			fmt_pct(ratio(g->cpu_s, g->wall_s), span, sizeof(span)),
			fmt_bytes((uint64_t)g->peak_bytes, d, sizeof(d)),
			fmt_pct(ratio(g->mem_used_bytes, g->mem_alloc_bytes), e, sizeof(e)),
			fmt_bytes((uint64_t)g->read_bytes, f, sizeof(f)),
			fmt_bytes((uint64_t)g->write_bytes, h, sizeof(h)), g2, fl[0] ? fl : "-",
		};
		if (!tools)
			memmove(row + span_col, row + span_col + 1, sizeof(row[0]) * (ncols - span_col - 1));
		table_add(tb, row);
	}
	table_print(tb, width, "");
	if (n == 0)
		printf("(no job)\n");
}

static void add_ratio(cJSON *o, const char *key, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

static cJSON *group_json(const struct report *r, const struct group *g)
{
	cJSON *o = cJSON_CreateObject(), *fl;

	if (!o)
		return NULL;
	json_add_str(o, r->by_name, g->key);
	json_add_u64(o, "jobs", g->jobs);
	json_add_u64(o, r->by == REPORT_BY_TOOL ? "failed_processes" : "failed", g->failed);
	if (r->by == REPORT_BY_TOOL)
		json_add_u64(o, "processes", g->processes);
	cJSON_AddNumberToObject(o, "wall_s", g->wall_s);
	cJSON_AddNumberToObject(o, "cpu_s", g->cpu_s);
	cJSON_AddNumberToObject(o, "core_s", g->core_s);
	add_ratio(o, "cpu_efficiency", ratio(g->cpu_s, g->core_s));
	if (r->by == REPORT_BY_TOOL)
		add_ratio(o, "cpu_efficiency_span", ratio(g->cpu_s, g->wall_s));
	cJSON_AddNumberToObject(o, "peak_bytes", g->peak_bytes);
	add_ratio(o, "memory_efficiency", ratio(g->mem_used_bytes, g->mem_alloc_bytes));
	cJSON_AddNumberToObject(o, "read_bytes", g->read_bytes);
	cJSON_AddNumberToObject(o, "write_bytes", g->write_bytes);
	if (g->has_cost) {
		cJSON_AddNumberToObject(o, "cost", g->cost);
		cJSON_AddNumberToObject(o, "cost_unused", g->cost_unused);
	}
	fl = cJSON_AddObjectToObject(o, "flags");
	for (size_t i = 0; fl && i < g->nflags; i++)
		json_add_u64(fl, g->flags[i].id, g->flags[i].n);
	return o;
}

static int print_report_json(const struct report *r, struct group **v, size_t n)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	char from[32], *text;

	if (!o)
		return -1;
	iso_time(r->from_s, from, sizeof(from));
	json_add_str(o, "since", from);
	json_add_str(o, "by", r->by_name);
	json_add_u64(o, "files", (uint64_t)r->files);
	json_add_u64(o, "jobs", r->jobs);
	arr = cJSON_AddArrayToObject(o, "groups");
	for (size_t i = 0; arr && i < n; i++)
		cJSON_AddItemToArray(arr, group_json(r, v[i]));
	text = cJSON_Print(o);
	cJSON_Delete(o);
	if (!text)
		return -1;
	printf("%s\n", text);
	cJSON_free(text);
	return 0;
}

/* ",v": a number cell after its separator */
static void csv_next_num(double v)
{
	putchar(',');
	csv_num(v);
}

static void print_csv(const struct report *r, struct group **v, size_t n)
{
	char fl[1024];

	printf("%s,jobs,failed,wall_s,cpu_s,core_s,cpu_efficiency,peak_bytes,memory_efficiency,"
	       "read_bytes,write_bytes,cost,cost_unused,flags\r\n", r->by_name);
	for (size_t i = 0; i < n; i++) {
		struct group *g = v[i];
		csv_field(g->key);
		printf(",%llu,%llu", (unsigned long long)g->jobs, (unsigned long long)g->failed);
		csv_next_num(g->wall_s);
		csv_next_num(g->cpu_s);
		csv_next_num(g->core_s);
		csv_next_num(ratio(g->cpu_s, g->core_s));
		printf(",%.0f", g->peak_bytes);
		csv_next_num(ratio(g->mem_used_bytes, g->mem_alloc_bytes));
		printf(",%.0f,%.0f", g->read_bytes, g->write_bytes);
		csv_next_num(g->has_cost ? g->cost : NAN);
		csv_next_num(g->has_cost ? g->cost_unused : NAN);
		putchar(',');
		flags_text(g, true, fl, sizeof(fl));
		csv_field(fl);
		printf("\r\n");
	}
}

int report_print(const struct report *r, struct group **v, size_t n)
{
	switch (r->format) {
	case REPORT_JSON:
		return print_report_json(r, v, n);
	case REPORT_CSV:
		print_csv(r, v, n);
		return 0;
	default:
		term_begin(term_width(r->wide));
		print_table(r, v, n, term_width(r->wide));
		term_end();
		return 0;
	}
}
