/*
 * delivery.h - how a finished summary leaves tracerd, off the event
 * loop: the loop hands the summary over (delivery_submit, a queue
 * append), a spool-writer thread makes it durable in the spool
 * (spool.h), and one thread per configured sink delivers the spool to
 * that sink in batches, retrying with capped exponential backoff and
 * jitter.  A slow, failing or hanging sink delays nothing but itself.
 */
#ifndef TRACERD_DELIVERY_H
#define TRACERD_DELIVERY_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "config.h"
#include "sink.h"
#include "spool.h"

struct delivery;

/* Counters of one sink. */
struct sink_stats {
	enum sink_kind kind;
	uint64_t delivered;       /* summaries */
	uint64_t batches;         /* successful deliveries */
	uint64_t failures;        /* failed attempts */
	uint64_t dropped;         /* lost to the spool's cap before this sink had them */
	uint64_t share_dropped;   /* file: rotated out of the archive, by user share */
	uint64_t pending;         /* in the spool, not yet delivered here */
	uint64_t last_success_ns; /* CLOCK_REALTIME; 0 = never */
	uint64_t last_failure_ns;
	char last_error[256];
};

/* Everything `tracer status` (and the Prometheus exporter) shows about
 * delivery, in one struct: delivery_get_stats fills a copy. */
struct delivery_stats {
	struct spool_stats spool;
	uint64_t submitted;        /* summaries handed over by the event loop */
	uint64_t queued;           /* handed over, not yet in the spool */
	uint64_t queue_dropped;    /* lost: the hand-over queue was full */
	int nsinks;
	struct sink_stats sinks[SINK_KINDS];
};

/* Open the spool (replaying what it holds) and start the threads. */
struct delivery *delivery_start(const struct tracer_config *cfg, char *err, size_t errlen);
/* Hand a summary over (takes ownership); never blocks on disk or network.
 * Returns its number (1, 2, ...), or 0 when it was dropped (queue full). */
uint64_t delivery_submit(struct delivery *d, cJSON *summary);
/* Every summary numbered up to this one is in the spool (or was lost,
 * logged): the journal forgets a closed job only then. */
uint64_t delivery_spooled(struct delivery *d);
/* Wait (shutdown only) until summary seq is spooled; false at timeout. */
bool delivery_wait_spooled(struct delivery *d, uint64_t seq, unsigned timeout_ms);
/* The spool's newest records (256 at most) hold this summary_id
 * (a restart, before re-sending a summary the journal kept). */
bool delivery_has_summary(struct delivery *d, const char *summary_id);
/*
 * Stop: the queue goes to the spool, each sink gets one last attempt,
 * and after timeout_ms altogether transfers are cut; what is not
 * delivered stays spooled for the next start.
 */
void delivery_stop(struct delivery *d, unsigned timeout_ms);

/*
 * Apply another configuration's sinks, their settings and the spool's
 * cap (SIGHUP), without waiting: the spool writer stops the current sink
 * threads (cutting their transfers), starts the new ones and goes on.
 * A sink that cannot be opened keeps the current set (logged).
 */
void delivery_reload(struct delivery *d, const struct tracer_config *cfg);

void delivery_get_stats(struct delivery *d, struct delivery_stats *out);
cJSON *delivery_stats_json(const struct delivery_stats *st);

#endif
