/*
 * redact_cmd.c - a command line as commands: the tool of each argument
 * is the command word it follows, found through wrappers
 * (redact_wrap.c), and a shell's command string is split into words and
 * commands the way the shell would (quotes, escapes, ; && || | ( ) and
 * newlines), each command then walked like a command line of its own.
 * A word typed as it is read (no quote or escape in it) keeps exactly
 * what the rules hid; any other word with something hidden is hidden
 * whole, since its bytes are not where the rules saw them.
 * Every argument and every byte of a command string is visited a bounded
 * number of times, and strings nest at most REDACT_CMD_DEPTH deep.
 */
#include "redact_cmd.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "redact_forms.h"
#include "redact_rules.h"
#include "redact_wrap.h"

static void cmd_string(const char *str, size_t n, size_t base,
		       bool aws_key_id, int depth, struct redact_span *s);

/* The arguments [k, next) of one command whose word is args[k]. */
static void walk_command(const char *const *args, const size_t *lens,
			 const size_t *off, size_t k, size_t next,
			 size_t cmdstring, bool aws_key_id, int depth,
			 struct redact_span *s)
{
	struct redact_forms_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	redact_forms_tool(&ctx, args[k], lens[k]);
	ctx.aws_key_id = aws_key_id;
	if (redact_forms_login_tool(ctx.tool))
		for (size_t i = k + 1; i < next && !ctx.login; i++)
			ctx.login = strcmp(args[i], "login") == 0;
	for (size_t i = k; i < next; i++) {
		REDACT_STEP(1);
		if (i == cmdstring && depth < REDACT_CMD_DEPTH)
			cmd_string(args[i], lens[i], off[i], aws_key_id,
				   depth + 1, s);
		else
			redact_rules_arg(args[i], lens[i], off[i],
					 i ? args[i - 1] : NULL, &ctx, s);
	}
}

void redact_cmd_walk(const char *const *args, const size_t *lens,
		     const size_t *off, size_t n, bool aws_key_id, int depth,
		     struct redact_span *s)
{
	size_t k = 0;

	while (k < n) {
		size_t next, cmdstring;
		struct redact_forms_ctx tool;

		/* leading NAME=VALUE words are judged alone */
		if (redact_wrap_assignment(args[k])) {
			redact_rules_arg(args[k], lens[k], off[k],
					 k ? args[k - 1] : NULL, NULL, s);
			k++;
			continue;
		}
		memset(&tool, 0, sizeof(tool));
		redact_forms_tool(&tool, args[k], lens[k]);
		next = redact_wrap_next(tool.tool, args, n, k, &cmdstring);
		walk_command(args, lens, off, k, next, cmdstring, aws_key_id,
			     depth, s);
		k = next;
	}
}

/* A word of a command string: where it is there and in the words buffer. */
struct word {
	size_t from, to; /* bytes of the string it was read from */
	size_t at, len;  /* in the words buffer (NUL-terminated there) */
	bool verbatim;   /* no quote or escape: its bytes are the string's */
	bool first;      /* it starts a command */
};

struct words {
	char *buf;
	size_t blen;
	struct word *w;
	size_t n;
};

static bool breaks_command(const char *str, size_t n, size_t i)
{
	return strchr(";&|()`\n", str[i]) ||
	       (str[i] == '$' && i + 1 < n && str[i + 1] == '(');
}

static bool ends_word(const char *str, size_t n, size_t i)
{
	return str[i] == ' ' || str[i] == '\t' || str[i] == '<' ||
	       str[i] == '>' || breaks_command(str, n, i);
}

/* One word from str[*i]: its bytes unquoted into ws->buf. */
static void read_word(const char *str, size_t n, size_t *i, struct word *w,
		      struct words *ws)
{
	size_t j = *i;

