/*
 * metrics_http.h - the /metrics endpoint of tracerd (Prometheus text
 * exposition) on libmicrohttpd's own thread.  That thread never touches
 * the jobs: the event loop renders the exposition (metrics.c) and
 * publishes it here; a scrape gets a copy of the latest one.
 */
#ifndef TRACERD_METRICS_HTTP_H
#define TRACERD_METRICS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct metrics_http;

/*
 * Listen on "ADDR:PORT" (netaddr.h): a loopback address unless
 * allow_remote.  The server's thread is started from a thread that has
 * dropped every capability, so it has none whatever the caller keeps.
 * NULL with the reason in err.
 */
struct metrics_http *metrics_http_open(const char *listen, bool allow_remote, char *err,
				       size_t errlen);

/* Replace the served exposition by text (len bytes; takes ownership). */
void metrics_http_publish(struct metrics_http *m, char *text, size_t len);

/* Scrapes answered so far (read by the event loop for its own metrics). */
uint64_t metrics_http_scrapes(struct metrics_http *m);

void metrics_http_close(struct metrics_http *m);

#endif
