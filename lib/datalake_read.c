/*
 * datalake_read.c - summaries back from ClickHouse (datalake_read.h).
 *
 * A user controls the names a filter holds: the conditions are built by
 * datalake_sql.c, which quotes every value.  The answer is
 * TabSeparatedRaw: one summary per line as stored (a summary is one line
 * of JSON, without tabs).  The query runs
 * over the HTTP interface through clickhouse.c (the sinks' request
 * helper), within a deadline and a cap on the answer's size, both also
 * told to the server.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clickhouse.h"
#include "datalake_read.h"
#include "datalake_sql.h"
#include "defaults.h"
#include "growbuf.h"
#include "sink_priv.h"

static void adds(struct growbuf *b, const char *s)
{
	growbuf_add(b, s, strlen(s));
}

bool datalake_configured(const struct tracer_config *cfg)
{
	return strcmp(cfg->datalake, "clickhouse") == 0;
}

int datalake_check_credentials(const struct tracer_config *cfg, char *err, size_t errlen)
{
	const char *path = cfg->clickhouse_password_file;
	char password[512];
	struct stat st;
	int rc;

	if (!path[0])
		return 0;
	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "clickhouse_password_file %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077)) {
		snprintf(err, errlen, "clickhouse_password_file %s: mode %04o, owner uid %u: "
			 "must be a file of root's with mode 0600 (users must not read the "
			 "datalake's credentials)", path, (unsigned)(st.st_mode & 07777),
			 (unsigned)st.st_uid);
		return -1;
	}
	rc = sink_http_read_secret(path, password, sizeof(password), err, errlen);
	memset(password, 0, sizeof(password));
	return rc;
}

/* the database's name from tracer.conf, usable as an identifier */
static int db_ident(const struct tracer_config *cfg, char *err, size_t errlen)
{
	const char *c = cfg->clickhouse_database;

	for (; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			break;
	if (!*cfg->clickhouse_database || *c) {
		snprintf(err, errlen, "clickhouse_database \"%s\" is not a plain name",
			 cfg->clickhouse_database);
		return -1;
	}
	return 0;
}

/* this thread's query id (datalake_set_query_id): "" for none */
static _Thread_local char query_id[DATALAKE_QUERY_ID_MAX];

void datalake_set_query_id(const char *id)
{
	size_t n = 0;

	/* a URL parameter as it is: letters, digits, '.', '_', '-' only */
	for (; id && id[n] && n + 1 < sizeof(query_id); n++)
		query_id[n] = isalnum((unsigned char)id[n]) || strchr("._-", id[n]) ? id[n] : '_';
	query_id[n] = '\0';
}

/* ClickHouse's error code `code` in its message */
static bool ch_code(const char *why, int code)
{
	char a[24], b[24];

	snprintf(a, sizeof(a), "Code: %d,", code);
	snprintf(b, sizeof(b), "Code: %d.", code);
	return strstr(why, a) || strstr(why, b);
}

/* Run one query over clickhouse.c: the answer in *out (malloc'd,
 * NUL-terminated).  The server stops it too: at the deadline and past
 * the answer's cap. */
static int run_query(const struct tracer_config *cfg, const char *sql, long timeout_ms,
		     char **out, size_t *len, char *err, size_t errlen)
{
	char settings[200 + DATALAKE_QUERY_ID_MAX], why[600];
	const char *msg;

	/*
	 * A user's question may read, never write, and is bounded in time,
	 * answer and memory on the server, so that one user cannot use up
	 * what the others' questions and the inserts need.  readonly comes
	 * last: it forbids changing the settings that follow it.  With a
	 * query id, the server refuses a second query of that id while the
	 * first runs: ClickHouse 18.16 goes on with a query whose client
	 * gave up (its deadline passed) until the query's own limits stop it.
	 */
	snprintf(settings, sizeof(settings),
		 "&max_execution_time=%d&max_result_bytes=%u&result_overflow_mode=throw"
		 "&max_memory_usage=%u&readonly=1%s%s", (int)(timeout_ms / 1000),
		 TRACER_DATALAKE_REPLY_MAX, cfg->datalake_max_memory,
		 query_id[0] ? "&query_id=" : "", query_id);
	if (clickhouse_exec(cfg, sql, settings, timeout_ms, out, len, why,
			    sizeof(why)) == 0)
		return 0;
	/* MEMORY_LIMIT_EXCEEDED (241) on every version */
	if (ch_code(why, 241)) {
		snprintf(err, errlen, "ClickHouse at %s: the query needed more than "
			 "datalake_max_memory (%u bytes) on the server: select fewer jobs "
			 "(a shorter window, fewer users or jobs) or raise datalake_max_memory",
			 cfg->clickhouse_url, cfg->datalake_max_memory);
		return -1;
	}
	/* TOO_MANY_ROWS_OR_BYTES (396): the answer past its cap */
	if (ch_code(why, 396)) {
		snprintf(err, errlen, "ClickHouse at %s: the answer is larger than %u MiB: select "
			 "fewer jobs (a shorter window, fewer users or jobs)", cfg->clickhouse_url,
			 TRACER_DATALAKE_REPLY_MAX >> 20);
		return -1;
	}
	/* QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING (216): this asker's earlier
	 * query, given up, still runs on the server */
	if (query_id[0] && ch_code(why, 216)) {
		snprintf(err, errlen, "busy: your earlier question is still running on the "
			 "datalake's server (ClickHouse at %s stops it at its time limit): try again "
			 "in a few seconds", cfg->clickhouse_url);
		return -1;
	}
	/* "POST URL: what" -> "ClickHouse at URL: what" (a URL has no ": ") */
	msg = strncmp(why, "POST ", 5) == 0 && strstr(why, ": ") ? strstr(why, ": ") + 2 : why;
	if (strncmp(msg, "HTTP status ", 12) == 0)
		snprintf(err, errlen, "ClickHouse at %s: HTTP %s", cfg->clickhouse_url, msg + 12);
	else
		snprintf(err, errlen, "ClickHouse at %s: %s", cfg->clickhouse_url, msg);
	return -1;
}

/* After a failed query: a datalake of an older schema has no summary
 * column (the error then says what to do); err is kept otherwise. */
static void explain_schema(const struct tracer_config *cfg, char *err, size_t errlen)
{
	char ignored[256];
	unsigned version = 0;

	if (clickhouse_schema_version(cfg, TRACER_DATALAKE_TIMEOUT_MS, &version, ignored,
				      sizeof(ignored)) == 0 && version > 0 && version < 2)
		snprintf(err, errlen, "ClickHouse at %s: schema version %u has no summary column: "
			 "run tracer datalake migrate", cfg->clickhouse_url, version);
}

/* Hand each line of the answer to each(); lines in the answer's order. */
static void each_line(char *p, size_t len, datalake_each_fn each, void *ctx, int *count)
{
	char *end = p + len;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 0) { /* a row written before the summary column: empty */
			++*count;
			if (each(ctx, p, n) != 0)
				return;
		}
		p += n + 1;
	}
}

