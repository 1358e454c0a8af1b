/*
 * sumfile.h - read job summaries back from the file sink's archive (one
 * NDJSON line per summary; rotated files FILE.1 the newest ... FILE.N).
 * Lines of another record kind (an idle host's period: "record":
 * "idle_host") are skipped by the readers of summaries and read by
 * sumfile_records_each.  The one reader of the archive: `tracer` uses it when it may read the
 * file itself (root), tracerd to answer a user's listing over its socket
 * with that user's jobs only.  Nothing here prints: what went wrong is in
 * struct sumfile_status.
 */
#ifndef TRACER_SUMFILE_H
#define TRACER_SUMFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "jobfilter.h"

struct sumfile_status {
	/* in (zeroed: no limit) */
	uint64_t deadline_ns;        /* CLOCK_MONOTONIC: stop reading then */
	const _Atomic int *cancel;  /* non-zero: stop reading */
	/* out */
	unsigned long bad;           /* lines that did not parse, skipped */
	bool truncated;              /* stopped early (deadline, cancel) */
	int open_errno;              /* a file could not be opened: its errno */
	char failed_path[256];       /* ... and its name */
};

/* The last `max` summaries of the file that pass f (NULL: all; max 0: no
 * limit), oldest first; NULL when the file cannot be read or on OOM. */
cJSON *sumfile_tail(const char *path, size_t max, const struct job_filter *f,
		      struct sumfile_status *st);

/* The summary whose job uid, Slurm/AWS job id (job or job.step) or task
 * name matches name and that passes f (NULL: any); "last" names the
 * newest.  A scheduler's job outranks a user-chosen name, then the newest
 * wins.  NULL when none (st->open_errno says whether the file was read). */
cJSON *sumfile_find(const char *path, const char *name, const struct job_filter *f,
		    struct sumfile_status *st);

/* Every summary of the archive that passes f, oldest file first: FILE.N
 * ... FILE.1, then FILE.  fn gets each parsed summary (freed after it
 * returns); non-zero from fn stops.  Returns 0, fn's value, or -1 when a
 * file cannot be read; *files is the number of files read. */
typedef int (*summary_fn)(const cJSON *s, void *ctx);
/* The same for one file only (no rotated ones). */
int sumfile_each_file(const char *path, const struct job_filter *f, summary_fn fn,
			void *ctx, struct sumfile_status *st);
int sumfile_each(const char *path, const struct job_filter *f, summary_fn fn, void *ctx,
		   int *files, struct sumfile_status *st);
/* The archive's other records (a line with "record": kind, such as
 * SUMMARY_IDLE_HOST_RECORD), in the same order; every function above
 * skips them: they are not job summaries. */
int sumfile_records_each(const char *path, const char *kind, summary_fn fn, void *ctx,
			 int *files, struct sumfile_status *st);

#endif
