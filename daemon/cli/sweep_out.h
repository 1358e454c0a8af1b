/*
 * sweep_out.h - `tracer sweep`'s output (sweep_out.c): the answer of
 * lib/sweep.h as a table for people, JSON and CSV for tools, or an HTML
 * page.
 */
#ifndef TRACER_CLI_SWEEP_OUT_H
#define TRACER_CLI_SWEEP_OUT_H

#include <stdbool.h>
#include <stdio.h>
#include <cjson/cJSON.h>

enum sweep_format { SWEEP_OUT_TABLE, SWEEP_OUT_JSON, SWEEP_OUT_CSV, SWEEP_OUT_HTML };

/* Print ans in format (HTML: to html_path, "-" stdout); since_text is the
 * window as typed.  0, or 1 after a message on stderr. */
int sweep_print(const cJSON *ans, enum sweep_format format, const char *since_text,
		const char *html_path, bool wide);

/* sweep_idle_out.c: the answer's idle hosts (admins' sweeps), after the
 * groups: as a table, a CSV block (after an empty line), HTML. */
void sweep_idle_print_table(const cJSON *ans, bool wide);
void sweep_idle_print_csv(const cJSON *ans);
void sweep_idle_html(FILE *f, const cJSON *ans);

#endif
