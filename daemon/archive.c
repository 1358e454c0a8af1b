/*
 * archive.c - tracerd's answers about finished jobs (archive.h): the
 * loop queues, worker threads read the archive with lib/sumfile and
 * stream one summary per line (archive_reply.c), then the closing
 * {"ok":true,...} line.
 *
 * The source is the file archive, or the datalake (datalake_read.c) when
 * tracer.conf has `datalake = clickhouse`: the same queue, fairness,
 * bounds and owner filter; the owner goes into the query's SQL.
 *
 * Fair by user: a non-root user is answered by one worker at a time.  A
 * free worker takes the oldest queued request whose user has no worker
 * yet, so a user whose slow requests (a huge archive, a client that
 * reads slowly) keep a worker busy never holds the others: the next
 * user's request goes past theirs.  Root's requests are never held back.
 */
#include "archive.h"
#include "archive_reply.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps.h"
#include "clock.h"
#include "datalake_read.h"
#include "json.h"
#include "log.h"
#include "threads.h"
#include "sumfile.h"
#include "sweep.h"
#include "tune_read.h"

#define ARCHIVE_WORKERS 2
#define ARCHIVE_QUEUE_MAX 8     /* queued or being answered, in all */
#define ARCHIVE_PER_UID 2       /* ... of one non-root user */
#define ARCHIVE_READ_MS 10000   /* reading stops then; the reply says truncated */

struct areq {
	int fd;
	struct peer peer;
	bool sees_all;
	struct proto_request req;
	bool held;  /* a later request of another user went first (counted once) */
	struct areq *next;
};

struct archive {
	char path[sizeof(((struct tracer_config *)0)->file_path)];
	struct tracer_config *lake; /* the datalake's settings; NULL: the file archive */
	struct tracer_config *conf; /* a sweep's source and prices (sweep.h) */
	pthread_t tids[ARCHIVE_WORKERS];
	int nthreads;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct areq *head, *tail; /* queued */
	uid_t busy_uid[ARCHIVE_WORKERS]; /* being answered (-1: idle) */
	int busy_fd[ARCHIVE_WORKERS];
	int nqueued, nbusy;
	_Atomic int stop; /* set by archive_stop on the loop, read by the workers */
	uint64_t served, refused_busy, truncated, failed;
	uint64_t errors; /* answered with an error (the datalake's, the archive's) */
	uint64_t held_back; /* requests that waited: their user had a worker */
	char qid[64]; /* "tracerd-HOST-PID": the datalake's query ids (answer_as) */
};

static void filter_from_query(struct job_filter *f, const struct proto_query *q)
{
	f->users = q->users[0] ? q->users : NULL;
	f->states = q->states[0] ? q->states : NULL;
	f->names = q->names[0] ? q->names : NULL;
	f->runs = q->runs[0] ? q->runs : NULL;
	f->job_ids = q->job_ids[0] ? q->job_ids : NULL;
	f->accounts = q->accounts[0] ? q->accounts : NULL;
	f->partitions = q->partitions[0] ? q->partitions : NULL;
	f->nodes = q->nodes[0] ? q->nodes : NULL;
	f->since_ns = q->since_ns;
	f->until_ns = q->until_ns;
}

/* A request answered with an error: said to the asker, counted */
static void answer_error(struct archive *a, int fd, const char *msg)
{
	archive_reply_error(fd, msg);
	pthread_mutex_lock(&a->lock);
	a->errors++;
	pthread_mutex_unlock(&a->lock);
}

/* The answer from the datalake: 0, or -1 when an error line was sent. */
static int answer_lake(struct archive *a, struct areq *r, struct job_filter *f,
		       struct archive_reply *o, bool *capped)
{
	char err[512];
	int rc;

	if (r->req.op == PROTO_OP_SUMMARY) {
		rc = datalake_read_job(a->lake, r->req.job, f, archive_reply_lake_line, o, err,
				       sizeof(err));
	} else if (r->req.op == PROTO_OP_TUNE_RUNS) {
		/* rows of a few hundred bytes: TRACER_TUNE_MAX_RUNS stay far
		 * within the reply's cap */
		filter_from_query(f, &r->req.query);
		rc = tune_read_lines(a->lake, f, r->req.query.pipeline[0] ? r->req.query.pipeline : NULL,
				     TRACER_TUNE_MAX_RUNS, archive_reply_lake_line, o, err, sizeof(err));
	} else {
		const struct proto_query *q = &r->req.query;
		/* every one (0) stays within the answer's size cap */
		long n = q->limit > TRACER_ARCHIVE_LIMIT_MAX ? TRACER_ARCHIVE_LIMIT_MAX : q->limit;

		filter_from_query(f, q);
		if (q->jobs > 0) { /* a job listing's window: its jobs, not summaries */
			long j = q->jobs > TRACER_ARCHIVE_LIMIT_MAX ? TRACER_ARCHIVE_LIMIT_MAX : q->jobs;

			*capped = j < q->jobs;
			rc = datalake_read_jobs(a->lake, f, q->job_states[0] ? q->job_states : NULL, j,
						archive_reply_lake_line, o, err, sizeof(err));
		} else {
			*capped = n < q->limit;
			rc = datalake_read_summaries(a->lake, f, n, archive_reply_lake_line, o, err,
						     sizeof(err));
		}
	}
	if (rc < 0 && !o->broken) {
		log_warn("datalake answer to uid %d: %s", (int)r->peer.uid, err);
		answer_error(a, r->fd, err);
		return -1;
	}
	return 0;
}

