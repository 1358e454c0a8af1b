/*
 * tracker.h - standalone mode's view of the job's processes: /proc
 * samples of the wrapper's process tree plus the exact wait4 totals of
 * what the wrapper reaps, folded into a struct job (job_record.h).
 *
 * A process that another process of the job reaps between two samples
 * is seen only through its last sample and the growth of its parent's
 * children times (cutime/cstime), which the tracker shares out among the
 * parent's children that vanished in that interval.  A process that
 * lived less than one interval and was reaped by someone else than the
 * wrapper is never seen by name: its CPU time is counted in its parent's.
 */
#ifndef TRACER_WRAP_TRACKER_H
#define TRACER_WRAP_TRACKER_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/resource.h>
#include "job_record.h"
#include "proctree.h"
#include "rules.h"

struct tracker;

/* NULL (with a message) when out of memory. */
struct tracker *tracker_new(struct job *j, const struct rules *rules,
			    int argv_max);
void tracker_free(struct tracker *s);

/* The wrapper's child, right after its exec. */
void tracker_add_root(struct tracker *s, pid_t pid, char *const argv[]);

/* One sample of the process tree (every sampling interval). */
void tracker_sample(struct tracker *s);

/*
 * The work of one sample on a snapshot already taken: the descendants of
 * the wrapper in snap, at these clock readings (CLOCK_MONOTONIC ms,
 * CLOCK_REALTIME ns).  tracker_sample() is a /proc scan and this; the
 * unit tests give it snapshots of their own.
 */
void tracker_observe(struct tracker *s, const struct proctree *snap,
		     uint64_t now_ms, uint64_t now_ns);

/* The wrapper reaped pid (exact totals from wait4). */
void tracker_reaped(struct tracker *s, pid_t pid, int status,
		    const struct rusage *ru);

/*
 * The job is over: a last sample, processes still waiting for their
 * parent's figures are folded with what is known, and live ones get
 * their totals so far (job_close does the rest).
 */
void tracker_finish(struct tracker *s);

/* The tracker's own cost: samples taken and CPU nanoseconds spent. */
uint64_t tracker_samples(const struct tracker *s);
uint64_t tracker_cost_ns(const struct tracker *s);

#endif
