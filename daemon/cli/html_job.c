/*
 * html_job.c - the page of one job: who and what (identity, state,
 * wall, allocation against use, cost), the flags as notes with their
 * evidence, the right-sizing snippets ready to copy, CPU and memory over
 * time against the allocation, the GPU lane (html_gpu.c), the timeline, the tools (sortable) and
 * the process tree.  Fields as docs/schema.md names them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

static void kv_row(FILE *f, const char *key)
{
	fprintf(f, "<tr><th>%s</th><td>", key);
}

/* a meter: ratio of a full bar (red beyond 1) */
static void meter(FILE *f, double ratio)
{
	if (!isfinite(ratio) || ratio < 0)
		return;
	fprintf(f, "<span class=\"meter\"><span%s style=\"width:%.0f%%\"></span></span>",
		ratio > 1 ? " class=\"over\"" : "", fmin(ratio, 1) * 100);
}

static void identity_rows(FILE *f, const cJSON *s)
{
	const cJSON *id = cJSON_GetObjectItem(s, "identity");
	const cJSON *host = cJSON_GetObjectItem(s, "host");
	char a[32];

	kv_row(f, "Run");
	h_text(f, fmt_or_dash(cli_jstr(id, "run_id")));
	fputs(" <span class=\"muted\">name</span> ", f);
	h_text(f, fmt_or_dash(cli_jstr(id, "run_name")));
	fputs(" <span class=\"muted\">pipeline</span> ", f);
	h_text(f, fmt_or_dash(cli_jstr(id, "pipeline")));
	fputs("</td></tr>\n", f);
	kv_row(f, "Task");
	h_text(f, fmt_or_dash(cli_jstr(id, "task_name")));
	fputs(" <span class=\"muted\">scheduler</span> ", f);
	h_text(f, fmt_or_dash(cli_jstr(id, "scheduler")));
	fputs(" <span class=\"muted\">job</span> ", f);
	h_text(f, fmt_or_dash(cli_jstr(id, "job_id")));
	if (cli_jstr(id, "step_id")) {
		fputs(" <span class=\"muted\">step</span> ", f);
		h_text(f, cli_jstr(id, "step_id"));
	}
	fputs(" <span class=\"muted\">user</span> ", f);
	h_text(f, fmt_or_dash(cli_jstr(id, "user")));
	fputs(" <span class=\"muted\">queue</span> ", f);
	h_text(f, fmt_or_dash(cli_jstr(id, "queue")));
	fputs("</td></tr>\n", f);
	kv_row(f, "Job uid");
	h_text(f, fmt_or_dash(cli_jstr(s, "job")));
	fputs("</td></tr>\n", f);
	kv_row(f, "Host");
	h_text(f, fmt_or_dash(cli_jstr(host, "hostname")));
	fprintf(f, ": %.0f CPUs, %s, ", cli_jnum(host, "cpus"),
		fmt_bytes((uint64_t)fmax(cli_jnum(host, "mem_bytes"), 0), a, sizeof(a)));
	h_text(f, fmt_or_dash(cli_jstr(host, "cpu_model")));
	fputs("</td></tr>\n", f);
	html_container_rows(f, s);
}

