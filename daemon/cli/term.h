/*
 * term.h - the `tracer` command on a terminal: how wide the lines may be,
 * how many cells a string takes, cutting and padding by cells, and tables
 * whose columns fit the width (term.c, table.c).
 *
 * Widths are display cells: a UTF-8 character takes one cell, two for the
 * East Asian wide ones, none for combining marks; a byte that is not
 * valid UTF-8 takes one (the terminal shows a replacement character).
 * Control characters never reach here raw (lib/textsafe escapes them to
 * "\xNN", four cells).  A cut string ends in TERM_ELLIPSIS.
 */
#ifndef TRACER_TERM_H
#define TRACER_TERM_H

#include <stdbool.h>
#include <stddef.h>

/* ASCII, so that it reads the same in every locale, log and pipe */
#define TERM_ELLIPSIS "..."

/* The width lines must fit: 0 (no limit) with wide; the terminal's
 * (TIOCGWINSZ, else $COLUMNS) when stdout is a terminal; else 80. */
int term_width(bool wide);

/* Display cells of s (NULL: 0). */
size_t term_cells(const char *s);

/* s in at most `cells` cells (cut with TERM_ELLIPSIS when longer), then
 * padded with spaces to exactly `cells` when pad; into buf (len bytes).
 * cells < 0: s whole.  Returns buf. */
char *term_fit(const char *s, int cells, bool pad, char *buf, size_t len);

/* From here until term_end(), every line printed on stdout is cut to
 * width cells (0: left alone).  Returns 0, or -1 (stdout left as it was). */
int term_begin(int width);
void term_end(void);
/* The lines written since term_begin (what was printed flushed first);
 * -1 outside term_begin/term_end, or with no width. */
int term_lines(void);
/* Everything printed so far written out (before a line on stderr). */
void term_flush(void);

/* text as lines of at most width cells (0: one line), broken at spaces:
 * first line after `first`, the others after `rest` (their widths count). */
void term_wrap(const char *first, const char *rest, const char *text, int width);

/* A table: columns sized from their contents, then fitted to a width by
 * cutting the columns that may be cut (min > 0) down to min cells, then
 * leaving out the columns that may be left out, highest `drop` first; a
 * line on stderr after the table names what was left out. */
struct table_col {
	const char *head;
	char align; /* 'l' or 'r' */
	int min;    /* > 0: may be cut down to min cells */
	int drop;   /* > 0: may be left out, highest first */
};
struct table;

struct table *table_new(const struct table_col *cols, int ncols);
/* One row of ncols strings (copied; NULL prints "-"). */
void table_add(struct table *t, const char *const *cells);
/* Print with every line at most width cells (0: natural widths), each line
 * after indent; then free t. */
void table_print(struct table *t, int width, const char *indent);

#endif
