/*
 * cmd_tune.c - `tracer tune`: the request for the next run of each step,
 * learned from the past runs of a pipeline or of runs (docs/tune.md).
 * Where the runs come from follows `tracer jobs`: with a datalake, root
 * asks ClickHouse for only the columns tuning needs, one row per job
 * (lib/tune_read.c), and a user asks tracerd for the same rows of their
 * own jobs (request tune_runs); without one, the archive's summaries
 * (through tracerd for a user: their own jobs only) are rolled up into
 * jobs here (lib/jobview.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "client.h"
#include "clock.h"
#include "datalake_read.h"
#include "defaults.h"
#include "growbuf.h"
#include "jobview.h"
#include "mkdirs.h"
#include "proto.h"
#include "textsafe.h"
#include "tune.h"
#include "tune_read.h"
#include "tune_write.h"

enum { O_PIPELINE = 256, O_RUN, O_SINCE, O_MIN_RUNS, O_FORMAT, O_HTML, O_SHARED };

struct tune_opts {
	const char *pipeline;
	struct growbuf runs;  /* comma list of --run values */
	int64_t since_ns;
	int min_runs;
	bool shared;
	const char *format, *out, *html;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tracer tune [--pipeline P | --run R ...] [--since 30d] [--min-runs N]\n"
		"                   [--shared] [--format table|nextflow|snakemake|slurm|aws-batch|json]\n"
		"                   [-o FILE] [--html FILE]\n"
		"The request for the next run of each step (task name) of a pipeline,\n"
		"learned from its runs: CPUs from the concurrency p95, memory from the\n"
		"peak p95 (or a fit of peak on input size) x %.1f, more after an OOM kill,\n"
		"never below the peak of a run that succeeded, time from the wall p95 x %.1f,\n"
		"more after a timeout; with the saving over the runs seen.  A step is a task\n"
		"name of one owner: another user's runs never change yours (docs/tune.md).\n"
		"  --pipeline P        the jobs of this pipeline (identity.pipeline)\n"
		"  --run R             the jobs of this run id or run name (repeatable)\n"
		"  --since DURATION    runs that ended in the last DURATION (90m, 24h, 30d, 2w)\n"
		"                      or since TIME (now-7days, 2026-11-01); default 30d\n"
		"  --min-runs N        leave out steps with fewer than N runs (default %d)\n"
		"  --shared            one step per pipeline and task name, whoever ran it\n"
		"                      (a pipeline a group shares; root sees every user's)\n"
		"  --format F          table (default: every step in all four syntaxes),\n"
		"                      nextflow (a Nextflow configuration), snakemake\n"
		"                      (a profile's config.yaml), slurm (#SBATCH lines),\n"
		"                      aws-batch (SubmitJob containerOverrides), json\n"
		"  -o, --output FILE   write there (its directory made if missing), not stdout\n"
		"      --html FILE     one page: each step's runs, requested against used\n"
		"  -h, --help          this help\n",
		TRACER_TUNE_MEM_MARGIN, TRACER_TUNE_TIME_MARGIN, TRACER_TUNE_MIN_RUNS);
}

/* "30d", "24h", "90m", "2w", "3600s" back from now, else a TIME */
static int since_arg(const char *v, int64_t *out)
{
	char *end;
	double n;
	int64_t now = (int64_t)time(NULL);

	errno = 0;
	n = strtod(v, &end);
	if (!errno && end != v && n >= 0 && end[0] && !end[1] && strchr("smhdw", end[0])) {
		static const double unit[] = {['s' - 'a'] = 1, ['m' - 'a'] = 60,
					      ['h' - 'a'] = 3600, ['d' - 'a'] = 86400,
					      ['w' - 'a'] = 604800};

		*out = (now - (int64_t)(n * unit[end[0] - 'a'])) * 1000000000LL;
		return 0;
	}
	if (clock_parse_time(v, now, out) == 0)
		return 0;
	fprintf(stderr, "tracer tune: --since: \"%s\" is neither a duration (30d, 24h, 90m) "
			"nor a time (now-7days, 2026-11-01)\n", v);
	return -1;
}

