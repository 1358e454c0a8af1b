/*
 * reader.c - tracerd's reader mode (reader.h): its own small event loop
 * over the socket, the signals and a timer that closes idle
 * connections.  What the full daemon's loop does besides (ring buffer,
 * sampling, journal, delivery) does not exist here, so registration and
 * end requests get a clear refusal instead of a job.  Answers come from
 * the archive workers (archive.c), off the loop, as in the full daemon.
 */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "archive.h"
#include "caps.h"
#include "clock.h"
#include "hostinfo.h"
#include "json.h"
#include "log.h"
#include "notify.h"
#include "privacy.h"
#include "proto.h"
#include "summary.h"
#include "reader.h"
#include "server.h"

#define READER_TICK_MS 1000 /* idle connections are closed this often */

struct reader {
	const struct tracer_config *cfg;
	struct server *server;
	struct archive *archive;
	struct privacy privacy;
	struct host_info host;
	uint64_t started_mono_ns;
	int epfd, sigfd, timerfd;
	struct server_watch signal_w, timer_w;
	bool stop;
};

bool reader_mode(const struct tracer_config *cfg)
{
	return strcmp(cfg->mode, "reader") == 0;
}

static char *status_reply(struct reader *r)
{
	cJSON *o = cJSON_CreateObject(), *st, *cnt;
	const struct server_stats *ss = server_get_stats(r->server);
	char *line;

	if (!o)
		return NULL;
	cJSON_AddTrueToObject(o, "ok");
	st = cJSON_AddObjectToObject(o, "status");
	json_add_str(st, "version", TRACER_VERSION);
	json_add_str(st, "mode", "reader");
	json_add_u64(st, "pid", (uint64_t)getpid());
	json_add_secs(st, "uptime_s", clock_mono_ns() - r->started_mono_ns);
	json_add_str(st, "hostname", r->host.hostname);
	json_add_str(st, "socket", r->cfg->socket_path);
	json_add_str(st, "datalake", r->cfg->datalake);
	cnt = cJSON_AddObjectToObject(st, "socket_stats");
	json_add_u64(cnt, "accepted", ss->accepted);
	json_add_u64(cnt, "requests", ss->requests);
	json_add_u64(cnt, "bad_requests", ss->bad_requests);
	json_add_u64(cnt, "too_many_connections", ss->too_many);
	json_add_u64(cnt, "timeouts", ss->timeouts);
	json_add_u64(cnt, "reply_failed", ss->reply_failed);
	cJSON_AddItemToObject(st, "archive_requests", archive_stats_json(r->archive));
	line = proto_render_line(o);
	cJSON_Delete(o);
	return line;
}

/* server_handler_fn: one request line -> one reply line (or the archive
 * workers' streamed answer) */
static char *handle_request(void *ctx, const char *line, size_t len, const struct peer *peer)
{
	struct reader *r = ctx;
	struct proto_request *req = malloc(sizeof(*req));
	char err[256];
	char *reply;

	if (!req)
		return proto_error_reply("out of memory");
	if (proto_parse_request(line, len, req, err, sizeof(err)) != 0) {
		server_count_bad(r->server);
		reply = proto_error_reply(err);
		free(req);
		return reply;
	}
	switch (req->op) {
	case PROTO_OP_REGISTER:
	case PROTO_OP_TASK_EXIT:
	case PROTO_OP_END:
		reply = proto_error_reply("this tracerd is a reader (mode = reader): it traces no "
					  "jobs; run jobs on a node whose tracerd traces them");
		break;
	case PROTO_OP_STATUS:
		reply = status_reply(r);
		break;
	case PROTO_OP_SUMMARIES:
	case PROTO_OP_TUNE_RUNS:
	case PROTO_OP_SUMMARY:
	case PROTO_OP_SWEEP:
		if (!privacy_reads_summaries(peer)) {
			reply = proto_error_reply("summaries are not served to processes in a "
						  "container (tracer.conf admin_in_containers)");
			break;
		}
		reply = archive_submit(r->archive, r->server, peer,
				       privacy_sees_all(&r->privacy, peer), req);
		break;
	default:
		server_count_bad(r->server);
		reply = proto_error_reply("unknown op");
		break;
	}
	free(req);
	return reply;
}

