/*
 * test_client.c - the registrant client against real unix sockets: a
 * server thread plays tracerd well and badly (silent, closing, garbage,
 * oversized replies, full backlog), and every call must come back on
 * time with a reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "proto.h"
#include "clock.h"
#include "unit.h"

enum mode {
	M_OK,         /* proper replies */
	M_SILENT,     /* reads the request, never answers */
	M_CLOSE,      /* closes as soon as it accepts */
	M_GARBAGE,    /* answers a line that is not JSON */
	M_HUGE,       /* answers more than PROTO_MAX_MSG bytes, no newline */
	M_REFUSE,     /* {"ok":false,"error":...} */
	M_PIECES,     /* the reply in three pieces, 20 ms apart */
	M_NOT_OBJECT, /* a JSON array */
	M_NO_JOB,     /* {"ok":true} to a registration */
	M_NO_ACCEPT,  /* listens, never accepts */
};

/* the deadline of a call whose reply is what is checked (not its time):
 * the server thread meets it even on a loaded machine */
#define REPLY_MS 2000

struct server {
	int lfd;
	enum mode mode;
	int conns; /* connections to serve */
	pthread_t th;
	char last[PROTO_MAX_MSG + 2];
	struct proto_request req;
	int parsed;
	pid_t peer_pid;
};

static char dir[] = "/tmp/test_client.XXXXXX";
static char sock_path[108];

static void send_str(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		if (w <= 0)
			return; /* the client went away: fine for these tests */
		s += w;
		n -= (size_t)w;
	}
}

/* Read one request line (or until EOF); returns its length. */
static size_t read_line(int fd, char *buf, size_t cap)
{
	size_t len = 0;

	while (len < cap - 1) {
		ssize_t n = read(fd, buf + len, 1);

		if (n <= 0 || buf[len] == '\n')
			break;
		len++;
	}
	buf[len] = '\0';
	return len;
}

static void serve_one(struct server *s, int fd)
{
	char reply[256], *huge;
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	size_t n;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0)
		s->peer_pid = cred.pid;
	if (s->mode == M_CLOSE)
		return;
	n = read_line(fd, s->last, sizeof(s->last));
	s->parsed = proto_parse_request(s->last, n, &s->req, reply,
					sizeof(reply)) == 0;
	switch (s->mode) {
	case M_OK:
		if (s->req.op == PROTO_OP_REGISTER)
			snprintf(reply, sizeof(reply),
				 "{\"ok\":true,\"job\":\"job-%d\",\"key\":5}\n",
				 (int)s->peer_pid);
		else
			snprintf(reply, sizeof(reply), "{\"ok\":true}\n");
		send_str(fd, reply, strlen(reply));
		break;
	case M_SILENT:
		while (read(fd, reply, sizeof(reply)) > 0)
			;
		break;
	case M_GARBAGE:
		send_str(fd, "this is not json\n", 17);
		break;
	case M_HUGE:
		huge = malloc(PROTO_MAX_MSG + 100);
		if (huge) {
			memset(huge, 'x', PROTO_MAX_MSG + 100);
			send_str(fd, huge, PROTO_MAX_MSG + 100);
			free(huge);
		}
		break;
	case M_REFUSE:
		snprintf(reply, sizeof(reply),
			 "{\"ok\":false,\"error\":\"identity: job_id: expected a string\"}\n");
		send_str(fd, reply, strlen(reply));
		break;
	case M_PIECES:
		send_str(fd, "{\"ok\":", 6);
		usleep(20000);
		send_str(fd, "true,\"job\":", 11);
		usleep(20000);
		send_str(fd, "\"pieces\"}\n", 10);
		break;
	case M_NOT_OBJECT:
		send_str(fd, "[1,2]\n", 6);
		break;
	case M_NO_JOB:
		send_str(fd, "{\"ok\":true}\n", 12);
		break;
	default:
		break;
	}
}

static void *serve(void *arg)
{
	struct server *s = arg;

	for (int i = 0; i < s->conns; i++) {
		int fd = accept(s->lfd, NULL, NULL);

		if (fd < 0)
			break;
		serve_one(s, fd);
		close(fd);
	}
	return NULL;
}

static int start_server(struct server *s, enum mode mode, int conns)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	memset(s, 0, sizeof(*s));
	s->mode = mode;
	s->conns = conns;
	unlink(sock_path);
	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->lfd < 0) {
		perror("socket");
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	if (bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(s->lfd, mode == M_NO_ACCEPT ? 0 : 16) < 0) {
		perror("bind/listen");
		close(s->lfd);
		return -1;
	}
	if (mode == M_NO_ACCEPT)
		return 0;
	if (pthread_create(&s->th, NULL, serve, s) != 0) {
		fprintf(stderr, "pthread_create failed\n");
		close(s->lfd);
		return -1;
	}
	return 0;
}

