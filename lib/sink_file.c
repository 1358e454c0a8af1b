/*
 * sink_file.c - the NDJSON file sink.  Each summary is one line written
 * by one write() on an O_APPEND descriptor, so writers on the same file
 * (tracerd and a standalone tracer-wrap) never interleave within a line;
 * a batch is synced (fdatasync) before it counts as delivered, because
 * tracerd then removes it from its spool.
 *
 * Rotation by size: past file_max_bytes, FILE.(keep-1) becomes FILE.keep
 * ... FILE becomes FILE.1 (newest rotated file is .1; `tracer report`
 * reads FILE.N down to FILE.1, then FILE).  The file is created 0640 and
 * a world-readable one is narrowed: summaries name users and commands.
 */
#include "sink_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int make_parent_dirs(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
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
	s->fd = fd;
	s->ino = st.st_ino;
	return 0;
}

int file_sink_open(struct sink *s, char *err, size_t errlen)
{
	/* opened at the first delivery: a missing directory is then an
	 * error of that delivery (retried), not of the daemon's start */
	(void)err;
	(void)errlen;
	s->fd = -1;
	return 0;
}

void file_sink_close(struct sink *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* FILE -> FILE.1 -> ... -> FILE.keep (the oldest falls off). */
static void rotate(struct sink *s)
{
	const char *path = s->cfg->file_path;
	char from[600], to[600];
	struct stat st;

	/* another writer may have rotated it already */
	if (flock(s->fd, LOCK_EX) != 0)
		return;
	if (stat(path, &st) != 0 || st.st_ino != s->ino ||
	    st.st_size < (off_t)s->cfg->file_max_bytes)
		goto out;
	for (int i = s->cfg->file_keep; i >= 1; i--) {
		if (i > 1)
			snprintf(from, sizeof(from), "%s.%d", path, i - 1);
		else
			snprintf(from, sizeof(from), "%s", path);
		snprintf(to, sizeof(to), "%s.%d", path, i);
		if (rename(from, to) != 0 && errno != ENOENT)
			break;
	}
out:
	flock(s->fd, LOCK_UN);
	file_sink_close(s);
}

/* The descriptor still names the file at path (not a rotated one). */
static int current_fd(struct sink *s, size_t incoming, char *err, size_t errlen)
{
	struct stat st, fst;

	if (s->fd >= 0 && (stat(s->cfg->file_path, &st) != 0 || st.st_ino != s->ino))
		file_sink_close(s);
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

int file_sink_deliver(struct sink *s, char *const *texts, const size_t *lens, size_t n,
		      char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
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
			file_sink_close(s);
			return -1;
		}
	}
	if (s->fd >= 0 && fdatasync(s->fd) != 0) {
		snprintf(err, errlen, "%s: fdatasync: %s", s->cfg->file_path, strerror(errno));
		return -1;
	}
	return 0;
}
