// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer.bpf.c - the kernel half of tracerd: follows every process of a
 * tagged job from fork to exit and sends one record per fork, exec, exit
 * and OOM kill through the `events` ring buffer (layouts in tracer.h).
 *
 * A process is tagged when its tgid is a key of `procs`: tracerd puts the
 * registrant there, and sched_process_fork copies the tag to every child in
 * the kernel, so no descendant escapes however short-lived.  A process whose
 * v2 cgroup is in `tagged_cgroups`, or any process when trace_all is set, is
 * tagged at its first fork or exec.  Untagged activity costs one hash lookup.
 *
 * Totals are summed per thread at each thread's last context switch (the
 * first moment its CPU time is final) and the last thread sends them: the
 * kernel folds a thread's counters into signal_struct at times that vary
 * with the thread's role, so reading the signal totals would miss threads
 * still on their way out or count some twice.
 *
 * Shares of the process table: `procs` has max_procs entries for the whole
 * node.  Each job has its entry in `job_stats` (its live processes, capped
 * at max_procs_per_job), and each user other than root one in `user_procs`
 * (the live processes of all the jobs they registered, capped at
 * max_procs_per_user, always below max_procs), found through the job's
 * entry, and all users together one more (TRACER_USERS_ALL, capped at
 * max_procs_all_users: the rest of the table is root's).  A fork past a
 * cap runs but is not followed, and is counted for the job and the node.
 * So no user fills the table for the others, however many jobs they open
 * (their number is bounded too, in tracerd's admission), and users
 * together never take the part root's jobs (Slurm steps), which have
 * only the per-job cap, need.
 * tracerd makes the user's entry with their first open job and removes it
 * with their last; what it untags while a job closes leaves the counts
 * there (bpf_loader.c).
 *
 * Kernel-version differences live in compat.h; the end of a process in
 * exit.bpf.h, what an exec reads in exec_read.bpf.h, sockets and block
 * I/O in netio.bpf.h (each included here).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "tracer.h"
#include "compat.h"
#include "exec_read.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Settings, fixed by the loader before load. */
const volatile bool trace_all = false;
const volatile __u32 argv_max = TRACER_DEFAULT_ARGV_MAX;
const volatile __u32 self_tgid = 0;
const volatile __u32 page_kb = 4;
/* Wake tracerd only once this much is waiting (0: at every record).
 * tracerd drains the buffer on its own timer anyway; a wake-up per record
 * costs more than the record on an exec storm. */
const volatile __u32 wakeup_bytes = 0;
/* Live forked processes one job may have in `procs` (0: no cap). */
const volatile __u32 max_procs_per_job = 0;
/* ... and all the jobs of one user (0: no cap), always below the size
 * of `procs`: no user can fill the table for the others */
const volatile __u32 max_procs_per_user = 0;
/* ... and all users together (TRACER_USERS_ALL), so that a part of the
 * table stays for root's jobs (0: no cap) */
const volatile __u32 max_procs_all_users = 0;


/* Number of keys in tagged_cgroups, kept by the loader: skips a lookup. */
volatile __u32 nr_tagged_cgroups = 0;

#define TASK_PF_KTHREAD 0x00200000 /* include/linux/sched.h, stable */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TRACER_DEFAULT_MAX_PROCS); /* the loader sets max_procs */
	__type(key, __u32);
	__type(value, struct tracer_proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TRACER_MAX_TAGGED_CGROUPS);
	__type(key, __u64);
	__type(value, __u64);
} tagged_cgroups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TRACER_MAX_JOBS);
	__type(key, __u64);
	__type(value, struct tracer_job_stats);
} job_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TRACER_MAX_JOBS); /* a user has a job open */
	__type(key, __u64);
	__type(value, struct tracer_user_stats);
} user_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TRACER_CNT__MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, TRACER_DEFAULT_RINGBUF_BYTES); /* the loader sets ringbuf_bytes */
} events SEC(".maps");

static __always_inline __u64 wakeup_flag(void)
{
	if (!wakeup_bytes)
		return 0;
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes
		       ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exec_scratch);
} exec_scratch SEC(".maps");

static __always_inline void count(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &idx);

	if (v)
		tracer_atomic_add(v, 1);
}

/* A record of this job could not be sent: charged to the job. */
static __always_inline void drop_record(__u64 job)
{
	struct tracer_job_stats *st = bpf_map_lookup_elem(&job_stats, &job);

	count(TRACER_CNT_DROP_RINGBUF);
	if (st)
		tracer_atomic_add(&st->ringbuf_drops, 1);
}

static __always_inline void fill_hdr(struct tracer_event_hdr *h, __u32 type,
				     __u32 pid, __u64 job)
{
	h->type = type;
	h->pid = pid;
	h->job = job;
	h->ts_ns = bpf_ktime_get_ns();
}

/*
 * Job of a process that is not in `procs` yet: its cgroup's job, or the
 * host job when tracing everything.  Returns 0 when it is not to be traced.
 */
