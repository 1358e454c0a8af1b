/*
 * job_record.h - the in-memory record of one job while it runs, and the fold of
 * finished processes into per-tool aggregates.  Memory stays bounded
 * whatever the number of processes: live processes are kept one by one,
 * finished ones are folded into their tool and only the heaviest
 * `keep_procs` of them are kept for the process tree.
 *
 * Filled by tracerd from kernel events and by tracer-wrap (standalone
 * mode) from wait4/proc; turned into the summary by summary.c.
 */
#ifndef TRACER_JOB_RECORD_H
#define TRACER_JOB_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "cgroup.h"
#include "container.h"
#include "defaults.h"
#include "gpu.h"
#include "identity.h"
#include "job_blocked.h"
#include "netio.h"

#define JOB_COMM_LEN 16
#define JOB_CONC_MAX 256 /* concurrency histogram: beyond, the last bucket */
#define JOB_MAX_EXIT_CODES 32 /* distinct exit statuses kept per tool */
#define JOB_MAX_TOOLS 512     /* beyond: folded into JOB_OTHER_TOOLS */
#define JOB_OTHER_TOOLS "(other tools)"
/* the registrant's child whose exec failed: the command never started */
#define JOB_NOT_STARTED "(command not started)"

/* Exact totals of one process (same meaning as the kernel's). */
struct proc_totals {
	uint64_t cpu_ns;      /* precise on-CPU time */
	uint64_t user_ns;     /* cpu_ns split as the kernel does (cputime_adjust) */
	uint64_t sys_ns;
	uint64_t maxrss_bytes;
	uint64_t rchar, wchar, syscr, syscw;
	uint64_t read_bytes, write_bytes, cancelled_write_bytes;
	uint64_t nvcsw, nivcsw, min_flt, maj_flt;
	struct netio_totals net; /* sockets and block requests (netio.h) */
	/* appended: exit-time analysis */
	uint64_t run_delay_ns;   /* runnable, waiting for a CPU (sum of threads) */
	/* a process: peak RSS of its last image only (0: unknown, see
	 * peak_bytes()); a sum (tool, job): the largest per-process peak,
	 * own where known, else maxrss */
	uint64_t own_peak_bytes;
	/* appended: block I/O delay (delay accounting), sampled (job_blocked.h) */
	uint64_t blkio_delay_ns;
};

/* The process's peak as reported: its own image's, else the kernel's maxrss. */
static inline uint64_t proc_peak_bytes(const struct proc_totals *t)
{
	return t->own_peak_bytes ? t->own_peak_bytes : t->maxrss_bytes;
}

#define PROC_F_OOM_KILLED (1u << 0)
#define PROC_F_OUTLIVED (1u << 1)   /* still alive when the job ended */
#define PROC_F_ROOT (1u << 2)       /* registered by the registrant */
#define PROC_F_ARGV_TRUNCATED (1u << 3)
#define PROC_F_TOTALS_PARTIAL (1u << 4) /* totals from /proc, not exit */
#define PROC_F_REGISTRANT (1u << 5) /* the registrant that stays the job's
				       parent (tracer run, tracer-wrap): kept
				       out of the tools and the totals */
#define PROC_F_PATH_TRUNCATED (1u << 6) /* exe longer than TRACER_PATH_MAX */

struct job_proc {
	pid_t pid, ppid;
	uint64_t start_ns;  /* CLOCK_REALTIME ns */
	uint64_t start_mono_ns; /* task->start_time as the kernel has it
				 * (CLOCK_MONOTONIC; 0 unknown): which process
				 * the pid is, once its pid may be reused */
	uint64_t end_ns;    /* CLOCK_REALTIME ns; 0 while alive */
	char comm[JOB_COMM_LEN];
	char *exe;          /* resolved executable path (may be NULL) */
	char *cmdline;      /* redacted argv, joined by spaces (may be NULL) */
	char *argv;         /* redacted argv, NUL-terminated args (may be NULL) */
	size_t argv_len;    /* bytes of argv */
	char *tool;         /* tool name after the rules (never NULL once execed) */
	char *interpreter;  /* interpreter path when the tool is a script */
	int exit_status;    /* wait(2) status; -1 unknown */
	uint32_t flags;     /* PROC_F_* */
	uint32_t threads;   /* threads it ran over its life (0: unknown) */
	uint64_t rss_bytes; /* last sampled RSS (live processes) */
	uint64_t cpu_sampled_ns; /* CPU at the last sample (live; tick precision) */
	struct proc_totals totals;
	int container;      /* 1-based index in job->containers; 0 unread, -1 none */
	uint32_t pidns;     /* its pid namespace when not the host's (0: the host's) */
	struct job_proc *next; /* hash chain (job_record.c) */
	uint64_t blkio_ticks_seen; /* block I/O delay at the last sample (job_blocked.c) */
};

