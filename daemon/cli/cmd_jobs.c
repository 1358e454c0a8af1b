/*
 * cmd_jobs.c - `tracer jobs`: the jobs still running (from tracerd) and
 * the newest finished ones (from the file sink's summaries), selected
 * with the filters sacct users know; as a table, JSON or CSV.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "datalake_read.h"
#include "client.h"
#include "clock.h"
#include "csv.h"
#include "filter_opts.h"
#include "jobs_format.h"
#include "jobview.h"
#include "term.h"
#include "textsafe.h"

#define DEFAULT_LIMIT 20

enum { O_NAME = 256, O_STATE, O_JSON, O_CSV, O_WIDE, O_LIMIT, O_STEPS };
enum fmt { F_TABLE, F_JSON, F_CSV, F_FIELDS };

/* What `tracer jobs` lists and how. */
struct jobs_opts {
	long limit;
	enum fmt fmt;
	bool wide, steps, parsable, noheader;
	int fields[JOBS_FORMAT_MAX], nfields;
};

static void usage(FILE *f)
{
	char all[512];

	jobs_format_list(all, sizeof(all));
	fprintf(f,
		"usage: tracer jobs [-j JOBID] [-u USER] [-A ACCOUNT] [--partition P] [-N HOST]\n"
		"                   [-S TIME] [-E TIME] [-s STATE] [--name NAME] [-r RUN]\n"
		"                   [--steps] [--limit N] [--json | --csv | --wide |\n"
		"                   [--format FIELD,...] [-P] [-n]]\n"
		"Jobs running now (from tracerd) and the newest finished jobs (from the\n"
		"summary file), oldest first, one line per job: its steps on all its nodes\n"
		"rolled up (as `sacct -X`; --steps: one line per step and node, as sacct\n"
		"without -X).  Lists are comma-separated; a job is shown when it matches\n"
		"every filter given (--state: the job's state).\n"
		"  -j, --jobs JOBID[,...]    1234 (every step), 1234.0 (one step), 1234_7\n"
		"                            (one array task)\n"
		"  -u, --user USER[,...]     owner, by name or uid\n"
		"  -A, --account ACCT[,...]  account\n"
		"      --partition P[,...]   partition (AWS Batch: job queue)\n"
		"  -N, --nodelist HOST[,...] the steps on these nodes\n"
		"  -S, --starttime TIME      jobs running at or after TIME\n"
		"  -E, --endtime TIME        jobs started at or before TIME\n"
		"  -s, --state STATE[,...]   COMPLETED (CD), FAILED (F), OUT_OF_MEMORY (OOM),\n"
		"                            CANCELLED (CA), TIMEOUT (TO), RUNNING (R)\n"
		"      --name NAME[,...]     task (job) name\n"
		"  -r, --run RUN[,...]       run id or run name\n"
		"  -X, --allocations         one line per job (the default)\n"
		"      --steps               one line per step and node\n"
		"      --limit N             at most the N newest finished jobs (default %d;\n"
		"                            0: all), every step of them from a datalake,\n"
		"                            from a summary file of the newest N x %d steps\n"
		"  -o, --format FIELD[,...]  these columns, by sacct's names: %s\n"
		"                            (default with -P or -n: %s)\n"
		"  -P, --parsable2           fields separated by |, no padding (as sacct)\n"
		"  -n, --noheader            no header line\n"
		"      --json                the finished jobs (job views; with --steps the\n"
		"                            summaries) as a JSON array\n"
		"      --csv                 the finished jobs as CSV, one line each\n"
		"      --wide                the table as wide as it needs (default: the\n"
		"                            terminal's width, 80 when not a terminal)\n"
		"  -h, --help                this help\n"
		"TIME (every tracer command): now, now-7days, now-2hours, now-30min, today,\n"
		"      yesterday, 2026-11-22, 2026-11-22T06:30[:00]; local time unless it\n"
		"      ends in Z or an offset (+01:00)\n",
		DEFAULT_LIMIT, TRACER_DEFAULT_JOBS_STEPS_READ, all, JOBS_FORMAT_DEFAULT);
}

static int limit_arg(const char *v, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(v, &end, 10);
	if (errno || end == v || *end || *out < 0) {
		fprintf(stderr, "tracer jobs: --limit: \"%s\" is not a count (0 or more)\n", v);
		return -1;
	}
	return 0;
}

