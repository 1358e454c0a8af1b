/*
 * tune_read.c - a pipeline's jobs from ClickHouse, one row each, for
 * `tracer tune` (tune_read.h).
 *
 * The query reads about a dozen narrow columns of tracer.jobs, filtered
 * by PREWHERE on the selection's columns (pipeline, end_ns, uid), and
 * rolls the summaries of a job up on the server: a Slurm job's steps
 * and nodes by (scheduler, cluster, job_id), anything else by its job
 * uid, as lib/jobview.c groups them.  Per job: the worst state, the
 * per-node allocation (the largest a summary reports), the largest node
 * peak, first start to last end, CPU and bytes read summed, and the
 * sampled concurrency p95 (conc_p95, schema v4): the largest of a node's
 * steps, summed over the nodes.  The CPUs a job needed follow the
 * archive's rule (lib/tune.c), so both sources request the same.  A
 * batch delivered twice folds by summary_id first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datalake_read.h"
#include "datalake_sql.h"
#include "growbuf.h"
#include "tune_read.h"

int tune_read_sql(const struct tracer_config *cfg, const struct job_filter *f,
		  const char *pipeline, long max, struct growbuf *sql, char *err, size_t errlen)
{
	const char *db = datalake_database(cfg, err, errlen);

	if (!db)
		return -1;
	/* aliases never a column's name: ClickHouse would put the aggregate in
	 * place of the column inside it (as job_view's n_ names avoid).  Per
	 * (job, node) first, as lib/jobview.c rolls a job up: a node's
	 * concurrency is the largest of its steps', the job's their sum */
	growbuf_printf(sql,
		       "SELECT any(n_task) AS t_task, any(n_pipeline) AS t_pipeline,"
		       " any(n_user) AS t_user, any(n_uid) AS t_uid, max(n_end) AS t_end,"
		       " min(n_start) AS t_start, max(n_worst) AS t_worst,"
		       " max(n_alloc_cpus) AS t_alloc_cpus, max(n_alloc_mem) AS t_alloc_mem,"
		       " max(n_limit) AS t_limit, max(n_peak) AS t_peak, sum(n_cpu_s) AS t_cpu_s,"
		       " sum(n_input) AS t_input, count() AS t_nodes, sum(n_conc) AS t_conc,"
		       " sum(n_steps) AS t_steps, max(n_fargate) AS t_fargate"
		       " FROM (SELECT k_sched, k_cluster, k_job, any(task_name) AS n_task,"
		       " any(pipeline) AS n_pipeline, any(user) AS n_user, any(uid) AS n_uid,"
		       " max(end_ns) AS n_end, min(start_ns) AS n_start,"
		       " max(multiIf(state = 'OUT_OF_MEMORY', 5, state = 'TIMEOUT', 4,"
		       " state = 'FAILED', 3, state = 'CANCELLED', 2, state = 'COMPLETED', 1, 0))"
		       " AS n_worst, max(alloc_cpus) AS n_alloc_cpus, max(alloc_mem_bytes) AS n_alloc_mem,"
		       " max(ifNull(time_limit_s, 0)) AS n_limit, max(mem_peak_bytes) AS n_peak,"
		       " sum(cpu_s) AS n_cpu_s, sum(rchar) AS n_input, max(conc_p95) AS n_conc,"
		       " count() AS n_steps,"
		       " max(visitParamExtractString(labels, 'ecs.launch_type') = 'FARGATE') AS n_fargate"
		       " FROM (SELECT summary_id, scheduler AS k_sched, cluster AS k_cluster,"
		       " if(job_id = '', job, job_id) AS k_job, task_name, pipeline, user, uid,"
		       " start_ns, end_ns, state, alloc_cpus, alloc_mem_bytes, time_limit_s,"
		       " mem_peak_bytes, cpu_s, rchar, host, conc_p95, labels FROM %s.jobs PREWHERE ",
		       db);
	if (datalake_sql_where(f, sql) != 0)
		goto bad;
	if (pipeline) {
		growbuf_printf(sql, " AND pipeline = ");
		if (datalake_sql_literal(sql, pipeline, strlen(pipeline)) != 0)
			goto bad;
	}
	growbuf_printf(sql, " AND task_name != '' LIMIT 1 BY summary_id)"
		       " GROUP BY k_sched, k_cluster, k_job, host)"
		       " GROUP BY k_sched, k_cluster, k_job"
		       " ORDER BY t_end DESC LIMIT %ld FORMAT JSONEachRow", max);
	if (sql->oom) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "a filter value holds a control character");
	return -1;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (cJSON_IsNumber(v))
		return v->valuedouble;
	/* 64-bit integers come quoted */
	return cJSON_IsString(v) ? strtod(v->valuestring, NULL) : 0;
}

