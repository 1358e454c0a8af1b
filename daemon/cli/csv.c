/*
 * csv.c - CSV cells (csv.h).  The formula rule is OWASP's "CSV
 * injection" advice: a job or tool name like =HYPERLINK(...) or
 * @SUM(...) must not run when an admin opens the export.
 */
#include "csv.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool looks_like_formula(const char *s)
{
	if (!strchr("=+-@\t\r", s[0]) || !s[0])
		return false;
	return strcmp(s, "-") != 0; /* the table's "unknown", not a formula */
}

void csv_field(const char *s)
{
	bool formula;

	if (!s)
		return;
	formula = looks_like_formula(s);
	if (!formula && !s[strcspn(s, ",\"\r\n")]) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	if (formula)
		putchar('\'');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

void csv_num(double v)
{
	if (!isnan(v))
		printf("%.15g", v);
}
