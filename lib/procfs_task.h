/*
 * procfs_task.h - readers of a process's threads, /proc/<pid>/task/<tid>/:
 * the kernel keeps some counters per thread only (a process's own I/O,
 * its threads' states, block I/O delay), so these walk the task directory.
 * Included by procfs.h.
 */
#ifndef TRACER_PROCFS_TASK_H
#define TRACER_PROCFS_TASK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct procfs_io;

/*
 * I/O of the process's own live threads, summed over /proc/<pid>/task/
 * (per-thread files).  /proc/<pid>/io is no good for one process: the
 * kernel adds the I/O of every child the process reaped to it.  0, or -1
 * when no thread could be read (gone).
 */
int procfs_read_threads_io(pid_t pid, struct procfs_io *sum);

/* What the threads of one process are doing now (/proc/<pid>/task/x/stat). */
struct procfs_threads {
	int read;             /* threads read */
	int running;          /* of them in state R (running or runnable) */
	int cpus[64];         /* the CPU of each running thread (the first 64) */
	uint64_t blkio_ticks; /* block I/O delay summed over the threads read */
};

/*
 * Read at most max_threads thread stat files of pid.  0, or -1 when the
 * process is gone.  The bound keeps one sample's cost independent of a
 * process's thread count: threads beyond it are not seen this time.
 */
int procfs_read_threads(pid_t pid, int max_threads, struct procfs_threads *out);

#endif
