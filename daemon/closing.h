/*
 * closing.h - the end of a job without waiting in tracerd's loop: its
 * processes settled a few at a time, then its summary (jobs_finish);
 * the reconcile of processes whose exit record was lost.  The closing's
 * state is its own: struct closing_job in each open job, struct closing
 * in the table (jobs.h holds both as members); only closing.c reads
 * them, other modules ask through the functions below.
 */
#ifndef TRACERD_CLOSING_H
#define TRACERD_CLOSING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct jobs;
struct open_job;

/* An answer to a request kept open (server_answer): reply is malloc'd. */
typedef void (*closing_answer_fn)(void *ctx, uint64_t ticket, char *reply);

/* One job's closing, in struct open_job. */
struct closing_job {
	bool active;               /* ended, its processes being settled */
	const char *why;
	uint64_t since_ns;         /* monotonic */
	pid_t *settle;             /* live pids still to settle */
	size_t nsettle, settle_pos;
	uint64_t answer_ticket;    /* end request answered at the summary; 0 none */
	uint64_t answer_by_ns;     /* ... or "ok" at this time, whichever first */
	size_t check_bucket;       /* reconcile cursor in the live table */
};

/* The closing of every job, in struct jobs. */
struct closing {
	size_t nclosing;           /* jobs closing now */
	closing_answer_fn answer;  /* NULL: end requests are answered at once */
	void *answer_ctx;
};

/* Where an end request kept open is answered (tracerd: its server). */
void closing_set_answer(struct jobs *js, closing_answer_fn fn, void *ctx);

/* Start closing oj: from now on its processes are settled a few at a time. */
void closing_start(struct jobs *js, struct open_job *oj, const char *why);
/* Some closing work is waiting: call closing_step() again soon. */
bool closing_busy(const struct jobs *js);
/* How many jobs are closing (tracer status). */
size_t closing_count(const struct jobs *js);
/* Is oj closing?  Since when (monotonic ns, 0 when it is not)? */
bool closing_active(const struct open_job *oj);
uint64_t closing_since_ns(const struct open_job *oj);
/* A bounded slice of the closing work of every closing job. */
void closing_step(struct jobs *js);
/* A bounded slice of reconcile: processes gone without exit record. */
void closing_reconcile(struct jobs *js);
/* Close every closing job, waiting as needed (shutdown only). */
void closing_drain(struct jobs *js);
/* jobs_end's work: the reply, or NULL when answered later. */
char *closing_end(struct jobs *js, struct open_job *oj, uint64_t ticket);
/* Finish oj now, its processes not settled: a job already closed whose
 * summary is rebuilt (journal.c). */
void closing_finish_now(struct jobs *js, struct open_job *oj, const char *why);

/* jobs_finish: why oj closed, for its log line. */
const char *closing_why(const struct open_job *oj);
/* jobs_finish: oj's end request answered, its closing state released
 * (oj is then forgotten by the table). */
void closing_forget(struct jobs *js, struct open_job *oj);
/* jobs_fini: oj's closing state released, nothing answered. */
void closing_free(struct open_job *oj);

#endif
