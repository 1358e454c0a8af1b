/*
 * sweep_tool.c - the datalake's query of `tracer sweep --by tool`
 * (sweep.h): a tool has no allocation, so each job's waste (as
 * sweep_sql works it out: the allocation once per node, over the job's
 * elapsed time) is shared among the tools that ran in it by their CPU
 * time in the job (SWEEP_TOOL_RULE); lib/sweep_acc.c folds the archive
 * with the same rule.
 *
 * Two sides, joined by job: the jobs' waste (sweep_jobs.c, over
 * tracer.job_use), and per job the tools' names and CPU seconds from
 * tracer.tools (summed over the job's steps and nodes), which carries no
 * scheduler or job uid, so its rows find their job through job_use by
 * their summary's hash.  A job without tool rows keeps its waste under
 * the tool '' (shown "-").  Written for ClickHouse 18.16 (no WITH, no
 * window functions, the old JOIN syntax); a tool row a retried delivery
 * left twice counts once (LIMIT 1 BY its id, not FINAL).
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
	double from = floor(q->from_s);

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
		"  FROM (SELECT jh, j_lim, greatest(j_cpus * j_wall - j_cpu_s, 0) AS j_idle,"
		"    j_unused * j_wall AS j_ub, j_gpus * j_wall AS j_gs,"
		"    if(empty(tns), [''], tns) AS tn, if(empty(tns), [toFloat64(0)], tcs) AS tcv,"
		"    arraySum(tcv) AS j_tc, length(tn) AS j_n"
		"   FROM ",
		rank);
	/* per job: what it wasted (sweep_jobs.c) */
	sweep_jobs_sql(q, db, "user", false, &b);
	/* per job: its tools' names and CPU seconds, found by summary hash */
	growbuf_printf(&b,
		       "   ANY LEFT JOIN (SELECT jh, groupArray(t) AS tns, groupArray(tc) AS tcs"
		       "    FROM (SELECT jh, t, sum(t_cpu) AS tc"
		       "     FROM (SELECT cityHash64(summary_id) AS sh, toString(tool) AS t, path,"
		       "       cpu_s AS t_cpu FROM %s.tools PREWHERE end >= toDateTime(%.0f)"
		       "      LIMIT 1 BY summary_id, t, path)"
		       "     ANY INNER JOIN (SELECT sh, jh FROM %s.job_use"
		       "      PREWHERE end >= toDateTime(%.0f)%s",
		       db, from, db, from, q->uid >= 0 ? " WHERE uid = " : "");
	if (q->uid >= 0)
		growbuf_printf(&b, "%ld", q->uid);
	growbuf_printf(&b, ") USING sh GROUP BY jh, t) GROUP BY jh) USING jh)"
			   "  ARRAY JOIN tn AS g, tcv AS tc)"
			   " GROUP BY g ORDER BY ");
	if (q->price_cpu_hour > 0 || q->price_gb_hour > 0)
		growbuf_printf(&b, "sum(idle_cs) * %.17g / 3600 + sum(unused_bs) * %.17g / %.17g DESC,",
			       q->price_cpu_hour, q->price_gb_hour, 3600 * GIB);
	growbuf_printf(&b, " idle_core_s DESC, unused_mem_byte_s DESC, g LIMIT %d FORMAT JSONEachRow",
		       q->limit);
	return sweep_sql_copy(&b, out, outlen);
}