/* A sweep (proto.h): one line, the asker's jobs only unless sees_all. */
static void answer_sweep(struct archive *a, struct areq *r, struct archive_reply *o)
{
	const struct proto_sweep *sw = &r->req.sweep;
	struct sweep_query q = {.since_s = sw->since_s, .limit = sw->limit,
				.uid = r->sees_all ? -1 : (long)r->peer.uid};
	char err[512];
	cJSON *ans, *reply;

	if (sweep_by_parse(sw->by, &q.by) != 0) {
		answer_error(a, r->fd, "\"by\": user, account, partition, pipeline, host or tool");
		return;
	}
	q.from_s = (double)clock_real_ns() / 1e9 - sw->since_s;
	sweep_query_prices(&q, a->conf);
	ans = sweep_run(a->lake ? a->lake : a->conf, &q,
			clock_mono_ns() + ARCHIVE_READ_MS * 1000000ull, &a->stop, err, sizeof(err));
	if (!ans) {
		log_warn("sweep for uid %d: %s", (int)r->peer.uid, err);
		answer_error(a, r->fd, err);
		return;
	}
	reply = cJSON_CreateObject();
	if (reply && cJSON_AddTrueToObject(reply, "ok") &&
	    cJSON_AddItemToObject(reply, "sweep", ans))
		archive_reply_line(o, reply);
	else
		cJSON_Delete(ans);
	cJSON_Delete(reply);
	pthread_mutex_lock(&a->lock);
	a->served += !o->broken;
	a->failed += o->broken;
	pthread_mutex_unlock(&a->lock);
}

/* Read and stream one answer; the closing line says how it went. */
static void answer(struct archive *a, struct areq *r)
{
	struct sumfile_status st = {
		.deadline_ns = clock_mono_ns() + ARCHIVE_READ_MS * 1000000ull,
		.cancel = &a->stop,
	};
	struct archive_reply o;
	struct job_filter f;
	cJSON *got = NULL, *end;
	int files = 1;
	bool capped = false;

	job_filter_init(&f);
	if (!r->sees_all)
		f.owner_uid = (int64_t)r->peer.uid;
	archive_reply_open(&o, r->fd, r->peer.pid);
	if (r->req.op == PROTO_OP_SWEEP) {
		answer_sweep(a, r, &o);
		return;
	}
	if (a->lake) {
		if (answer_lake(a, r, &f, &o, &capped) != 0)
			return;
		files = 0;
	} else if (r->req.op == PROTO_OP_TUNE_RUNS) {
		answer_error(a, r->fd, "tune_runs is answered from the datalake only (datalake = "
				       "clickhouse): ask for summaries");
		return;
	} else if (r->req.op == PROTO_OP_SUMMARY) {
		got = sumfile_find(a->path, r->req.job, &f, &st);
		if (got)
			archive_reply_line(&o, got);
	} else {
		const struct proto_query *q = &r->req.query;

		filter_from_query(&f, q);
		if (q->all_files) {
			sumfile_each(a->path, &f, archive_reply_summary, &o, &files, &st);
		} else if (q->limit == 0) {
			sumfile_each_file(a->path, &f, archive_reply_summary, &o, &st);
		} else {
			long n = q->limit > TRACER_ARCHIVE_LIMIT_MAX ? TRACER_ARCHIVE_LIMIT_MAX : q->limit;

			capped = n < q->limit;
			got = sumfile_tail(a->path, (size_t)n, &f, &st);
			for (cJSON *s = got ? got->child : NULL; s && !archive_reply_line(&o, s); s = s->next)
				;
		}
	}
	cJSON_Delete(got);
	if (o.broken) {
		pthread_mutex_lock(&a->lock);
		a->failed++;
		pthread_mutex_unlock(&a->lock);
		return; /* the client is gone or stopped reading */
	}
	if (st.open_errno && st.open_errno != ENOENT) {
		char msg[400];

		snprintf(msg, sizeof(msg), "cannot read the archive %s: %s", st.failed_path,
			 strerror(st.open_errno));
		answer_error(a, r->fd, msg);
		return;
	}
	end = cJSON_CreateObject();
	if (!end)
		return;
	cJSON_AddTrueToObject(end, "ok");
	json_add_u64(end, "count", o.count);
	json_add_u64(end, "files", st.open_errno == ENOENT ? 0 : (uint64_t)files);
	cJSON_AddBoolToObject(end, "truncated", st.truncated || o.cut || capped);
	json_add_u64(end, "skipped_lines", st.bad + o.skipped);
	o.bytes = 0; /* the closing line always fits */
	archive_reply_line(&o, end);
	cJSON_Delete(end);
	pthread_mutex_lock(&a->lock);
	a->served++;
	if (st.truncated || o.cut || capped)
		a->truncated++;
	pthread_mutex_unlock(&a->lock);
}

