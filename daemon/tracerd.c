/*
 * tracerd.c - the node daemon: load the BPF programs, serve the
 * registration socket, apply kernel events to jobs, sample live
 * processes, write summaries.  Runs in the foreground (systemd, or a
 * test's background job) until SIGTERM or SIGINT; SIGHUP reloads the
 * configuration (daemonconf.c).
 *
 * One event loop, the main thread's epoll over the ring buffer, the
 * socket, the signalfd and the timerfd.  It alone touches the open jobs,
 * the BPF maps, the registration socket and the journal.  The other
 * threads (12 at most in all) exist so that it never waits; each touches
 * only what is named here, and shares with the loop under its own mutex
 * or through _Atomic flags:
 *  - delivery writer (delivery.c): the hand-over queue, the spool files,
 *    a reload's new configuration;
 *  - one per sink, 3 at most (delivery_sink.c): its sink and its spool
 *    position; stops a transfer when the abort flag is set;
 *  - archive workers, 2 (archive.c): the archive files (read only), their
 *    request queue, the client socket handed to them;
 *  - askers, 3 (asker.c: user names, container names, Slurm time limits):
 *    their cache slots; they hold no capability;
 *  - docker watch (dockerwatch.c): its table of watches; asks dockerd;
 *  - /metrics (libmicrohttpd's thread, metrics_http.c): the last published
 *    exposition only.
 * Every helper starts with all signals blocked (threads.c): signals are
 * the loop's.
 */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "admission.h"
#include "daemonconf.h"
#include "archive.h"
#include "caps.h"
#include "notify.h"
#include "privacy.h"
#include "bpf_loader.h"
#include "clock.h"
#include "closing.h"
#include "config.h"
#include "events.h"
#include "hostinfo.h"
#include "jobs.h"
#include "jobgpu.h"
#include "json.h"
#include "log.h"
#include "proto.h"
#include "waitacct.h"
#include "rules.h"
#include "livestats.h"
#include "metrics.h"
#include "metrics_http.h"
#include "server.h"
#include "delivery.h"
#include "journal.h"
#include "summary.h"
#include "containernames.h"
#include "usernames.h"
#include "idlehost.h"
#include "slurmjob.h"
#include "gpu_nvml.h"
#include "dockerwatch.h"
#include "reader.h"

/* Housekeeping (and draining the ring buffer, which wakes us only when
 * an eighth of it is full) runs this often; sampling every
 * sample_interval_ms. */
#define TICK_MS 100
/* /proc readings of live processes per sample, over every job: a job
 * with more is read over several samples */
#define RSS_READS_PER_SAMPLE 512

#include "tracerd_priv.h"

/* Keep a registration's reply for answer_held; -1 without memory. */
static int hold_reply(struct tracerd *d, uint64_t ticket, char *reply)
{
	if (d->nheld == d->held_cap) {
		size_t cap = d->held_cap ? d->held_cap * 2 : 64;
		struct held_reply *h = realloc(d->held, cap * sizeof(*h));

		if (!h)
			return -1;
		d->held = h;
		d->held_cap = cap;
	}
	d->held[d->nheld++] = (struct held_reply){ticket, reply};
	return 0;
}

/* The batch's registrations are in the journal now: answer them. */
static void answer_held(struct tracerd *d)
{
	if (!d->nheld)
		return;
	journal_tick(&d->jobs);
	for (size_t i = 0; i < d->nheld; i++)
		server_answer(d->server, d->held[i].ticket, d->held[i].reply);
	d->nheld = 0;
}

