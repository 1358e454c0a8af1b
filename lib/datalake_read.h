/*
 * datalake_read.h - summaries read back from the datalake (ClickHouse's
 * tracer.jobs, its `summary` column: the summary exactly as tracerd
 * wrote it), selected by a job_filter that is turned into SQL.  What the
 * CLI (root) and tracerd's archive workers use when tracer.conf has
 * `datalake = clickhouse`.  Bounded: one query within
 * TRACER_DATALAKE_TIMEOUT_MS, an answer of at most
 * TRACER_DATALAKE_REPLY_MAX bytes.
 */
#ifndef TRACER_DATALAKE_READ_H
#define TRACER_DATALAKE_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "jobfilter.h"

/* Called once per summary (one JSON object, len bytes, not NUL-terminated
 * in general); non-zero stops the reading (not an error). */
typedef int (*datalake_each_fn)(void *ctx, const char *summary_json_line, size_t len);

/* Is the datalake configured (datalake = clickhouse)? */
bool datalake_configured(const struct tracer_config *cfg);

/*
 * The credentials tracerd will use: clickhouse_password_file (when set)
 * must be a regular file owned by root that no one else may read or
 * write (0600), and readable.  0, or -1 with the reason in err.
 */
int datalake_check_credentials(const struct tracer_config *cfg, char *err, size_t errlen);

/*
 * The newest `limit` summaries (0: all) that pass f, oldest first, each
 * handed to each().  0, or -1 with the reason in err ("ClickHouse at URL:
 * HTTP 404: ...", "schema version 1 has no summary column: run tracer
 * datalake migrate").  The password is read from clickhouse_password_file
 * at each call.
 */
int datalake_read_summaries(const struct tracer_config *cfg, const struct job_filter *f,
			    long limit, int (*each)(void *ctx, const char *summary_json_line,
						    size_t len),
			    void *ctx, char *err, size_t errlen);

/*
 * Every summary that passes f of the newest `jobs` jobs (0: of every
 * job) that have one, oldest first: a job is its (scheduler, cluster,
 * job id), or its job uid without a job id, as jobview_group groups
 * them; job_states (NULL: any) is a comma list of states the job's (the
 * worst of its steps') must be one of.  The jobs are chosen on the
 * narrow columns first, their summaries read after.  0, or -1 with err.
 */
int datalake_read_jobs(const struct tracer_config *cfg, const struct job_filter *f,
		       const char *job_states, long jobs, datalake_each_fn each, void *ctx,
		       char *err, size_t errlen);

/* The newest summary whose job uid, summary id, job id (JOB or JOB.STEP)
 * or task name is name and that passes f: 1 (each() called), 0 when none,
 * -1 with err. */
int datalake_read_job(const struct tracer_config *cfg, const char *name,
		      const struct job_filter *f, datalake_each_fn each, void *ctx, char *err,
		      size_t errlen);

/* ---- for other readers of the datalake (tune_read.c, sweep.c, tracer
 * report --clickhouse): every query is read-only (readonly=1) and bounded
 * in time, memory (datalake_max_memory) and answer on the server ---- */
/* (their conditions: datalake_sql.h) */
/* Run sql (its database named through datalake_database) within the
 * deadline and the answer's cap: the answer in *out (malloc'd,
 * NUL-terminated), 0; or -1 with err. */
int datalake_query(const struct tracer_config *cfg, const char *sql, char **out, size_t *len,
		   char *err, size_t errlen);
/* datalake_query within timeout_ms instead (an aggregate over a month) */
int datalake_query_within(const struct tracer_config *cfg, const char *sql, long timeout_ms,
			  char **out, size_t *len, char *err, size_t errlen);
/*
 * The query id of this thread's next questions (tracerd's archive
 * workers: one per asker), sent to the server with each; NULL or "":
 * none.  Characters other than letters, digits, '.', '_' and '-' become
 * '_'.  The server refuses a question while one of the same id runs
 * (the error says "busy: ..."), so that an asker whose question outlived
 * its deadline cannot start another beside it.
 */
#define DATALAKE_QUERY_ID_MAX 96
void datalake_set_query_id(const char *id);
/* cfg's database as an identifier: NULL with err when it is not a plain
 * name. */
const char *datalake_database(const struct tracer_config *cfg, char *err, size_t errlen);

#endif
