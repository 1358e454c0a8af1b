/*
 * datalake_sql.h - a selection (a job_filter, a name) as ClickHouse SQL:
 * values as quoted string literals, a value with a control character
 * refused.  Every reader of the datalake builds its conditions here.
 */
#ifndef TRACER_DATALAKE_SQL_H
#define TRACER_DATALAKE_SQL_H

#include <stddef.h>

#include "jobfilter.h"

struct growbuf;

/* how the words of a list compare with their column */
enum datalake_list_kind {
	DATALAKE_L_PLAIN, /* col = 'word' */
	DATALAKE_L_USER,  /* a name, or digits: the uid */
	DATALAKE_L_STATE, /* a state, as job_filter_match spells it, any case */
	DATALAKE_L_JOB,   /* JOB, JOB.STEP, ARRAYJOB or ARRAYJOB_TASK */
};

/* v[0..n) as a quoted string literal into b: 0, or -1 for a control
 * character */
int datalake_sql_literal(struct growbuf *b, const char *v, size_t n);

/* one word w[0..n) of a list as a condition on col: 0, or -1 */
int datalake_sql_word(struct growbuf *b, enum datalake_list_kind kind, const char *col,
		      const char *w, size_t n);

/* " AND (col = 'a' OR col = 'b' ...)" for a comma list (col2 too when not
 * NULL; an empty list matches nothing); nothing for NULL.  0, or -1 */
int datalake_sql_list(struct growbuf *b, const char *list, enum datalake_list_kind kind,
		      const char *col, const char *col2);

/* f's WHERE condition appended to b ("1" when f selects all): 0, or -1
 * (a control character) */
int datalake_sql_where(const struct job_filter *f, struct growbuf *b);

/* the same into out (for the tests): 0, or -1 with err */
int datalake_sql_where_str(const struct job_filter *f, char *out, size_t outlen, char *err,
			   size_t errlen);

#endif
