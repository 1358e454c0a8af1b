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
 * Kernel-version differences live in compat.h.
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

/* ---- exit ---- */

/*
 * sched_process_exit, per thread.  Only the leader's own exit matters here:
 * it keeps what the exit record needs from the leader (exit code, comm,
 * parent, start time) while the leader is certainly alive, because the
 * record is sent later, possibly by another thread, when the leader may
 * already have been reaped.
 */
static __always_inline int handle_exit(struct task_struct *task)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	struct tracer_proc *p;
	struct mm_struct *mm;

	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p)
		return 0;
	/* the image's own peak, while the mm exists (v6.16+: compat.h);
	 * any thread may be the last user of the mm, so every one looks */
	mm = BPF_CORE_READ(task, mm);
	if (mm) {
		__u64 peak = compat_mm_peak_pages(mm);

		if (peak > p->own_peak_pages)
			p->own_peak_pages = peak;
	}
	if ((__u32)pid_tgid != tgid) /* not the leader */
		return 0;
	p->leader_exit_code = BPF_CORE_READ(task, exit_code);
	p->ppid = BPF_CORE_READ(task, real_parent, tgid);
	p->start_ns = BPF_CORE_READ(task, start_time);
	BPF_CORE_READ_STR_INTO(&p->comm, task, comm);
	return 0;
}

/* Add a dead thread's own counters, final at its last switch, to the totals. */
static __always_inline void add_thread(struct tracer_proc *p,
				       struct task_struct *task)
{
	struct compat_ioac io;

	tracer_atomic_add(&p->acc.cpu_ns, BPF_CORE_READ(task, se.sum_exec_runtime));
	tracer_atomic_add(&p->acc.utime_ns, BPF_CORE_READ(task, utime));
	tracer_atomic_add(&p->acc.stime_ns, BPF_CORE_READ(task, stime));
	tracer_atomic_add(&p->acc.nvcsw, BPF_CORE_READ(task, nvcsw));
	tracer_atomic_add(&p->acc.nivcsw, BPF_CORE_READ(task, nivcsw));
	tracer_atomic_add(&p->acc.min_flt, BPF_CORE_READ(task, min_flt));
	tracer_atomic_add(&p->acc.maj_flt, BPF_CORE_READ(task, maj_flt));
	tracer_atomic_add(&p->run_delay_ns, compat_run_delay(task));
	compat_task_ioac(task, &io);
	tracer_atomic_add(&p->acc.rchar, io.rchar);
	tracer_atomic_add(&p->acc.wchar, io.wchar);
	tracer_atomic_add(&p->acc.syscr, io.syscr);
	tracer_atomic_add(&p->acc.syscw, io.syscw);
	tracer_atomic_add(&p->acc.read_bytes, io.read_bytes);
	tracer_atomic_add(&p->acc.write_bytes, io.write_bytes);
	tracer_atomic_add(&p->acc.cancelled_write_bytes, io.cancelled_write_bytes);
}

/*
 * wait(2) status word, as wait_task_zombie() computes it.  Every thread has
 * passed do_exit() by now, so signal->flags is final (compat.h explains
 * why newer kernels always set SIGNAL_GROUP_EXIT).  Otherwise it is the
 * leader's exit_code, kept at the leader's exit.
 */
static __always_inline __s32 exit_status(const struct tracer_proc *p,
					 struct task_struct *task, bool kept)
{
	struct signal_struct *sig = BPF_CORE_READ(task, signal);

	if (BPF_CORE_READ(sig, flags) & TRACER_SIGNAL_GROUP_EXIT)
		return BPF_CORE_READ(sig, group_exit_code);
	return kept ? p->leader_exit_code : BPF_CORE_READ(task, exit_code);
}

static __always_inline void copy_totals(struct tracer_totals *dst,
					const struct tracer_proc *p)
{
	dst->cpu_ns = p->acc.cpu_ns;
	dst->utime_ns = p->acc.utime_ns;
	dst->stime_ns = p->acc.stime_ns;
	dst->rchar = p->acc.rchar;
	dst->wchar = p->acc.wchar;
	dst->syscr = p->acc.syscr;
	dst->syscw = p->acc.syscw;
	dst->read_bytes = p->acc.read_bytes;
	dst->write_bytes = p->acc.write_bytes;
	dst->cancelled_write_bytes = p->acc.cancelled_write_bytes;
	dst->nvcsw = p->acc.nvcsw;
	dst->nivcsw = p->acc.nivcsw;
	dst->min_flt = p->acc.min_flt;
	dst->maj_flt = p->acc.maj_flt;
}

/*
 * Appended exit fields: run-queue delay, and the last image's own peak:
 * read from the mm at sched_process_exit where the kernel still has it
 * there (v6.16+), else signal->maxrss when the process never exec'd (its
 * image is the one maxrss measured) or when maxrss grew after the last
 * exec (then that growth was this image's); otherwise unknown.
 */
