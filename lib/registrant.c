/*
 * registrant.c - register, run, end (registrant.h).
 */
#include "registrant.h"

#include <stdio.h>
#include <string.h>

#include "client.h"

int registrant_register(struct registrant *reg, const struct tracer_config *cfg,
			const struct tracer_identity *id, char *err, size_t errlen)
{
	reg->socket_path = cfg->socket_path;
	reg->timeout_ms = cfg->client_timeout_ms;
	return client_register(reg->socket_path, reg->timeout_ms, id, true,
			       reg->job_uid, sizeof(reg->job_uid), err, errlen);
}

int registrant_run(struct registrant *reg, struct runner *r,
		   char *const argv[], const struct runner_opts *opts)
{
	char err[256], msg[400];
	int status;

	if (runner_start(r, argv, opts) == 0)
		status = runner_wait(r);
	else
		status = r->child_status; /* the code a shell would give */
	if (reg && reg->job_uid[0] &&
	    client_end(reg->socket_path, reg->timeout_ms, reg->job_uid, status,
		       err, sizeof(err)) != 0 && opts->report) {
		snprintf(msg, sizeof(msg), "telling tracerd that job %s ended: %s",
			 reg->job_uid, err);
		opts->report(opts->arg, msg);
	}
	return runner_exit_code(status);
}
