/*
 * delivery.c - the spool writer and the sinks' delivery threads
 * (delivery.h).
 *
 * Why threads: fsync of a spool record takes milliseconds on an idle
 * disk and seconds on a busy one, a sink may hang for http_timeout_ms;
 * tracerd's event loop must never wait for either.  The loop only
 * appends to a queue (bounded: past QUEUE_MAX summaries waiting for the
 * disk, the newest is dropped, counted and logged).
 *
 * A sink thread waits until the spool holds records it lacks, reads a
 * batch (sink_limits), delivers it, and on success moves its position;
 * on failure it waits retry_min, doubling up to retry_max_ms, each wait
 * drawn at random between half and all of it (jitter: a fleet of nodes
 * does not retry in step after a collector's outage).
 */
#include "delivery.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "jsonutil.h"
#include "log.h"

#define QUEUE_MAX 4096
#define WRITE_RETRY_MS 1000

struct qitem {
	cJSON *summary;
	struct qitem *next;
};

struct sink_thread {
	struct delivery *d;
	int index;
	struct sink *sink;
	struct sink_limits lim;
	pthread_t tid;
	bool started, done;
	struct sink_stats st;
	unsigned backoff_ms;
	uint64_t next_try_ms; /* monotonic */
	unsigned seed;
};

struct delivery {
	const struct tracer_config *cfg;
	struct spool *spool;
	pthread_mutex_t lock;
	pthread_cond_t wake;      /* new work, or stop */
	pthread_cond_t finished;  /* a thread ended */
	struct qitem *head, *tail;
	size_t queued;
	uint64_t submitted, queue_dropped;
	pthread_t writer;
	bool writer_started, writer_done;
	bool stop_writer, stop_sinks;
	volatile int abort; /* cut transfers in progress */
	int nsinks;
	struct sink_thread st[SINK_KINDS];
};

static uint64_t deadline_after(unsigned ms)
{
	return clock_mono_ms() + ms;
}

/* pthread_cond_timedwait until a monotonic ms (the conds use CLOCK_MONOTONIC) */
static void wait_until_ms(struct delivery *d, pthread_cond_t *c, uint64_t ms)
{
	struct timespec ts = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000};
	pthread_cond_timedwait(c, &d->lock, &ts);
}

/* ---- the spool writer ---- */

static void *writer_main(void *arg)
{
	struct delivery *d = arg;
	char err[512];
	char *text = NULL; /* the head summary, rendered, while its write fails */
	uint64_t failures = 0;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		while (!d->head && !d->stop_writer)
			pthread_cond_wait(&d->wake, &d->lock);
		if (!d->head)
			break;
		cJSON *s = d->head->summary;
		pthread_mutex_unlock(&d->lock);

		if (!text)
			text = cJSON_PrintUnformatted(s);
		int rc = text ? spool_write(d->spool, text, strlen(text), err, sizeof(err)) : -ENOMEM;
		if (!text)
			snprintf(err, sizeof(err), "out of memory rendering a summary");

		pthread_mutex_lock(&d->lock);
		if (rc == 0 || rc == -ENOMEM) {
			if (rc)
				log_error("summary lost: %s", err);
			else if (failures)
				log_info("spool writable again after %llu failed writes",
					 (unsigned long long)failures);
			failures = 0;
			struct qitem *it = d->head;
			d->head = it->next;
			if (!d->head)
				d->tail = NULL;
			d->queued--;
			pthread_cond_broadcast(&d->wake); /* the sinks have work */
			/* a large tree takes a while to free: not under the lock
			 * the event loop's hand-over takes */
			pthread_mutex_unlock(&d->lock);
			cJSON_Delete(it->summary);
			free(it);
			free(text);
			text = NULL;
			pthread_mutex_lock(&d->lock);
			continue;
		}
		/* disk full, I/O error: the summary stays first in line */
		if (failures++ == 0 || failures % 60 == 0)
			log_error("cannot spool a summary (%llu failed writes, %zu waiting): %s",
				  (unsigned long long)failures, d->queued, err);
		if (d->stop_writer)
			break;
		wait_until_ms(d, &d->wake, deadline_after(WRITE_RETRY_MS));
	}
	free(text);
	d->writer_done = true;
	pthread_cond_broadcast(&d->finished);
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* ---- one sink ---- */

