/*
 * cgroup_limits.c - a job cgroup's CPU and memory limits and its pressure
 * stall totals (cgroup_limits.h).  A handful of small files per reading,
 * read at the sampling tick only for jobs that have a cgroup of their own.
 */
#include "cgroup_limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v1 writes "no limit" as a page-rounded LONG_MAX, v2 as "max" */
#define NO_LIMIT_ABOVE (1ull << 60)

static int read_num(const char *dir, const char *file, long long *out)
{
	char buf[64], *end;
	long long v;

	if (cgroup_read_file(dir, file, buf, sizeof(buf)) < 0)
		return -1;
	if (!strncmp(buf, "max", 3)) {
		*out = -1;
		return 0;
	}
	v = strtoll(buf, &end, 10);
	if (end == buf || (*end && *end != '\n'))
		return -1;
	*out = v;
	return 0;
}

int cgroup_parse_cpu_max(const char *buf, double *cpus)
{
	char *end;
	double quota, period;

	*cpus = 0;
	if (!strncmp(buf, "max", 3))
		return 0;
	quota = strtod(buf, &end);
	if (end == buf || *end != ' ')
		return -1;
	period = strtod(end + 1, &end);
	if (period <= 0 || quota <= 0 || (*end && *end != '\n'))
		return -1;
	*cpus = quota / period;
	return 0;
}

int cgroup_read_limits(const struct cgroup_ref *ref, struct cgroup_limits *l)
{
	char buf[64];
	long long v, period;

	memset(l, 0, sizeof(*l));
	if (ref->mem_v1[0]) {
		if (read_num(ref->mem_v1, "memory.limit_in_bytes", &v) == 0 && v > 0 &&
		    (unsigned long long)v < NO_LIMIT_ABOVE)
			l->mem_bytes = (uint64_t)v;
	} else if (ref->v2[0] && read_num(ref->v2, "memory.max", &v) == 0 && v > 0) {
		l->mem_bytes = (uint64_t)v;
	}
	/* v1 cpu quota: wherever the cpu controller is mounted, with
	 * cpuacct ("cpu,cpuacct") or alone ("cpu") */
	if (ref->cpuctl_v1[0]) {
		if (read_num(ref->cpuctl_v1, "cpu.cfs_quota_us", &v) == 0 && v > 0 &&
		    read_num(ref->cpuctl_v1, "cpu.cfs_period_us", &period) == 0 && period > 0)
			l->cpus = (double)v / (double)period;
	} else if (ref->v2[0] && cgroup_read_file(ref->v2, "cpu.max", buf, sizeof(buf)) == 0) {
		cgroup_parse_cpu_max(buf, &l->cpus);
	}
	return l->mem_bytes || l->cpus > 0 ? 0 : -1;
}

/* total=N of the line starting with word ("some", "full"); 0 found. */
static int pressure_total(const char *buf, const char *word, uint64_t *out)
{
	size_t wl = strlen(word);

	for (const char *line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *t, *eol;
		char *end;
		unsigned long long v;

		if (strncmp(line, word, wl) || line[wl] != ' ')
			continue;
		eol = strchr(line, '\n');
		t = strstr(line, " total=");
		if (!t || (eol && t > eol))
			return -1;
		v = strtoull(t + 7, &end, 10);
		if (end == t + 7)
			return -1;
		*out = v;
		return 0;
	}
	return -1;
}

int cgroup_parse_pressure(const char *buf, uint64_t *some_us, uint64_t *full_us)
{
	*some_us = *full_us = 0;
	if (pressure_total(buf, "some", some_us) != 0)
		return -1;
	pressure_total(buf, "full", full_us); /* cpu has none before 5.13 */
	return 0;
}

int cgroup_read_pressure(const struct cgroup_ref *ref, struct cgroup_pressure *p)
{
	static const char *const file[PSI__N] = {"cpu.pressure", "memory.pressure", "io.pressure"};
	char buf[512];
	int got = 0;

	memset(p, 0, sizeof(*p));
	if (!ref->v2[0])
		return -1;
	for (int r = 0; r < PSI__N; r++)
		if (cgroup_read_file(ref->v2, file[r], buf, sizeof(buf)) == 0 &&
		    cgroup_parse_pressure(buf, &p->total_us[r][0], &p->total_us[r][1]) == 0)
			got++;
	return got ? 0 : -1;
}