static void use_rows(FILE *f, const cJSON *s)
{
	const cJSON *id = cJSON_GetObjectItem(s, "identity");
	const cJSON *alloc = cJSON_GetObjectItem(id, "allocation");
	const cJSON *tot = cJSON_GetObjectItem(s, "totals");
	const cJSON *mem = cJSON_GetObjectItem(s, "memory");
	const cJSON *procs = cJSON_GetObjectItem(s, "processes");
	const cJSON *cost = cJSON_GetObjectItem(s, "cost");
	const cJSON *use = cJSON_GetObjectItem(s, "allocation_use");
	char a[32], b[32], c[32], d[32], ex[32];

	kv_row(f, "Time");
	h_text(f, fmt_or_dash(cli_jstr(s, "start")));
	fputs(" &rarr; ", f);
	h_text(f, fmt_or_dash(cli_jstr(s, "end")));
	fprintf(f, ", wall <b>%s</b>, exit %s</td></tr>\n", fmt_secs(cli_jnum(s, "wall_s"), a, sizeof(a)),
		fmt_exit_text(cJSON_GetObjectItem(s, "exit"), "code", ex, sizeof(ex)));
	kv_row(f, "Allocation");
	if (cJSON_IsObject(alloc) && !isnan(cli_jnum(alloc, "cpus"))) {
		fprintf(f, "%.0f CPUs (", cli_jnum(alloc, "cpus"));
		h_text(f, fmt_or_dash(cli_jstr(alloc, "cpuset")));
		fputs(")", f);
	} else {
		fputs("no CPU allocation (the host's CPUs are the basis)", f);
	}
	fprintf(f, ", memory %s", isnan(cli_jnum(alloc, "mem_bytes")) ? "not requested"
			: fmt_bytes((uint64_t)fmax(cli_jnum(alloc, "mem_bytes"), 0), a, sizeof(a)));
	if (!isnan(cli_jnum(alloc, "time_limit_s")))
		fprintf(f, ", time limit %s", fmt_secs(cli_jnum(alloc, "time_limit_s"), b, sizeof(b)));
	fputs("</td></tr>\n", f);
	kv_row(f, "CPU");
	fprintf(f, "%s (user %s, system %s); efficiency <b class=\"cpu-eff\">%s</b> of the ",
		fmt_secs(cli_jnum(tot, "cpu_s"), a, sizeof(a)), fmt_secs(cli_jnum(tot, "user_s"), b, sizeof(b)),
		fmt_secs(cli_jnum(tot, "sys_s"), c, sizeof(c)),
		fmt_pct(cli_jnum(s, "cpu_efficiency"), d, sizeof(d)));
	h_text(f, fmt_or_dash(cli_jstr(s, "cpu_efficiency_basis")));
	meter(f, cli_jnum(s, "cpu_efficiency"));
	if (cJSON_IsObject(use)) {
		const cJSON *cc = cJSON_GetObjectItem(use, "concurrency");
		fputs("<br><span class=\"small\">idle CPUs ", f);
		h_text(f, cli_jstr(use, "idle_cpus") && *cli_jstr(use, "idle_cpus") ? cli_jstr(use, "idle_cpus") : "none");
		fprintf(f, "; processes running at once p50 %.0f, p95 %.0f, max %.0f</span>",
			cli_jnum(cc, "p50"), cli_jnum(cc, "p95"), cli_jnum(cc, "max"));
	}
	fputs("</td></tr>\n", f);
	kv_row(f, "Memory");
	fprintf(f, "peak <b class=\"mem-peak\">%s</b> (all processes at once), largest process %s",
		fmt_bytes((uint64_t)fmax(cli_jnum(mem, "peak_bytes"), 0), a, sizeof(a)),
		fmt_bytes((uint64_t)fmax(cli_jnum(tot, "max_rss_bytes"), 0), b, sizeof(b)));
	if (!isnan(cli_jnum(mem, "efficiency"))) {
		fprintf(f, "; %s of the request", fmt_pct(cli_jnum(mem, "efficiency"), c, sizeof(c)));
		meter(f, cli_jnum(mem, "efficiency"));
	}
	fputs("</td></tr>\n", f);
	kv_row(f, "I/O");
	fprintf(f, "read %s (storage %s), written %s (storage %s)</td></tr>\n",
		fmt_bytes((uint64_t)fmax(cli_jnum(tot, "rchar"), 0), a, sizeof(a)),
		fmt_bytes((uint64_t)fmax(cli_jnum(tot, "read_bytes"), 0), b, sizeof(b)),
		fmt_bytes((uint64_t)fmax(cli_jnum(tot, "wchar"), 0), c, sizeof(c)),
		fmt_bytes((uint64_t)fmax(cli_jnum(tot, "write_bytes"), 0), d, sizeof(d)));
	html_io_rows(f, s);
	kv_row(f, "Processes");
	fprintf(f, "%.0f (exited %.0f, outlived %.0f, OOM-killed %.0f); events lost %.0f%s</td></tr>\n",
		cli_jnum(procs, "total"), cli_jnum(procs, "exited"), cli_jnum(procs, "outlived"),
		cli_jnum(procs, "oom_killed"), cli_jnum(cJSON_GetObjectItem(s, "drops"), "events"),
		cJSON_IsTrue(cJSON_GetObjectItem(s, "incomplete")) ? "; <b>totals incomplete</b>" : "");
	if (cJSON_IsObject(cost)) {
		kv_row(f, "Cost");
		fprintf(f, "<b>%.4f</b>", cli_jnum(cost, "total"));
		if (cli_jstr(cost, "currency")) {
			fputs(" ", f);
			h_text(f, cli_jstr(cost, "currency"));
		}
		if (!isnan(cli_jnum(cost, "unused")))
			fprintf(f, ", of which unused allocation %.4f", cli_jnum(cost, "unused"));
		fputs("</td></tr>\n", f);
	}
}

