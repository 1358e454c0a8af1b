/*
 * share.h - whose share of the node's stored summaries (the spool, the
 * archive) a summary counts against, and a tally of bytes per share.
 *
 * A share is the job's user: its identity's uid; jobs of a scheduler
 * (registered by root: Slurm steps, AWS Batch attempts) form a share of
 * their own per user, kept apart from that user's `tracer run` jobs, so
 * that a flood of a user's own jobs never pushes out scheduled ones.
 * When space runs out, the share holding the most loses its oldest
 * summary first: no user's flood pushes out another user's summaries.
 */
#ifndef TRACER_SHARE_H
#define TRACER_SHARE_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#define SHARE_SCHEDULED (1ull << 32) /* or'ed with the uid: a scheduler's job */
#define SHARE_UNKNOWN (1ull << 33)   /* no identity uid */

uint64_t share_of_summary(const cJSON *summary);
/* The same from a summary's text (parsed; SHARE_UNKNOWN if it is not JSON). */
uint64_t share_of_text(const char *text, size_t len);

/* Bytes per share, a small growing array (shares are users: few). */
struct share_tally {
	struct share_bytes {
		uint64_t share, bytes;
	} *v;
	size_t n, cap;
};

/* Add (or, negative, remove) bytes of share; -1 without memory. */
int share_tally_add(struct share_tally *t, uint64_t share, int64_t bytes);
/* The share holding the most bytes (0 bytes: none, returns -1). */
int share_tally_largest(const struct share_tally *t, uint64_t *share);
void share_tally_free(struct share_tally *t);

#endif
