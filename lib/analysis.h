/*
 * analysis.h - answers added to a job's summary: flags with their evidence
 * and thresholds, a right-sized request in four syntaxes, and the cost of
 * the job and of its unused allocation when prices are configured.
 * Thresholds and prices are tracer.conf keys (docs/configuration.md).
 */
#ifndef TRACER_ANALYSIS_H
#define TRACER_ANALYSIS_H

#include <cjson/cJSON.h>

#include "config.h"
#include "history.h"
#include "hostinfo.h"
#include "job_record.h"

/* Add "allocation_use", "flags", "recommendation" and "cost" (with
 * prices) to the summary built by summary_build().  prev: the earlier
 * runs of the job's task name (NULL: none). */
void analysis_add(cJSON *summary, const struct job *j, const struct host_info *host,
		  const struct tracer_config *cfg, const struct history_task *prev);

/* The same flags, cost and request for a summary-shaped roll-up of
 * several summaries (lib/jobview.c): root holds the summed numbers and
 * its "blocked" (if any), j the facts a summary does not carry as numbers
 * (allocation, concurrency histogram, OOM kills, longest stall); nothing
 * is sampled or probed. */
void analysis_add_rollup(cJSON *root, const struct job *j, const struct host_info *host,
			 const struct tracer_config *cfg);

/* One flag into the array flags: id, severity, the tool it is about
 * (NULL: the job), its threshold key and value (NULL: none), and the
 * message; the evidence is added with analysis_evidence. */
cJSON *analysis_flag(cJSON *flags, const char *id, const char *severity,
		     const char *tool, const char *threshold_key, double threshold,
		     const char *fmt, ...) __attribute__((format(printf, 7, 8)));
void analysis_evidence(cJSON *f, const char *key, double v);

/* A GPU's memory for a peak (gpu_flags.c): peak x headroom, rounded up
 * to whole GiB, to 10 GiB steps above 30 GiB (GPUs come in such sizes);
 * at least 1 GiB.  The host memory request is tune_round_mem's. */
uint64_t analysis_round_mem(uint64_t peak_bytes, double headroom);

#endif
