/*
 * cmd_sweep.c - `tracer sweep`: the cluster's waste per group, ranked by
 * cost (lib/sweep.h), as a table, JSON, CSV or an HTML page
 * (sweep_out.c).  Root sweeps the datalake (or the archive file) itself;
 * any other user asks tracerd, which answers with every user's jobs for
 * admin_group and with the asker's own otherwise (daemon/archive.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client.h"
#include "clock.h"
#include "defaults.h"
#include "proto.h"
#include "sweep.h"
#include "sweep_out.h"

/* tracerd answers within its archive deadline (10 s) and a query's */
#define SWEEP_REQUEST_TIMEOUT_MS 30000

static void sweep_usage(FILE *f)
{
	fprintf(f,
		"usage: tracer sweep [--since DURATION]\n"
		"                    [--by user|account|partition|pipeline|host|tool]\n"
		"                    [--limit N] [--json | --csv | --html FILE | --wide]\n"
		"The cluster's waste in the window, per group, ranked by cost: idle\n"
		"allocated core-hours, unused memory GiB-hours, idle GPU-hours, jobs that\n"
		"ran into their time limit (TIMEOUT) or out of memory (OOM), the jobs and\n"
		"the worst one, with the prices of tracer.conf (price_cpu_hour,\n"
		"price_gb_hour).  From the datalake when tracer.conf has datalake =\n"
		"clickhouse, else from the archive file.  Root and admin_group see every\n"
		"user's jobs; another user sees their own.  By tool, each job's waste is\n"
		"shared among the tools that ran in it by their CPU time in the job.\n"
		"      --since DURATION  the window: 90m, 24h, 7d, 2w (default %s)\n"
		"      --by GROUP        user, account, partition, pipeline, host or tool\n"
		"                        (default user)\n"
		"      --limit N         the N groups that wasted most (default %d, at most %d)\n"
		"      --json            the answer as JSON (docs/sweep.md)\n"
		"      --csv             the rows as CSV\n"
		"      --html FILE       the rows on a self-contained HTML page (FILE - : stdout)\n"
		"      --wide            the table as wide as it needs\n"
		"  -h, --help            this help\n",
		TRACER_SWEEP_DEFAULT_SINCE, TRACER_SWEEP_DEFAULT_LIMIT, TRACER_SWEEP_LIMIT_MAX);
}

struct sweep_args {
	struct proto_sweep sw;
	const char *since_text;
	enum sweep_format format;
	const char *html;
	bool wide;
};

