/*
 * client.c - the registrant side of the tracerd protocol.
 *
 * This code runs inside slurmstepd (SPANK plugin) and in front of every
 * container job (tracer-wrap), so it must never hurt the job: the whole
 * exchange is bounded by one monotonic deadline, the socket is
 * non-blocking and close-on-exec, writes use MSG_NOSIGNAL so a vanished
 * daemon cannot raise SIGPIPE, and nothing here prints, exits, or touches
 * signals, the environment or global variables.  Every failure comes
 * back as -1 with a one-line reason.
 */
#include "client.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "errmsg.h"
#include "proto.h"

/* Retry pause when a unix socket's backlog is full (connect: EAGAIN). */
#define CONNECT_RETRY_MS 5

/* Deadlines are CLOCK_MONOTONIC nanoseconds: wall clock steps do not matter. */
static int64_t now_ns(void)
{
	return (int64_t)clock_mono_ns();
}

/* Milliseconds left before the deadline, rounded up; 0 when passed. */
static int remaining_ms(int64_t deadline)
{
	int64_t left = deadline - now_ns();

	return left > 0 ? (int)((left + 999999) / 1000000) : 0;
}

/*
 * Wait until fd is ready for events or the deadline passes.  Returns 1
 * ready, 0 timed out, -1 error (errno set).  EINTR is retried with the
 * time that is left.
 */
static int wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = events};

	for (;;) {
		int left = remaining_ms(deadline);
		int n;

		if (left == 0)
			return 0;
		n = poll(&p, 1, left);
		if (n > 0)
			return 1;
		if (n == 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

static void pause_ms(int ms, int64_t deadline)
{
	int left = remaining_ms(deadline);

	if (ms > left)
		ms = left;
	if (ms > 0)
		poll(NULL, 0, ms); /* EINTR just ends the pause early */
}

static int connect_socket(const char *path, int64_t deadline, char *err,
			  size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = -1, soerr = 0, r;
	socklen_t sl = sizeof(soerr);

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errmsg_fail(err, errlen, "socket path too long: %.80s...", path);
		goto fail;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		errmsg_fail(err, errlen, "socket: %s", strerror(errno));
		goto fail;
	}
	for (;;) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
		if (errno == EINTR)
			continue;
		/* unix sockets say EAGAIN when the listen backlog is full */
		if (errno == EAGAIN && remaining_ms(deadline) > 0) {
			pause_ms(CONNECT_RETRY_MS, deadline);
			continue;
		}
		if (errno != EINPROGRESS) {
			errmsg_fail(err, errlen, "connect %s: %s", path,
				 errno == EAGAIN ? "timed out (daemon busy)"
						 : strerror(errno));
			goto fail;
		}
		break;
	}
	r = wait_fd(fd, POLLOUT, deadline);
	if (r <= 0) {
		errmsg_fail(err, errlen, "connect %s: %s", path,
			 r == 0 ? "timed out" : strerror(errno));
		goto fail;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
		errmsg_fail(err, errlen, "connect %s: %s", path,
			 strerror(soerr ? soerr : errno));
		goto fail;
	}
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

static int send_all(int fd, const char *buf, size_t len, int64_t deadline,
		    char *err, size_t errlen)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);
		int r;

		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return errmsg_fail(err, errlen,
					"connection closed before the request was sent");
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return errmsg_fail(err, errlen, "send: %s",
					strerror(errno));
		r = wait_fd(fd, POLLOUT, deadline);
		if (r <= 0)
			return errmsg_fail(err, errlen, "send: %s",
					r == 0 ? "timed out"
					       : strerror(errno));
	}
	return 0;
}

/*
 * Read one reply line into a malloc'd, NUL-terminated buffer (without
 * the '\n').  A reply longer than PROTO_MAX_MSG is an error.
 */
