/*
 * jobview.h - one job across its steps and nodes: from the summaries of
 * one (cluster, job_id) (a Slurm job's batch and srun steps on each of
 * its nodes, an AWS Batch job's attempts and nodes, a `tracer run` job),
 * one summary-shaped object with "scope":"job", a "steps" and a "hosts"
 * array, so that every renderer shows a job as it shows a summary.
 * docs/schema.md says how each number is rolled up.
 */
#ifndef TRACER_JOBVIEW_H
#define TRACER_JOBVIEW_H

#include <stdbool.h>
#include <cjson/cJSON.h>

#include "config.h"

/* The worst state of a job as Slurm reports it: OUT_OF_MEMORY > TIMEOUT >
 * FAILED > CANCELLED > COMPLETED; a word it does not know ranks 0. */
int jobview_state_rank(const char *state);

/* Do two summaries belong to the same job: the same identity.cluster
 * (both absent counts as the same) and identity.job_id (a summary
 * without a job id is a job of its own: its "job" uid)? */
bool jobview_same_job(const cJSON *a, const cJSON *b);

/*
 * The job view of the summaries in the array steps (any order, all of
 * one job, jobview_same_job): a new object the caller frees, NULL when
 * the array is empty or on OOM.  One summary is the view of itself, with
 * "scope", "steps" and "hosts" added; from several, the numbers are
 * rolled up and the flags, the request for next time and the cost are
 * made again for the job as a whole, with the thresholds and prices of
 * cfg (lib/analysis.c).
 */
cJSON *jobview_build(const cJSON *steps, const struct tracer_config *cfg);

/* jobview_group.c: the job views of a list of summaries (any jobs,
 * oldest first), one per job, in the order of each job's last summary; a
 * new array, NULL on OOM. */
cJSON *jobview_group(const cJSON *summaries, const struct tracer_config *cfg);

/* jobview_sum.c: the merging of summaries' numbers that jobview_build
 * uses.  Add every number of src into dst, recursively (objects created
 * as needed); keys named in max_keys (NULL-terminated) take the larger
 * value instead; a true boolean stays true.  Returns false on OOM. */
bool jobview_sum_into(cJSON *dst, const cJSON *src, const char *const *max_keys);
/* The tools of every summary in steps, merged by tool name and path:
 * processes, CPU and I/O summed, peaks the largest, exit codes counted
 * together; a new array, NULL on OOM. */
cJSON *jobview_tools(const cJSON *steps, double job_wall_s, double alloc_cpus);

#endif
