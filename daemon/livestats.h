/*
 * livestats.h - tracerd's /proc and cgroup readings of live processes:
 * the sum of their RSS (the job's concurrent memory peak), the totals so
 * far of processes that outlive their job, and the job's own cgroup.
 * Kernel exit records are the exact numbers; these readings give only
 * what exit records cannot.
 */
#ifndef TRACERD_LIVESTATS_H
#define TRACERD_LIVESTATS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"
#include "hostinfo.h"
#include "job_record.h"

/*
 * Read the RSS of up to budget live processes of j, from *bucket of its
 * live table on (the cursor is advanced), and update j->mem_peak_bytes
 * with the sum of the latest readings of all.  Returns the number read:
 * a job with more live processes than the budget is read over several
 * calls, so that no call grows with the job.  A process whose pid now
 * names another process (its start time differs from its record's: the
 * exit record was lost and the pid reused) is read as gone, and counted
 * in *pid_reused.
 */
size_t livestats_sample_rss(struct job *j, const struct host_info *host,
			    size_t *bucket, size_t budget, uint64_t *pid_reused);

/* After livestats_sample_rss: note whether the job made progress (CPU,
 * else I/O counters); see job_note_progress() for the result. */
int livestats_check_stall(struct job *j, uint64_t threshold_ns);

/* Fill p->totals from /proc (for a process still alive). 0 or -1 (gone,
 * or its pid is another process's now). */
int livestats_read_totals(struct job_proc *p);

/*
 * Does pid live in a cgroup made for its job (Slurm's job_N/step_M,
 * a container's)?  Then its counters are the job's own.  A shared cgroup
 * (a user session, the root) is not.
 */
bool livestats_job_cgroup(pid_t pid, struct cgroup_ref *ref);

#endif
