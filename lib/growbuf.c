/*
 * growbuf.c - a growing byte buffer (growbuf.h).  Capacity doubles, so n
 * adds cost O(total bytes).
 */
#include "growbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for need more bytes and the NUL: 0, or -1 with a flag set. */
static int reserve(struct growbuf *b, size_t need)
{
	size_t cap;
	char *p;

	if (b->oom || b->over)
		return -1;
	if (b->max && need > b->max - b->len) {
		b->over = true;
		return -1;
	}
	if (b->len + need + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + need + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

int growbuf_add(struct growbuf *b, const char *s, size_t n)
{
	if (reserve(b, n) != 0)
		return -1;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int growbuf_printf(struct growbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom || b->over)
		return -1;
	/* first into the room there is; formatted again once it grew */
	va_start(ap, fmt);
	n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return -1;
	}
	if (b->p && (size_t)n < b->cap - b->len && (!b->max || (size_t)n <= b->max - b->len)) {
		b->len += (size_t)n;
		return 0;
	}
	if (b->p)
		b->p[b->len] = '\0'; /* a cut-off attempt goes */
	if (reserve(b, (size_t)n) != 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

size_t growbuf_curl_write(char *data, size_t size, size_t n, void *growbuf)
{
	return growbuf_add(growbuf, data, size * n) == 0 ? size * n : 0;
}

void growbuf_free(struct growbuf *b)
{
	size_t max = b->max;

	free(b->p);
	memset(b, 0, sizeof(*b));
	b->max = max;
}
