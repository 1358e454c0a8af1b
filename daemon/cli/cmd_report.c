/*
 * report_command.c - `tracer show`: one job's report read from the file
 * sink's summaries (docs/schema.md).  It works without tracerd.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brief.h"
#include "cli.h"
#include "client.h"
#include "html.h"
#include "term.h"
#include "textsafe.h"

#define MAX_DEPTH 32
/* tools listed without --tools: one screen, as seff's report fits one */
#define SHOW_TOP_TOOLS 10
/* a screen: the report's lines without --tools and --tree when it can
 * (a job of many notes lists fewer tools, SHOW_MIN_TOOLS at least) */
#define SHOW_SCREEN_LINES 60
#define SHOW_MIN_TOOLS 5
/* the table's lines besides its rows: a blank line, its head, what was
 * left out, "N more tools", the process tree's line */
#define SHOW_TOOLS_EXTRA 5
#define SHOW_TOOL_NOTES 2 /* notes on tools without --tools */

/* What `tracer show` prints past the header, notes and request. */
enum show_part { SHOW_ALL_TOOLS = 1, SHOW_TREE = 2 };

static void print_header(const cJSON *s)
{
	const cJSON *id = cJSON_GetObjectItem(s, "identity");
	const cJSON *host = cJSON_GetObjectItem(s, "host");
	const cJSON *alloc = cJSON_GetObjectItem(id, "allocation");
	const cJSON *tot = cJSON_GetObjectItem(s, "totals");
	const cJSON *mem = cJSON_GetObjectItem(s, "memory");
	const cJSON *procs = cJSON_GetObjectItem(s, "processes");
	const cJSON *drops = cJSON_GetObjectItem(s, "drops");
	char a[32], b[32], c2[32], d[32], ex[32];

	printf("Run      %s  (name %s, pipeline %s)\n", fmt_or_dash(cli_jstr(id, "run_id")),
	       fmt_or_dash(cli_jstr(id, "run_name")), fmt_or_dash(cli_jstr(id, "pipeline")));
	printf("Task     %s  [%s]  job %s", fmt_or_dash(cli_jstr(id, "task_name")),
	       fmt_or_dash(cli_jstr(id, "scheduler")), fmt_or_dash(cli_jstr(id, "job_id")));
	if (cli_jstr(id, "step_id"))
		printf(" step %s", cli_jstr(id, "step_id"));
	if (!isnan(cli_jnum(id, "array_index")))
		printf(" array %s[%.0f]", fmt_or_dash(cli_jstr(id, "array_job_id")), cli_jnum(id, "array_index"));
	printf("  user %s  queue %s\n", fmt_or_dash(cli_jstr(id, "user")), fmt_or_dash(cli_jstr(id, "queue")));
	printf("Job      %s\n", fmt_or_dash(cli_jstr(s, "job")));
	fmt_containers(s);
	printf("Host     %s: %.0f CPUs (%.0f cores, %.0f socket(s), %.0f NUMA node(s)), %s, %s\n",
	       fmt_or_dash(cli_jstr(host, "hostname")), cli_jnum(host, "cpus"), cli_jnum(host, "cores"),
	       cli_jnum(host, "sockets"), cli_jnum(host, "numa_nodes"),
	       fmt_bytes((uint64_t)cli_jnum(host, "mem_bytes"), a, sizeof(a)),
	       fmt_or_dash(cli_jstr(host, "cpu_model")));
	if (alloc && !isnan(cli_jnum(alloc, "cpus")))
		printf("Alloc    %.0f CPUs (%s), memory %s\n", cli_jnum(alloc, "cpus"),
		       fmt_or_dash(cli_jstr(alloc, "cpuset")),
		       isnan(cli_jnum(alloc, "mem_bytes")) ? "-"
			       : fmt_bytes((uint64_t)cli_jnum(alloc, "mem_bytes"), a, sizeof(a)));
	const char *t0 = fmt_or_dash(cli_jstr(s, "start")), *t1 = fmt_or_dash(cli_jstr(s, "end"));
	if (strlen(t0) > 11 && !strncmp(t0, t1, 11)) /* same day: the end's time of day */
		t1 += 11;
	printf("Time     %s -> %s, wall %s, exit %s\n", t0, t1,
	       fmt_secs(cli_jnum(s, "wall_s"), a, sizeof(a)),
	       fmt_exit_text(cJSON_GetObjectItem(s, "exit"), "code", ex, sizeof(ex)));
	printf("CPU      %s (user %s, sys %s), efficiency %s of the %s\n",
	       fmt_secs(cli_jnum(tot, "cpu_s"), a, sizeof(a)), fmt_secs(cli_jnum(tot, "user_s"), b, sizeof(b)),
	       fmt_secs(cli_jnum(tot, "sys_s"), c2, sizeof(c2)),
	       fmt_pct(cli_jnum(s, "cpu_efficiency"), d, sizeof(d)),
	       fmt_or_dash(cli_jstr(s, "cpu_efficiency_basis")));
	printf("Memory   peak %s (all processes at once), largest process %s",
	       fmt_bytes((uint64_t)cli_jnum(mem, "peak_bytes"), a, sizeof(a)),
	       fmt_bytes((uint64_t)cli_jnum(tot, "max_rss_bytes"), b, sizeof(b)));
	if (!isnan(cli_jnum(mem, "efficiency")))
		printf(", %s of the allocation", fmt_pct(cli_jnum(mem, "efficiency"), c2, sizeof(c2)));
	printf("\nI/O      read %s (storage %s), written %s (storage %s)\n",
	       fmt_bytes((uint64_t)cli_jnum(tot, "rchar"), a, sizeof(a)),
	       fmt_bytes((uint64_t)cli_jnum(tot, "read_bytes"), b, sizeof(b)),
	       fmt_bytes((uint64_t)cli_jnum(tot, "wchar"), c2, sizeof(c2)),
	       fmt_bytes((uint64_t)cli_jnum(tot, "write_bytes"), d, sizeof(d)));
	fmt_netio_header(s);
	printf("Procs    %.0f (exited %.0f, outlived %.0f, OOM-killed %.0f), events dropped %.0f\n",
	       cli_jnum(procs, "total"), cli_jnum(procs, "exited"), cli_jnum(procs, "outlived"),
	       cli_jnum(procs, "oom_killed"), cli_jnum(drops, "events"));
}

