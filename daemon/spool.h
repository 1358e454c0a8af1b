/*
 * spool.h - tracerd's durable queue of finished summaries, one file per
 * summary in spool_dir, delivered to every sink in order.  A summary is
 * "written" once its file is synced and renamed into place; it leaves
 * the spool when every configured sink has it.  Each sink's position
 * (the last record it has) is kept in the spool too, so a restart sends
 * each sink only what it lacks.  Thread-safe: the spool writer and the
 * sinks' delivery threads share it.
 */
#ifndef TRACERD_SPOOL_H
#define TRACERD_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include "sink.h"

struct spool;

struct spool_stats {
	uint64_t records, bytes;      /* in the spool now */
	uint64_t written;             /* records written since start */
	uint64_t write_errors;        /* failed writes (the summary is retried) */
	uint64_t disk_full;           /* of which ENOSPC/EDQUOT */
	uint64_t corrupt;             /* records that failed their check, set aside */
	uint64_t dropped;             /* records removed by the size cap */
	uint64_t share_spared;        /* of which: not the oldest record, an older
				       * one of a smaller share was kept */
	uint64_t pending[SINK_KINDS]; /* records a sink does not have yet */
	uint64_t sink_dropped[SINK_KINDS]; /* of the dropped, those the sink lacked */
};

/* Open (create) dir for these sinks: list its records, read positions,
 * remove leftovers of interrupted writes.  NULL + err on failure. */
struct spool *spool_open(const char *dir, uint64_t max_bytes, const enum sink_kind *sinks,
			 int nsinks, char *err, size_t errlen);
void spool_close(struct spool *sp);
/* Another set of sinks and cap (a reload; no sink thread running): a
 * sink kept keeps its position, a new one reads its position file (none:
 * it gets everything spooled). */
void spool_set_sinks(struct spool *sp, uint64_t max_bytes, const enum sink_kind *sinks,
		     int nsinks);

/* Write one record durably (tmp, fsync, rename, fsync dir), counted
 * against share (lib/share.h); then, past the cap, drop the oldest
 * records of the share holding the most.  0, or -errno with err. */
int spool_write(struct spool *sp, const char *text, size_t len, uint64_t share, char *err,
		size_t errlen);

/* Up to max_n records (max_bytes together, at least one) after sink i's
 * position, oldest first: their sequence numbers.  Returns the count. */
size_t spool_pending(struct spool *sp, int i, uint64_t *seqs, size_t max_n, size_t max_bytes);

/* Up to max_n of the newest records, newest first: their sequence numbers. */
size_t spool_newest(struct spool *sp, uint64_t *seqs, size_t max_n);

/* The text of a record, checked (malloc'd, NUL-terminated, one spare
 * byte).  0; -ENOENT when gone (dropped); -EBADMSG when corrupt (then
 * set aside as NAME.corrupt and counted). */
int spool_read(struct spool *sp, uint64_t seq, char **text, size_t *len);

/* Sink i has every record up to seq: move its position, remove records
 * every sink has. */
void spool_ack(struct spool *sp, int i, uint64_t seq);

void spool_get_stats(struct spool *sp, struct spool_stats *out);

#endif