/* "key = value, ..." of an object of numbers and strings */
static void pairs(FILE *f, const cJSON *o)
{
	const cJSON *v;
	bool first = true;

	cJSON_ArrayForEach(v, o) {
		fputs(first ? "" : ", ", f);
		first = false;
		h_cut(f, v->string, 80);
		fputs(" = ", f);
		if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
		    fabs(v->valuedouble) < 1e15)
			fprintf(f, "%.0f", v->valuedouble);
		else if (cJSON_IsNumber(v))
			fprintf(f, "%.4g", v->valuedouble);
		else if (cJSON_IsString(v))
			h_cut(f, v->valuestring, 200);
		else if (cJSON_IsBool(v))
			fputs(cJSON_IsTrue(v) ? "true" : "false", f);
		else
			fputs("&hellip;", f);
	}
}

void html_notes(FILE *f, const cJSON *flags, const char *task)
{
	const cJSON *fl;

	cJSON_ArrayForEach(fl, flags) {
		const char *sev = cli_jstr(fl, "severity");
		const char *id = cJSON_IsString(fl) ? fl->valuestring : cli_jstr(fl, "id");

		fputs("<div class=\"note ", f);
		h_text(f, sev && (!strcmp(sev, "warning") || !strcmp(sev, "error")) ? sev : "info");
		fputs("\" data-flag=\"", f);
		h_text(f, fmt_or_dash(id));
		fputs("\"><span class=\"id\">", f);
		h_text(f, fmt_or_dash(id));
		fputs("</span> ", f);
		if (task) {
			fputs("<b>", f);
			h_cut(f, task, 120);
			fputs("</b>: ", f);
		}
		if (cli_jstr(fl, "tool") && strncmp(fmt_or_dash(cli_jstr(fl, "message")), cli_jstr(fl, "tool"),
						strlen(cli_jstr(fl, "tool")))) {
			h_cut(f, cli_jstr(fl, "tool"), 120);
			fputs(": ", f);
		}
		h_text(f, cli_jstr(fl, "message"));
		if (cJSON_GetArraySize(cJSON_GetObjectItem(fl, "evidence")) > 0) {
			fputs("<div class=\"ev\">evidence: ", f);
			pairs(f, cJSON_GetObjectItem(fl, "evidence"));
			if (cJSON_GetArraySize(cJSON_GetObjectItem(fl, "thresholds")) > 0) {
				fputs("; thresholds: ", f);
				pairs(f, cJSON_GetObjectItem(fl, "thresholds"));
			}
			fputs("</div>", f);
		}
		fputs("</div>\n", f);
	}
}

void html_snippets(FILE *f, const cJSON *rec, const char *task)
{
	static const char *const keys[] = {"slurm", "nextflow", "snakemake", "aws_batch"};
	static const char *const names[] = {"Slurm", "Nextflow", "Snakemake", "AWS Batch"};
	static int serial; /* ids unique on the page */
	const cJSON *sx = cJSON_GetObjectItem(rec, "syntax");

	fputs("<div class=\"snippets\"><p>", f);
	if (task) {
		fputs("<b>", f);
		h_cut(f, task, 120);
		fputs("</b>: ", f);
	}
	fputs("what to request next time (", f);
	h_text(f, fmt_or_dash(cli_jstr(rec, "basis")));
	fputs(")</p>\n", f);
	for (int k = 0; k < 4; k++) {
		if (!cli_jstr(sx, keys[k]))
			continue;
		serial++;
		fprintf(f, "<div class=\"snip\"><b>%s</b><button type=\"button\" data-copy=\"snip%d\">"
			   "Copy</button><pre id=\"snip%d\" data-syntax=\"%s\">", names[k], serial, serial,
			keys[k]);
		h_cut(f, cli_jstr(sx, keys[k]), 4000);
		fputs("</pre></div>\n", f);
	}
	fputs("</div>\n", f);
}

