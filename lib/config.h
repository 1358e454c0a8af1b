/*
 * config.h - tracer.conf: one "key = value" per line, '#' comments.
 * Read by tracerd, tracer, tracer-wrap (the SPANK plugin takes its few
 * settings from plugstack.conf instead).  tracerd reads it strictly
 * (config_check) and refuses a file with any problem; tracer and
 * tracer-wrap leniently (config_load): a bad line is reported through the
 * warn callback and skipped, so that a typo never stops a job.
 * Keys are documented in docs/configuration.md; their defaults are
 * defined once, in defaults.h.
 */
#ifndef TRACER_CONFIG_H
#define TRACER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "defaults.h"

/* One member per key of tracer.conf; the key's name is in the comment. */
struct tracer_config {
	char socket_path[256];      /* socket */
	int client_timeout_ms;      /* client_timeout_ms (1..5000) */
	char pin_dir[256];          /* pin_dir */
	bool trace_all;             /* trace_all */
	int argv_max;               /* argv_max (64..TRACER_ARGV_MAX bytes) */
	int sample_interval_ms;     /* sample_interval_ms (100..60000) */
	char rules_path[512];       /* rules */
	int keep_procs;             /* keep_procs (1..100000) */
	unsigned ringbuf_bytes;     /* ringbuf_bytes (power of 2) */
	unsigned max_procs;         /* max_procs (live tagged processes) */
	char sinks[128];            /* sinks (comma list: file,http,clickhouse) */
	char file_path[512];        /* file */
	char http_url[512];         /* http_url (empty: none) */
	int http_timeout_ms;        /* http_timeout_ms */
	char imds_endpoint[256];    /* imds_endpoint (empty: only on EC2) */
	int metadata_timeout_ms;    /* metadata_timeout_ms */
	char log_level[16];         /* log_level (debug|info|warn|error) */
	char metrics_listen[80];    /* metrics_listen (ADDR:PORT; empty: off) */
	bool metrics_allow_remote;  /* metrics_allow_remote */
	/* delivery (docs/configuration.md, "Delivery") */
	char spool_dir[256];        /* spool_dir */
	unsigned spool_max_bytes;   /* spool_max_bytes */
	unsigned file_max_bytes;    /* file_max_bytes (0: never rotate) */
	int file_keep;              /* file_keep (1..1000) */
	int retry_max_ms;           /* retry_max_ms */
	char http_token_file[256];  /* http_token_file (empty: no token) */
	char http_ca_file[256];     /* http_ca_file (empty: system CAs) */
	bool http_gzip;             /* http_gzip */
	char clickhouse_url[512];   /* clickhouse_url */
	char clickhouse_database[64]; /* clickhouse_database */
	char clickhouse_user[64];   /* clickhouse_user (empty: the server's default) */
	char clickhouse_password_file[256]; /* clickhouse_password_file */
	char datalake[16];          /* datalake: none|clickhouse (where summaries are read back) */
	unsigned datalake_max_memory; /* datalake_max_memory: bytes one query may use on the server */
	char mode[16];              /* mode: full|reader (tracerd --reader) */
	char admin_group[64];       /* admin_group (empty: only root sees every job) */
	unsigned max_procs_per_job; /* max_procs_per_job (0: no cap) */
	unsigned max_procs_per_user; /* max_procs_per_user (0: max_procs / 4) */
	int max_jobs_per_user;      /* max_jobs_per_user (1..4096) */
	char state_dir[256];        /* state_dir */
	bool resume;                /* resume */
	char container_storage[256]; /* container_storage (empty: names unread) */
	char docker_sockets[512];   /* docker_sockets: dockerd API sockets (empty: none asked) */
	char docker_clients[512];   /* docker_clients: the docker CLI's executables */
	bool admin_in_containers;   /* admin_in_containers: root in a container is root */
	char mail_command[256];     /* mail_command: the mailer tracer-mail hands the mail to */
	/* analysis (flags, right-sizing, cost) */
	int advice_min_runtime_s;   /* advice_min_runtime_s */
	double flag_memory_over_share; /* flag_memory_over_share (0..1) */
	double flag_memory_near_share; /* flag_memory_near_share (0..1) */
	double flag_cpu_idle_share;    /* flag_cpu_idle_share (0..1) */
	double flag_cpu_bound_share;   /* flag_cpu_bound_share (0..1) */
	double flag_contended_share;   /* flag_contended_share (0..1) */
	double flag_io_bound_share;    /* flag_io_bound_share (0..1) */
	unsigned flag_io_bound_min_bytes_per_s; /* flag_io_bound_min_bytes_per_s */
	double flag_time_over_share;   /* flag_time_over_share (0..1) */
	double flag_sleeping_share;    /* flag_sleeping_share (0..1) */
	int stall_threshold_s;         /* stall_threshold_s */
	double price_cpu_hour;         /* price_cpu_hour (0: no price) */
	double price_gb_hour;          /* price_gb_hour (0: no price) */
	double price_instance_hour;    /* price_instance_hour (0: no price) */
	double flag_slower_factor;     /* flag_slower_factor (1..100) */
	double flag_network_bound_share; /* flag_network_bound_share (0..1) */
	unsigned flag_network_min_bytes; /* flag_network_min_bytes */
	bool test_no_sock_length;      /* test_no_sock_length: TCP bytes at close */
	double idle_host_cpu_share;    /* idle_host_cpu_share (0..1) */
	int idle_host_after_s;         /* idle_host_after_s */
	double price_spot_instance_hour; /* price_spot_instance_hour (0: no price) */
	double price_fargate_vcpu_hour; /* price_fargate_vcpu_hour (0: no price) */
	double price_fargate_gb_hour;   /* price_fargate_gb_hour (0: no price) */
	char gpu_accounting[8];        /* gpu_accounting: enable|leave */
	double flag_gpu_idle_share;    /* flag_gpu_idle_share (0..1) */
	double flag_gpu_memory_over_share; /* flag_gpu_memory_over_share (0..1) */
	double flag_gpu_underused_share; /* flag_gpu_underused_share (0..1) */
};

