/*
 * redact_span.h - the bytes of a command line that redaction hides.
 * The rules (redact.c, redact_forms.c, redact_cmd.c) only read the
 * arguments and mark ranges here; the output is written once at the end,
 * so overlapping rules cost nothing and no rule moves bytes around (the
 * work stays linear in the length of the command line).  Internal to
 * the redact*.c files.
 */
#ifndef TRACER_REDACT_SPAN_H
#define TRACER_REDACT_SPAN_H

#include <stdbool.h>
#include <stddef.h>

struct redact_span {
	int *diff;  /* +1 where a hidden range starts, -1 just past its end */
	size_t len; /* bytes covered */
};

/* Room for len bytes, nothing hidden.  -1 when out of memory. */
int redact_span_init(struct redact_span *s, size_t len);
void redact_span_free(struct redact_span *s);

/* Hide bytes [from, to) (clipped to the span; empty ranges ignored). */
void redact_span_mark(struct redact_span *s, size_t from, size_t to);

/*
 * Once every range is marked: turn the marks into a depth per byte
 * (one pass), after which redact_span_hidden() answers per byte and no
 * more ranges may be marked.
 */
void redact_span_resolve(struct redact_span *s);
static inline bool redact_span_hidden(const struct redact_span *s, size_t i)
{
	return i < s->len && s->diff[i] > 0;
}

/*
 * Work done by the rules in this thread: bytes and positions examined.
 * A test hook (redact_work() in redact.h): redaction must stay linear.
 */
extern _Thread_local size_t redact_span_work;
#define REDACT_STEP(n) (redact_span_work += (size_t)(n))

#endif
