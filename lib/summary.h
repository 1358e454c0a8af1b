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
#define TRACER_VERSION "0.1.0"

struct summary_opts {
	const char *source;     /* "tracerd" or "tracer-wrap" */
	int sample_interval_ms;
};

/* Build the summary of a closed job (job_close done). NULL on OOM. */
cJSON *summary_build(const struct job *j, const struct host_info *host,
		     const struct summary_opts *opts);

#endif