static __always_inline bool untagged_job(__u32 tgid, __u64 cgroup_id, __u64 *job)
{
	__u64 *cg_job;

	if (tgid == self_tgid)
		return false;
	if (nr_tagged_cgroups) {
		cg_job = bpf_map_lookup_elem(&tagged_cgroups, &cgroup_id);
		if (cg_job) {
			*job = *cg_job;
			return true;
		}
	}
	if (trace_all) {
		*job = TRACER_JOB_HOST;
		return true;
	}
	return false;
}

static __always_inline int insert_proc(__u32 tgid, __u64 job, __s64 threads,
				       __u64 start_ns, __u32 flags)
{
	struct tracer_proc p = {};

	p.job = job;
	p.threads = threads;
	p.start_ns = start_ns;
	p.flags = flags;
	if (bpf_map_update_elem(&procs, &tgid, &p, BPF_ANY)) {
		count(TRACER_CNT_DROP_PROCS_FULL);
		return -1;
	}
	return 0;
}

/* The user share of a job's processes (NULL: none, root's job). */
static __always_inline struct tracer_user_stats *user_of(struct tracer_job_stats *st)
{
	__u64 user;

	if (!st || !max_procs_per_user)
		return NULL;
	user = st->user;
	return user ? bpf_map_lookup_elem(&user_procs, &user) : NULL;
}

/* The share of all users together (NULL: none made, or no cap). */
static __always_inline struct tracer_user_stats *all_users(void)
{
	__u64 all = TRACER_USERS_ALL;

	return max_procs_all_users ? bpf_map_lookup_elem(&user_procs, &all) : NULL;
}

/* Is the job, or the user who registered it, at its cap?  Then the
 * process is counted, not followed. */
static __always_inline bool job_at_cap(struct tracer_job_stats *st,
				       struct tracer_user_stats *us)
{
	if (!st)
		return false;
	if (max_procs_per_job && *(volatile __s64 *)&st->live >= max_procs_per_job) {
		tracer_atomic_add(&st->over_cap, 1);
		count(TRACER_CNT_OVER_CAP);
		return true;
	}
	if (us && *(volatile __s64 *)&us->live >= max_procs_per_user) {
		tracer_atomic_add(&st->over_user_cap, 1);
		tracer_atomic_add(&us->over_cap, 1);
		count(TRACER_CNT_OVER_USER_CAP);
		return true;
	}
	if (us) {
		struct tracer_user_stats *all = all_users();

		if (all && *(volatile __s64 *)&all->live >= max_procs_all_users) {
			tracer_atomic_add(&st->over_user_cap, 1);
			tracer_atomic_add(&all->over_cap, 1);
			count(TRACER_CNT_OVER_USERS_CAP);
			return true;
		}
	}
	return false;
}

/* A new process of the job is in `procs`: it counts toward both caps. */
static __always_inline void count_live(struct tracer_job_stats *st,
				       struct tracer_user_stats *us)
{
	struct tracer_user_stats *all;

	if (st)
		tracer_atomic_add(&st->live, 1);
	if (!us)
		return;
	tracer_atomic_add(&us->live, 1);
	all = all_users();
	if (all)
		tracer_atomic_add(&all->live, 1);
}

/* ---- fork ---- */

static __always_inline void emit_fork(struct task_struct *child, __u32 tgid,
				      __u32 ppid, __u64 job, __u64 start_ns)
{
	struct tracer_fork_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		drop_record(job);
		return;
	}
	fill_hdr(&e->hdr, TRACER_EV_FORK, tgid, job);
	e->ppid = ppid;
	e->pad = 0;
	e->start_ns = start_ns;
	BPF_CORE_READ_STR_INTO(&e->comm, child, comm);
	bpf_ringbuf_submit(e, wakeup_flag());
	count(TRACER_CNT_EVENTS);
}

static __always_inline int handle_fork(struct task_struct *parent,
				       struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	struct tracer_proc *p = bpf_map_lookup_elem(&procs, &ptgid);
	struct tracer_job_stats *st;
	struct tracer_user_stats *us;
	__u64 start_ns, job;

	if (ctgid == ptgid) { /* a new thread of the same process */
		if (p)
			tracer_atomic_add(&p->threads, 1);
		return 0;
	}
	if (p) {
		job = p->job;
	} else {
		if (BPF_CORE_READ(child, flags) & TASK_PF_KTHREAD)
			return 0;
		/* the child's cgroup: CLONE_INTO_CGROUP may differ from ours */
		if (!untagged_job(ptgid, compat_task_cgroup_id(child), &job))
			return 0;
	}
	/* the job's share of the table (only tagged forks get here) */
	st = bpf_map_lookup_elem(&job_stats, &job);
	us = user_of(st);
	if (job_at_cap(st, us))
		return 0;
	start_ns = BPF_CORE_READ(child, start_time);
	if (insert_proc(ctgid, job, 1, start_ns, st ? TRACER_F_COUNTED : 0)) {
		if (st)
			tracer_atomic_add(&st->table_full, 1);
		return 0;
	}
	count_live(st, us);
	count(TRACER_CNT_FORKS);
	emit_fork(child, ctgid, ptgid, job, start_ns);
	return 0;
}

