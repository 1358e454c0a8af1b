/*
 * tracer.c - the `tracer` command-line client: status of the daemon,
 * recent jobs, one job's report, and `tracer run` for workstations.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"
#include "summary.h"

/* Every command with every option: each command's own --help says more. */
static void usage(FILE *f)
{
	fprintf(f,
		"usage: tracer [-c CONFIG] [-o KEY=VALUE]... [--json] COMMAND [ARGS]\n"
		"commands (tracer COMMAND --help says more about each):\n"
		"  status [--json]\n"
		"        is tracerd up: programs attached, events, drops, jobs\n"
		"  jobs [-j JOBID] [-u USER] [-A ACCOUNT] [--partition P] [-N HOST]\n"
		"       [-S TIME] [-E TIME] [-s STATE] [--name NAME] [-r RUN]\n"
		"       [-X | --steps] [--limit N] [--json | --csv | --wide]\n"
		"       [-o FIELD,...] [-P] [-n]\n"
		"        running and recent jobs, filtered and printed as sacct does\n"
		"  show [--tools] [--tree] [--all] [--wide] [--json] [--html FILE]\n"
		"       [--node HOST] [--brief] [--cluster NAME] [--user USER]\n"
		"       JOB|JOB.STEP|last\n"
		"        one job on one screen (every step on every node): totals, notes,\n"
		"        the request to make next time, the top tools; every tool, the\n"
		"        process tree, JSON, HTML or the verdict in a few lines\n"
		"  report [--since DURATION] [--by run|task|tool|user|pipeline]\n"
		"         [-j JOBID] [-u USER] [-A ACCOUNT] [--partition P] [-N HOST]\n"
		"         [-S TIME] [-E TIME]\n"
		"         [--json | --csv | --wide] [--clickhouse] [--run RUN]\n"
		"        totals, efficiencies, flags and cost across the archive's jobs\n"
		"  report --run RUN --html FILE\n"
		"        every task of a run on one self-contained HTML page\n"
		"  sweep [--since DURATION] [--by user|account|partition|pipeline|host|tool]\n"
		"        [--limit N] [--json | --csv | --html FILE | --wide]\n"
		"        the cluster's waste per group, ranked by cost\n"
		"  run [--name NAME] [--run ID] [--pipeline NAME] [--job-file FILE]\n"
		"      [--cpus N] [--mem SIZE] [--time DURATION] [--gpus LIST]\n"
		"      [--] COMMAND [ARGS...]\n"
		"        run COMMAND as a recorded local job, exit with its status\n"
		"  tune [--pipeline P | --run R ...] [--since 30d] [--min-runs N] [--shared]\n"
		"       [--format table|nextflow|snakemake|slurm|aws-batch|json] [-o FILE]\n"
		"       [--html FILE]\n"
		"        the request for each step's next run, learned from its past runs,\n"
		"        in each workflow engine's own file\n"
		"  datalake migrate|status [--dry-run] [--dir DIR] [--json]\n"
		"        the ClickHouse datalake's schema: bring it to this tracer's\n"
		"        version, or show its version and tables\n"
		"options:\n"
		"  -c, --config FILE      configuration (default " TRACER_DEFAULT_CONFIG ")\n"
		"  -o, --set KEY=VALUE    override a configuration key (file=, socket=, ...);\n"
		"                         a relative path is taken from the working directory\n"
		"      --json             machine-readable output\n"
		"  -h, --help             this help\n"
		"      --version          print the version\n"
		"See tracer(1) and tracer.conf(5).\n");
}

static void config_warn(const char *msg)
{
	log_warn("config: %s", msg);
}

#define MAX_SETS 64

/*
 * -o KEY=VALUE.  A relative path given on the command line means the one
 * under the working directory, as for any other command's file argument
 * (`-o file=build/demo-jobs.ndjson`); the file's keys stay absolute-only
 * (config.c), since a daemon's working directory is no one's choice.
 */
static int set_override(struct tracer_config *cfg, const char *pair)
{
	const char *eq = strchr(pair, '=');
	char err[256], key[64], cwd[PATH_MAX], abs_pair[PATH_MAX + 128];

	if (eq && eq[1] && eq[1] != '/' && (size_t)(eq - pair) < sizeof(key)) {
		memcpy(key, pair, (size_t)(eq - pair));
		key[eq - pair] = '\0';
		if (config_key_is_path(key)) {
			if (!getcwd(cwd, sizeof(cwd))) {
				fprintf(stderr, "tracer: -o %s: the working directory: %s\n", pair,
					strerror(errno));
				return -1;
			}
			snprintf(abs_pair, sizeof(abs_pair), "%s=%s%s%s", key, cwd,
				 strcmp(cwd, "/") ? "/" : "", eq + 1);
			pair = abs_pair;
		}
	}
	if (config_set_pair(cfg, pair, err, sizeof(err)) != 0) {
		fprintf(stderr, "tracer: -o %s\n", err);
		return -1;
	}
	return 0;
}

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
		fprintf(stderr, "tracer: no command (status, jobs, show, report, sweep, tune, run, datalake; see tracer --help)\n");
		return 2;
	}
	if (config_load(&c.cfg, config_path, !config_given, config_warn) != 0 && config_given)
		return 2;
	for (int k = 0; k < nsets; k++)
		if (set_override(&c.cfg, sets[k]) != 0)
			return 2;
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
		return report_command(&c, argc, argv);
	if (!strcmp(cmd, "datalake"))
		return cmd_datalake(&c, argc, argv);
	if (!strcmp(cmd, "sweep"))
		return cmd_sweep(&c, argc, argv);
	if (!strcmp(cmd, "tune"))
		return cmd_tune(&c, argc, argv);
	fprintf(stderr, "tracer: unknown command %s (status, jobs, show, report, sweep, tune, run, datalake; see tracer --help)\n",
		cmd);
	return 2;
}
