/*
 * job_state.h - how a job ended, as sacct users know it: the state word
 * (COMPLETED, FAILED, OUT_OF_MEMORY, CANCELLED, TIMEOUT) from the exit
 * status, OOM kills and the time limit; and the OOM details (victim,
 * largest holder at that moment, cgroup or host OOM).
 */
#ifndef TRACER_JOB_STATE_H
#define TRACER_JOB_STATE_H

#include <stdint.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#include "job_record.h"

/*
 * An OOM kill of one of the job's processes (victim), seen by the kernel:
 * the victim's RSS at that moment (0: unknown), the tightest memory cgroup
 * limit of the allocating task and its usage (pages; 0: none), the host's
 * memory and page size.  The largest holder is the live process with the
 * most RSS (the victim's from the kernel, the others' last sample).
 */
void job_note_oom(struct job *j, pid_t victim, uint64_t victim_rss_bytes,
		  uint64_t limit_pages, uint64_t usage_pages, uint64_t host_mem_bytes,
		  long page_size);

/* The state word of a job whose final wait status is `status` (-1 unknown). */
const char *job_state(const struct job *j, int status, uint64_t wall_ns);

/*
 * A sample: did the job make progress (CPU or I/O) since the last one, at
 * now_ns (CLOCK_MONOTONIC)?  Returns 1 when the job has just become
 * stalled (no progress for threshold_ns), -1 when a stalled job just made
 * progress again, 0 otherwise.
 */
int job_note_progress(struct job *j, bool moved, uint64_t now_ns,
		      uint64_t threshold_ns);

/* The "oom" object of the summary, or NULL when the job had no OOM kill. */
cJSON *job_oom_json(const struct job *j);

#endif
