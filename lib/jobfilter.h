/*
 * jobfilter.h - which finished or running jobs a listing shows, with
 * sacct's selection rules (`tracer jobs` filters, and tracerd answering
 * a user's listing over its socket).
 */
#ifndef TRACER_JOBFILTER_H
#define TRACER_JOBFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

/* Every field set must match. */
struct job_filter {
	const char *users;   /* -u: comma list of user names or uids */
	const char *states;  /* --state: comma list of state words (sacct's) */
	const char *names;   /* --name: comma list of task names */
	const char *runs;    /* -r: comma list of run ids or run names */
	const char *job_ids; /* -j: comma list of JOBID (every step and, for an
			      * array's job id, every task), JOBID.STEP (one
			      * step) or ARRAYJOBID_TASK (one array task) */
	const char *accounts;   /* -A: comma list of accounts */
	const char *partitions; /* --partition: comma list of partitions
				 * (identity.queue: Slurm partition or AWS
				 * Batch queue) */
	const char *nodes;      /* --node: comma list of host names */
	int64_t since_ns;    /* -S: ended at or after (INT64_MIN: any) */
	int64_t until_ns;    /* -E: started at or before (INT64_MAX: any) */
	int64_t owner_uid;   /* only the jobs of this uid (-1: everyone's);
			      * set by tracerd, never by the asker */
};

void job_filter_init(struct job_filter *f);
/* sacct's state word for the n bytes at w ("CD" -> "COMPLETED"); the
 * word itself (copied into buf) when it is no abbreviation. */
const char *job_filter_state_word(const char *w, size_t n, char *buf, size_t len);
bool job_filter_match(const struct job_filter *f, const cJSON *identity,
		      const char *state, int64_t start_ns, int64_t end_ns);
/* The host part of a filter: does hostname pass --node? */
/* identity.node_name when the summary has one, else host.hostname. */
const char *job_filter_node_of(const cJSON *summary);
bool job_filter_host(const struct job_filter *f, const char *hostname);
bool job_filter_summary(const struct job_filter *f, const cJSON *summary);

#endif
