/*
 * procfs.h - reading /proc/<pid> robustly: comm may hold spaces and
 * parentheses, files may vanish between open and read, fields may be
 * missing on old kernels.  Pure parsers (procfs_parse_*) are separate
 * from the readers so the unit tests can feed them odd input.
 * Never reads /proc/<pid>/environ.
 */
#ifndef TRACER_PROCFS_H
#define TRACER_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* /proc/PID/stat; times in clock ticks (clock_ticks_ns converts them). */
struct procfs_stat {
	pid_t pid, ppid;
	char comm[16];
	char state;
	uint64_t minflt, cminflt, majflt, cmajflt;
	uint64_t utime_ticks, stime_ticks;
	/* reaped children's times, inclusive of theirs (wait_task_zombie) */
	uint64_t cutime_ticks, cstime_ticks;
	long num_threads;
	uint64_t start_ticks;   /* since boot (CLOCK_BOOTTIME), in clock ticks */
	uint64_t rss_pages;
	int processor;          /* CPU it last ran on (field 39); -1 when absent */
	/* block I/O wait of this thread (field 42), clock ticks; 0 when the
	 * kernel keeps no delay accounting (kernel.task_delayacct off) */
	uint64_t blkio_ticks;
};

struct procfs_io {
	uint64_t rchar, wchar, syscr, syscw;
	uint64_t read_bytes, write_bytes, cancelled_write_bytes;
};

struct procfs_status {
	pid_t tgid;             /* 0 when absent */
	uint64_t vm_rss_kb, vm_hwm_kb;
	long threads;
	uint64_t voluntary_ctxt_switches, nonvoluntary_ctxt_switches;
	uid_t uid;
};

int procfs_parse_stat(const char *buf, size_t len, struct procfs_stat *out);
int procfs_parse_io(const char *buf, size_t len, struct procfs_io *out);
int procfs_parse_status(const char *buf, size_t len, struct procfs_status *out);

/* sum += add, field by field. */
void procfs_io_add(struct procfs_io *sum, const struct procfs_io *add);

/* Read /proc/<pid>/{stat,io,status}: 0, or -1 with errno (ENOENT: gone). */
int procfs_read_stat(pid_t pid, struct procfs_stat *out);
int procfs_read_io(pid_t pid, struct procfs_io *out);
int procfs_read_status(pid_t pid, struct procfs_status *out);

/* Is gid the process's real/effective gid or one of its supplementary
 * groups (/proc/<pid>/status Gid: and Groups:)?  1 yes, 0 no or gone. */
int procfs_in_group(pid_t pid, gid_t gid);

/* /proc/<pid>/FILE (FILE may be "task/TID/stat") into buf, NUL-terminated;
 * its length, or -1 with errno.  For the readers in procfs_task.c. */
ssize_t procfs_read_text(pid_t pid, const char *file, char *buf, size_t cap);

/* The process's start time (from stat) on clk: CLOCK_REALTIME, _MONOTONIC... */
uint64_t procfs_start_ns(const struct procfs_stat *st, clockid_t clk);

/*
 * Is the process whose stat is st the one that started at start_mono_ns
 * (CLOCK_MONOTONIC, as a fork or exec record or an earlier stat gave it)?
 * /proc has the start in clock ticks: a start within two ticks is the
 * same.  An unknown start (0) is taken as the same.  A pid freed and
 * reused by another process fails: its start is later.
 */
bool procfs_same_start(const struct procfs_stat *st, uint64_t start_mono_ns);

/* /proc/<pid>/exe target into buf; -1 when gone or unreadable. */
int procfs_read_exe(pid_t pid, char *buf, size_t len);
/* /proc/<pid>/cmdline: NUL-separated bytes, returns length or -1. */
ssize_t procfs_read_cmdline(pid_t pid, char *buf, size_t len);

/*
 * The process's cgroups, paths relative to each hierarchy's root: the v2
 * one ("0::/path"; "" in a hybrid setup without v2 membership) and those
 * of the v1 controllers we read ("" when not mounted).  -1 when nothing
 * parses, or a path does not fit (ENAMETOOLONG): never a cut path.
 */
#define PROCFS_CGROUP_PATH 512
struct procfs_cgroup {
	char v2[PROCFS_CGROUP_PATH];
	char memory[PROCFS_CGROUP_PATH];
	char cpuacct[PROCFS_CGROUP_PATH];
	char cpu[PROCFS_CGROUP_PATH]; /* the CFS quota's controller */
	char blkio[PROCFS_CGROUP_PATH];
};
int procfs_parse_cgroup(const char *buf, size_t len, struct procfs_cgroup *out);
int procfs_read_cgroup(pid_t pid, struct procfs_cgroup *out);

/* All pids in /proc (numeric entries). Returns the count stored in pids,
 * at most max (== max: there may be more). */
size_t procfs_list_pids(pid_t *pids, size_t max);

#include "procfs_task.h"
#include "procfs_host.h"

#endif
