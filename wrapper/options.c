/*
 * options.c - tracer-wrap's command line and configuration: options stop
 * at the first argument that is not one (or at "--"), so that
 * `tracer-wrap CMD -x` and `tracer-wrap -- CMD -x` both run CMD -x.
 */
#include "wrap.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "log.h"
#include "summary.h"

static void usage(FILE *out)
{
	fprintf(out,
"Usage: tracer-wrap [OPTIONS] [--] COMMAND [ARGS...]\n"
"\n"
"Run COMMAND as a correct init (signals forwarded, zombies reaped, its exit\n"
"status returned) and record it: tagged for the node's tracerd when its\n"
"socket answers, recorded by the wrapper itself otherwise.\n"
"\n"
"  --run ID          run id (default: $TRACER_RUN_ID, the AWS Batch array job)\n"
"  --run-name NAME   run name (default: $TRACER_RUN_NAME)\n"
"  --pipeline NAME   pipeline (default: $TRACER_PIPELINE)\n"
"  --task NAME       task name (default: metadata tag tracer.task, the command)\n"
"  --socket PATH     tracerd socket (default: config `socket`, %s)\n"
"  --config PATH     configuration file (default: $TRACER_CONFIG, %s)\n"
"  --pgroup          run COMMAND in its own process group and signal the group\n"
"  --standalone, --no-daemon\n"
"                    do not ask tracerd: record the job in the wrapper\n"
"  -o KEY=VALUE      set a configuration key (repeatable), e.g. -o file=PATH\n"
"  -v, --verbose     debug messages\n"
"  -h, --help        this text\n"
"      --version     print the version\n"
"\n"
"Configuration keys may also come from $TRACER_OPTIONS (KEY=VALUE words).\n"
"See tracer-wrap(1) and tracer.conf(5).\n",
		TRACER_DEFAULT_SOCKET, TRACER_DEFAULT_CONFIG);
}

enum { O_RUN = 256, O_RUN_NAME, O_PIPELINE, O_TASK, O_SOCKET, O_CONFIG,
       O_PGROUP, O_STANDALONE, O_VERSION };

int wrap_parse_args(int argc, char **argv, struct wrap_opts *o)
{
	static const struct option longopts[] = {
		{"run", required_argument, NULL, O_RUN},
		{"run-name", required_argument, NULL, O_RUN_NAME},
		{"pipeline", required_argument, NULL, O_PIPELINE},
		{"task", required_argument, NULL, O_TASK},
		{"socket", required_argument, NULL, O_SOCKET},
		{"config", required_argument, NULL, O_CONFIG},
		{"pgroup", no_argument, NULL, O_PGROUP},
		{"standalone", no_argument, NULL, O_STANDALONE},
		{"no-daemon", no_argument, NULL, O_STANDALONE},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, O_VERSION},
		{NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	/* '+': stop at the command's first word, never permute its argv */
	while ((c = getopt_long(argc, argv, "+:o:vh", longopts, NULL)) != -1) {
		switch (c) {
		case O_RUN: o->run = optarg; break;
		case O_RUN_NAME: o->run_name = optarg; break;
		case O_PIPELINE: o->pipeline = optarg; break;
		case O_TASK: o->task = optarg; break;
		case O_SOCKET: o->socket = optarg; break;
		case O_CONFIG: o->config = optarg; break;
		case O_PGROUP: o->pgroup = true; break;
		case O_STANDALONE: o->standalone = true; break;
		case 'v': o->verbose = true; break;
		case 'o':
			if (o->nsets == WRAP_MAX_SETS) {
				fprintf(stderr, "tracer-wrap: more than %d -o options\n",
					WRAP_MAX_SETS);
				return -1;
			}
			o->sets[o->nsets++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case O_VERSION:
			printf("tracer-wrap %s\n", TRACER_VERSION);
			return 1;
		case ':':
			fprintf(stderr, "tracer-wrap: option %s needs a value\n",
				argv[optind - 1]);
			return -1;
		default:
			/* one line naming the option, as typed without "=value" */
			if (optopt && argv[optind - 1][1] != '-')
				fprintf(stderr, "tracer-wrap: unknown option -%c "
					"(see tracer-wrap --help)\n", optopt);
			else
				fprintf(stderr, "tracer-wrap: unknown option %.*s "
					"(see tracer-wrap --help)\n",
					(int)strcspn(argv[optind - 1], "="),
					argv[optind - 1]);
			return -1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "tracer-wrap: no command to run (see tracer-wrap --help)\n");
		return -1;
	}
	o->cmd = &argv[optind];
	return 0;
}

static void config_warn(const char *msg)
{
	log_warn("%s", msg);
}

/* "key=value" from where it was said: a bad one is reported and skipped. */
static void set_one(struct tracer_config *cfg, const char *kv, const char *from)
{
	char err[256];

	if (config_set_pair(cfg, kv, err, sizeof(err)) < 0)
		log_warn("%s: %s, ignored", from, err);
}

void wrap_load_config(const struct wrap_opts *o, struct tracer_config *cfg)
{
	const char *path = o->config ? o->config : getenv("TRACER_CONFIG");
	const char *env_opts = getenv("TRACER_OPTIONS");
	char word[1024];

	config_defaults(cfg);
	/* the default file is optional; one that was named must be there */
	if (path && *path)
		config_load(cfg, path, false, config_warn);
	else
		config_load(cfg, TRACER_DEFAULT_CONFIG, true, config_warn);

	for (const char *p = env_opts; p && *p;) {
		size_t n;

		while (isspace((unsigned char)*p))
			p++;
		n = strcspn(p, " \t\n");
		if (!n)
			break;
		if (n < sizeof(word)) {
			memcpy(word, p, n);
			word[n] = '\0';
			set_one(cfg, word, "TRACER_OPTIONS");
		} else {
			log_warn("TRACER_OPTIONS: setting too long, ignored");
		}
		p += n;
	}
	for (int i = 0; i < o->nsets; i++)
		set_one(cfg, o->sets[i], "-o");
	if (o->socket) {
		snprintf(word, sizeof(word), "socket=%s", o->socket);
		set_one(cfg, word, "--socket");
	}
}
