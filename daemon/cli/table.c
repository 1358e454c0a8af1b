/*
 * table.c - the tables of `tracer show`, `jobs` and `report`: columns as
 * wide as their widest cell (in display cells, so UTF-8 names line up),
 * fitted to the terminal by cutting text columns, then by leaving out the
 * columns that matter least, named on stderr (term.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "term.h"

#define MAX_COLS 16
#define GAP_WIDE 2 /* spaces between columns when they fit, else 1 */

struct table {
	struct table_col cols[MAX_COLS];
	int ncols;
	char **cells; /* nrows * ncols */
	size_t nrows, cap;
};

struct table *table_new(const struct table_col *cols, int ncols)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ncols = ncols < MAX_COLS ? ncols : MAX_COLS;
	memcpy(t->cols, cols, sizeof(*cols) * (size_t)t->ncols);
	return t;
}

void table_add(struct table *t, const char *const *cells)
{
	if (!t)
		return;
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		char **c = realloc(t->cells, cap * (size_t)t->ncols * sizeof(*c));

		if (!c)
			return; /* the row is left out rather than the program stopped */
		t->cells = c;
		t->cap = cap;
	}
	for (int i = 0; i < t->ncols; i++)
		t->cells[t->nrows * (size_t)t->ncols + (size_t)i] = strdup(cells[i] ? cells[i] : "-");
	t->nrows++;
}

static int line_width(const int *w, const bool *shown, int n, int gap)
{
	int total = 0, k = 0;

	for (int i = 0; i < n; i++)
		if (shown[i])
			total += w[i] + (k++ ? gap : 0);
	return total;
}

/* Room freed by a column left out goes back to the cut text columns,
 * leftmost first, up to their own widths. */
static void give_back(const struct table *t, int *w, const int *nat, const bool *shown, int room)
{
	for (int i = 0; i < t->ncols && room > 0; i++) {
		int more = nat[i] - w[i];

		if (!shown[i] || more <= 0)
			continue;
		more = more < room ? more : room;
		w[i] += more;
		room -= more;
	}
}

/* Cut text columns, then leave out columns, until the line fits width. */
static int fit(const struct table *t, int *w, bool *shown, int width, const char *indent)
{
	int nat[MAX_COLS];

	memcpy(nat, w, sizeof(nat));

	int room = width - (int)term_cells(indent), gap = GAP_WIDE;

	if (width <= 0 || line_width(w, shown, t->ncols, gap) <= room)
		return gap;
	gap = 1;
	for (;;) {
		int excess = line_width(w, shown, t->ncols, gap) - room, widest = -1, worst = -1;

		if (excess <= 0)
			return gap;
		for (int i = 0; i < t->ncols; i++)
			if (shown[i] && t->cols[i].min > 0 && w[i] > t->cols[i].min &&
			    (widest < 0 || w[i] > w[widest]))
				widest = i;
		if (widest >= 0) { /* the widest text column gives up to the next one's width */
			int second = t->cols[widest].min;

			for (int i = 0; i < t->ncols; i++)
				if (i != widest && shown[i] && t->cols[i].min > 0 && w[i] > second &&
				    w[i] <= w[widest])
					second = w[i];
			int cut = w[widest] - second;
			w[widest] -= cut > excess ? excess : cut > 0 ? cut : 1;
			continue;
		}
		for (int i = 0; i < t->ncols; i++)
			if (shown[i] && t->cols[i].drop > 0 &&
			    (worst < 0 || t->cols[i].drop >= t->cols[worst].drop))
				worst = i;
		if (worst < 0)
			return gap; /* nothing more to give: the stdout filter cuts */
		shown[worst] = false;
		give_back(t, w, nat, shown, room - line_width(w, shown, t->ncols, gap));
	}
}

static void print_row(const struct table *t, char *const *cells, const int *w,
		      const bool *shown, int gap, const char *indent)
{
	int last = -1, k = 0;

	for (int i = 0; i < t->ncols; i++)
		if (shown[i])
			last = i;
	fputs(indent, stdout);
	for (int i = 0; i < t->ncols; i++) {
		size_t len, cells_n;
		char *buf;

		if (!shown[i])
			continue;
		if (k++)
			printf("%*s", gap, "");
		len = strlen(cells[i]) + (size_t)w[i] + 8;
		buf = malloc(len);
		if (!buf)
			continue;
		cells_n = term_cells(term_fit(cells[i], w[i], false, buf, len));
		if (t->cols[i].align == 'r')
			printf("%*s%s", w[i] - (int)cells_n, "", buf);
		else if (i == last)
			fputs(buf, stdout); /* no trailing blanks */
		else
			printf("%s%*s", buf, w[i] - (int)cells_n, "");
		free(buf);
	}
	putchar('\n');
}

void table_print(struct table *t, int width, const char *indent)
{
	int w[MAX_COLS];
	bool shown[MAX_COLS];
	char *heads[MAX_COLS];
	int gap, left = 0;

	if (!t)
		return;
	for (int i = 0; i < t->ncols; i++) {
		w[i] = (int)term_cells(t->cols[i].head);
		shown[i] = true;
		heads[i] = (char *)t->cols[i].head;
		for (size_t r = 0; r < t->nrows; r++) {
			int c = (int)term_cells(t->cells[r * (size_t)t->ncols + (size_t)i]);
			if (c > w[i])
				w[i] = c;
		}
	}
	gap = fit(t, w, shown, width, indent);
	print_row(t, heads, w, shown, gap, indent);
	for (size_t r = 0; r < t->nrows; r++)
		print_row(t, t->cells + r * (size_t)t->ncols, w, shown, gap, indent);
	for (int i = 0; i < t->ncols; i++)
		left += !shown[i];
	if (left) { /* on stderr: stdout stays a table for awk and friends */
		char msg[512], out[512];
		size_t off = (size_t)snprintf(msg, sizeof(msg), "(%d columns wide; --wide shows", width);

		for (int i = 0; i < t->ncols && off < sizeof(msg); i++)
			if (!shown[i])
				off += (size_t)snprintf(msg + off, sizeof(msg) - off, " %s", t->cols[i].head);
		if (off < sizeof(msg))
			snprintf(msg + off, sizeof(msg) - off, ")");
		term_flush(); /* the table first, then this line */
		fprintf(stderr, "%s\n", term_fit(msg, width, false, out, sizeof(out)));
	}
	for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t);
}
