/*
 * delivery.c - the hand-over queue, the spool writer, reload and the
 * life of the delivery threads (delivery.h); a sink's own thread is in
 * delivery_sink.c.
 *
 * Why threads: fsync of a spool record takes milliseconds on an idle
 * disk and seconds on a busy one, a sink may hang for http_timeout_ms;
 * tracerd's event loop must never wait for either.  The loop only
 * appends to a queue (bounded: past QUEUE_MAX summaries waiting for the
 * disk, the newest is dropped, counted and logged).
 *
 * A reload (SIGHUP) is carried out by the spool writer too: the loop
 * only hands the new configuration over.
 */
#include "delivery_priv.h"
#include "share.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "caps.h"
#include "clock.h"
#include "json.h"
#include "log.h"

#define QUEUE_MAX 4096
#define WRITE_RETRY_MS 1000

/* ---- the spool writer ---- */

/*
 * Test hook, documented as such (docs/configuration.md, "Test hooks"):
 * while the file named by TRACERD_TEST_HOLD_SPOOL exists, the writer
 * waits before writing a record, so that a test can kill tracerd,
 * deterministically, after a job's close and before its summary is
 * durable.  It creates NAME.reached when it waits.  tracerd's own
 * environment, read once at start; unset in production.
 */
static void test_hold(struct delivery *d)
{
	char reached[4096 + 16];
	int fd;

	if (!d->hold_path || access(d->hold_path, F_OK) != 0)
		return;
	snprintf(reached, sizeof(reached), "%s.reached", d->hold_path);
	fd = open(reached, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	while (access(d->hold_path, F_OK) == 0 && !d->stop_writer)
		usleep(10000); /* a thread of its own: the loop goes on */
}

static void apply_reload(struct delivery *d);

static void *writer_main(void *arg)
{
	struct delivery *d = arg;
	char err[512];
	char *text = NULL; /* the head summary, rendered, while its write fails */
	uint64_t failures = 0;

	/* started before the loop drops its capabilities, which are per
	 * thread; the sink threads it starts inherit this set */
	if (caps_drop_for_delivery(err, sizeof(err)) != 0)
		log_warn("spool writer: capabilities kept: %s", err);
	pthread_mutex_lock(&d->lock);
	for (;;) {
		while (!d->head && !d->stop_writer && !d->pending_cfg)
			pthread_cond_wait(&d->wake, &d->lock);
		if (d->pending_cfg && !d->stop_writer) {
			apply_reload(d);
			continue;
		}
		if (!d->head)
			break;
		cJSON *s = d->head->summary;
		pthread_mutex_unlock(&d->lock);

		if (!text)
			text = cJSON_PrintUnformatted(s);
		test_hold(d);
		int rc = text ? spool_write(d->spool, text, strlen(text), share_of_summary(s), err,
					    sizeof(err)) : -ENOMEM;
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
			pthread_cond_broadcast(&d->finished); /* delivery_wait_spooled */
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

/* ---- life ---- */

/* Start the sink threads (lock held; signals blocked by the caller). */
static int start_sinks(struct delivery *d)
{
	for (int i = 0; i < d->nsinks; i++) {
		if (pthread_create(&d->st[i].tid, NULL, delivery_sink_main, &d->st[i]) != 0) {
			log_error("cannot start the delivery thread of sink %s",
				  sink_kind_name(d->st[i].st.kind));
			return -1;
		}
		d->st[i].started = true;
	}
	return 0;
}

static bool all_done(struct delivery *d, bool writer);

/*
 * A reload, on the writer thread (lock held): the new sinks are opened
 * first (one that cannot be keeps the current ones), then the current
 * sink threads are stopped, their transfers cut, and the new ones
 * started on the same spool.  Summaries handed over meanwhile wait in
 * the queue; the event loop never waits.
 */
static void apply_reload(struct delivery *d)
{
	struct tracer_config *ncfg = d->pending_cfg;
	struct sink_thread prev[SINK_KINDS];
	struct sink *ns[SINK_KINDS] = {NULL};
	enum sink_kind kinds[SINK_KINDS];
	char why[256];
	int n, nprev = d->nsinks;

	d->pending_cfg = NULL;
	pthread_mutex_unlock(&d->lock);
	n = sink_kinds(ncfg->sinks, kinds);
	for (int i = 0; i < n; i++) {
		ns[i] = sink_open(kinds[i], ncfg, why, sizeof(why));
		if (!ns[i]) {
			log_error("reload: sink %s: %s: the current sinks stay",
				  sink_kind_name(kinds[i]), why);
			for (int k = 0; k < i; k++)
				sink_close(ns[k]);
			free(ncfg);
			pthread_mutex_lock(&d->lock);
			return;
		}
	}
	pthread_mutex_lock(&d->lock);
	d->stop_sinks = true;
	d->abort = 1;
	pthread_cond_broadcast(&d->wake);
	while (!all_done(d, false))
		pthread_cond_wait(&d->finished, &d->lock);
	memcpy(prev, d->st, sizeof(prev));
	pthread_mutex_unlock(&d->lock);
	for (int i = 0; i < nprev; i++) {
		if (prev[i].started)
			pthread_join(prev[i].tid, NULL);
		sink_close(prev[i].sink);
	}
	spool_set_sinks(d->spool, ncfg->spool_max_bytes, kinds, n);
	pthread_mutex_lock(&d->lock);
	memset(d->st, 0, sizeof(d->st));
	for (int i = 0; i < n; i++) {
		struct sink_thread *t = &d->st[i];
		t->d = d;
		t->index = i;
		t->sink = ns[i];
		t->st.kind = kinds[i];
		for (int k = 0; k < nprev; k++) /* its counters go on */
			if (prev[k].st.kind == kinds[i])
				t->st = prev[k].st;
		t->seed = (unsigned)clock_mono_ns() + (unsigned)i;
		sink_limits(kinds[i], &t->lim);
	}
	d->nsinks = n;
	free(d->cfg);
	d->cfg = ncfg;
	d->stop_sinks = false;
	d->abort = 0;
	start_sinks(d); /* signals: this thread blocks them all */
	log_info("reload: sinks %s (spool cap %u bytes)", ncfg->sinks, ncfg->spool_max_bytes);
}

void delivery_reload(struct delivery *d, const struct tracer_config *cfg)
{
	struct tracer_config *c = malloc(sizeof(*c));

	if (!c) {
		log_error("reload: out of memory: the sinks stay as they are");
		return;
	}
	*c = *cfg;
	snprintf(c->spool_dir, sizeof(c->spool_dir), "%s", d->spool_dir); /* not at run time */
	pthread_mutex_lock(&d->lock);
	free(d->pending_cfg); /* two reloads in a row: the last one counts */
	d->pending_cfg = c;
	pthread_cond_broadcast(&d->wake);
	pthread_mutex_unlock(&d->lock);
}

struct delivery *delivery_start(const struct tracer_config *cfg, char *err, size_t errlen)
{
	struct delivery *d = calloc(1, sizeof(*d));
	enum sink_kind kinds[SINK_KINDS];
	pthread_condattr_t ca;

	if (!d) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	d->cfg = malloc(sizeof(*d->cfg));
	if (!d->cfg) {
		free(d);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	*d->cfg = *cfg;
	cfg = d->cfg;
	snprintf(d->spool_dir, sizeof(d->spool_dir), "%s", cfg->spool_dir);
	d->hold_path = getenv("TRACERD_TEST_HOLD_SPOOL");
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
	pthread_mutex_lock(&d->lock);
	int started = start_sinks(d);
	pthread_mutex_unlock(&d->lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (started != 0) {
		snprintf(err, errlen, "cannot start a delivery thread");
		delivery_stop(d, 0);
		return NULL;
	}
	return d;
fail:
	for (int i = 0; i < d->nsinks; i++)
		sink_close(d->st[i].sink);
	spool_close(d->spool);
	free(d->cfg);
	free(d);
	return NULL;
}

uint64_t delivery_submit(struct delivery *d, cJSON *summary)
{
	struct qitem *it = malloc(sizeof(*it));
	uint64_t seq;

	pthread_mutex_lock(&d->lock);
	seq = ++d->submitted;
	if (!it || d->queued >= QUEUE_MAX) {
		d->queue_dropped++;
		pthread_mutex_unlock(&d->lock);
		log_error("summary %s dropped: %zu summaries already wait for the spool's disk",
			  json_get_str(summary, "summary_id", "?"), (size_t)QUEUE_MAX);
		free(it);
		cJSON_Delete(summary);
		return 0;
	}
	it->summary = summary;
	it->seq = seq;
	it->next = NULL;
	if (d->tail)
		d->tail->next = it;
	else
		d->head = it;
	d->tail = it;
	d->queued++;
	pthread_cond_broadcast(&d->wake);
	pthread_mutex_unlock(&d->lock);
	return seq;
}

uint64_t delivery_spooled(struct delivery *d)
{
	uint64_t seq;

	pthread_mutex_lock(&d->lock);
	/* an empty queue: everything submitted is through, drops included */
	seq = d->head ? d->head->seq - 1 : d->submitted;
	pthread_mutex_unlock(&d->lock);
	return seq;
}

bool delivery_wait_spooled(struct delivery *d, uint64_t seq, unsigned timeout_ms)
{
	uint64_t deadline = deadline_after(timeout_ms);
	bool done;

	pthread_mutex_lock(&d->lock);
	while (d->head && d->head->seq <= seq && !d->writer_done &&
	       clock_mono_ms() < deadline)
		wait_until_ms(d, &d->finished, deadline);
	done = !d->head || d->head->seq > seq;
	pthread_mutex_unlock(&d->lock);
	return done;
}

bool delivery_has_summary(struct delivery *d, const char *summary_id)
{
	uint64_t seqs[256];
	char needle[96];
	size_t n = spool_newest(d->spool, seqs, 256);
	bool found = false;

	snprintf(needle, sizeof(needle), "\"summary_id\":\"%s\"", summary_id);
	for (size_t i = 0; i < n && !found; i++) {
		char *text;
		size_t len;

		if (spool_read(d->spool, seqs[i], &text, &len) == 0) {
			found = strstr(text, needle) != NULL;
			free(text);
		}
	}
	return found;
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

/*
 * Exiting without some threads: those that ended are joined (done is set
 * as a thread returns: the join is immediate), the others detached, so
 * that no thread is left unaccounted for (ThreadSanitizer reports one).
 */
static void let_go(struct delivery *d)
{
	bool writer_done, sink_done[SINK_KINDS];

	pthread_mutex_lock(&d->lock);
	writer_done = d->writer_done;
	for (int i = 0; i < d->nsinks; i++)
		sink_done[i] = d->st[i].done;
	pthread_mutex_unlock(&d->lock);
	if (d->writer_started)
		(void)(writer_done ? pthread_join(d->writer, NULL) : pthread_detach(d->writer));
	for (int i = 0; i < d->nsinks; i++)
		if (d->st[i].started)
			(void)(sink_done[i] ? pthread_join(d->st[i].tid, NULL)
					    : pthread_detach(d->st[i].tid));
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
			 "undelivered summaries stay in %s", timeout_ms, d->spool_dir);
		let_go(d);
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
	free(d->pending_cfg);
	free(d->cfg);
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