static unsigned jitter(struct sink_thread *t, unsigned ms)
{
	return ms / 2 + (unsigned)(rand_r(&t->seed) % (ms / 2 + 1));
}

/* Read and deliver one batch: 1 delivered, 0 nothing to do, -1 failed. */
static int deliver_batch(struct sink_thread *t)
{
	struct delivery *d = t->d;
	size_t max = t->lim.max_summaries;
	uint64_t *seqs = malloc(max * sizeof(*seqs));
	char **texts = calloc(max, sizeof(*texts));
	size_t *lens = calloc(max, sizeof(*lens));
	size_t n = 0, m = 0;
	char err[512];
	int rc = -1;

	if (!seqs || !texts || !lens) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	n = spool_pending(d->spool, t->index, seqs, max, t->lim.max_bytes);
	if (n == 0) {
		rc = 0;
		goto out;
	}
	if (sink_probe(t->sink, d->cfg->http_timeout_ms, &d->abort, err, sizeof(err)) != 0)
		goto fail;
	/* the interval counts from the start of one delivery to the start of
	 * the next: reading and converting a batch is part of the wait */
	uint64_t started_ms = clock_mono_ms();
	for (size_t i = 0; i < n; i++) {
		/* gone (dropped by the cap) or corrupt (set aside): skipped */
		if (spool_read(d->spool, seqs[i], &texts[m], &lens[m]) == 0)
			m++;
	}
	if (sink_deliver(t->sink, texts, lens, m, d->cfg->http_timeout_ms, &d->abort, err,
			 sizeof(err)) != 0)
		goto fail;
	spool_ack(d->spool, t->index, seqs[n - 1]);
	pthread_mutex_lock(&d->lock);
	t->st.delivered += m;
	t->st.batches++;
	t->st.last_success_ns = clock_real_ns();
	if (t->backoff_ms)
		log_info("sink %s: delivering again", sink_kind_name(t->st.kind));
	t->backoff_ms = 0;
	t->next_try_ms = started_ms + t->lim.min_interval_ms;
	pthread_mutex_unlock(&d->lock);
	rc = 1;
	goto out;
fail:
	pthread_mutex_lock(&d->lock);
	t->st.failures++;
	t->st.last_failure_ns = clock_real_ns();
	snprintf(t->st.last_error, sizeof(t->st.last_error), "%s", err);
	t->backoff_ms = t->backoff_ms ? t->backoff_ms * 2 : TRACER_RETRY_MIN_MS;
	if (t->backoff_ms > (unsigned)d->cfg->retry_max_ms)
		t->backoff_ms = (unsigned)d->cfg->retry_max_ms;
	unsigned wait = jitter(t, t->backoff_ms);
	t->next_try_ms = clock_mono_ms() + wait;
	pthread_mutex_unlock(&d->lock);
	log_warn("sink %s: %zu summaries not delivered (retry in %u ms): %s",
		 sink_kind_name(t->st.kind), n, wait, err);
out:
	for (size_t i = 0; texts && i < m; i++)
		free(texts[i]);
	free(seqs);
	free(texts);
	free(lens);
	/* a large batch's memory goes back to the system: tracerd's size
	 * must not depend on how much was spooled */
	if (m > 100)
		malloc_trim(0);
	return rc;
}

static bool has_pending(struct sink_thread *t)
{
	uint64_t seq;
	return spool_pending(t->d->spool, t->index, &seq, 1, SIZE_MAX) > 0;
}

static void *sink_main(void *arg)
{
	struct sink_thread *t = arg;
	struct delivery *d = t->d;
	bool last_try = false;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		if (d->stop_sinks) {
			/* one last attempt for what the shutdown spooled */
			if (last_try || t->backoff_ms)
				break;
			last_try = true;
		} else {
			uint64_t now = clock_mono_ms();
			if (now < t->next_try_ms) {
				wait_until_ms(d, &d->wake, t->next_try_ms);
				continue;
			}
			pthread_mutex_unlock(&d->lock);
			bool work = has_pending(t);
			pthread_mutex_lock(&d->lock);
			if (!work) {
				if (!d->stop_sinks)
					wait_until_ms(d, &d->wake, deadline_after(1000));
				continue;
			}
		}
		pthread_mutex_unlock(&d->lock);
		int rc = deliver_batch(t);
		pthread_mutex_lock(&d->lock);
		if (d->stop_sinks && rc == 1)
			last_try = false; /* more may be waiting: go on while time lasts */
	}
	t->done = true;
	pthread_cond_broadcast(&d->finished);
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* ---- life ---- */