	w->from = j;
	w->at = ws->blen;
	w->verbatim = true;
	while (j < n && !ends_word(str, n, j)) {
		char c = str[j];

		if (c == '\'' || c == '"') {
			w->verbatim = false;
			for (j++; j < n && str[j] != c; j++) {
				if (c == '"' && str[j] == '\\' && j + 1 < n &&
				    strchr("\"\\$`", str[j + 1]))
					j++;
				ws->buf[ws->blen++] = str[j];
			}
			j += j < n; /* the closing quote */
		} else if (c == '\\') {
			w->verbatim = false;
			if (++j < n)
				ws->buf[ws->blen++] = str[j++];
		} else {
			ws->buf[ws->blen++] = c;
			j++;
		}
	}
	REDACT_STEP(j - *i);
	w->to = j;
	w->len = ws->blen - w->at;
	ws->buf[ws->blen++] = '\0';
	*i = j;
}

/* Split str into words; -1 when out of memory. */
static int split(const char *str, size_t n, struct words *ws)
{
	bool first = true;

	/* a word takes at least one byte of the string and one more that
	 * ends it ('' is two), and adds a NUL to the buffer */
	ws->buf = malloc(2 * n + 1);
	ws->w = calloc(n / 2 + 2, sizeof(*ws->w));
	ws->blen = ws->n = 0;
	if (!ws->buf || !ws->w)
		return -1;
	for (size_t i = 0; i < n;) {
		REDACT_STEP(1);
		if (breaks_command(str, n, i)) {
			first = true;
			i++;
		} else if (ends_word(str, n, i)) {
			i++;
		} else {
			struct word *w = &ws->w[ws->n++];

			read_word(str, n, &i, w, ws);
			w->first = first;
			first = false;
		}
	}
	return 0;
}

/* What the rules hid in the words, put back on the string's bytes. */
static void map_back(const struct words *ws, const struct redact_span *ts,
		     size_t base, struct redact_span *s)
{
	for (size_t k = 0; k < ws->n; k++) {
		const struct word *w = &ws->w[k];
		size_t run = SIZE_MAX;

		for (size_t j = 0; j <= w->len; j++) {
			bool hid = j < w->len && redact_span_hidden(ts, w->at + j);

			REDACT_STEP(1);
			if (hid && !w->verbatim) {
				redact_span_mark(s, base + w->from, base + w->to);
				break;
			}
			if (hid && run == SIZE_MAX)
				run = j;
			if (!hid && run != SIZE_MAX) {
				redact_span_mark(s, base + w->from + run,
						 base + w->from + j);
				run = SIZE_MAX;
			}
		}
	}
}

/* The commands of a shell command string, each walked on its own. */
static void walk_words(const struct words *ws, bool aws_key_id, int depth,
		       struct redact_span *ts)
{
	const char **args = malloc((ws->n + 1) * sizeof(*args));
	size_t *lens = malloc((ws->n + 1) * sizeof(*lens));
	size_t *off = malloc((ws->n + 1) * sizeof(*off));

	if (args && lens && off) {
		for (size_t k = 0; k < ws->n; k++) {
			args[k] = ws->buf + ws->w[k].at;
			lens[k] = ws->w[k].len;
			off[k] = ws->w[k].at;
		}
		for (size_t k = 0; k < ws->n;) {
			size_t e = k + 1;

			while (e < ws->n && !ws->w[e].first)
				e++;
			redact_cmd_walk(args + k, lens + k, off + k, e - k,
					aws_key_id, depth, ts);
			k = e;
		}
	} else {
		redact_span_mark(ts, 0, ts->len); /* out of memory: hide it all */
	}
	free(args);
	free(lens);
	free(off);
}

static void cmd_string(const char *str, size_t n, size_t base,
		       bool aws_key_id, int depth, struct redact_span *s)
{
	struct words ws;
	struct redact_span ts = {NULL, 0};

	if (split(str, n, &ws) != 0 || redact_span_init(&ts, ws.blen) != 0) {
		redact_span_mark(s, base, base + n); /* out of memory */
	} else {
		walk_words(&ws, aws_key_id, depth, &ts);
		redact_span_resolve(&ts);
		map_back(&ws, &ts, base, s);
	}
	redact_span_free(&ts);
	free(ws.buf);
	free(ws.w);
}
