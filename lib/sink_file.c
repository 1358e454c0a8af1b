/*
 * sink_file.c - the NDJSON file sink.  Each summary is one line written
 * by one write() on an O_APPEND descriptor, so writers on the same file
 * (tracerd and a standalone tracer-wrap) never interleave within a line;
 * a batch is synced (fdatasync) before it counts as delivered, because
 * tracerd then removes it from its spool.
 *
 * Rotation by size: past file_max_bytes, FILE.(keep-1) becomes FILE.keep
 * ... FILE becomes FILE.1 (newest rotated file is .1; `tracer report`
 * reads FILE.N down to FILE.1, then FILE).  The old FILE.keep is not
 * dropped whole: it is merged with the file rotated onto it, by user
 * share (sink_file_share.c), so that one user's jobs cannot push the
 * others' summaries out of the archive.  The file is created 0640 and
 * a world-readable one is narrowed: summaries name users and commands.
 *
 * Duplicates: a batch is acknowledged (the spool's position saved) after
 * it is written and synced; tracerd killed in between sends it again at
 * the next start.  So the first delivery reads the summary_ids at the
 * end of the file (and of FILE.1 when the file is younger than one
 * batch), and a summary found there is not written again.  Reading a
 * summary_id: the first "summary_id":"..." of a line (a quote inside a
 * JSON string is escaped, so no value can fake it).
 */
#include "identity.h"
#include "mkdirs.h"
#include "sink_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file's directory and its parents (0755). */
static int make_parent_dirs(const char *path)
{
	char dir[512], err[600];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	return mkdirs(dir, 0755, err, sizeof(err));
}

static int open_file(struct sink *s, char *err, size_t errlen)
{
	const char *path = s->cfg->file_path;
	struct stat st;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

	if (fd < 0 && errno == ENOENT && make_parent_dirs(path) == 0)
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if ((st.st_mode & 0007) && fchmod(fd, st.st_mode & 0770) != 0)
		snprintf(err, errlen, "%s: cannot make it private: %s", path, strerror(errno));
	if (s->cfg->admin_group[0]) {
		/* the admin group reads every user's summaries (docs/privacy.md) */
		gid_t gid;

		if (identity_group_gid(s->cfg->admin_group, &gid, err, errlen) == 0 &&
		    st.st_gid != gid && fchown(fd, (uid_t)-1, gid) != 0)
			snprintf(err, errlen, "%s: chown to group %s: %s", path,
				 s->cfg->admin_group, strerror(errno));
	}
	s->fd = fd;
	s->ino = st.st_ino;
	return 0;
}

int sink_file_open(struct sink *s, char *err, size_t errlen)
{
	/* opened at the first delivery: a missing directory is then an
	 * error of that delivery (retried), not of the daemon's start */
	(void)err;
	(void)errlen;
	s->fd = -1;
	return 0;
}

