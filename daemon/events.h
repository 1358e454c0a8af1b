/*
 * events.h - kernel records from the ring buffer (bpf/tracer.h) applied
 * to the open jobs: fork adds a process, exec names its tool, exit folds
 * its exact totals, OOM marks it.
 */
#ifndef TRACERD_EVENTS_H
#define TRACERD_EVENTS_H

#include <stddef.h>

struct jobs;

/* bpf_event_fn: ctx is the struct jobs */
int events_handle(void *ctx, void *data, size_t size);

#endif