struct tool_exit_count {
	int status; /* wait status */
	uint64_t count;
};

struct tool_agg {
	char *tool;
	char *interpreter;
	char *exe;
	uint64_t procs;
	struct proc_totals sum; /* maxrss_bytes here is the max, not a sum */
	uint64_t first_start_ns, last_end_ns;
	uint64_t oom_kills;
	struct tool_exit_count exits[JOB_MAX_EXIT_CODES];
	int nexits;
	uint64_t other_exits; /* statuses beyond JOB_MAX_EXIT_CODES distinct */
	struct tool_agg *next;
};

struct job {
	char uid[TRACER_JOB_UID_LEN];
	uint64_t tag;               /* the job's value in the kernel's procs map (tracerd) */
	struct tracer_identity id;
	uint64_t start_ns, end_ns;  /* CLOCK_REALTIME ns */
	int exit_status;            /* registrant's wait status; -1 unknown */
	int ntasks, ntasks_exited;
	int task_failed_status;     /* first non-zero task status; 0 none */
	bool ended;

	/* live processes: hash by pid */
	struct job_proc **live;
	size_t live_buckets, nlive;

	/* finished processes, folded */
	struct tool_agg *tools;     /* list, most recent first */
	size_t ntools;
	struct proc_totals totals;  /* sum over finished processes; maxrss = max */
	uint64_t procs_total;       /* every process seen, but the registrant */
	uint64_t procs_exited;
	uint64_t procs_moved_out;   /* re-registered into another job */
	uint64_t oom_kills;

	/* the registrant's own totals, apart from the job's (pid 0: none) */
	pid_t registrant_pid;
	struct proc_totals registrant;

	/* the heaviest finished processes (by cpu_ns), a min-heap */
	struct job_proc **kept;
	size_t nkept, keep_max;
	uint64_t procs_not_kept;

	/* sampled */
	uint64_t mem_peak_bytes;    /* peak of the concurrent RSS sum */
	uint64_t samples;
	bool cgroup_stats;          /* the job has a cgroup of its own */
	char cgroup_path[512];
	uint64_t cgroup_mem_peak_bytes;
	uint64_t cgroup_cpu_ns;

	uint64_t events_dropped;    /* drops seen while the job ran */
	uint64_t exits_lost;        /* processes gone without an exit record */
	uint64_t procs_over_cap;    /* forks beyond the job's cap: not followed */
	/* intervals when no tracerd followed the job (restarts), CLOCK_REALTIME */
#define JOB_MAX_GAPS 8
	int ngaps;
	uint64_t gap_start_ns[JOB_MAX_GAPS], gap_end_ns[JOB_MAX_GAPS];
	struct container_set containers; /* [0]: the registrant's, the job's */
	struct netio_devs blkdevs;  /* block requests of its processes, per device */
	bool cgroup_io;             /* its cgroup's io.stat / blkio was read */
	uint64_t cgroup_io_read_bytes, cgroup_io_write_bytes;

