/*
 * server.h - tracerd's registration socket: a unix stream socket, one
 * JSON request line per message, one reply line.  Connections are
 * non-blocking and served from the daemon's epoll loop; the peer's
 * credentials come from SO_PEERCRED, never from the message, and whether
 * it runs in a container from /proc at accept (peer.h).
 */
#ifndef TRACERD_SERVER_H
#define TRACERD_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "peer.h"

/* Every epoll registration of tracerd starts with this, to tell them apart. */
enum watch_kind { WATCH_RINGBUF, WATCH_LISTEN, WATCH_CONN, WATCH_SIGNAL, WATCH_TIMER };
struct server_watch {
	enum watch_kind kind;
};

/* Returns the reply line (malloc'd, '\n' terminated). */
typedef char *(*server_handler_fn)(void *ctx, const char *line, size_t len,
				   const struct peer *peer);

struct server;

struct server_stats {
	uint64_t accepted, requests, bad_requests, too_many, timeouts, reply_failed;
	uint64_t peer_gone; /* the connecting process exited before its request */
};

struct server *server_open(const char *path, int epfd, server_handler_fn fn,
			   void *ctx, char *err, size_t errlen);
/* epoll said the listening socket is readable */
void server_accept(struct server *s);
/* epoll said this connection is readable (w is its struct server_watch) */
void server_conn_ready(struct server *s, struct server_watch *w, uint32_t events);
/* close connections idle for longer than the limit */
void server_expire(struct server *s);
/*
 * Answers given later (a job's end is answered once its summary is
 * written): during the handler, server_ticket() names the request and
 * server_defer() keeps its connection open (the handler's return value is
 * then dropped); server_answer() sends the reply and closes it, or frees
 * the reply when the client is gone.  Idle expiry still applies.
 */
uint64_t server_ticket(const struct server *s);
void server_defer(struct server *s);
void server_answer(struct server *s, uint64_t ticket, char *reply);
/* Free the connections answered by server_answer: once the epoll batch
 * that may point at them is done. */
void server_reap(struct server *s);
/* During the handler: the request's connection as a new fd that the
 * caller owns and answers on (the server forgets it and drops the
 * handler's return value); -1 on failure. */
int server_take(struct server *s);
/* Root in a container is an administrator (admin_in_containers; off by
 * default): for the connections accepted from now on. */
void server_set_admin_in_containers(struct server *s, bool on);
/* count a request the handler rejected */
void server_count_bad(struct server *s);
const struct server_stats *server_get_stats(const struct server *s);
void server_close(struct server *s);

#endif
