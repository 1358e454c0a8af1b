/*
 * metrics_http.c - serve the latest published exposition at /metrics
 * through libmicrohttpd (metrics_http.h).  Bounded: a few connections at
 * once, two per client address, each timed out; anything but GET
 * /metrics is refused; a loopback address unless metrics_allow_remote.  The
 * snapshot is swapped under a mutex held only for a pointer swap or a
 * copy, so the event loop never waits on a slow client.
 */
#include "metrics_http.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "errmsg.h"
#include "netaddr.h"
#include "threads.h"

#define METRICS_MAX_CONNECTIONS 8
/* one client (address) cannot hold every connection: a scraper needs one */
#define METRICS_MAX_PER_CLIENT 2
#define METRICS_TIMEOUT_S 5
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics_http {
	struct MHD_Daemon *mhd;
	pthread_mutex_t lock;
	char *text; /* latest exposition; guarded by lock */
	size_t len;
	uint64_t scrapes;
};

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status,
			     void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				status == MHD_HTTP_OK ? METRICS_CONTENT_TYPE : "text/plain");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	static char not_found[] = "not found: tracerd serves /metrics only\n";
	static char not_allowed[] = "method not allowed\n";
	struct metrics_http *m = cls;
	char *copy;
	size_t len;

	(void)version;
	(void)upload_data;
	(void)con_cls;
	if (*upload_data_size)
		return MHD_NO; /* a body on a GET: drop the connection */
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, not_allowed,
			     sizeof(not_allowed) - 1, MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(conn, MHD_HTTP_NOT_FOUND, not_found, sizeof(not_found) - 1,
			     MHD_RESPMEM_PERSISTENT);
	pthread_mutex_lock(&m->lock);
	len = m->len;
	copy = malloc(len ? len : 1);
	if (copy && len)
		memcpy(copy, m->text, len);
	m->scrapes++;
	pthread_mutex_unlock(&m->lock);
	if (!copy)
		return MHD_NO;
	return reply(conn, MHD_HTTP_OK, copy, len, MHD_RESPMEM_MUST_FREE);
}

struct starter {
	struct metrics_http *m;
	struct sockaddr_storage ss;
	unsigned flags;
	struct MHD_Daemon *mhd;
	char err[128];
};

/* A thread of its own, without capabilities: MHD's polling thread is
 * created here and inherits this thread's (empty) sets. */
static void *start_capless(void *arg)
{
	struct starter *st = arg;

	if (caps_drop_all(st->err, sizeof(st->err)) != 0)
		return NULL;
	st->mhd = MHD_start_daemon(st->flags, 0, NULL, NULL, on_request, st->m,
				   MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&st->ss,
				   MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_MAX_CONNECTIONS,
				   MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)METRICS_MAX_PER_CLIENT,
				   MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_TIMEOUT_S,
				   MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024),
				   MHD_OPTION_END);
	return NULL;
}

struct metrics_http *metrics_http_open(const char *listen, bool allow_remote, char *err,
				       size_t errlen)
{
	struct starter st = {.flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL};
	socklen_t slen;
	pthread_t t;
	int rc;

	if (netaddr_parse(listen, &st.ss, &slen, err, errlen) != 0)
		return NULL;
	/* the page names jobs and tools: other hosts only when asked for */
	if (!allow_remote && !netaddr_is_loopback(&st.ss)) {
		errmsg_fail(err, errlen, "%s is not a loopback address (set metrics_allow_remote = "
			 "true to serve other hosts)", listen);
		return NULL;
	}
	st.m = calloc(1, sizeof(*st.m));
	if (!st.m) {
		errmsg_fail(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&st.m->lock, NULL);
	if (st.ss.ss_family == AF_INET6)
		st.flags |= MHD_USE_IPv6;
	rc = threads_start(&t, start_capless, &st);
	if (rc == 0)
		rc = pthread_join(t, NULL);
	if (rc != 0 || !st.mhd) {
		if (rc != 0)
			errmsg_fail(err, errlen, "starting the server's thread: %s", strerror(rc));
		else if (st.err[0])
			errmsg_fail(err, errlen, "dropping capabilities: %s", st.err);
		else
			errmsg_fail(err, errlen, "cannot listen on %s (address in use?)", listen);
		pthread_mutex_destroy(&st.m->lock);
		free(st.m);
		return NULL;
	}
	st.m->mhd = st.mhd;
	return st.m;
}

void metrics_http_publish(struct metrics_http *m, char *text, size_t len)
{
	char *old;

	if (!m || !text)
		return;
	pthread_mutex_lock(&m->lock);
	old = m->text;
	m->text = text;
	m->len = len;
	pthread_mutex_unlock(&m->lock);
	free(old);
}

uint64_t metrics_http_scrapes(struct metrics_http *m)
{
	uint64_t n;

	pthread_mutex_lock(&m->lock);
	n = m->scrapes;
	pthread_mutex_unlock(&m->lock);
	return n;
}

void metrics_http_close(struct metrics_http *m)
{
	if (!m)
		return;
	MHD_stop_daemon(m->mhd);
	pthread_mutex_destroy(&m->lock);
	free(m->text);
	free(m);
}