struct delivery *delivery_start(const struct tracer_config *cfg, char *err, size_t errlen)
{
	struct delivery *d = calloc(1, sizeof(*d));
	enum sink_kind kinds[SINK_KINDS];
	pthread_condattr_t ca;

	if (!d) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	d->cfg = cfg;
	pthread_mutex_init(&d->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&d->wake, &ca);
	pthread_cond_init(&d->finished, &ca);
	pthread_condattr_destroy(&ca);
	d->nsinks = sink_kinds(cfg->sinks, kinds);
	if (d->nsinks == 0) {
		snprintf(err, errlen, "no known sink in \"%s\"", cfg->sinks);
		goto fail;
	}
	for (int i = 0; i < d->nsinks; i++) {
		struct sink_thread *t = &d->st[i];
		char why[256];
		t->d = d;
		t->index = i;
		t->st.kind = kinds[i];
		t->seed = (unsigned)clock_mono_ns() + (unsigned)i;
		sink_limits(kinds[i], &t->lim);
		t->sink = sink_open(kinds[i], cfg, why, sizeof(why));
		if (!t->sink) {
			snprintf(err, errlen, "sink %s: %s", sink_kind_name(kinds[i]), why);
			goto fail;
		}
	}
	d->spool = spool_open(cfg->spool_dir, cfg->spool_max_bytes, kinds, d->nsinks, err, errlen);
	if (!d->spool)
		goto fail;
	struct spool_stats ss;
	spool_get_stats(d->spool, &ss);
	if (ss.records)
		log_info("spool %s: %llu summaries (%llu bytes) from before: delivering them",
			 cfg->spool_dir, (unsigned long long)ss.records, (unsigned long long)ss.bytes);
	/* signals are the event loop's (signalfd): the threads block all */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (pthread_create(&d->writer, NULL, writer_main, d) != 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		snprintf(err, errlen, "cannot start the spool writer thread");
		goto fail;
	}
	d->writer_started = true;
	for (int i = 0; i < d->nsinks; i++) {
		if (pthread_create(&d->st[i].tid, NULL, sink_main, &d->st[i]) != 0) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			snprintf(err, errlen, "cannot start a delivery thread");
			delivery_stop(d, 0);
			return NULL;
		}
		d->st[i].started = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d;
fail:
	for (int i = 0; i < d->nsinks; i++)
		sink_close(d->st[i].sink);
	spool_close(d->spool);
	free(d);
	return NULL;
}

void delivery_submit(struct delivery *d, cJSON *summary)
{
	struct qitem *it = malloc(sizeof(*it));

	pthread_mutex_lock(&d->lock);
	d->submitted++;
	if (!it || d->queued >= QUEUE_MAX) {
		d->queue_dropped++;
		pthread_mutex_unlock(&d->lock);
		log_error("summary %s dropped: %zu summaries already wait for the spool's disk",
			  json_get_str(summary, "summary_id", "?"), (size_t)QUEUE_MAX);
		free(it);
		cJSON_Delete(summary);
		return;
	}
	it->summary = summary;
	it->next = NULL;
	if (d->tail)
		d->tail->next = it;
	else
		d->head = it;
	d->tail = it;
	d->queued++;
	pthread_cond_broadcast(&d->wake);
	pthread_mutex_unlock(&d->lock);
}

static bool all_done(struct delivery *d, bool writer)
{
	if (writer)
		return !d->writer_started || d->writer_done;
	for (int i = 0; i < d->nsinks; i++)
		if (d->st[i].started && !d->st[i].done)
			return false;
	return true;
}

/* Wait (lock held) until the threads are done or the deadline passes. */
static bool wait_done(struct delivery *d, bool writer, uint64_t deadline)
{
	while (!all_done(d, writer) && clock_mono_ms() < deadline)
		wait_until_ms(d, &d->finished, deadline);
	return all_done(d, writer);
}

