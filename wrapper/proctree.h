/*
 * proctree.h - one snapshot of every process in /proc, enough to tell
 * which ones descend from the wrapper (standalone mode's tracker).
 */
#ifndef TRACER_WRAP_PROCTREE_H
#define TRACER_WRAP_PROCTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "procfs.h"

struct proctree {
	struct procfs_stat *v; /* sorted by pid */
	size_t n, cap;
	pid_t *pids;           /* scratch list of /proc entries */
	size_t pids_cap;
};

/* Read every process; keeps the previous snapshot on a hard failure. */
void proctree_scan(struct proctree *t);
/* Is p a descendant of root in this snapshot? */
bool proctree_descends(const struct proctree *t, const struct procfs_stat *p,
		       pid_t root);
void proctree_free(struct proctree *t);

#endif
