/*
 * sweep_idle_out.c - the idle hosts of `tracer sweep`'s answer
 * ("idle_hosts", lib/sweep_idle.c) in each output (sweep_out.h): a
 * second table under the groups, a second CSV block after an empty
 * line, a second HTML table.  Absent from the answer (a user's own
 * sweep), nothing is printed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "csv.h"
#include "html.h"
#include "json.h"
#include "sweep_out.h"
#include "term.h"
#include "textsafe.h"

static double num0(const cJSON *o, const char *key)
{
	return json_get_num(o, key, 0);
}

/* "i-0abc (m5.large)", the type or the id alone, or "-" */
static const char *instance_text(const cJSON *row, char *buf, size_t len)
{
	const cJSON *e = cJSON_GetObjectItem(row, "ec2");
	const char *id = cli_jstr(e, "instance_id"), *type = cli_jstr(e, "instance_type");

	if (id && type)
		snprintf(buf, len, "%s (%s)", id, type);
	else
		snprintf(buf, len, "%s", id ? id : type ? type : "-");
	return buf;
}

void sweep_idle_print_table(const cJSON *ans, bool wide)
{
	const cJSON *idle = cJSON_GetObjectItem(ans, "idle_hosts"), *row;
	struct table_col cols[] = {
		{"IDLE HOST", 'l', 12, 0}, {"CLUSTER", 'l', 6, 2}, {"PERIODS", 'r', 0, 1},
		{"IDLE H", 'r', 0, 0},     {"CPUS", 'r', 0, 3},    {"IDLE CORE-H", 'r', 0, 0},
		{"BUSY", 'r', 0, 4},       {"COST", 'r', 0, 0},    {"EC2 INSTANCE", 'l', 10, 5},
	};
	struct table *tb;
	char host[4 * 256 + 1], cl[4 * 64 + 1], inst[200], inst_s[4 * 200 + 1];
	char per[24], h[24], cpus[24], core[24], busy[24], cost[32];

	if (!idle) {
		if (cli_jstr(ans, "idle_hosts_error"))
			printf("\nIdle hosts: %s\n", cli_jstr(ans, "idle_hosts_error"));
		return;
	}
	printf("\nIdle hosts (no job open, CPU quiet: idle_host): %.0f host(s), %.1f host-hours",
	       num0(idle, "hosts"), num0(idle, "idle_hours"));
	if (num0(idle, "instance_hours_without_job") > 0)
		printf(", %.1f EC2 instance-hours with no job", num0(idle, "instance_hours_without_job"));
	if (cJSON_GetObjectItem(idle, "cost"))
		printf(", cost %.2f", num0(idle, "cost"));
	printf("%s\n\n", cJSON_IsTrue(cJSON_GetObjectItem(idle, "truncated")) ? " (truncated)" : "");
	if (!cJSON_GetArraySize(cJSON_GetObjectItem(idle, "rows"))) {
		printf("(no host sat idle in the window)\n");
		return;
	}
	tb = table_new(cols, sizeof(cols) / sizeof(cols[0]));
	cJSON_ArrayForEach(row, cJSON_GetObjectItem(idle, "rows")) {
		const cJSON *c = cJSON_GetObjectItem(row, "cost");

		text_safe(fmt_or_dash(cli_jstr(row, "host")), host, sizeof(host));
		text_safe(fmt_or_dash(cli_jstr(row, "cluster")), cl, sizeof(cl));
		text_safe(instance_text(row, inst, sizeof(inst)), inst_s, sizeof(inst_s));
		snprintf(per, sizeof(per), "%.0f", num0(row, "periods"));
		snprintf(h, sizeof(h), "%.1f", num0(row, "idle_hours"));
		snprintf(cpus, sizeof(cpus), "%.0f", num0(row, "cpus"));
		snprintf(core, sizeof(core), "%.1f", num0(row, "idle_core_hours"));
		snprintf(busy, sizeof(busy), "%.0f%%", 100 * num0(row, "cpu_share_busy"));
		if (c)
			snprintf(cost, sizeof(cost), "%.2f", c->valuedouble);
		else
			snprintf(cost, sizeof(cost), "-");
		const char *cells[] = {host, cl, per, h, cpus, core, busy, cost, inst_s};
		if (tb)
			table_add(tb, cells);
	}
	if (tb)
		table_print(tb, term_width(wide), "");
}

