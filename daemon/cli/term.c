/*
 * term.c - line width of the `tracer` command's text output and strings
 * measured, cut and wrapped in display cells (term.h).  Every line of
 * show, jobs and report goes through a stdout filter that cuts it to the
 * width, so that a name or a field nobody sized cannot widen a line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "term.h"

#define DEFAULT_WIDTH 80
#define MAX_WIDTH 10000

int term_width(bool wide)
{
	struct winsize ws;
	const char *env;

	if (wide)
		return 0;
	if (!isatty(STDOUT_FILENO))
		return DEFAULT_WIDTH;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	env = getenv("COLUMNS"); /* the user's own shell; a pty of unknown size */
	if (env) {
		char *end;
		long v = strtol(env, &end, 10);

		if (end != env && !*end && v > 0 && v <= MAX_WIDTH)
			return (int)v;
	}
	return DEFAULT_WIDTH;
}

/* Zero-width (combining marks, zero-width spaces and joiners) and
 * double-width (East Asian wide and fullwidth, emoji) code points: the
 * ranges of Unicode's EastAsianWidth W/F and Mn that names use. */
static int cp_cells(uint32_t c)
{
	static const uint32_t zero[][2] = {
		{0x0300, 0x036f}, {0x0483, 0x0489}, {0x0591, 0x05bd}, {0x0610, 0x061a},
		{0x064b, 0x065f}, {0x0e31, 0x0e31}, {0x0e34, 0x0e3a}, {0x1ab0, 0x1aff},
		{0x1dc0, 0x1dff}, {0x200b, 0x200f}, {0x2060, 0x2064}, {0x20d0, 0x20ff},
		{0xfe00, 0xfe0f}, {0xfe20, 0xfe2f}, {0xfeff, 0xfeff}, {0xe0100, 0xe01ef},
	};
	static const uint32_t wide[][2] = {
		{0x1100, 0x115f}, {0x231a, 0x231b}, {0x2329, 0x232a}, {0x23e9, 0x23ec},
		{0x2614, 0x2615}, {0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf},
		{0x4e00, 0x9fff}, {0xa000, 0xa4cf}, {0xa960, 0xa97f}, {0xac00, 0xd7a3},
		{0xf900, 0xfaff}, {0xfe10, 0xfe19}, {0xfe30, 0xfe6f}, {0xff00, 0xff60},
		{0xffe0, 0xffe6}, {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff}, {0x20000, 0x3fffd},
	};

	for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		if (c >= zero[i][0] && c <= zero[i][1])
			return 0;
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (c >= wide[i][0] && c <= wide[i][1])
			return 2;
	return 1;
}

/* The character at s: its length in bytes (>= 1) and cells; a byte that
 * does not start valid UTF-8 is one byte of one cell. */
static size_t char_at(const unsigned char *s, int *cells)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 1;
	uint32_t c = n == 4 ? s[0] & 0x07u : n == 3 ? s[0] & 0x0fu : n == 2 ? s[0] & 0x1fu : s[0];

	*cells = 1;
	if (s[0] < 0x80)
		return 1;
	if (n == 1)
		return 1; /* continuation byte or 0xc0, 0xc1, 0xf5..0xff alone */
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 1;
		c = c << 6 | (s[i] & 0x3fu);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 1; /* overlong or a surrogate: invalid, shown as one cell */
	*cells = cp_cells(c);
	return n;
}

size_t term_cells(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t total = 0;
	int w;

	if (!s)
		return 0;
	while (*p) {
		p += char_at(p, &w);
		total += (size_t)w;
	}
	return total;
}

char *term_fit(const char *s, int cells, bool pad, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0, used = 0, keep, el = strlen(TERM_ELLIPSIS);
	int w;

	if (len == 0)
		return buf;
	if (cells < 0 || term_cells((const char *)p) <= (size_t)cells) {
		keep = (size_t)-1; /* all of it */
	} else {
		keep = (size_t)cells > el ? (size_t)cells - el : 0;
	}
	while (*p) {
		size_t n = char_at(p, &w);

		if (used + (size_t)w > keep || o + n >= len)
			break;
		memcpy(buf + o, p, n);
		o += n;
		used += (size_t)w;
		p += n;
	}
	if (*p && cells >= 0) { /* cut: the ellipsis, itself cut on a tiny width */
		for (size_t i = 0; i < el && used < (size_t)cells && o + 1 < len; i++, used++)
			buf[o++] = TERM_ELLIPSIS[i];
	}
	while (pad && cells >= 0 && used < (size_t)cells && o + 1 < len) {
		buf[o++] = ' ';
		used++;
	}
	buf[o] = '\0';
	return buf;
}

static int wrap_to(FILE *out, const char *first, const char *rest, const char *text, int width);

/* The stdout filter: bytes gather into a line; a complete line goes to
 * the real stdout cut to the width, but for a header line ("Label    text",
 * the text at cell 10), which wraps under its text: its numbers stay. */
