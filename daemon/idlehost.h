/*
 * idlehost.h - the node-level idle_host state: no job open and the host's
 * CPUs (all of them, /proc/stat) busy at most idle_host_cpu_share for
 * idle_host_after_s in a row - a machine left running with nothing to do.
 * Updated at the sampling tick from /proc/stat deltas (one short read);
 * logged once when it starts and when it ends, in `tracer status` and as
 * the tracer_host_idle gauge.
 */
#ifndef TRACER_IDLEHOST_H
#define TRACER_IDLEHOST_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "procfs.h"

struct idle_host {
	struct procfs_cpu_ticks prev; /* at the previous tick (total 0: none) */
	double cpu_share;             /* busy share between the last two ticks; -1 unknown */
	uint64_t quiet_since_ns;      /* CLOCK_MONOTONIC: no job and under the share since; 0 not */
	bool idle;                    /* quiet for idle_host_after_s */
	uint64_t idle_since_real_s;   /* CLOCK_REALTIME seconds when it became idle */
};

void idle_host_init(struct idle_host *h);
/* One sampling tick: jobs_open, the share threshold and duration. */
void idle_host_tick(struct idle_host *h, bool jobs_open, double share_max, int after_s,
		    uint64_t now_mono_ns);
/* tracer status's "idle_host" object. */
cJSON *idle_host_json(const struct idle_host *h, double share_max, int after_s);

#endif
