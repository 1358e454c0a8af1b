/*
 * sweep.c - the cluster's waste per group from the datalake, summed by
 * ClickHouse, and the answer both sources share (sweep.h).
 *
 * The query reads tracer.job_use (schema v7): one narrow all-numeric row
 * per summary, keyed by hashes of the job, its node and the summary, so
 * that every GROUP BY is on a UInt64 and no string is carried through
 * it, with what each summary adds to its job's totals on its node.  The
 * rows of one job each come from sweep_jobs.c (a job of one summary its
 * row, the others summed per job, those with a row without increments
 * folded per (job, node) then per job as tracer.job_view does); here
 * they are summed per group, by host per (job, node) on its host.  The
 * groups are named by a join on the LowCardinality column, the worst
 * jobs by a second lookup.  Written for ClickHouse 18.16: no WITH
 * clauses, no window functions.
 */
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clickhouse.h"
#include "datalake_read.h"
#include "defaults.h"
#include "growbuf.h"
#include "json.h"
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

int sweep_sql_copy(struct growbuf *b, char *out, size_t outlen)
{
	int rc = -1;

	if (!b->oom && b->p && b->len < outlen) {
		memcpy(out, b->p, b->len + 1);
		rc = 0;
	}
	growbuf_free(b);
	return rc;
}

int sweep_sql(const struct sweep_query *q, const char *db, char *out, size_t outlen)
{
	struct growbuf b = {0};
	char rank[160];
	const char *g = group_column(q->by);
	bool host = q->by == SWEEP_BY_HOST;
	double from = floor(q->from_s);

	rank_sql(q, rank, sizeof(rank));
	growbuf_printf(
		&b,
		"SELECT g, jobs, timeouts, ooms, idle_core_s, unused_mem_byte_s, idle_gpu_s,"
		" toString(worst_h) AS worst_h, worst_rank FROM"
		" (SELECT gh, toFloat64(count()) AS jobs, toFloat64(sum(bitAnd(j_lim, 1))) AS timeouts,"
		"  toFloat64(sum(bitShiftRight(j_lim, 1))) AS ooms, sum(idle_cs) AS idle_core_s,"
		"  sum(unused_bs) AS unused_mem_byte_s, sum(idle_gs) AS idle_gpu_s,"
		"  argMax(jh, rk) AS worst_h, max(rk) AS worst_rank"
		"  FROM (SELECT jh, %s AS gh, %s, %s, %s, j_lim, %s AS rk FROM ",
		host ? "h" : "j_gh",
		host ? "greatest(c * j_wall - u, 0) AS idle_cs"
		     : "greatest(j_cpus * j_wall - j_cpu_s, 0) AS idle_cs",
		host ? "m * j_wall AS unused_bs" : "j_unused * j_wall AS unused_bs",
		host ? "gi * j_wall AS idle_gs" : "j_gpus * j_wall AS idle_gs", rank);
	/* per job (sweep_jobs.c); by host per (job, node) */
	sweep_jobs_sql(q, db, g, host, false, &b);
	growbuf_printf(&b, ") GROUP BY gh)");
	/* the groups' names: few keys of a LowCardinality column */
	growbuf_printf(&b, " ANY LEFT JOIN (SELECT cityHash64(%s) AS gh, any(%s) AS g FROM %s.job_use"
			   "  PREWHERE end >= toDateTime(%.0f)", g, g, db, from);
	if (q->uid >= 0)
		growbuf_printf(&b, " WHERE uid = %ld", q->uid);
	growbuf_printf(&b, " GROUP BY %s) USING gh ORDER BY ", g);
	if (priced(q))
		growbuf_printf(&b,
			       "idle_core_s * %.17g / 3600 + unused_mem_byte_s * %.17g / %.17g DESC,",
			       q->price_cpu_hour, q->price_gb_hour, 3600 * GIB);
	growbuf_printf(&b, " idle_core_s DESC, unused_mem_byte_s DESC, g LIMIT %d FORMAT JSONEachRow",
		       q->limit);
	return sweep_sql_copy(&b, out, outlen);
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
	/* the job's hash until named (job_use); by tool, the job's key */
	row->worst = dup_str(o, cJSON_GetObjectItem(o, "worst_h") ? "worst_h" : "worst");
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

/* The worst jobs' names for their hashes (job_use.jk): one lookup by
 * the table's sorting key for the at most q->limit rows of the answer,
 * rather than a string carried through the million-key GROUP BYs. */
static int name_worst(const struct tracer_config *cfg, struct sweep_row *rows, size_t n,
		      char *err, size_t errlen)
{
	struct growbuf sql = {0};
	char *out = NULL, *save = NULL;
	size_t len, asked = 0;
	int rc = -1;

	growbuf_printf(&sql, "SELECT toString(jh) AS h, any(jk) AS k FROM %s.job_use PREWHERE jh IN (",
		       cfg->clickhouse_database);
	for (size_t i = 0; i < n; i++)
		if (rows[i].worst[strspn(rows[i].worst, "0123456789")] == '\0')
			growbuf_printf(&sql, "%s%s", asked++ ? ", " : "", rows[i].worst);
	growbuf_printf(&sql, ") GROUP BY jh FORMAT JSONEachRow");
	if (sql.oom) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (asked == 0) {
		rc = 0;
		goto out;
	}
	if (datalake_query(cfg, sql.p, &out, &len, err, errlen) != 0)
		goto out;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		cJSON *o = cJSON_Parse(l);
		const char *h = json_get_str(o, "h", NULL), *k = json_get_str(o, "k", NULL);

		for (size_t i = 0; h && k && *k && i < n; i++)
			if (strcmp(rows[i].worst, h) == 0) {
				char *name = strdup(k);

				if (name) {
					free(rows[i].worst);
					rows[i].worst = name;
				}
			}
		cJSON_Delete(o);
	}
	rc = 0;
out:
	growbuf_free(&sql);
	free(out);
	return rc;
}

static void free_rows(struct sweep_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].key);
		free(rows[i].worst);
	}
	free(rows);
}

cJSON *sweep_from_datalake(const struct tracer_config *cfg, const struct sweep_query *q,
			   char *err, size_t errlen)
{
	char sql[16384], *out = NULL, *save = NULL;
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
	if (datalake_query(cfg, sql, &out, &len, err, errlen) != 0) {
		if (clickhouse_is_unknown_table(err) || strstr(err, "identifier: inc_") ||
		    strstr(err, "identifier: tool") || strstr(err, "Missing columns"))
			snprintf(err, errlen, "the datalake has no %s.job_use of schema version 8: "
				 "run tracer datalake migrate", cfg->clickhouse_database);
		return NULL;
	}
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
			free_rows(rows, n);
			free(out);
			return NULL;
		}
		n++;
	}
	free(out);
	if (name_worst(cfg, rows, n, err, errlen) != 0) {
		free_rows(rows, n);
		return NULL;
	}
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
	cJSON *ans = cJSON_CreateObject(), *arr = NULL;
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
		ok = arr != NULL;
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