static void print_tools(const cJSON *s, int width, bool all, int top)
{
	/* SPAN: CPU over the tool's own time span (cores busy while it ran);
	 * ALLOC: its share of the job's allocation, as seff */
	static const struct table_col cols[] = {
		{"TOOL", 'l', 12, 0}, {"PROCS", 'r', 0, 0}, {"CPU", 'r', 0, 0},
		{"SPAN", 'r', 0, 6}, {"ALLOC", 'r', 0, 0}, {"PEAK RSS", 'r', 0, 0},
		{"READ", 'r', 0, 3}, {"WRITE", 'r', 0, 3}, {"NET", 'r', 0, 5},
		{"DISK", 'r', 0, 4}, {"EXIT CODES", 'l', 10, 0},
	};
	struct table *tb = table_new(cols, 11);
	const cJSON *tools = cJSON_GetObjectItem(s, "tools"), *t;
	int ntools = cJSON_GetArraySize(tools), listed = 0;

	putchar('\n');
	/* the summary's tools come sorted by CPU (lib/summary.c): the top ones first */
	cJSON_ArrayForEach(t, tools) {
		if (!all && listed++ == top)
			break;
		char exits[128] = "", n[32], k[32], procs[32];
		char a[32], b[32], b2[32], c2[32], d[32], e[32];
		size_t off = 0;
		const cJSON *x;
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(t, "exit_codes")) {
			char one[32];
			off += (size_t)snprintf(exits + off, off < sizeof(exits) ? sizeof(exits) - off : 0,
						"%s%s x%.0f", off ? ", " : "",
						fmt_exit_text(x, "code", one, sizeof(one)), cli_jnum(x, "count"));
			if (off >= sizeof(exits))
				break;
		}
		snprintf(procs, sizeof(procs), "%.0f", cli_jnum(t, "processes"));
		const char *row[] = {
			fmt_or_dash(cli_jstr(t, "tool")), procs, fmt_secs(cli_jnum(t, "cpu_s"), a, sizeof(a)),
			fmt_pct(cli_jnum(t, "cpu_efficiency_span"), b, sizeof(b)),
			fmt_pct(cli_jnum(t, "cpu_efficiency"), b2, sizeof(b2)),
			fmt_bytes((uint64_t)cli_jnum(t, "peak_rss_bytes"), c2, sizeof(c2)),
			fmt_bytes((uint64_t)cli_jnum(t, "rchar"), d, sizeof(d)),
			fmt_bytes((uint64_t)cli_jnum(t, "wchar"), e, sizeof(e)),
			fmt_net(t, n, sizeof(n)), fmt_disk(t, k, sizeof(k)), exits,
		};
		table_add(tb, row);
	}
	table_print(tb, width, "");
	if (!all && ntools > top)
		printf("%d more tools (--tools lists them)\n", ntools - top);
}