/* server_handler_fn: one request line -> one reply line */
static char *handle_request(void *ctx, const char *line, size_t len,
			    const struct peer *peer)
{
	struct tracerd *d = ctx;
	struct proto_request *req = malloc(sizeof(*req));
	char err[256];
	char *reply = NULL;

	if (!req)
		return proto_error_reply("out of memory");
	if (proto_parse_request(line, len, req, err, sizeof(err)) != 0) {
		server_count_bad(d->server);
		/* the reason may quote the request: keep the log line one line */
		for (char *c = err; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		log_warn("bad request from pid %d uid %d: %s", (int)peer->pid,
			 (int)peer->uid, err);
		reply = proto_error_reply(err);
		goto out;
	}
	switch (req->op) {
	case PROTO_OP_REGISTER: {
		uint64_t now = clock_mono_ns();
		uint64_t accepted = d->jobs.stats.registered + d->jobs.stats.joined;
		const char *why = admission_check(&d->admission, &d->jobs, peer,
						  d->cfg.max_jobs_per_user, now);

		if (why) {
			reply = proto_error_reply(why);
			break;
		}
		reply = jobs_register(&d->jobs, &req->identity, req->stays, peer);
		/* a token only for a registration that passed the identity
		 * check and opened or joined a job */
		if (d->jobs.stats.registered + d->jobs.stats.joined != accepted)
			admission_spend(&d->admission, peer, now);
		/* journaled before the reply: a crash right after a
		 * registration must not forget the job.  The reply waits for
		 * the end of this epoll batch (answer_held), so that a flood
		 * of registrations costs one journal write per batch, not
		 * one each (a write grows with the open jobs). */
		if (reply && hold_reply(d, server_ticket(d->server), reply) == 0) {
			server_defer(d->server);
			reply = NULL;
		} else {
			journal_tick(&d->jobs);
		}
		break;
	}
	case PROTO_OP_TASK_EXIT:
		reply = jobs_task_exit(&d->jobs, req->job, req->status, peer);
		break;
	case PROTO_OP_END:
		reply = jobs_end(&d->jobs, req->job, req->status, peer,
				 server_ticket(d->server));
		if (!reply) /* answered once the summary is written */
			server_defer(d->server);
		break;
	case PROTO_OP_STATUS:
		reply = status_reply_render(d, peer);
		break;
	case PROTO_OP_SUMMARIES:
	case PROTO_OP_TUNE_RUNS:
	case PROTO_OP_SUMMARY: /* answered off the loop */
	case PROTO_OP_SWEEP:
		if (!privacy_reads_summaries(peer)) {
			reply = proto_error_reply("summaries are not served to processes in a "
						  "container (tracer.conf admin_in_containers)");
			break;
		}
		reply = archive_submit(d->archive, d->server, peer,
				       privacy_sees_all(&d->privacy, peer), req);
		break;
	default:
		server_count_bad(d->server);
		reply = proto_error_reply("unknown op");
		break;
	}
out:
	free(req);
	return reply;
}

/* jobs_answer_fn: a job's end request answered later */
static void answer_request(void *ctx, uint64_t ticket, char *reply)
{
	struct tracerd *d = ctx;

	server_answer(d->server, ticket, reply);
}

static int epoll_add(int epfd, int fd, struct server_watch *w)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = w};
	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

static int setup_timer(struct tracerd *d)
{
	struct itimerspec its = {
		.it_interval = {.tv_sec = 0, .tv_nsec = TICK_MS * 1000000L},
		.it_value = {.tv_sec = 0, .tv_nsec = TICK_MS * 1000000L},
	};

	d->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->timerfd < 0) {
		log_error("timerfd_create: %s", strerror(errno));
		return -1;
	}
	if (timerfd_settime(d->timerfd, 0, &its, NULL) != 0) {
		log_error("timerfd_settime: %s", strerror(errno));
		return -1;
	}
	d->timer_w.kind = WATCH_TIMER;
	return epoll_add(d->epfd, d->timerfd, &d->timer_w);
}

/* The live `stalled` flag: logged when it is raised and when it ends. */
static void note_stall(struct tracerd *d, struct job *j)
{
	int ev = livestats_check_stall(j, (uint64_t)d->cfg.stall_threshold_s * 1000000000ull);

	if (ev > 0)
		log_warn("job %s stalled: no CPU and no I/O for %d s", j->uid,
			 d->cfg.stall_threshold_s);
	else if (ev < 0)
		log_info("job %s progresses again", j->uid);
}

/* Render the exposition here, where the jobs live; the HTTP thread
 * only serves the latest copy. */
