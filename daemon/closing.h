/*
 * closing.h - the end of a job without waiting in tracerd's loop: its
 * processes settled a few at a time, then its summary (jobs_finish);
 * the reconcile of processes whose exit record was lost.
 */
#ifndef TRACERD_CLOSING_H
#define TRACERD_CLOSING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#include "jobs.h"

/* Start closing oj: from now on its processes are settled a few at a time. */
void closing_start(struct jobs *js, struct open_job *oj, const char *why);
/* Some closing work is waiting: call closing_step() again soon. */
bool closing_busy(const struct jobs *js);
/* A bounded slice of the closing work of every closing job. */
void closing_step(struct jobs *js);
/* A bounded slice of reconcile: processes gone without exit record. */
void closing_reconcile(struct jobs *js);
/* Close every closing job, waiting as needed (shutdown only). */
void closing_drain(struct jobs *js);
/* jobs_end's work: the reply, or NULL when answered later. */
char *closing_end(struct jobs *js, struct open_job *oj, uint64_t ticket);

#endif