/* How many tools the table lists when `used` lines are printed already:
 * SHOW_TOP_TOOLS, fewer (SHOW_MIN_TOOLS at least) where the screen ends
 * before; all of them when the lines are not counted (--wide). */
static int top_tools(int used)
{
	int left = SHOW_SCREEN_LINES - used - SHOW_TOOLS_EXTRA;

	if (used < 0 || left >= SHOW_TOP_TOOLS)
		return SHOW_TOP_TOOLS;
	return left > SHOW_MIN_TOOLS ? left : SHOW_MIN_TOOLS;
}

/* Without --tree: one line that says the tree is there and how to see it. */
static void print_tree_hint(const cJSON *s)
{
	const cJSON *p;
	int kept = 0;

	if (cli_jstr(s, "scope") && cJSON_GetArraySize(cJSON_GetObjectItem(s, "steps")) > 1) {
		printf("Process trees: one per step (tracer show %s.STEP [--node HOST])\n",
		       fmt_or_dash(cli_jstr(s, "job")));
		return;
	}
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(s, "process_tree"))
		if (!cJSON_IsTrue(cJSON_GetObjectItem(p, "registrant")))
			kept++;
	printf("Process tree: %d of %.0f processes kept (--tree shows it)\n", kept,
	       cli_jnum(cJSON_GetObjectItem(s, "processes"), "total"));
}

static void add_proc(struct table *tb, const cJSON *p, int depth)
{
	char a[32], b[32], c2[32], d[32], e[32], ex[32], pid[32], *name;
	double wall = cli_jnum(p, "wall_s"), cpu = cli_jnum(p, "cpu_s");

	if (asprintf(&name, "%*s%s%s%s", depth * 2, "", fmt_or_dash(cli_jstr(p, "tool")),
		     cJSON_IsTrue(cJSON_GetObjectItem(p, "outlived")) ? " (outlived)" : "",
		     cJSON_IsTrue(cJSON_GetObjectItem(p, "oom_killed")) ? " (OOM)" : "") < 0)
		return;
	snprintf(pid, sizeof(pid), "%.0f", cli_jnum(p, "pid"));
	const char *row[] = {
		pid, name, fmt_secs(cpu, a, sizeof(a)),
		fmt_pct(wall > 0 ? cpu / wall : NAN, b, sizeof(b)),
		fmt_bytes((uint64_t)cli_jnum(p, "peak_rss_bytes"), c2, sizeof(c2)),
		fmt_bytes((uint64_t)cli_jnum(p, "rchar"), d, sizeof(d)),
		fmt_bytes((uint64_t)cli_jnum(p, "wchar"), e, sizeof(e)),
		fmt_exit_text(p, "code", ex, sizeof(ex)), fmt_or_dash(cli_jstr(p, "cmdline")),
	};
	table_add(tb, row);
	free(name);
}

