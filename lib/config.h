/*
 * config.h - tracer.conf: one "key = value" per line, '#' comments.
 * Read by tracerd, tracer, tracer-wrap (the SPANK plugin takes its few
 * settings from plugstack.conf instead).  A bad line is reported through
 * the warn callback and skipped: the program goes on with the default.
 * Keys and defaults are documented in docs/configuration.md.
 */
#ifndef TRACER_CONFIG_H
#define TRACER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define TRACER_DEFAULT_CONFIG "/etc/tracer/tracer.conf"

struct tracer_config {
	char socket_path[256];      /* socket = /run/tracer/tracerd.sock */
	int client_timeout_ms;      /* client_timeout_ms = 200 (1..5000) */
	char pin_dir[256];          /* pin_dir = /sys/fs/bpf/tracer */
	bool trace_all;             /* trace_all = false */
	int argv_max;               /* argv_max = 1024 (64..4096 bytes) */
	int sample_interval_ms;     /* sample_interval_ms = 1000 (100..60000) */
	char rules_path[512];       /* rules = /etc/tracer/tools.rules */
	int keep_procs;             /* keep_procs = 200 (1..100000) */
	unsigned ringbuf_bytes;     /* ringbuf_bytes = 4194304 (power of 2) */
	unsigned max_procs;         /* max_procs = 65536 (live tagged processes) */
	char sinks[128];            /* sinks = file   (comma list: file,http) */
	char file_path[512];        /* file = /var/lib/tracer/jobs.ndjson */
	char http_url[512];         /* http_url = (empty) */
	int http_timeout_ms;        /* http_timeout_ms = 5000 */
	char clickhouse_url[512];   /* clickhouse_url = (empty) */
	char clickhouse_table[128]; /* clickhouse_table = tracer.jobs */
	char imds_endpoint[256];    /* imds_endpoint = (empty: only on EC2) */
	int metadata_timeout_ms;    /* metadata_timeout_ms = 300 */
	char log_level[16];         /* log_level = info (debug|info|warn|error) */
};

typedef void (*config_warn_fn)(const char *msg);

void config_defaults(struct tracer_config *cfg);

/*
 * Load path over the current values.  A missing file is not an error
 * when missing_ok; returns 0, or -1 when the file could not be read
 * (reason through warn).  Bad lines go to warn and are skipped.
 */
int config_load(struct tracer_config *cfg, const char *path, bool missing_ok,
		config_warn_fn warn);

/* Set one key (also used for command-line overrides "key=value"). */
int config_set(struct tracer_config *cfg, const char *key, const char *value,
	       char *err, size_t errlen);

#endif
