/*
 * bpf_loader.h - loads and attaches tracer's BPF programs (bpf/tracer.bpf.c)
 * and gives tracerd the few operations it needs on them: tag and untag
 * processes and cgroups, read the per-process state and the counters, and
 * drain the event ring buffer.
 */
#ifndef TRACER_BPF_LOADER_H
#define TRACER_BPF_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "tracer.h" /* bpf/tracer.h */

struct bpf_loader;

/*
 * Zero picks the default for a number (lib/defaults.h, the same as the
 * configuration's): argv_max (at most TRACER_ARGV_MAX), ringbuf_bytes
 * (rounded up to a power of two of at least one page), max_procs.
 * pin_dir NULL: maps are not pinned.
 */
struct bpf_loader_opts {
	bool trace_all;
	unsigned argv_max;
	unsigned ringbuf_bytes;
	unsigned max_procs;
	const char *pin_dir;
	/* wake the reader only when this much data waits (0: every record);
	 * the reader must then also drain on a timer */
	unsigned wakeup_bytes;
	/* live forked processes one job may have in the table (0: no cap) */
	unsigned max_procs_per_job;
	/* ... and all the jobs of one user together (0: no cap) */
	unsigned max_procs_per_user;
	/* ... and of all users together (0: no cap): the rest is root's */
	unsigned max_procs_all_users;
	/*
	 * Keep the kernel state across a restart (needs pin_dir): maps
	 * pinned by a previous tracerd there are reused when compatible, its
	 * programs (pinned links, which went on following processes while no
	 * tracerd ran) are replaced by ours, and ours are pinned too, so that
	 * they go on if we die.  bpf_loader_close(l) then keeps every pin
	 * unless bpf_loader_discard(l) was called.  Off: a fresh start, and
	 * the pins are removed at close.
	 */
	bool resume;
	/* test only: TCP bytes at close even where sock_send_length exists */
	bool no_sock_length;
};

/* event callback: data/size is one ring buffer record (starts with struct tracer_event_hdr) */
typedef int (*bpf_event_fn)(void *ctx, void *data, size_t size);

/*
 * Raise RLIMIT_MEMLOCK if needed, mount bpffs (/sys/fs/bpf) and tracefs
 * (/sys/kernel/tracing) if absent, open and load the skeleton with the
 * settings (self_tgid = getpid(): tracerd is never traced), attach all
 * programs, pin the maps under pin_dir (created with mode 0700, pins 0600;
 * stale pins from a previous run are replaced) and create the ring buffer
 * reader that calls fn(ctx, ...) per record.  NULL + message in err on
 * failure.  The one exception is the OOM program, which needs tracefs: if
 * it cannot be attached, a warning is logged, tracing goes on without OOM
 * flags and bpf_loader_programs() does not list it.
 *
 * Exit records are sent at the last thread's final context switch, which
 * can come a moment after the parent's wait4() returned: a consumer that
 * learns of an exit by another way should drain the ring buffer (and allow
 * a short wait for the record) before treating the process as missing.
 */
struct bpf_loader *bpf_loader_open(const struct bpf_loader_opts *o, bpf_event_fn fn,
				   void *ctx, char *err, size_t errlen);

int bpf_loader_ringbuf_fd(struct bpf_loader *l); /* epoll-able fd */
int bpf_loader_consume(struct bpf_loader *l);    /* records consumed, or <0 */

/*
 * At most max records (so that the event loop answers its sockets between
 * two batches, whatever a job makes the programs send).  Returns the
 * records consumed, or <0; *more is true when it stopped at max and
 * records may be left.  libbpf 1.1 (Debian 12) has no
 * ring_buffer__consume_n: the callback stops the walk after max records
 * by returning a negative value, which libbpf returns once the record is
 * consumed.
 */
int bpf_loader_consume_batch(struct bpf_loader *l, int max, bool *more);

/*
 * Tag a running process: its threads from /proc/<tgid>/status, its start
 * time from /proc/<tgid>/stat.  A process already tagged keeps its totals
 * and moves to `job`.  0, -ESRCH when it is gone, -EINVAL when tgid is not
 * a thread-group leader, -ENOSPC when the map is full, other -errno.
 */
int bpf_loader_tag_pid(struct bpf_loader *l, pid_t tgid, __u64 job);
int bpf_loader_untag_pid(struct bpf_loader *l, pid_t tgid); /* 0 or -ENOENT */

/* cgroup_id: the v2 cgroup id (inode number of the cgroup2 directory). */
int bpf_loader_tag_cgroup(struct bpf_loader *l, __u64 cgroup_id, __u64 job);
int bpf_loader_untag_cgroup(struct bpf_loader *l, __u64 cgroup_id); /* 0 or -ENOENT */

/*
 * A job's share of the kernel's table (struct tracer_job_stats): added
 * when the job opens (then the cap applies to it), read and removed when
 * it closes.  user: the share of the user who registered it (their uid +
 * 1 on the host; uid and container scope mixed for a peer in a
 * container, whose root is a user too: bpf_loader_user_key), or 0 for
 * none (root's jobs on the host); it is made with
 * the user's first job, and removed by bpf_loader_user_close once the
 * user has no open job.  0 or -errno.
 */
static inline __u64 bpf_loader_user_key(uid_t uid, __u64 scope)
{
	__u64 k;

	if (!scope)
		return uid ? (__u64)uid + 1 : 0;
	/* never 0 (root's) nor TRACER_USERS_ALL, apart from host uids */
	k = (scope * 0x9e3779b97f4a7c15ull) ^ ((__u64)uid << 1);
	return (k | (1ull << 62)) & ~(1ull << 63);
}
int bpf_loader_job_open(struct bpf_loader *l, __u64 job, __u64 user);
int bpf_loader_user_stats(struct bpf_loader *l, __u64 user, struct tracer_user_stats *out);
int bpf_loader_user_close(struct bpf_loader *l, __u64 user);
/* All users' share counts nothing (made at load; again when no user has
 * an open job, so that no drift of its count outlives their jobs). */
int bpf_loader_users_reset(struct bpf_loader *l);
int bpf_loader_job_stats(struct bpf_loader *l, __u64 job, struct tracer_job_stats *out);
int bpf_loader_job_close(struct bpf_loader *l, __u64 job);

int bpf_loader_lookup_proc(struct bpf_loader *l, pid_t tgid, struct tracer_proc *out); /* 0 or -ENOENT */
void bpf_loader_counters(struct bpf_loader *l, __u64 out[TRACER_CNT__MAX]); /* summed over CPUs */
/* How network bytes are counted (netio_attach.h). */
const char *bpf_loader_net_mode(struct bpf_loader *l);

int bpf_loader_programs(struct bpf_loader *l, char names[][32], int max); /* attached program names */
void bpf_loader_close(struct bpf_loader *l); /* detach, destroy, remove pins (see resume) */
/* With resume: did we reuse a previous tracerd's maps? */
bool bpf_loader_resumed(const struct bpf_loader *l);
/* With resume: remove the pins at close after all (a stop for good). */
void bpf_loader_discard(struct bpf_loader *l);
/* Call fn for every entry of the process table (start-up only: it grows
 * with the table). */
void bpf_loader_each_proc(struct bpf_loader *l,
			  void (*fn)(void *ctx, pid_t tgid, const struct tracer_proc *p),
			  void *ctx);

#endif
