/*
 * sweep_out.c - `tracer sweep`'s output (sweep_out.h).  Its columns are
 * waste (idle hours, unused memory, limits hit), not `tracer report`'s
 * efficiencies, so it has its own rows; the table, CSV cells, text
 * escaping and the HTML page frame are the ones report and show use
 * (term.h, csv.h, textsafe.h, html.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "csv.h"
#include "html.h"
#include "json.h"
#include "sweep_out.h"
#include "term.h"
#include "textsafe.h"

static const char *by_title(const cJSON *ans)
{
	const char *by = cli_jstr(ans, "by");

	if (!by)
		return "GROUP";
	if (!strcmp(by, "user"))
		return "USER";
	if (!strcmp(by, "account"))
		return "ACCOUNT";
	if (!strcmp(by, "partition"))
		return "PARTITION";
	if (!strcmp(by, "pipeline"))
		return "PIPELINE";
	if (!strcmp(by, "tool"))
		return "TOOL";
	return "HOST";
}

/* --by tool: the answer says how the jobs' waste was shared */
static const char *attribution(const cJSON *ans)
{
	return cli_jstr(ans, "attribution");
}

/* counts are written raw (json.c): json_get_num reads both */
static double num0(const cJSON *o, const char *key)
{
	return json_get_num(o, key, 0);
}

static const char *hours(double h, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f", h);
	return buf;
}

/* the row's cost of waste, "-" without prices */
static const char *cost_text(const cJSON *row, char *buf, size_t len)
{
	const cJSON *c = cJSON_GetObjectItem(row, "cost");

	if (!c)
		return "-";
	snprintf(buf, len, "%.2f", num0(c, "total"));
	return buf;
}

static void print_header(const cJSON *ans, const char *since_text)
{
	const cJSON *p = cJSON_GetObjectItem(ans, "prices");

	printf("Waste since %s (%s) by %s, from the %s: %s; %.0f group(s)\n",
	       fmt_or_dash(cli_jstr(ans, "from")), since_text, fmt_or_dash(cli_jstr(ans, "by")),
	       fmt_or_dash(cli_jstr(ans, "source")),
	       cJSON_IsTrue(cJSON_GetObjectItem(ans, "all_users")) ? "every user's jobs"
								  : "your jobs",
	       num0(ans, "groups"));
	if (p)
		printf("Prices: %.4g per CPU-hour, %.4g per GiB-hour\n", num0(p, "cpu_hour"),
		       num0(p, "gb_hour"));
	else
		printf("No price_cpu_hour or price_gb_hour in tracer.conf: ranked by idle "
		       "core-hours\n");
	if (attribution(ans))
		printf("Shared among tools: %s\n", attribution(ans));
	if (cJSON_IsTrue(cJSON_GetObjectItem(ans, "truncated")))
		printf("Truncated: the archive was not read to its end (deadline or size)\n");
	putchar('\n');
}

/* by host, for an admin's sweep: each row's idle hours (sweep_idle.c) */
static bool has_idle_hours(const cJSON *ans)
{
	const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(ans, "rows"), 0);

	return first && cJSON_GetObjectItem(first, "idle_hours");
}

/* the columns and cells that are shown, packed to the front */
static int pack(void *items, size_t size, const bool *show, int n)
{
	char *p = items;
	int k = 0;

	for (int i = 0; i < n; i++)
		if (show[i])
			memmove(p + (size_t)k++ * size, p + (size_t)i * size, size);
	return k;
}

