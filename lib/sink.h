/*
 * sink.h - where job summaries go.  Every sink receives the same JSON
 * text of a summary:
 *   file        NDJSON, one line per summary, rotated by size
 *   http        POST of a JSON array of summaries (gzip, bearer token)
 *   clickhouse  INSERT ... FORMAT JSONEachRow into the tables of
 *               contrib/clickhouse/migrations/ (tracer datalake migrate)
 * A sink delivers a batch whole or fails: the caller keeps the batch and
 * retries (tracerd's spool, daemon/delivery.c); every summary carries a
 * summary_id, so a batch delivered twice does no harm.
 * tracer-wrap's standalone mode, which sends one summary and exits, uses
 * sinks_open/sinks_write: every sink once, synchronously, bounded time.
 */
#ifndef TRACER_SINK_H
#define TRACER_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "config.h"

enum sink_kind { SINK_FILE, SINK_HTTP, SINK_CLICKHOUSE, SINK_KINDS };

const char *sink_kind_name(enum sink_kind k);
/* The kinds named in a `sinks` list ("file,clickhouse"), in order. */
int sink_kinds(const char *list, enum sink_kind out[SINK_KINDS]);

/* What one delivery may carry, and how often a sink may be called
 * (ClickHouse: one insert per table per second). */
struct sink_limits {
	size_t max_summaries;
	size_t max_bytes;
	unsigned min_interval_ms;
};
void sink_limits(enum sink_kind k, struct sink_limits *out);

struct sink;

/* Call from one thread before any other thread uses libcurl. */
struct sink *sink_open(enum sink_kind k, const struct tracer_config *cfg,
		       char *err, size_t errlen);
/*
 * Deliver n summaries (JSON texts without newline) at once: 0, or -1 with
 * what went wrong in err.  On success err is "" or a note for the log
 * (the file sink: summaries it already held, not written again).  A
 * network transfer gives up after timeout_ms, or as soon as *abort
 * becomes non-zero (abort may be NULL).
 */
int sink_deliver(struct sink *s, char *const *texts, const size_t *lens, size_t n,
		 long timeout_ms, const _Atomic int *abort, char *err, size_t errlen);
/* Is the sink there (ClickHouse: its version, asked once per connection)?
 * Asked before a batch is read from disk, so that a sink that is down
 * costs no memory.  0, or -1 with err. */
int sink_probe(struct sink *s, long timeout_ms, const _Atomic int *abort, char *err,
	       size_t errlen);
void sink_close(struct sink *s);
/* File sink: summaries its rotations dropped by user share since the
 * last call (0 for the others). */
uint64_t sink_take_share_dropped(struct sink *s);

/* The rows the ClickHouse sink inserts for one summary (JSON text of
 * len bytes), appended as JSONEachRow lines to rows[table]: 0, or -1
 * when the text is not a JSON object (or memory ran out: a growbuf's
 * oom).  rows: CLICKHOUSE_SINK_TABLES of them.  For the bench, which
 * feeds a server in the sink's exact format. */
enum {
	CLICKHOUSE_SINK_JOBS,
	CLICKHOUSE_SINK_TOOLS,
	CLICKHOUSE_SINK_PROCESSES,
	CLICKHOUSE_SINK_FLAGS,
	CLICKHOUSE_SINK_IDLE_HOSTS, /* an idle_host record's row (schema v5) */
	CLICKHOUSE_SINK_TABLES
};
struct growbuf;
int sink_clickhouse_rows(const char *text, size_t len, struct growbuf *rows);

/* Run a read-only query on the configured ClickHouse (clickhouse_url,
 * clickhouse_user, clickhouse_password_file): 0 with the whole answer in
 * *out (malloc'd, NUL-terminated, at most 64 MiB), or -1 with err. */
int sink_clickhouse_select(const struct tracer_config *cfg, const char *query, long timeout_ms,
		      char **out, size_t *len, char *err, size_t errlen);

/* ---- every configured sink, once (tracer-wrap's standalone mode) ---- */
struct sinks;
struct sinks *sinks_open(const struct tracer_config *cfg, char *err, size_t errlen);
/* Write one summary to every sink, within http_timeout_ms altogether;
 * returns the number of sinks that failed, with the reasons in err. */
int sinks_write(struct sinks *s, const cJSON *summary, char *err, size_t errlen);
void sinks_close(struct sinks *s);

#endif
