/*
 * report_clickhouse.c - `tracer report --clickhouse`: the same groups as
 * from the local archive, summed by ClickHouse over the tables of
 * contrib/clickhouse/migrations/ (every node's jobs).  Not FINAL: on
 * schema version 3 (jobs sorted by user and end, granules of 256 rows)
 * it merged every part's sorting key across the window and took seconds;
 * a row of a batch delivered twice (identical) is folded by its table's
 * key instead (LIMIT 1 BY summary_id, ...), the filter on end read
 * first (PREWHERE).  A group's flags come in the same query, from the
 * ids each jobs row carries (flag_ids, version 3), counted by their
 * hash (sumMap takes no strings on 18.16); tracer.flags is asked only
 * for rows with flags and no ids (before version 3).  Queries run on
 * ClickHouse 18.16 and later, read-only and bounded on the server
 * (datalake_read.c).  The tables hold no cost: --clickhouse shows none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "datalake_read.h"
#include "datalake_sql.h"
#include "growbuf.h"
#include "report.h"
/*
 * A job is counted once, however many steps and nodes it ran on: its
 * (cluster, job_id) when it has a job id, its summary otherwise (tracer
 * run), by a 64-bit hash (counting a million of them takes a sixth less
 * time than of strings; two keys alike by chance are about 1 in 10^7 at
 * a million jobs).  A job failed when any of its summaries did.
 */
#define JOB_KEY "if(job_id != '', cityHash64(cluster, job_id), cityHash64(summary_id))"

/* the group's expression over a table of the datalake */
static const char *key_expr(enum report_by by)
{
	switch (by) {
	case REPORT_BY_RUN:
		return "if(run_id != '', run_id, '-')";
	case REPORT_BY_TASK:
		return "if(task_name != '', task_name, '-')";
	case REPORT_BY_USER:
		return "if(user != '', user, '-')";
	case REPORT_BY_PIPELINE:
		return "if(pipeline != '', pipeline, '-')";
	case REPORT_BY_TOOL:
		return "tool";
	default:
		return "'all'";
	}
}

/* a database name from tracer.conf, as an identifier */
static int db_name(const char *db, char *out, size_t len)
{
	if (!*db || strlen(db) >= len)
		return -1;
	for (const char *c = db; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_'))
			return -1;
	snprintf(out, len, "%s", db);
	return 0;
}

static int run(const struct tracer_config *cfg, const struct growbuf *q, char **out)
{
	char err[600];
	size_t len;

	if (q->oom) {
		fprintf(stderr, "tracer report: out of memory\n");
		return -1;
	}
	if (datalake_query_within(cfg, q->p, TRACER_DATALAKE_AGGREGATE_TIMEOUT_MS, out, &len, err,
				  sizeof(err)) != 0) {
		if (strstr(err, "identifier: flag_ids") || strstr(err, "Missing columns: 'flag_ids'"))
			fprintf(stderr, "tracer report: the datalake has no %s.jobs.flag_ids of schema "
				"version 3: run tracer datalake migrate\n", cfg->clickhouse_database);
		else
			fprintf(stderr, "tracer report: ClickHouse: %s\n", err);
		return -1;
	}
	return 0;
}

/* a number of the answer; 0 when absent */
static double n0(const cJSON *o, const char *key)
{
	double v = cli_jnum(o, key);
	return v == v ? v : 0; /* NaN: absent */
}

/* a group's flags from its line: f_names and f_counts, alike in length */
static void take_flags(struct group *g, const cJSON *o)
{
	const cJSON *names = cJSON_GetObjectItemCaseSensitive(o, "f_names");
	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(o, "f_counts");
	const cJSON *n, *c = cJSON_IsArray(counts) ? counts->child : NULL;

	cJSON_ArrayForEach(n, names) {
		if (!c)
			break;
		if (cJSON_IsString(n) && cJSON_IsNumber(c) && c->valuedouble > 0)
			report_add_flag(g, n->valuestring, (uint64_t)c->valuedouble);
		c = c->next;
	}
}

/* one JSONEachRow line per group: fill it; *old: the summaries whose
 * flags are in tracer.flags only (before version 3) */
static int take_rows(struct report *r, char *text, bool flags, double *old)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		cJSON *o = cJSON_Parse(line);
		struct group *g = o ? report_group(r, cli_jstr(o, "g") ? cli_jstr(o, "g") : "-") : NULL;

		if (!g) {
			cJSON_Delete(o);
			fprintf(stderr, "tracer report: unexpected answer from ClickHouse: %.80s\n", line);
			return -1;
		}
		if (flags) {
			if (cli_jstr(o, "flag"))
				report_add_flag(g, cli_jstr(o, "flag"), (uint64_t)n0(o, "n"));
		} else {
			g->jobs += (uint64_t)n0(o, "jobs");
			g->failed += (uint64_t)n0(o, "failed");
			g->processes += (uint64_t)n0(o, "processes");
			g->wall_s += n0(o, "wall"); /* not "wall_s": an alias shadows its column */
			g->cpu_s += n0(o, "cpu_s");
			g->core_s += n0(o, "core_s");
			g->peak_bytes = n0(o, "peak");
			g->mem_used_bytes += n0(o, "mem_used");
			g->mem_alloc_bytes += n0(o, "mem_alloc");
			g->read_bytes += n0(o, "rchar");
			g->write_bytes += n0(o, "wchar");
			r->jobs += r->by == REPORT_BY_TOOL ? 0 : (uint64_t)n0(o, "jobs");
			take_flags(g, o);
			*old += n0(o, "f_old");
		}
		cJSON_Delete(o);
	}
	return 0;
}