static struct {
	FILE *real;
	int width;
	char *line;
	size_t len, cap;
	int lines; /* lines written to the real stdout since term_begin */
} filt;

#define HEADER_INDENT 9

/* "Memory   peak ...": a capitalised word, spaces to cell 9, then text */
static bool is_header_line(const char *l)
{
	size_t w = 0;

	if (l[0] < 'A' || l[0] > 'Z' || strlen(l) <= HEADER_INDENT || l[HEADER_INDENT] == ' ')
		return false;
	while (w < HEADER_INDENT && l[w] != ' ')
		w++;
	if (w >= HEADER_INDENT)
		return false;
	for (; w < HEADER_INDENT; w++)
		if (l[w] != ' ')
			return false;
	return true;
}

static void emit_line(bool newline)
{
	char *out;

	if (filt.len == 0 && !newline)
		return;
	filt.line[filt.len] = '\0';
	if (newline && is_header_line(filt.line) && term_cells(filt.line) > (size_t)filt.width) {
		char label[HEADER_INDENT + 1];

		memcpy(label, filt.line, HEADER_INDENT);
		label[HEADER_INDENT] = '\0';
		filt.lines += wrap_to(filt.real, label, "         ", filt.line + HEADER_INDENT,
				      filt.width);
		filt.len = 0;
		return;
	}
	out = malloc(filt.len + 1);
	if (out) {
		term_fit(filt.line, filt.width, false, out, filt.len + 1);
		fputs(out, filt.real);
		free(out);
	} else {
		fputs(filt.line, filt.real); /* uncut rather than lost */
	}
	if (newline) {
		fputc('\n', filt.real);
		filt.lines++;
	}
	filt.len = 0;
}

static ssize_t filt_write(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	for (size_t i = 0; i < size; i++) {
		if (buf[i] == '\n') {
			emit_line(true);
			continue;
		}
		if (filt.len + 2 > filt.cap) {
			size_t cap = filt.cap ? filt.cap * 2 : 256;
			char *l = realloc(filt.line, cap);

			if (!l)
				return -1;
			filt.line = l;
			filt.cap = cap;
		}
		filt.line[filt.len++] = buf[i];
	}
	return (ssize_t)size;
}

static int filt_close(void *cookie)
{
	(void)cookie;
	if (filt.line)
		emit_line(false);
	free(filt.line);
	filt.line = NULL;
	filt.len = filt.cap = 0;
	return fflush(filt.real);
}

int term_begin(int width)
{
	static const cookie_io_functions_t io = {.write = filt_write, .close = filt_close};
	FILE *f;

	if (width <= 0 || filt.real)
		return 0;
	fflush(stdout);
	filt.width = width;
	filt.lines = 0;
	f = fopencookie(NULL, "w", io);
	if (!f)
		return -1;
	filt.real = stdout;
	stdout = f; /* glibc's stdout is an assignable variable (its manual, 12.2) */
	return 0;
}

void term_flush(void)
{
	fflush(stdout);
	if (filt.real)
		fflush(filt.real);
}

int term_lines(void)
{
	if (!filt.real)
		return -1;
	fflush(stdout);
	return filt.lines;
}

void term_end(void)
{
	if (!filt.real)
		return;
	fclose(stdout);
	stdout = filt.real;
	filt.real = NULL;
}

void term_wrap(const char *first, const char *rest, const char *text, int width)
{
	wrap_to(stdout, first, rest, text, width);
}

/* the lines written */
static int wrap_to(FILE *out, const char *first, const char *rest, const char *text, int width)
{
	const char *p = text, *lead = first;
	int lines = 0;

	while (*p == ' ')
		p++;
	while (*p) {
		int room = width > 0 ? width - (int)term_cells(lead) : -1;
		const char *end = p, *brk = NULL, *clause = NULL;
		size_t used = 0;
		int w;

		/* the longest run of whole words that fits; a word longer than a
		 * line is cut where the line ends */
		while (*end) {
			size_t n = char_at((const unsigned char *)end, &w);

			if (room >= 0 && used + (size_t)w > (size_t)(room > 0 ? room : 1))
				break;
			if (*end == ' ')
				brk = end;
			if (*end == ' ' && end > p && (end[-1] == ',' || end[-1] == ';'))
				clause = end;
			used += (size_t)w;
			end += n;
		}
		/* break after a clause ("x 1 MiB, y 2 MiB") rather than inside one
		 * ("2" / "MiB"), unless that leaves the line less than half full */
		if (*end && clause && clause - p >= (end - p) / 2)
			end = clause;
		else if (*end && brk && brk > p)
			end = brk;
		else if (end == p) /* not even one character fits */
			end += char_at((const unsigned char *)end, &w);
		fprintf(out, "%s%.*s\n", lead, (int)(end - p), p);
		lines++;
		p = end;
		while (*p == ' ')
			p++;
		lead = rest;
	}
	return lines;
}