static void publish_metrics(struct tracerd *d)
{
	__u64 c[TRACER_CNT__MAX];
	uint64_t kernel[TRACER_CNT__MAX];
	struct delivery_stats ds;
	struct jobs_shares sh;
	struct metrics_daemon md = {
		.kernel = kernel,
		.shares = &sh,
		.socket = server_get_stats(d->server),
		.delivery = &ds,
		.start_time_s = d->started_real_s,
		.host_idle = d->idle.idle,
	};
	size_t len;
	char *text;

	if (!d->metrics)
		return;
	bpf_loader_counters(d->bpf, c);
	for (int i = 0; i < TRACER_CNT__MAX; i++)
		kernel[i] = c[i];
	delivery_get_stats(d->delivery, &ds);
	status_reply_shares(d, c, &ds, &sh);
	md.scrapes = metrics_http_scrapes(d->metrics);
	text = metrics_render(&d->jobs, &md, &len);
	if (text)
		metrics_http_publish(d->metrics, text, len);
	else
		log_warn("metrics: out of memory, the previous exposition stays");
}

/* One batch of ring buffer records; ringbuf_ready stays set while
 * records may be left, and the loop then polls without waiting. */
static void consume_batch(struct tracerd *d)
{
	bool more = false;

	if (bpf_loader_consume_batch(d->bpf, TRACER_RINGBUF_BATCH, &more) < 0)
		more = false;
	d->ringbuf_ready = more;
}

/* The idle_host state at the sampling tick; an idle period that ended
 * is handed to delivery as its own record, as a summary is. */
static void note_idle_host(struct tracerd *d, uint64_t now)
{
	const char *cluster = NULL;
	cJSON *rec;

	/* the cluster of an open job (the host's job has none) */
	for (size_t i = 0; i < d->jobs.nopen && !cluster; i++)
		if (d->jobs.open[i]->job->id.cluster[0])
			cluster = d->jobs.open[i]->job->id.cluster;
	rec = idle_host_tick(&d->idle, d->jobs.nopen > 0, cluster, d->cfg.idle_host_cpu_share,
			     d->cfg.idle_host_after_s, now);
	if (rec)
		delivery_submit(d->delivery, rec); /* a drop is counted and logged there */
}

