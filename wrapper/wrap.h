/*
 * wrap.h - the parts of tracer-wrap, the container entrypoint that runs
 * a job as a correct init, tags it for the node daemon, or records it by
 * itself when there is no daemon (docs/aws-batch.md).
 */
#ifndef TRACER_WRAP_H
#define TRACER_WRAP_H

#include <stdbool.h>
#include <sys/types.h>
#include "config.h"
#include "identity.h"
#include "runner.h"

#define WRAP_MAX_SETS 64

struct wrap_opts {
	const char *run, *run_name, *pipeline, *task;
	const char *socket, *config;
	bool pgroup;
	bool standalone;     /* --standalone / --no-daemon: never ask tracerd */
	bool verbose;
	const char *sets[WRAP_MAX_SETS]; /* -o key=value, in order */
	int nsets;
	char **cmd;          /* the job's command (argv after the options) */
};

/* options.c: 0 run, 1 exit 0 (help/version printed), -1 usage error. */
int wrap_parse_args(int argc, char **argv, struct wrap_opts *o);

/* options.c: config file, TRACER_OPTIONS, then -o overrides. */
void wrap_load_config(const struct wrap_opts *o, struct tracer_config *cfg);

/*
 * identity.c: the job's identity from options, TRACER_* and AWS_BATCH_*
 * variables, ECS/EC2 metadata (metadata.c) and the command itself.
 */
void wrap_identity(const struct wrap_opts *o, const struct tracer_config *cfg,
		   struct tracer_identity *id);

/*
 * metadata.c: ECS task metadata v4 when ECS_CONTAINER_METADATA_URI_V4 is
 * set, EC2 IMDSv2 when the machine is EC2 or an endpoint is configured;
 * each call bounded by cfg->metadata_timeout_ms, all of them by
 * WRAP_METADATA_BUDGET_MS.  Problems are one warning; never fails.
 */
#define WRAP_METADATA_BUDGET_MS 1000
void metadata_collect(const struct tracer_config *cfg,
		      struct tracer_identity *id);

/*
 * standalone.c: run and record the job in the wrapper, with the runner r
 * (signals already blocked) and these options (its callbacks are added);
 * returns the exit code.
 */
int standalone_run(const struct wrap_opts *o, const struct tracer_config *cfg,
		   const struct tracer_identity *id, struct runner *r,
		   const struct runner_opts *ropts);

#endif