void delivery_stop(struct delivery *d, unsigned timeout_ms)
{
	uint64_t deadline = deadline_after(timeout_ms);
	bool clean;

	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->stop_writer = true;
	pthread_cond_broadcast(&d->wake);
	wait_done(d, true, deadline);
	d->stop_sinks = true;
	pthread_cond_broadcast(&d->wake);
	clean = wait_done(d, false, deadline) && all_done(d, true);
	if (!clean) {
		/* cut the transfers in progress, then give them a moment */
		d->abort = 1;
		clean = wait_done(d, false, deadline_after(500)) && all_done(d, true);
	}
	size_t lost = d->queued;
	pthread_mutex_unlock(&d->lock);
	if (lost)
		log_error("%zu summaries could not be spooled before exit: lost", lost);
	if (!clean) {
		/* a thread stuck in a system call: it dies with the process;
		 * its structures must outlive this function, so keep them */
		log_warn("delivery threads still busy after %u ms: exiting without them; "
			 "undelivered summaries stay in %s", timeout_ms, d->cfg->spool_dir);
		return;
	}
	if (d->writer_started)
		pthread_join(d->writer, NULL);
	for (int i = 0; i < d->nsinks; i++) {
		if (d->st[i].started)
			pthread_join(d->st[i].tid, NULL);
		sink_close(d->st[i].sink);
	}
	while (d->head) {
		struct qitem *it = d->head;
		d->head = it->next;
		cJSON_Delete(it->summary);
		free(it);
	}
	struct spool_stats ss;
	spool_get_stats(d->spool, &ss);
	if (ss.records)
		log_info("%llu summaries stay in the spool for the next start",
			 (unsigned long long)ss.records);
	spool_close(d->spool);
	pthread_cond_destroy(&d->wake);
	pthread_cond_destroy(&d->finished);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

void delivery_get_stats(struct delivery *d, struct delivery_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!d)
		return;
	spool_get_stats(d->spool, &out->spool);
	pthread_mutex_lock(&d->lock);
	out->submitted = d->submitted;
	out->queued = d->queued;
	out->queue_dropped = d->queue_dropped;
	out->nsinks = d->nsinks;
	for (int i = 0; i < d->nsinks; i++) {
		out->sinks[i] = d->st[i].st;
		out->sinks[i].dropped = out->spool.sink_dropped[d->st[i].st.kind];
		out->sinks[i].pending = out->spool.pending[d->st[i].st.kind];
	}
	pthread_mutex_unlock(&d->lock);
}

cJSON *delivery_stats_json(const struct delivery_stats *st)
{
	cJSON *o = cJSON_CreateObject(), *sp, *arr;

	if (!o)
		return NULL;
	json_add_u64(o, "submitted", st->submitted);
	json_add_u64(o, "queued", st->queued);
	json_add_u64(o, "queue_dropped", st->queue_dropped);
	sp = cJSON_AddObjectToObject(o, "spool");
	json_add_u64(sp, "records", st->spool.records);
	json_add_u64(sp, "bytes", st->spool.bytes);
	json_add_u64(sp, "written", st->spool.written);
	json_add_u64(sp, "write_errors", st->spool.write_errors);
	json_add_u64(sp, "disk_full", st->spool.disk_full);
	json_add_u64(sp, "corrupt", st->spool.corrupt);
	json_add_u64(sp, "dropped", st->spool.dropped);
	arr = cJSON_AddArrayToObject(o, "sinks");
	for (int i = 0; arr && i < st->nsinks; i++) {
		const struct sink_stats *s = &st->sinks[i];
		cJSON *e = cJSON_CreateObject();
		if (!e)
			break;
		json_add_str(e, "sink", sink_kind_name(s->kind));
		json_add_u64(e, "delivered", s->delivered);
		json_add_u64(e, "batches", s->batches);
		json_add_u64(e, "failures", s->failures);
		json_add_u64(e, "dropped", s->dropped);
		json_add_u64(e, "pending", s->pending);
		if (s->last_success_ns)
			json_add_time(e, "last_success", s->last_success_ns);
		else
			cJSON_AddNullToObject(e, "last_success");
		if (s->last_error[0])
			json_add_str(e, "last_error", s->last_error);
		cJSON_AddItemToArray(arr, e);
	}
	return o;
}
