/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * compat.h - every kernel-version difference the BPF programs depend on,
 * in one place.  Included by tracer.bpf.c after vmlinux.h and the libbpf
 * headers.  Each helper says which kernel change it copes with, so that a
 * new kernel that moves something again has exactly one place to look.
 *
 * Baseline: 5.8 with BTF (BPF ring buffer, tp_btf, bpf_probe_read_kernel/
 * _user from 5.5, bounded loops from 5.3).  Nothing here needs a newer
 * helper; where a newer kernel behaves differently we read both layouts.
 */
#ifndef TRACER_BPF_COMPAT_H
#define TRACER_BPF_COMPAT_H

/*
 * include/linux/sched/signal.h: SIGNAL_GROUP_EXIT has been 0x4 since 2.6;
 * it is a #define, so vmlinux.h does not carry it.  Exit status: older
 * kernels report the leader's exit_code unless a group exit happened.
 * Since "signal: Guarantee that SIGNAL_GROUP_EXIT is set on process exit"
 * (2022, synchronize_group_exit() at the top of do_exit()) the last thread
 * to start exiting sets SIGNAL_GROUP_EXIT with its own code.  Reading
 * signal->flags once every thread has exited, falling back to the leader's
 * exit_code (kept at the leader's own exit), gives what wait4() reports on
 * both.
 */
#define TRACER_SIGNAL_GROUP_EXIT 0x00000004

/*
 * Atomics.  Only the plain "lock add" (BPF_XADD) form exists before v5.12,
 * which added BPF_FETCH and the bitwise atomics (fetch_add, fetch_or,
 * cmpxchg).  We therefore never use the value returned by
 * __sync_fetch_and_add (clang refuses it below -mcpu=v3 anyway) and set flag
 * bits with a plain read-modify-write: the only two writers of
 * tracer_proc.flags (exec and OOM) do not race in practice.  Deciding which
 * exiting thread is the last one therefore cannot rely on a fetched counter:
 * tracer.bpf.c settles it with bpf_map_delete_elem(), which succeeds for
 * exactly one caller.  Ordering between the per-thread "lock add"s and the
 * final read relies on x86's total store order (the only __TARGET_ARCH we
 * build for); a weakly ordered port should switch to fetch atomics (v5.12+).
 */
#define tracer_atomic_add(ptr, val) ((void)__sync_fetch_and_add((ptr), (val)))

/*
 * v2 cgroup id of a task: task->cgroups->dfl_cgrp->kn->id.  kernfs_node.id
 * became a plain u64 in v5.5 ("kernfs: convert kernfs_node->id from union
 * kernfs_node_id to u64"); on our 5.8+ baseline it is the value that
 * bpf_get_current_cgroup_id() returns and the inode number of the cgroup
 * directory on cgroup2.
 */
static __always_inline __u64 compat_task_cgroup_id(struct task_struct *task)
{
	return BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id);
}

/*
 * I/O accounting.  struct task_io_accounting holds rchar/wchar/syscr/syscw
 * only with CONFIG_TASK_XACCT and read_bytes/write_bytes/
 * cancelled_write_bytes only with CONFIG_TASK_IO_ACCOUNTING; a kernel built
 * without them has an empty struct.  Missing fields read as 0.
 */
struct compat_ioac {
	__u64 rchar, wchar, syscr, syscw;
	__u64 read_bytes, write_bytes, cancelled_write_bytes;
};

static __always_inline void compat_task_ioac(struct task_struct *task,
					      struct compat_ioac *io)
{
	__builtin_memset(io, 0, sizeof(*io));
	if (bpf_core_field_exists(task->ioac.rchar)) {
		io->rchar = BPF_CORE_READ(task, ioac.rchar);
		io->wchar = BPF_CORE_READ(task, ioac.wchar);
		io->syscr = BPF_CORE_READ(task, ioac.syscr);
		io->syscw = BPF_CORE_READ(task, ioac.syscw);
	}
	if (bpf_core_field_exists(task->ioac.read_bytes)) {
		io->read_bytes = BPF_CORE_READ(task, ioac.read_bytes);
		io->write_bytes = BPF_CORE_READ(task, ioac.write_bytes);
		io->cancelled_write_bytes =
			BPF_CORE_READ(task, ioac.cancelled_write_bytes);
	}
}

