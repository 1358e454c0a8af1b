/*
 * cgroup.h - a job's own cgroup counters, v2 or v1.  v2: cpu.stat
 * usage_usec, memory.peak (or memory.current when absent), io.stat.
 * v1: cpuacct.usage, memory.max_usage_in_bytes / usage_in_bytes,
 * blkio.throttle.io_service_bytes.  Paths are relative to the mount
 * points found in /proc/self/mountinfo.  Where a v1 controller is
 * mounted (hybrid hierarchies) its counters are used: the v2 tree then
 * carries no controllers and its cpu.stat is not the job's.
 */
#ifndef TRACER_CGROUP_H
#define TRACER_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cgroup_stats {
	bool have_cpu, have_mem, have_io;
	uint64_t cpu_ns;
	uint64_t mem_current_bytes, mem_peak_bytes;
	uint64_t io_read_bytes, io_write_bytes;
	uint64_t oom_kills; /* memory.events oom_kill (v2), memory.oom_control (v1) */
};

struct cgroup_ref {
	char v2[512];     /* absolute directory in the v2 hierarchy, or "" */
	char mem_v1[512]; /* absolute memory controller directory, or "" */
	char cpu_v1[512]; /* absolute cpuacct directory (usage), or "" */
	/* absolute cpu controller directory (CFS quota), or "": the same as
	 * cpu_v1 where cpu and cpuacct are mounted together, apart where
	 * each has a hierarchy of its own */
	char cpuctl_v1[512];
	char blkio_v1[512]; /* absolute blkio directory, or "" */
};

/* Find the cgroup directories of pid (v2 first, then v1). 0 or -1. */
int cgroup_ref_for_pid(int pid, struct cgroup_ref *ref);
/* The directories of cgroup path cg ("/docker/<id>") in every hierarchy
 * where it exists now: 0, or -1 when in none.  tracerd's loop only. */
int cgroup_ref_for_path(const char *cg, struct cgroup_ref *ref);
/* Read what is available; 0 if anything was read, -1 if nothing. */
int cgroup_read_stats(const struct cgroup_ref *ref, struct cgroup_stats *st);
/* The processes in a cgroup directory (its cgroup.procs), at most max
 * (<= 100): their number, -1 unreadable, -2 more than max. */
int cgroup_read_procs(const char *dir, pid_t *pids, size_t max);
/* Has v2 cgroup directory dir cgroups below it (cgroup.stat
 * nr_descendants)?  true also when that cannot be read. */
bool cgroup_has_children(const char *dir);
/* dir/file into buf (NUL-terminated); -1 when absent or unreadable. */
int cgroup_read_file(const char *dir, const char *file, char *buf, size_t cap);
/* Pure parsers for unit tests. */
int cgroup_parse_cpu_stat(const char *buf, uint64_t *usage_ns);
int cgroup_parse_io_stat(const char *buf, uint64_t *rbytes, uint64_t *wbytes);
int cgroup_parse_blkio_v1(const char *buf, uint64_t *rbytes, uint64_t *wbytes);

#endif
