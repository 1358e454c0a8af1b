/*
 * delivery_priv.h - what delivery.c (the queue, the spool writer, reload,
 * life) and delivery_sink.c (a sink's thread) share; not for the rest
 * of tracerd.
 */
#ifndef TRACERD_DELIVERY_PRIV_H
#define TRACERD_DELIVERY_PRIV_H

#include <pthread.h>
#include <time.h>

#include "clock.h"
#include "delivery.h"

struct qitem {
	cJSON *summary;
	uint64_t seq; /* delivery_submit's number */
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
	struct tracer_config *cfg;  /* its own copy: a reload swaps it */
	struct tracer_config *pending_cfg; /* delivery_reload: for the writer */
	char spool_dir[256];
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
	/* cut transfers in progress: set by the loop or the writer, read by
	 * the sink threads */
	_Atomic int abort;
	const char *hold_path; /* test hook: TRACERD_TEST_HOLD_SPOOL */
	int nsinks;
	struct sink_thread st[SINK_KINDS];
};

static inline uint64_t deadline_after(unsigned ms)
{
	return clock_mono_ms() + ms;
}

/* pthread_cond_timedwait until a monotonic ms (the conds use CLOCK_MONOTONIC) */
static inline void wait_until_ms(struct delivery *d, pthread_cond_t *c, uint64_t ms)
{
	struct timespec ts = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000};
	pthread_cond_timedwait(c, &d->lock, &ts);
}

/* A sink's thread (delivery_sink.c): arg is its struct sink_thread. */
void *delivery_sink_main(void *arg);

#endif
