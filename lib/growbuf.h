/*
 * growbuf.h - a growing byte buffer, always NUL-terminated, with an
 * optional bound: what the sinks build their bodies in, what /metrics is
 * rendered into, what a curl transfer's answer is collected in
 * (growbuf_curl_write).  A failed allocation or a byte past the bound sets
 * a flag and makes every later add a no-op, so that callers check once,
 * at the end.
 */
#ifndef TRACER_GROWBUF_H
#define TRACER_GROWBUF_H

#include <stdbool.h>
#include <stddef.h>

struct growbuf {
	char *p;      /* NULL until the first add */
	size_t len, cap;
	size_t max;   /* bytes it may hold (0: no bound); set before the first add */
	bool oom;     /* an allocation failed */
	bool over;    /* an add would have passed max: not added */
};

/* Append n bytes of s: 0, or -1 (and oom or over set) when they were not. */
int growbuf_add(struct growbuf *b, const char *s, size_t n);
/* Append formatted text: 0, or -1 as growbuf_add. */
int growbuf_printf(struct growbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * A CURLOPT_WRITEFUNCTION (with the struct growbuf as CURLOPT_WRITEDATA):
 * the answer appended, up to the buffer's max; past it, or out of
 * memory, it returns 0 and curl ends the transfer (CURLE_WRITE_ERROR),
 * with over or oom telling why.
 */
size_t growbuf_curl_write(char *data, size_t size, size_t n, void *growbuf);
/* Free the bytes; the buffer is empty again (its bound kept). */
void growbuf_free(struct growbuf *b);

#endif
