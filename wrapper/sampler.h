/*
 * sampler.h - standalone mode's view of the job's processes: /proc
 * samples of the wrapper's process tree plus the exact wait4 totals of
 * what the wrapper reaps, folded into a struct job (job.h).
 *
 * A process that another process of the job reaps between two samples
 * is seen only through its last sample and the growth of its parent's
 * children times (cutime/cstime), which the sampler shares out among the
 * parent's children that vanished in that interval.  A process that
 * lived less than one interval and was reaped by someone else than the
 * wrapper is never seen by name: its CPU time is counted in its parent's.
 */
#ifndef TRACER_WRAP_SAMPLER_H
#define TRACER_WRAP_SAMPLER_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/resource.h>
#include "job.h"
#include "rules.h"

struct sampler;

/* NULL (with a message) when out of memory. */
struct sampler *sampler_new(struct job *j, const struct rules *rules,
			    int argv_max);
void sampler_free(struct sampler *s);

/* The wrapper's child, right after its exec. */
void sampler_add_root(struct sampler *s, pid_t pid, char *const argv[]);

/* One sample of the process tree (every sampling interval). */
void sampler_sample(struct sampler *s);

/* The wrapper reaped pid (exact totals from wait4). */
void sampler_reaped(struct sampler *s, pid_t pid, int status,
		    const struct rusage *ru);

/*
 * The job is over: a last sample, processes still waiting for their
 * parent's figures are folded with what is known, and live ones get
 * their totals so far (job_close does the rest).
 */
void sampler_finish(struct sampler *s);

/* The sampler's own cost: samples taken and CPU nanoseconds spent. */
uint64_t sampler_samples(const struct sampler *s);
uint64_t sampler_cost_ns(const struct sampler *s);

#endif
