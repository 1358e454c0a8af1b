/*
 * sweep.h - the cluster's waste, per group (user, account, partition,
 * pipeline, host or tool), ranked by what it cost: idle allocated core-hours,
 * unused memory GiB-hours, idle GPU-hours, jobs that ran into their limit
 * (TIMEOUT, OOM) and the worst job of each group.  `tracer sweep` and
 * tracerd's "sweep" request (daemon/archive.c) use it.
 *
 * Two sources, one set of rules (docs/sweep.md): the datalake, where
 * ClickHouse does the sums (sweep_sql: GROUP BY, never a fetch of every
 * summary), and the local archive, where the summaries are folded one at
 * a time (sweep_acc).  A job's allocation counts once per node: the
 * largest any of the node's steps reports, summed over its nodes, over
 * the job's elapsed time (its first start, or the scheduler's job start
 * when earlier, to its last end; a job of one summary: its own), as
 * lib/jobview.c rolls a job up.
 *   idle core-hours   allocated CPUs x elapsed - CPU time (at least 0)
 *   unused GiB-hours  per node (allocated - peak, at least 0) x elapsed
 *   idle GPU-hours    per node GPUs allocated and unused x elapsed
 * Only jobs with an allocation count for cores and memory (a `tracer run`
 * without one allocated nothing).  The cost is the hours times
 * price_cpu_hour and price_gb_hour (lib/cost.c's prices); without any
 * price, groups rank by idle core-hours, then unused GiB-hours.
 * By tool, a job's waste is shared among the tools that ran in it by
 * their CPU time in the job (sweep_tool.c, SWEEP_TOOL_RULE).
 * Nothing here prints.
 */
#ifndef TRACER_SWEEP_H
#define TRACER_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "config.h"
#include "defaults.h"

enum sweep_by { SWEEP_BY_USER, SWEEP_BY_ACCOUNT, SWEEP_BY_PARTITION, SWEEP_BY_PIPELINE,
		SWEEP_BY_HOST, SWEEP_BY_TOOL };

/* How --by tool shares a job's waste among its tools (the answer's
 * "attribution", docs/sweep.md). */
#define SWEEP_TOOL_RULE                                                                          \
	"a job's idle core-hours, unused GiB-hours and idle GPU-hours are shared among the "    \
	"tools that ran in it in proportion to each tool's CPU time in the job (equally when "  \
	"its tools used none); a job with no tool recorded counts under \"-\""


/* What to sweep. */
struct sweep_query {
	enum sweep_by by;
	double from_s;         /* jobs that ended at or after (epoch seconds) */
	double since_s;        /* the window's length, for the answer */
	int limit;             /* the top N groups (1..TRACER_SWEEP_LIMIT_MAX) */
	long uid;              /* only this user's jobs; -1: every user's */
	double price_cpu_hour, price_gb_hour; /* 0: no price */
};

/* One group's sums. */
struct sweep_row {
	char *key;
	uint64_t jobs, timeouts, ooms;
	double idle_core_s, unused_mem_byte_s, idle_gpu_s;
	double cpu_s;          /* by tool: the tool's CPU time */
	char *worst;           /* the job that wasted most */
	double worst_rank;
};

/* "user" -> SWEEP_BY_USER: 0, or -1 for a name it does not know. */
int sweep_by_parse(const char *name, enum sweep_by *by);
const char *sweep_by_name(enum sweep_by by);

/* The query's prices from tracer.conf. */
void sweep_query_prices(struct sweep_query *q, const struct tracer_config *cfg);

/* What ranks a job or a group: the cost of its idle cores and unused
 * memory, else core-seconds plus GiB-seconds when no price is set. */
double sweep_rank(const struct sweep_query *q, double idle_core_s, double unused_mem_byte_s);

/*
 * The SQL of a sweep over DB's tables (ClickHouse 18.16 and later):
 * JSONEachRow, one line per group, ranked, at most q->limit.  0, or -1
 * when it does not fit in out.
 */
int sweep_sql(const struct sweep_query *q, const char *db, char *out, size_t outlen);

/* sweep_tool.c: the same for --by tool, over DB's tracer.jobs and
 * the tools of tracer.job_use (schema 8): each job's waste as
 * sweep_sql's, shared among its tools (SWEEP_TOOL_RULE).  0, or -1 when it does not fit in out. */
int sweep_tool_sql(const struct sweep_query *q, const char *db, char *out, size_t outlen);

