/*
 * archive.h - tracerd answers users' questions about finished jobs
 * (`tracer show`, `tracer jobs`, `tracer report` of a user who may not
 * read the archive) from the file sink's archive or the datalake, with only the asker's
 * own jobs unless they are root or in admin_group.
 *
 * The event loop only hands the connection over (archive_submit); worker
 * threads read the archive and stream the reply.  Bounded: a few workers,
 * a few queued requests in all and per user, a reading deadline, a send
 * timeout, and a cap on the reply's size; a request beyond them gets a
 * "busy" error at once, counted.  Fair by user: a non-root user has at
 * most one worker, and a free worker serves the oldest request of a user
 * who has none (counted: held_for_fairness).
 */
#ifndef TRACERD_ARCHIVE_H
#define TRACERD_ARCHIVE_H

#include <stdbool.h>
#include <sys/socket.h>
#include <cjson/cJSON.h>

#include "config.h"
#include "proto.h"
#include "server.h"

struct archive;

/* Start the workers (they read cfg->file_path, or the datalake when
 * cfg->datalake is clickhouse: datalake_read.h).  NULL with err. */
struct archive *archive_start(const struct tracer_config *cfg, char *err, size_t errlen);

/*
 * On the loop, in the request handler: queue the request (summaries,
 * summary or sweep) and take its connection from the server (server_take).
 * sees_all: the peer may see every user's jobs (decided on the loop, while
 * the peer's pid is known to be its own).  Returns NULL when queued (the
 * worker answers), else the error reply line for the server to send.
 */
char *archive_submit(struct archive *a, struct server *s, const struct peer *peer,
		     bool sees_all, const struct proto_request *req);

/* Counters for `tracer status`: served, refused_busy, truncated,
 * held_for_fairness... */
cJSON *archive_stats_json(struct archive *a);

/* The fairness counters (jobs_shares): requests held back because their
 * user had a worker, requests refused as busy. */
void archive_get_counts(struct archive *a, uint64_t *held, uint64_t *refused_busy);

/* Stop the workers (a reply in progress stops between lines). */
void archive_stop(struct archive *a);

#endif