/* Parse the options into f and o: 0, 1 after --help, 2 on a usage error. */
static int parse_jobs_args(int argc, char **argv, struct job_filter *f, struct jobs_opts *o)
{
	static const struct option own[] = {
		{"state", required_argument, NULL, 's'},
		{"name", required_argument, NULL, O_NAME},
		{"run", required_argument, NULL, 'r'},
		{"allocations", no_argument, NULL, 'X'},
		{"steps", no_argument, NULL, O_STEPS},
		{"limit", required_argument, NULL, O_LIMIT},
		{"format", required_argument, NULL, 'o'},
		{"parsable2", no_argument, NULL, 'P'},
		{"noheader", no_argument, NULL, 'n'},
		{"json", no_argument, NULL, O_JSON},
		{"csv", no_argument, NULL, O_CSV},
		{"wide", no_argument, NULL, O_WIDE},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct option opts[sizeof(own) / sizeof(own[0]) + FILTER_OPTS_COUNT];
	int c, taken;

	if (filter_opts_table(opts, sizeof(opts) / sizeof(opts[0]), own) != 0)
		return 2;
	while ((c = cli_getopt(argc, argv, ":" FILTER_OPTS_SHORT "s:r:Xo:Pnh", opts, "jobs")) != -1) {
		taken = filter_opts_take(c, optarg, "jobs", f);
		if (taken != 1) {
			if (taken == 2)
				return 2;
			continue;
		}
		switch (c) {
		case 's': f->states = optarg; break;
		case O_NAME: f->names = optarg; break;
		case 'r': f->runs = optarg; break;
		case 'X': o->steps = false; break;
		case O_STEPS: o->steps = true; break;
		case O_LIMIT:
			if (limit_arg(optarg, &o->limit) != 0)
				return 2;
			break;
		case 'o':
			o->nfields = jobs_format_parse(optarg, o->fields, JOBS_FORMAT_MAX);
			if (o->nfields < 0)
				return 2;
			o->fmt = F_FIELDS;
			break;
		case 'P': o->parsable = true; break;
		case 'n': o->noheader = true; break;
		case O_JSON: o->fmt = F_JSON; break;
		case O_CSV: o->fmt = F_CSV; break;
		case O_WIDE: o->wide = true; break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return 2;
		}
	}
	if (optind < argc)
		return cli_extra_arg("jobs", argv[optind]);
	if ((o->parsable || o->noheader) && o->fmt == F_TABLE)
		o->fmt = F_FIELDS;
	if (o->fmt == F_FIELDS && o->nfields == 0)
		o->nfields = jobs_format_parse(JOBS_FORMAT_DEFAULT, o->fields, JOBS_FORMAT_MAX);
	return 0;
}

/* Jobs still running, from tracerd (silently none when it is not up). */
static void print_running(struct cli *c, const struct job_filter *f, int width)
{
	static const struct table_col cols[] = {
		{"JOB", 'l', 0, 0}, {"NAME", 'l', 8, 0}, {"SCHED", 'l', 0, 1},
		{"WALL", 'r', 0, 0}, {"LIVE", 'r', 0, 0}, {"PROCS", 'r', 0, 0},
		{"RSS NOW", 'r', 0, 0}, {"PEAK", 'r', 0, 0}, {"STATE", 'l', 0, 0},
	};
	struct table *tb = NULL;
	cJSON *req = cJSON_CreateObject(), *reply = NULL;
	const cJSON *j;
	char err[256], b1[32], b2[32], b3[32];
	int64_t now = (int64_t)clock_real_ns();
	bool header = false;

	cJSON_AddStringToObject(req, "op", "status");
	if (client_request(c->cfg.socket_path, c->cfg.client_timeout_ms, req, &reply, err,
			   sizeof(err)) != 0)
		goto cleanup;
	text_safe_json(reply); /* names reach a terminal */
	const cJSON *open = cJSON_GetObjectItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "status"), "jobs"), "open_jobs");
	cJSON_ArrayForEach(j, open) {
		const cJSON *id = cJSON_GetObjectItem(j, "identity");
		double wall = cli_jnum(j, "wall_s");
		int64_t start = now - (int64_t)((isnan(wall) ? 0 : wall) * 1e9);
		char live[32], procs[32];

		if (!job_filter_match(f, id, "RUNNING", start, now))
			continue;
		if (!header)
			tb = table_new(cols, 9);
		header = true;
		snprintf(live, sizeof(live), "%.0f", cli_jnum(j, "live"));
		snprintf(procs, sizeof(procs), "%.0f", cli_jnum(j, "processes"));
		const char *row[] = {
			fmt_or_dash(cli_jstr(j, "job")), fmt_or_dash(cli_jstr(id, "task_name")),
			fmt_or_dash(cli_jstr(id, "scheduler")), fmt_secs(wall, b1, sizeof(b1)), live, procs,
			fmt_bytes((uint64_t)cli_jnum(j, "rss_bytes"), b2, sizeof(b2)),
			fmt_bytes((uint64_t)cli_jnum(j, "mem_peak_bytes"), b3, sizeof(b3)),
			/* STALLED: no CPU and no I/O progress for stall_threshold_s */
			cJSON_IsTrue(cJSON_GetObjectItem(j, "stalled")) ? "STALLED" : "RUNNING",
		};
		table_add(tb, row);
	}
	if (header) {
		printf("RUNNING\n");
		table_print(tb, width, "");
	}
	if (header)
		printf("\nFINISHED\n");