void sweep_idle_print_csv(const cJSON *ans)
{
	const cJSON *idle = cJSON_GetObjectItem(ans, "idle_hosts"), *row;

	if (!idle)
		return;
	/* a second block: an empty line, its own header */
	printf("\nidle_host,cluster,periods,idle_hours,cpus,idle_core_hours,mem_gib,cpu_share_busy,"
	       "instance_id,instance_type,instance_hours_without_job,cost\n");
	cJSON_ArrayForEach(row, cJSON_GetObjectItem(idle, "rows")) {
		const cJSON *e = cJSON_GetObjectItem(row, "ec2"), *c = cJSON_GetObjectItem(row, "cost");
		const char *id = cli_jstr(e, "instance_id"), *type = cli_jstr(e, "instance_type");

		csv_field(cli_jstr(row, "host"));
		putchar(',');
		csv_field(cli_jstr(row, "cluster"));
		putchar(',');
		csv_num(num0(row, "periods"));
		putchar(',');
		csv_num(num0(row, "idle_hours"));
		putchar(',');
		csv_num(num0(row, "cpus"));
		putchar(',');
		csv_num(num0(row, "idle_core_hours"));
		putchar(',');
		csv_num(num0(row, "mem_gib"));
		putchar(',');
		csv_num(num0(row, "cpu_share_busy"));
		putchar(',');
		csv_field(id ? id : "");
		putchar(',');
		csv_field(type ? type : "");
		putchar(',');
		csv_num(e ? num0(row, "instance_hours_without_job") : NAN);
		putchar(',');
		csv_num(c ? c->valuedouble : NAN);
		putchar('\n');
	}
}

static void td_num(FILE *f, double v, const char *fmt)
{
	fputs("<td class=\"num\">", f);
	fprintf(f, fmt, v);
	fputs("</td>", f);
}

void sweep_idle_html(FILE *f, const cJSON *ans)
{
	const cJSON *idle = cJSON_GetObjectItem(ans, "idle_hosts"), *row;
	char inst[200];

	if (!idle) {
		if (cli_jstr(ans, "idle_hosts_error")) {
			fputs("<h2>Idle hosts</h2>\n<p>", f);
			h_text(f, cli_jstr(ans, "idle_hosts_error"));
			fputs("</p>\n", f);
		}
		return;
	}
	fprintf(f, "<h2>Idle hosts</h2>\n<p>Hosts with no job open and their CPUs quiet "
		   "(idle_host): %.0f host(s), %.2f host-hours, %.2f EC2 instance-hours with no "
		   "job.</p>\n", num0(idle, "hosts"), num0(idle, "idle_hours"),
		num0(idle, "instance_hours_without_job"));
	fputs("<table class=\"data sortable\" id=\"idle_hosts\"><thead><tr><th>Host</th>"
	      "<th>Cluster</th><th>Periods</th><th>Idle hours</th><th>CPUs</th>"
	      "<th>Idle core-hours</th><th>CPU busy</th><th>Cost</th><th>EC2 instance</th>"
	      "</tr></thead><tbody>\n", f);
	cJSON_ArrayForEach(row, cJSON_GetObjectItem(idle, "rows")) {
		const cJSON *c = cJSON_GetObjectItem(row, "cost");

		fputs("<tr><td>", f);
		h_cut(f, fmt_or_dash(cli_jstr(row, "host")), 200);
		fputs("</td><td>", f);
		h_cut(f, fmt_or_dash(cli_jstr(row, "cluster")), 100);
		fputs("</td>", f);
		td_num(f, num0(row, "periods"), "%.0f");
		td_num(f, num0(row, "idle_hours"), "%.2f");
		td_num(f, num0(row, "cpus"), "%.0f");
		td_num(f, num0(row, "idle_core_hours"), "%.2f");
		td_num(f, 100 * num0(row, "cpu_share_busy"), "%.0f%%");
		if (c)
			td_num(f, c->valuedouble, "%.2f");
		else
			fputs("<td class=\"num\">-</td>", f);
		fputs("<td>", f);
		h_cut(f, instance_text(row, inst, sizeof(inst)), 200);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}
