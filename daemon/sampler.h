/*
 * sampler.h - the periodic /proc view of live tagged processes: the sum
 * of their RSS (the job's concurrent memory peak) and, at the end of a
 * job, the totals so far of processes that outlive it.
 */
#ifndef TRACERD_SAMPLER_H
#define TRACERD_SAMPLER_H

#include <stdbool.h>

#include "cgroup.h"
#include "job.h"
#include "hostinfo.h"

/* Read RSS of every live process of j, update j->mem_peak_bytes. */
void sampler_sample_job(struct job *j, const struct host_info *host);

/* Fill p->totals from /proc (for a process still alive). 0 or -1 (gone). */
int sampler_read_totals(struct job_proc *p, const struct host_info *host);

/*
 * Does pid live in a cgroup made for its job (Slurm's job_N/step_M,
 * a container's)?  Then its counters are the job's own.  A shared cgroup
 * (a user session, the root) is not.
 */
bool sampler_job_cgroup(pid_t pid, struct cgroup_ref *ref);

/* Read the job's cgroup counters into j (peak memory, CPU). */
void sampler_sample_cgroup(struct job *j, const struct cgroup_ref *ref);

#endif
