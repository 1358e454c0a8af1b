/*
 * datalake_sql.c - a selection as ClickHouse SQL (datalake_sql.h).
 *
 * A user controls the names a filter holds, so every value goes into the
 * SQL as a quoted string literal with its backslashes and quotes escaped,
 * and a value with a control character is refused; numbers are printed
 * from integers.  The only place where a user's words become SQL: the
 * readers of the datalake (datalake_read.c, tune_read.c, tracer report
 * --clickhouse) build their conditions here.
 */
#include "datalake_sql.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "growbuf.h"

static void adds(struct growbuf *b, const char *s)
{
	growbuf_add(b, s, strlen(s));
}

int datalake_sql_literal(struct growbuf *b, const char *v, size_t n)
{
	adds(b, "'");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];

		if (c < 0x20 || c == 0x7f)
			return -1;
		if (c == '\\' || c == '\'')
			adds(b, "\\");
		growbuf_add(b, (const char *)&v[i], 1);
	}
	adds(b, "'");
	return 0;
}

static bool all_digits(const char *w, size_t n)
{
	if (n == 0 || n > 18)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)w[i]))
			return false;
	return true;
}

int datalake_sql_word(struct growbuf *b, enum datalake_list_kind kind, const char *col,
		      const char *w, size_t n)
{
	char buf[64];
	const char *dot, *us;

	switch (kind) {
	case DATALAKE_L_USER:
		if (all_digits(w, n))
			return growbuf_printf(b, "uid = %.*s", (int)n, w), 0;
		break;
	case DATALAKE_L_STATE:
		w = job_filter_state_word(w, n, buf, sizeof(buf));
		n = strlen(w);
		growbuf_printf(b, "upper(%s) = upper(", col);
		if (datalake_sql_literal(b, w, n) != 0)
			return -1;
		return adds(b, ")"), 0;
	case DATALAKE_L_JOB:
		/* as job_filter_match: the job or array job id, JOB.STEP, or
		 * ARRAYJOB_TASK (each split at its last separator) */
		dot = memrchr(w, '.', n);
		us = memrchr(w, '_', n);
		adds(b, "(job_id = ");
		if (datalake_sql_literal(b, w, n) != 0)
			return -1;
		adds(b, " OR array_job_id = ");
		datalake_sql_literal(b, w, n);
		if (dot) {
			adds(b, " OR (job_id = ");
			datalake_sql_literal(b, w, (size_t)(dot - w));
			adds(b, " AND step_id = ");
			datalake_sql_literal(b, dot + 1, n - (size_t)(dot - w) - 1);
			adds(b, ")");
		}
		if (us && all_digits(us + 1, n - (size_t)(us - w) - 1)) {
			adds(b, " OR (array_job_id = ");
			datalake_sql_literal(b, w, (size_t)(us - w));
			growbuf_printf(b, " AND array_task_id = %.*s)",
				       (int)(n - (size_t)(us - w) - 1), us + 1);
		}
		return adds(b, ")"), 0;
	default:
		break;
	}
	growbuf_printf(b, "%s = ", col);
	return datalake_sql_literal(b, w, n);
}

int datalake_sql_list(struct growbuf *b, const char *list, enum datalake_list_kind kind,
		      const char *col, const char *col2)
{
	const char *p = list;
	bool first = true;

	if (!list)
		return 0;
	adds(b, " AND (");
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n > 0) {
			if (!first)
				adds(b, " OR ");
			first = false;
			if (datalake_sql_word(b, kind, col, p, n) != 0)
				return -1;
			if (col2) {
				adds(b, " OR ");
				if (datalake_sql_word(b, kind, col2, p, n) != 0)
					return -1;
			}
		}
		p += n;
		if (*p == ',')
			p++;
	}
	if (first) /* an empty list matches nothing, as in job_filter_match */
		adds(b, "0");
	adds(b, ")");
	return 0;
}

int datalake_sql_where(const struct job_filter *f, struct growbuf *b)
{
	adds(b, "1");
	if (f->owner_uid >= 0)
		growbuf_printf(b, " AND uid = %" PRId64, f->owner_uid);
	if (datalake_sql_list(b, f->users, DATALAKE_L_USER, "user", NULL) != 0 ||
	    datalake_sql_list(b, f->states, DATALAKE_L_STATE, "state", NULL) != 0 ||
	    datalake_sql_list(b, f->names, DATALAKE_L_PLAIN, "task_name", NULL) != 0 ||
	    datalake_sql_list(b, f->runs, DATALAKE_L_PLAIN, "run_id", "run_name") != 0 ||
	    datalake_sql_list(b, f->job_ids, DATALAKE_L_JOB, "job_id", NULL) != 0 ||
	    datalake_sql_list(b, f->accounts, DATALAKE_L_PLAIN, "account", NULL) != 0 ||
	    datalake_sql_list(b, f->partitions, DATALAKE_L_PLAIN, "partition", NULL) != 0 ||
	    datalake_sql_list(b, f->nodes, DATALAKE_L_PLAIN, "host", NULL) != 0)
		return -1;
	/* as job_filter_match: -S keeps what ended then or later, -E what
	 * had started by then */
	if (f->since_ns != INT64_MIN) {
		int64_t since = f->since_ns < 0 ? 0 : f->since_ns;

		/* end (seconds) too: it is in the sorting key, end_ns is not */
		growbuf_printf(b, " AND end >= toDateTime(%" PRId64 ") AND end_ns >= %" PRId64,
			       since / 1000000000, since);
	}
	if (f->until_ns != INT64_MAX)
		growbuf_printf(b, " AND start_ns <= %" PRId64, f->until_ns < 0 ? 0 : f->until_ns);
	return 0;
}

int datalake_sql_where_str(const struct job_filter *f, char *out, size_t outlen, char *err,
		   size_t errlen)
{
	struct growbuf b = {0};
	int rc = -1;

	if (datalake_sql_where(f, &b) != 0)
		snprintf(err, errlen, "a filter value holds a control character");
	else if (b.oom || b.len >= outlen)
		snprintf(err, errlen, "the selection is too long");
	else
		rc = snprintf(out, outlen, "%s", b.p) < 0 ? -1 : 0;
	growbuf_free(&b);
	return rc;
}
