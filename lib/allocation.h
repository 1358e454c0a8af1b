/*
 * allocation.h - what the job was given and how it used it: the allocated
 * CPUs (Slurm's core list, `tracer run --cpus` or the affinity mask)
 * mapped onto the machine with hwloc (PUs, cores, NUMA nodes), how busy
 * each allocated CPU was with this job's work, and how many of the job's
 * processes ran at once (concurrency).
 *
 * Mechanism: tracerd samples the job's live processes every
 * sample_interval_ms (/proc/PID/stat, which it reads anyway for RSS, and
 * /proc/PID/task/TID/stat of a process with several threads, at most 128
 * threads per process within the sample's read budget); a thread in state
 * R (running or runnable) counts one busy sample on the CPU it is on
 * (`processor`) and one unit of concurrency.  Per-CPU counters of the whole
 * host (/proc/stat) are not used: on a shared node they count other jobs.
 */
#ifndef TRACER_ALLOCATION_H
#define TRACER_ALLOCATION_H

#include <cjson/cJSON.h>

#include "hostinfo.h"
#include "job_record.h"

void allocation_note_cpu_busy(struct job *j, int cpu, int host_cpus);
void allocation_note_concurrency(struct job *j, int running);

/* Parse a CPU list ("0-3,8"); sets mask[cpu] for cpu < n.  Returns the
 * number of CPUs set, -1 on a syntax error. */
int allocation_cpulist_parse(const char *s, unsigned char *mask, int n);

/* The concurrency percentile p (0..100) from the histogram; 0 without samples. */
int allocation_concurrency_pct(const struct job *j, double p);

/*
 * The "allocation_use" object of the summary: per allocated CPU its core,
 * NUMA node and busy fraction, the idle CPUs/cores/NUMA nodes (busy under
 * idle_share), concurrency percentiles; NULL when nothing was sampled.
 */
cJSON *allocation_use_json(const struct job *j, const struct host_info *host,
			   double idle_share);

#endif