void sink_file_close(struct sink *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* The old FILE.keep (moved to older) and the new one become one, by
 * share; when that fails the older falls off whole, as without shares. */
static void merge_oldest(struct sink *s, const char *older)
{
	char newer[600], err[700];
	uint64_t dropped = 0;

	snprintf(newer, sizeof(newer), "%s.%d", s->cfg->file_path, s->cfg->file_keep);
	if (sink_file_share_merge(older, newer, s->cfg->file_max_bytes, &dropped, err, sizeof(err)) != 0)
		snprintf(s->note, sizeof(s->note), "the oldest summaries of %s dropped whole, "
			 "not by user share: %s", older, err);
	else if (dropped)
		snprintf(s->note, sizeof(s->note), "rotation dropped %llu summaries, the oldest "
			 "of the largest user shares", (unsigned long long)dropped);
	s->share_dropped += dropped;
	if (unlink(older) != 0 && errno != ENOENT && !s->note[0])
		snprintf(s->note, sizeof(s->note), "cannot remove %s: %s", older, strerror(errno));
}

/* FILE -> FILE.1 -> ... -> FILE.keep (the oldest merged into it by share). */
static void rotate(struct sink *s)
{
	const char *path = s->cfg->file_path;
	char from[600], to[600], older[600];
	struct stat st;
	bool merge;

	/* another writer may have rotated it already */
	if (flock(s->fd, LOCK_EX) != 0)
		return;
	if (stat(path, &st) != 0 || st.st_ino != s->ino ||
	    st.st_size < (off_t)s->cfg->file_max_bytes)
		goto out;
	snprintf(from, sizeof(from), "%s.%d", path, s->cfg->file_keep);
	snprintf(older, sizeof(older), "%s.share", path);
	merge = !s->no_share_merge && rename(from, older) == 0;
	for (int i = s->cfg->file_keep; i >= 1; i--) {
		if (i > 1)
			snprintf(from, sizeof(from), "%s.%d", path, i - 1);
		else
			snprintf(from, sizeof(from), "%s", path);
		snprintf(to, sizeof(to), "%s.%d", path, i);
		if (rename(from, to) != 0 && errno != ENOENT)
			break;
	}
	if (merge)
		merge_oldest(s, older);
out:
	flock(s->fd, LOCK_UN);
	sink_file_close(s);
}

/* The descriptor still names the file at path (not a rotated one). */
static int current_fd(struct sink *s, size_t incoming, char *err, size_t errlen)
{
	struct stat st, fst;

	if (s->fd >= 0 && (stat(s->cfg->file_path, &st) != 0 || st.st_ino != s->ino))
		sink_file_close(s);
	if (s->fd < 0 && open_file(s, err, errlen) != 0)
		return -1;
	if (s->cfg->file_max_bytes && fstat(s->fd, &fst) == 0 && fst.st_size > 0 &&
	    (uint64_t)fst.st_size + incoming > s->cfg->file_max_bytes) {
		rotate(s);
		if (open_file(s, err, errlen) != 0)
			return -1;
	}
	return 0;
}

/* One batch at most (sink_limits: 16 MiB), and a margin. */
#define TAIL_BYTES ((16u << 20) + (64u << 10))
#define ID_KEY "\"summary_id\":\""
#define ID_LEN 36

/* The summary_id of a summary's text: 0, or -1 when it has none. */
static int id_of(const char *text, size_t len, char id[40])
{
	const char *p = memmem(text, len, ID_KEY, sizeof(ID_KEY) - 1);

	if (!p || (size_t)(text + len - p) < sizeof(ID_KEY) - 1 + ID_LEN + 1)
		return -1;
	p += sizeof(ID_KEY) - 1;
	if (p[ID_LEN] != '"' || memchr(p, '"', ID_LEN))
		return -1;
	memcpy(id, p, ID_LEN);
	id[ID_LEN] = '\0';
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The ids of the last want bytes of path (whole lines only); how many
 * bytes were there to read. */
static size_t read_tail_ids(struct sink *s, const char *path, size_t want)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t got = 0, cap = s->nseen;
	char *buf = NULL;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || st.st_size <= 0)
		goto out;
	got = (size_t)st.st_size < want ? (size_t)st.st_size : want;
	buf = malloc(got + 1);
	if (!buf || pread(fd, buf, got, st.st_size - (off_t)got) != (ssize_t)got)
		goto out;
	buf[got] = '\0';
	/* a line cut by the window's start is skipped: it is older */
	char *line = (size_t)st.st_size > got ? memchr(buf, '\n', got) : buf;
	while (line && line < buf + got) {
		char *end = memchr(line, '\n', (size_t)(buf + got - line));
		size_t len = end ? (size_t)(end - line) : (size_t)(buf + got - line);
		char id[40];

		if (id_of(line, len, id) == 0) {
			if (s->nseen == cap) {
				cap = cap ? cap * 2 : 256;
				char (*n)[40] = realloc(s->seen, cap * sizeof(*n));
				if (!n)
					break;
				s->seen = n;
			}
			memcpy(s->seen[s->nseen++], id, sizeof(id));
		}
		line = end ? end + 1 : NULL;
	}
out:
	free(buf);
	close(fd);
	return got;
}

/* Once per sink: the ids at the end of the file (and of FILE.1). */
static void read_tail(struct sink *s)
{
	char rotated[600];
	size_t got;

	s->tail_read = true;
	got = read_tail_ids(s, s->cfg->file_path, TAIL_BYTES);
	if (got < TAIL_BYTES) {
		snprintf(rotated, sizeof(rotated), "%s.1", s->cfg->file_path);
		read_tail_ids(s, rotated, TAIL_BYTES - got);
	}
	if (s->nseen)
		qsort(s->seen, s->nseen, sizeof(*s->seen), cmp_id);
}

/* texts[i] is already in the file (written before a crash). */
static bool already_written(const struct sink *s, const char *text, size_t len)
{
	char id[40];

	return s->nseen && id_of(text, len, id) == 0 &&
	       bsearch(id, s->seen, s->nseen, sizeof(*s->seen), cmp_id);
}

int sink_file_deliver(struct sink *s, char *const *texts, const size_t *lens, size_t n,
		      char *err, size_t errlen)
{
	size_t skipped = 0;

	if (!s->tail_read)
		read_tail(s);
	for (size_t i = 0; i < n; i++) {
		if (already_written(s, texts[i], lens[i])) {
			skipped++;
			continue;
		}
		if (current_fd(s, lens[i] + 1, err, errlen) != 0)
			return -1;
		/* the line and its newline in one write: texts[i] has room
		 * for one more byte (its NUL) */
		struct stat before;
		if (fstat(s->fd, &before) != 0)
			before.st_size = -1;
		texts[i][lens[i]] = '\n';
		ssize_t w = write(s->fd, texts[i], lens[i] + 1);
		texts[i][lens[i]] = '\0';
		if (w != (ssize_t)(lens[i] + 1)) {
			/* a short write leaves a partial line: cut it off, or
			 * the retried line would be glued to it */
			if (w > 0 && before.st_size >= 0 && ftruncate(s->fd, before.st_size) != 0)
				w = -1;
			snprintf(err, errlen, "%s: %s", s->cfg->file_path,
				 w < 0 ? strerror(errno) : "short write (disk full?)");
			sink_file_close(s);
			return -1;
		}
	}
	if (s->fd >= 0 && fdatasync(s->fd) != 0) {
		snprintf(err, errlen, "%s: fdatasync: %s", s->cfg->file_path, strerror(errno));
		return -1;
	}
	/* notes, not failures: the caller logs them */
	if (skipped)
		snprintf(err, errlen,
			 "%zu summaries already in %s (written before a restart): not written again%s%s",
			 skipped, s->cfg->file_path, s->note[0] ? "; " : "", s->note);
	else if (s->note[0])
		snprintf(err, errlen, "%s", s->note);
	s->note[0] = '\0';
	return 0;
}