static void on_timer(struct tracerd *d)
{
	uint64_t expirations, now = clock_mono_ns();

	if (read(d->timerfd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		log_warn("timerfd read: %s", strerror(errno));
	/* events first, so the jobs' views are current (a batch: the rest
	 * after the sockets, run_loop) */
	consume_batch(d);
	d->expire_due = true; /* after this epoll batch: it frees connections */
	if (now - d->last_sample_ns >= (uint64_t)d->cfg.sample_interval_ms * 1000000ull) {
		size_t budget = RSS_READS_PER_SAMPLE;
		d->last_sample_ns = now;
		for (size_t i = 0; i < d->jobs.nopen; i++) {
			struct open_job *oj = d->jobs.open[i];
			size_t share = budget / (d->jobs.nopen - i);
			budget -= livestats_sample_rss(oj->job, &d->host, &oj->rss_bucket,
						       share ? share : 1, &d->jobs.stats.pid_reused);
			note_stall(d, oj->job);
			if (oj->job->cgroup_stats)
				job_blocked_sample_cgroup(oj->job, &oj->cgroup);
		}
		jobgpu_sample(&d->jobs);
		note_idle_host(d, now);
		publish_metrics(d);
	}
	jobs_tick(&d->jobs);
	journal_tick(&d->jobs);
}

static int run_loop(struct tracerd *d)
{
	struct epoll_event evs[64];

	while (!d->stop) {
		/* closing jobs are settled in short steps between requests */
		int wait = d->ringbuf_ready ? 0 : closing_busy(&d->jobs) ? 1 : -1;
		int n = epoll_wait(d->epfd, evs, 64, wait);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_error("epoll_wait: %s", strerror(errno));
			return -1;
		}
		for (int i = 0; i < n; i++) {
			struct server_watch *w = evs[i].data.ptr;
			switch (w->kind) {
			case WATCH_RINGBUF:
				d->ringbuf_ready = true; /* after the sockets */
				break;
			case WATCH_LISTEN:
				server_accept(d->server);
				break;
			case WATCH_CONN:
				server_conn_ready(d->server, w, evs[i].events);
				break;
			case WATCH_SIGNAL: {
				int what = daemonconf_signals_read(d->sigfd);
				if (what & SIGNALS_RELOAD) /* no waiting: sinks restart off the loop */
					daemonconf_reload(&d->conf, &d->cfg, &d->rules, &d->jobs,
							  d->delivery);
				if (what & SIGNALS_STOP)
					d->stop = true;
				break;
			}
			case WATCH_TIMER:
				on_timer(d);
				break;
			}
		}
		/* records in bounded batches: the sockets of this epoll batch
		 * were served first, and the next ones are before the next
		 * batch of records */
		if (d->ringbuf_ready)
			consume_batch(d);
		answer_held(d);
		/* Later entries of a batch may point at connections that expiry
		 * or an answer frees: free them only once the batch is done. */
		server_reap(d->server);
		if (d->expire_due) {
			d->expire_due = false;
			server_expire(d->server);
		}
		closing_step(&d->jobs);
		/* closed jobs' summaries, once the journal says they closed */
		journal_flush(&d->jobs);
	}
	return 0;
}

static void rules_warn(const char *msg)
{
	log_warn("rules: %s", msg);
}

int main(int argc, char **argv)
{
	static struct tracerd d; /* large: keep it off the stack */
	char err[512];
	cJSON *idle_rec;
	int rc = 1;

	log_set_prefix("tracerd");
	/* what tracerd writes (spool, journal, state) is not for other
	 * users: the socket and its directory set their modes themselves */
	umask(027);
	d.epfd = d.sigfd = d.timerfd = -1;
	rc = daemonconf_args(&d.conf, &d.cfg, argc, argv);
	if (rc >= 0) /* --help, --version, --check-config, a usage error, a bad configuration */
		return rc;
	rc = 1;
	/* first, before any thread: each inherits the bits */
	if (caps_secure_exec(err, sizeof(err)) != 0)
		log_warn("securebits: %s: a program tracerd runs as uid 0 may gain capabilities",
			 err);
	if (reader_mode(&d.cfg)) /* a login node: no BPF, no jobs, no sinks */
		return reader_run(&d.conf, &d.cfg);
	d.started_mono_ns = clock_mono_ns();
	host_info_read(&d.host);
	idle_host_init(&d.idle, &d.host, &d.cfg);
	/* libcurl (loaded now) is set up once, before any thread uses it:
	 * curl_global_init is not thread-safe before libcurl 7.84, and the
	 * sinks' and the docker watch's later calls then only count */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	usernames_start();
	slurmjob_start();
	gpu_nvml_start(&d.cfg); /* before the loop drops its capabilities */
	containernames_start();
	dockerwatch_start();
	d.rules = rules_load(d.cfg.rules_path, rules_warn);
	if (!d.rules) {
		log_error("cannot load tool rules");
		goto cleanup;
	}
	d.delivery = delivery_start(&d.cfg, err, sizeof(err));
	if (!d.delivery) {
		log_error("delivery: %s", err);
		goto cleanup;
	}
	d.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d.epfd < 0) {
		log_error("epoll_create1: %s", strerror(errno));
		goto cleanup;
	}
	d.sigfd = daemonconf_signals_open(d.epfd, &d.signal_w);
	if (d.sigfd < 0 || setup_timer(&d) != 0)
		goto cleanup;
	struct bpf_loader_opts bo = {
		.trace_all = d.cfg.trace_all,
		.argv_max = (unsigned)d.cfg.argv_max,
		.ringbuf_bytes = d.cfg.ringbuf_bytes,
		.max_procs = d.cfg.max_procs,
		.pin_dir = d.cfg.pin_dir,
		.wakeup_bytes = d.cfg.ringbuf_bytes / 8,
		.max_procs_per_job = d.cfg.max_procs_per_job,
		.max_procs_per_user = config_procs_per_user(&d.cfg),
		.max_procs_all_users = config_procs_all_users(&d.cfg),
		.resume = d.cfg.resume,
		.no_sock_length = d.cfg.test_no_sock_length,
	};
	d.bpf = bpf_loader_open(&bo, events_handle, &d.jobs, err, sizeof(err));
	if (!d.bpf) {
		log_error("BPF: %s", err);
		goto cleanup;
	}
	jobs_init(&d.jobs, &d.cfg, &d.host, d.rules, d.delivery, d.bpf);
	admission_init(&d.admission, clock_mono_ns());
	if (privacy_init(&d.privacy, d.cfg.admin_group, err, sizeof(err)) != 0) {
		log_error("%s", err);
		goto cleanup;
	}
	d.archive = archive_start(&d.cfg, err, sizeof(err));
	if (!d.archive) {
		log_error("%s", err);
		goto cleanup;
	}
	closing_set_answer(&d.jobs, answer_request, &d);
	d.jobs.journal.path = daemonconf_journal_path(&d.cfg);
	/* before the first record is read: records of the time we were
	 * down are in the kept ring buffer, tagged with their jobs' keys */
	journal_resume(&d.jobs, bpf_loader_resumed(d.bpf));
	d.ringbuf_w.kind = WATCH_RINGBUF;
	if (epoll_add(d.epfd, bpf_loader_ringbuf_fd(d.bpf), &d.ringbuf_w) != 0) {
		log_error("epoll_ctl ring buffer: %s", strerror(errno));
		goto cleanup;
	}
	d.server = server_open(d.cfg.socket_path, d.epfd, handle_request, &d, err, sizeof(err));
	if (!d.server) {
		log_error("socket: %s", err);
		goto cleanup;
	}
	server_set_admin_in_containers(d.server, d.cfg.admin_in_containers);
	if (d.cfg.admin_in_containers)
		log_warn("admin_in_containers: root in a container is root to tracerd "
			 "(every container with the socket sees and ends every job)");
	/* programs attached, socket bound: the loop (and the metrics
	 * thread started below) keep only what they need from here */
	if (caps_drop_for_loop(err, sizeof(err)) != 0)
		log_warn("capabilities kept: %s", err);
	if (d.cfg.metrics_listen[0]) {
		d.metrics = metrics_http_open(d.cfg.metrics_listen, d.cfg.metrics_allow_remote, err,
					      sizeof(err));
		if (!d.metrics) {
			log_error("metrics_listen: %s", err);
			goto cleanup;
		}
		d.started_real_s = clock_real_ns() / 1000000000ull;
		publish_metrics(&d);
		log_info("metrics: http://%s/metrics", d.cfg.metrics_listen);
	}
	log_info("ready: socket %s, sinks %s (%s, spool %s), %s", d.cfg.socket_path, d.cfg.sinks,
		 d.cfg.file_path, d.cfg.spool_dir, d.cfg.trace_all ? "tracing every process" : "tracing registered jobs");
	notify_send("READY=1"); /* programs attached, socket listening */
	if (run_loop(&d) == 0)
		rc = 0;
	notify_send("STOPPING=1");
	/* a clean stop ends an idle period: its record is spooled with the
	 * last summaries */
	idle_rec = idle_host_stop(&d.idle);
	if (idle_rec)
		delivery_submit(d.delivery, idle_rec);
	bpf_loader_consume(d.bpf);
	if (d.cfg.resume && d.jobs.journal.path) {
		/* a restart resumes the open jobs: the programs go on
		 * following them meanwhile; only the host job ends here */
		jobs_close_host(&d.jobs, "tracerd stopping");
		/* closed jobs stay journaled until the spool has them */
		journal_settle(&d.jobs, TRACER_SHUTDOWN_DELIVERY_MS / 2);
		log_info("%zu open jobs kept for the next start (%s)", d.jobs.nopen,
			 d.jobs.journal.path);
	} else {
		jobs_close_all(&d.jobs, "tracerd stopping");
		bpf_loader_discard(d.bpf);
	}
cleanup:
	metrics_http_close(d.metrics);
	for (size_t i = 0; i < d.nheld; i++)
		free(d.held[i].reply);
	free(d.held);
	server_close(d.server);
	journal_free(&d.jobs);
	archive_stop(d.archive);
	jobs_fini(&d.jobs);
	bpf_loader_close(d.bpf);
	/* bounded: what the sinks do not take in time stays spooled */
	delivery_stop(d.delivery, TRACER_SHUTDOWN_DELIVERY_MS);
	rules_free(d.rules);
	usernames_stop();
	slurmjob_stop();
	gpu_nvml_stop();
	containernames_stop();
	dockerwatch_stop();
	if (d.timerfd >= 0)
		close(d.timerfd);
	if (d.sigfd >= 0)
		close(d.sigfd);
	if (d.epfd >= 0)
		close(d.epfd);
	return rc;
}