/* The jobs rows a report reads, after "FROM db.jobs": the window on end
 * first (PREWHERE), then the report's selection (-j, -u, -A, --partition,
 * -N, -S, -E, --run) as tracer jobs turns it into SQL; 0, or -1 (said)
 * for a value that cannot be a name. */
static int jobs_rows(struct growbuf *q, const struct report *r, long from)
{
	struct job_filter f = r->filter;

	if (r->run)
		f.runs = r->run;
	growbuf_printf(q, " PREWHERE end >= toDateTime(%ld) WHERE scheduler != 'host' AND (", from);
	if (datalake_sql_where(&f, q) != 0) {
		fprintf(stderr, "tracer report: a filter value holds a control character\n");
		return -1;
	}
	growbuf_printf(q, ")");
	return 0;
}

int report_from_clickhouse(struct report *r, const struct tracer_config *cfg)
{
	char db[80], *out = NULL;
	struct growbuf q = {0};
	double old = 0;
	long from = (long)r->from_s;
	const char *k = key_expr(r->by);
	int rc = -1;

	if (db_name(cfg->clickhouse_database, db, sizeof(db)) != 0) {
		fprintf(stderr, "tracer report: clickhouse_database \"%s\" is not a plain name\n",
			cfg->clickhouse_database);
		return -1;
	}
	if (r->by == REPORT_BY_TOOL) {
		growbuf_printf(&q,
			 "SELECT g, toFloat64(uniqExact(" JOB_KEY ")) AS jobs,"
			 " toFloat64(sum(failed)) AS failed,"
			 " toFloat64(sum(processes)) AS processes, sum(wall_s) AS wall,"
			 " sum(cpu_s) AS cpu_s,"
			 " sum(job_wall_s * if(alloc_cpus > 0, alloc_cpus, host_cpus)) AS core_s,"
			 " toFloat64(max(peak_rss_bytes)) AS peak, toFloat64(sum(rchar)) AS rchar,"
			 " toFloat64(sum(wchar)) AS wchar"
			 " FROM (SELECT %s AS g, job_id, cluster, summary_id, failed, processes,"
			 "  wall_s, cpu_s, job_wall_s, alloc_cpus, peak_rss_bytes, rchar, wchar"
			 "  FROM %s.tools PREWHERE end >= toDateTime(%ld)"
			 "  LIMIT 1 BY summary_id, tool, path)"
			 " ANY INNER JOIN"
			 " (SELECT summary_id, host_cpus FROM %s.jobs",
			 k, db, from, db);
		if (jobs_rows(&q, r, from) != 0)
			goto out;
		growbuf_printf(&q, " LIMIT 1 BY summary_id) USING summary_id"
			       " GROUP BY g FORMAT JSONEachRow");
	} else {
		growbuf_printf(&q,
			 "SELECT g, toFloat64(uniqExact(" JOB_KEY ")) AS jobs,"
			 " toFloat64(uniqExactIf(" JOB_KEY ", ifNull(exit_code, 0) != 0"
			 " OR exit_signal IS NOT NULL)) AS failed,"
			 " sum(wall_s) AS wall, sum(cpu_s) AS cpu_s,"
			 " sum(wall_s * if(alloc_cpus > 0, alloc_cpus, host_cpus)) AS core_s,"
			 " toFloat64(max(mem_peak_bytes)) AS peak,"
			 " toFloat64(sumIf(mem_peak_bytes, alloc_mem_bytes > 0)) AS mem_used,"
			 " toFloat64(sum(alloc_mem_bytes)) AS mem_alloc,"
			 " toFloat64(sum(rchar)) AS rchar, toFloat64(sum(wchar)) AS wchar,"
			 /* the flags raised, counted by their id's hash */
			 " groupUniqArrayArray(flag_ids) AS f_names,"
			 " sumMap(arrayMap(f -> cityHash64(f), flag_ids),"
			 "  arrayMap(f -> toUInt64(1), flag_ids)) AS f_map,"
			 " arrayMap(n -> toFloat64((f_map.2)[indexOf(f_map.1, cityHash64(n))]), f_names) AS f_counts,"
			 " toFloat64(countIf(flags > 0 AND empty(flag_ids))) AS f_old"
			 " FROM (SELECT %s AS g, job_id, cluster, summary_id, exit_code, exit_signal,"
			 "  wall_s, cpu_s, alloc_cpus, host_cpus, mem_peak_bytes, alloc_mem_bytes,"
			 "  rchar, wchar, flags, flag_ids FROM %s.jobs",
			 k, db);
		if (jobs_rows(&q, r, from) != 0)
			goto out;
		growbuf_printf(&q, " LIMIT 1 BY summary_id) GROUP BY g FORMAT JSONEachRow");
	}
	if (run(cfg, &q, &out) != 0 || take_rows(r, out, false, &old) != 0)
		goto out;
	free(out);
	out = NULL;
	q.len = 0;
	if (r->by == REPORT_BY_TOOL) {
		/* the jobs in the window: once, not once per tool; a count of
		 * distinct jobs: a duplicate row changes nothing */
		growbuf_printf(&q, "SELECT toFloat64(uniqExact(" JOB_KEY ")) AS jobs FROM %s.jobs", db);
		if (jobs_rows(&q, r, from) != 0)
			goto out;
		growbuf_printf(&q, " FORMAT JSONEachRow");
		if (run(cfg, &q, &out) != 0)
			goto out;
		cJSON *o = cJSON_Parse(out);
		r->jobs = (uint64_t)n0(o, "jobs");
		cJSON_Delete(o);
	} else {
		/* the flags of rows with flags but no ids (before version 3,
		 * f_old) from tracer.flags, asked only when there are any */
		if (old == 0) {
			rc = 0;
			goto out;
		}
		growbuf_printf(&q,
			 "SELECT g, flag, toFloat64(count()) AS n FROM (SELECT %s AS g, flag"
			 " FROM %s.flags PREWHERE end >= toDateTime(%ld) WHERE summary_id IN"
			 " (SELECT summary_id FROM %s.jobs",
			 k, db, from, db);
		if (jobs_rows(&q, r, from) != 0)
			goto out;
		growbuf_printf(&q, " AND flags > 0 AND empty(flag_ids))"
			       " LIMIT 1 BY summary_id, flag, severity, n) GROUP BY g, flag"
			       " FORMAT JSONEachRow");
		if (run(cfg, &q, &out) != 0 || take_rows(r, out, true, &old) != 0)
			goto out;
	}
	rc = 0;
out:
	growbuf_free(&q);
	free(out);
	return rc;
}