static void stop_server(struct server *s)
{
	if (s->mode != M_NO_ACCEPT) {
		/* wake a thread still blocked in accept() */
		shutdown(s->lfd, SHUT_RDWR);
		pthread_join(s->th, NULL);
	}
	close(s->lfd);
	unlink(sock_path);
}

static void test_register_ok(void)
{
	struct tracer_identity id;
	struct server s;
	char uid[TRACER_JOB_UID_LEN], err[256], want[64];

	CU_ASSERT_FATAL(start_server(&s, M_OK, 3) == 0);
	identity_init(&id);
	strcpy(id.scheduler, "local");
	strcpy(id.task_name, "unit");
	CU_ASSERT_EQUAL(client_register(sock_path, REPLY_MS, &id, false, uid, sizeof(uid),
					err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "job-%d", (int)getpid());
	CU_ASSERT_STRING_EQUAL(uid, want);
	/* the server saw a valid request, and our pid from the kernel */
	CU_ASSERT(s.parsed);
	CU_ASSERT_EQUAL(s.req.op, PROTO_OP_REGISTER);
	CU_ASSERT_STRING_EQUAL(s.req.identity.task_name, "unit");
	CU_ASSERT_EQUAL(s.peer_pid, getpid());
	CU_ASSERT_EQUAL(client_task_exit(sock_path, REPLY_MS, uid, 256, err,
					 sizeof(err)), 0);
	CU_ASSERT_EQUAL(s.req.op, PROTO_OP_TASK_EXIT);
	CU_ASSERT_EQUAL(s.req.status, 256);
	CU_ASSERT_EQUAL(client_end(sock_path, REPLY_MS, uid, -1, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(s.req.op, PROTO_OP_END);
	CU_ASSERT_EQUAL(s.req.status, -1);
	stop_server(&s);
}

/*
 * How long a call took, measured two ways: elapsed ms (what a lower bound
 * is checked on: nothing makes a wait shorter) and the ms this thread was
 * not waiting for a CPU (what an upper bound is checked on: on a loaded
 * machine a thread woken at its deadline may wait on the run queue for a
 * while before it runs, which says nothing of the call).  The run queue
 * wait is the kernel's (/proc/thread-self/schedstat, run_delay in ns);
 * none is subtracted where the kernel does not say.
 */
struct span {
	int64_t t0_ms;
	uint64_t queued0_ns;
	int64_t ms, own_ms;
};

static void span_start(struct span *s)
{
	s->queued0_ns = unit_queued_ns();
	s->t0_ms = (int64_t)clock_mono_ms();
}

static void span_end(struct span *s)
{
	uint64_t q;

	s->ms = (int64_t)clock_mono_ms() - s->t0_ms;
	q = unit_queued_ns() - s->queued0_ns;
	s->own_ms = s->ms - (int64_t)(q / 1000000);
}

/* One request against a server in mode; how long it took in *took. */
static void request_in_mode(enum mode mode, int timeout_ms, int *ret,
			    char *err, size_t errlen, struct span *took)
{
	cJSON *req = proto_job_request("end", "j", 0), *reply = NULL;
	struct server s;

	CU_ASSERT_FATAL(req != NULL);
	CU_ASSERT_FATAL(start_server(&s, mode, 1) == 0);
	span_start(took);
	*ret = client_request(sock_path, timeout_ms, req, &reply, err, errlen);
	span_end(took);
	CU_ASSERT(*ret == 0 ? reply != NULL : reply == NULL);
	cJSON_Delete(reply);
	cJSON_Delete(req);
	stop_server(&s);
}

static void expect_failure(enum mode mode, const char *want)
{
	char err[256] = "";
	int ret;
	struct span took;

	request_in_mode(mode, REPLY_MS, &ret, err, sizeof(err), &took);
	if (ret == 0 || !strstr(err, want))
		fprintf(stderr, "\n  mode %d: ret %d err \"%s\", want \"%s\"\n",
			mode, ret, err, want);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT(strstr(err, want) != NULL);
	/* said from the reply, not at the deadline */
	CU_ASSERT(took.own_ms < REPLY_MS);
}

static void test_bad_servers(void)
{
	expect_failure(M_CLOSE, "connection closed");
	expect_failure(M_GARBAGE, "malformed reply");
	expect_failure(M_NOT_OBJECT, "malformed reply");
	expect_failure(M_HUGE, "reply too long");
	expect_failure(M_REFUSE, "tracerd: identity: job_id: expected a string");
}

static void test_timeouts(void)
{
	static const int timeouts[] = {50, 200};
	char err[256];
	int ret;

	struct span took;

	for (size_t i = 0; i < 2; i++) {
		int t = timeouts[i];

		request_in_mode(M_SILENT, t, &ret, err, sizeof(err), &took);
		if (took.own_ms > t + 50 || took.ms < t - 5)
			fprintf(stderr, "\n  silent server, timeout %d: %lld ms (%lld waiting for a CPU)\n",
				t, (long long)took.ms, (long long)(took.ms - took.own_ms));
		CU_ASSERT_EQUAL(ret, -1);
		CU_ASSERT(strstr(err, "timed out") != NULL);
		CU_ASSERT(took.ms >= t - 5);
		CU_ASSERT(took.own_ms <= t + 50);
	}
	/* a server that never accepts: the connection waits in the backlog */
	request_in_mode(M_NO_ACCEPT, 100, &ret, err, sizeof(err), &took);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT(took.own_ms <= 150);
	/* timeout 0 or negative means the default (200 ms), not forever */
	request_in_mode(M_SILENT, 0, &ret, err, sizeof(err), &took);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT(took.ms >= TRACER_DEFAULT_TIMEOUT_MS - 5);
	CU_ASSERT(took.own_ms <= TRACER_DEFAULT_TIMEOUT_MS + 50);
}

/* A full listen backlog: unix connect says EAGAIN until the deadline. */
static void test_full_backlog(void)
{
	struct server s;
	cJSON *req = proto_job_request("end", "j", 0), *reply = NULL;
	int fds[64], nfds = 0, ret;
	char err[256];
	struct span took;

	CU_ASSERT_FATAL(start_server(&s, M_NO_ACCEPT, 0) == 0);
	for (; nfds < 64; nfds++) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};

		fds[nfds] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
		if (connect(fds[nfds], (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			close(fds[nfds]);
			break; /* the backlog is full */
		}
	}
	CU_ASSERT(nfds < 64);
	span_start(&took);
	ret = client_request(sock_path, 100, req, &reply, err, sizeof(err));
	span_end(&took);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT(strstr(err, "connect") != NULL);
	CU_ASSERT(took.ms >= 95);
	CU_ASSERT(took.own_ms <= 150);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	cJSON_Delete(req);
	stop_server(&s);
}

static void test_no_daemon(void)
{
	cJSON *req = proto_job_request("end", "j", 0), *reply = NULL;
	char err[256], path[200], uid[64];
	struct tracer_identity id;
	struct span took;
	int fd;

	/* socket file missing */
	span_start(&took);
	CU_ASSERT_EQUAL(client_request("/nonexistent/dir/tracerd.sock", 200, req,
				       &reply, err, sizeof(err)), -1);
	span_end(&took);
	CU_ASSERT(took.own_ms < 50);
	CU_ASSERT(strstr(err, "No such file or directory") != NULL);
	CU_ASSERT(strstr(err, "/nonexistent/dir/tracerd.sock") != NULL);
	CU_ASSERT_PTR_NULL(reply);

	/* a socket file nobody listens on (a dead daemon left it) */
	{
		struct sockaddr_un sa = {.sun_family = AF_UNIX};

		unlink(sock_path);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
		CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
		close(fd);
		CU_ASSERT_EQUAL(client_request(sock_path, 200, req, &reply, err,
					       sizeof(err)), -1);
		CU_ASSERT(strstr(err, "Connection refused") != NULL);
		unlink(sock_path);
	}
	/* a regular file in its place */
	snprintf(path, sizeof(path), "%s/plain", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	close(fd);
	CU_ASSERT_EQUAL(client_request(path, 200, req, &reply, err, sizeof(err)), -1);
	unlink(path);
	/* a path too long for a unix socket */
	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	CU_ASSERT_EQUAL(client_request(path, 200, req, &reply, err, sizeof(err)), -1);
	CU_ASSERT(strstr(err, "too long") != NULL);
	/* bad arguments */
	CU_ASSERT_EQUAL(client_request(sock_path, 200, NULL, &reply, err,
				       sizeof(err)), -1);
	CU_ASSERT_EQUAL(client_end(sock_path, 200, "", 0, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(client_task_exit(sock_path, 200, NULL, 0, err,
					 sizeof(err)), -1);
	identity_init(&id);
	CU_ASSERT_EQUAL(client_register("/nonexistent.sock", 200, &id, false, uid,
					sizeof(uid), NULL, 0), -1);
	CU_ASSERT_STRING_EQUAL(uid, "");
	cJSON_Delete(req);
}

static void test_reply_shapes(void)
{
	struct tracer_identity id;
	struct server s;
	char uid[64], err[256];

	identity_init(&id);
	CU_ASSERT_FATAL(start_server(&s, M_PIECES, 1) == 0);
	CU_ASSERT_EQUAL(client_register(sock_path, REPLY_MS, &id, false, uid, sizeof(uid),
					err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(uid, "pieces");
	stop_server(&s);

	CU_ASSERT_FATAL(start_server(&s, M_NO_JOB, 1) == 0);
	CU_ASSERT_EQUAL(client_register(sock_path, REPLY_MS, &id, false, uid, sizeof(uid),
					err, sizeof(err)), -1);
	CU_ASSERT(strstr(err, "no job uid") != NULL);
	stop_server(&s);

	/* a uid that does not fit the caller's buffer */
	CU_ASSERT_FATAL(start_server(&s, M_OK, 1) == 0);
	CU_ASSERT_EQUAL(client_register(sock_path, REPLY_MS, &id, false, uid, 4, err,
					sizeof(err)), -1);
	CU_ASSERT(strstr(err, "too long") != NULL);
	stop_server(&s);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* Signals arriving during the exchange (EINTR) neither cut nor stretch it. */
static void test_eintr(void)
{
	struct sigaction sa = {.sa_handler = on_alarm}, old;
	struct itimerval it = {{0, 5000}, {0, 5000}}, off = {{0, 0}, {0, 0}};
	char err[256];
	int ret;
	struct span took;

	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: poll and recv see EINTR */
	CU_ASSERT_FATAL(sigaction(SIGALRM, &sa, &old) == 0);
	alarms = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	request_in_mode(M_SILENT, 100, &ret, err, sizeof(err), &took);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	CU_ASSERT(alarms > 5);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT(took.ms >= 95);
	CU_ASSERT(took.own_ms <= 150);
	/* and a good exchange still works while signals arrive */
	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &it, NULL);
	request_in_mode(M_PIECES, REPLY_MS, &ret, err, sizeof(err), &took);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT(took.own_ms < REPLY_MS);
}

/* A daemon closing on us must never raise SIGPIPE (default action: death). */
static void test_no_sigpipe(void)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL}, old;
	cJSON *req, *reply = NULL;
	char *pad, err[256];
	struct server s;

	pad = malloc(60000);
	CU_ASSERT_FATAL(pad != NULL);
	memset(pad, 'p', 59999);
	pad[59999] = '\0';
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "op", "status");
	cJSON_AddStringToObject(req, "pad", pad);
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGPIPE, &dfl, &old);
	CU_ASSERT_FATAL(start_server(&s, M_CLOSE, 50) == 0);
	for (int i = 0; i < 50; i++) {
		CU_ASSERT_EQUAL(client_request(sock_path, 200, req, &reply, err,
					       sizeof(err)), -1);
		CU_ASSERT_PTR_NULL(reply);
	}
	stop_server(&s);
	sigaction(SIGPIPE, &old, NULL);
	cJSON_Delete(req);
	free(pad);
}

/* A request too big for the protocol is refused before anything is sent. */
static void test_request_too_long(void)
{
	cJSON *req = cJSON_CreateObject(), *reply = NULL;
	char *pad = malloc(PROTO_MAX_MSG + 10), err[256];

	CU_ASSERT_FATAL(req && pad);
	memset(pad, 'p', PROTO_MAX_MSG + 9);
	pad[PROTO_MAX_MSG + 9] = '\0';
	cJSON_AddStringToObject(req, "pad", pad);
	CU_ASSERT_EQUAL(client_request(sock_path, 200, req, &reply, err,
				       sizeof(err)), -1);
	CU_ASSERT(strstr(err, "request too long") != NULL);
	cJSON_Delete(req);
	free(pad);
}

/* No descriptor may leak, whatever the outcome. */
static void test_no_fd_leak(void)
{
	char err[256];
	int before = dup(0), after, ret;
	struct span took;

	close(before);
	request_in_mode(M_SILENT, 20, &ret, err, sizeof(err), &took);
	request_in_mode(M_GARBAGE, REPLY_MS, &ret, err, sizeof(err), &took);
	request_in_mode(M_OK, REPLY_MS, &ret, err, sizeof(err), &took);
	after = dup(0);
	close(after);
	CU_ASSERT_EQUAL(before, after);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"register, task_exit, end", test_register_ok},
		{"bad servers", test_bad_servers},
		{"timeouts", test_timeouts},
		{"full backlog", test_full_backlog},
		{"no daemon", test_no_daemon},
		{"reply shapes", test_reply_shapes},
		{"EINTR", test_eintr},
		{"no SIGPIPE", test_no_sigpipe},
		{"request too long", test_request_too_long},
		{"no fd leak", test_no_fd_leak},
	};
	int rc;

	if (unit_make_dir(dir) < 0)
		return 1;
	snprintf(sock_path, sizeof(sock_path), "%s/tracerd.sock", dir);
	rc = UNIT_RUN("client", tests);
	unit_remove_dir(dir);
	return rc;
}