cleanup:
	cJSON_Delete(req);
	cJSON_Delete(reply);
}

static void print_table(const cJSON *all, int width)
{
	static const struct table_col cols[] = {
		{"JOB", 'l', 0, 0}, {"NAME", 'l', 8, 0}, {"SCHED", 'l', 0, 5},
		{"JOBID.STEP", 'l', 0, 4}, {"START", 'l', 0, 6}, {"WALL", 'r', 0, 0},
		{"CPU", 'r', 0, 2}, {"EFF", 'r', 0, 0}, {"PEAK MEM", 'r', 0, 0},
		{"PROCS", 'r', 0, 3}, {"EXIT", 'r', 0, 1}, {"STATE", 'l', 0, 0},
	};
	struct table *tb = table_new(cols, 12);
	const cJSON *s;
	char b1[32], b2[32], b3[32], b4[32];

	cJSON_ArrayForEach(s, all) {
		const cJSON *id = cJSON_GetObjectItem(s, "identity");
		const cJSON *tot = cJSON_GetObjectItem(s, "totals");
		const cJSON *mem = cJSON_GetObjectItem(s, "memory");
		const cJSON *procs = cJSON_GetObjectItem(s, "processes");
		char jobstep[TRACER_JOIN_KEY_LEN], ex[32], np[32];
		const char *jid = cli_jstr(id, "job_id"), *step = cli_jstr(id, "step_id");
		snprintf(jobstep, sizeof(jobstep), "%s%s%s", fmt_or_dash(jid), step ? "." : "",
			 step ? step : "");
		snprintf(np, sizeof(np), "%.0f", cli_jnum(procs, "total"));
		const char *row[] = {
			fmt_or_dash(cli_jstr(s, "job")), fmt_or_dash(cli_jstr(id, "task_name")),
			fmt_or_dash(cli_jstr(id, "scheduler")), jobstep, fmt_or_dash(cli_jstr(s, "start")),
			fmt_secs(cli_jnum(s, "wall_s"), b1, sizeof(b1)),
			fmt_secs(cli_jnum(tot, "cpu_s"), b2, sizeof(b2)),
			fmt_pct(cli_jnum(s, "cpu_efficiency"), b3, sizeof(b3)),
			fmt_bytes((uint64_t)cli_jnum(mem, "peak_bytes"), b4, sizeof(b4)), np,
			fmt_exit_text(cJSON_GetObjectItem(s, "exit"), "code", ex, sizeof(ex)),
			fmt_or_dash(cli_jstr(s, "state")),
		};
		table_add(tb, row);
	}
	table_print(tb, width, "");
}

/* a cell and its separator */
static void csv_str(const char *s, bool last)
{
	csv_field(s);
	putchar(last ? '\n' : ',');
}

static void csv_num_sep(double v)
{
	csv_num(v);
	putchar(',');
}

static void print_csv(const cJSON *all)
{
	const cJSON *s;

	printf("job,name,scheduler,job_id,step_id,user,state,start,end,wall_s,cpu_s,"
	       "cpu_efficiency,mem_peak_bytes,processes,exit_code,exit_signal,run_id,run_name,"
	       "pipeline\n");
	cJSON_ArrayForEach(s, all) {
		const cJSON *id = cJSON_GetObjectItem(s, "identity");
		const cJSON *ex = cJSON_GetObjectItem(s, "exit");

		csv_str(cli_jstr(s, "job"), false);
		csv_str(cli_jstr(id, "task_name"), false);
		csv_str(cli_jstr(id, "scheduler"), false);
		csv_str(cli_jstr(id, "job_id"), false);
		csv_str(cli_jstr(id, "step_id"), false);
		csv_str(cli_jstr(id, "user"), false);
		csv_str(cli_jstr(s, "state"), false);
		csv_str(cli_jstr(s, "start"), false);
		csv_str(cli_jstr(s, "end"), false);
		csv_num_sep(cli_jnum(s, "wall_s"));
		csv_num_sep(cli_jnum(cJSON_GetObjectItem(s, "totals"), "cpu_s"));
		csv_num_sep(cli_jnum(s, "cpu_efficiency"));
		csv_num_sep(cli_jnum(cJSON_GetObjectItem(s, "memory"), "peak_bytes"));
		csv_num_sep(cli_jnum(cJSON_GetObjectItem(s, "processes"), "total"));
		csv_num_sep(cli_jnum(ex, "code"));
		csv_num_sep(cli_jnum(ex, "signal"));
		csv_str(cli_jstr(id, "run_id"), false);
		csv_str(cli_jstr(id, "run_name"), false);
		csv_str(cli_jstr(id, "pipeline"), true);
	}
}

