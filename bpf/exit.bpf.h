/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * exit.bpf.h - the end of a tagged process: the leader's exit keeps what
 * the record needs, each thread's last context switch adds its final
 * counters, and the last one sends the exit record and leaves its job's
 * count.  Included by tracer.bpf.c only, after its maps, count(),
 * drop_record() and fill_hdr().
 */
#ifndef TRACER_EXIT_BPF_H
#define TRACER_EXIT_BPF_H

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
/* The process's entry is gone: it leaves its job's count. */
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
static __noinline int switch_dead(struct task_struct *prev)
{
	struct tracer_proc *p;
	__u32 tgid;

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

/*
 * Every switch on the host comes here.  The dead thread's work is a
 * separate BPF subprogram (switch_dead, __noinline), so the program itself
 * is two loads, a compare and a return: the JIT saves no callee-saved
 * register and sets up no stack for it (a program with a stack frame of
 * 64 bytes or more gets a per-CPU private stack, set up at every entry on
 * v6.13+).  docs/benchmarks.md, "Per-switch hook", has the measured cost.
 */
static __always_inline int handle_switch(struct task_struct *prev)
{
	if (__builtin_expect(!compat_task_dead(prev), 1))
		return 0;
	return switch_dead(prev);
}

#endif /* TRACER_EXIT_BPF_H */
