/*
 * server.c - the registration socket (server.h).  Requests are small and
 * answered at once, so a connection lives for one exchange; a client that
 * sends nothing, too much, or garbage gets an error reply (when it can)
 * and is closed, and the daemon goes on serving.
 */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "peer.h"
#include "proto.h"

#define MAX_CONNS 256
#define MAX_CONNS_PER_UID 8    /* one user cannot take every slot */
#define ROOT_RESERVED_CONNS 32 /* registrants run as root (slurmstepd) */
#define MAX_ACCEPTS_PER_WAKEUP 64
/* clients give up after their own timeout (200 ms by default) */
#define CONN_IDLE_NS (500ull * 1000000ull)

struct conn {
	struct server_watch w; /* first: epoll data points here */
	int fd;
	struct peer peer;        /* credentials, and whether in a container */
	struct peer_proof proof; /* the pid is still the peer's process */
	uint64_t opened_ns;
	size_t len;
	struct conn *next;
	uint64_t ticket;  /* names the request for an answer given later */
	bool deferred;    /* the handler answers later (server_answer) */
	bool done;        /* answered: freed by server_reap, after the epoll batch */
	bool handed;      /* the handler took the connection (server_take) */
	/* last: a new connection clears everything before it (a reused
	 * allocation must not inherit `done`, or its request is ignored) */
	char buf[PROTO_MAX_MSG + 1];
};

struct server {
	struct server_watch w;
	int fd, epfd;
	char path[108];
	server_handler_fn fn;
	void *ctx;
	struct conn *conns;
	int nconns;
	int ndone;            /* conns answered, waiting for server_reap */
	struct server_stats stats;
	struct conn *current; /* the request being handled */
	uint64_t next_ticket;
	bool admin_in_containers; /* config admin_in_containers */
};

static int make_socket_dir(const char *path)
{
	char dir[108];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	/* every user connects through it, whatever tracerd's umask */
	mode_t old_mask = umask(022);
	int rc = mkdir(dir, 0755);

	umask(old_mask);
	if (rc != 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* Is a daemon listening there?  Then it is not a stale socket. */
static bool socket_in_use(const struct sockaddr_un *addr)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool in_use;

	if (fd < 0)
		return false;
	in_use = connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0;
	close(fd);
	return in_use;
}

/* connections of the peer's principal: its uid within its container */
static int conns_of(const struct server *s, const struct peer *p)
{
	int n = 0;

	for (const struct conn *c = s->conns; c; c = c->next)
		if (peer_owns(p, c->peer.uid, c->peer.scope))
			n++;
	return n;
}

/* Fair share of the connection slots: a few per user (root in a
 * container is a user), a reserve for root on the host. */
static bool conn_allowed(const struct server *s, const struct peer *p)
{
	if (s->nconns >= MAX_CONNS)
		return false;
	if (peer_is_admin(p))
		return true;
	return s->nconns < MAX_CONNS - ROOT_RESERVED_CONNS && conns_of(s, p) < MAX_CONNS_PER_UID;
}

struct server *server_open(const char *path, int epfd, server_handler_fn fn,
			   void *ctx, char *err, size_t errlen)
{
	struct server *s = calloc(1, sizeof(*s));
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	struct epoll_event ev = {.events = EPOLLIN};
	int rc, bind_errno;
	mode_t old_mask;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->w.kind = WATCH_LISTEN;
	s->fd = -1;
	s->epfd = epfd;
	s->fn = fn;
	s->ctx = ctx;
	if (strlen(path) >= sizeof(addr.sun_path)) {
		snprintf(err, errlen, "socket path too long: %s", path);
		goto fail;
	}
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (make_socket_dir(path) != 0) {
		snprintf(err, errlen, "mkdir for %s: %s", path, strerror(errno));
		goto fail;
	}
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		goto fail;
	}
	if (socket_in_use(&addr)) {
		snprintf(err, errlen, "%s: another tracerd is serving it", path);
		goto fail;
	}
	if (unlink(path) != 0 && errno != ENOENT) {
		snprintf(err, errlen, "unlink stale %s: %s", path, strerror(errno));
		goto fail;
	}
	/*
	 * Jobs of every user register: the socket is world-writable; the
	 * daemon trusts only the kernel's peer credentials.  The mode comes
	 * from the umask at bind: a chmod by path after bind would follow a
	 * symlink swapped in between.  Called before any thread exists.
	 */
	old_mask = umask(0111);
	rc = bind(s->fd, (struct sockaddr *)&addr, sizeof(addr));
	bind_errno = errno;
	umask(old_mask);
	if (rc != 0) {
		snprintf(err, errlen, "bind %s: %s", path, strerror(bind_errno));
		goto fail;
	}
	if (listen(s->fd, 128) != 0) {
		snprintf(err, errlen, "listen %s: %s", path, strerror(errno));
		goto fail;
	}
	ev.data.ptr = &s->w;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, s->fd, &ev) != 0) {
		snprintf(err, errlen, "epoll_ctl listen: %s", strerror(errno));
		goto fail;
	}
	return s;
