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
#include "history.h"
#include "jobinc.h"
#include "job_record.h"
#include "rules.h"
#include "delivery.h"
#include "peer.h"
#include "journal.h"
#include "closing.h"

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
	uint64_t owner_scope;      /* ... and where: 0 the host, else its
				    * container (peer.h); journaled */
	struct closing_job closing; /* closing.c: ended, being settled */
	size_t rss_bucket;         /* RSS sampling cursor in the live table */
	bool job_stats;            /* has an entry in the kernel's job_stats */
	struct journal_job journaled; /* journal.c: resumed or rebuilt */
};

#define RECENT_JOBS 32

struct jobs_stats {
	uint64_t registered, joined, closed, closed_by_end, closed_empty;
	uint64_t events, late_events, unknown_procs, tag_failures;
	uint64_t bad_records;      /* too short for their type, or of no known type */
	uint64_t exits_lost;       /* processes gone without an exit record */
	uint64_t pid_reused;       /* samples not taken: the pid was another process's */
	struct container_joins docker; /* every job's docker commands (jobdocker.c) */
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
	struct closing closing;    /* the jobs being closed (closing.c) */
	struct journal journal;    /* the open jobs, for a restarted tracerd */
	struct history history;         /* earlier runs per task name (analysis) */
	struct jobinc_memo *jobinc;     /* the jobs' node totals so far (jobinc.h) */
};

int jobs_init(struct jobs *js, const struct tracer_config *cfg,
	      const struct host_info *host, const struct rules *rules,
	      struct delivery *delivery, struct bpf_loader *bpf);
void jobs_fini(struct jobs *js);

/* The open jobs, for the other modules: how many, and the i-th (0 ..
 * jobs_count - 1; NULL past the end).  Finishing a job moves the last
 * one into its place. */
size_t jobs_count(const struct jobs *js);
struct open_job *jobs_at(const struct jobs *js, size_t i);

/* A fresh job in the table (its uid and tag drawn), or NULL. */
struct open_job *jobs_open_new(struct jobs *js, const struct tracer_identity *id);
/* trace_all: the host job of the next period (jobs_loop.c). */
void jobs_open_host(struct jobs *js);
/* Take the CLOCK_REALTIME - CLOCK_MONOTONIC offset again (jobs_real_ns). */
void jobs_clock_update(struct jobs *js);

/* Protocol operations; each returns the reply line (malloc'd). */
char *jobs_register(struct jobs *js, struct tracer_identity *id, bool stays,
		    const struct peer *peer);
char *jobs_task_exit(struct jobs *js, const char *job, int status,
		     const struct peer *peer);
/*
 * The job ends: its summary is written once its processes are settled
 * (closing.c), never by waiting in the loop.  ticket (server_ticket(), or
 * 0) names the request: NULL means "answered later through the callback
 * of closing_set_answer", once the summary is written or after a short
 * wait.
 */
char *jobs_end(struct jobs *js, const char *job, int status,
	       const struct peer *peer, uint64_t ticket);

/* Did this peer (its uid, in its container) register the open job named
 * job (its uid)? */
bool jobs_registered_by(const struct jobs *js, const char *job, const struct peer *peer);

/* The uid the job's processes run as (the identity's: Slurm's job user
 * for a registration by slurmstepd), never the registrant's root: what
 * the job may see of other work (docker containers) is that user's. */
uid_t jobs_user_uid(const struct open_job *oj);

struct open_job *jobs_find_tag(struct jobs *js, uint64_t tag);

/* A process of oj exited or was dropped: note when the job empties. */
void jobs_note_exit(struct jobs *js, struct open_job *oj);

/* Periodic (jobs_loop.c): close jobs empty for the grace period. */
void jobs_tick(struct jobs *js);

/* Close every open job (daemon shutdown). */
void jobs_close_all(struct jobs *js, const char *why);
/* Close the host job and the jobs already closing (shutdown with resume). */
void jobs_close_host(struct jobs *js, const char *why);

/* Write the summary of a settled closing job and forget it (closing.c calls it). */
void jobs_finish(struct jobs *js, struct open_job *oj);

/* Re-open a job a previous tracerd had open (journal.c). */
struct open_job *jobs_adopt(struct jobs *js, const struct tracer_identity *id,
			    const char *uid, uint64_t tag);
/* Add live process pid to oj as /proc shows it now (exe, argv, tool). */
struct job_proc *jobs_proc_from_proc(struct jobs *js, struct open_job *oj, pid_t pid);

/* CLOCK_MONOTONIC ns (kernel timestamps) to CLOCK_REALTIME ns */
uint64_t jobs_real_ns(const struct jobs *js, uint64_t mono_ns);

cJSON *jobs_status_json(const struct jobs *js);

/*
 * The per-user shares of a shared node (docs/privacy.md, "Fair shares"):
 * each limit and what it refused or dropped, gathered by tracerd from
 * the parts that hold them, for `tracer status` and /metrics.
 */
struct jobs_shares {
	unsigned max_jobs_per_user, max_procs_per_user, max_procs_all_users;
	uint64_t refused_user_jobs;   /* admission.c: a user at max_jobs_per_user */
	uint64_t refused_node_jobs;   /* ... all users at the node-wide bound */
	uint64_t refused_rate;        /* ... a uid's token bucket empty */
	uint64_t rated_together;      /* ... uids beyond the table, one bucket */
	uint64_t forks_over_user_cap; /* kernel: a user at max_procs_per_user */
	uint64_t forks_over_users_cap; /* ... all users at theirs: root's part stays */
	uint64_t archive_held;        /* archive.c: waited, their user had a worker */
	uint64_t archive_refused;     /* ... refused: queue or user's requests full */
	uint64_t spool_dropped;       /* spool.c: by the cap, the largest share's oldest */
	uint64_t spool_spared;        /* ... of which an older one of a smaller share stayed */
	uint64_t archive_dropped;     /* sink_file_share.c: rotated out, largest share's oldest */
};
cJSON *jobs_shares_json(const struct jobs_shares *sh);

#endif
