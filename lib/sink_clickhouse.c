/*
 * sink_clickhouse.c - the ClickHouse sink: summaries become rows of the
 * datalake's tables (sink_clickhouse_rows.c: jobs, tools, processes,
 * flags), inserted over ClickHouse's HTTP interface with
 * INSERT INTO db.table FORMAT JSONEachRow, one insert per table per
 * batch.  Every table is a ReplacingMergeTree whose sorting key holds
 * summary_id: a batch inserted twice (a retry after a lost reply) leaves
 * no visible duplicate with FINAL.  The jobs row carries the whole
 * summary (column summary), as the spool holds it.  An idle_host record
 * is a row of idle_hosts instead (schema v5, sink_clickhouse_idle.c).
 *
 * The server's version and the schema's (max(version) of schema_version;
 * none: version 1) are asked once per connection and again after a
 * failed insert.  A schema newer than this tracerd writes is refused:
 * nothing is inserted, the summaries stay spooled until the datalake is
 * one this tracerd knows (or tracerd is upgraded).  Version 1 takes the
 * rows as they are: its unknown columns are skipped
 * (input_format_skip_unknown_fields).  What differs between server
 * versions is decided in clickhouse.c.
 */
#include "sink_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "defaults.h"

enum {
	T_JOBS = CLICKHOUSE_SINK_JOBS,
	T_TOOLS = CLICKHOUSE_SINK_TOOLS,
	T_PROCESSES = CLICKHOUSE_SINK_PROCESSES,
	T_FLAGS = CLICKHOUSE_SINK_FLAGS,
	T_IDLE = CLICKHOUSE_SINK_IDLE_HOSTS,
	T_COUNT = CLICKHOUSE_SINK_TABLES
};
static const char *const table_names[T_COUNT] = {"jobs", "tools", "processes", "flags",
						 "idle_hosts"};

static void url_encode(struct growbuf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[3] = {'%', hex[c >> 4], hex[c & 15]};
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '_' || c == '.' || c == '-')
			growbuf_add(b, (const char *)&c, 1);
		else
			growbuf_add(b, e, 3);
	}
}

struct ch_ctx {
	struct sink *s;
	char password[512];
	long timeout_ms;
	const _Atomic int *abort;
	struct growbuf *out; /* when set: the whole answer (http_post.body_out) */
};