fail:
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	return NULL;
}

static void conn_close(struct server *s, struct conn *c)
{
	struct conn **pp;

	for (pp = &s->conns; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	peer_proof_drop(&c->proof);
	s->nconns--;
	free(c);
}

/* Best effort: the reply is small, the socket buffer empty. */
static void send_reply(struct server *s, struct conn *c, char *reply)
{
	size_t len, off = 0;

	if (!reply) {
		s->stats.reply_failed++;
		return;
	}
	len = strlen(reply);
	while (off < len) {
		ssize_t n = send(c->fd, reply + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			s->stats.reply_failed++;
			break;
		}
		off += (size_t)n;
	}
	free(reply);
}

void server_accept(struct server *s)
{
	/* bounded: a connect flood must not starve the ring buffer */
	for (int i = 0; i < MAX_ACCEPTS_PER_WAKEUP; i++) {
		int fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP};
		socklen_t len = sizeof(struct ucred);
		struct ucred cred;
		struct conn *c;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR)
				log_warn("accept on %s: %s", s->path, strerror(errno));
			return;
		}
		s->stats.accepted++;
		c = malloc(sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		memset(c, 0, offsetof(struct conn, buf));
		c->w.kind = WATCH_CONN;
		c->fd = fd;
		c->ticket = ++s->next_ticket;
		c->opened_ns = clock_mono_ns();
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
			log_warn("SO_PEERCRED: %s", strerror(errno));
			free(c);
			close(fd);
			continue;
		}
		c->peer.cred = cred;
		if (peer_proof_take(fd, &cred, &c->proof) != 0) {
			s->stats.peer_gone++;
			peer_proof_drop(&c->proof);
			free(c);
			close(fd);
			continue;
		}
		/* read while the proof holds: the request checks it again */
		peer_classify(&c->peer, s->admin_in_containers);
		if (!conn_allowed(s, &c->peer)) {
			s->stats.too_many++;
			peer_proof_drop(&c->proof);
			free(c);
			close(fd);
			continue;
		}
		ev.data.ptr = &c->w;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
			log_warn("epoll_ctl conn: %s", strerror(errno));
			peer_proof_drop(&c->proof);
			free(c);
			close(fd);
			continue;
		}
		c->next = s->conns;
		s->conns = c;
		s->nconns++;
	}
}

