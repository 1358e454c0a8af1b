/*
 * redact_span.c - ranges of hidden bytes as a difference array: marking
 * a range is O(1) whatever its length, and overlapping ranges merge when
 * the output is written (redact.c).
 */
#include "redact_span.h"

#include <stdlib.h>

_Thread_local size_t redact_span_work;

int redact_span_init(struct redact_span *s, size_t len)
{
	s->len = len;
	s->diff = calloc(len + 1, sizeof(*s->diff));
	return s->diff ? 0 : -1;
}

void redact_span_free(struct redact_span *s)
{
	free(s->diff);
	s->diff = NULL;
	s->len = 0;
}

void redact_span_mark(struct redact_span *s, size_t from, size_t to)
{
	if (to > s->len)
		to = s->len;
	if (from >= to)
		return;
	s->diff[from]++;
	s->diff[to]--;
}

void redact_span_resolve(struct redact_span *s)
{
	int depth = 0;

	for (size_t i = 0; i < s->len; i++) {
		depth += s->diff[i];
		s->diff[i] = depth;
	}
}
