/*
 * cgroup_limits.h - what a job's own cgroup allows and how much its tasks
 * waited: the CPU and memory limits (v2 cpu.max, memory.max; v1
 * cpu.cfs_quota_us / cpu.cfs_period_us wherever the cpu controller is
 * mounted, with cpuacct or alone; memory.limit_in_bytes) and the pressure stall totals of a
 * v2 cgroup (cpu.pressure, memory.pressure, io.pressure; PSI, present in
 * every v2 cgroup of a kernel with CONFIG_PSI, controllers or not).
 */
#ifndef TRACER_CGROUP_LIMITS_H
#define TRACER_CGROUP_LIMITS_H

#include <stdint.h>

#include "cgroup.h"

struct cgroup_limits {
	uint64_t mem_bytes; /* 0: no limit */
	double cpus;        /* quota / period; 0: no limit */
};

/* Pressure stall totals in microseconds: [resource][0 some, 1 full]. */
enum { PSI_CPU, PSI_MEMORY, PSI_IO, PSI__N };
struct cgroup_pressure {
	uint64_t total_us[PSI__N][2];
};

/* Read the limits of ref's directories (a mounted v1 controller first,
 * as cgroup_read_stats).  0 when a limit was found, -1 when none. */
int cgroup_read_limits(const struct cgroup_ref *ref, struct cgroup_limits *l);
/* The pressure files of ref->v2.  0, or -1 when there are none. */
int cgroup_read_pressure(const struct cgroup_ref *ref, struct cgroup_pressure *p);

/* Pure parsers for unit tests. */
/* "max 100000" / "150000 100000" -> CPUs (0: unlimited); -1 on bad text. */
int cgroup_parse_cpu_max(const char *buf, double *cpus);
/* "some avg10=.. total=N\nfull ... total=M" -> some, full (full 0 when absent). */
int cgroup_parse_pressure(const char *buf, uint64_t *some_us, uint64_t *full_us);

#endif
