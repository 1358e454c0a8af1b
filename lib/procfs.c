/*
 * procfs.c - /proc/<pid> readers for live processes (sampling, standalone
 * mode).  The parsers never trust the text: comm may hold spaces and
 * parentheses (the comm ends at the LAST ')'), numbers may be missing,
 * files may be cut short or vanish between open and read.
 */
#include "procfs.h"

#include "clock.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STAT_BUF 4096
#define STATUS_MAX (1u << 20) /* /proc/PID/status grows with CPU and node masks */

/* Parse an unsigned decimal at *p (bounded by end); advances *p. */
static int parse_u64(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (s >= end || !isdigit((unsigned char)*s))
		return -1;
	for (; s < end && isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return 0;
}

/* A signed decimal (stat has a few negative fields). */
static int parse_i64(const char **p, const char *end, int64_t *out)
{
	const char *s = *p;
	uint64_t v;
	int neg = 0;

	if (s < end && *s == '-') {
		neg = 1;
		s++;
	}
	if (parse_u64(&s, end, &v) < 0 || v > (uint64_t)INT64_MAX)
		return -1;
	*p = s;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static void skip_spaces(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

/* Fields 39 (processor) and 42 (delayacct_blkio_ticks), p just after
 * field 24; -1 / 0 when the line is shorter (old kernels) or cut.  Fields
 * 25-38 and 40-41 are skipped as words: some are unsigned 64-bit values
 * that do not fit an int64. */
static void skip_words(const char **p, const char *end, int n)
{
	for (int i = 0; i < n && *p < end && **p != '\n'; i++) {
		skip_spaces(p, end);
		while (*p < end && **p != ' ' && **p != '\n')
			(*p)++;
	}
}

static void stat_tail(const char *p, const char *end, struct procfs_stat *out)
{
	int64_t v;
	uint64_t blkio;

	out->processor = -1;
	skip_words(&p, end, 14); /* 25..38 */
	skip_spaces(&p, end);
	if (parse_i64(&p, end, &v) < 0 || v < 0 || v > 65535)
		return;
	if (p >= end || (*p != ' ' && *p != '\n'))
		return;
	out->processor = (int)v;
	skip_words(&p, end, 2); /* 40, 41 */
	skip_spaces(&p, end);
	if (parse_u64(&p, end, &blkio) == 0 && p < end && (*p == ' ' || *p == '\n'))
		out->blkio_ticks = blkio;
}

int procfs_parse_stat(const char *buf, size_t len, struct procfs_stat *out)
{
	/* fields after comm, numbered as in proc(5): 3 = state ... 24 = rss */
	int64_t f[25];
	const char *p = buf, *end = buf + len, *open, *close = NULL;
	uint64_t pid;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!buf)
		return -1;
	if (parse_u64(&p, end, &pid) < 0 || pid > INT32_MAX)
		return -1;
	skip_spaces(&p, end);
	if (p >= end || *p != '(')
		return -1;
	open = p;
	for (const char *q = open + 1; q < end; q++)
		if (*q == ')')
			close = q;
	if (!close)
		return -1;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(out->comm))
		n = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, n);
	out->comm[n] = '\0';
	out->pid = (pid_t)pid;

	p = close + 1;
	skip_spaces(&p, end);
	if (p >= end || !isalpha((unsigned char)*p))
		return -1;
	out->state = *p++;
	for (int i = 4; i <= 24; i++) {
		if (p >= end || (*p != ' ' && *p != '\t'))
			return -1;
		skip_spaces(&p, end);
		if (parse_i64(&p, end, &f[i]) < 0)
			return -1;
	}
	/* a number at the very end may have been cut by a short read */
	if (p >= end || (*p != ' ' && *p != '\n'))
		return -1;
	if (f[4] < 0 || f[10] < 0 || f[11] < 0 || f[12] < 0 || f[13] < 0 ||
	    f[14] < 0 || f[15] < 0 || f[22] < 0)
		return -1;
	out->ppid = (pid_t)f[4];
	out->minflt = (uint64_t)f[10];
	out->cminflt = (uint64_t)f[11];
	out->majflt = (uint64_t)f[12];
	out->cmajflt = (uint64_t)f[13];
	out->utime_ticks = (uint64_t)f[14];
	out->stime_ticks = (uint64_t)f[15];
	/* signed in the kernel's format; never negative in practice */
	out->cutime_ticks = f[16] > 0 ? (uint64_t)f[16] : 0;
	out->cstime_ticks = f[17] > 0 ? (uint64_t)f[17] : 0;
	out->num_threads = (long)f[20];
	out->start_ticks = (uint64_t)f[22];
	out->rss_pages = f[24] > 0 ? (uint64_t)f[24] : 0;
	stat_tail(p, end, out);
	return 0;
}

