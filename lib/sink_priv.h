/*
 * sink_priv.h - what the sink files (sink_file.c, sink_http.c,
 * sink_clickhouse*.c) share with sink.c; not for the rest of the tree.
 */
#ifndef TRACER_SINK_PRIV_H
#define TRACER_SINK_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "clickhouse.h"
#include "growbuf.h"
#include "sink.h"

struct sink {
	enum sink_kind kind;
	const struct tracer_config *cfg;
	/* file */
	int fd;
	ino_t ino;
	/* summary_ids at the file's end when the sink started (sorted), so
	 * that a batch written but not acknowledged before a crash is not
	 * written twice */
	char (*seen)[40];
	size_t nseen;
	bool tail_read;
	uint64_t share_dropped; /* summaries rotated out of the archive (sink_file_share_merge) */
	bool no_share_merge;    /* standalone writer: the oldest file falls off whole */
	char note[512];         /* what the last rotation did, for the caller's log */
	/* clickhouse: the server's version and the datalake's schema
	 * version, asked once per connection and after a failed insert */
	struct clickhouse_server ch_server;
	unsigned ch_schema;
	bool ch_known;
	/* the datalake is known to hold none of the batches not yet
	 * acknowledged (false at the start and after a failed insert:
	 * sink_clickhouse_seen.c asks before the next insert) */
	bool ch_sure;
	uint64_t ch_already; /* summaries found there and not sent again */
};

/* a query's answer (http_post.body_out) beyond this is refused */
#define SINK_REPLY_BODY_MAX (64u << 20)

/* One POST over libcurl.  The reply body is never printed: its first
 * bytes are kept in reply (for errors and ClickHouse's answers). */
struct http_post {
	const char *url;
	const char *body;
	size_t len;
	const char *const *headers; /* NULL-terminated, may be NULL */
	const char *ca_file;        /* "" = system CAs */
	const char *user, *password; /* basic auth when user is set */
	long timeout_ms;
	const _Atomic int *abort;
	char reply[512];
	long status;
	struct growbuf *body_out;       /* when set: the whole reply, up to its max */
};
int sink_http_post_run(struct http_post *r, char *err, size_t errlen);
/* A secret from a file (first line, surrounding space removed). */
int sink_http_read_secret(const char *path, char *out, size_t len, char *err, size_t errlen);

int sink_file_open(struct sink *s, char *err, size_t errlen);
int sink_file_deliver(struct sink *s, char *const *texts, const size_t *lens, size_t n,
		      char *err, size_t errlen);
void sink_file_close(struct sink *s);
/*
 * sink_file_share.c: rotation keeps the oldest rotated file's summaries
 * by user share.  older and newer (the file just rotated onto it) become
 * newer alone, at most budget bytes (more only when one line is longer):
 * the share holding the most loses its oldest line first.  0 with the
 * lines dropped in *dropped; -1 with err, the files untouched.
 */
int sink_file_share_merge(const char *older, const char *newer, uint64_t budget, uint64_t *dropped,
		     char *err, size_t errlen);
int sink_http_deliver(struct sink *s, char *const *texts, const size_t *lens, size_t n,
		      long timeout_ms, const _Atomic int *abort, char *err, size_t errlen);
/* sink_clickhouse_seen.c: the query for which of the batch's summaries
 * DB.job_use has (1), 0 when none is a summary to ask about; then skip[i]
 * marked for those the answer lists: how many */
int sink_clickhouse_seen_sql(const char *db, char *const *texts, const size_t *lens, size_t n,
			     struct growbuf *q);
size_t sink_clickhouse_seen_mark(const char *reply, char *const *texts, const size_t *lens,
				 size_t n, bool *skip);
/* sink_clickhouse_idle.c: an idle_host record's row of tracer.idle_hosts
 * appended to b (JSONEachRow): 0, or -1 out of memory (b->oom). */
int sink_clickhouse_idle_row(struct growbuf *b, const cJSON *rec);
/* ... and how many rows b holds (left out before schema v5, counted) */
size_t sink_clickhouse_idle_count(const struct growbuf *b);
int sink_clickhouse_probe(struct sink *s, long timeout_ms, const _Atomic int *abort,
			  char *err, size_t errlen);
int sink_clickhouse_deliver(struct sink *s, char *const *texts, const size_t *lens,
			    size_t n, long timeout_ms, const _Atomic int *abort,
			    char *err, size_t errlen);

#endif