static bool has_pid(const cJSON *tree, double pid)
{
	const cJSON *p;
	cJSON_ArrayForEach(p, tree)
		if (cli_jnum(p, "pid") == pid)
			return true;
	return false;
}

static void add_children(struct table *tb, const cJSON *tree, double ppid, int depth)
{
	const cJSON *p;

	if (depth > MAX_DEPTH)
		return;
	cJSON_ArrayForEach(p, tree) {
		if (cli_jnum(p, "ppid") != ppid || cli_jnum(p, "pid") == ppid)
			continue;
		add_proc(tb, p, depth);
		add_children(tb, tree, cli_jnum(p, "pid"), depth + 1);
	}
}

static void print_tree(const cJSON *s, int width)
{
	static const struct table_col cols[] = {
		{"PID", 'r', 0, 0}, {"TOOL", 'l', 12, 0}, {"CPU", 'r', 0, 0},
		{"EFF", 'r', 0, 0}, {"PEAK RSS", 'r', 0, 0}, {"READ", 'r', 0, 2},
		{"WRITE", 'r', 0, 1}, {"EXIT", 'r', 0, 0}, {"COMMAND", 'l', 24, 0},
	};
	const cJSON *tree = cJSON_GetObjectItem(s, "process_tree");
	const cJSON *procs = cJSON_GetObjectItem(s, "processes");
	struct table *tb = table_new(cols, 9);
	const cJSON *p;

	int kept = 0, roots = 0;
	bool registrant = false;

	/* processes.total leaves the registrant out; the tree may hold it */
	cJSON_ArrayForEach(p, tree) {
		if (cJSON_IsTrue(cJSON_GetObjectItem(p, "registrant")))
			registrant = true;
		else
			kept++;
	}
	printf("\nPROCESS TREE (%d of %.0f processes kept%s)\n", kept, cli_jnum(procs, "total"),
	       registrant ? ", and the registrant" : "");
	/* roots: processes whose parent was not kept */
	cJSON_ArrayForEach(p, tree) {
		if (has_pid(tree, cli_jnum(p, "ppid")))
			continue;
		roots++;
		add_proc(tb, p, 0);
		add_children(tb, tree, cli_jnum(p, "pid"), 1);
	}
	if (!roots) /* parents in a loop (pids reused): list them flat */
		cJSON_ArrayForEach(p, tree)
			add_proc(tb, p, 0);
	table_print(tb, width, "");
}

static void show_usage(FILE *f)
{
	fprintf(f,
		"usage: tracer show [--tools] [--tree] [--all] [--wide] [--json] [--html FILE]\n"
		"                   [--node HOST] [--brief] [--cluster NAME] [--user USER]\n"
		"                   JOB|JOB.STEP|last\n"
		"One finished job on one screen: run, task, allocation and totals, the\n"
		"notes, the request to make next time and the %d tools that used the most\n"
		"CPU (fewer when the notes fill the screen).  JOB is a Slurm or AWS Batch job id (1234): the whole job, every\n"
		"step on every node, rolled up, with a table of its steps; JOB.STEP\n"
		"(1234.0, 1234.batch) one step; a job uid or a task name that one job;\n"
		"the newest match wins; \"last\" is the newest job.\n"
		"      --node HOST  only the part of the job (or step) on HOST\n"
		"      --cluster NAME, --user USER\n"
		"                   JOB is a Slurm job id of that cluster and that user\n"
		"                   (name or uid): no other job of the same id is shown\n"
		"      --tools      every tool, not the top %d, and every note on tools\n"
		"      --tree       the process tree too\n"
		"      --all        both: every tool and the process tree\n"
		"      --wide       lines as long as they need (default: the terminal's\n"
		"                   width, 80 columns when not a terminal)\n"
		"      --json       the job's summary (docs/schema.md)\n"
		"      --html FILE  a self-contained HTML report (FILE - : stdout)\n"
		"      --brief      the verdict in at most %d lines: state and efficiency,\n"
		"                   the notes, the request to make next time\n"
		"  -h, --help       this help\n", SHOW_TOP_TOOLS, SHOW_TOP_TOOLS, TRACER_BRIEF_LINES);
}