/*
 * Peak RSS of the exiting process, in pages.  do_exit() folds the mm's
 * hiwater into signal->maxrss (setmax_mm_hiwater_rss) in the group-dead
 * thread before trace_sched_process_exit on every kernel, and exec folds the
 * old image's peak in too (exec_mmap), so signal->maxrss is what getrusage()
 * and wait4() report.  Since v6.16 (3e816361e94a, "exit: move and extend
 * sched_process_exit() tracepoint") that tracepoint fires before exit_mm(),
 * so a caller there may still see task->mm; its hiwater_rss can only raise
 * the value.  (At a thread's final switch, where tracer.bpf.c reads it, mm
 * is gone on every kernel.)  The live RSS counters are not read: since v6.2
 * (f1a7941243c1) they are per-CPU counters whose central value is
 * approximate.
 */
static __always_inline __u64 compat_maxrss_pages(struct task_struct *task)
{
	__u64 maxrss = BPF_CORE_READ(task, signal, maxrss);
	struct mm_struct *mm = BPF_CORE_READ(task, mm);

	if (mm) {
		__u64 hiwater = BPF_CORE_READ(mm, hiwater_rss);

		if (hiwater > maxrss)
			maxrss = hiwater;
	}
	return maxrss;
}

/*
 * Peak RSS of one image (mm), in pages: what setmax_mm_hiwater_rss()
 * would fold into signal->maxrss, max(hiwater_rss, current RSS).  Unlike
 * signal->maxrss it does not include the images before the last exec
 * (exec_mmap folds the old mm's peak into signal->maxrss, the new mm starts
 * at zero), so `true` forked from a 300 MiB Python shows its own 1 MiB.
 * Current RSS = file + anon + shmem pages (MM_SWAPENTS, index 2, is not
 * resident).  Since v6.2 (f1a7941243c1) rss_stat is an array of
 * percpu_counter whose central `count` may lag by the per-CPU batch (a few
 * hundred KiB); before, struct mm_rss_stat held atomic_long_t count[].
 * Only readable while the mm exists: from v6.16 (3e816361e94a)
 * sched_process_exit fires before exit_mm(), on older kernels task->mm is
 * already NULL there and tracer.bpf.c falls back to signal->maxrss when
 * it grew after the last exec.
 */
struct mm_rss_stat___pre62 {
	atomic_long_t count[4];
} __attribute__((preserve_access_index));

struct mm_struct___pre62 {
	struct mm_rss_stat___pre62 rss_stat;
} __attribute__((preserve_access_index));

static __always_inline __u64 compat_mm_peak_pages(struct mm_struct *mm)
{
	__s64 file, anon, shmem, rss;
	__u64 hiwater = BPF_CORE_READ(mm, hiwater_rss);

	if (bpf_core_type_exists(struct mm_rss_stat___pre62)) {
		struct mm_struct___pre62 *old = (void *)mm;

		file = BPF_CORE_READ(old, rss_stat.count[0].counter);
		anon = BPF_CORE_READ(old, rss_stat.count[1].counter);
		shmem = BPF_CORE_READ(old, rss_stat.count[3].counter);
	} else {
		file = BPF_CORE_READ(mm, rss_stat[0].count);
		anon = BPF_CORE_READ(mm, rss_stat[1].count);
		shmem = BPF_CORE_READ(mm, rss_stat[3].count);
	}
	rss = (file > 0 ? file : 0) + (anon > 0 ? anon : 0) + (shmem > 0 ? shmem : 0);
	return (__u64)rss > hiwater ? (__u64)rss : hiwater;
}

/*
 * Run-queue delay of a thread: sched_info.run_delay (ns spent runnable
 * but waiting for a CPU), kept with CONFIG_SCHED_INFO (set by SCHEDSTATS
 * and TASK_DELAY_ACCT, and on every distribution kernel) whatever
 * kernel.sched_schedstats says; /proc/PID/schedstat shows it.  0 without.
 */
