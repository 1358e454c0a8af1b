/*
 * proctree.c - snapshots of /proc for standalone mode (see proctree.h).
 * The stat line is parsed here rather than with procfs_read_stat because
 * the children times (cutime, cstime) are what lets the sampler account
 * for processes that ended between two samples.
 */
#include "proctree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

int pstat_parse(const char *buf, pid_t pid, struct pstat *st)
{
	const char *open_p, *close_p;
	unsigned long long v[6];
	long long t[4];
	size_t clen;
	int ppid;

	/* comm may hold spaces and parentheses: it ends at the last ')' */
	open_p = strchr(buf, '(');
	close_p = strrchr(buf, ')');
	if (!open_p || !close_p || close_p < open_p || close_p[1] != ' ')
		return -1;
	clen = (size_t)(close_p - open_p - 1);
	if (clen >= sizeof(st->comm))
		clen = sizeof(st->comm) - 1;
	memcpy(st->comm, open_p + 1, clen);
	st->comm[clen] = '\0';
	if (sscanf(close_p + 2,
		   "%c %d %*d %*d %*d %*d %*u %llu %llu %llu %llu %lld %lld "
		   "%lld %lld %*d %*d %*d %*d %llu %*u %llu",
		   &st->state, &ppid, &v[0], &v[1], &v[2], &v[3], &t[0], &t[1],
		   &t[2], &t[3], &v[4], &v[5]) != 12)
		return -1;
	st->pid = pid;
	st->ppid = ppid;
	st->minflt = v[0];
	st->cminflt = v[1];
	st->majflt = v[2];
	st->cmajflt = v[3];
	st->utime = t[0] > 0 ? (uint64_t)t[0] : 0;
	st->stime = t[1] > 0 ? (uint64_t)t[1] : 0;
	st->cutime = t[2] > 0 ? (uint64_t)t[2] : 0;
	st->cstime = t[3] > 0 ? (uint64_t)t[3] : 0;
	st->start = v[4];
	st->rss_pages = v[5];
	return 0;
}

int pstat_read(pid_t pid, struct pstat *st)
{
	char path[40], buf[1024];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return pstat_parse(buf, pid, st);
}

static int cmp_pid(const void *a, const void *b)
{
	const struct pstat *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

void proctree_scan(struct proctree *t)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char *end;
	long pid;

	if (!d) {
		log_warn("opendir /proc: %s", strerror(errno));
		return;
	}
	t->n = 0;
	while ((de = readdir(d))) {
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 256;
			struct pstat *p = realloc(t->v, cap * sizeof(*p));

			if (!p) {
				log_warn("out of memory scanning /proc: %zu "
					 "processes seen", t->n);
				break;
			}
			t->v = p;
			t->cap = cap;
		}
		if (pstat_read((pid_t)pid, &t->v[t->n]) == 0)
			t->n++;
	}
	closedir(d);
	qsort(t->v, t->n, sizeof(*t->v), cmp_pid);
}

static const struct pstat *lookup(const struct proctree *t, pid_t pid)
{
	struct pstat key = {.pid = pid};

	return bsearch(&key, t->v, t->n, sizeof(key), cmp_pid);
}

bool proctree_descends(const struct proctree *t, const struct pstat *p,
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
	t->v = NULL;
	t->n = t->cap = 0;
}