static int parse_args(int argc, char **argv, struct tune_opts *o)
{
	static const struct option opts[] = {
		{"pipeline", required_argument, NULL, O_PIPELINE},
		{"run", required_argument, NULL, O_RUN},
		{"since", required_argument, NULL, O_SINCE},
		{"min-runs", required_argument, NULL, O_MIN_RUNS},
		{"shared", no_argument, NULL, O_SHARED},
		{"format", required_argument, NULL, O_FORMAT},
		{"output", required_argument, NULL, 'o'},
		{"html", required_argument, NULL, O_HTML},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	while ((c = cli_getopt(argc, argv, ":o:h", opts, "tune")) != -1) {
		switch (c) {
		case O_PIPELINE: o->pipeline = optarg; break;
		case O_RUN:
			if (strchr(optarg, ',') || !optarg[0]) {
				fprintf(stderr, "tracer tune: --run: one run id or name each "
						"(\"%s\")\n", optarg);
				return 2;
			}
			growbuf_printf(&o->runs, "%s%s", o->runs.len ? "," : "", optarg);
			break;
		case O_SINCE:
			if (since_arg(optarg, &o->since_ns) != 0)
				return 2;
			break;
		case O_MIN_RUNS:
			errno = 0;
			o->min_runs = (int)strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->min_runs < 1) {
				fprintf(stderr, "tracer tune: --min-runs: \"%s\" is not a count "
						"(1 or more)\n", optarg);
				return 2;
			}
			break;
		case O_SHARED: o->shared = true; break;
		case O_FORMAT:
			if (!tune_format_known(optarg)) {
				fprintf(stderr, "tracer tune: --format: \"%s\" is none of table, "
						"nextflow, snakemake, slurm, aws-batch, json\n", optarg);
				return 2;
			}
			o->format = optarg;
			break;
		case 'o': o->out = optarg; break;
		case O_HTML: o->html = optarg; break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return 2;
		}
	}
	if (optind < argc)
		return cli_extra_arg("tune", argv[optind]);
	if (!o->pipeline && !o->runs.len) {
		fprintf(stderr, "tracer tune: say which jobs: --pipeline P or --run R\n");
		return 2;
	}
	if (o->runs.oom) {
		fprintf(stderr, "tracer tune: out of memory\n");
		return 2;
	}
	return 0;
}

/* ---- the runs, from the archive through tracerd (or the file) ---- */

struct runs {
	struct tune_run *v;
	size_t n, cap;
	bool capped;
};

static int runs_add(struct runs *rs, const struct tune_run *r)
{
	if (rs->n == TRACER_TUNE_MAX_RUNS) {
		rs->capped = true;
		return 0;
	}
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 64;
		struct tune_run *v = realloc(rs->v, cap * sizeof(*v));

		if (!v)
			return -1;
		rs->v = v;
		rs->cap = cap;
	}
	rs->v[rs->n++] = *r;
	return 0;
}

/* tune_read_fn: a run of the datalake's answer */
static int add_run(void *ctx, const struct tune_run *r)
{
	return runs_add(ctx, r);
}

static bool keep_pipeline(const cJSON *view, void *ctx)
{
	const char *want = ctx;
	const cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(view, "identity"), "pipeline");

	return !want || (cJSON_IsString(p) && !strcmp(p->valuestring, want));
}

static int read_archive(struct cli *c, const struct job_filter *f, const char *pipeline,
			struct runs *rs)
{
	cJSON *sums = cli_summaries_tail(c, TRACER_ARCHIVE_LIMIT_MAX, f), *views, *v;
	struct tune_run r;
	int rc = 0;

	if (!sums)
		return -1;
	if ((size_t)cJSON_GetArraySize(sums) >= TRACER_ARCHIVE_LIMIT_MAX)
		fprintf(stderr, "tracer tune: only the newest %d summaries of the archive were "
			"read; a datalake holds more (docs/tune.md)\n", TRACER_ARCHIVE_LIMIT_MAX);
	views = jobview_group(sums, &c->cfg, 0, keep_pipeline, (void *)pipeline);
	cJSON_Delete(sums);
	if (!views) {
		fprintf(stderr, "tracer tune: out of memory\n");
		return -1;
	}
	cJSON_ArrayForEach(v, views)
		if (tune_run_from_summary(v, &r) && runs_add(rs, &r) != 0) {
			fprintf(stderr, "tracer tune: out of memory\n");
			rc = -1;
			break;
		}
	cJSON_Delete(views);
	return rc;
}

/* tracer_line_fn: a row of tracerd's tune_runs answer */
static int tracerd_row(cJSON *row, void *ctx)
{
	struct tune_run r;
	int rc = 0;

	if (tune_read_obj(row, &r))
		rc = runs_add(ctx, &r);
	cJSON_Delete(row);
	return rc;
}

/* A user with a datalake: tracerd asks it (with the user's uid in the
 * query) and passes on one row per job, never the summaries. */
static int read_tracerd_lake(struct cli *c, const struct tune_opts *o, struct runs *rs)
{
	struct proto_query q = {.limit = 0, .since_ns = o->since_ns, .until_ns = INT64_MAX};
	cJSON *req, *last = NULL;
	char err[300];
	int rc;

	snprintf(q.runs, sizeof(q.runs), "%s", o->runs.len ? o->runs.p : "");
	snprintf(q.pipeline, sizeof(q.pipeline), "%s", o->pipeline ? o->pipeline : "");
	if ((o->runs.len && strlen(o->runs.p) >= sizeof(q.runs)) ||
	    (o->pipeline && strlen(o->pipeline) >= sizeof(q.pipeline))) {
		fprintf(stderr, "tracer tune: --pipeline or --run longer than %zu bytes\n",
			sizeof(q.runs) - 1);
		return -1;
	}
	req = proto_tune_request(&q);
	if (!req) {
		fprintf(stderr, "tracer tune: out of memory\n");
		return -1;
	}
	rc = client_request_stream(c->cfg.socket_path, TRACER_ARCHIVE_TIMEOUT_MS, req, tracerd_row,
				   rs, &last, err, sizeof(err));
	cJSON_Delete(req);
	if (rc == -2)
		fprintf(stderr, "tracer tune: tracerd is not running (%s): the datalake is read "
			"through it\n", c->cfg.socket_path);
	else if (rc != 0)
		fprintf(stderr, "tracer tune: %s\n", err);
	else if (cJSON_IsTrue(cJSON_GetObjectItem(last, "truncated")))
		fprintf(stderr, "tracer tune: tracerd's answer is incomplete; narrow --since\n");
	cJSON_Delete(last);
	return rc == 0 ? 0 : -1;
}