static void charts(FILE *f, const cJSON *s)
{
	const cJSON *ts = cJSON_GetObjectItem(s, "timeseries");
	const cJSON *alloc = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "identity"), "allocation");
	const cJSON *mem = cJSON_GetObjectItem(s, "memory");
	int n = cJSON_GetArraySize(cJSON_GetObjectItem(ts, "t_s"));
	double cpus = cli_jnum(alloc, "cpus"), req = cli_jnum(mem, "allocated_bytes");
	double t[2048], cpu[2048], m[2048];
	char label[64], b[32];
	const cJSON *x, *y, *z;
	int i = 0;

	if (n <= 0) {
		fputs("<p class=\"muted\">No samples over time in this summary (a job shorter than "
		      "one sampling interval, or recorded without tracerd).</p>\n", f);
		return;
	}
	x = cJSON_GetObjectItem(ts, "t_s")->child;
	y = cJSON_GetArrayItem(cJSON_GetObjectItem(ts, "cpu_cores"), 0);
	z = cJSON_GetArrayItem(cJSON_GetObjectItem(ts, "mem_bytes"), 0);
	for (; x && i < 2048; x = x->next, i++) {
		t[i] = cJSON_IsNumber(x) ? x->valuedouble : NAN;
		cpu[i] = cJSON_IsNumber(y) ? y->valuedouble : NAN;
		m[i] = cJSON_IsNumber(z) ? z->valuedouble : NAN;
		y = y ? y->next : NULL;
		z = z ? z->next : NULL;
	}
	if (isnan(cpus))
		cpus = cli_jnum(cJSON_GetObjectItem(s, "host"), "cpus");
	snprintf(label, sizeof(label), "allocation %.0f CPUs", cpus);
	svg_chart(f, &(struct chart){.id = "chart-cpu", .title = "CPU cores in use",
		      .limit_label = label, .t = t, .v = cpu, .n = i, .t_end = cli_jnum(s, "wall_s"),
		      .limit = cpus, .colour = "#4e79a7"});
	snprintf(label, sizeof(label), "request %s", svg_value(req, true, b, sizeof(b)));
	svg_chart(f, &(struct chart){.id = "chart-mem", .title = "Memory in use",
		      .limit_label = label, .t = t, .v = m, .n = i, .t_end = cli_jnum(s, "wall_s"),
		      .limit = req, .bytes = true, .colour = "#59a14f"});
}

static void tools_table(FILE *f, const cJSON *s)
{
	const cJSON *tools = cJSON_GetObjectItem(s, "tools"), *t;
	double max[7] = {0};
	char a[32], ex[160];
	int i = 0, n = cJSON_GetArraySize(tools);
	static const char *const keys[5] = {"cpu_s", "cpu_efficiency", "peak_rss_bytes", "rchar", "wchar"};

	cJSON_ArrayForEach(t, tools)
		for (int k = 0; k < 5; k++)
			max[k] = fmax(max[k], cli_jnum(t, keys[k]));
	cJSON_ArrayForEach(t, tools) {
		max[5] = fmax(max[5], html_net_bytes(t));
		max[6] = fmax(max[6], html_disk_bytes(t));
	}
	fputs("<table class=\"data sortable\" id=\"tools\"><thead><tr><th>Tool</th><th>Processes</th>"
	      "<th>CPU</th><th>Efficiency (allocation)</th><th>Span</th><th>Peak memory</th>"
	      "<th>Read</th><th>Written</th><th>Network</th><th>Disk</th><th>Exit codes</th></tr></thead>"
	      "<tbody>\n", f);
	cJSON_ArrayForEach(t, tools) {
		const cJSON *x;
		size_t off = 0;
		const char *col = html_colour(i);

		if (i++ == HTML_MAX_TOOLS)
			break;
		ex[0] = '\0';
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(t, "exit_codes")) {
			char one[32];
			if (off < sizeof(ex))
				off += (size_t)snprintf(ex + off, sizeof(ex) - off, "%s%s x%.0f", off ? ", " : "",
							fmt_exit_text(x, "code", one, sizeof(one)), cli_jnum(x, "count"));
		}
		fprintf(f, "<tr data-tool=\"");
		h_text(f, fmt_or_dash(cli_jstr(t, "tool")));
		fprintf(f, "\"><td><span class=\"sw\" style=\"background:%s\"></span>", col);
		h_cut(f, fmt_or_dash(cli_jstr(t, "tool")), 200);
		fprintf(f, "</td><td class=\"n\" data-v=\"%.0f\">%.0f</td>", cli_jnum(t, "processes"),
			cli_jnum(t, "processes"));
		svg_cell_bar(f, cli_jnum(t, "cpu_s"), max[0], fmt_secs(cli_jnum(t, "cpu_s"), a, sizeof(a)), col);
		svg_cell_bar(f, cli_jnum(t, "cpu_efficiency"), max[1],
			     fmt_pct(cli_jnum(t, "cpu_efficiency"), a, sizeof(a)), col);
		fprintf(f, "<td class=\"n\" data-v=\"%.6g\">%s</td>", fmax(cli_jnum(t, "cpu_efficiency_span"), -1),
			fmt_pct(cli_jnum(t, "cpu_efficiency_span"), a, sizeof(a)));
		svg_cell_bar(f, cli_jnum(t, "peak_rss_bytes"), max[2],
			     fmt_bytes((uint64_t)fmax(cli_jnum(t, "peak_rss_bytes"), 0), a, sizeof(a)), col);
		svg_cell_bar(f, cli_jnum(t, "rchar"), max[3], fmt_bytes((uint64_t)fmax(cli_jnum(t, "rchar"), 0), a, sizeof(a)), col);
		svg_cell_bar(f, cli_jnum(t, "wchar"), max[4], fmt_bytes((uint64_t)fmax(cli_jnum(t, "wchar"), 0), a, sizeof(a)), col);
		svg_cell_bar(f, html_net_bytes(t), max[5], fmt_bytes((uint64_t)html_net_bytes(t), a, sizeof(a)), col);
		svg_cell_bar(f, html_disk_bytes(t), max[6], fmt_bytes((uint64_t)html_disk_bytes(t), a, sizeof(a)), col);
		fputs("<td>", f);
		h_text(f, ex);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (n > HTML_MAX_TOOLS)
		fprintf(f, "<p class=\"small\">%d tools; the %d heaviest listed.</p>\n", n, HTML_MAX_TOOLS);
}