void server_conn_ready(struct server *s, struct server_watch *w, uint32_t events)
{
	struct conn *c = (struct conn *)w;
	char *nl;

	if (c->done) /* answered; an event of the same epoll batch */
		return;
	if (c->deferred) { /* waiting for its answer: the client hung up */
		conn_close(s, c);
		return;
	}
	for (;;) {
		ssize_t n = recv(c->fd, c->buf + c->len, PROTO_MAX_MSG + 1 - c->len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return; /* wait for the rest of the line */
		if (n <= 0) {
			if (c->len > 0) {
				/* no newline before EOF: a truncated message */
				s->stats.bad_requests++;
				log_warn("pid %d: request without end of line (%zu bytes)",
					 (int)c->peer.pid, c->len);
			}
			conn_close(s, c);
			return;
		}
		c->len += (size_t)n;
		nl = memchr(c->buf, '\n', c->len);
		if (nl) {
			s->stats.requests++;
			if (!peer_proof_holds(&c->peer.cred, &c->proof)) {
				/* its pid may be another user's process now */
				s->stats.peer_gone++;
				log_warn("pid %d (uid %d) exited after connecting: request refused",
					 (int)c->peer.pid, (int)c->peer.uid);
				send_reply(s, c, proto_error_reply("the connecting process has exited"));
				conn_close(s, c);
				return;
			}
			s->current = c;
			char *reply = s->fn(s->ctx, c->buf, (size_t)(nl - c->buf), &c->peer);
			s->current = NULL;
			if (c->handed) { /* answered by whoever took it */
				free(reply);
				conn_close(s, c);
				return;
			}
			if (c->deferred) {
				struct epoll_event ev = {.events = 0, .data.ptr = &c->w};
				/* only a hang-up wakes us now (reported whatever we ask) */
				epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev);
				free(reply);
				return;
			}
			send_reply(s, c, reply);
			conn_close(s, c);
			return;
		}
		if (c->len > PROTO_MAX_MSG) {
			s->stats.bad_requests++;
			log_warn("pid %d: request over %d bytes", (int)c->peer.pid, PROTO_MAX_MSG);
			send_reply(s, c, proto_error_reply("request too large"));
			conn_close(s, c);
			return;
		}
	}
	(void)events;
}

void server_expire(struct server *s)
{
	uint64_t now = clock_mono_ns();

	for (struct conn *c = s->conns, *next; c; c = next) {
		next = c->next;
		if (!c->done && now - c->opened_ns > CONN_IDLE_NS) {
			s->stats.timeouts++;
			log_warn("pid %d: no complete request in 500 ms, closing",
				 (int)c->peer.pid);
			send_reply(s, c, proto_error_reply("timeout waiting for request"));
			conn_close(s, c);
		}
	}
}

uint64_t server_ticket(const struct server *s)
{
	return s->current ? s->current->ticket : 0;
}

void server_defer(struct server *s)
{
	if (s->current)
		s->current->deferred = true;
}

void server_answer(struct server *s, uint64_t ticket, char *reply)
{
	for (struct conn *c = s->conns; c; c = c->next) {
		if (c->ticket == ticket && c->deferred) {
			send_reply(s, c, reply);
			/* not freed here: an event of the epoll batch being
			 * handled may still point at it (server_reap frees it) */
			c->deferred = false;
			c->done = true;
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
			s->ndone++;
			return;
		}
	}
	free(reply); /* the client gave up meanwhile */
}

void server_reap(struct server *s)
{
	if (!s || !s->ndone)
		return;
	for (struct conn *c = s->conns, *next; c; c = next) {
		next = c->next;
		if (c->done)
			conn_close(s, c);
	}
	s->ndone = 0;
}

int server_take(struct server *s)
{
	int fd;

	if (!s->current)
		return -1;
	fd = fcntl(s->current->fd, F_DUPFD_CLOEXEC, 0);
	if (fd >= 0)
		s->current->handed = true;
	return fd;
}

void server_set_admin_in_containers(struct server *s, bool on)
{
	s->admin_in_containers = on;
}

void server_count_bad(struct server *s)
{
	s->stats.bad_requests++;
}

const struct server_stats *server_get_stats(const struct server *s)
{
	return &s->stats;
}

void server_close(struct server *s)
{
	if (!s)
		return;
	while (s->conns)
		conn_close(s, s->conns);
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->fd, NULL);
	close(s->fd);
	unlink(s->path);
	free(s);
}
