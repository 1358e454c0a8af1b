/*
 * slurmlimit.h - the time limit and scheduled end of Slurm jobs, asked of
 * slurmctld by a thread of tracerd (never by its loop, never by the SPANK
 * plugin inside the job's launch): `squeue` answers for a job id, and the
 * loop only reads a small cache.  Slurm 22.05 gives SPANK plugins neither
 * item nor launch variable for the time limit.
 */
#ifndef TRACERD_SLURMLIMIT_H
#define TRACERD_SLURMLIMIT_H

#include "identity.h"

/* Start the query thread (0, or -1: Slurm jobs then have no time limit). */
int slurmlimit_start(void);
void slurmlimit_stop(void);

/* A Slurm job was opened: queue a query for its job id when its identity
 * has no time limit.  Never blocks. */
void slurmlimit_want(const struct tracer_identity *id);

/* Fill id->alloc.time_limit_s and deadline_s from the cache when the
 * answer has come (else they stay unknown).  Never blocks. */
void slurmlimit_fill(struct tracer_identity *id);

/* Parse one line of `squeue --format="%l|%e"` (with SLURM_TIME_FORMAT=%s):
 * 0 with the limit in seconds (0 = none) and the end (epoch s, 0 =
 * unknown), or -1.  Exposed for the unit test. */
int slurmlimit_parse(const char *line, uint64_t *limit_s, uint64_t *end_s);

#endif