static void print_table(const cJSON *ans, const char *since_text, bool wide)
{
	/* CPU-H: by tool only (a tool's own CPU time); IDLE HOST-H: by host
	 * in an admin's sweep (the host's hours with no job) */
	struct table_col cols[] = {
		{by_title(ans), 'l', 12, 0}, {"JOBS", 'r', 0, 0},      {"CPU-H", 'r', 0, 0},
		{"IDLE CORE-H", 'r', 0, 0},  {"UNUSED GIB-H", 'r', 0, 0}, {"IDLE GPU-H", 'r', 0, 2},
		{"TIMEOUT", 'r', 0, 1},      {"OOM", 'r', 0, 1},       {"COST", 'r', 0, 0},
		{"IDLE HOST-H", 'r', 0, 0},  {"WORST JOB", 'l', 10, 3},
	};
	const int ncols = sizeof(cols) / sizeof(cols[0]);
	bool tool = attribution(ans) != NULL, idle = has_idle_hours(ans);
	bool show[] = {true, true, tool, true, true, true, true, true, true, idle, true};
	struct table *tb;
	const cJSON *row;
	char key[4 * 256 + 1], worst[4 * 128 + 1];
	char nj[24], cpu[24], a[24], b[24], g[24], to[24], oom[24], cost[32], ih[24];

	tb = table_new(cols, pack(cols, sizeof(cols[0]), show, ncols));

	print_header(ans, since_text);
	cJSON_ArrayForEach(row, cJSON_GetObjectItem(ans, "rows")) {
		text_safe(fmt_or_dash(cli_jstr(row, "key")), key, sizeof(key));
		text_safe(fmt_or_dash(cli_jstr(row, "worst_job")), worst, sizeof(worst));
		snprintf(nj, sizeof(nj), "%.0f", num0(row, "jobs"));
		snprintf(to, sizeof(to), "%.0f", num0(row, "timeouts"));
		snprintf(oom, sizeof(oom), "%.0f", num0(row, "ooms"));
		const char *cells[] = {
			key, nj, hours(num0(row, "cpu_hours"), cpu, sizeof(cpu)),
			hours(num0(row, "idle_core_hours"), a, sizeof(a)),
			hours(num0(row, "unused_mem_gib_hours"), b, sizeof(b)),
			hours(num0(row, "idle_gpu_hours"), g, sizeof(g)), to, oom,
			cost_text(row, cost, sizeof(cost)), hours(num0(row, "idle_hours"), ih, sizeof(ih)),
			worst,
		};
		pack(cells, sizeof(cells[0]), show, ncols);
		if (tb)
			table_add(tb, cells);
	}
	if (tb)
		table_print(tb, term_width(wide), "");
	if (!cJSON_GetArraySize(cJSON_GetObjectItem(ans, "rows")))
		printf("(no job with an allocation in the window)\n");
	sweep_idle_print_table(ans, wide);
}

static void print_csv(const cJSON *ans)
{
	const cJSON *row;
	bool tool = attribution(ans) != NULL;

	bool idle = has_idle_hours(ans);

	printf("%s,jobs,%sidle_core_hours,unused_mem_gib_hours,idle_gpu_hours,timeouts,ooms,"
	       "cost_idle_cpu,cost_unused_memory,cost,%sworst_job\n",
	       fmt_or_dash(cli_jstr(ans, "by")), tool ? "cpu_hours," : "", idle ? "idle_host_hours," : "");
	cJSON_ArrayForEach(row, cJSON_GetObjectItem(ans, "rows")) {
		const cJSON *c = cJSON_GetObjectItem(row, "cost");

		csv_field(cli_jstr(row, "key"));
		putchar(',');
		csv_num(num0(row, "jobs"));
		putchar(',');
		if (tool) {
			csv_num(num0(row, "cpu_hours"));
			putchar(',');
		}
		csv_num(num0(row, "idle_core_hours"));
		putchar(',');
		csv_num(num0(row, "unused_mem_gib_hours"));
		putchar(',');
		csv_num(num0(row, "idle_gpu_hours"));
		putchar(',');
		csv_num(num0(row, "timeouts"));
		putchar(',');
		csv_num(num0(row, "ooms"));
		putchar(',');
		csv_num(c ? cli_jnum(c, "idle_cpu") : NAN);
		putchar(',');
		csv_num(c ? cli_jnum(c, "unused_memory") : NAN);
		putchar(',');
		csv_num(c ? cli_jnum(c, "total") : NAN);
		putchar(',');
		if (idle) {
			csv_num(num0(row, "idle_hours"));
			putchar(',');
		}
		csv_field(cli_jstr(row, "worst_job"));
		putchar('\n');
	}
	sweep_idle_print_csv(ans);
}

