/*
 * sweep.c - the cluster's waste per group from the datalake, summed by
 * ClickHouse, and the answer both sources share (sweep.h).
 *
 * The query has three levels, as tracer.job_view does: per (job, node)
 * the largest allocation any step reports and the node's CPU time and
 * peak; per job the elapsed time and what it wasted; per group the sums.
 * A job of one summary is its own view (lib/jobview.c): its elapsed time
 * is its own; from several, it starts at the scheduler's job start when
 * that is earlier than the first step.
 * By host, each job's nodes are spread out again (ARRAY JOIN) so that a
 * node's share stays with its host.  Written for ClickHouse 18.16: no
 * WITH clauses, no window functions; a row a retried delivery left twice
 * counts once (LIMIT 1 BY summary_id).
 */
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datalake_read.h"
#include "defaults.h"
#include "jsonutil.h"
#include "sink.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static const char *const by_names[] = {"user", "account", "partition", "pipeline", "host",
					     "tool"};

int sweep_by_parse(const char *name, enum sweep_by *by)
{
	for (size_t i = 0; i < sizeof(by_names) / sizeof(by_names[0]); i++)
		if (name && strcmp(name, by_names[i]) == 0) {
			*by = (enum sweep_by)i;
			return 0;
		}
	return -1;
}

const char *sweep_by_name(enum sweep_by by)
{
	return (unsigned)by < sizeof(by_names) / sizeof(by_names[0]) ? by_names[by] : "user";
}

void sweep_query_prices(struct sweep_query *q, const struct tracer_config *cfg)
{
	q->price_cpu_hour = cfg->price_cpu_hour;
	q->price_gb_hour = cfg->price_gb_hour;
}

/* the group's column of tracer.jobs (host: spread per node later) */
static const char *group_column(enum sweep_by by)
{
	switch (by) {
	case SWEEP_BY_ACCOUNT:
		return "account";
	case SWEEP_BY_PARTITION:
		return "partition";
	case SWEEP_BY_PIPELINE:
		return "pipeline";
	case SWEEP_BY_HOST:
		return "host";
	default:
		return "user";
	}
}

static bool priced(const struct sweep_query *q)
{
	return q->price_cpu_hour > 0 || q->price_gb_hour > 0;
}

/* A job's (or node's) rank as SQL over idle_cs and unused_bs: its cost,
 * else core-seconds plus GiB-seconds; sweep_rank is the same in C. */
static void rank_sql(const struct sweep_query *q, char *out, size_t len)
{
	if (priced(q))
		snprintf(out, len, "(idle_cs * %.17g / 3600 + unused_bs * %.17g / %.17g)",
			 q->price_cpu_hour, q->price_gb_hour, 3600 * GIB);
	else
		snprintf(out, len, "(idle_cs + unused_bs / %.17g)", GIB);
}

/* the same for sweep_tool_sql */
void sweep_rank_sql(const struct sweep_query *q, char *out, size_t len)
{
	rank_sql(q, out, len);
}

double sweep_rank(const struct sweep_query *q, double idle_cs, double unused_bs)
{
	if (priced(q))
		return idle_cs * q->price_cpu_hour / 3600 + unused_bs * q->price_gb_hour / (3600 * GIB);
	return idle_cs + unused_bs / GIB;
}