/* the shown processes, with their pids, for walking the tree */
struct shown {
	const struct procs *ps;
	int n;
	int *idx;            /* index in ps->v */
	double *pid, *ppid;
	unsigned char *done;
	int64_t t0;
};

/* a process row, then its children (shown ones), depth-first */
static void proc_rows(FILE *f, struct shown *sh, int k, int depth)
{
	const cJSON *p = sh->ps->v[sh->idx[k]];
	char a[32], b[32], c[32], d[32], e[32], ex[32];
	int64_t st = html_time_ns(p, "start");

	sh->done[k] = 1;
	fprintf(f, "<tr id=\"p%d\"><td class=\"n\">%.0f</td><td style=\"padding-left:%dpx\">",
		sh->idx[k], sh->pid[k], 8 + (depth > 30 ? 30 : depth) * 12);
	h_cut(f, fmt_or_dash(cli_jstr(p, "tool")), 120);
	fprintf(f, "%s%s%s</td><td class=\"n\">%.3f</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		   "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		   "<td class=\"cmd\">",
		cJSON_IsTrue(cJSON_GetObjectItem(p, "registrant")) ? " <i>(registrant)</i>" : "",
		cJSON_IsTrue(cJSON_GetObjectItem(p, "oom_killed")) ? " <b>(OOM)</b>" : "",
		cJSON_IsTrue(cJSON_GetObjectItem(p, "outlived")) ? " (outlived)" : "",
		st && sh->t0 ? (double)(st - sh->t0) / 1e9 : 0.0, fmt_secs(cli_jnum(p, "wall_s"), a, sizeof(a)),
		fmt_secs(cli_jnum(p, "cpu_s"), b, sizeof(b)),
		fmt_bytes((uint64_t)fmax(cli_jnum(p, "peak_rss_bytes"), 0), c, sizeof(c)),
		fmt_bytes((uint64_t)fmax(cli_jnum(p, "rchar"), 0), d, sizeof(d)),
		fmt_bytes((uint64_t)fmax(cli_jnum(p, "wchar"), 0), e, sizeof(e)),
		fmt_exit_text(p, "code", ex, sizeof(ex)));
	h_cut(f, fmt_or_dash(cli_jstr(p, "cmdline")), HTML_CMD_ROW);
	fputs("</td></tr>\n", f);
	if (depth > 64)
		return;
	for (int j = 0; j < sh->n; j++)
		if (!sh->done[j] && sh->ppid[j] == sh->pid[k])
			proc_rows(f, sh, j, depth + 1);
}