/*
 * Walk "Key: value" lines.  For each line, cb gets the key (not
 * terminated, klen bytes) and the value text up to the end of the line.
 * Returns how many lines cb recognised.
 */
typedef int (*kv_fn)(void *ctx, const char *key, size_t klen, const char *v,
		     const char *vend);

static int walk_kv(const char *buf, size_t len, kv_fn cb, void *ctx)
{
	const char *p = buf, *end = buf + len;
	int found = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *colon;

		if (!eol)
			break; /* an unterminated last line may have been cut */
		colon = memchr(p, ':', (size_t)(eol - p));
		if (colon) {
			const char *v = colon + 1;

			skip_spaces(&v, eol);
			found += cb(ctx, p, (size_t)(colon - p), v, eol);
		}
		p = eol + 1;
	}
	return found;
}

static int key_is(const char *key, size_t klen, const char *name)
{
	return strlen(name) == klen && memcmp(key, name, klen) == 0;
}

static int io_field(void *ctx, const char *key, size_t klen, const char *v,
		    const char *vend)
{
	struct procfs_io *io = ctx;
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
		{"rchar", offsetof(struct procfs_io, rchar)},
		{"wchar", offsetof(struct procfs_io, wchar)},
		{"syscr", offsetof(struct procfs_io, syscr)},
		{"syscw", offsetof(struct procfs_io, syscw)},
		{"read_bytes", offsetof(struct procfs_io, read_bytes)},
		{"write_bytes", offsetof(struct procfs_io, write_bytes)},
		{"cancelled_write_bytes",
		 offsetof(struct procfs_io, cancelled_write_bytes)},
	};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (key_is(key, klen, fields[i].name))
			return parse_u64(&v, vend,
					 (uint64_t *)((char *)io + fields[i].off)) == 0;
	return 0;
}

void procfs_io_add(struct procfs_io *sum, const struct procfs_io *add)
{
	sum->rchar += add->rchar;
	sum->wchar += add->wchar;
	sum->syscr += add->syscr;
	sum->syscw += add->syscw;
	sum->read_bytes += add->read_bytes;
	sum->write_bytes += add->write_bytes;
	sum->cancelled_write_bytes += add->cancelled_write_bytes;
}

int procfs_parse_io(const char *buf, size_t len, struct procfs_io *out)
{
	memset(out, 0, sizeof(*out));
	if (!buf)
		return -1;
	/* missing fields stay 0; nothing recognised at all is an error */
	return walk_kv(buf, len, io_field, out) > 0 ? 0 : -1;
}

static int status_field(void *ctx, const char *key, size_t klen, const char *v,
			const char *vend)
{
	struct procfs_status *st = ctx;
	uint64_t x;

	if (parse_u64(&v, vend, &x) < 0)
		return 0;
	if (key_is(key, klen, "VmRSS"))
		st->vm_rss_kb = x;
	else if (key_is(key, klen, "VmHWM"))
		st->vm_hwm_kb = x;
	else if (key_is(key, klen, "Tgid") && x <= INT32_MAX)
		st->tgid = (pid_t)x;
	else if (key_is(key, klen, "Threads"))
		st->threads = (long)x;
	else if (key_is(key, klen, "voluntary_ctxt_switches"))
		st->voluntary_ctxt_switches = x;
	else if (key_is(key, klen, "nonvoluntary_ctxt_switches"))
		st->nonvoluntary_ctxt_switches = x;
	else if (key_is(key, klen, "Uid") && x <= UINT32_MAX)
		st->uid = (uid_t)x; /* the real uid comes first */
	else
		return 0;
	return 1;
}