/* The fields of o, sacct's way: padded columns under a header and a rule
 * of dashes, or with -P separated by '|' (no padding, none at the end). */
static void print_fields(const cJSON *all, const struct jobs_opts *o)
{
	int n = o->nfields, width[JOBS_FORMAT_MAX];
	char buf[1024];
	const cJSON *s;

	for (int i = 0; i < n; i++)
		width[i] = o->parsable ? 0 : (int)term_cells(jobs_format_name(o->fields[i]));
	cJSON_ArrayForEach(s, all)
		for (int i = 0; !o->parsable && i < n; i++) {
			int w = (int)term_cells(jobs_format_value(o->fields[i], s, buf, sizeof(buf)));

			width[i] = w > width[i] ? w : width[i];
		}
	if (!o->noheader) {
		for (int i = 0; i < n; i++)
			printf("%s%-*s", i ? (o->parsable ? "|" : " ") : "",
			       i + 1 < n ? width[i] : 0, jobs_format_name(o->fields[i]));
		putchar('\n');
		for (int i = 0; !o->parsable && i < n; i++)
			printf("%s%.*s", i ? " " : "", width[i],
			       "----------------------------------------------------------------");
		if (!o->parsable)
			putchar('\n');
	}
	cJSON_ArrayForEach(s, all) {
		for (int i = 0; i < n; i++) {
			const char *v = jobs_format_value(o->fields[i], s, buf, sizeof(buf));

			if (o->parsable)
				printf("%s%s", i ? "|" : "", v);
			else /* padded by display cells */
				printf("%s%s%*s", i ? " " : "", v,
				       i + 1 < n ? width[i] - (int)term_cells(v) : 0, "");
		}
		putchar('\n');
	}
}

static bool state_matches(const cJSON *view, void *ctx)
{
	return job_filter_summary(ctx, view);
}

/* The finished jobs: one job view per job, the state filter on the job's
 * state, the newest o->limit; with --steps the summaries themselves.
 * From a datalake every summary of those jobs; from a file archive those
 * of the newest limit x TRACER_DEFAULT_JOBS_STEPS_READ summaries, so
 * that a listing stays quick on a large archive (--limit 0: every one). */
static cJSON *finished(struct cli *c, const struct job_filter *f, const struct jobs_opts *o)
{
	struct job_filter per_step = *f, job_state;
	cJSON *sums, *views;

	if (o->steps)
		return cli_summaries_tail(c, (size_t)o->limit, f);
	per_step.states = NULL;
	sums = o->limit > 0 ? cli_jobs_tail(c, (size_t)o->limit, f)
			    : cli_summaries_tail(c, 0, &per_step);
	job_filter_init(&job_state);
	job_state.states = f->states;
	views = sums ? jobview_group(sums, &c->cfg, (size_t)o->limit, state_matches, &job_state)
		     : NULL;
	cJSON_Delete(sums);
	return views;
}

int cmd_jobs(struct cli *c, int argc, char **argv)
{
	struct job_filter f;
	struct jobs_opts o = {.limit = DEFAULT_LIMIT, .fmt = c->json ? F_JSON : F_TABLE};
	int rc, width;

	job_filter_init(&f);
	rc = parse_jobs_args(argc, argv, &f, &o);
	if (rc != 0)
		return rc == 1 ? 0 : rc;
	width = term_width(o.wide);
	if (o.fmt == F_TABLE) {
		term_begin(width);
		print_running(c, &f, width);
	}
	if (!cli_archive_remote() && !datalake_configured(&c->cfg) &&
	    access(c->cfg.file_path, F_OK) != 0) {
		if (o.fmt == F_JSON)
			printf("[]\n");
		else if (o.fmt == F_CSV)
			print_csv(NULL);
		else if (o.fmt == F_FIELDS)
			print_fields(NULL, &o);
		else
			printf("no finished job yet (%s does not exist)\n", c->cfg.file_path);
		term_end();
		return 0;
	}
	cJSON *all = finished(c, &f, &o);
	if (!all) {
		term_end();
		return 1;
	}
	if (o.fmt == F_JSON)
		cli_print_json(all);
	else if (o.fmt == F_CSV)
		print_csv(all);
	else if (text_safe_json(all) != 0) /* names reach a terminal */
		;
	else if (o.fmt == F_FIELDS)
		print_fields(all, &o);
	else
		print_table(all, width);
	term_end();
	cJSON_Delete(all);
	return 0;
}