/* ---- exec ---- */

static __always_inline int handle_exec(struct task_struct *task,
				       struct linux_binprm *bprm)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct tracer_proc *p = bpf_map_lookup_elem(&procs, &tgid);
	__u64 job, start_ns;
	struct tracer_exec_event *e;
	struct exec_scratch *s;
	__u32 zero = 0, size;
	__s64 threads;

	if (p) {
		job = p->job;
	} else {
		struct tracer_job_stats *st;
		struct tracer_user_stats *us;

		if (!untagged_job(tgid, bpf_get_current_cgroup_id(), &job))
			return 0;
		/* it entered a tagged cgroup after its fork (podman exec:
		 * runc moves it in): it counts toward the job's cap too */
		st = bpf_map_lookup_elem(&job_stats, &job);
		us = user_of(st);
		if (job_at_cap(st, us))
			return 0;
		/* de_thread() has already made the process single-threaded */
		threads = BPF_CORE_READ(task, signal, nr_threads);
		if (insert_proc(tgid, job, threads > 0 ? threads : 1,
				BPF_CORE_READ(task, start_time), st ? TRACER_F_COUNTED : 0)) {
			if (st)
				tracer_atomic_add(&st->table_full, 1);
			return 0;
		}
		count_live(st, us);
		p = bpf_map_lookup_elem(&procs, &tgid);
		if (!p)
			return 0;
	}
	p->flags |= TRACER_F_EXECED;
	/* exec_mmap folded the old image's peak into signal->maxrss: what
	 * maxrss holds now is not this image's (fallback in emit_exit) */
	p->exec_maxrss_pages = BPF_CORE_READ(task, signal, maxrss);
	p->own_peak_pages = 0;
	count(TRACER_CNT_EXECS);

	s = bpf_map_lookup_elem(&exec_scratch, &zero);
	if (!s)
		return 0;
	e = &s->ev;
	start_ns = BPF_CORE_READ(task, start_time);
	fill_hdr(&e->hdr, TRACER_EV_EXEC, tgid, job);
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	e->flags = 0;
	e->pidns = exec_pidns_inum(task);
	e->start_ns = start_ns;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	fill_exec_path(s, task, bprm);
	fill_exec_argv(e, task, argv_max);

	size = e->argv_len;
	if (size > TRACER_ARGV_MAX)
		size = TRACER_ARGV_MAX;
	size += offsetof(struct tracer_exec_event, argv);
	if (bpf_ringbuf_output(&events, e, size, wakeup_flag())) {
		drop_record(job);
		return 0;
	}
	count(TRACER_CNT_EVENTS);
	return 0;
}

#include "exit.bpf.h" /* exit and the last switch of each thread */

/* ---- OOM ---- */

static __always_inline int handle_oom(void *ctx, __u32 pid)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct tracer_proc *p = bpf_map_lookup_elem(&procs, &pid);
	struct tracer_oom_event *e;

	/*
	 * The victim is normally a thread-group leader; when it is another
	 * thread of the allocating process, current tells us its tgid.
	 */
	if (!p && (__u32)pid_tgid == pid) {
		pid = pid_tgid >> 32;
		p = bpf_map_lookup_elem(&procs, &pid);
	}
	if (!p)
		return 0;
	p->flags |= TRACER_F_OOM_KILLED;
	count(TRACER_CNT_OOMS);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		drop_record(p->job);
		return 0;
	}
	fill_hdr(&e->hdr, TRACER_EV_OOM, pid, p->job);
	e->victim_rss_kb = compat_oom_victim_rss_kb(ctx);
	compat_memcg_limit((struct task_struct *)bpf_get_current_task(), &e->memcg_limit_pages,
			   &e->memcg_usage_pages);
	e->trigger_tgid = pid_tgid >> 32;
	e->pad = 0;
	bpf_ringbuf_submit(e, wakeup_flag());
	count(TRACER_CNT_EVENTS);
	return 0;
}

#include "netio.bpf.h" /* sockets and block I/O: their own programs */

/* ---- attach points ---- */

SEC("tp_btf/sched_process_fork")
int BPF_PROG(tracer_fork, struct task_struct *parent, struct task_struct *child)
{
	return handle_fork(parent, child);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(tracer_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	return handle_exec(p, bprm);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(tracer_exit, struct task_struct *p)
{
	return handle_exit(p);
}

/* only the first two arguments: prev_state was added in v5.18 */
SEC("tp_btf/sched_switch")
int BPF_PROG(tracer_switch, bool preempt, struct task_struct *prev)
{
	return handle_switch(prev);
}

SEC("tp/oom/mark_victim")
int tracer_oom(struct trace_event_raw_mark_victim *ctx)
{
	return handle_oom(ctx, compat_oom_victim_pid(ctx));
}
