/*
 * tune_read.h - the runs `tracer tune` learns from, read from the
 * ClickHouse datalake as one row per job with only the columns tuning
 * needs (never the whole summary), so that a pipeline's month stays
 * fast on a table of millions of jobs.  Selection and quoting are
 * datalake_sql.c's, the bounds datalake_read.c's.
 */
#ifndef TRACER_TUNE_READ_H
#define TRACER_TUNE_READ_H

#include <stddef.h>

#include "config.h"
#include "datalake_read.h"
#include "growbuf.h"
#include "jobfilter.h"
#include "tune.h"

/* Called once per job; non-zero stops (-1: an error). */
typedef int (*tune_read_fn)(void *ctx, const struct tune_run *run);

/*
 * The newest max jobs that pass f and, when pipeline is not NULL, of that
 * pipeline, each rolled up over its steps and nodes and handed to each().
 * 0, or -1 with the reason in err.
 */
int tune_read_datalake(const struct tracer_config *cfg, const struct job_filter *f,
		       const char *pipeline, long max, tune_read_fn each, void *ctx, char *err,
		       size_t errlen);

/* The same rows as JSON lines (ClickHouse's JSONEachRow), each handed to
 * each() as it came (tracerd passes them on to the asker). */
int tune_read_lines(const struct tracer_config *cfg, const struct job_filter *f,
		    const char *pipeline, long max, datalake_each_fn each, void *ctx, char *err,
		    size_t errlen);

/* The SQL of that query (exposed for the tests): 0, or -1 with err. */
int tune_read_sql(const struct tracer_config *cfg, const struct job_filter *f,
		  const char *pipeline, long max, struct growbuf *sql, char *err, size_t errlen);

/* One row of its answer (a JSON object, as text or parsed) as a run:
 * false when unusable. */
bool tune_read_row(const char *line, size_t len, struct tune_run *r);
bool tune_read_obj(const cJSON *row, struct tune_run *r);
/* The CPUs a job needed, by the archive's rule (lib/tune.c): its
 * concurrency p95 (conc: the nodes' summed), from several summaries
 * (steps > 1) the roll-up's request per node, at least its mean CPU use
 * per node rounded up; at least 1. */
double tune_read_cpus(double conc, double steps, double cpu_s, double wall_s, double nodes);

#endif
