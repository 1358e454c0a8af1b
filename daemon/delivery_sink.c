/*
 * delivery_sink.c - one sink's delivery thread (delivery.h): wait until
 * the spool holds records the sink lacks, read a batch, deliver it, move
 * the sink's position.  On failure it waits retry_min, doubling up to
 * retry_max_ms, each wait drawn at random between half and all of it
 * (jitter: a fleet of nodes does not retry in step after a collector's
 * outage).
 */
#include "delivery_priv.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "log.h"
#include "redact.h"

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
	if (err[0])
		log_info("sink %s: %s", sink_kind_name(t->st.kind), err);
	spool_ack(d->spool, t->index, seqs[n - 1]);
	pthread_mutex_lock(&d->lock);
	t->st.delivered += m;
	t->st.share_dropped += sink_take_share_dropped(t->sink);
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
	/* the reason may quote the sink's URL (user:password@, ?token=) or
	 * the server's answer: credentials never reach the log or status */
	redact_arg(err, sizeof(err), NULL);
	pthread_mutex_lock(&d->lock);
	/* the same reason as the failure just before (a server down for
	 * hours, a schema this tracerd does not know) is counted and shown
	 * by status, logged once */
	bool again = t->backoff_ms && !strcmp(t->st.last_error, err);
	t->st.failures++;
	t->st.last_failure_ns = clock_real_ns();
	snprintf(t->st.last_error, sizeof(t->st.last_error), "%s", err);
	t->backoff_ms = t->backoff_ms ? t->backoff_ms * 2 : TRACER_RETRY_MIN_MS;
	if (t->backoff_ms > (unsigned)d->cfg->retry_max_ms)
		t->backoff_ms = (unsigned)d->cfg->retry_max_ms;
	unsigned wait = jitter(t, t->backoff_ms);
	t->next_try_ms = clock_mono_ms() + wait;
	pthread_mutex_unlock(&d->lock);
	if (!again)
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

void *delivery_sink_main(void *arg)
{
	struct sink_thread *t = arg;
	struct delivery *d = t->d;
	bool last_try = false;
	char err[128];

	if (caps_drop_for_delivery(err, sizeof(err)) != 0)
		log_warn("sink thread: capabilities kept: %s", err);
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