static void proc_table(FILE *f, const cJSON *s, const struct procs *ps)
{
	const cJSON *procs = cJSON_GetObjectItem(s, "processes");
	struct shown sh = {.ps = ps, .t0 = html_ns_field(s, "start_ns")};
	size_t m = ps->nkeep ? (size_t)ps->nkeep : 1;

	sh.idx = calloc(m, sizeof(*sh.idx));
	sh.pid = calloc(m, sizeof(*sh.pid));
	sh.ppid = calloc(m, sizeof(*sh.ppid));
	sh.done = calloc(m, 1);
	if (!sh.idx || !sh.pid || !sh.ppid || !sh.done)
		goto out;
	for (int i = 0; i < ps->n; i++)
		if (ps->keep[i]) {
			sh.idx[sh.n] = i;
			sh.pid[sh.n] = cli_jnum(ps->v[i], "pid");
			sh.ppid[sh.n++] = cli_jnum(ps->v[i], "ppid");
		}
	fprintf(f, "<p class=\"small\">%d processes listed one by one (the heaviest by CPU, and the "
		   "top of the tree), of the %d the summary kept; the job ran %.0f, its registrant apart.  "
		   "The others count in the tools' totals.  Command lines are cut at %d bytes.</p>\n",
		ps->nkeep, ps->n, cli_jnum(procs, "total"), HTML_CMD_ROW);
	fprintf(f, "<details%s><summary>Process tree</summary>\n", ps->nkeep <= 60 ? " open" : "");
	fputs("<table class=\"data\" id=\"procs\"><thead><tr><th>PID</th><th>Tool</th><th>Start (s)</th>"
	      "<th>Wall</th><th>CPU</th><th>Peak memory</th><th>Read</th><th>Written</th><th>Exit</th>"
	      "<th>Command line</th></tr></thead><tbody>\n", f);
	/* roots first: shown processes whose parent is not shown */
	for (int k = 0; k < sh.n; k++) {
		bool has_parent = false;
		for (int j = 0; j < sh.n && !has_parent; j++)
			has_parent = j != k && sh.pid[j] == sh.ppid[k];
		if (!has_parent && !sh.done[k])
			proc_rows(f, &sh, k, 0);
	}
	for (int k = 0; k < sh.n; k++) /* cycles (pid reuse): still listed */
		if (!sh.done[k])
			proc_rows(f, &sh, k, 0);
	fputs("</tbody></table></details>\n", f);
out:
	free(sh.idx);
	free(sh.pid);
	free(sh.ppid);
	free(sh.done);
}

void html_job_body(FILE *f, const cJSON *s)
{
	const cJSON *id = cJSON_GetObjectItem(s, "identity");
	const cJSON *flags = cJSON_GetObjectItem(s, "flags");
	const cJSON *rec = cJSON_GetObjectItem(s, "recommendation");
	struct procs ps;

	fputs("<header><h1>", f);
	h_cut(f, fmt_or_dash(cli_jstr(id, "task_name")), 200);
	fputs(" <span class=\"state ", f);
	h_cut(f, fmt_or_dash(cli_jstr(s, "state")), 40);
	fputs("\">", f);
	h_cut(f, fmt_or_dash(cli_jstr(s, "state")), 40);
	fputs("</span></h1>\n<table class=\"kv\" id=\"identity\">\n", f);
	identity_rows(f, s);
	use_rows(f, s);
	fputs("</table></header>\n<section id=\"notes\"><h2>Notes</h2>\n", f);
	if (cJSON_GetArraySize(flags) > 0)
		html_notes(f, flags, NULL);
	else
		fputs("<p class=\"muted\">No findings.</p>\n", f);
	if (cJSON_IsObject(rec))
		html_snippets(f, rec, NULL);
	fputs("</section>\n<section id=\"over-time\"><h2>Over time</h2>\n", f);
	charts(f, s);
	fputs("</section>\n", f);
	html_gpu_section(f, s);
	if (html_procs_load(&ps, s) != 0) {
		fputs("<p>Out of memory: no timeline.</p>\n", f);
		return;
	}
	fputs("<section id=\"timeline-section\"><h2>Timeline</h2>\n", f);
	html_job_timeline(f, s, &ps);
	fputs("</section>\n<section id=\"tools-section\"><h2>Tools</h2>\n", f);
	tools_table(f, s);
	fputs("</section>\n<section id=\"processes\"><h2>Processes</h2>\n", f);
	proc_table(f, s, &ps);
	fputs("</section>\n", f);
	html_procs_free(&ps);
}
