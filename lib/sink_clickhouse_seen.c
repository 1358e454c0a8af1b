/*
 * sink_clickhouse_seen.c - which summaries of a batch the datalake
 * already has, for a batch sent again after an insert whose answer never
 * came (a timeout, a lost connection: the rows may be in) and for the
 * first batch after tracerd starts (a predecessor may have delivered it
 * and died before its spool knew).  The sweep reads the rows of a job of
 * one summary without FINAL (lib/sweep_jobs.c), so such a summary must
 * not arrive twice: the sink asks, by tracer.job_use's sorting key (the
 * job's hash, then the summary's), which of the batch's summaries have
 * their row, and leaves those out (sink_clickhouse.c).  The jobs row is
 * inserted last, so a summary with its row has its tools, processes and
 * flags too.  Host records (idle_host) are not asked about: their table
 * is read with FINAL.
 */
#include "sink_priv.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"

static void adds(struct growbuf *b, const char *s)
{
	growbuf_add(b, s, strlen(s));
}

/* 'v' as a ClickHouse string literal; false for a control character */
static bool literal(struct growbuf *b, const char *v)
{
	adds(b, "'");
	for (const char *c = v; *c; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
		if (*c == '\\' || *c == '\'')
			adds(b, "\\");
		growbuf_add(b, c, 1);
	}
	adds(b, "'");
	return true;
}

static const char *str_of(const cJSON *o, const char *key)
{
	const char *s = json_get_str(o, key, "");

	return s ? s : "";
}

/* summary text i's summary_id, job hash arguments; false when it is a
 * record, not a summary, or has no summary_id */
static bool summary_keys(const char *text, size_t len, struct growbuf *ids, struct growbuf *jobs,
			 struct growbuf *shs, bool first)
{
	cJSON *s = cJSON_ParseWithLength(text, len);
	const cJSON *id = s ? cJSON_GetObjectItemCaseSensitive(s, "identity") : NULL;
	const char *sid = str_of(s, "summary_id"), *job_id = str_of(id, "job_id");
	struct growbuf one = {0};
	bool ok = false;

	if (!cJSON_IsObject(s) || cJSON_GetObjectItemCaseSensitive(s, "record") || !*sid ||
	    !strcmp(str_of(id, "scheduler"), "host") || strcspn(sid, "\t\n\\'") != strlen(sid))
		goto out;
	/* as job_use_mv hashes them (007_v7.sql) */
	adds(&one, "cityHash64(");
	ok = literal(&one, str_of(id, "scheduler"));
	adds(&one, ", ");
	ok = ok && literal(&one, str_of(id, "cluster"));
	adds(&one, ", ");
	ok = ok && literal(&one, *job_id ? job_id : str_of(s, "job"));
	adds(&one, ")");
	if (!ok || one.oom)
		goto out;
	adds(ids, first ? "" : ", ");
	adds(jobs, first ? "" : ", ");
	adds(shs, first ? "" : ", ");
	literal(ids, sid);
	growbuf_add(jobs, one.p, one.len);
	adds(shs, "cityHash64(");
	literal(shs, sid);
	adds(shs, ")");
out:
	growbuf_free(&one);
	cJSON_Delete(s);
	return ok;
}

int sink_clickhouse_seen_sql(const char *db, char *const *texts, const size_t *lens, size_t n,
			     struct growbuf *q)
{
	struct growbuf ids = {0}, jobs = {0}, shs = {0};
	size_t asked = 0;

	for (size_t i = 0; i < n; i++)
		asked += summary_keys(texts[i], lens[i], &ids, &jobs, &shs, asked == 0);
	if (asked)
		growbuf_printf(q,
			       "SELECT s FROM (SELECT arrayJoin([%s]) AS s) WHERE cityHash64(s) IN"
			       " (SELECT sh FROM %s.job_use PREWHERE jh IN (%s) WHERE sh IN (%s))"
			       " FORMAT TSV",
			       ids.p, db, jobs.p, shs.p);
	if (ids.oom || jobs.oom || shs.oom)
		q->oom = true;
	growbuf_free(&ids);
	growbuf_free(&jobs);
	growbuf_free(&shs);
	return asked ? 1 : 0;
}

size_t sink_clickhouse_seen_mark(const char *reply, char *const *texts, const size_t *lens,
				 size_t n, bool *skip)
{
	size_t marked = 0;

	for (size_t i = 0; i < n; i++) {
		cJSON *s = cJSON_ParseWithLength(texts[i], lens[i]);
		const char *sid = str_of(s, "summary_id");
		size_t len = strlen(sid);

		skip[i] = false;
		for (const char *l = reply; *sid && l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
			if (!strncmp(l, sid, len) && (l[len] == '\n' || l[len] == '\0')) {
				skip[i] = true;
				marked++;
				break;
			}
		cJSON_Delete(s);
	}
	return marked;
}