/* ---- the HTML page ---- */

static void html_num(FILE *f, double v, const char *fmt)
{
	fputs("<td class=\"num\">", f);
	fprintf(f, fmt, v);
	fputs("</td>", f);
}

static void fill_page(FILE *f, const void *data, const char *since_text)
{
	const cJSON *ans = data, *row, *p = cJSON_GetObjectItem(ans, "prices");
	bool tool = attribution(ans) != NULL, idle = has_idle_hours(ans);
	char title[200];

	snprintf(title, sizeof(title), "tracer: waste by %s since %s", fmt_or_dash(cli_jstr(ans, "by")),
		 since_text);
	html_begin(f, title);
	fputs("<h1>", f);
	h_text(f, title);
	fputs("</h1>\n<p>", f);
	fprintf(f, "From the %s, jobs that ended since ", fmt_or_dash(cli_jstr(ans, "source")));
	h_text(f, fmt_or_dash(cli_jstr(ans, "from")));
	fprintf(f, ", %s; ranked by the cost of the waste. ",
		cJSON_IsTrue(cJSON_GetObjectItem(ans, "all_users")) ? "every user's jobs"
								   : "your jobs");
	if (p)
		fprintf(f, "Prices: %.4g per CPU-hour, %.4g per GiB-hour.", num0(p, "cpu_hour"),
			num0(p, "gb_hour"));
	else
		fputs("No price in tracer.conf: ranked by idle core-hours.", f);
	if (tool) {
		fputs(" Shared among tools: ", f);
		h_text(f, attribution(ans));
		fputs(".", f);
	}
	fputs("</p>\n<table class=\"data sortable\" id=\"sweep\"><thead><tr><th>", f);
	h_text(f, fmt_or_dash(cli_jstr(ans, "by")));
	fputs("</th><th>Jobs</th>", f);
	if (tool)
		fputs("<th>CPU hours</th>", f);
	fputs("<th>Idle core-hours</th><th>Unused memory GiB-hours</th>"
	      "<th>Idle GPU-hours</th><th>Timeouts</th><th>OOM</th><th>Cost</th>", f);
	if (idle)
		fputs("<th>Idle host-hours</th>", f);
	fputs("<th>Worst job</th></tr></thead><tbody>\n", f);
	cJSON_ArrayForEach(row, cJSON_GetObjectItem(ans, "rows")) {
		const cJSON *c = cJSON_GetObjectItem(row, "cost");

		fputs("<tr><td>", f);
		h_cut(f, fmt_or_dash(cli_jstr(row, "key")), 200);
		fputs("</td>", f);
		html_num(f, num0(row, "jobs"), "%.0f");
		if (tool)
			html_num(f, num0(row, "cpu_hours"), "%.2f");
		html_num(f, num0(row, "idle_core_hours"), "%.2f");
		html_num(f, num0(row, "unused_mem_gib_hours"), "%.2f");
		html_num(f, num0(row, "idle_gpu_hours"), "%.2f");
		html_num(f, num0(row, "timeouts"), "%.0f");
		html_num(f, num0(row, "ooms"), "%.0f");
		if (c)
			html_num(f, num0(c, "total"), "%.2f");
		else
			fputs("<td class=\"num\">-</td>", f);
		if (idle)
			html_num(f, num0(row, "idle_hours"), "%.2f");
		fputs("<td>", f);
		h_cut(f, fmt_or_dash(cli_jstr(row, "worst_job")), 100);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	sweep_idle_html(f, ans);
	html_end(f);
}

int sweep_print(const cJSON *ans, enum sweep_format format, const char *since_text,
		const char *html_path, bool wide)
{
	switch (format) {
	case SWEEP_OUT_JSON:
		cli_print_json(ans);
		return 0;
	case SWEEP_OUT_CSV:
		print_csv(ans);
		return 0;
	case SWEEP_OUT_HTML:
		return html_write_page(html_path, fill_page, ans, since_text);
	default:
		print_table(ans, since_text, wide);
		return 0;
	}
}