/*
 * answer() with the datalake's questions named by their asker: a user's
 * "tracerd-HOST-PID-uUID" (one worker at a time answers a user), root's
 * by the worker ("-wSLOT").  ClickHouse refuses a query while one of the
 * same id runs, so a user whose question outlived its deadline (the
 * server goes on with it) cannot start another beside it: one query of a
 * user at a time on the server, as in the workers.
 */
static void answer_as(struct archive *a, struct areq *r, int slot)
{
	char id[DATALAKE_QUERY_ID_MAX];

	if (r->peer.uid == 0)
		snprintf(id, sizeof(id), "%s-w%d", a->qid, slot);
	else
		snprintf(id, sizeof(id), "%s-u%u", a->qid, (unsigned)r->peer.uid);
	datalake_set_query_id(id);
	answer(a, r);
	datalake_set_query_id(NULL);
}

static bool uid_busy(const struct archive *a, uid_t uid)
{
	for (int i = 0; i < ARCHIVE_WORKERS; i++)
		if (a->busy_uid[i] == uid)
			return true;
	return false;
}

/* The next request to answer (lock held): the oldest whose user has no
 * worker yet, or root's; NULL when every queued one must wait.  Taken
 * off the queue. */
static struct areq *next_fair(struct archive *a)
{
	struct areq **link = &a->head, *prev = NULL;

	for (struct areq *r = a->head; r; prev = r, r = r->next, link = &prev->next) {
		if (r->peer.uid != 0 && uid_busy(a, r->peer.uid))
			continue;
		*link = r->next;
		if (a->tail == r)
			a->tail = prev;
		a->nqueued--;
		/* every request it passed waits for its own user */
		for (struct areq *w = a->head; w && w != r->next; w = w->next)
			if (!w->held) {
				w->held = true;
				a->held_back++;
			}
		return r;
	}
	return NULL;
}