static void str(char *dst, size_t len, const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	snprintf(dst, len, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

double tune_read_cpus(double conc, double steps, double cpu_s, double wall_s, double nodes)
{
	double mean = wall_s > 0 ? ceil(cpu_s / wall_s / nodes - 0.05) : 1, need = conc;

	/* several summaries: the roll-up's request (lib/analysis.c: the
	 * concurrency, at least the mean use), per node as lib/tune.c takes
	 * a roll-up's */
	if (steps > 1) {
		double all = wall_s > 0 ? ceil(cpu_s / wall_s - 0.05) : 1;

		need = ceil((all > conc ? all : conc < 1 ? 1 : conc) / nodes);
	}
	if (mean > need)
		need = mean;
	return need < 1 ? 1 : need;
}

bool tune_read_obj(const cJSON *o, struct tune_run *r)
{
	int worst = (int)num(o, "t_worst");
	double nodes = num(o, "t_nodes"), start;

	memset(r, 0, sizeof(*r));
	if (!cJSON_IsObject(o))
		return false;
	str(r->task, sizeof(r->task), o, "t_task");
	str(r->pipeline, sizeof(r->pipeline), o, "t_pipeline");
	str(r->user, sizeof(r->user), o, "t_user");
	r->uid = (int64_t)num(o, "t_uid");
	r->end_ns = (int64_t)num(o, "t_end");
	start = num(o, "t_start");
	r->wall_s = r->end_ns > start ? ((double)r->end_ns - start) / 1e9 : 0;
	/* the worst state, ranked as jobview_state_rank */
	switch (worst) {
	case 1: r->end = TUNE_OK; break;
	case 3: r->end = TUNE_FAILED; break;
	case 4: r->end = TUNE_TIMEOUT; break;
	case 5: r->end = TUNE_OOM; break;
	default: r->end = TUNE_OTHER; break;
	}
	r->alloc_cpus = num(o, "t_alloc_cpus");
	r->alloc_mem = (uint64_t)num(o, "t_alloc_mem");
	r->time_limit_s = num(o, "t_limit");
	r->peak = (uint64_t)num(o, "t_peak");
	r->cpu_s = num(o, "t_cpu_s");
	r->input_bytes = (uint64_t)num(o, "t_input");
	r->fargate = num(o, "t_fargate") > 0;
	if (nodes < 1)
		nodes = 1;
	r->cpus_needed = tune_read_cpus(num(o, "t_conc"), num(o, "t_steps"), r->cpu_s, r->wall_s,
					nodes);
	return r->task[0] != '\0';
}

bool tune_read_row(const char *line, size_t len, struct tune_run *r)
{
	cJSON *o = cJSON_ParseWithLength(line, len);
	bool ok = tune_read_obj(o, r);

	cJSON_Delete(o);
	return ok;
}

int tune_read_lines(const struct tracer_config *cfg, const struct job_filter *f,
		    const char *pipeline, long max, datalake_each_fn each, void *ctx, char *err,
		    size_t errlen)
{
	struct growbuf sql = {0};
	char *body = NULL, *p, *end;
	size_t len = 0;
	int rc = -1;

	if (tune_read_sql(cfg, f, pipeline, max, &sql, err, errlen) != 0)
		goto out;
	if (datalake_query(cfg, sql.p, &body, &len, err, errlen) != 0) {
		/* UNKNOWN_IDENTIFIER: a datalake before version 4 has no conc_p95 */
		if (strstr(err, "conc_p95") && (strstr(err, "Code: 47,") || strstr(err, "Code: 47.")))
			snprintf(err, errlen, "the datalake has no column conc_p95 (schema version 4): "
				 "run tracer datalake migrate");
		goto out;
	}
	rc = 0;
	for (p = body, end = body + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 0 && each(ctx, p, n) != 0)
			break;
		p += n + 1;
	}
out:
	growbuf_free(&sql);
	free(body);
	return rc;
}

struct adapter {
	tune_read_fn each;
	void *ctx;
	int rc;
};

static int one_line(void *ctx, const char *line, size_t len)
{
	struct adapter *a = ctx;
	struct tune_run r;

	if (!tune_read_row(line, len, &r))
		return 0;
	a->rc = a->each(a->ctx, &r);
	return a->rc;
}

int tune_read_datalake(const struct tracer_config *cfg, const struct job_filter *f,
		       const char *pipeline, long max, tune_read_fn each, void *ctx, char *err,
		       size_t errlen)
{
	struct adapter a = {each, ctx, 0};

	if (tune_read_lines(cfg, f, pipeline, max, one_line, &a, err, errlen) != 0)
		return -1;
	if (a.rc != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}
