/*
 * cgroup.c - a job's own cgroup counters (Slurm's job cgroup, a
 * container's cgroup).  The directories are found from the process's
 * /proc/PID/cgroup and the mount points in /proc/self/mountinfo, so any
 * layout works: pure v2 at /sys/fs/cgroup, hybrid (v1 controllers plus
 * an empty unified v2 tree), or a container that sees only its subtree.
 */
#include "cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "procfs.h"

#define PATH_LEN 512
#define SMALL_FILE 16384 /* io.stat: one line per device */

struct cg_mount {
	char dir[PATH_LEN];  /* mount point */
	char root[PATH_LEN]; /* the hierarchy subtree mounted there */
};

struct cg_mounts {
	struct cg_mount v2, memory, cpuacct, cpu, blkio;
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
	char *o = s;

	for (char *p = s; *p;) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' &&
		    p[2] <= '7' && p[3] >= '0' && p[3] <= '7') {
			*o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 +
				      (p[3] - '0'));
			p += 4;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
}

static int has_option(const char *opts, const char *name)
{
	size_t w = strlen(name);

	for (const char *p = opts; *p;) {
		size_t n = strcspn(p, ",");

		if (n == w && strncmp(p, name, w) == 0)
			return 1;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

static void keep_mount(struct cg_mount *m, const char *dir, const char *root)
{
	if (m->dir[0])
		return; /* the first mount wins, later ones are bind mounts */
	if (strlen(dir) >= sizeof(m->dir) || strlen(root) >= sizeof(m->root))
		return;
	snprintf(m->dir, sizeof(m->dir), "%s", dir);
	snprintf(m->root, sizeof(m->root), "%s", root);
}

/*
 * One mountinfo line:
 *   id parent maj:min root mountpoint options [optional...] - fstype source superopts
 */
static void mountinfo_line(char *line, struct cg_mounts *m)
{
	char *field[6], *save = NULL, *tok, *fstype, *superopts;
	int n = 0;

	for (tok = strtok_r(line, " \n", &save); tok && n < 6;
	     tok = strtok_r(NULL, " \n", &save))
		field[n++] = tok;
	if (n < 6)
		return;
	while (tok && strcmp(tok, "-") != 0)
		tok = strtok_r(NULL, " \n", &save);
	if (!tok)
		return;
	fstype = strtok_r(NULL, " \n", &save);
	if (!fstype || !strtok_r(NULL, " \n", &save))
		return;
	superopts = strtok_r(NULL, " \n", &save);
	if (!superopts)
		return;
	unescape_octal(field[3]);
	unescape_octal(field[4]);
	if (strcmp(fstype, "cgroup2") == 0) {
		keep_mount(&m->v2, field[4], field[3]);
	} else if (strcmp(fstype, "cgroup") == 0) {
		if (has_option(superopts, "memory"))
			keep_mount(&m->memory, field[4], field[3]);
		if (has_option(superopts, "cpuacct"))
			keep_mount(&m->cpuacct, field[4], field[3]);
		/* "cpu" alone or beside cpuacct: hosts mount it either way */
		if (has_option(superopts, "cpu"))
			keep_mount(&m->cpu, field[4], field[3]);
		if (has_option(superopts, "blkio"))
			keep_mount(&m->blkio, field[4], field[3]);
	}
}

static int read_mounts(struct cg_mounts *m)
{
	char line[4096];
	FILE *f;

	memset(m, 0, sizeof(*m));
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		mountinfo_line(line, m);
	fclose(f);
	return 0;
}

/*
 * Directory of cgroup path cg in the hierarchy mounted at m: the mount
 * shows the subtree m->root, so cg must lie under it.  "" otherwise.
 */
static void resolve_dir(const struct cg_mount *m, const char *cg, char *out,
			size_t len)
{
	size_t rl = strlen(m->root);
	const char *rest = cg;
	int n;

	out[0] = '\0';
	if (!m->dir[0] || !cg[0])
		return;
	if (strcmp(m->root, "/") != 0) {
		if (strncmp(cg, m->root, rl) != 0 ||
		    (cg[rl] != '\0' && cg[rl] != '/'))
			return;
		rest = cg + rl;
	}
	if (strcmp(rest, "/") == 0)
		rest = "";
	n = snprintf(out, len, "%s%s", m->dir, rest);
	if (n < 0 || (size_t)n >= len)
		out[0] = '\0';
}

/*
 * tracerd looks at the cgroups of every registration: the mount table
 * changes rarely and may be long (containers), so it is parsed at most
 * once a second.  One caller at a time (tracerd's loop, single-threaded
 * programs).
 */
#define MOUNTS_TTL_NS 1000000000ull

static int read_mounts_cached(struct cg_mounts *m)
{
	static struct cg_mounts cache;
	static uint64_t read_at;
	uint64_t now = clock_mono_ns();

	if (!read_at || now - read_at >= MOUNTS_TTL_NS) {
		if (read_mounts(&cache) != 0)
			return -1;
		read_at = now;
	}
	*m = cache;
	return 0;
}

int cgroup_ref_for_pid(int pid, struct cgroup_ref *ref)
{
	struct procfs_cgroup cg;
	struct cg_mounts m;

	memset(ref, 0, sizeof(*ref));
	if (procfs_read_cgroup(pid, &cg) < 0 || read_mounts_cached(&m) < 0)
		return -1;
	resolve_dir(&m.v2, cg.v2, ref->v2, sizeof(ref->v2));
	resolve_dir(&m.memory, cg.memory, ref->mem_v1, sizeof(ref->mem_v1));
	resolve_dir(&m.cpuacct, cg.cpuacct, ref->cpu_v1, sizeof(ref->cpu_v1));
	resolve_dir(&m.cpu, cg.cpu, ref->cpuctl_v1, sizeof(ref->cpuctl_v1));
	resolve_dir(&m.blkio, cg.blkio, ref->blkio_v1, sizeof(ref->blkio_v1));
	if (!ref->v2[0] && !ref->mem_v1[0] && !ref->cpu_v1[0] &&
	    !ref->cpuctl_v1[0] && !ref->blkio_v1[0]) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int cgroup_ref_for_path(const char *cg, struct cgroup_ref *ref)
{
	struct cg_mounts m;
	char *dirs[] = {ref->v2, ref->mem_v1, ref->cpu_v1, ref->cpuctl_v1, ref->blkio_v1};

	memset(ref, 0, sizeof(*ref));
	if (read_mounts_cached(&m) < 0)
		return -1;
	resolve_dir(&m.v2, cg, ref->v2, sizeof(ref->v2));
	resolve_dir(&m.memory, cg, ref->mem_v1, sizeof(ref->mem_v1));
	resolve_dir(&m.cpuacct, cg, ref->cpu_v1, sizeof(ref->cpu_v1));
	resolve_dir(&m.cpu, cg, ref->cpuctl_v1, sizeof(ref->cpuctl_v1));
	resolve_dir(&m.blkio, cg, ref->blkio_v1, sizeof(ref->blkio_v1));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (dirs[i][0] && access(dirs[i], F_OK) != 0)
			dirs[i][0] = '\0';
	return ref->v2[0] || ref->mem_v1[0] || ref->cpu_v1[0] || ref->cpuctl_v1[0] ||
	       ref->blkio_v1[0] ? 0 : -1;
}

int cgroup_read_file(const char *dir, const char *file, char *buf, size_t cap)
{
	char path[PATH_LEN + 64];
	size_t len = 0;
	int fd, n;

	n = snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (len < cap - 1) {
		ssize_t r = read(fd, buf + len, cap - 1 - len);

		if (r == 0)
			break;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	return 0;
}

static int parse_number(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || (*end && *end != '\n' && *end != ' '))
		return -1;
	*out = v;
	return 0;
}

static int read_u64(const char *dir, const char *file, uint64_t *out)
{
	char buf[64];

	if (cgroup_read_file(dir, file, buf, sizeof(buf)) < 0)
		return -1;
	return parse_number(buf, out);
}

/* The value of "key N" in a flat keyed file (cpu.stat, memory.events). */
static int keyed_value(const char *buf, const char *key, uint64_t *out)
{
	size_t w = strlen(key);

	for (const char *p = buf; *p;) {
		if (strncmp(p, key, w) == 0 && p[w] == ' ')
			return parse_number(p + w + 1, out);
		p += strcspn(p, "\n");
		if (*p == '\n')
			p++;
	}
	return -1;
}

int cgroup_parse_cpu_stat(const char *buf, uint64_t *usage_ns)
{
	uint64_t us;

	if (!buf || keyed_value(buf, "usage_usec", &us) < 0 ||
	    us > UINT64_MAX / 1000)
		return -1;
	*usage_ns = us * 1000;
	return 0;
}

/* "8:0 rbytes=1 wbytes=2 rios=3 ...", one line per device: summed. */
int cgroup_parse_io_stat(const char *buf, uint64_t *rbytes, uint64_t *wbytes)
{
	*rbytes = *wbytes = 0;
	if (!buf)
		return -1;
	for (const char *p = buf; *p;) {
		size_t n = strcspn(p, "\n");

		for (const char *q = p; q < p + n; q++) {
			uint64_t v;

			if (q != p && q[-1] != ' ')
				continue;
			if (strncmp(q, "rbytes=", 7) == 0 &&
			    parse_number(q + 7, &v) == 0)
				*rbytes += v;
			else if (strncmp(q, "wbytes=", 7) == 0 &&
				 parse_number(q + 7, &v) == 0)
				*wbytes += v;
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	return 0;
}

/* "8:0 Read 4096" per device and operation; the device-less "Total" is skipped. */
int cgroup_parse_blkio_v1(const char *buf, uint64_t *rbytes, uint64_t *wbytes)
{
	*rbytes = *wbytes = 0;
	if (!buf)
		return -1;
	for (const char *p = buf; *p;) {
		size_t n = strcspn(p, "\n");
		char line[128];

		if (n < sizeof(line)) {
			char dev[32], op[16];
			unsigned long long v;

			memcpy(line, p, n);
			line[n] = '\0';
			if (sscanf(line, "%31s %15s %llu", dev, op, &v) == 3 &&
			    strchr(dev, ':')) {
				if (strcmp(op, "Read") == 0)
					*rbytes += v;
				else if (strcmp(op, "Write") == 0)
					*wbytes += v;
			}
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	return 0;
}

static void read_v1(const struct cgroup_ref *ref, struct cgroup_stats *st)
{
	char buf[SMALL_FILE];
	uint64_t v;

	if (ref->cpu_v1[0] && read_u64(ref->cpu_v1, "cpuacct.usage", &v) == 0) {
		st->cpu_ns = v;
		st->have_cpu = true;
	}
	if (ref->mem_v1[0] &&
	    read_u64(ref->mem_v1, "memory.usage_in_bytes", &v) == 0) {
		st->mem_current_bytes = v;
		st->mem_peak_bytes = v;
		st->have_mem = true;
		if (read_u64(ref->mem_v1, "memory.max_usage_in_bytes", &v) == 0)
			st->mem_peak_bytes = v;
		if (cgroup_read_file(ref->mem_v1, "memory.oom_control", buf,
			       sizeof(buf)) == 0 &&
		    keyed_value(buf, "oom_kill", &v) == 0)
			st->oom_kills = v;
	}
	if (ref->blkio_v1[0] &&
	    (cgroup_read_file(ref->blkio_v1, "blkio.throttle.io_service_bytes_recursive",
			buf, sizeof(buf)) == 0 ||
	     cgroup_read_file(ref->blkio_v1, "blkio.throttle.io_service_bytes", buf,
			sizeof(buf)) == 0) &&
	    cgroup_parse_blkio_v1(buf, &st->io_read_bytes,
				  &st->io_write_bytes) == 0)
		st->have_io = true;
}

static void read_v2(const struct cgroup_ref *ref, struct cgroup_stats *st)
{
	char buf[SMALL_FILE];
	uint64_t v;

	if (!st->have_cpu && cgroup_read_file(ref->v2, "cpu.stat", buf, sizeof(buf)) == 0 &&
	    cgroup_parse_cpu_stat(buf, &st->cpu_ns) == 0)
		st->have_cpu = true;
	if (!st->have_mem && read_u64(ref->v2, "memory.current", &v) == 0) {
		st->mem_current_bytes = v;
		st->mem_peak_bytes = v; /* memory.peak appeared in 5.19 */
		st->have_mem = true;
		if (read_u64(ref->v2, "memory.peak", &v) == 0)
			st->mem_peak_bytes = v;
		if (cgroup_read_file(ref->v2, "memory.events", buf, sizeof(buf)) == 0 &&
		    keyed_value(buf, "oom_kill", &v) == 0)
			st->oom_kills = v;
	}
	if (!st->have_io && cgroup_read_file(ref->v2, "io.stat", buf, sizeof(buf)) == 0 &&
	    cgroup_parse_io_stat(buf, &st->io_read_bytes, &st->io_write_bytes) == 0)
		st->have_io = true;
}

int cgroup_read_stats(const struct cgroup_ref *ref, struct cgroup_stats *st)
{
	memset(st, 0, sizeof(*st));
	/* a mounted v1 controller is where the accounting happens */
	read_v1(ref, st);
	if (ref->v2[0])
		read_v2(ref, st);
	return st->have_cpu || st->have_mem || st->have_io ? 0 : -1;
}

bool cgroup_has_children(const char *dir)
{
	char buf[256];
	const char *p;

	if (cgroup_read_file(dir, "cgroup.stat", buf, sizeof(buf)) < 0 ||
	    !(p = strstr(buf, "nr_descendants ")))
		return true;
	return strtoull(p + strlen("nr_descendants "), NULL, 10) != 0;
}

int cgroup_read_procs(const char *dir, pid_t *pids, size_t max)
{
	char buf[1024];
	size_t n = 0;
	char *p, *end;

	/* max pids of up to 7 digits fill less than the buffer: a full
	 * buffer means more than the caller wants to know */
	if (max > 100)
		max = 100;
	if (cgroup_read_file(dir, "cgroup.procs", buf, sizeof(buf)) < 0)
		return -1;
	if (strlen(buf) >= sizeof(buf) - 1)
		return -2;
	for (p = buf; *p;) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (n == max)
			return -2;
		if (v > 0)
			pids[n++] = (pid_t)v;
		p = end;
		while (*p == '\n' || *p == ' ')
			p++;
	}
	return (int)n;
}