int sweep_sql(const struct sweep_query *q, const char *db, char *out, size_t outlen)
{
	char owner[48] = "", rank[160], order[200];
	const char *g = group_column(q->by);
	int n;

	if (q->uid >= 0)
		snprintf(owner, sizeof(owner), " AND uid = %ld", q->uid);
	rank_sql(q, rank, sizeof(rank));
	if (priced(q))
		snprintf(order, sizeof(order),
			 "sum(idle_cs) * %.17g / 3600 + sum(unused_bs) * %.17g / %.17g DESC,",
			 q->price_cpu_hour, q->price_gb_hour, 3600 * GIB);
	else
		order[0] = '\0';
	n = snprintf(
		out, outlen,
		"SELECT g, toFloat64(count()) AS jobs, toFloat64(sum(j_to)) AS timeouts,"
		" toFloat64(sum(j_oom)) AS ooms, sum(idle_cs) AS idle_core_s,"
		" sum(unused_bs) AS unused_mem_byte_s, sum(idle_gs) AS idle_gpu_s,"
		" argMax(jk, rk) AS worst, max(rk) AS worst_rank"
		" FROM (SELECT jk, %s AS g, %s, %s, %s, j_to, j_oom, %s AS rk FROM"
		/* per job: its elapsed time, its nodes */
		" (SELECT any(jk) AS jk, any(n_g) AS j_g,"
		"  greatest(toFloat64(max(n_end)) - toFloat64(if(sum(n_steps) > 1, min(n_start),"
		"    min(n_own_start))), 0) / 1e9 AS j_wall,"
		"  sum(n_cpus) AS j_cpus, sum(n_cpu_s) AS j_cpu_s, sum(n_unused) AS j_unused,"
		"  sum(n_gpus) AS j_gpus, max(n_to) AS j_to, max(n_oom) AS j_oom,"
		"  groupArray(n_host) AS hs, groupArray(n_cpus) AS hc, groupArray(n_cpu_s) AS hu,"
		"  groupArray(n_unused) AS hm, groupArray(n_gpus) AS hg"
		/* per (job, node): the allocation once, whatever the steps; keyed
		 * by a hash of (scheduler, cluster, job) and host: grouping a
		 * million jobs by their strings took half as long again on 18.16 */
		"  FROM (SELECT any(jh0) AS jh, any(jk0) AS jk, any(host) AS n_host,"
		"   any(%s) AS n_g,"
		"   min(if(toUInt32(job_start) > 0,"
		"     least(start_ns, toUInt64(toUInt32(job_start)) * 1000000000), start_ns)) AS n_start,"
		"   min(start_ns) AS n_own_start, count() AS n_steps,"
		"   max(end_ns) AS n_end, toFloat64(max(alloc_cpus)) AS n_cpus,"
		"   if(max(alloc_cpus) > 0, sum(cpu_s), 0) AS n_cpu_s,"
		"   if(max(alloc_mem_bytes) > max(mem_peak_bytes),"
		"     toFloat64(max(alloc_mem_bytes) - max(mem_peak_bytes)), 0) AS n_unused,"
		"   toFloat64(max(gpus_idle)) AS n_gpus,"
		"   max(state = 'TIMEOUT') AS n_to,"
		"   max(state = 'OUT_OF_MEMORY' OR oom_kills > 0) AS n_oom"
		/* a row delivered twice counts once: LIMIT 1 BY its id over the
		 * narrow columns, not FINAL, which on 18.16 merges every part
		 * of the window in one thread (over 10 s at 500,000 rows) */
		"   FROM (SELECT summary_id, if(job_id != '', job_id, job) AS jk0,"
		"     cityHash64(scheduler, cluster, jk0) AS jh0, cityHash64(jh0, host) AS nh0, host, %s,"
		"     job_start, start_ns, end_ns, alloc_cpus, cpu_s, alloc_mem_bytes,"
		"     mem_peak_bytes, gpus_idle, state, oom_kills"
		"    FROM %s.jobs"
		"    PREWHERE end >= toDateTime(%.0f) WHERE scheduler != 'host'%s"
		"    LIMIT 1 BY summary_id)"
		"   GROUP BY nh0)"
		"  GROUP BY jh)"
		" %s)"
		" GROUP BY g ORDER BY %s idle_core_s DESC, unused_mem_byte_s DESC, g"
		" LIMIT %d FORMAT JSONEachRow",
		q->by == SWEEP_BY_HOST ? "h" : "j_g",
		q->by == SWEEP_BY_HOST ? "greatest(c * j_wall - u, 0) AS idle_cs"
				       : "greatest(j_cpus * j_wall - j_cpu_s, 0) AS idle_cs",
		q->by == SWEEP_BY_HOST ? "m * j_wall AS unused_bs" : "j_unused * j_wall AS unused_bs",
		q->by == SWEEP_BY_HOST ? "gi * j_wall AS idle_gs" : "j_gpus * j_wall AS idle_gs",
		rank, g, q->by == SWEEP_BY_HOST ? "uid" : g, db, floor(q->from_s), owner,
		q->by == SWEEP_BY_HOST ? "ARRAY JOIN hs AS h, hc AS c, hu AS u, hm AS m, hg AS gi" : "",
		order, q->limit);
	return n > 0 && (size_t)n < outlen ? 0 : -1;
}

