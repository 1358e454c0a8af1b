/*
 * jobs.h - tracerd's table of open jobs: registration, the end of a job
 * (said by its registrant, or when all its processes are gone), and the
 * writing of its summary.  events.c feeds it kernel events, livestats.c
 * the periodic /proc readings.
 */
#ifndef TRACERD_JOBS_H
#define TRACERD_JOBS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#include "cgroup.h"
#include "config.h"
#include "hostinfo.h"
#include "job.h"
#include "rules.h"
#include "delivery.h"

struct bpf_loader;

/* tracerd's view of one open job: the job model plus what only tracerd
 * needs to keep it (who may act on it, its cgroup, its drops) */
struct open_job {
	struct job *job;
	char join_key[TRACER_JOIN_KEY_LEN]; /* identity_join_key(); "" = never joined */
	uint64_t empty_since_ns;  /* monotonic; 0 while processes are alive */
	uint64_t drops_at_start;
	struct cgroup_ref cgroup;  /* valid when job->cgroup_stats */
	uint64_t cgroup_id;        /* v2 cgroup tagged in the kernel, or 0 */
	uid_t owner_uid;           /* who registered it: may join, report, end */
};

#define RECENT_JOBS 32

struct jobs_stats {
	uint64_t registered, joined, closed, closed_by_end, closed_empty;
	uint64_t events, late_events, unknown_procs, tag_failures;
	uint64_t bad_records;      /* too short for their type, or of no known type */
};

struct jobs {
	const struct tracer_config *cfg;
	const struct host_info *host;
	const struct rules *rules;
	struct delivery *delivery; /* NULL: summaries are not kept (tests) */
	struct bpf_loader *bpf;

	struct open_job **open;
	size_t nopen, cap;
	struct open_job *last_hit;     /* events come in runs per job */
	uint64_t next_tag;
	uint64_t uid_seq;
	int64_t mono_to_real_ns;   /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	struct open_job *host_job;      /* trace_all: activity outside jobs */
	uint64_t host_job_opened_ns;
	char recent[RECENT_JOBS][TRACER_JOB_UID_LEN];
	unsigned nrecent;
	struct jobs_stats stats;
};

int jobs_init(struct jobs *js, const struct tracer_config *cfg,
	      const struct host_info *host, const struct rules *rules,
	      struct delivery *delivery, struct bpf_loader *bpf);
void jobs_fini(struct jobs *js);

/* Protocol operations; each returns the reply line (malloc'd). */
char *jobs_register(struct jobs *js, struct tracer_identity *id, bool stays,
		    const struct ucred *peer);
char *jobs_task_exit(struct jobs *js, const char *job, int status,
		     const struct ucred *peer);
char *jobs_end(struct jobs *js, const char *job, int status,
	       const struct ucred *peer);

struct open_job *jobs_find_tag(struct jobs *js, uint64_t tag);

/* A process of oj exited or was dropped: note when the job empties. */
void jobs_note_exit(struct jobs *js, struct open_job *oj);

/* Periodic: close jobs empty for the grace period. */
void jobs_tick(struct jobs *js);

/* Close every open job (daemon shutdown). */
void jobs_close_all(struct jobs *js, const char *why);

/* CLOCK_MONOTONIC ns (kernel timestamps) to CLOCK_REALTIME ns */
uint64_t jobs_real_ns(const struct jobs *js, uint64_t mono_ns);

cJSON *jobs_status_json(const struct jobs *js);

#endif