static void *worker(void *arg)
{
	struct archive *a = arg;
	{
		char err[128];

		/* reading the archive (tracerd's own file) needs none */
		if (caps_drop_all(err, sizeof(err)) != 0)
			log_warn("archive worker: capabilities kept: %s", err);
	}
	pthread_mutex_lock(&a->lock);
	for (;;) {
		struct areq *r = NULL;
		int slot = 0;

		while (!a->stop && !(r = next_fair(a)))
			pthread_cond_wait(&a->wake, &a->lock);
		if (a->stop) {
			if (r) { /* back at the head: archive_stop closes it */
				r->next = a->head;
				a->head = r;
				if (!a->tail)
					a->tail = r;
				a->nqueued++;
			}
			break;
		}
		while (a->busy_uid[slot] != (uid_t)-1)
			slot++; /* nbusy < ARCHIVE_WORKERS: one is free */
		a->busy_uid[slot] = r->peer.uid;
		a->busy_fd[slot] = r->fd;
		a->nbusy++;
		pthread_mutex_unlock(&a->lock);
		answer_as(a, r, slot);
		close(r->fd);
		free(r);
		pthread_mutex_lock(&a->lock);
		a->busy_uid[slot] = (uid_t)-1;
		a->busy_fd[slot] = -1;
		a->nbusy--;
		/* a request held back for this user may go now */
		pthread_cond_broadcast(&a->wake);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

struct archive *archive_start(const struct tracer_config *cfg, char *err, size_t errlen)
{
	struct archive *a = calloc(1, sizeof(*a));

	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(a->path, sizeof(a->path), "%s", cfg->file_path);
	{
		char host[64] = "";

		/* without a name the ids stay apart by the pid alone */
		if (gethostname(host, sizeof(host) - 1) != 0)
			log_warn("gethostname: %s: the datalake's query ids lack it", strerror(errno));
		snprintf(a->qid, sizeof(a->qid), "tracerd-%.40s-%d", host, (int)getpid());
	}
	a->conf = malloc(sizeof(*a->conf));
	if (!a->conf) {
		free(a);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	*a->conf = *cfg;
	if (datalake_configured(cfg)) {
		a->lake = malloc(sizeof(*a->lake));
		if (!a->lake) {
			free(a->conf);
			free(a);
			snprintf(err, errlen, "out of memory");
			return NULL;
		}
		*a->lake = *cfg; /* the loop's copy changes on SIGHUP */
		if (datalake_check_credentials(cfg, err, errlen) != 0) {
			free(a->lake);
			free(a->conf);
			free(a);
			return NULL;
		}
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->wake, NULL);
	for (int i = 0; i < ARCHIVE_WORKERS; i++) {
		a->busy_uid[i] = (uid_t)-1;
		a->busy_fd[i] = -1;
	}
	for (int i = 0; i < ARCHIVE_WORKERS; i++) {
		int rc = threads_start(&a->tids[i], worker, a);
		if (rc != 0) {
			snprintf(err, errlen, "archive worker: %s", strerror(rc));
			archive_stop(a);
			return NULL;
		}
		a->nthreads++;
	}
	return a;
}

static int requests_of_uid(const struct archive *a, uid_t uid)
{
	int n = 0;

	for (const struct areq *r = a->head; r; r = r->next)
		n += r->peer.uid == uid;
	for (int i = 0; i < ARCHIVE_WORKERS; i++)
		n += a->busy_uid[i] == uid;
	return n;
}

char *archive_submit(struct archive *a, struct server *s, const struct peer *peer,
		     bool sees_all, const struct proto_request *req)
{
	struct areq *r = malloc(sizeof(*r));
	const char *why = NULL;

	if (!r)
		return proto_error_reply("out of memory");
	pthread_mutex_lock(&a->lock);
	if (a->nqueued + a->nbusy >= ARCHIVE_QUEUE_MAX)
		why = "busy: too many archive requests, try again";
	else if (!peer_is_admin(peer) && requests_of_uid(a, peer->uid) >= ARCHIVE_PER_UID)
		why = "busy: your earlier archive requests are still being answered";
	else if ((r->fd = server_take(s)) < 0)
		why = "cannot take the connection";
	if (why) {
		a->refused_busy++;
		pthread_mutex_unlock(&a->lock);
		free(r);
		return proto_error_reply(why);
	}
	r->peer = *peer;
	r->sees_all = sees_all;
	r->held = false;
	r->req = *req;
	r->next = NULL;
	if (a->tail)
		a->tail->next = r;
	else
		a->head = r;
	a->tail = r;
	a->nqueued++;
	pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

cJSON *archive_stats_json(struct archive *a)
{
	cJSON *o = cJSON_CreateObject();

	if (!o || !a)
		return o;
	pthread_mutex_lock(&a->lock);
	json_add_u64(o, "served", a->served);
	json_add_u64(o, "refused_busy", a->refused_busy);
	json_add_u64(o, "truncated", a->truncated);
	json_add_u64(o, "reply_failed", a->failed);
	json_add_u64(o, "errors", a->errors);
	json_add_u64(o, "held_for_fairness", a->held_back);
	json_add_u64(o, "in_progress", (uint64_t)(a->nqueued + a->nbusy));
	pthread_mutex_unlock(&a->lock);
	return o;
}

void archive_get_counts(struct archive *a, uint64_t *held, uint64_t *refused_busy)
{
	*held = *refused_busy = 0;
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	*held = a->held_back;
	*refused_busy = a->refused_busy;
	pthread_mutex_unlock(&a->lock);
}

void archive_stop(struct archive *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = 1;
	/* a send waiting for a client that does not read ends now */
	for (int i = 0; i < ARCHIVE_WORKERS; i++)
		if (a->busy_fd[i] >= 0)
			shutdown(a->busy_fd[i], SHUT_RDWR);
	pthread_cond_broadcast(&a->wake);
	pthread_mutex_unlock(&a->lock);
	for (int i = 0; i < a->nthreads; i++)
		pthread_join(a->tids[i], NULL);
	while (a->head) {
		struct areq *r = a->head;
		a->head = r->next;
		close(r->fd);
		free(r);
	}
	pthread_cond_destroy(&a->wake);
	pthread_mutex_destroy(&a->lock);
	free(a->lake);
	free(a->conf);
	free(a);
}
