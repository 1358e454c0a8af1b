/*
 * cmd_run.c - `tracer run -- CMD`: register as a local job, run CMD as
 * our child (signals forwarded, zombies reaped), tell tracerd when it
 * exits, exit with its status.  If tracerd cannot be reached, CMD runs
 * all the same, untraced, after one warning.
 */
#include <libgen.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "identity.h"
#include "registrant.h"

struct run_opts {
	const char *name, *run, *pipeline, *job_file;
	const char *cpus, *mem, *time, *gpus; /* the declared allocation */
	char **cmd;
	struct tracer_allocation alloc;
};

/* "2G", "512M", "1.5g", "1024K", bytes: -1 when not a size */
static int64_t parse_size(const char *v)
{
	char *end;
	double d = strtod(v, &end);
	double mul = 1;

	if (end == v || d < 0)
		return -1;
	switch (*end) {
	case 'k': case 'K': mul = 1024.0; end++; break;
	case 'm': case 'M': mul = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
	case 't': case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -1;
	return (int64_t)(d * mul);
}

/* Slurm's forms (minutes, M:S, H:M:S, D-H[:M[:S]]) or 90s, 30m, 2h, 1d:
 * seconds, -1 when not a duration */
static int64_t parse_duration(const char *v)
{
	long d = 0, a[3] = {0, 0, 0};
	int n = 0;
	char *end;
	const char *p = v;

	if (!*v)
		return -1;
	a[0] = strtol(p, &end, 10);
	if (end == p || a[0] < 0)
		return -1;
	if (!end[1] && strchr("smhd", *end) && *end)
		return a[0] * (*end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 : 86400);
	if (*end == '-') { /* days-hours[:min[:sec]] */
		d = a[0];
		p = end + 1;
		a[0] = strtol(p, &end, 10);
		if (end == p)
			return -1;
		n = 1;
		while (*end == ':' && n < 3) {
			p = end + 1;
			a[n++] = strtol(p, &end, 10);
			if (end == p)
				return -1;
		}
		if (*end)
			return -1;
		return d * 86400 + a[0] * 3600 + a[1] * 60 + a[2];
	}
	n = 1;
	while (*end == ':' && n < 3) {
		p = end + 1;
		a[n++] = strtol(p, &end, 10);
		if (end == p || a[n - 1] < 0)
			return -1;
	}
	if (*end)
		return -1;
	if (n == 1)
		return a[0] * 60; /* minutes, as Slurm */
	if (n == 2)
		return a[0] * 60 + a[1];
	return a[0] * 3600 + a[1] * 60 + a[2];
}

/* --gpus LIST: indices or UUIDs, comma-separated (tracerd checks them too) */
static int set_gpus(const char *list, struct tracer_allocation *al)
{
	if (!list)
		return 0;
	if (!list[0] || strlen(list) >= sizeof(al->gpus) ||
	    strspn(list, "0123456789abcdefABCDEFGMIU-,/") != strlen(list)) {
		fprintf(stderr, "tracer run: --gpus %.64s: expected GPU indices or UUIDs "
			"(0,1 or GPU-...)\n", list);
		return -1;
	}
	snprintf(al->gpus, sizeof(al->gpus), "%s", list);
	return 0;
}

/* The allocation: --cpus N (the first N CPUs of our affinity mask), or
 * the affinity mask itself; --mem and --time as declared. */
static int set_allocation(const struct run_opts *o, struct tracer_allocation *al)
{
	cpu_set_t set;
	int want = 0, n = 0;
	size_t used = 0;

	if (o->cpus) {
		char *end;
		long v = strtol(o->cpus, &end, 10);
		if (end == o->cpus || *end || v < 1 || v > CPU_SETSIZE) {
			fprintf(stderr, "tracer run: --cpus %s: expected a CPU count\n", o->cpus);
			return -1;
		}
		want = (int)v;
	}
	if (o->mem) {
		int64_t b = parse_size(o->mem);
		if (b <= 0) {
			fprintf(stderr, "tracer run: --mem %s: expected a size such as 2G or 512M\n", o->mem);
			return -1;
		}
		al->mem_bytes = (uint64_t)b;
	}
	if (o->time) {
		int64_t t = parse_duration(o->time);
		if (t <= 0) {
			fprintf(stderr, "tracer run: --time %s: expected a duration such as 01:30:00, 90m or 2h\n", o->time);
			return -1;
		}
		al->time_limit_s = (uint64_t)t;
	}
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0; /* no mask: only what was declared */
	for (int c = 0; c < CPU_SETSIZE && (!want || n < want); c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		used += (size_t)snprintf(al->cpuset + used,
					 used < sizeof(al->cpuset) ? sizeof(al->cpuset) - used : 0,
					 "%s%d", used ? "," : "", c);
		n++;
	}
	if (used >= sizeof(al->cpuset))
		al->cpuset[0] = '\0'; /* too long to list: count only */
	al->cpus = want ? want : n;
	return set_gpus(o->gpus, al);
}

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: tracer run [--name NAME] [--run ID] [--pipeline NAME] [--job-file FILE]\n"
		"                  [--cpus N] [--mem SIZE] [--time DURATION] [--gpus LIST]\n"
		"                  [--] COMMAND [ARGS...]\n"
		"Run COMMAND as a recorded local job and exit with its status.  If tracerd\n"
		"cannot be reached, COMMAND runs all the same, untraced, after one warning.\n"
		"      --name NAME       task name (default: the command's base name)\n"
		"      --run ID          run id (default: $TRACER_RUN_ID)\n"
		"      --pipeline NAME   pipeline (default: $TRACER_PIPELINE)\n"
		"      --job-file FILE   write the job's uid to FILE once registered\n"
		"      --cpus N          allocated CPUs: the first N of the affinity mask\n"
		"                        (default: the whole mask)\n"
		"      --mem SIZE        allocated memory (2G, 512M)\n"
		"      --time DURATION   time limit (01:30:00, 90m, 2h; a number is minutes)\n"
		"      --gpus LIST       allocated GPUs: NVML indices or UUIDs (0,1 or GPU-...)\n"
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
		{"cpus", required_argument, NULL, 'c'},
		{"mem", required_argument, NULL, 'm'},
		{"time", required_argument, NULL, 't'},
		{"gpus", required_argument, NULL, 'g'},
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
		case 'c': o->cpus = optarg; break;
		case 'm': o->mem = optarg; break;
		case 't': o->time = optarg; break;
		case 'g': o->gpus = optarg; break;
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
	id->alloc = o->alloc;
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
	{
		struct tracer_allocation al = {0};
		if (set_allocation(&o, &al) != 0)
			return 2;
		o.alloc = al;
	}
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
