/*
 * jobinc.h - what each summary adds to its job's totals on its node
 * ("node_increments"), worked out where the summary is written, so that
 * the sweep over the datalake sums increments instead of folding every
 * (job, node) in a GROUP BY (docs/sweep.md, "Increments").
 *
 * The steps of one job on one node share its allocation: the node's
 * allocation is the largest any step reports, its CPU time every step's
 * (none without an allocation), its unused memory the largest allocation
 * less the largest peak (at least 0), its idle GPUs the most any step
 * left idle.  A summary's increments are those node totals after it less
 * the totals before it, so that the increments of a node's summaries sum
 * to its totals (an increment may be negative: a higher peak leaves less
 * memory unused).  tracerd keeps the totals so far of a bounded number
 * of jobs (the memo); where it cannot be sure it saw every earlier
 * summary of the job on its node (the memo lost after a restart, an
 * entry dropped), the summary carries no increments and the sweep folds
 * that job from its summaries as before.
 */
#ifndef TRACER_JOBINC_H
#define TRACER_JOBINC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

struct jobinc_memo;

/* One job's totals on one node so far: the largest allocation (CPUs,
 * memory) and peak any step reports, every step's CPU time, the most
 * GPUs a step left idle.  The sweep over the archive keeps the same
 * (sweep_acc.c), so that both count alike. */
struct jobinc_node {
	double cpus, cpu_s, mem, peak, gpus;
};

/* What the node's totals count in the sweep: its allocated CPUs, its CPU
 * time (none without an allocation), its unused memory (at least 0) and
 * its idle GPUs. */
struct jobinc_fold {
	double cpus, cpu_s, unused_mem, gpus_idle;
};

/* t grown by summary s */
void jobinc_node_add(struct jobinc_node *t, const cJSON *s);
struct jobinc_fold jobinc_node_fold(const struct jobinc_node *t);

struct jobinc_stats {
	uint64_t entries;      /* jobs held now */
	uint64_t written;      /* summaries given increments */
	uint64_t unknown;      /* summaries written without: earlier steps maybe unseen */
	uint64_t dropped_full; /* entries dropped to make room (the oldest job's) */
	uint64_t dropped_ttl;  /* entries dropped after max_idle_ns without a summary */
	uint64_t ended;        /* entries forgotten at their job's end */
};

/* A memo of at most max_jobs jobs, entries dropped after max_idle_ns
 * without a summary; since_ns (epoch): when its knowledge begins (the
 * daemon's start).  NULL when out of memory. */
struct jobinc_memo *jobinc_new(size_t max_jobs, uint64_t max_idle_ns, uint64_t since_ns);
void jobinc_free(struct jobinc_memo *m);

/*
 * Adds "node_increments" to the finished summary s (when certain) and
 * updates the memo; m NULL: no memo (tracer-wrap on its own): a summary
 * is then its own totals.  others_open: another step of the same job is
 * still open on this node (no "single" then).  now_ns: epoch.
 * 0, -1 when out of memory (s left without increments).
 */
int jobinc_apply(struct jobinc_memo *m, cJSON *s, bool others_open, uint64_t now_ns);

void jobinc_stats(const struct jobinc_memo *m, struct jobinc_stats *out);

/* The job's key in the memo (scheduler, cluster, job id) of summary s
 * or identity fields; false when the job has no job id (it is one
 * summary, its own job). */
bool jobinc_key(const char *scheduler, const char *cluster, const char *job_id, char *out,
		size_t len);

#endif