static int ch_post(struct ch_ctx *c, const char *query, const char *settings,
		   const char *body, size_t len, struct http_post *r, char *err, size_t errlen)
{
	const struct tracer_config *cfg = c->s->cfg;
	struct growbuf url = {0};
	int rc;

	growbuf_add(&url, cfg->clickhouse_url, strlen(cfg->clickhouse_url));
	growbuf_add(&url, strchr(cfg->clickhouse_url, '?') ? "&" : "?", 1);
	growbuf_add(&url, "query=", 6);
	url_encode(&url, query);
	if (settings)
		growbuf_add(&url, settings, strlen(settings));
	if (url.oom) {
		growbuf_free(&url);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*r = (struct http_post){.url = url.p, .body = body, .len = len,
				.ca_file = cfg->http_ca_file, .user = cfg->clickhouse_user,
				.password = c->password, .timeout_ms = c->timeout_ms,
				.abort = c->abort, .body_out = c->out};
	rc = sink_http_post_run(r, err, errlen);
	growbuf_free(&url);
	return rc;
}

/* The datalake's schema version (none: 1, made before versions were
 * recorded); a newer one than this tracerd writes is refused. */
static int ch_schema(struct ch_ctx *c, char *err, size_t errlen)
{
	char query[160];
	struct http_post r;
	unsigned v = 1;

	snprintf(query, sizeof(query), "SELECT max(version) FROM %s.schema_version",
		 c->s->cfg->clickhouse_database);
	if (ch_post(c, query, NULL, "", 0, &r, err, errlen) == 0) {
		if (sscanf(r.reply, "%u", &v) != 1) {
			snprintf(err, errlen, "unexpected answer to %s: %.60s", query, r.reply);
			return -1;
		}
	} else if (!clickhouse_is_unknown_table(err)) {
		return -1;
	}
	c->s->ch_schema = v;
	if (v > TRACER_CLICKHOUSE_SCHEMA) {
		snprintf(err, errlen,
			 "schema version %u unknown (this tracerd writes %d); "
			 "run tracer datalake migrate, or upgrade tracerd",
			 v, TRACER_CLICKHOUSE_SCHEMA);
		return -1;
	}
	return 0;
}

static int ch_version(struct ch_ctx *c, char *err, size_t errlen)
{
	struct http_post r;

	if (c->s->ch_known)
		return 0;
	if (ch_post(c, "SELECT version()", NULL, "", 0, &r, err, errlen) != 0)
		return -1;
	if (clickhouse_parse_version(r.reply, &c->s->ch_server) != 0) {
		snprintf(err, errlen, "unexpected answer to SELECT version(): %.60s", r.reply);
		return -1;
	}
	if (ch_schema(c, err, errlen) != 0)
		return -1;
	c->s->ch_known = true;
	return 0;
}

static int ch_insert(struct ch_ctx *c, int table, const struct growbuf *rows, char *err,
		     size_t errlen)
{
	const struct tracer_config *cfg = c->s->cfg;
	char query[256], settings[256];
	struct http_post r;
	size_t n;

	snprintf(query, sizeof(query), "INSERT INTO %s.%s FORMAT JSONEachRow",
		 cfg->clickhouse_database, table_names[table]);
	clickhouse_settings(&c->s->ch_server, CLICKHOUSE_INSERT, settings, sizeof(settings));
	n = strlen(settings);
	if (clickhouse_has(&c->s->ch_server, 22, 2)) /* the same rows again are the same insert */
		snprintf(settings + n, sizeof(settings) - n,
			 "&insert_deduplication_token=%s-%08lx", table_names[table],
			 crc32(0, (const Bytef *)rows->p, (uInt)rows->len));
	if (ch_post(c, query, settings, rows->p, rows->len, &r, err, errlen) != 0) {
		/* ask again: it may be another server, or another schema, now */
		c->s->ch_known = false;
		return -1;
	}
	return 0;
}

int sink_clickhouse_probe(struct sink *s, long timeout_ms, const _Atomic int *abort,
			  char *err, size_t errlen)
{
	struct ch_ctx c = {.s = s, .timeout_ms = timeout_ms, .abort = abort};
	int rc;

	if (s->ch_known)
		return 0;
	if (s->cfg->clickhouse_password_file[0] &&
	    sink_http_read_secret(s->cfg->clickhouse_password_file, c.password, sizeof(c.password), err,
			errlen) != 0)
		return -1;
	rc = ch_version(&c, err, errlen);
	memset(c.password, 0, sizeof(c.password));
	return rc;
}

/* Unsure whether an earlier try went in (sink_clickhouse_seen.c): mark
 * in skip the summaries the datalake has (schema v7: the sweep counts a
 * job of one summary from its row as it is).  0, -1 with err. */
static int already_there(struct ch_ctx *c, char *const *texts, const size_t *lens, size_t n,
			 bool *skip, size_t *found, char *err, size_t errlen)
{
	struct growbuf q = {0}, body = {.max = SINK_REPLY_BODY_MAX};
	struct http_post r;
	int asked, rc = -1;

	*found = 0;
	if (c->s->ch_sure || c->s->ch_schema < 7)
		return 0;
	asked = sink_clickhouse_seen_sql(c->s->cfg->clickhouse_database, texts, lens, n, &q);
	if (q.oom || body.oom) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (!asked) { /* no summary to ask about */
		rc = 0;
		goto out;
	}
	c->out = &body;
	rc = ch_post(c, "", NULL, q.p, q.len, &r, err, errlen); /* the query as the body */
	c->out = NULL;
	if (rc == 0 && body.oom) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	if (rc == 0)
		*found = sink_clickhouse_seen_mark(body.p ? body.p : "", texts, lens, n, skip);
out:
	growbuf_free(&q);
	growbuf_free(&body);
	return rc;
}

int sink_clickhouse_deliver(struct sink *s, char *const *texts, const size_t *lens,
			    size_t n, long timeout_ms, const _Atomic int *abort,
			    char *err, size_t errlen)
{
	struct ch_ctx c = {.s = s, .timeout_ms = timeout_ms, .abort = abort};
	struct growbuf rows[T_COUNT];
	size_t bad = 0, idle_left = 0, found = 0;
	bool *skip = calloc(n ? n : 1, sizeof(*skip)), note_failed = false;
	char note[256] = "";
	int rc = -1;

	memset(rows, 0, sizeof(rows));
	if (!skip) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (s->cfg->clickhouse_password_file[0] &&
	    sink_http_read_secret(s->cfg->clickhouse_password_file, c.password, sizeof(c.password), err,
			errlen) != 0) {
		free(skip);
		return -1;
	}
	if (ch_version(&c, err, errlen) != 0)
		goto out;
	if (already_there(&c, texts, lens, n, skip, &found, note, sizeof(note)) != 0) {
		/* not asked (no SELECT on job_use?): inserted as before, said */
		memset(skip, 0, n * sizeof(*skip));
		found = 0;
		note_failed = true;
	}
	for (size_t i = 0; i < n; i++)
		if (!skip[i] && sink_clickhouse_rows(texts[i], lens[i], rows) != 0)
			bad++; /* the spool checked it: cannot happen short of memory */
	for (int t = 0; t < T_COUNT; t++)
		if (rows[t].oom || (bad && bad == n)) {
			snprintf(err, errlen, "out of memory building rows");
			goto out;
		}
	/* jobs last: a job's row means its tools and processes are in; idle
	 * hosts only into a datalake that has their table (v5): before, the
	 * records are left out and counted rather than held up forever */
	for (int t = T_TOOLS; t < T_COUNT; t++)
		if (t == T_IDLE && rows[t].len && s->ch_schema < 5)
			idle_left = sink_clickhouse_idle_count(&rows[t]);
		else if (rows[t].len && ch_insert(&c, t, &rows[t], err, errlen) != 0)
			goto out;
	if (rows[T_JOBS].len && ch_insert(&c, T_JOBS, &rows[T_JOBS], err, errlen) != 0)
		goto out;
	if (idle_left) /* a note for the log, not a failure */
		snprintf(err, errlen, "%zu idle_host records left out: the datalake is at schema "
			 "version %u, tracer.idle_hosts needs 5 (tracer datalake migrate)",
			 idle_left, s->ch_schema);
	else if (found)
		snprintf(err, errlen, "%zu summaries already in the datalake (an earlier try's "
			 "answer was lost): not inserted again", found);
	else if (note_failed)
		snprintf(err, errlen, "could not ask which summaries are already in the "
			 "datalake (inserted all the same): %s", note);
	/* sure again once a batch asked about had none there */
	s->ch_sure = !found && !note_failed;
	s->ch_already += found;
	rc = 0;
out:
	if (rc != 0)
		s->ch_sure = false;
	free(skip);
	memset(c.password, 0, sizeof(c.password));
	for (int t = 0; t < T_COUNT; t++)
		growbuf_free(&rows[t]);
	return rc;
}

int sink_clickhouse_select(const struct tracer_config *cfg, const char *query, long timeout_ms,
		      char **out, size_t *len, char *err, size_t errlen)
{
	return clickhouse_exec(cfg, query, NULL, timeout_ms, out, len, err, errlen);
}