/* 0, 1 after --help, 2 on a usage error (one line said why) */
static int parse_args(struct sweep_args *a, int argc, char **argv)
{
	enum { O_JSON = 256, O_CSV, O_SINCE, O_BY, O_LIMIT, O_HTML };
	static const struct option opts[] = {
		{"json", no_argument, NULL, O_JSON},   {"csv", no_argument, NULL, O_CSV},
		{"since", required_argument, NULL, O_SINCE}, {"by", required_argument, NULL, O_BY},
		{"limit", required_argument, NULL, O_LIMIT}, {"html", required_argument, NULL, O_HTML},
		{"wide", no_argument, NULL, 'w'},      {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum sweep_by by;
	char *end;
	long n;
	int c;

	a->since_text = TRACER_SWEEP_DEFAULT_SINCE;
	snprintf(a->sw.by, sizeof(a->sw.by), "user");
	a->sw.limit = TRACER_SWEEP_DEFAULT_LIMIT;
	while ((c = cli_getopt(argc, argv, ":hw", opts, "sweep")) != -1) {
		switch (c) {
		case O_JSON:
			a->format = SWEEP_OUT_JSON;
			break;
		case O_CSV:
			a->format = SWEEP_OUT_CSV;
			break;
		case O_HTML:
			a->format = SWEEP_OUT_HTML;
			a->html = optarg;
			break;
		case 'w':
			a->wide = true;
			break;
		case O_SINCE:
			a->since_text = optarg;
			break;
		case O_BY:
			if (sweep_by_parse(optarg, &by) != 0) {
				fprintf(stderr, "tracer sweep: --by: \"%s\" is not user, account, "
						"partition, pipeline, host or tool\n", optarg);
				return 2;
			}
			snprintf(a->sw.by, sizeof(a->sw.by), "%s", sweep_by_name(by));
			break;
		case O_LIMIT:
			n = strtol(optarg, &end, 10);
			if (end == optarg || *end || n < 1 || n > TRACER_SWEEP_LIMIT_MAX) {
				fprintf(stderr, "tracer sweep: --limit: \"%s\" is not a number from 1 to %d\n",
					optarg, TRACER_SWEEP_LIMIT_MAX);
				return 2;
			}
			a->sw.limit = (int)n;
			break;
		case 'h':
			sweep_usage(stdout);
			return 1;
		default:
			return 2;
		}
	}
	if (optind < argc)
		return cli_extra_arg("sweep", argv[optind]);
	a->sw.since_s = clock_parse_duration(a->since_text);
	if (a->sw.since_s <= 0 || a->sw.since_s > 3.2e8) {
		fprintf(stderr, "tracer sweep: --since: \"%s\" is not a window such as 90m, 24h, "
				"7d, 2w (at most 10 years)\n", a->since_text);
		return 2;
	}
	return 0;
}

/* Ask tracerd (a user who may not read the archive or the datalake's
 * credentials): the answer, or NULL after saying why. */
static cJSON *ask_tracerd(struct cli *c, const struct proto_sweep *sw)
{
	cJSON *req = proto_sweep_request(sw), *reply = NULL, *ans = NULL;
	char err[512];

	if (!req) {
		fprintf(stderr, "tracer sweep: out of memory\n");
		return NULL;
	}
	if (client_request(c->cfg.socket_path, SWEEP_REQUEST_TIMEOUT_MS, req, &reply, err,
			   sizeof(err)) != 0) {
		fprintf(stderr, "tracer sweep: tracerd at %s: %s\n", c->cfg.socket_path, err);
	} else if (!cJSON_IsTrue(cJSON_GetObjectItem(reply, "ok"))) {
		fprintf(stderr, "tracer sweep: tracerd: %s\n",
			fmt_or_dash(cli_jstr(reply, "error")));
	} else {
		ans = cJSON_DetachItemFromObject(reply, "sweep");
		if (!cJSON_IsObject(ans)) {
			fprintf(stderr, "tracer sweep: tracerd's answer has no sweep\n");
			cJSON_Delete(ans);
			ans = NULL;
		}
	}
	cJSON_Delete(req);
	cJSON_Delete(reply);
	return ans;
}

/* Root: the datalake or the archive file, read here. */
static cJSON *sweep_here(struct cli *c, const struct proto_sweep *sw)
{
	struct sweep_query q = {.since_s = sw->since_s, .limit = sw->limit, .uid = -1};
	char err[512];
	cJSON *ans;

	sweep_by_parse(sw->by, &q.by);
	q.from_s = (double)clock_real_ns() / 1e9 - sw->since_s;
	sweep_query_prices(&q, &c->cfg);
	ans = sweep_run(&c->cfg, &q, 0, NULL, err, sizeof(err));
	if (!ans)
		fprintf(stderr, "tracer sweep: %s\n", err);
	return ans;
}

int cmd_sweep(struct cli *c, int argc, char **argv)
{
	struct sweep_args a = {0};
	cJSON *ans;
	int rc;

	rc = parse_args(&a, argc, argv);
	if (rc)
		return rc == 1 ? 0 : 2;
	if (c->json && a.format == SWEEP_OUT_TABLE)
		a.format = SWEEP_OUT_JSON;
	ans = cli_archive_remote() ? ask_tracerd(c, &a.sw) : sweep_here(c, &a.sw);
	if (!ans)
		return 1;
	rc = sweep_print(ans, a.format, a.since_text, a.html, a.wide);
	cJSON_Delete(ans);
	return rc;
}