int cmd_show(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{"html", required_argument, NULL, 'H'},
		{"wide", no_argument, NULL, 'w'},
		{"tools", no_argument, NULL, 'T'},
		{"tree", no_argument, NULL, 'P'},
		{"all", no_argument, NULL, 'a'},
		{"node", required_argument, NULL, 'N'},
		{"brief", no_argument, NULL, 'b'},
		{"cluster", required_argument, NULL, 'C'},
		{"user", required_argument, NULL, 'u'},
		{NULL, 0, NULL, 0},
	};
	const char *name, *html = NULL, *node = NULL, *cluster = NULL, *user = NULL;
	bool wide = false, brief = false;
	int opt, parts = 0;

	while ((opt = cli_getopt(argc, argv, ":h", opts, "show")) != -1) {
		if (opt == 'j') {
			c->json = true;
		} else if (opt == 'H') {
			html = optarg;
		} else if (opt == 'w') {
			wide = true;
		} else if (opt == 'T') {
			parts |= SHOW_ALL_TOOLS;
		} else if (opt == 'P') {
			parts |= SHOW_TREE;
		} else if (opt == 'a') {
			parts |= SHOW_ALL_TOOLS | SHOW_TREE;
		} else if (opt == 'N') {
			node = optarg;
		} else if (opt == 'b') {
			brief = true;
		} else if (opt == 'C') {
			cluster = optarg;
		} else if (opt == 'u') {
			user = optarg;
		} else if (opt == 'h') {
			show_usage(stdout);
			return 0;
		} else {
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "tracer show: which job? (a job uid, job id, task name or "
				"\"last\"; see tracer show --help)\n");
		return 2;
	}
	if (optind + 1 < argc)
		return cli_extra_arg("show", argv[optind + 1]);
	name = argv[optind];
	if ((cluster || user) && (!name[0] || strspn(name, "0123456789") != strlen(name))) {
		fprintf(stderr, "tracer show: --cluster and --user take a Slurm job id (digits), "
				"not \"%s\"\n", name);
		return 2;
	}
	cJSON *s = cluster || user ? cli_job_view_of(c, name, cluster, user, node) :
				     cli_job_view(c, name, node);
	if (!s) {
		fprintf(stderr, "tracer: no job %s%s%s in %s\n", name, node ? " on " : "",
			node ? node : "", c->cfg.file_path);
		return 1;
	}
	if (html) {
		int rc = html_write_job(s, html);
		cJSON_Delete(s);
		return rc;
	}
	if (brief) {
		char text[TRACER_BRIEF_LINES * (4 * BRIEF_LINE_MAX + 1) + 1];

		brief_lines(s, TRACER_BRIEF_LINES, text, sizeof(text));
		fputs(text, stdout);
	} else if (c->json) {
		cli_print_json(s);
	} else {
		int width = term_width(wide);

		text_safe_json(s); /* names and argv reach a terminal */
		term_begin(width);
		print_header(s);
		advice_print(s, width, parts & SHOW_ALL_TOOLS, SHOW_TOOL_NOTES);
		show_job_steps(s, width);
		print_tools(s, width, parts & SHOW_ALL_TOOLS, top_tools(term_lines()));
		if (parts & SHOW_TREE)
			print_tree(s, width);
		else
			print_tree_hint(s);
		term_end();
	}
	cJSON_Delete(s);
	return 0;
}
