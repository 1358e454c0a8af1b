/*
 * proctree.h - one snapshot of every process in /proc, enough to tell
 * which ones descend from the wrapper and how much CPU their reaped
 * children used (cutime/cstime, which procfs_stat does not carry).
 */
#ifndef TRACER_WRAP_PROCTREE_H
#define TRACER_WRAP_PROCTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pstat {
	pid_t pid, ppid;
	char state;
	char comm[16];
	uint64_t minflt, cminflt, majflt, cmajflt;
	uint64_t utime, stime, cutime, cstime; /* clock ticks */
	uint64_t start;                        /* ticks since boot */
	uint64_t rss_pages;
};

struct proctree {
	struct pstat *v; /* sorted by pid */
	size_t n, cap;
};

/* /proc/<pid>/stat: 0, or -1 when gone or unreadable. */
int pstat_read(pid_t pid, struct pstat *st);
/* Pure parser of one stat line (for the unit tests too). */
int pstat_parse(const char *buf, pid_t pid, struct pstat *st);

/* Read every process; keeps the previous snapshot on a hard failure. */
void proctree_scan(struct proctree *t);
/* Is p a descendant of root in this snapshot? */
bool proctree_descends(const struct proctree *t, const struct pstat *p,
		       pid_t root);
void proctree_free(struct proctree *t);

#endif
