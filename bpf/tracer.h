/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer.h - the contract between the BPF programs (tracer.bpf.c) and
 * user space (daemon/bpf_loader.c): event records sent through the ring
 * buffer, the per-process state kept in the `procs` map, and the counters.
 *
 * Included from BPF (after vmlinux.h) and from user space (after
 * <linux/types.h>), so it uses only __u32/__u64 style types.
 */
#ifndef TRACER_BPF_TRACER_H
#define TRACER_BPF_TRACER_H

/* TRACER_COMM_LEN, TRACER_PATH_MAX, TRACER_ARGV_MAX and the default map
 * sizes: the one definition, shared with the configuration */
#include "../lib/defaults.h"

/* Job key 0 means "no job": only used when trace_all is on. */
#define TRACER_JOB_HOST 0

enum tracer_event_type {
	TRACER_EV_FORK = 1, /* a tagged process created a new process */
	TRACER_EV_EXEC = 2, /* a tagged process executed a new image */
	TRACER_EV_EXIT = 3, /* the last thread of a tagged process exited */
	TRACER_EV_OOM = 4,  /* the OOM killer chose a tagged process */
	TRACER_EV_BLKIO = 16, /* a tagged process's block request ended (netio_record.h) */
};

/* flags in tracer_exit_event.flags and tracer_proc.flags */
#define TRACER_F_OOM_KILLED (1u << 0)
#define TRACER_F_EXECED (1u << 1)
#define TRACER_F_PATH_TRUNCATED (1u << 2) /* exe path hit TRACER_PATH_MAX */
#define TRACER_F_ARGV_TRUNCATED (1u << 3) /* argv cut at argv_max */
#define TRACER_F_PATH_FROM_FILENAME (1u << 4) /* dentry walk failed */
/* tracer_proc.flags only: counted in its job's tracer_job_stats.live */
#define TRACER_F_COUNTED (1u << 16)

/* Counters, one slot each in the per-CPU `counters` array. */
enum tracer_counter {
	TRACER_CNT_EVENTS = 0,     /* records submitted to the ring buffer */
	TRACER_CNT_DROP_RINGBUF,   /* bpf_ringbuf_reserve returned NULL */
	TRACER_CNT_DROP_PROCS_FULL, /* `procs` map insert failed */
	TRACER_CNT_FORKS,
	TRACER_CNT_EXECS,
	TRACER_CNT_EXITS,
	TRACER_CNT_OOMS,
	TRACER_CNT_OVER_CAP,        /* forks of jobs at their cap: not followed */
	TRACER_CNT_DROP_BLKREQ,    /* `blk_reqs` full: a request not timed */
	TRACER_CNT_OVER_USER_CAP,  /* forks of users at their cap: not followed */
	TRACER_CNT_OVER_USERS_CAP, /* ... at the cap of all users together */
	TRACER_CNT__MAX,
};

/*
 * Exact totals of one process (thread group), summed over all its threads
 * as each thread exits.  Times are nanoseconds.
 */
struct tracer_totals {
	__u64 cpu_ns;   /* sum of se.sum_exec_runtime: precise on-CPU time */
	__u64 utime_ns; /* tick-sampled user time: only used for the split */
	__u64 stime_ns; /* tick-sampled system time: only used for the split */
	__u64 maxrss_kb; /* signal->maxrss (peak RSS over all images) */
	__u64 rchar;
	__u64 wchar;
	__u64 syscr;
	__u64 syscw;
	__u64 read_bytes;
	__u64 write_bytes;
	__u64 cancelled_write_bytes;
	__u64 nvcsw;
	__u64 nivcsw;
	__u64 min_flt;
	__u64 maj_flt;
};

#include "netio_record.h" /* struct tracer_netio, TRACER_BLK_* */

/* Value of the `procs` map, keyed by tgid. */
struct tracer_proc {
	__u64 job;       /* job key assigned by tracerd */
	__s64 threads;   /* live threads we know of; the exit at 1 -> 0 emits */
	__u64 start_ns;  /* task->start_time (CLOCK_MONOTONIC ns) */
	__u32 flags;     /* TRACER_F_* */
	__u32 nr_exited; /* threads that went through exit (was: pad) */
	struct tracer_totals acc; /* totals of threads that already exited */
	/* kept when the leader thread exits, for the exit record */
	char comm[TRACER_COMM_LEN];
	__s32 leader_exit_code;
	__u32 ppid;
	struct tracer_netio net; /* appended: socket counters (netio_record.h) */
	/* appended: exit-time analysis fields */
	__u64 run_delay_ns;      /* sum of dead threads' sched_info.run_delay */
	__u64 own_peak_pages;    /* the last image's peak, read at exit (0: not seen) */
	__u64 exec_maxrss_pages; /* signal->maxrss at the last exec */
};

/*
 * Value of the `job_stats` map, keyed by job key: one job's share of the
 * kernel's resources, so that one job cannot take them all and its losses
 * are charged to it.  tracerd adds the entry when the job opens and
 * removes it when the job closes; a job without entry has no cap.
 */
