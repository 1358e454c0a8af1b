/*
 * cmd_run.c - `tracer run -- CMD`: register as a local job, run CMD as
 * our child (signals forwarded, zombies reaped), tell tracerd when it
 * exits, exit with its status.  If tracerd cannot be reached, CMD runs
 * all the same, untraced, after one warning.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "identity.h"
#include "registrant.h"

struct run_opts {
	const char *name, *run, *pipeline, *job_file;
	char **cmd;
};

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: tracer run [--name NAME] [--run ID] [--pipeline NAME] [--job-file FILE]\n"
		"                  [--] COMMAND [ARGS...]\n"
		"Run COMMAND as a recorded local job and exit with its status.  If tracerd\n"
		"cannot be reached, COMMAND runs all the same, untraced, after one warning.\n"
		"      --name NAME       task name (default: the command's base name)\n"
		"      --run ID          run id (default: $TRACER_RUN_ID)\n"
		"      --pipeline NAME   pipeline (default: $TRACER_PIPELINE)\n"
		"      --job-file FILE   write the job's uid to FILE once registered\n"
		"  -h, --help            this help\n"
		"The run name comes from $TRACER_RUN_NAME.  Options end at the command's\n"
		"first word, or at \"--\".\n");
}

/* 0, 1 after --help, 2 on a usage error */
static int parse_run_args(int argc, char **argv, struct run_opts *o)
{
	static const struct option opts[] = {
		{"name", required_argument, NULL, 'N'},
		{"run", required_argument, NULL, 'r'},
		{"pipeline", required_argument, NULL, 'p'},
		{"job-file", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	/* '+': stop at the command's first word, never permute its argv */
	while ((c = cli_getopt(argc, argv, "+:h", opts, "run")) != -1) {
		switch (c) {
		case 'N': o->name = optarg; break;
		case 'r': o->run = optarg; break;
		case 'p': o->pipeline = optarg; break;
		case 'j': o->job_file = optarg; break;
		case 'h':
			run_usage(stdout);
			return 1;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "tracer run: no command to run (see tracer run --help)\n");
		return 2;
	}
	o->cmd = argv + optind;
	return 0;
}

static void copy_env_or(char *dst, size_t len, const char *opt, const char *env)
{
	const char *v = opt ? opt : getenv(env);
	if (v)
		snprintf(dst, len, "%s", v);
}

static void build_identity(const struct run_opts *o, struct tracer_identity *id)
{
	char cmd[TRACER_PATH_MAX];

	identity_init(id);
	snprintf(id->scheduler, sizeof(id->scheduler), "local");
	copy_env_or(id->run_id, sizeof(id->run_id), o->run, "TRACER_RUN_ID");
	copy_env_or(id->run_name, sizeof(id->run_name), NULL, "TRACER_RUN_NAME");
	copy_env_or(id->pipeline, sizeof(id->pipeline), o->pipeline, "TRACER_PIPELINE");
	snprintf(cmd, sizeof(cmd), "%s", o->cmd[0]);
	snprintf(id->task_name, sizeof(id->task_name), "%s", o->name ? o->name : basename(cmd));
	identity_set_user(id, getuid());
}

static void write_job_file(const char *path, const char *uid)
{
	FILE *f = fopen(path, "we");

	if (!f) {
		fprintf(stderr, "tracer run: cannot write %s: %m\n", path);
		return;
	}
	fprintf(f, "%s\n", uid);
	if (fclose(f) != 0)
		fprintf(stderr, "tracer run: cannot write %s: %m\n", path);
}

static void report(void *arg, const char *msg)
{
	fprintf(stderr, "tracer run: %s\n", msg);
}

int cmd_run(struct cli *c, int argc, char **argv)
{
	struct runner_opts ro = {.subreaper = true, .report = report};
	struct registrant reg = {0};
	struct tracer_identity *id;
	struct runner r = {0};
	struct run_opts o;
	char err[256];

	/* first: a signal from now on waits for the command, then reaches it */
	runner_block_signals(&r, &ro);
	int rc = parse_run_args(argc, argv, &o);
	if (rc != 0)
		return rc == 1 ? 0 : 2;
	id = malloc(sizeof(*id));
	if (!id) {
		fprintf(stderr, "tracer run: out of memory: running the command untraced\n");
	} else {
		build_identity(&o, id);
		/* our child inherits the tag in the kernel */
		if (registrant_register(&reg, &c->cfg, id, err, sizeof(err)) != 0)
			fprintf(stderr, "tracer run: not recorded (%s); running the command anyway\n",
				err);
		else if (o.job_file)
			write_job_file(o.job_file, reg.job_uid);
		free(id);
	}
	return registrant_run(&reg, &r, o.cmd, &ro);
}
