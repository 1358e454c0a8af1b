/*
 * sink.h - where job summaries go.  Every sink receives the same JSON
 * text: the NDJSON file (default, embedded, no server), an HTTP endpoint
 * (POST application/json).
 * A sink that fails is reported and counted; the job's summary is kept in
 * the file sink whenever one is configured.
 */
#ifndef TRACER_SINK_H
#define TRACER_SINK_H

#include <stdint.h>
#include <cjson/cJSON.h>
#include "config.h"

struct sinks;

/* Open the sinks named in cfg->sinks. NULL + err when none could be opened. */
struct sinks *sinks_open(const struct tracer_config *cfg, char *err, size_t errlen);
/*
 * Write one summary to every sink; returns the number of sinks that
 * failed, with what went wrong in err.
 */
int sinks_write(struct sinks *s, const cJSON *summary, char *err, size_t errlen);
uint64_t sinks_written(const struct sinks *s);
uint64_t sinks_failed(const struct sinks *s);
void sinks_close(struct sinks *s);

#endif
