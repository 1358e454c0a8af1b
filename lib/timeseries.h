/*
 * timeseries.h - a job's use over time, bounded: at each of tracerd's
 * samples, the job's cumulative CPU and the memory of its live
 * processes.  At most SERIES_MAX_POINTS points are kept: when full,
 * neighbouring points are merged in pairs (resolution halves, the
 * memory of a merged point is the larger of the two, the CPU stays
 * exact because it is cumulative), so a job of any length costs at most
 * SERIES_MAX_POINTS x 16 bytes.  The summary carries it as `timeseries`
 * (docs/schema.md).
 */
#ifndef TRACER_TIMESERIES_H
#define TRACER_TIMESERIES_H

#include <stdint.h>
#include <cjson/cJSON.h>

#define SERIES_MAX_POINTS 2048 /* even: halved when reached */

struct series_point {
	uint32_t t_ms;     /* end of the interval, since the job's start */
	uint32_t mem_kib;  /* largest memory sample in the interval */
	uint64_t cpu_ns;   /* the job's CPU at the end of the interval */
};

struct job_series {
	uint64_t start_ns;          /* the job's start (CLOCK_REALTIME) */
	struct series_point *p;
	uint32_t n, cap;
	uint32_t stride;            /* samples per point (a power of two) */
	uint32_t pending;           /* samples in the point being filled */
	struct series_point next;   /* that point */
};

/*
 * One sample at now_ns (CLOCK_REALTIME): cpu_ns the job's CPU so far
 * (finished processes exact, live ones as last read), mem_bytes the
 * memory of its live processes.  *s is made on the first sample; when
 * memory runs out the sample is dropped (and the series stays valid).
 */
void timeseries_note(struct job_series **s, uint64_t start_ns, uint64_t now_ns,
		     uint64_t cpu_ns, uint64_t mem_bytes);
void timeseries_free(struct job_series *s);

/*
 * The summary's object: {"interval_s", "points", "t_s": [...],
 * "cpu_cores": [...], "mem_bytes": [...]}; NULL when there is no sample.
 */
cJSON *timeseries_json(const struct job_series *s, uint32_t sample_interval_ms);

#endif
