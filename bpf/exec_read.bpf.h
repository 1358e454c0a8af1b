/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * exec_read.bpf.h - what an exec record says about the new image, read
 * from the kernel at sched_process_exec: the executable's resolved path
 * (a d_path()-like dentry walk, with the name given to execve as the
 * fallback) and argv from the new image's stack.  Included by
 * tracer.bpf.c only, after vmlinux.h, the libbpf helpers and tracer.h.
 */
#ifndef TRACER_EXEC_READ_BPF_H
#define TRACER_EXEC_READ_BPF_H

/*
 * Inode number of the pid namespace task runs in (task_active_pid_ns():
 * the namespace of its pid at the pid's own level), as ls -i
 * /proc/PID/ns/pid shows it: a process in another namespace than the
 * host's runs in a container (or a sandbox).  0 when unreadable.
 */
static __always_inline __u32 exec_pidns_inum(struct task_struct *task)
{
	struct pid *pid = BPF_CORE_READ(task, thread_pid);
	unsigned int level;
	struct upid up;

	if (!pid)
		return 0;
	level = BPF_CORE_READ(pid, level);
	if (level > 32 || bpf_core_read(&up, sizeof(up), &pid->numbers[level]))
		return 0;
	return up.ns ? BPF_CORE_READ(up.ns, ns.inum) : 0;
}

#define PATH_MASK (TRACER_PATH_MAX - 1)
#define PATH_DEPTH_MAX 64 /* components walked before giving up */

/*
 * The exec record is built here and sent with only the argv bytes used;
 * `tmp` holds the path while it is assembled right to left.  It is twice
 * TRACER_PATH_MAX so that masked offset + masked length stays inside.
 * `pos` (start of the path in tmp) is kept in map memory on purpose: the
 * verifier then sees an unknown value at each turn of the path loop instead
 * of one exact value per possible walk, and can prune the walks together.
 */
struct exec_scratch {
	struct tracer_exec_event ev;
	__u32 pos;
	char tmp[2 * TRACER_PATH_MAX];
};

/*
 * Resolve the executable's path the way d_path() does, into the right end
 * of s->tmp: walk dentries up to the task's root, hopping from a mount's
 * root to its mountpoint in the parent mount.  On success s->pos is where
 * the path starts.  Returns 0, -1 when nothing could be resolved, or -2 when
 * the path is too long or too deep.
 */
static __always_inline int resolve_path(struct exec_scratch *s,
					struct task_struct *task, struct file *file)
{
	struct dentry *root_dentry = BPF_CORE_READ(task, fs, root.dentry);
	struct vfsmount *root_mnt = BPF_CORE_READ(task, fs, root.mnt);
	struct dentry *dentry = BPF_CORE_READ(file, f_path.dentry);
	struct vfsmount *vfsmnt = BPF_CORE_READ(file, f_path.mnt);
	struct mount *mnt = container_of(vfsmnt, struct mount, mnt);
	struct dentry *parent, *mnt_root;
	struct mount *mnt_parent;
	const unsigned char *name;
	__u32 pos, len;
	int i;

	if (!dentry || !vfsmnt)
		return -1;
	s->tmp[PATH_MASK] = '\0';
	s->pos = PATH_MASK;
	for (i = 0; i < PATH_DEPTH_MAX; i++) {
		if (dentry == root_dentry && vfsmnt == root_mnt)
			break;
		mnt_root = BPF_CORE_READ(vfsmnt, mnt_root);
		if (dentry == mnt_root) {
			mnt_parent = BPF_CORE_READ(mnt, mnt_parent);
			if (mnt_parent == mnt) /* top of the mount tree */
				break;
			dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
			mnt = mnt_parent;
			vfsmnt = __builtin_preserve_access_index(&mnt_parent->mnt);
			continue;
		}
		parent = BPF_CORE_READ(dentry, d_parent);
		if (!parent || parent == dentry)
			break;
		len = BPF_CORE_READ(dentry, d_name.len);
		name = BPF_CORE_READ(dentry, d_name.name);
		pos = s->pos;
		if (len + 1 > pos)
			return -2;
		pos -= len;
		if (bpf_probe_read_kernel(&s->tmp[pos & PATH_MASK], len & PATH_MASK, name))
			return -1;
		pos -= 1;
		s->tmp[pos & PATH_MASK] = '/';
		s->pos = pos;
		dentry = parent;
	}
	if (i == PATH_DEPTH_MAX)
		return -2;
	if (s->pos >= PATH_MASK)
		return -1;
	return 0;
}

static __always_inline void fill_exec_path(struct exec_scratch *s,
					   struct task_struct *task,
					   struct linux_binprm *bprm)
{
	struct tracer_exec_event *e = &s->ev;
	const char *filename = BPF_CORE_READ(bprm, filename);
	struct file *file = BPF_CORE_READ(bprm, file);
	int rc = -1, n;
	__u64 size;

	n = bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), filename);
	e->filename_len = n > 0 ? n - 1 : 0;
	if (n <= 0)
		e->filename[0] = '\0';

	if (file)
		rc = resolve_path(s, task, file);
	if (rc == 0) {
		/* 1 <= pos < TRACER_PATH_MAX - 1: the masks only help the verifier */
		size = (TRACER_PATH_MAX - s->pos) & PATH_MASK; /* with the NUL */
		if (size > 1 &&
		    !bpf_probe_read_kernel(e->path, size, &s->tmp[s->pos & PATH_MASK])) {
			e->path_len = size - 1;
			return;
		}
	}
	if (rc == -2)
		e->flags |= TRACER_F_PATH_TRUNCATED;
	e->flags |= TRACER_F_PATH_FROM_FILENAME;
	n = bpf_probe_read_kernel_str(e->path, sizeof(e->path), filename);
	e->path_len = n > 0 ? n - 1 : 0;
	if (n <= 0)
		e->path[0] = '\0';
}

/* argv as NUL-separated bytes from the new image's stack. */
static __always_inline void fill_exec_argv(struct tracer_exec_event *e,
					   struct task_struct *task, __u64 cap)
{
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	__u64 start, end, len;

	e->argv_len = 0;
	if (!mm)
		return;
	start = BPF_CORE_READ(mm, arg_start);
	end = BPF_CORE_READ(mm, arg_end);
	if (end <= start)
		return;
	len = end - start;
	if (cap > TRACER_ARGV_MAX)
		cap = TRACER_ARGV_MAX;
	if (len > cap) {
		len = cap;
		e->flags |= TRACER_F_ARGV_TRUNCATED;
	}
	if (len > TRACER_ARGV_MAX) /* for the verifier */
		len = TRACER_ARGV_MAX;
	if (len && !bpf_probe_read_user(e->argv, len, (const void *)start))
		e->argv_len = len;
}

#endif