/* a database name from tracer.conf, as an identifier */
static bool plain_name(const char *db)
{
	if (!*db || strlen(db) > 64)
		return false;
	for (const char *c = db; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	return true;
}

static char *dup_str(const cJSON *o, const char *key)
{
	const char *s = json_get_str(o, key, NULL);

	return strdup(s && *s ? s : "-");
}

/* one JSONEachRow line of the answer into row: 0, -1 when it is none */
static int take_row(char *line, struct sweep_row *row)
{
	cJSON *o = cJSON_Parse(line);

	memset(row, 0, sizeof(*row));
	if (!cJSON_IsObject(o) || !json_get_str(o, "g", NULL)) {
		cJSON_Delete(o);
		return -1;
	}
	row->key = dup_str(o, "g");
	row->worst = dup_str(o, "worst");
	row->jobs = (uint64_t)json_get_num(o, "jobs", 0);
	row->timeouts = (uint64_t)json_get_num(o, "timeouts", 0);
	row->ooms = (uint64_t)json_get_num(o, "ooms", 0);
	row->idle_core_s = json_get_num(o, "idle_core_s", 0);
	row->unused_mem_byte_s = json_get_num(o, "unused_mem_byte_s", 0);
	row->idle_gpu_s = json_get_num(o, "idle_gpu_s", 0);
	row->cpu_s = json_get_num(o, "cpu_s", 0);
	row->worst_rank = json_get_num(o, "worst_rank", 0);
	cJSON_Delete(o);
	return 0;
}

cJSON *sweep_from_datalake(const struct tracer_config *cfg, const struct sweep_query *q,
			   char *err, size_t errlen)
{
	char sql[8192], *out = NULL, *save = NULL;
	struct sweep_row *rows;
	size_t len, n = 0;
	cJSON *ans;

	if (!plain_name(cfg->clickhouse_database)) {
		snprintf(err, errlen, "clickhouse_database \"%.64s\" is not a plain name",
			 cfg->clickhouse_database);
		return NULL;
	}
	if ((q->by == SWEEP_BY_TOOL ? sweep_tool_sql : sweep_sql)(q, cfg->clickhouse_database, sql,
								 sizeof(sql)) != 0) {
		snprintf(err, errlen, "the sweep's query does not fit");
		return NULL;
	}
	/* read-only and bounded on the server, as every read of the datalake */
	if (datalake_query(cfg, sql, &out, &len, err, errlen) != 0)
		return NULL;
	rows = calloc((size_t)q->limit + 1, sizeof(*rows));
	if (!rows) {
		free(out);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (char *l = strtok_r(out, "\n", &save); l && n < (size_t)q->limit;
	     l = strtok_r(NULL, "\n", &save)) {
		if (take_row(l, &rows[n]) != 0) {
			snprintf(err, errlen, "unexpected answer from ClickHouse: %.80s", l);
			for (size_t i = 0; i < n; i++) {
				free(rows[i].key);
				free(rows[i].worst);
			}
			free(rows);
			free(out);
			return NULL;
		}
		n++;
	}
	free(out);
	ans = sweep_answer(q, "datalake", rows, n);
	free(rows);
	if (!ans)
		snprintf(err, errlen, "out of memory");
	return ans;
}

/* ---- the answer ---- */

/* qsort_r: tracerd's archive workers sort at the same time */
static int by_rank(const void *a, const void *b, void *ctx)
{
	const struct sweep_row *x = a, *y = b;
	double rx = sweep_rank(ctx, x->idle_core_s, x->unused_mem_byte_s);
	double ry = sweep_rank(ctx, y->idle_core_s, y->unused_mem_byte_s);

	if (rx != ry)
		return rx > ry ? -1 : 1;
	if (x->idle_core_s != y->idle_core_s)
		return x->idle_core_s > y->idle_core_s ? -1 : 1;
	return strcmp(x->key, y->key);
}

static double round6(double v)
{
	return round(v * 1e6) / 1e6;
}

static cJSON *row_json(const struct sweep_query *q, const struct sweep_row *r)
{
	cJSON *o = cJSON_CreateObject();
	double core_h = r->idle_core_s / 3600, gib_h = r->unused_mem_byte_s / 3600 / GIB;

	if (!o)
		return NULL;
	json_add_str(o, "key", r->key);
	json_add_u64(o, "jobs", r->jobs);
	if (q->by == SWEEP_BY_TOOL)
		cJSON_AddNumberToObject(o, "cpu_hours", round6(r->cpu_s / 3600));
	cJSON_AddNumberToObject(o, "idle_core_hours", round6(core_h));
	cJSON_AddNumberToObject(o, "unused_mem_gib_hours", round6(gib_h));
	cJSON_AddNumberToObject(o, "idle_gpu_hours", round6(r->idle_gpu_s / 3600));
	json_add_u64(o, "timeouts", r->timeouts);
	json_add_u64(o, "ooms", r->ooms);
	json_add_str(o, "worst_job", r->worst ? r->worst : "-");
	if (priced(q)) {
		cJSON *c = cJSON_AddObjectToObject(o, "cost");

		cJSON_AddNumberToObject(c, "idle_cpu", round6(core_h * q->price_cpu_hour));
		cJSON_AddNumberToObject(c, "unused_memory", round6(gib_h * q->price_gb_hour));
		cJSON_AddNumberToObject(c, "total",
					round6(core_h * q->price_cpu_hour + gib_h * q->price_gb_hour));
	}
	return o;
}

cJSON *sweep_answer(const struct sweep_query *q, const char *source, struct sweep_row *rows,
		    size_t n)
{
	cJSON *ans = cJSON_CreateObject(), *arr = NULL, *missing;
	bool ok = ans != NULL;

	qsort_r(rows, n, sizeof(*rows), by_rank, (void *)q);
	if (ok) {
		json_add_str(ans, "source", source);
		json_add_str(ans, "by", sweep_by_name(q->by));
		cJSON_AddNumberToObject(ans, "since_s", q->since_s);
		json_add_time(ans, "from", (uint64_t)(q->from_s * 1e9));
		cJSON_AddBoolToObject(ans, "all_users", q->uid < 0);
		if (priced(q)) {
			cJSON *p = cJSON_AddObjectToObject(ans, "prices");
			cJSON_AddNumberToObject(p, "cpu_hour", q->price_cpu_hour);
			cJSON_AddNumberToObject(p, "gb_hour", q->price_gb_hour);
		}
		if (q->by == SWEEP_BY_TOOL)
			json_add_str(ans, "attribution", SWEEP_TOOL_RULE);
		json_add_u64(ans, "groups", n);
		arr = cJSON_AddArrayToObject(ans, "rows");
		/* what the sources do not record yet (docs/sweep.md) */
		missing = cJSON_AddArrayToObject(ans, "not_recorded");
		ok = arr && missing && cJSON_AddItemToArray(missing, cJSON_CreateString("idle_hosts")) &&
		     cJSON_AddItemToArray(missing, cJSON_CreateString("instance_hours_without_job"));
	}
	for (size_t i = 0; i < n; i++) {
		if (ok && i < (size_t)q->limit) {
			cJSON *r = row_json(q, &rows[i]);
			ok = r && cJSON_AddItemToArray(arr, r);
		}
		free(rows[i].key);
		free(rows[i].worst);
	}
	if (!ok) {
		cJSON_Delete(ans);
		return NULL;
	}
	return ans;
}