struct tracer_job_stats {
	__s64 live;          /* its processes in `procs` (forked ones) */
	__u64 over_cap;      /* forks beyond max_procs_per_job: counted, not followed */
	__u64 table_full;    /* forks not followed: `procs` was full */
	__u64 ringbuf_drops; /* its records lost: ring buffer full */
	__u64 user;          /* its owner's key in `user_procs`; 0: no user cap (root's) */
	__u64 over_user_cap; /* forks beyond max_procs_per_user: counted, not followed */
};

/*
 * Value of the `user_procs` map, keyed by tracer_job_stats.user (the
 * registering uid + 1): the live processes of all the jobs one user
 * registered, so that no user fills `procs` for the others, whatever
 * number of jobs they open; and under TRACER_USERS_ALL, all users'
 * together, so that root's jobs (Slurm steps, container entrypoints),
 * which have no entry and only the per-job cap, always find room.
 */
struct tracer_user_stats {
	__s64 live;
	__u64 over_cap;
};
/* The `user_procs` key of all users together (uids are below it). */
#define TRACER_USERS_ALL 0xffffffffffffffffull

struct tracer_event_hdr {
	__u32 type;  /* enum tracer_event_type */
	__u32 pid;   /* tgid of the process concerned */
	__u64 job;   /* job key */
	__u64 ts_ns; /* bpf_ktime_get_ns() at the event (CLOCK_MONOTONIC) */
};

struct tracer_fork_event {
	struct tracer_event_hdr hdr;
	__u32 ppid;   /* tgid of the parent */
	__u32 pad;
	__u64 start_ns;
	char comm[TRACER_COMM_LEN];
};

/*
 * Exec: `path` is the resolved path of the executable file (dentry walk of
 * bprm->file up to the task's root), `filename` the name as passed to
 * execve (may be relative or a symlink).  argv holds argv_len bytes of
 * NUL-separated arguments.  The record is variable length: user space
 * must read only argv_len bytes of argv.
 */
struct tracer_exec_event {
	struct tracer_event_hdr hdr;
	__u32 ppid;
	__u32 flags;       /* TRACER_F_*_TRUNCATED, TRACER_F_PATH_FROM_FILENAME */
	__u32 path_len;    /* bytes in path, without the NUL */
	__u32 filename_len;
	__u32 argv_len;    /* bytes used in argv, including NULs */
	__u32 pidns;       /* inode of its pid namespace (0: unknown): containers */
	__u64 start_ns;
	char comm[TRACER_COMM_LEN];
	char path[TRACER_PATH_MAX];
	char filename[TRACER_PATH_MAX];
	char argv[TRACER_ARGV_MAX];
};

struct tracer_exit_event {
	struct tracer_event_hdr hdr;
	__u32 ppid;        /* real parent's tgid at exit */
	__u32 flags;       /* TRACER_F_OOM_KILLED ... */
	__s32 exit_status; /* wait(2) status word: (code << 8) | signal */
	__u32 nr_threads;  /* threads counted for this process */
	__u64 start_ns;
	struct tracer_totals totals;
	char comm[TRACER_COMM_LEN];
	struct tracer_netio net; /* appended: socket counters (netio_record.h) */
	/* appended: exit-time analysis fields */
	__u64 run_delay_ns;  /* time runnable but waiting for a CPU, all threads */
	__u64 own_peak_kb;   /* peak RSS of the last image only (0: unknown) */
	__u32 own_peak_src;  /* TRACER_PEAK_* : how own_peak_kb was obtained */
	__u32 pad2;
};

/* tracer_exit_event.own_peak_src */
#define TRACER_PEAK_UNKNOWN 0
#define TRACER_PEAK_MM 1        /* mm hiwater at sched_process_exit (v6.16+) */
#define TRACER_PEAK_MAXRSS 2    /* maxrss grew after the last exec, or no exec */

struct tracer_oom_event {
	struct tracer_event_hdr hdr;
	/* appended: what the OOM was about */
	__u64 victim_rss_kb;    /* the victim's RSS (oom:mark_victim; 0: older kernels) */
	__u64 memcg_limit_pages; /* tightest memory cgroup limit of the allocating
				    task (0: none or unknown) */
	__u64 memcg_usage_pages; /* usage of that cgroup */
	__u32 trigger_tgid;     /* the allocating task's tgid */
	__u32 pad;
};

/*
 * A block request issued by a tagged process (block:block_io_start in the
 * issuer's context) has completed (block:block_io_done, interrupt
 * context).  latency_ns runs from the request's start to its end
 * (queueing and device time).
 */
struct tracer_blkio_event {
	struct tracer_event_hdr hdr; /* type TRACER_EV_BLKIO; pid = issuer's tgid */
	__u32 dev;   /* kernel dev_t: major << 20 | minor */
	__u32 op;    /* TRACER_BLK_* */
	__u64 bytes; /* bytes completed (block:block_rq_complete) */
	__u64 latency_ns;
};

#endif /* TRACER_BPF_TRACER_H */