	/* appended: the first OOM kill of the job (job_state.c) */
	struct job_oom {
		int count;                  /* OOM kills with details noted */
		pid_t victim_pid, largest_pid;
		char victim_tool[64], largest_tool[64];
		uint64_t victim_rss_bytes, largest_rss_bytes;
		uint64_t limit_bytes;       /* tightest memory cgroup limit; 0: none */
		uint64_t usage_bytes;
		bool cgroup;                /* a cgroup limit was reached, not the host's memory */
	} oom;
	/* appended: per-CPU busy and concurrency samples (allocation.c) */
	uint32_t *cpu_busy;         /* per CPU: samples with a job process running there */
	int ncpu_busy;
	uint64_t cpu_samples;       /* samples taken */
	uint64_t conc_hist[JOB_CONC_MAX + 1]; /* samples by processes running at once */
	/* appended: stall detection (job_state.c) */
	uint64_t ticks, io;         /* CPU ticks, I/O counters of the live processes */
	bool running;               /* a process was running at the last sample */
	bool stall_moved;           /* CPU progress at the last sample */
	uint64_t progress_at_ns;    /* when progress was last seen (CLOCK_MONOTONIC) */
	uint64_t stalled_max_ns;    /* longest time without progress */
	bool stalled;               /* without progress for stall_threshold_s now */
	/* appended: CPU and memory over time, at each sample (timeseries.h) */
	struct job_series *series;
	/* appended: distinct TCP remote endpoints (netpeers.c); NULL: none yet */
	struct netpeers *peers;
	/* endpoints were seen before a tracerd restart, whose table was lost:
	 * the job's and tools' counts are partial (netpeers_apply) */
	bool peers_partial;
	/* appended: blocked time, cgroup pressure and limits (job_blocked.c) */
	struct job_blocked blocked;
	/* appended: GPU use (gpu.h); NULL on a node without GPUs and no
	 * GPU allocation */
	struct job_gpu *gpu;
};

/* Create an empty job; keep_procs bounds the process tree. */
struct job *job_new(const char *uid, const struct tracer_identity *id,
		    size_t keep_procs);
void job_free(struct job *j);

/* A process appeared (fork or registration). Returns it, or the existing one. */
struct job_proc *job_proc_add(struct job *j, pid_t pid, pid_t ppid,
			      uint64_t start_ns, const char *comm);
struct job_proc *job_proc_find(struct job *j, pid_t pid);

/*
 * Record an exec: exe/argv (argv as NUL-separated bytes) become the
 * process's tool through the rules (see rules.h); argv is redacted.
 */
struct rules;
void job_proc_exec(struct job *j, struct job_proc *p, const char *exe,
		   const char *argv, size_t argv_len, const struct rules *rules,
		   bool argv_truncated);

/* The process exited with these totals: fold it and free it. */
void job_proc_exit(struct job *j, struct job_proc *p, int exit_status,
		   uint64_t end_ns, const struct proc_totals *t, uint32_t flags);

/*
 * At job end: fold the processes still alive as outliving the job, with
 * the totals known so far (the caller fills p->totals first).
 */
void job_close(struct job *j, uint64_t end_ns);

/*
 * p is the job's registrant (it stays the job's parent): it is listed in
 * the process tree, marked, but it is not one of the job's tools and its
 * CPU and I/O are not the job's.
 */
void job_proc_set_registrant(struct job *j, struct job_proc *p);

/* It exec'd: no longer the registrant but the job's work, counted. */
void job_proc_clear_registrant(struct job *j, struct job_proc *p);

/* The process moved to another job (re-registered): drop it uncounted
 * (but count the move: processes.moved_out). */
void job_proc_forget(struct job *j, struct job_proc *p);

/* Iterate live processes. */
#define JOB_FOREACH_LIVE(j, p)                                   \
	for (size_t _b = 0; _b < (j)->live_buckets; _b++)           \
		for (struct job_proc *p = (j)->live[_b]; p; p = p->next)

/*
 * A reading of the job's own cgroup: the job has one, its memory peak is
 * the highest seen (peak, or current where the kernel keeps no peak),
 * its CPU the latest.
 */
void job_note_cgroup(struct job *j, const struct cgroup_stats *st);

/* Split precise cpu_ns into user/system as the kernel's cputime_adjust. */
void job_record_split_cpu(struct proc_totals *t, uint64_t cpu_ns,
			   uint64_t utime_ns, uint64_t stime_ns);

#endif
