/*
 * idlehost.h - the node-level idle_host state: no job open and the host's
 * CPUs (all of them, /proc/stat) busy at most idle_host_cpu_share for
 * idle_host_after_s in a row - a machine left running with nothing to do.
 * Updated at the sampling tick from /proc/stat deltas (one short read);
 * logged once when it starts and when it ends, in `tracer status` and as
 * the tracer_host_idle gauge.  When a period ends (a job opens, CPU use
 * rises, tracerd stops) it becomes one idle_host record (docs/schema.md,
 * "Idle hosts"), built from memory here and handed to the spool by the
 * caller like a summary: the host, its CPUs and memory, the cluster of
 * the last job seen, the start (the first quiet sample) and end, the CPU
 * share busy meanwhile, the EC2 instance when the machine is one (its
 * DMI, read once at start) and the hourly price of tracer.conf.
 */
#ifndef TRACER_IDLEHOST_H
#define TRACER_IDLEHOST_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "config.h"
#include "hostinfo.h"
#include "procfs.h"

struct idle_host {
	struct procfs_cpu_ticks prev; /* at the previous tick (total 0: none) */
	double cpu_share;             /* busy share between the last two ticks; -1 unknown */
	uint64_t quiet_since_ns;      /* CLOCK_MONOTONIC: no job and under the share since; 0 not */
	bool idle;                    /* quiet for idle_host_after_s */
	uint64_t idle_since_real_s;   /* CLOCK_REALTIME seconds when it became idle */
	/* the period being recorded: from the first quiet sample */
	uint64_t quiet_real_ns;             /* CLOCK_REALTIME of that sample */
	struct procfs_cpu_ticks quiet_ticks; /* /proc/stat then */
	char cluster[64];             /* the cluster of the last job seen ("" none) */
	/* read once at idle_host_init */
	char hostname[256];
	int cpus;
	uint64_t mem_bytes;
	char instance_id[32], instance_type[32]; /* EC2 (DMI); "" elsewhere */
	const struct tracer_config *cfg; /* tracerd's, reloaded in place: the prices */
};

/* Start state; the host's facts from hi, its EC2 identity from DMI; the
 * prices of cfg (kept: read when a record is made) - price_instance_hour,
 * else the CPUs and memory at price_cpu_hour and price_gb_hour. */
void idle_host_init(struct idle_host *h, const struct host_info *hi,
		    const struct tracer_config *cfg);
/* One sampling tick: jobs_open (cluster: the cluster of an open job, or
 * NULL), the share threshold and duration.  Returns the record of the
 * idle period that ended now (the caller hands it to delivery), else
 * NULL. */
cJSON *idle_host_tick(struct idle_host *h, bool jobs_open, const char *cluster,
		      double share_max, int after_s, uint64_t now_mono_ns);
/* tracerd stops: the record of the period still open, else NULL. */
cJSON *idle_host_stop(struct idle_host *h);
/* tracer status's "idle_host" object. */
cJSON *idle_host_json(const struct idle_host *h, double share_max, int after_s);

#endif
