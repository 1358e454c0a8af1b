/*
 * archive_reply.h - one reply of tracerd's archive (archive.c) streamed
 * to its asker: one JSON object per line, at most 64 MiB of them, each
 * send bounded by 5 s and the reply by 60 s.
 */
#ifndef TRACER_ARCHIVE_REPLY_H
#define TRACER_ARCHIVE_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

struct archive_reply {
	int fd;
	size_t bytes;
	unsigned long count;
	uint64_t skipped; /* datalake rows that are no summary */
	uint64_t deadline_ns; /* monotonic: the reply is given up after it */
	bool cut, broken;
};

/* o ready to stream on fd (the asker's pid for the log) */
void archive_reply_open(struct archive_reply *o, int fd, pid_t pid);
/* obj as one line: 0, or 1 once the reply is cut (its size) or broken */
int archive_reply_line(struct archive_reply *o, const cJSON *obj);
/* sumfile's callback: a summary as one line (ctx: the reply) */
int archive_reply_summary(const cJSON *s, void *ctx);
/* datalake_each_fn: one summary line of the datalake, checked and sent
 * (ctx: the reply; a line that is no summary skipped and counted) */
int archive_reply_lake_line(void *ctx, const char *line, size_t len);
/* an error reply of one line on fd */
void archive_reply_error(int fd, const char *msg);

#endif