static int read_runs(struct cli *c, const struct tune_opts *o, struct runs *rs,
		     const char **source)
{
	struct job_filter f;
	char err[600];

	job_filter_init(&f);
	f.since_ns = o->since_ns;
	f.runs = o->runs.len ? o->runs.p : NULL;
	if (!cli_archive_remote() && datalake_configured(&c->cfg)) {
		*source = "datalake";
		if (tune_read_datalake(&c->cfg, &f, o->pipeline, TRACER_TUNE_MAX_RUNS, add_run, rs,
				       err, sizeof(err)) != 0) {
			fprintf(stderr, "tracer tune: %s\n", err);
			return -1;
		}
		return 0;
	}
	if (datalake_configured(&c->cfg)) {
		*source = "datalake (through tracerd)";
		return read_tracerd_lake(c, o, rs);
	}
	*source = "archive";
	return read_archive(c, &f, o->pipeline, rs);
}

/* ---- output ---- */

static FILE *open_out(const char *path)
{
	char dir[4096], err[300], *slash;
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return stdout;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdirs(dir, 0755, err, sizeof(err)) != 0) {
			fprintf(stderr, "tracer tune: -o %s: %s\n", path, err);
			return NULL;
		}
	}
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "tracer tune: -o %s: %s\n", path, strerror(errno));
	return f;
}

static int write_out(const struct tune_opts *o, const struct tune_report *r)
{
	FILE *f = open_out(o->out);
	int rc = 0;

	if (!f)
		return 1;
	if (tune_write(f, o->format, r) != 0) {
		fprintf(stderr, "tracer tune: out of memory\n");
		rc = 1;
	}
	if (f == stdout) {
		if (fflush(stdout) != 0) {
			fprintf(stderr, "tracer tune: writing the output: %s\n", strerror(errno));
			rc = 1;
		}
	} else if (fclose(f) != 0) {
		fprintf(stderr, "tracer tune: -o %s: %s\n", o->out, strerror(errno));
		rc = 1;
	}
	return rc;
}

int cmd_tune(struct cli *c, int argc, char **argv)
{
	struct tune_opts o = {.since_ns = 0, .min_runs = TRACER_TUNE_MIN_RUNS, .format = "table"};
	struct runs rs = {0};
	struct tune_params p;
	struct tune_step *steps = NULL;
	struct tune_report r = {0};
	char raw[300], sel[400];
	size_t nsteps = 0;
	int rc;

	o.since_ns = ((int64_t)time(NULL) - TRACER_TUNE_SINCE_S) * 1000000000LL;
	rc = parse_args(argc, argv, &o);
	if (rc != 0) {
		growbuf_free(&o.runs);
		return rc == 1 ? 0 : rc;
	}
	tune_params_init(&p, &c->cfg);
	p.min_runs = o.min_runs;
	p.shared = o.shared;
	rc = 1;
	if (read_runs(c, &o, &rs, &r.source) != 0)
		goto out;
	if (rs.capped)
		fprintf(stderr, "tracer tune: only the first %d jobs were used; narrow --since\n",
			TRACER_TUNE_MAX_RUNS);
	if (tune_steps(rs.v, rs.n, &p, &steps, &nsteps) != 0) {
		fprintf(stderr, "tracer tune: out of memory\n");
		goto out;
	}
	if (nsteps == 0)
		fprintf(stderr, "tracer tune: no step with %d run(s) or more among the %zu "
			"job(s) selected\n", o.min_runs, rs.n);
	snprintf(raw, sizeof(raw), "%s%s%s%s%s", o.pipeline ? "pipeline " : "",
		 o.pipeline ? o.pipeline : "", o.pipeline && o.runs.len ? ", " : "",
		 o.runs.len ? "run " : "", o.runs.len ? o.runs.p : "");
	/* the headers of the files are comment lines: no newline may end one */
	tune_label(raw, sel, sizeof(sel));
	r.steps = steps;
	r.nsteps = nsteps;
	r.runs = rs.v;
	r.nruns = rs.n;
	r.selection = sel;
	r.params = &p;
	rc = write_out(&o, &r);
	if (rc == 0 && o.html)
		rc = tune_write_html(&r, o.html);
out:
	free(steps);
	free(rs.v);
	growbuf_free(&o.runs);
	return rc;
}
