/*
 * procfs_host.h - host-wide /proc files: the CPU time of all CPUs
 * (/proc/stat).  Included by procfs.h.
 */
#ifndef TRACER_PROCFS_HOST_H
#define TRACER_PROCFS_HOST_H

#include <stddef.h>
#include <stdint.h>

/* Clock ticks of all CPUs since boot: busy (user, nice, system, irq,
 * softirq, steal) and the total with idle and iowait. */
struct procfs_cpu_ticks {
	uint64_t busy, total;
};

/* The "cpu " line of /proc/stat.  0, or -1 on text that does not parse. */
int procfs_parse_cpu_ticks(const char *buf, size_t len, struct procfs_cpu_ticks *out);
int procfs_read_cpu_ticks(struct procfs_cpu_ticks *out);

#endif