typedef void (*config_warn_fn)(const char *msg);

void config_defaults(struct tracer_config *cfg);
/* The live processes all the jobs of one non-root user may have in the
 * kernel's table: max_procs_per_user, or a quarter of max_procs when it
 * is 0 or not below max_procs. */
unsigned config_procs_per_user(const struct tracer_config *cfg);
/* ... and all non-root users together: max_procs less the quarter kept
 * for root's jobs (Slurm steps). */
unsigned config_procs_all_users(const struct tracer_config *cfg);
/* How many keys tracer.conf knows (every one is in contrib/tracer.conf). */
size_t config_key_count(void);
/* The name of key i (0 .. config_key_count() - 1), NULL past the end. */
const char *config_key_name(size_t i);
/* The index of a key (0 .. config_key_count() - 1), -1 for an unknown one. */
int config_key_index(const char *name);

/*
 * Load path over the current values.  A missing file is not an error
 * when missing_ok; returns 0, or -1 when the file could not be read
 * (reason through warn).  Bad lines go to warn and are skipped.
 */
int config_load(struct tracer_config *cfg, const char *path, bool missing_ok,
		config_warn_fn warn);

/*
 * The same, strictly: every problem (unknown key, bad value, duplicate
 * key, malformed line) reported as "FILE:LINE: KEY: what is wrong" and
 * counted.  Returns the number of problems (0: valid), or -1 when the
 * file cannot be read ("FILE: cannot open: reason").
 */
int config_check(struct tracer_config *cfg, const char *path, bool missing_ok,
		 config_warn_fn warn);

/* Give dst src's value of key: 1 when they differed, 0 when not, -1 for
 * an unknown key (a reload keeps what cannot change at run time). */
int config_copy_key(struct tracer_config *dst, const struct tracer_config *src,
		    const char *key);

/* Set one key: 0, or -1 with the reason in err. */
int config_set(struct tracer_config *cfg, const char *key, const char *value,
	       char *err, size_t errlen);

/* The same from "KEY=VALUE" (the -o option of every binary). */
int config_set_pair(struct tracer_config *cfg, const char *pair, char *err,
		    size_t errlen);

/* Does key take one file path (so that a command line may resolve a
 * relative one against its working directory before config_set)? */
bool config_key_is_path(const char *key);

#endif
