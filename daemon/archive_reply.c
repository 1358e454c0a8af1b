/*
 * archive_reply.c - one reply of tracerd's archive streamed to its asker
 * (archive_reply.h), from a worker thread: the socket made blocking with
 * each send bounded, the whole reply bounded in time and size, so that a
 * client that stops reading, or reads a few bytes every few seconds,
 * loses its reply instead of holding a worker.
 */
#include "archive_reply.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "clock.h"
#include "log.h"
#include "proto.h"

#define ARCHIVE_SEND_TIMEOUT_S 5 /* a client that stops reading loses its reply */
/* ... and one that reads a few bytes every few seconds, after this in all:
 * SO_SNDTIMEO bounds each send, not the reply, and a worker is shared */
#define ARCHIVE_SEND_TOTAL_MS 60000
#define ARCHIVE_REPLY_MAX (64u << 20) /* bytes of summaries in one reply */

void archive_reply_open(struct archive_reply *o, int fd, pid_t pid)
{
	struct timeval tv = {.tv_sec = ARCHIVE_SEND_TIMEOUT_S};

	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->deadline_ns = clock_mono_ns() + ARCHIVE_SEND_TOTAL_MS * 1000000ull;
	/* the loop's socket was non-blocking: here sends wait, boundedly */
	if (fcntl(fd, F_SETFL, 0) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0)
		log_warn("archive reply to pid %d: %s", (int)pid, strerror(errno));
}

int archive_reply_line(struct archive_reply *o, const cJSON *obj)
{
	char *line = proto_render_line(obj);
	size_t len, off = 0;

	if (!line) {
		o->broken = true;
		return 1;
	}
	len = strlen(line);
	if (o->bytes + len > ARCHIVE_REPLY_MAX) {
		o->cut = true;
		free(line);
		return 1;
	}
	while (off < len) {
		/* blocking, bounded by SO_SNDTIMEO and the reply's deadline */
		ssize_t n = clock_mono_ns() > o->deadline_ns
				    ? 0
				    : send(o->fd, line + off, len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->broken = true;
			free(line);
			return 1;
		}
		off += (size_t)n;
	}
	o->bytes += len;
	o->count++;
	free(line);
	return 0;
}

int archive_reply_summary(const cJSON *s, void *ctx)
{
	return archive_reply_line(ctx, s);
}

int archive_reply_lake_line(void *ctx, const char *line, size_t len)
{
	struct archive_reply *o = ctx;
	cJSON *s = cJSON_ParseWithLength(line, len);
	int rc;

	if (!cJSON_IsObject(s)) {
		cJSON_Delete(s);
		/* ClickHouse's error after its answer began (its deadline, its
		 * size cap) comes as a last line of text: the reply is cut */
		if (len >= 6 && !memcmp(line, "Code: ", 6))
			o->cut = true;
		else /* not as tracerd wrote it: skipped, counted */
			o->skipped++;
		return 0;
	}
	rc = archive_reply_line(o, s);
	cJSON_Delete(s);
	return rc;
}

void archive_reply_error(int fd, const char *msg)
{
	char *line = proto_error_reply(msg);

	if (line)
		(void)!send(fd, line, strlen(line), MSG_NOSIGNAL);
	free(line);
}
