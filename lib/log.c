/* log.c - see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "textsafe.h"

/* Set by tracerd's loop on SIGHUP while its other threads log: atomic.
 * The prefix is set once, before any thread starts. */
static _Atomic int min_level = LOG_INFO;
static const char *log_prefix = "tracer";

void log_set_level(enum log_level lvl) { min_level = (int)lvl; }
void log_set_prefix(const char *prefix) { log_prefix = prefix; }
int log_enabled(enum log_level lvl) { return (int)lvl >= min_level; }

int log_parse_level(const char *s)
{
	static const char *const names[] = {"debug", "info", "warn", "error"};
	for (int i = 0; i < 4; i++)
		if (strcasecmp(s, names[i]) == 0)
			return i;
	return -1;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	static const char *const tags[] = {"debug", "info", "warning", "error"};
	char line[2048], safe[2048];
	va_list ap;

	if ((int)lvl < min_level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* names and paths in messages come from users: no raw controls */
	text_safe(line, safe, sizeof(safe));
	/* one write per line so concurrent writers do not interleave */
	fprintf(stderr, "%s: %s: %s\n", log_prefix, tags[lvl], safe);
}