/*
 * A job, as jobview_same_job tells one: its scheduler, cluster and job id,
 * or its job uid when it has no job id (tracer run).
 */
#define JOB_KEY "if(job_id != '', concat(scheduler, '/', cluster, '/', job_id), concat('/', job))"
/* the job's state as jobview_state_rank ranks its steps' */
#define JOB_STATE "argMax(state, multiIf(state = 'OUT_OF_MEMORY', 5, state = 'TIMEOUT', 4," \
	" state = 'FAILED', 3, state = 'CANCELLED', 2, state = 'COMPLETED', 1, 0))"

/* What a reading selects: the newest `limit` summaries (0: all), or,
 * with jobs > 0, every summary of the newest `jobs` jobs whose state
 * passes `having`; rank: NULL, or an expression whose highest value wins
 * over a newer row. */
struct selection {
	const char *rank;
	long limit, jobs;
	const char *having;
};

/* The query of a selection sel of the rows that pass where, into sql. */
static void selection_sql(struct growbuf *sql, const char *db, const char *where,
			  const struct selection *sel)
{
	/*
	 * The newest rows (or jobs), then oldest first; summary_id breaks
	 * ties.  Not FINAL: it reads every row's summary before the filter
	 * applies (22 s for one user's month at 200,000 summaries on 18.16,
	 * docs/clickhouse.md).  PREWHERE reads the filter's columns first,
	 * the rows of a batch delivered twice, identical, fold by
	 * summary_id, and the summaries are read in a second pass, for the
	 * summary ids (or jobs) the first (narrow columns only) kept.
	 */
	if (sel->jobs > 0)
		growbuf_printf(sql, "SELECT summary FROM %s.jobs PREWHERE (%s) AND " JOB_KEY " IN"
			       " (SELECT " JOB_KEY " AS k FROM %s.jobs PREWHERE %s GROUP BY k"
			       " HAVING %s ORDER BY max(end_ns) DESC, k DESC LIMIT %ld)"
			       " ORDER BY end_ns, summary_id LIMIT 1 BY summary_id LIMIT %ld",
			       db, where, db, where, sel->having ? sel->having : "1", sel->jobs,
			       sel->jobs * TRACER_DEFAULT_JOBVIEW_MAX_STEPS);
	else if (sel->limit > 0)
		growbuf_printf(sql, "SELECT summary FROM %s.jobs PREWHERE (%s) AND summary_id IN"
			       " (SELECT summary_id FROM %s.jobs PREWHERE %s ORDER BY %s%s end_ns DESC,"
			       " summary_id DESC LIMIT 1 BY summary_id LIMIT %ld)"
			       " ORDER BY end_ns, summary_id LIMIT 1 BY summary_id",
			       db, where, db, where, sel->rank ? sel->rank : "",
			       sel->rank ? " DESC," : "", sel->limit);
	else
		growbuf_printf(sql, "SELECT summary FROM %s.jobs PREWHERE %s"
			       " ORDER BY end_ns, summary_id LIMIT 1 BY summary_id", db, where);
	adds(sql, " FORMAT TabSeparatedRaw");
}

