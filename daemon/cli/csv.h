/*
 * csv.h - one CSV cell of `tracer jobs --csv` and `tracer report --csv`:
 * RFC 4180 quoting, and cells a spreadsheet would take for a formula
 * neutralised (names come from users).
 */
#ifndef TRACER_CLI_CSV_H
#define TRACER_CLI_CSV_H

/*
 * s as one cell on stdout (NULL: an empty cell).  Quoted when it holds a
 * comma, a quote or a line break; a cell that starts with '=', '+', '-',
 * '@', a tab or a carriage return (all but a lone "-") gets a leading
 * "'" and quotes, so that a spreadsheet shows it as text.
 */
void csv_field(const char *s);

/* A number as a cell: %.15g, empty for NaN (unknown). */
void csv_num(double v);

#endif
