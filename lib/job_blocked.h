/*
 * job_blocked.h - where a job's time went while it was not on a CPU, and the
 * limits of its own cgroup: block I/O delay of its threads from delay
 * accounting (/proc/PID/stat field 42, sampled; counted only while
 * kernel.task_delayacct is on), the pressure stall totals of its v2
 * cgroup over its run, and its cgroup's CPU and memory limits (the
 * allocation when nothing else declares one).  The "blocked" object of
 * the summary (docs/schema.md).
 */
#ifndef TRACER_JOB_BLOCKED_H
#define TRACER_JOB_BLOCKED_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "cgroup_limits.h"

struct job_blocked {
	uint64_t blkio_ns;                /* block I/O delay of the job's threads (samples) */
	bool psi;                         /* its v2 cgroup's pressure was read */
	struct cgroup_pressure psi_first; /* at the first reading */
	struct cgroup_pressure psi_last;  /* at the latest */
	struct cgroup_limits limits;      /* its cgroup's limits (0: none) */
	unsigned limits_used;             /* JOB_WAIT_* taken as the allocation */
};

#define JOB_WAIT_MEM_LIMIT (1u << 0)
#define JOB_WAIT_CPU_LIMIT (1u << 1)

struct tracer_allocation;
/* Without a declared memory allocation, the cgroup's memory limit is the
 * job's; a CPU quota under the allocated CPUs (or without any) is too. */
void job_blocked_limits_to_alloc(struct job_blocked *w, struct tracer_allocation *a);
/* The summary's "cgroup_limits" object; NULL when the cgroup has none. */
cJSON *job_blocked_limits_json(const struct job_blocked *w);

/* A process's block I/O delay now (clock ticks, its threads' sum); *seen
 * is the value at its previous sample, updated.  Counts the growth in
 * the job's and returns it (ns), for the process's own. */
uint64_t job_blocked_note_blkio(struct job_blocked *w, uint64_t *seen, uint64_t ticks);
struct job;
/*
 * A sample of the job's own cgroup (tracerd's job cgroup, the container
 * of a tracer-wrap that is its init): its counters, pressure and limits;
 * unless Slurm declared the allocation, the limits are the job's.
 */
void job_blocked_sample_cgroup(struct job *j, const struct cgroup_ref *ref);
/* A reading of the job cgroup's pressure and limits. */
void job_blocked_note_cgroup(struct job_blocked *w, const struct cgroup_pressure *p,
			     const struct cgroup_limits *l);
/* The summary's "blocked" object: delay accounting on/off and the block
 * I/O delay, PSI of the job's cgroup when it has one. */
cJSON *job_blocked_json(const struct job_blocked *w, bool delayacct_on);
/* Block I/O delay in seconds, or -1 when delay accounting is off. */
double job_blocked_blkio_s(const struct job_blocked *w, bool delayacct_on);

#endif
