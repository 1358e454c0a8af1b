/*
 * tracer.c - the `tracer` command-line client: status of the daemon,
 * recent jobs, one job's report, and `tracer run` for workstations.
 */
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
		"  jobs [-n N]            recent jobs (from the file sink)\n"
		"  show JOB|last          run -> task -> tools, then the process tree\n"
		"  report [--since 7d] [--by run|task|tool|user|pipeline] [--csv]\n"
		"                         totals, efficiencies, flags, cost across jobs\n"
		"  run [--name N] [--run ID] [--pipeline P] [--job-file F] -- CMD [ARGS]\n"
		"                         run CMD as a recorded local job, exit with its status\n"
		"options:\n"
		"  -c, --config FILE      configuration (default " TRACER_DEFAULT_CONFIG ")\n"
		"  -o, --set KEY=VALUE    override a configuration key (e.g. file=, socket=)\n"
		"  --json                 machine-readable output\n");
}

static void config_warn(const char *msg)
{
	log_warn("config: %s", msg);
}

int main(int argc, char **argv)
{
	struct cli c = {0};
	const char *config_path = TRACER_DEFAULT_CONFIG;
	bool config_given = false;
	int i;

	log_set_prefix("tracer");
	config_defaults(&c.cfg);
	/* global options first, so that `tracer run -- cmd --json` is left alone */
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--json")) {
			c.json = true;
		} else if ((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) && i + 1 < argc) {
			config_path = argv[++i];
			config_given = true;
		} else if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--set")) && i + 1 < argc) {
			i++; /* applied after the file */
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("tracer %s\n", TRACER_VERSION);
			return 0;
		} else {
			fprintf(stderr, "tracer: unknown option %s\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (config_load(&c.cfg, config_path, !config_given, config_warn) != 0 && config_given)
		return 2;
	for (int k = 1; k < i; k++) {
		char err[256];

		if (strcmp(argv[k], "-o") && strcmp(argv[k], "--set"))
			continue;
		k++;
		if (config_set_pair(&c.cfg, argv[k], err, sizeof(err)) != 0) {
			fprintf(stderr, "tracer: %s %s\n", argv[k - 1], err);
			return 2;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[i];
	argc -= i;
	argv += i;
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
	fprintf(stderr, "tracer: unknown command %s\n", cmd);
	usage(stderr);
	return 2;
}
