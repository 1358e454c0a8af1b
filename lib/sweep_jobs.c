/*
 * sweep_jobs.c - the datalake's rows of one job each for `tracer sweep`
 * (sweep.h): what every job of the window wasted, the part of the SQL
 * that sweep_sql and sweep_tool_sql share.
 *
 * Over tracer.job_use of schema v8, whose rows carry what each summary
 * adds to its job's totals on its node (inc_*, lib/jobinc.c): the sum of
 * a node's rows is its allocation, CPU time, unused memory and idle
 * GPUs, so no GROUP BY per (job, node) is needed.  Only rows with
 * tools_kind > 0 are read: `tracer datalake migrate` to version 8 gave
 * every older row (tools_kind 0) a twin with its tools, and deletes the
 * older one in the background (008_v8.sql).  Three parts, UNION ALL:
 *   - the rows of a job known to be one summary (inc_single): each is
 *     its job, read with no GROUP BY at all;
 *   - the other rows with increments: one GROUP BY per job, for its
 *     elapsed time (first start to last end) and the sums;
 *   - the jobs with any row without increments (inc_kind 0: an older
 *     tracer, or tracerd unsure it saw the job's earlier summaries):
 *     folded from their rows per (job, node), then per job, as schema v4
 *     did, so that a datalake of old and new rows counts both exactly.
 * For --by tool, each job's row also carries j_t, its tools' names and
 * CPU seconds over its summaries (a name may come more than once: the
 * caller sums them).  By host, a job's nodes stay apart: a row per (job, node), each node's
 * rows summed first (h, c, u, m, gi: the host's hash, its CPUs, CPU
 * time, unused bytes and idle GPUs), a job of one summary its row.  A row a
 * retried delivery left twice is identical to the first: LIMIT 1 BY its
 * summary's hash in the grouped parts; the rows of one summary are read
 * as they are, FINAL doubling the query's time, since the ClickHouse
 * sink does not insert again a summary whose row is there
 * (sink_clickhouse_seen.c; docs/sweep.md says what stays inexact).  Written for
 * ClickHouse 18.16: no WITH, no window functions, the types of the
 * UNION ALL's parts alike.
 */
#include "sweep.h"

#include <math.h>
#include <stdio.h>

#include "growbuf.h"

/* the window's rows of version 8, a condition to follow with AND */
static void window(struct growbuf *b, const struct sweep_query *q, const char *db)
{
	growbuf_printf(b, " FROM %s.job_use PREWHERE end >= toDateTime(%.0f) WHERE tools_kind > 0",
		       db, floor(q->from_s));
}

/* a row's tools as (name, CPU seconds) pairs */
#define ROW_TOOLS "arrayMap((n, c) -> (n, c), tool_names, tool_cpu_s)"


static void owner(struct growbuf *b, const struct sweep_query *q)
{
	if (q->uid >= 0)
		growbuf_printf(b, " AND uid = %ld", q->uid);
}

/* the jobs of the window with a row without increments */
static void old_jobs(struct growbuf *b, const struct sweep_query *q, const char *db)
{
	growbuf_printf(b, "(SELECT jh");
	window(b, q, db);
	growbuf_printf(b, " AND inc_kind = 0");
	owner(b, q);
	growbuf_printf(b, ")");
}

/* a job known to be one summary: its row */
static void single_jobs(struct growbuf *b, const struct sweep_query *q, const char *db,
			const char *g, bool host, bool tools)
{
	/* the group's hash as plain UInt64 (18.16 keeps a LowCardinality
	 * column's hash LowCardinality, which UNION ALL refuses to mix) */
	growbuf_printf(b, "SELECT jh, cityHash64(CAST(%s AS String)) AS j_gh,"
			  " greatest(toFloat64(end_ns) - toFloat64(start_ns), 0) / 1e9 AS j_wall,"
			  " limits AS j_lim,", g);
	if (host) /* its one node */
		growbuf_printf(b, " j_gh AS h, toFloat64(inc_cpus) AS c, inc_cpu_s AS u,"
				  " toFloat64(inc_unused_mem_bytes) AS m,"
				  " toFloat64(inc_gpus_idle) AS gi");
	else
		growbuf_printf(b, " toFloat64(inc_cpus) AS j_cpus, inc_cpu_s AS j_cpu_s,"
				  " toFloat64(inc_unused_mem_bytes) AS j_unused,"
				  " toFloat64(inc_gpus_idle) AS j_gpus");
	if (tools)
		growbuf_printf(b, ", " ROW_TOOLS " AS j_t");
	/* no FINAL: it would double the query's time (docs/sweep.md) */
	window(b, q, db);
	growbuf_printf(b, " AND inc_single = 1 AND inc_kind > 0");
	owner(b, q);
	growbuf_printf(b, " AND jh NOT IN ");
	old_jobs(b, q, db);
}

/* per job over its nodes' rows n_*: the elapsed time (a job of one
 * summary: its own start), the limits, the sums or the node arrays */
static void per_job(struct growbuf *b, bool host, bool tools)
{
	growbuf_printf(b, "SELECT jh, any(n_gh) AS j_gh,"
			  " greatest(toFloat64(max(n_end)) - toFloat64(if(sum(n_steps) > 1, min(n_first),"
			  " min(n_start))), 0) / 1e9 AS j_wall, groupBitOr(n_lim) AS j_lim,");
	if (host)
		growbuf_printf(b, " groupArray(n_gh) AS hs, groupArray(n_cpus) AS hc,"
				  " groupArray(n_cpu_s) AS hu, groupArray(n_unused) AS hm,"
				  " groupArray(n_gpus) AS hg");
	else
		growbuf_printf(b, " sum(n_cpus) AS j_cpus, sum(n_cpu_s) AS j_cpu_s,"
				  " sum(n_unused) AS j_unused, sum(n_gpus) AS j_gpus");
	if (tools)
		growbuf_printf(b, ", groupArrayArray(n_t) AS j_t");
}

