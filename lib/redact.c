/*
 * redact.c - argv privacy.  Command lines are stored in job summaries
 * that many people read, and people do put secrets on command lines.
 * What looks like a secret is replaced by "***" before argv is kept.
 * This file is the entry: an exec record is read once, its commands are
 * walked (redact_cmd.c) and its arguments judged (redact_rules.c,
 * redact_forms.c), every rule marking ranges of hidden bytes
 * (redact_span.c); the output is written once from those ranges.  A user
 * chooses every byte of a command line, and tracerd redacts on its
 * event loop: the work is linear in the record's length and the record
 * is bounded (TRACER_REDACT_INPUT_MAX).  docs/privacy.md lists what is
 * and is not redacted.
 */
#include "redact.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "defaults.h"
#include "redact_cmd.h"
#include "redact_forms.h"
#include "redact_rules.h"
#include "redact_span.h"

#define MASK "***"
#define MASK_LEN 3

size_t redact_work(void)
{
	return redact_span_work;
}

/* The arguments of a NUL-terminated copy of a record. */
struct record {
	char *buf;          /* the record and a final NUL */
	size_t len;
	const char **args;
	size_t *lens, *off;
	size_t n;
};

static void record_free(struct record *r)
{
	free(r->buf);
	free(r->args);
	free(r->lens);
	free(r->off);
}

static int record_read(struct record *r, const char *argv, size_t len)
{
	size_t nargs = 1; /* every argument but the last ends with a NUL */

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < len; i++)
		nargs += argv[i] == '\0';
	REDACT_STEP(len);
	r->len = len;
	r->buf = malloc(len + 1);
	r->args = malloc(nargs * sizeof(*r->args));
	r->lens = malloc(nargs * sizeof(*r->lens));
	r->off = malloc(nargs * sizeof(*r->off));
	if (!r->buf || !r->args || !r->lens || !r->off)
		return -1;
	if (len)
		memcpy(r->buf, argv, len);
	r->buf[len] = '\0';
	for (size_t i = 0; i < len;) {
		size_t n = strlen(r->buf + i);

		REDACT_STEP(n + 1);
		r->args[r->n] = r->buf + i;
		r->lens[r->n] = n;
		r->off[r->n++] = i;
		i += n + 1;
	}
	return 0;
}

/* A piece of an argument that cannot be the start of a secret: a plain
 * path or a number (what a cut most often falls in). */