int procfs_parse_status(const char *buf, size_t len, struct procfs_status *out)
{
	memset(out, 0, sizeof(*out));
	out->uid = (uid_t)-1;
	if (!buf)
		return -1;
	/* kernel threads have no Vm* lines: whatever is there is fine */
	return walk_kv(buf, len, status_field, out) > 0 ? 0 : -1;
}

static void pid_path(char *buf, size_t len, pid_t pid, const char *file)
{
	snprintf(buf, len, "/proc/%d/%s", (int)pid, file);
}

/*
 * Up to len raw bytes of /proc/PID/FILE, no terminator added.  Returns
 * the count, or -1 with errno.  Short reads are retried until EOF.
 */
static ssize_t read_pid_file(pid_t pid, const char *file, char *buf,
			     size_t len)
{
	char path[64];
	size_t got = 0;
	int fd, saved;

	pid_path(path, sizeof(path), pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	return (ssize_t)got;
}

/* /proc/PID/FILE as text in buf (cap bytes, NUL-terminated): the length or -1. */
ssize_t procfs_read_text(pid_t pid, const char *file, char *buf, size_t cap)
{
	ssize_t n;

	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	n = read_pid_file(pid, file, buf, cap - 1);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* A file that was read but does not parse is EINVAL to the caller. */
static int parsed(int rc)
{
	if (rc < 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int procfs_read_stat(pid_t pid, struct procfs_stat *out)
{
	char buf[STAT_BUF];
	ssize_t n = procfs_read_text(pid, "stat", buf, sizeof(buf));

	return n < 0 ? -1 : parsed(procfs_parse_stat(buf, (size_t)n, out));
}

int procfs_read_io(pid_t pid, struct procfs_io *out)
{
	char buf[STAT_BUF];
	ssize_t n = procfs_read_text(pid, "io", buf, sizeof(buf));

	return n < 0 ? -1 : parsed(procfs_parse_io(buf, (size_t)n, out));
}

/*
 * status can be tens of KiB on machines with many CPUs or NUMA nodes:
 * read with a growing buffer until the file fits.
 */
int procfs_read_status(pid_t pid, struct procfs_status *out)
{
	char *buf = NULL, *nb;
	size_t cap = 8192;
	ssize_t n = -1;
	int ret = -1, saved;

	for (; cap <= STATUS_MAX; cap *= 2) {
		nb = realloc(buf, cap);
		if (!nb)
			goto out;
		buf = nb;
		n = procfs_read_text(pid, "status", buf, cap);
		if (n < 0 || (size_t)n < cap - 1)
			break;
	}
	if (n < 0)
		goto out;
	ret = parsed(procfs_parse_status(buf, (size_t)n, out));
out:
	saved = errno;
	free(buf);
	errno = saved;
	return ret;
}

uint64_t procfs_start_ns(const struct procfs_stat *st, clockid_t clk)
{
	return clock_from_boot(clk, clock_ticks_ns(st->start_ticks));
}

bool procfs_same_start(const struct procfs_stat *st, uint64_t start_mono_ns)
{
	uint64_t at, slack = 2 * clock_ticks_ns(1);

	if (!start_mono_ns)
		return true;
	at = procfs_start_ns(st, CLOCK_MONOTONIC);
	return at + slack >= start_mono_ns && at <= start_mono_ns + slack;
}

int procfs_read_exe(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	if (!buf || len == 0) {
		errno = EINVAL;
		return -1;
	}
	pid_path(path, sizeof(path), pid, "exe");
	n = readlink(path, buf, len);
	if (n < 0)
		return -1;
	if ((size_t)n >= len) {
		buf[len - 1] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

ssize_t procfs_read_cmdline(pid_t pid, char *buf, size_t len)
{
	if (!buf || len == 0) {
		errno = EINVAL;
		return -1;
	}
	/* raw bytes, no terminator added: the caller gets exactly argv */
	return read_pid_file(pid, "cmdline", buf, len);
}

/* Copy a path of n bytes; -1 when it does not fit. */
static int copy_path(char *dst, size_t cap, const char *s, size_t n)
{
	if (!dst || cap == 0)
		return 0;
	if (n >= cap) {
		dst[0] = '\0';
		return -1;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* Is name one of the comma-separated controllers in list (n bytes)? */
static int has_controller(const char *list, size_t n, const char *name)
{
	size_t w = strlen(name);
	const char *p = list, *end = list + n;

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t len = comma ? (size_t)(comma - p) : (size_t)(end - p);

		if (len == w && memcmp(p, name, w) == 0)
			return 1;
		p += len + 1;
	}
	return 0;
}

int procfs_parse_cgroup(const char *buf, size_t len, struct procfs_cgroup *out)
{
	const char *p = buf, *end = buf + len;
	int lines = 0, bad = 0;

	memset(out, 0, sizeof(*out));
	if (!buf)
		return -1;
	/* "hierarchy-id:controller-list:path"; the path may hold ':' */
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *c1, *c2;

		if (!eol)
			break; /* an unterminated last line may have been cut */
		c1 = memchr(p, ':', (size_t)(eol - p));
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
		if (c1 && c2 && c2 + 1 < eol && c2[1] == '/') {
			const char *path = c2 + 1;
			size_t plen = (size_t)(eol - path);
			size_t clen = (size_t)(c2 - c1 - 1);

			lines++;
			if (c1 - p == 1 && *p == '0' && clen == 0)
				bad |= copy_path(out->v2, sizeof(out->v2), path, plen);
			if (has_controller(c1 + 1, clen, "memory"))
				bad |= copy_path(out->memory, sizeof(out->memory), path, plen);
			if (has_controller(c1 + 1, clen, "cpuacct"))
				bad |= copy_path(out->cpuacct, sizeof(out->cpuacct), path, plen);
			if (has_controller(c1 + 1, clen, "cpu"))
				bad |= copy_path(out->cpu, sizeof(out->cpu), path, plen);
			if (has_controller(c1 + 1, clen, "blkio"))
				bad |= copy_path(out->blkio, sizeof(out->blkio), path, plen);
		}
		p = eol + 1;
	}
	if (lines == 0 || bad) {
		errno = lines ? ENAMETOOLONG : EINVAL;
		return -1;
	}
	return 0;
}

int procfs_read_cgroup(pid_t pid, struct procfs_cgroup *out)
{
	char buf[STAT_BUF];
	ssize_t n = procfs_read_text(pid, "cgroup", buf, sizeof(buf));

	if (n < 0) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	return procfs_parse_cgroup(buf, (size_t)n, out);
}

size_t procfs_list_pids(pid_t *pids, size_t max)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return 0;
	while (n < max && (de = readdir(d)) != NULL) {
		const char *s = de->d_name;
		uint64_t v;

		if (parse_u64(&s, s + strlen(s), &v) < 0 || *s || v == 0 ||
		    v > INT32_MAX)
			continue;
		pids[n++] = (pid_t)v;
	}
	closedir(d);
	return n;
}

/* One "Key:\tn n n" line of status holds gid among its numbers? */
static int line_has_id(const char *line, const char *key, gid_t gid)
{
	size_t k = strlen(key);
	const char *p;

	if (strncmp(line, key, k) != 0)
		return 0;
	for (p = line + k; *p && *p != '\n';) {
		char *end;
		unsigned long v;

		p += strspn(p, " \t");
		if (*p < '0' || *p > '9')
			break;
		v = strtoul(p, &end, 10);
		if (end == p)
			break;
		if (v == (unsigned long)gid)
			return 1;
		p = end;
	}
	return 0;
}

int procfs_in_group(pid_t pid, gid_t gid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd, found = 0;

	pid_path(path, sizeof(path), pid, "status");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (const char *l = buf; l && *l && !found; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		found = line_has_id(l, "Gid:", gid) || line_has_id(l, "Groups:", gid);
	return found;
}