/* the rows of the jobs with increments and several summaries, each
 * once: by host per (job, node) first, else per job at once */
static void summed_jobs(struct growbuf *b, const struct sweep_query *q, const char *db,
			const char *g, bool host, bool tools)
{
	if (host)
		per_job(b, true, false);
	if (host)
		growbuf_printf(b, " FROM (SELECT nh, any(jh) AS jh, any(gh0) AS n_gh,"
				  " min(first_ns) AS n_first, min(start_ns) AS n_start,"
				  " count() AS n_steps, max(end_ns) AS n_end, groupBitOr(limits) AS n_lim,"
				  " toFloat64(sum(inc_cpus)) AS n_cpus, sum(inc_cpu_s) AS n_cpu_s,"
				  " toFloat64(sum(inc_unused_mem_bytes)) AS n_unused,"
				  " toFloat64(sum(inc_gpus_idle)) AS n_gpus");
	else
		growbuf_printf(b, "SELECT jh, any(gh0) AS j_gh, greatest(toFloat64(max(end_ns))"
				  " - toFloat64(if(count() > 1, min(first_ns), min(start_ns))), 0) / 1e9"
				  " AS j_wall, groupBitOr(limits) AS j_lim,"
				  " toFloat64(sum(inc_cpus)) AS j_cpus, sum(inc_cpu_s) AS j_cpu_s,"
				  " toFloat64(sum(inc_unused_mem_bytes)) AS j_unused,"
				  " toFloat64(sum(inc_gpus_idle)) AS j_gpus%s",
			       tools ? ", groupArrayArray(" ROW_TOOLS ") AS j_t" : "");
	growbuf_printf(b, " FROM (SELECT jh, nh, sh, cityHash64(%s) AS gh0, first_ns, start_ns, end_ns,"
			  " limits, inc_cpus, inc_cpu_s, inc_unused_mem_bytes, inc_gpus_idle%s", g,
		       tools ? ", tool_names, tool_cpu_s" : "");
	window(b, q, db);
	growbuf_printf(b, " AND inc_single = 0 AND inc_kind > 0");
	owner(b, q);
	growbuf_printf(b, " AND jh NOT IN ");
	old_jobs(b, q, db);
	growbuf_printf(b, " LIMIT 1 BY sh) GROUP BY %s", host ? "nh) GROUP BY jh" : "jh");
}

/* the jobs with a row without increments, folded from their rows */
static void folded_jobs(struct growbuf *b, const struct sweep_query *q, const char *db,
			const char *g, bool host, bool tools)
{
	per_job(b, host, tools);
	growbuf_printf(b, " FROM (SELECT nh, any(jh) AS jh, any(gh0) AS n_gh, min(first_ns) AS n_first,"
			  " min(start_ns) AS n_start, count() AS n_steps, max(end_ns) AS n_end,"
			  " toFloat64(max(alloc_cpus)) AS n_cpus,"
			  " toFloat64(if(max(alloc_cpus) > 0, sum(cpu_s), 0)) AS n_cpu_s,"
			  " if(max(alloc_mem_bytes) > max(mem_peak_bytes),"
			  " toFloat64(max(alloc_mem_bytes) - max(mem_peak_bytes)), 0) AS n_unused,"
			  " toFloat64(max(gpus_idle)) AS n_gpus, groupBitOr(limits) AS n_lim%s"
			  " FROM (SELECT jh, nh, sh, cityHash64(%s) AS gh0, first_ns, start_ns, end_ns,"
			  " alloc_cpus, cpu_s, alloc_mem_bytes, mem_peak_bytes, gpus_idle, limits%s",
		       tools ? ", groupArrayArray(" ROW_TOOLS ") AS n_t" : "", g,
		       tools ? ", tool_names, tool_cpu_s" : "");
	window(b, q, db);
	growbuf_printf(b, " AND jh IN ");
	old_jobs(b, q, db);
	owner(b, q);
	growbuf_printf(b, " LIMIT 1 BY sh) GROUP BY nh) GROUP BY jh");
}

void sweep_jobs_sql(const struct sweep_query *q, const char *db, const char *g, bool host,
		    bool tools, struct growbuf *b)
{
	const char *cols = host	 ? "jh, j_gh, j_wall, j_lim, h, c, u, m, gi"
			   : tools ? "jh, j_gh, j_wall, j_lim, j_cpus, j_cpu_s, j_unused, j_gpus, j_t"
				   : "jh, j_gh, j_wall, j_lim, j_cpus, j_cpu_s, j_unused, j_gpus";
	/* by host, a grouped job's nodes spread out again, one row each */
	const char *spread = host ? " ARRAY JOIN hs AS h, hc AS c, hu AS u, hm AS m, hg AS gi" : "";

	growbuf_printf(b, "(SELECT %s FROM (", cols);
	tools = tools && !host;
	single_jobs(b, q, db, g, host, tools);
	growbuf_printf(b, ") UNION ALL SELECT %s FROM (", cols);
	summed_jobs(b, q, db, g, host, tools);
	growbuf_printf(b, ")%s UNION ALL SELECT %s FROM (", spread, cols);
	folded_jobs(b, q, db, g, host, tools);
	growbuf_printf(b, ")%s)", spread);
}