static char *recv_line(int fd, int64_t deadline, char *err, size_t errlen)
{
	size_t cap = PROTO_MAX_MSG + 1, len = 0;
	char *buf = malloc(cap);

	if (!buf) {
		errmsg_fail(err, errlen, "out of memory");
		return NULL;
	}
	for (;;) {
		ssize_t n;
		char *nl;
		int r;

		if (len == cap - 1) {
			errmsg_fail(err, errlen,
				 "reply too long (more than %d bytes)",
				 PROTO_MAX_MSG);
			goto fail;
		}
		n = recv(fd, buf + len, cap - 1 - len, 0);
		if (n > 0) {
			nl = memchr(buf + len, '\n', (size_t)n);
			len += (size_t)n;
			if (nl) {
				*nl = '\0';
				return buf;
			}
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		/* a reset is a close that found our request still unread */
		if (n == 0 || errno == ECONNRESET) {
			errmsg_fail(err, errlen,
				 len ? "connection closed in the middle of the reply"
				     : "connection closed without a reply");
			goto fail;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			errmsg_fail(err, errlen, "recv: %s", strerror(errno));
			goto fail;
		}
		r = wait_fd(fd, POLLIN, deadline);
		if (r <= 0) {
			errmsg_fail(err, errlen, "waiting for the reply: %s",
				 r == 0 ? "timed out" : strerror(errno));
			goto fail;
		}
	}
fail:
	free(buf);
	return NULL;
}

/* Turn a reply line into an object; {"ok":false} becomes its error. */
static cJSON *parse_reply(const char *line, char *err, size_t errlen)
{
	cJSON *o = cJSON_Parse(line), *ok;
	const cJSON *e;

	if (!o || !cJSON_IsObject(o)) {
		errmsg_fail(err, errlen, "malformed reply from tracerd");
		goto fail;
	}
	ok = cJSON_GetObjectItemCaseSensitive(o, "ok");
	if (!cJSON_IsBool(ok)) {
		errmsg_fail(err, errlen, "malformed reply from tracerd (no \"ok\")");
		goto fail;
	}
	if (cJSON_IsFalse(ok)) {
		e = cJSON_GetObjectItemCaseSensitive(o, "error");
		errmsg_fail(err, errlen, "tracerd: %.200s",
			 cJSON_IsString(e) && e->valuestring ? e->valuestring
							     : "request refused");
		goto fail;
	}
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

int client_request(const char *socket_path, int timeout_ms, const cJSON *req,
		   cJSON **reply, char *err, size_t errlen)
{
	int64_t deadline;
	char *line = NULL, *answer = NULL;
	int fd = -1, ret = -1;

	if (reply)
		*reply = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!socket_path || !*socket_path)
		socket_path = TRACER_DEFAULT_SOCKET;
	if (timeout_ms <= 0)
		timeout_ms = TRACER_DEFAULT_TIMEOUT_MS;
	deadline = now_ns() + (int64_t)timeout_ms * 1000000;
	if (!req || !reply) {
		errmsg_fail(err, errlen, "no request");
		goto out;
	}
	line = proto_render_line(req);
	if (!line) {
		errmsg_fail(err, errlen, "out of memory rendering the request");
		goto out;
	}
	if (strlen(line) > PROTO_MAX_MSG) {
		errmsg_fail(err, errlen, "request too long (%zu bytes, at most %d)",
			 strlen(line), PROTO_MAX_MSG);
		goto out;
	}
	fd = connect_socket(socket_path, deadline, err, errlen);
	if (fd < 0)
		goto out;
	if (send_all(fd, line, strlen(line), deadline, err, errlen) < 0)
		goto out;
	answer = recv_line(fd, deadline, err, errlen);
	if (!answer)
		goto out;
	*reply = parse_reply(answer, err, errlen);
	if (*reply)
		ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(line);
	free(answer);
	return ret;
}

/* Send req (consumed) and expect {"ok":true}; the reply is dropped. */
static int simple_request(const char *socket_path, int timeout_ms, cJSON *req,
			  char *err, size_t errlen)
{
	cJSON *reply = NULL;
	int ret;

	if (!req)
		return errmsg_fail(err, errlen, "out of memory building the request");
	ret = client_request(socket_path, timeout_ms, req, &reply, err, errlen);
	cJSON_Delete(reply);
	cJSON_Delete(req);
	return ret;
}

int client_register(const char *socket_path, int timeout_ms,
		    const struct tracer_identity *id, bool stays, char *job_uid,
		    size_t job_uid_len, char *err, size_t errlen)
{
	cJSON *req = NULL, *reply = NULL;
	const cJSON *job;
	int ret = -1;

	if (job_uid && job_uid_len)
		job_uid[0] = '\0';
	if (!id || !job_uid || job_uid_len == 0) {
		errmsg_fail(err, errlen, "no identity or job uid buffer");
		goto out;
	}
	req = proto_register_request(id, stays);
	if (!req) {
		errmsg_fail(err, errlen, "out of memory building the request");
		goto out;
	}
	if (client_request(socket_path, timeout_ms, req, &reply, err,
			   errlen) < 0)
		goto out;
	job = cJSON_GetObjectItemCaseSensitive(reply, "job");
	if (!cJSON_IsString(job) || !job->valuestring || !job->valuestring[0]) {
		errmsg_fail(err, errlen, "malformed reply from tracerd (no job uid)");
		goto out;
	}
	if (strlen(job->valuestring) >= job_uid_len) {
		errmsg_fail(err, errlen, "job uid from tracerd too long");
		goto out;
	}
	memcpy(job_uid, job->valuestring, strlen(job->valuestring) + 1);
	ret = 0;
out:
	cJSON_Delete(req);
	cJSON_Delete(reply);
	return ret;
}

int client_task_exit(const char *socket_path, int timeout_ms,
		     const char *job_uid, int wait_status, char *err,
		     size_t errlen)
{
	if (!job_uid || !*job_uid)
		return errmsg_fail(err, errlen, "no job uid");
	return simple_request(socket_path, timeout_ms,
			      proto_job_request("task_exit", job_uid,
						wait_status),
			      err, errlen);
}

int client_end(const char *socket_path, int timeout_ms, const char *job_uid,
	       int wait_status, char *err, size_t errlen)
{
	if (!job_uid || !*job_uid)
		return errmsg_fail(err, errlen, "no job uid");
	return simple_request(socket_path, timeout_ms,
			      proto_job_request("end", job_uid, wait_status),
			      err, errlen);
}

/* ---- streamed replies (archive queries) ---- */

struct linebuf {
	char *buf;
	size_t len, cap, start; /* bytes held; the next line starts at start */
};

/* The next '\n'-terminated line (NUL-terminated in place), or NULL with
 * a reason in err. */
static char *stream_line(int fd, struct linebuf *lb, int64_t deadline, char *err, size_t errlen)
{
	for (;;) {
		char *nl = lb->len > lb->start
				   ? memchr(lb->buf + lb->start, '\n', lb->len - lb->start)
				   : NULL;
		ssize_t n;

		if (nl) {
			char *line = lb->buf + lb->start;
			*nl = '\0';
			lb->start = (size_t)(nl - lb->buf) + 1;
			return line;
		}
		if (lb->start > 0) { /* keep the partial line at the front */
			memmove(lb->buf, lb->buf + lb->start, lb->len - lb->start);
			lb->len -= lb->start;
			lb->start = 0;
		}
		if (lb->len == lb->cap) {
			size_t cap = lb->cap ? lb->cap * 2 : 65536;
			char *b;

			if (lb->cap >= PROTO_STREAM_LINE_MAX + 1) {
				errmsg_fail(err, errlen, "reply line longer than %d bytes",
					 PROTO_STREAM_LINE_MAX);
				return NULL;
			}
			if (cap > PROTO_STREAM_LINE_MAX + 1)
				cap = PROTO_STREAM_LINE_MAX + 1;
			if (!(b = realloc(lb->buf, cap))) {
				errmsg_fail(err, errlen, "out of memory");
				return NULL;
			}
			lb->buf = b;
			lb->cap = cap;
		}
		n = recv(fd, lb->buf + lb->len, lb->cap - lb->len, 0);
		if (n > 0) {
			lb->len += (size_t)n;
			continue;
		}
		if (n == 0) {
			errmsg_fail(err, errlen, "connection closed in the middle of the reply");
			return NULL;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			errmsg_fail(err, errlen, "recv: %s", strerror(errno));
			return NULL;
		}
		int r = wait_fd(fd, POLLIN, deadline);
		if (r <= 0) {
			errmsg_fail(err, errlen, "waiting for the reply: %s",
				 r == 0 ? "timed out" : strerror(errno));
			return NULL;
		}
	}
}

int client_request_stream(const char *socket_path, int timeout_ms, const cJSON *req,
			  tracer_line_fn fn, void *ctx, cJSON **last, char *err,
			  size_t errlen)
{
	struct linebuf lb = {0};
	int64_t deadline = now_ns() + (int64_t)(timeout_ms > 0 ? timeout_ms : 1) * 1000000;
	char *line = proto_render_line(req);
	int fd = -1, ret = -1;

	*last = NULL;
	if (!line) {
		errmsg_fail(err, errlen, "out of memory rendering the request");
		goto out;
	}
	fd = connect_socket(socket_path, deadline, err, errlen);
	if (fd < 0) {
		ret = -2;
		goto out;
	}
	if (send_all(fd, line, strlen(line), deadline, err, errlen) < 0)
		goto out;
	for (;;) {
		char *l = stream_line(fd, &lb, deadline, err, errlen);
		cJSON *o;

		if (!l)
			goto out;
		o = cJSON_Parse(l);
		if (!cJSON_IsObject(o)) {
			cJSON_Delete(o);
			errmsg_fail(err, errlen, "malformed reply from tracerd");
			goto out;
		}
		if (cJSON_GetObjectItemCaseSensitive(o, "ok")) {
			cJSON_Delete(o);
			*last = parse_reply(l, err, errlen);
			ret = *last ? 0 : -1;
			goto out;
		}
		if (fn(o, ctx) != 0) { /* fn owns o */
			errmsg_fail(err, errlen, "reply not read to its end");
			goto out;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	free(line);
	free(lb.buf);
	return ret;
}
