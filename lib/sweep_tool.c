/*
 * sweep_tool.c - the datalake's query of `tracer sweep --by tool`
 * (sweep.h): a tool has no allocation, so each job's waste (as
 * sweep_sql works it out: the allocation once per node, over the job's
 * elapsed time) is shared among the tools that ran in it by their CPU
 * time in the job (SWEEP_TOOL_RULE); lib/sweep_acc.c folds the archive
 * with the same rule.
 *
 * Two sides, joined by job: the jobs' waste from tracer.jobs, and per
 * job the tools' names and CPU seconds from tracer.tools (summed over
 * the job's steps and nodes), which carries no scheduler or job uid, so
 * its rows find their job through their summary_id.  A job without tool
 * rows keeps its waste under the tool '' (shown "-").  Written for
 * ClickHouse 18.16 (no WITH, no window functions, the old JOIN syntax);
 * a row a retried delivery left twice counts once (LIMIT 1 BY its id,
 * not FINAL).  Kept apart from sweep_sql so that each reads its tables
 * of schema 3 on its own.
 */
#include "sweep.h"

#include <math.h>
#include <stdio.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

/* one job's rows of DB.jobs in the window, a delivery left twice once */
#define JOB_ROWS                                                                                \
	" FROM %s.jobs PREWHERE end >= toDateTime(%.0f) WHERE scheduler != 'host'%s"             \
	" LIMIT 1 BY summary_id"

int sweep_tool_sql(const struct sweep_query *q, const char *db, char *out, size_t outlen)
{
	char owner[48] = "", rank[160], order[200];
	double from = floor(q->from_s);
	int n;

	if (q->uid >= 0)
		snprintf(owner, sizeof(owner), " AND uid = %ld", q->uid);
	sweep_rank_sql(q, rank, sizeof(rank));
	if (q->price_cpu_hour > 0 || q->price_gb_hour > 0)
		snprintf(order, sizeof(order),
			 "sum(idle_cs) * %.17g / 3600 + sum(unused_bs) * %.17g / %.17g DESC,",
			 q->price_cpu_hour, q->price_gb_hour, 3600 * GIB);
	else
		order[0] = '\0';
	n = snprintf(
		out, outlen,
		"SELECT g, toFloat64(count()) AS jobs, sum(tc) AS cpu_s,"
		" toFloat64(sum(j_to)) AS timeouts, toFloat64(sum(j_oom)) AS ooms,"
		" sum(idle_cs) AS idle_core_s, sum(unused_bs) AS unused_mem_byte_s,"
		" sum(idle_gs) AS idle_gpu_s, argMax(jk, rk) AS worst, max(rk) AS worst_rank"
		/* per (job, tool): the tool's share of the job's waste */
		" FROM (SELECT jk, g, tc, j_to, j_oom,"
		"  if(j_tc > 0, tc / j_tc, 1 / j_n) AS sh, j_idle * sh AS idle_cs,"
		"  j_unused * sh AS unused_bs, j_gs * sh AS idle_gs, %s AS rk"
		"  FROM (SELECT jk, j_to, j_oom, j_idle, j_unused, j_gs,"
		"    if(empty(tns), [''], tns) AS tn, if(empty(tns), [toFloat64(0)], tcs) AS tcv,"
		"    arraySum(tcv) AS j_tc, length(tn) AS j_n"
		/* per job: what it wasted (sweep_sql's rules) */
		"   FROM (SELECT any(jk) AS jk, jh,"
		"     greatest(toFloat64(max(n_end)) - toFloat64(if(sum(n_steps) > 1, min(n_start),"
		"       min(n_own_start))), 0) / 1e9 AS j_wall,"
		"     greatest(sum(n_cpus) * j_wall - sum(n_cpu_s), 0) AS j_idle,"
		"     sum(n_unused) * j_wall AS j_unused, sum(n_gpus) * j_wall AS j_gs,"
		"     max(n_to) AS j_to, max(n_oom) AS j_oom"
		/* per (job, node): the allocation once, whatever the steps */
		"    FROM (SELECT any(jh0) AS jh, any(jk0) AS jk,"
		"      min(if(toUInt32(job_start) > 0,"
		"        least(start_ns, toUInt64(toUInt32(job_start)) * 1000000000), start_ns)) AS n_start,"
		"      min(start_ns) AS n_own_start, count() AS n_steps,"
		"      max(end_ns) AS n_end, toFloat64(max(alloc_cpus)) AS n_cpus,"
		"      if(max(alloc_cpus) > 0, sum(cpu_s), 0) AS n_cpu_s,"
		"      if(max(alloc_mem_bytes) > max(mem_peak_bytes),"
		"        toFloat64(max(alloc_mem_bytes) - max(mem_peak_bytes)), 0) AS n_unused,"
		"      toFloat64(max(gpus_idle)) AS n_gpus,"
		"      max(state = 'TIMEOUT') AS n_to,"
		"      max(state = 'OUT_OF_MEMORY' OR oom_kills > 0) AS n_oom"
		"     FROM (SELECT summary_id, if(job_id != '', job_id, job) AS jk0,"
		"       cityHash64(scheduler, cluster, jk0) AS jh0, cityHash64(jh0, host) AS nh0,"
		"       job_start, start_ns, end_ns, alloc_cpus, cpu_s, alloc_mem_bytes,"
		"       mem_peak_bytes, gpus_idle, state, oom_kills" JOB_ROWS ")"
		"     GROUP BY nh0)"
		"    GROUP BY jh)"
		/* per job: its tools' names and CPU seconds, found by summary */
		"   ANY LEFT JOIN (SELECT jh, groupArray(t) AS tns, groupArray(tc) AS tcs"
		"    FROM (SELECT jh, t, sum(t_cpu) AS tc"
		"     FROM (SELECT summary_id, toString(tool) AS t, path, cpu_s AS t_cpu"
		"      FROM %s.tools PREWHERE end >= toDateTime(%.0f)"
		"      LIMIT 1 BY summary_id, t, path)"
		"     ANY INNER JOIN (SELECT summary_id,"
		"       cityHash64(scheduler, cluster, if(job_id != '', job_id, job)) AS jh" JOB_ROWS ")"
		"     USING summary_id"
		"     GROUP BY jh, t)"
		"    GROUP BY jh)"
		"   USING jh)"
		"  ARRAY JOIN tn AS g, tcv AS tc)"
		" GROUP BY g ORDER BY %s idle_core_s DESC, unused_mem_byte_s DESC, g"
		" LIMIT %d FORMAT JSONEachRow",
		rank, db, from, owner, db, from, db, from, owner, order, q->limit);
	return n > 0 && (size_t)n < outlen ? 0 : -1;
}