static bool harmless_piece(const char *a, size_t n)
{
	static const char path[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789/._-+";
	size_t digits = strspn(a, "0123456789.");

	if (digits == n)
		return true;
	return a[0] == '/' && strspn(a, path) == n;
}

/* The output: each run of hidden bytes of an argument becomes MASK. */
static char *render(const struct record *r, const struct redact_span *s,
		    size_t *out_len)
{
	/* a hidden byte becomes at most 3, every argument gains its NUL */
	char *out = malloc(MASK_LEN * r->len + r->n + 1);
	size_t o = 0;

	if (!out)
		return NULL;
	for (size_t k = 0; k < r->n; k++) {
		bool in_mask = false;

		for (size_t j = r->off[k]; j < r->off[k] + r->lens[k]; j++) {
			if (!redact_span_hidden(s, j)) {
				out[o++] = r->buf[j];
				in_mask = false;
			} else if (!in_mask) {
				memcpy(out + o, MASK, MASK_LEN);
				o += MASK_LEN;
				in_mask = true;
			}
		}
		out[o++] = '\0';
	}
	out[o] = '\0';
	*out_len = o;
	return out;
}

char *redact_record(const char *argv, size_t len, bool last_cut,
		    size_t *out_len)
{
	struct record r;
	struct redact_span s = {NULL, 0};
	char *out = NULL;

	*out_len = 0;
	if (!argv)
		len = 0;
	if (len > TRACER_REDACT_INPUT_MAX) {
		len = TRACER_REDACT_INPUT_MAX;
		last_cut = true;
	}
	/* a cut just after an argument's NUL leaves no piece of one */
	if (last_cut && len && argv[len - 1] == '\0')
		last_cut = false;
	if (record_read(&r, argv, len) == 0 && redact_span_init(&s, len) == 0) {
		bool aws = redact_forms_aws_key_id(r.buf, len);

		redact_cmd_walk(r.args, r.lens, r.off, r.n, aws, 0, &s);
		if (last_cut && r.n &&
		    !harmless_piece(r.args[r.n - 1], r.lens[r.n - 1]))
			redact_span_mark(&s, r.off[r.n - 1],
					 r.off[r.n - 1] + r.lens[r.n - 1]);
		redact_span_resolve(&s);
		out = render(&r, &s, out_len);
	}
	redact_span_free(&s);
	record_free(&r);
	return out;
}

/* Cut s to at most max bytes on a UTF-8 character boundary. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

/*
 * The argument that does not fit: show what fits of it, then "...", the
 * whole at most max_out bytes.  It is redacted already: a cut never
 * shows a piece of a secret the rules found.
 */
static void finish_cut(char *out, size_t *olen, size_t max_out,
		       const char *arg)
{
	size_t dots = max_out < 3 ? max_out : 3;
	size_t keep = max_out - dots;

	if (*olen && *olen < keep)
		out[(*olen)++] = ' ';
	if (*olen < keep) {
		size_t take = utf8_cut(arg, strlen(arg), keep - *olen);

		memcpy(out + *olen, arg, take);
		*olen += take;
	}
	*olen = utf8_cut(out, *olen, keep);
	memcpy(out + *olen, "...", dots);
	*olen += dots;
	out[*olen] = '\0';
}

char *redact_join(const char *r, size_t rlen, size_t max_out)
{
	size_t olen = 0;
	char *out = malloc(rlen + 4 < max_out + 4 ? rlen + 4 : max_out + 4);

	if (!out)
		return NULL;
	out[0] = '\0';
	for (size_t i = 0; i < rlen;) {
		const char *arg = r + i;
		size_t n = strnlen(arg, rlen - i);

		i += n + 1;
		if (olen + (olen ? 1 : 0) + n > max_out) {
			finish_cut(out, &olen, max_out, arg);
			break;
		}
		if (olen)
			out[olen++] = ' ';
		memcpy(out + olen, arg, n);
		olen += n;
		out[olen] = '\0';
	}
	return out;
}

size_t redact_fit(const char *r, size_t rlen, size_t max_out, int *cut)
{
	size_t olen = 0;

	*cut = 0;
	for (size_t i = 0; i < rlen;) {
		size_t n = strnlen(r + i, rlen - i) + 1;

		if (olen + n > max_out) {
			*cut = 1; /* whole arguments only: the rest is left out */
			break;
		}
		olen += n;
		i += n;
	}
	return olen;
}

char *redact_join_argv(const char *argv, size_t len, size_t max_out)
{
	size_t rlen;
	char *r = redact_record(argv, len, false, &rlen);
	char *out = r ? redact_join(r, rlen, max_out) : NULL;

	free(r);
	return out;
}

char *redact_argv(const char *argv, size_t len, size_t max_out,
		  size_t *out_len, int *cut)
{
	size_t rlen;
	char *r = redact_record(argv, len, false, &rlen);

	*cut = 0;
	*out_len = 0;
	if (!r)
		return NULL;
	*out_len = redact_fit(r, rlen, max_out, cut);
	return r;
}

int redact_arg(char *arg, size_t size, const char *previous)
{
	struct redact_span s;
	size_t n, o = 0;
	bool any = false, in_mask = false;
	char *tmp;

	if (!arg || size == 0 || !memchr(arg, '\0', size))
		return 0;
	n = strlen(arg);
	if (redact_span_init(&s, n) != 0)
		return 0;
	redact_rules_arg(arg, n, 0, previous, NULL, &s);
	redact_span_resolve(&s);
	tmp = malloc(MASK_LEN * n + 1);
	for (size_t j = 0; tmp && j < n; j++) {
		if (!redact_span_hidden(&s, j)) {
			tmp[o++] = arg[j];
			in_mask = false;
		} else if (!in_mask) {
			memcpy(tmp + o, MASK, MASK_LEN);
			o += MASK_LEN;
			in_mask = any = true;
		}
	}
	if (!tmp) { /* out of memory: nothing of the argument is kept */
		o = size - 1 < MASK_LEN ? size - 1 : MASK_LEN;
		memcpy(arg, MASK, o);
		arg[o] = '\0';
		any = true;
	} else if (any) {
		/* no room for the whole mask: the tail goes, never the value */
		if (o > size - 1)
			o = size - 1;
		memcpy(arg, tmp, o);
		arg[o] = '\0';
	}
	free(tmp);
	redact_span_free(&s);
	return any ? 1 : 0;
}
