/*
 * summary_finish.h - the one path from a closed job to its finished
 * summary, for tracerd and for tracer-wrap on its own (Fargate): the
 * numbers (summary_build), how the network was counted, then the
 * analysis (allocation use, time blocked, cgroup limits, flags, the
 * request for next time and the cost with the configured prices).
 */
#ifndef TRACER_SUMMARY_FINISH_H
#define TRACER_SUMMARY_FINISH_H

#include <cjson/cJSON.h>

#include "config.h"
#include "history.h"
#include "hostinfo.h"
#include "job_record.h"
#include "summary.h"

/*
 * The finished summary of a closed job (job_close done), NULL on OOM.
 * net_mode: how sockets were counted (netio.h: "none" without kernel
 * programs); prev: the earlier runs of the job's task name (NULL: none).
 */
cJSON *summary_finish(const struct job *j, const struct host_info *host,
		      const struct summary_opts *opts, const struct tracer_config *cfg,
		      const char *net_mode, const struct history_task *prev);

#endif
