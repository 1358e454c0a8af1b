/*
 * summary.h - the per-job summary (docs/schema.md), built in one place
 * for tracerd and tracer-wrap alike, and written the same way by every
 * sink.
 */
#ifndef TRACER_SUMMARY_H
#define TRACER_SUMMARY_H

#include <cjson/cJSON.h>
#include "hostinfo.h"
#include "job_record.h"

#define SUMMARY_SCHEMA "tracer.job/2"
/* The other record the same stream (spool, sinks, archive) carries: an
 * idle period of a host (daemon/idlehost.c, docs/schema.md "Idle
 * hosts"), told apart by its "record" member, which no summary has. */
#define SUMMARY_IDLE_HOST_RECORD "idle_host"
#define SUMMARY_IDLE_HOST_SCHEMA "tracer.idle_host/1"
#define TRACER_VERSION "0.1.0"

struct summary_opts {
	const char *source;     /* "tracerd" or "tracer-wrap" */
	int sample_interval_ms;
};

/* Build the summary of a closed job (job_close done). NULL on OOM. */
cJSON *summary_build(const struct job *j, const struct host_info *host,
		     const struct summary_opts *opts);

#endif