static int watch(int epfd, int fd, struct server_watch *w)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = w};

	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		log_error("epoll_ctl: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int open_timer(struct reader *r)
{
	struct itimerspec its = {
		.it_interval = {.tv_sec = READER_TICK_MS / 1000},
		.it_value = {.tv_sec = READER_TICK_MS / 1000},
	};

	r->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (r->timerfd < 0 || timerfd_settime(r->timerfd, 0, &its, NULL) != 0) {
		log_error("timerfd: %s", strerror(errno));
		return -1;
	}
	r->timer_w.kind = WATCH_TIMER;
	return watch(r->epfd, r->timerfd, &r->timer_w);
}

static void on_event(struct reader *r, struct server_watch *w, uint32_t events)
{
	uint64_t n;

	switch (w->kind) {
	case WATCH_LISTEN:
		server_accept(r->server);
		break;
	case WATCH_CONN:
		server_conn_ready(r->server, w, events);
		break;
	case WATCH_SIGNAL: {
		int what = daemonconf_signals_read(r->sigfd);

		if (what & SIGNALS_RELOAD)
			log_warn("SIGHUP: a reader reads its configuration at start only: "
				 "restart it to apply a change");
		if (what & SIGNALS_STOP)
			r->stop = true;
		break;
	}
	case WATCH_TIMER:
		if (read(r->timerfd, &n, sizeof(n)) < 0 && errno != EAGAIN)
			log_warn("timerfd read: %s", strerror(errno));
		server_expire(r->server);
		break;
	default:
		break;
	}
}

static int run_loop(struct reader *r)
{
	struct epoll_event evs[64];

	while (!r->stop) {
		int n = epoll_wait(r->epfd, evs, 64, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_error("epoll_wait: %s", strerror(errno));
			return -1;
		}
		for (int i = 0; i < n; i++)
			on_event(r, evs[i].data.ptr, evs[i].events);
		server_reap(r->server);
	}
	return 0;
}

/* Everything the loop needs, in order; -1 (logged) when one fails. */
static int reader_open(struct reader *r)
{
	char err[512];

	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0) {
		log_error("epoll_create1: %s", strerror(errno));
		return -1;
	}
	r->sigfd = daemonconf_signals_open(r->epfd, &r->signal_w);
	if (r->sigfd < 0 || open_timer(r) != 0)
		return -1;
	if (privacy_init(&r->privacy, r->cfg->admin_group, err, sizeof(err)) != 0) {
		log_error("%s", err);
		return -1;
	}
	/* checks the credentials file: root's, mode 0600 */
	r->archive = archive_start(r->cfg, err, sizeof(err));
	if (!r->archive) {
		log_error("%s", err);
		return -1;
	}
	r->server = server_open(r->cfg->socket_path, r->epfd, handle_request, r, err,
				sizeof(err));
	if (!r->server) {
		log_error("socket: %s", err);
		return -1;
	}
	server_set_admin_in_containers(r->server, r->cfg->admin_in_containers);
	return 0;
}

int reader_run(const struct daemonconf *dc, const struct tracer_config *cfg)
{
	struct reader r = {.cfg = cfg, .epfd = -1, .sigfd = -1, .timerfd = -1};
	char err[256];
	int rc = 1;

	(void)dc;
	r.started_mono_ns = clock_mono_ns();
	host_info_read(&r.host);
	/* before any thread: not thread-safe before libcurl 7.84 */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (reader_open(&r) == 0) {
		if (caps_drop_for_loop(err, sizeof(err)) != 0)
			log_warn("capabilities kept: %s", err);
		log_info("ready (reader): socket %s, datalake %s at %s", cfg->socket_path,
			 cfg->datalake, cfg->clickhouse_url);
		notify_send("READY=1");
		rc = run_loop(&r) == 0 ? 0 : 1;
		notify_send("STOPPING=1");
	}
	server_close(r.server);
	archive_stop(r.archive);
	if (r.timerfd >= 0)
		close(r.timerfd);
	if (r.sigfd >= 0)
		close(r.sigfd);
	if (r.epfd >= 0)
		close(r.epfd);
	return rc;
}
