/*
 * proctree.c - snapshots of /proc for standalone mode (see proctree.h).
 * Every stat line goes through lib's one parser (procfs_read_stat).
 */
#include "proctree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* Grow a buffer of n elements of size sz to at least want; false on OOM. */
static bool grow(void **buf, size_t *cap, size_t want, size_t sz)
{
	size_t n = *cap ? *cap : 256;
	void *p;

	while (n < want)
		n *= 2;
	if (n == *cap)
		return true;
	p = realloc(*buf, n * sz);
	if (!p)
		return false;
	*buf = p;
	*cap = n;
	return true;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct procfs_stat *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

void proctree_scan(struct proctree *t)
{
	size_t npids;

	/* a full list may have been cut: grow until it fits */
	for (size_t want = 1;; want = t->pids_cap * 2) {
		if (!grow((void **)&t->pids, &t->pids_cap, want,
			  sizeof(*t->pids))) {
			log_warn("out of memory listing /proc: snapshot kept");
			return;
		}
		npids = procfs_list_pids(t->pids, t->pids_cap);
		if (npids < t->pids_cap)
			break;
	}
	if (npids == 0) {
		log_warn("no process listed in /proc: snapshot kept");
		return;
	}
	if (!grow((void **)&t->v, &t->cap, npids, sizeof(*t->v))) {
		log_warn("out of memory scanning /proc: %zu processes", npids);
		return;
	}
	t->n = 0;
	for (size_t i = 0; i < npids; i++)
		if (procfs_read_stat(t->pids[i], &t->v[t->n]) == 0)
			t->n++; /* gone since the listing: not an error */
	qsort(t->v, t->n, sizeof(*t->v), cmp_pid);
}

static const struct procfs_stat *lookup(const struct proctree *t, pid_t pid)
{
	struct procfs_stat key = {.pid = pid};

	return bsearch(&key, t->v, t->n, sizeof(key), cmp_pid);
}

bool proctree_descends(const struct proctree *t, const struct procfs_stat *p,
		       pid_t root)
{
	/* bounded: a ppid loop in a racy snapshot must not hang us */
	for (size_t depth = 0; p && depth <= t->n; depth++) {
		if (p->ppid == root)
			return true;
		if (p->ppid <= 1)
			return false;
		p = lookup(t, p->ppid);
	}
	return false;
}

void proctree_free(struct proctree *t)
{
	free(t->v);
	free(t->pids);
	memset(t, 0, sizeof(*t));
}
