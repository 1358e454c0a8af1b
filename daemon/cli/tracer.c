/*
 * tracer.c - the `tracer` command-line client: status of the daemon,
 * recent jobs, one job's report, and `tracer run` for workstations.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "summary.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tracer [-c CONFIG] [-o KEY=VALUE]... [--json] COMMAND [ARGS]\n"
		"commands:\n"
		"  status                 is tracerd up, programs attached, events, drops\n"
		"  jobs [FILTERS]         running and recent jobs (-u, -S, -E, --state, --name,\n"
		"                         -r, -n, --json, --csv)\n"
		"  show JOB|last          run -> task -> tools, then the process tree\n"
		"  report [--since 7d] [--by run|task|tool|user|pipeline] [--csv]\n"
		"                         totals, efficiencies, flags, cost across jobs\n"
		"  run [--name N] [--run ID] [--pipeline P] [--job-file F] -- CMD [ARGS]\n"
		"                         run CMD as a recorded local job, exit with its status\n"
		"options:\n"
		"  -c, --config FILE      configuration (default " TRACER_DEFAULT_CONFIG ")\n"
		"  -o, --set KEY=VALUE    override a configuration key (e.g. file=, socket=)\n"
		"      --json             machine-readable output\n"
		"  -h, --help             this help; tracer COMMAND --help for a command's\n"
		"      --version          print the version\n"
		"See tracer(1) and tracer.conf(5).\n");
}

static void config_warn(const char *msg)
{
	log_warn("config: %s", msg);
}

#define MAX_SETS 64

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"set", required_argument, NULL, 'o'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct cli c = {0};
	const char *config_path = TRACER_DEFAULT_CONFIG;
	const char *sets[MAX_SETS];
	bool config_given = false;
	int nsets = 0, opt;

	log_set_prefix("tracer");
	config_defaults(&c.cfg);
	/* global options first ('+'), so that `tracer run -- cmd --json` is left alone */
	while ((opt = cli_getopt(argc, argv, "+:c:o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			c.json = true;
			break;
		case 'c':
			config_path = optarg;
			config_given = true;
			break;
		case 'o':
			if (nsets == MAX_SETS) {
				fprintf(stderr, "tracer: more than %d -o options\n", MAX_SETS);
				return 2;
			}
			sets[nsets++] = optarg; /* applied after the file */
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("tracer %s\n", TRACER_VERSION);
			return 0;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "tracer: no command (status, jobs, show, report, run; see tracer --help)\n");
		return 2;
	}
	if (config_load(&c.cfg, config_path, !config_given, config_warn) != 0 && config_given)
		return 2;
	for (int k = 0; k < nsets; k++) {
		char err[256];

		if (config_set_pair(&c.cfg, sets[k], err, sizeof(err)) != 0) {
			fprintf(stderr, "tracer: -o %s\n", err);
			return 2;
		}
	}
	const char *cmd = argv[optind];
	argc -= optind;
	argv += optind;
	optind = 0; /* each command parses its own options from argv[1] */
	if (!strcmp(cmd, "status"))
		return cmd_status(&c, argc, argv);
	if (!strcmp(cmd, "jobs"))
		return cmd_jobs(&c, argc, argv);
	if (!strcmp(cmd, "show"))
		return cmd_show(&c, argc, argv);
	if (!strcmp(cmd, "run"))
		return cmd_run(&c, argc, argv);
	if (!strcmp(cmd, "report"))
		return cmd_report(&c, argc, argv);
	fprintf(stderr, "tracer: unknown command %s (status, jobs, show, report, run; see tracer --help)\n",
		cmd);
	return 2;
}