static __always_inline __u64 compat_run_delay(struct task_struct *task)
{
	if (bpf_core_field_exists(task->sched_info.run_delay))
		return BPF_CORE_READ(task, sched_info.run_delay);
	return 0;
}

/*
 * oom:mark_victim.  The raw tracepoint arguments changed from (int pid) to
 * (struct task_struct *, uid_t) when the event gained comm, RSS and uid
 * fields, so tp_btf/raw_tp cannot serve both; the classic tracepoint record
 * keeps `pid` as its first field in both layouts, and CO-RE relocates it.
 */
static __always_inline __s32 compat_oom_victim_pid(struct trace_event_raw_mark_victim *ctx)
{
	return BPF_CORE_READ(ctx, pid);
}

/*
 * OOM context.  oom:mark_victim runs in the task whose allocation failed
 * (out_of_memory() -> oom_kill_process() -> mark_oom_victim()).  For a
 * cgroup OOM that task's memory cgroup, or an ancestor, is at its limit;
 * for a host OOM no limit on the way up is below the machine's memory.
 * We walk the page_counter chain (memory.max / memory.limit_in_bytes, in
 * pages) of current's memory cgroup, a few levels, and keep the tightest.
 * mem_cgroup starts with its css (include/linux/memcontrol.h); page_counter
 * and mem_cgroup.memory exist since v4.3.  The event's RSS fields
 * (anon_rss, file_rss, shmem_rss, kB) were added in v5.18 (ef8444ea01d7).
 */
struct trace_event_raw_mark_victim___new {
	unsigned long anon_rss, file_rss, shmem_rss;
} __attribute__((preserve_access_index));

static __always_inline __u64 compat_oom_victim_rss_kb(void *ctx)
{
	struct trace_event_raw_mark_victim___new *e = ctx;

	if (!bpf_core_field_exists(e->anon_rss))
		return 0;
	return BPF_CORE_READ(e, anon_rss) + BPF_CORE_READ(e, file_rss) +
	       BPF_CORE_READ(e, shmem_rss);
}

static __always_inline void compat_memcg_limit(struct task_struct *task,
					       __u64 *limit, __u64 *usage)
{
	int id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	struct cgroup_subsys_state *css;
	struct page_counter *pc;

	*limit = 0;
	*usage = 0;
	if (id < 0 || id >= 12)
		return;
	css = BPF_CORE_READ(task, cgroups, subsys[id]);
	if (!css)
		return;
	pc = &((struct mem_cgroup *)css)->memory;
	for (int i = 0; i < 8 && pc; i++) {
		__u64 max = BPF_CORE_READ(pc, max);

		if (max && (!*limit || max < *limit)) {
			*limit = max;
			*usage = BPF_CORE_READ(pc, usage.counter);
		}
		pc = BPF_CORE_READ(pc, parent);
	}
}

/*
 * sched_process_exit gained a `bool group_dead` argument in v6.16
 * (3e816361e94a).  We do not use it: the program only takes the task
 * argument, which is first in both signatures, and decides "last thread"
 * from its own count plus signal->live (decremented early in do_exit() on
 * every kernel).
 */

/*
 * A thread's last switch: do_task_dead() sets TASK_DEAD (0x80 since v4.14,
 * a #define, so not in BTF) before the final __schedule().  task->state was
 * renamed __state in v5.14 (2f064a59a1); read whichever exists, directly
 * (tp_btf gives a trusted pointer), because this runs on every switch.
 * sched_switch's own prev_state argument only exists since v5.18 (moved to
 * the end by 9c2136be0878), so we do not rely on it.
 */
#define TRACER_TASK_DEAD 0x00000080

struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/* compared where it is read, at its own width: no zero extension of a
 * merged value on the path every switch takes */
static __always_inline bool compat_task_dead(struct task_struct *task)
{
	if (bpf_core_field_exists(task->__state))
		return task->__state == TRACER_TASK_DEAD;
	return ((struct task_struct___pre514 *)task)->state == TRACER_TASK_DEAD;
}

#endif /* TRACER_BPF_COMPAT_H */