static int select_summaries(const struct tracer_config *cfg, const char *where,
			    const struct selection *sel, datalake_each_fn each, void *ctx,
			    char *err, size_t errlen)
{
	struct growbuf sql = {0};
	char *body = NULL;
	size_t len = 0;
	int rc = -1, count = 0;

	if (db_ident(cfg, err, errlen) != 0)
		return -1;
	selection_sql(&sql, cfg->clickhouse_database, where, sel);
	if (sql.oom) {
		snprintf(err, errlen, "out of memory");
	} else if (run_query(cfg, sql.p, TRACER_DATALAKE_TIMEOUT_MS, &body, &len, err,
			     errlen) != 0) {
		explain_schema(cfg, err, errlen);
	} else {
		each_line(body, len, each, ctx, &count);
		rc = count;
	}
	growbuf_free(&sql);
	free(body);
	return rc;
}

/* a name's keys in job_keys: itself, and the job of JOB.STEP and of
 * ARRAYJOB_TASK */
static void add_keys_of(struct growbuf *b, const char *w, size_t n, bool first)
{
	const char *dot = memrchr(w, '.', n), *us = memrchr(w, '_', n);

	if (!first)
		adds(b, ", ");
	datalake_sql_literal(b, w, n);
	if (dot) {
		adds(b, ", ");
		datalake_sql_literal(b, w, (size_t)(dot - w));
	}
	if (us) {
		adds(b, ", ");
		datalake_sql_literal(b, w, (size_t)(us - w));
	}
}

/*
 * " AND (user, end, summary_id) IN (...)": the rows whose job_keys
 * (schema version 3) hold a name of the comma list (one: list is one
 * name).  The lookup goes by job_keys' sorting key, and (user, end) is
 * jobs' sorting key, so only the granules of those rows are read.  The
 * names were checked (add_literal) by where_into already.
 */
