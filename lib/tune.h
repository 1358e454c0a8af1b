/*
 * tune.h - the request for the next run of each step of a pipeline,
 * learned from its past runs (`tracer tune`, docs/tune.md).  A run is
 * one job (a Slurm job's steps and nodes rolled up, lib/jobview.c)
 * reduced to the few numbers tuning needs; runs are grouped into steps by
 * task name and owner; each step gets its statistics, a request (CPUs,
 * memory, time), the saving over the runs seen and a confidence.
 * Computing only: the writers are in daemon/cli/tune_write.c.
 */
#ifndef TRACER_TUNE_H
#define TRACER_TUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "config.h"
#include "tune_fit.h"

#define TUNE_NAME_LEN 128
#define TUNE_USER_LEN 64

/* How a run ended, as far as tuning cares. */
enum tune_end { TUNE_OK, TUNE_OOM, TUNE_TIMEOUT, TUNE_FAILED, TUNE_OTHER };

/* One job of a step: what it was given and what it used. */
struct tune_run {
	char task[TUNE_NAME_LEN];     /* identity.task_name */
	char pipeline[TUNE_NAME_LEN]; /* identity.pipeline ("" none) */
	char user[TUNE_USER_LEN];     /* identity.user ("" unknown) */
	int64_t uid;                  /* identity.uid (-1 unknown) */
	int64_t end_ns;
	enum tune_end end;
	double alloc_cpus;            /* per node (0: not known) */
	uint64_t alloc_mem;           /* per node, bytes (0: not known) */
	double time_limit_s;          /* 0: not known */
	double cpus_needed;           /* concurrency p95, at least mean use */
	uint64_t peak;                /* memory peak, bytes */
	double wall_s;
	double cpu_s;
	uint64_t input_bytes;         /* bytes read (totals.rchar) */
	bool fargate;                 /* ran on AWS Fargate (ECS launch type) */
};

/* The request and what it would have saved. */
struct tune_step {
	char task[TUNE_NAME_LEN];
	char pipeline[TUNE_NAME_LEN];
	char user[TUNE_USER_LEN];     /* "" when the key is the pipeline (shared) */
	int64_t uid;
	int runs, ok, oom, timeout, failed, other;
	int64_t first_end_ns, last_end_ns;
	/* statistics over the runs */
	double cpus_used_p95, cpus_req_p95;
	uint64_t peak_p95, peak_max, peak_ok_max, mem_req_p95;
	double wall_p95, wall_max, time_limit_max;
	uint64_t input_max;
	double peak_cv;               /* spread: stdev / mean of the peaks */
	struct tune_fit fit;          /* peak against input, when usable */
	bool fit_used;
	/* the request */
	int cpus;
	uint64_t mem_bytes;
	double time_s;
	bool retry_on_oom;            /* a run was OOM-killed */
	bool fargate;                 /* a run was on Fargate: AWS requests a Fargate size */
	/* over the runs seen: requested then minus this request (> 0 saved) */
	double core_h_saved, gb_h_saved, cost_saved;
	bool has_cost;                /* a price applies (else no cost at all) */
	const char *confidence;       /* "low", "medium", "high" */
};

/* Tuning parameters (defaults from lib/defaults.h). */
struct tune_params {
	int min_runs;
	bool shared;   /* group by pipeline and task, every owner together */
	double mem_margin, time_margin, oom_factor, timeout_factor;
	double price_cpu_hour, price_gb_hour; /* 0: no price */
};

void tune_params_init(struct tune_params *p, const struct tracer_config *cfg);

/* A run from a job view or a summary (lib/jobview.c's shape): false when
 * it is not one to learn from (no task name, still running). */
bool tune_run_from_summary(const cJSON *view, struct tune_run *r);

/* The value at percentile pct (0-100, nearest rank) of n numbers (sorted
 * in place); 0 for none. */
double tune_percentile(double *v, size_t n, double pct);

/*
 * Group runs (any order) into steps, one per task name and owner (or
 * pipeline when p->shared), in the order of their names; compute each.
 * Steps with fewer than p->min_runs runs are left out.  *out: a new array
 * (free()) of *nout steps.  0, or -1 out of memory.
 */
int tune_steps(const struct tune_run *runs, size_t n, const struct tune_params *p,
	       struct tune_step **out, size_t *nout);

/* One step from its runs (all of the same key): statistics and request. */
void tune_step_compute(struct tune_step *s, const struct tune_run *runs, size_t n,
		       const struct tune_params *p);

/* Does this run belong to this step's key? */
bool tune_same_step(const struct tune_run *a, const struct tune_run *b, bool shared);

/* Round a memory request up: in steps of TRACER_MEM_REQUEST_STEP_MIB, at
 * least TRACER_MEM_REQUEST_MIN_MIB.  tune's requests and the summary's
 * recommendation (analysis.c) both: one rounding, one floor. */
uint64_t tune_round_mem(double bytes);

#endif
