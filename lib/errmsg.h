/*
 * errmsg.h - how library code reports a problem without printing: a
 * one-line reason in the caller's buffer, or a message handed to the
 * caller's warn callback.  Safe inside the SPANK plugin (no I/O, no
 * global state).
 */
#ifndef TRACER_ERRMSG_H
#define TRACER_ERRMSG_H

#include <stddef.h>

/* Format the reason into err (when err and errlen are set); returns -1. */
int errmsg_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Format a message and pass it to warn; nothing when warn is NULL. */
void errmsg_warn(void (*warn)(const char *msg), const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