/*
 * sweep_jobs.c: appends to b the rows of one job each of the window (a
 * parenthesized subquery over DB.job_use, schema v8): jh, j_gh (the
 * cityHash64 of column g), j_wall, j_lim and j_cpus, j_cpu_s, j_unused,
 * j_gpus, with tools also j_t (the job's tools as (name, CPU seconds)
 * over its summaries, a name maybe more than once); by host one row per
 * (job, node) with h, c, u, m, gi (the host's hash, CPUs, CPU time,
 * unused bytes, idle GPUs) instead.
 */
struct growbuf;
void sweep_jobs_sql(const struct sweep_query *q, const char *db, const char *g, bool host,
		    bool tools, struct growbuf *b);
/* b's text into out and b freed: 0, -1 when it does not fit (or b is
 * out of memory) */
int sweep_sql_copy(struct growbuf *b, char *out, size_t outlen);

/* A job's (or a tool's part of it) rank as SQL over the columns idle_cs
 * and unused_bs; sweep_rank in C. */
void sweep_rank_sql(const struct sweep_query *q, char *out, size_t len);

/* The sweep from the datalake: the answer object (sweep_answer), NULL
 * with err. */
cJSON *sweep_from_datalake(const struct tracer_config *cfg, const struct sweep_query *q,
			   char *err, size_t errlen);

/* ---- the local archive: summaries folded one at a time ---- */
struct sweep_acc;
struct sweep_acc *sweep_acc_new(const struct sweep_query *q);
/* Fold one summary in (one outside the window, of another user or a
 * host record is skipped; a new job once TRACER_SWEEP_JOBS_MAX are held
 * too, counted by sweep_acc_full): 0, -1 when out of memory. */
int sweep_acc_add(struct sweep_acc *a, const cJSON *summary);
/* Were jobs left out because TRACER_SWEEP_JOBS_MAX were held? */
bool sweep_acc_full(const struct sweep_acc *a);
/* The answer object (sweep_answer); NULL when out of memory. */
cJSON *sweep_acc_answer(struct sweep_acc *a);
void sweep_acc_free(struct sweep_acc *a);

/* ---- sweep_idle.c: the hosts that sat idle (idle_host records), per
 * host, the part of each period inside the window; site-level, so
 * sweep_run adds them for a sweep of every user's jobs only ---- */
struct sweep_idle;
struct sweep_idle *sweep_idle_new(const struct sweep_query *q);
/* Fold one idle_host record in (one that ended before the window is
 * skipped; a new host once TRACER_SWEEP_HOSTS_MAX are held too, counted
 * by sweep_idle_full): 0, -1 when out of memory. */
int sweep_idle_add(struct sweep_idle *a, const cJSON *rec);
bool sweep_idle_full(const struct sweep_idle *a);
/* The SQL over DB's tracer.idle_hosts (schema v5): one line per host. */
int sweep_idle_sql(const struct sweep_query *q, const char *db, char *out, size_t outlen);
/* The datalake's hosts into a: 0, or -1 with err. */
int sweep_idle_from_datalake(struct sweep_idle *a, const struct tracer_config *cfg,
			     const struct sweep_query *q, char *err, size_t errlen);
/* The answer's "idle_hosts" object (docs/sweep.md): totals and the
 * q->limit hosts idle longest.  NULL when out of memory. */
cJSON *sweep_idle_answer(struct sweep_idle *a);
/* A host's idle hours (0 when none): --by host's rows. */
double sweep_idle_hours_of(const struct sweep_idle *a, const char *host);
void sweep_idle_free(struct sweep_idle *a);

/* sweep_source.c: the sweep from where cfg says summaries are: the
 * datalake (datalake = clickhouse) or the archive file (cfg->file_path
 * and its rotated files), reading stopped at deadline_ns (monotonic, 0:
 * none) or when *cancel turns non-zero (may be NULL).  The answer, or
 * NULL with err.  A sweep of every user's jobs (q->uid < 0: root,
 * admin_group) also has the idle hosts from the same source. */
cJSON *sweep_run(const struct tracer_config *cfg, const struct sweep_query *q,
		 uint64_t deadline_ns, const _Atomic int *cancel, char *err, size_t errlen);

/*
 * The answer (docs/sweep.md): the rows ranked by cost (then idle
 * core-hours), the top q->limit, with hours and costs.  source:
 * "datalake" or "archive".  Takes the rows' strings.  NULL when out of
 * memory.
 */
cJSON *sweep_answer(const struct sweep_query *q, const char *source, struct sweep_row *rows,
		    size_t n);

#endif
