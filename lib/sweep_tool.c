/*
 * sweep_tool.c - the datalake's query of `tracer sweep --by tool`
 * (sweep.h): a tool has no allocation, so each job's waste (as
 * sweep_sql works it out: the allocation once per node, over the job's
 * elapsed time) is shared among the tools that ran in it by their CPU
 * time in the job (SWEEP_TOOL_RULE); lib/sweep_acc.c folds the archive
 * with the same rule.
 *
 * Each job's row (sweep_jobs.c) carries its tools' names and CPU
 * seconds over its summaries (schema v8: the sink writes them into the
 * summary's row of job_use), so no join with tracer.tools is needed.  A
 * job of several summaries may name a tool more than once: its pairs are
 * sorted by name and each name's CPU seconds summed (the differences of
 * a running sum at the last pair of each name), so that every (job,
 * tool) is one row, as the archive's fold makes it.  A job without tools
 * keeps its waste under the tool '' (shown "-").  Written for ClickHouse
 * 18.16 (no WITH, no window functions, no lambda that captures a
 * column: each would copy the job's array once per element).
 */
#include "sweep.h"

#include <math.h>
#include <stdio.h>

#include "growbuf.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

int sweep_tool_sql(const struct sweep_query *q, const char *db, char *out, size_t outlen)
{
	struct growbuf b = {0};
	char rank[160];

	sweep_rank_sql(q, rank, sizeof(rank));
	growbuf_printf(
		&b,
		"SELECT g, toFloat64(count()) AS jobs, sum(tc) AS cpu_s,"
		" toFloat64(sum(bitAnd(j_lim, 1))) AS timeouts,"
		" toFloat64(sum(bitShiftRight(j_lim, 1))) AS ooms,"
		" sum(idle_cs) AS idle_core_s, sum(unused_bs) AS unused_mem_byte_s,"
		" sum(idle_gs) AS idle_gpu_s, toString(argMax(jh, rk)) AS worst_h, max(rk) AS worst_rank"
		/* per (job, tool): the tool's share of the job's waste */
		" FROM (SELECT jh, g, tc, j_lim,"
		"  if(j_tc > 0, tc / j_tc, 1 / j_n) AS part, j_idle * part AS idle_cs,"
		"  j_ub * part AS unused_bs, j_gs * part AS idle_gs, %s AS rk"
		/* per job: its tools, each name once with its CPU seconds */
		"  FROM (SELECT jh, j_lim, j_idle, j_ub, j_gs, tn, tcv, arraySum(tcv) AS j_tc,"
		"    length(tn) AS j_n"
		"   FROM (SELECT jh, j_lim, j_idle, j_ub, j_gs,"
		"     arrayMap(x -> x.1, st) AS ns, arrayCumSum(arrayMap(x -> x.2, st)) AS cum,"
		"     arrayMap((n, m) -> n != m, ns, arrayPushBack(arrayPopFront(ns), '\\0')) AS last,"
		"     arrayFilter((n, l) -> l, ns, last) AS tn, arrayFilter((c, l) -> l, cum, last) AS lc,"
		"     arrayMap((a, p) -> a - p, lc, arrayPushFront(arrayPopBack(lc), toFloat64(0))) AS tcv"
		"    FROM (SELECT jh, j_lim, greatest(j_cpus * j_wall - j_cpu_s, 0) AS j_idle,"
		"      j_unused * j_wall AS j_ub, j_gpus * j_wall AS j_gs,"
		"      arraySort(if(empty(j_t), [('', toFloat64(0))], j_t)) AS st"
		"     FROM ",
		rank);
	/* per job: what it wasted and its tools (sweep_jobs.c) */
	sweep_jobs_sql(q, db, "user", false, true, &b);
	growbuf_printf(&b, ")))  ARRAY JOIN tn AS g, tcv AS tc)"
			   " GROUP BY g ORDER BY ");
	if (q->price_cpu_hour > 0 || q->price_gb_hour > 0)
		growbuf_printf(&b, "sum(idle_cs) * %.17g / 3600 + sum(unused_bs) * %.17g / %.17g DESC,",
			       q->price_cpu_hour, q->price_gb_hour, 3600 * GIB);
	growbuf_printf(&b, " idle_core_s DESC, unused_mem_byte_s DESC, g LIMIT %d FORMAT JSONEachRow",
		       q->limit);
	return sweep_sql_copy(&b, out, outlen);
}