static __always_inline void fill_exit_analysis(struct tracer_exit_event *e,
					       const struct tracer_proc *p)
{
	__u64 maxrss = e->totals.maxrss_kb / (page_kb ? page_kb : 4);

	e->run_delay_ns = p->run_delay_ns;
	e->pad2 = 0;
	if (p->own_peak_pages) {
		e->own_peak_kb = p->own_peak_pages * page_kb;
		e->own_peak_src = TRACER_PEAK_MM;
	} else if (!(p->flags & TRACER_F_EXECED) || maxrss > p->exec_maxrss_pages) {
		e->own_peak_kb = e->totals.maxrss_kb;
		e->own_peak_src = TRACER_PEAK_MAXRSS;
	} else {
		e->own_peak_kb = 0;
		e->own_peak_src = TRACER_PEAK_UNKNOWN;
	}
}

/*
 * Called by a thread that may be the last one.  Deleting the entry is the
 * claim: if two threads get here at once only one delete succeeds, and the
 * other discards its record.  The record is filled before the delete, while
 * the element cannot yet be reused for another process.  Only `task` (the
 * thread switching out, still referenced) and its signal_struct are read.
 */
/* The process's entry is gone: it leaves its job's and its user's count. */
static __always_inline void uncount(__u64 job, __u32 flags)
{
	struct tracer_job_stats *st;
	struct tracer_user_stats *us;

	if (!(flags & TRACER_F_COUNTED))
		return;
	st = bpf_map_lookup_elem(&job_stats, &job);
	if (!st)
		return;
	tracer_atomic_add(&st->live, -1);
	us = user_of(st);
	if (us) {
		struct tracer_user_stats *all = all_users();

		tracer_atomic_add(&us->live, -1);
		if (all)
			tracer_atomic_add(&all->live, -1);
	}
}

static __always_inline void emit_exit(struct tracer_proc *p,
				      struct task_struct *task, __u32 tgid)
{
	struct tracer_exit_event *e;
	bool kept = p->comm[0] != '\0'; /* the leader's exit was seen */
	__u64 job = p->job;
	__u32 flags = p->flags;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		if (bpf_map_delete_elem(&procs, &tgid) == 0) {
			count(TRACER_CNT_EXITS);
			drop_record(job);
			uncount(job, flags);
		}
		return;
	}
	fill_hdr(&e->hdr, TRACER_EV_EXIT, tgid, p->job);
	e->flags = p->flags;
	e->exit_status = exit_status(p, task, kept);
	e->nr_threads = p->nr_exited;
	e->start_ns = p->start_ns;
	copy_totals(&e->totals, p);
	e->totals.maxrss_kb = compat_maxrss_pages(task) * page_kb;
	__builtin_memcpy(&e->net, &p->net, sizeof(e->net));
	fill_exit_analysis(e, p);
	if (kept) {
		e->ppid = p->ppid;
		__builtin_memcpy(e->comm, p->comm, sizeof(e->comm));
	} else {
		e->ppid = BPF_CORE_READ(task, real_parent, tgid);
		BPF_CORE_READ_STR_INTO(&e->comm, task, comm);
	}
	if (bpf_map_delete_elem(&procs, &tgid)) {
		bpf_ringbuf_discard(e, 0);
		return;
	}
	uncount(job, flags);
	count(TRACER_CNT_EXITS);
	bpf_ringbuf_submit(e, wakeup_flag());
	count(TRACER_CNT_EVENTS);
}

/*
 * sched_switch away from a dead thread (state TASK_DEAD): its last switch.
 * Only here is se.sum_exec_runtime final: at sched_process_exit it still
 * lacks the time since the last tick or switch, which is most of the CPU of
 * a process that lives a millisecond.  wait4() reads the final value, so we
 * do too.  Any other switch costs one field read and a compare.
 *
 * The thread is the last one when our count of live threads reaches zero
 * AND signal->live is zero: do_exit() decrements signal->live long before
 * this point, so zero there means no thread of the group is still short of
 * it, even threads we never saw being created (io_uring workers are made
 * without sched_process_fork, and threads created between tracerd reading
 * /proc and tagging are not counted).
 *
 * Not sched_process_free: it fires only once the task is reaped, so a
 * parent that waits late would hold the record and its job's close
 * (docs/benchmarks.md, "Per-switch hook": the decision and its cost).
 */
static __always_inline int handle_switch(struct task_struct *prev)
{
	struct tracer_proc *p;
	__u32 tgid;

	if (compat_task_state(prev) != TRACER_TASK_DEAD)
		return 0;
	tgid = BPF_CORE_READ(prev, tgid);
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p)
		return 0;
	add_thread(p, prev);
	tracer_atomic_add(&p->nr_exited, 1);
	tracer_atomic_add(&p->threads, -1);
	if (*(volatile __s64 *)&p->threads > 0)
		return 0;
	if (BPF_CORE_READ(prev, signal, live.counter) > 0)
		return 0;
	emit_exit(p, prev, tgid);
	return 0;
}

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
