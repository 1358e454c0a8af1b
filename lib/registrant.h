/*
 * registrant.h - the one way a registrant runs a job: register the
 * calling process with tracerd (the child inherits the tag in the
 * kernel), run the command as our child (runner.h), tell tracerd the
 * end, and exit as a shell would.  `tracer run` and tracer-wrap (daemon
 * mode) both go through here.  Whatever tracerd does, the command runs
 * and its exit status is ours.
 */
#ifndef TRACER_REGISTRANT_H
#define TRACER_REGISTRANT_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "defaults.h"
#include "identity.h"
#include "runner.h"

struct registrant {
	const char *socket_path;
	int timeout_ms;
	char job_uid[TRACER_JOB_UID_LEN]; /* "" while not registered */
};

/*
 * Register the calling process as the job id, as its registrant (it
 * stays the job's parent).  0, or -1 with the reason in err: the job
 * then runs untraced, or the caller records it another way.
 */
int registrant_register(struct registrant *reg, const struct tracer_config *cfg,
			const struct tracer_identity *id, char *err, size_t errlen);

/*
 * Run argv with the runner (signals taken since runner_block_signals(r)),
 * then, when registered, tell tracerd the job ended with its status.
 * Problems go to opts->report.  Returns the exit code for the caller:
 * the command's (128 + signal when killed), or RUNNER_EXIT_* when it
 * could not run.
 */
int registrant_run(struct registrant *reg, struct runner *r,
		   char *const argv[], const struct runner_opts *opts);

#endif