static void add_job_keys(struct growbuf *b, const char *db, const char *list, bool one)
{
	bool first = true;

	growbuf_printf(b, " AND (user, end, summary_id) IN (SELECT user, end, summary_id FROM"
		       " %s.job_keys PREWHERE key IN (", db);
	for (const char *p = list; *p;) {
		size_t n = one ? strlen(p) : strcspn(p, ",");

		if (n > 0) {
			add_keys_of(b, p, n, first);
			first = false;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	if (first)
		adds(b, "''");
	adds(b, "))");
}

/*
 * select_summaries, by job_keys when names is not NULL (a list of job
 * ids, or one name); a datalake of schema version 2 has no job_keys: then
 * the slow way, every row's filter columns read.
 */
static int select_by_keys(const struct tracer_config *cfg, struct growbuf *where,
			  const char *names, bool one, const struct selection *sel,
			  datalake_each_fn each, void *ctx, char *err, size_t errlen)
{
	size_t plain = where->len;
	int rc;

	if (names && db_ident(cfg, err, errlen) == 0) {
		add_job_keys(where, cfg->clickhouse_database, names, one);
		if (where->oom) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		rc = select_summaries(cfg, where->p, sel, each, ctx, err, errlen);
		if (rc >= 0 || !clickhouse_is_unknown_table(err))
			return rc;
		where->len = plain;
		where->p[plain] = '\0';
	}
	return select_summaries(cfg, where->p, sel, each, ctx, err, errlen);
}

int datalake_read_summaries(const struct tracer_config *cfg, const struct job_filter *f,
			    long limit, int (*each)(void *ctx, const char *summary_json_line,
						    size_t len),
			    void *ctx, char *err, size_t errlen)
{
	struct growbuf where = {0};
	struct selection sel = {.limit = limit < 0 ? 0 : limit};
	int rc = -1;

	if (datalake_sql_where(f, &where) != 0)
		snprintf(err, errlen, "a filter value holds a control character");
	else if (where.oom)
		snprintf(err, errlen, "out of memory");
	else
		rc = select_by_keys(cfg, &where, f->job_ids, false, &sel, each, ctx, err,
				    errlen) < 0 ? -1 : 0;
	growbuf_free(&where);
	return rc;
}

int datalake_read_jobs(const struct tracer_config *cfg, const struct job_filter *f,
		       const char *job_states, long jobs, datalake_each_fn each, void *ctx,
		       char *err, size_t errlen)
{
	struct growbuf where = {0}, having = {0};
	struct selection sel = {.jobs = jobs};
	int rc = -1;

	if (jobs <= 0) /* every job: every summary */
		return datalake_read_summaries(cfg, f, 0, each, ctx, err, errlen);
	/* the state is the job's, of all its steps: in HAVING, not per row */
	adds(&having, "1");
	if (datalake_sql_where(f, &where) != 0 || datalake_sql_list(&having, job_states, DATALAKE_L_STATE, JOB_STATE, NULL) != 0)
		snprintf(err, errlen, "a filter value holds a control character");
	else if (where.oom || having.oom)
		snprintf(err, errlen, "out of memory");
	else {
		sel.having = having.p;
		rc = select_by_keys(cfg, &where, f->job_ids, false, &sel, each, ctx, err,
				    errlen) < 0 ? -1 : 0;
	}
	growbuf_free(&where);
	growbuf_free(&having);
	return rc;
}

int datalake_read_job(const struct tracer_config *cfg, const char *name,
		      const struct job_filter *f, datalake_each_fn each, void *ctx, char *err,
		      size_t errlen)
{
	struct growbuf where = {0}, id = {0}, sched = {0}, rank = {0};
	struct selection sel = {.limit = 1};
	const char *dot = strchr(name, '.');
	int rc = -1;

	if (datalake_sql_where(f, &where) != 0)
		goto bad;
	if (strcmp(name, "last") != 0) {
		/*
		 * As sumfile_find ranks the file archive's: the job uid (or
		 * summary id) first, then the job (or job.step) of a scheduler
		 * only root registers, then a job id or task name anyone can
		 * choose; a better match wins over a newer one, so a user's
		 * task named "1234" cannot shadow Slurm's job 1234.
		 */
		adds(&id, "(job = ");
		if (datalake_sql_literal(&id, name, strlen(name)) != 0)
			goto bad;
		adds(&id, " OR summary_id = ");
		datalake_sql_literal(&id, name, strlen(name));
		adds(&id, ")");
		adds(&sched, "(job_id = ");
		datalake_sql_literal(&sched, name, strlen(name));
		if (dot) {
			adds(&sched, " OR ");
			datalake_sql_word(&sched, DATALAKE_L_JOB, "job_id", name, strlen(name));
		}
		adds(&sched, ")");
		growbuf_printf(&where, " AND (%s OR %s OR task_name = ", id.p, sched.p);
		datalake_sql_literal(&where, name, strlen(name));
		adds(&where, ")");
		growbuf_printf(&rank, "multiIf(%s, 3, scheduler IN ('slurm', 'aws-batch') AND %s,"
			       " 2, 1)", id.p, sched.p);
	}
	if (where.oom || id.oom || sched.oom || rank.oom) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	sel.rank = rank.p;
	rc = select_by_keys(cfg, &where, rank.len ? name : NULL, true, &sel, each, ctx, err,
			    errlen);
	if (rc > 1)
		rc = 1;
	goto out;
bad:
	snprintf(err, errlen, "a filter value holds a control character");
out:
	growbuf_free(&where);
	growbuf_free(&id);
	growbuf_free(&sched);
	growbuf_free(&rank);
	return rc;
}

/* ---- for other readers of the datalake (tune_read.c) ---- */

int datalake_query(const struct tracer_config *cfg, const char *sql, char **out, size_t *len,
		   char *err, size_t errlen)
{
	return datalake_query_within(cfg, sql, TRACER_DATALAKE_TIMEOUT_MS, out, len, err, errlen);
}

int datalake_query_within(const struct tracer_config *cfg, const char *sql, long timeout_ms,
			  char **out, size_t *len, char *err, size_t errlen)
{
	*out = NULL;
	*len = 0;
	if (run_query(cfg, sql, timeout_ms, out, len, err, errlen) != 0) {
		explain_schema(cfg, err, errlen);
		return -1;
	}
	return 0;
}

const char *datalake_database(const struct tracer_config *cfg, char *err, size_t errlen)
{
	return db_ident(cfg, err, errlen) == 0 ? cfg->clickhouse_database : NULL;
}
