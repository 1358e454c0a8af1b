/*
 * cost.h - what a job cost with the prices of tracer.conf: the whole
 * allocation, the part the job used and the part it did not, each tool's
 * share of the used part, and which price list applied (spot or
 * on-demand, from the AWS identity).  Without a price, no cost at all.
 */
#ifndef TRACER_COST_H
#define TRACER_COST_H

#include <cjson/cJSON.h>

#include "config.h"
#include "job_record.h"

/* Add "cost" to the summary and "cost" to each of its "tools" when a
 * price is configured; cpus: the job's allocated CPUs (the host's when it
 * has no allocation). */
void cost_add(cJSON *summary, const struct job *j, int cpus, const struct tracer_config *cfg);

#endif
