/*
 * sleep_flags.h - sleeping_tool: a tool of one process asleep most of
 * its life (off the CPU, neither waiting for one nor for block I/O)
 * while the whole job used next to no CPU, for at least
 * flag_sleeping_share of the job's wall: the allocation was held and
 * idle while it slept.  Read from the summary's tools and its
 * `timeseries` (tracerd's samples); a summary without a time series
 * (tracer-wrap on its own, roll-ups) has none.  Called by analysis.c.
 */
#ifndef TRACER_SLEEP_FLAGS_H
#define TRACER_SLEEP_FLAGS_H

#include <cjson/cJSON.h>

#include "config.h"

/* Add a sleeping_tool flag to flags for each such tool of root. */
void sleep_flags_add(cJSON *flags, const cJSON *root, const struct tracer_config *cfg);

#endif
