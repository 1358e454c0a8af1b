/*
 * metrics.h - tracerd's Prometheus exposition, rendered by the event
 * loop (which owns the jobs) and handed to metrics_http for serving.
 */
#ifndef TRACERD_METRICS_H
#define TRACERD_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "jobs.h"
#include "server.h"
#include "delivery.h"

/* Per job, the heaviest tools (by CPU) get series; the rest are counted. */
#define METRICS_MAX_TOOLS_PER_JOB 20

/* What the exposition shows besides the jobs. */
struct metrics_daemon {
	const uint64_t *kernel;      /* TRACER_CNT__MAX kernel counters */
	const struct server_stats *socket;
	const struct delivery_stats *delivery; /* NULL: not shown */
	const struct jobs_shares *shares;      /* NULL: not shown */
	uint64_t start_time_s;       /* CLOCK_REALTIME seconds at start */
	uint64_t scrapes;
	bool host_idle;              /* idle_host (idlehost.h) */
};

/* The text exposition (version 0.0.4), malloc'd, length in *len; NULL
 * when out of memory. */
char *metrics_render(const struct jobs *js, const struct metrics_daemon *d, size_t *len);

/* s as a label value (malloc'd): \, " and newline escaped, invalid
 * UTF-8 shown as the text \xNN (exposition format). */
char *metrics_label_escape(const char *s);

#endif
