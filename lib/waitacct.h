/*
 * waitacct.h - what the host can tell about time spent waiting: per-task
 * run-queue delay (CONFIG_SCHED_INFO, read at exit by the BPF programs),
 * delay accounting (per-task I/O and other delays, only when
 * kernel.task_delayacct is on) and PSI (host and cgroup v2 *.pressure).
 * Probed once at start; shown by `tracer status`.
 */
#ifndef TRACER_WAITACCT_H
#define TRACER_WAITACCT_H

#include <stdbool.h>
#include <cjson/cJSON.h>

struct wait_accounting {
	bool run_delay;   /* /proc/self/schedstat exists (run_delay kept) */
	int delayacct;    /* kernel.task_delayacct: -1 not built, 0 off, 1 on */
	bool psi_host;    /* /proc/pressure/cpu readable */
	bool psi_cgroup;  /* cgroup v2 pressure files (cgroup.pressure, cpu.pressure) */
};

void waitacct_probe(struct wait_accounting *w);
cJSON *waitacct_json(const struct wait_accounting *w);

#endif
