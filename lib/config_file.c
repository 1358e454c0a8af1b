/*
 * config_file.c - reading tracer.conf: "key = value" lines, each set
 * through config_set (config.c).  A bad value, an unknown key, a
 * duplicate key or a line that is too long is reported through the warn
 * callback as "FILE:LINE: KEY: what is wrong".  Read leniently
 * (config_load: tracer, tracer-wrap) the line is skipped, so one typo
 * never stops a job: the key keeps its default.  Read strictly
 * (config_check: tracerd at start, --check-config, SIGHUP) every problem
 * is counted, so the caller can refuse the file.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "defaults.h"
#include "errmsg.h"

#define CONFIG_LINE_MAX 4096

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
			 e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/*
 * The value part: "quoted" or 'quoted' (taken as is), or bare, where a
 * '#' after whitespace starts a comment.  NULL when a quote is unclosed
 * or followed by something other than a comment.
 */
static char *parse_value(char *v)
{
	char *p;

	v = trim(v);
	if (*v == '"' || *v == '\'') {
		char *close = strchr(v + 1, *v);

		if (!close)
			return NULL;
		*close = '\0';
		p = trim(close + 1);
		if (*p && *p != '#')
			return NULL;
		return v + 1;
	}
	for (p = v; *p; p++)
		if (*p == '#' && (p == v || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			break;
		}
	return trim(v);
}

/* How a file is read: lenient (a program starting: skip and go on) or
 * strict (--check-config, a reload: every problem counts). */
struct load_ctx {
	const char *path;
	config_warn_fn warn;
	bool strict;
	int problems;
	int *first_line; /* per key index: where it was set; 0: not yet */
};

static void problem(struct load_ctx *lc, int lineno, const char *fmt, const char *key,
		    const char *what)
{
	char msg[700];

	lc->problems++;
	snprintf(msg, sizeof(msg), fmt, key, what);
	errmsg_warn(lc->warn, "%s:%d: %s%s", lc->path, lineno, msg,
	      lc->strict ? "" : "; line skipped");
}

static void config_line(struct tracer_config *cfg, char *line, int lineno,
			struct load_ctx *lc)
{
	char err[512], what[64], *key, *eq, *value;
	int k;

	key = trim(line);
	if (*key == '\0' || *key == '#')
		return;
	eq = strchr(key, '=');
	if (!eq) {
		problem(lc, lineno, "%s%s", "", "expected \"key = value\"");
		return;
	}
	*eq = '\0';
	key = trim(key);
	value = parse_value(eq + 1);
	if (!value) {
		problem(lc, lineno, "%.64s: %s", key, "unbalanced quotes");
		return;
	}
	k = config_key_index(key);
	if (k >= 0 && lc->first_line[k]) {
		snprintf(what, sizeof(what), "duplicate key (first set on line %d)",
			 lc->first_line[k]);
		if (lc->strict) {
			problem(lc, lineno, "%s: %s", key, what);
			return;
		}
		/* a program starting warns and takes the last, as before */
		errmsg_warn(lc->warn, "%s:%d: %s: %s; the last one wins", lc->path, lineno, key, what);
	}
	if (config_set(cfg, key, value, err, sizeof(err)) < 0) {
		lc->problems++;
		errmsg_warn(lc->warn, "%s:%d: %s%s", lc->path, lineno, err,
		      lc->strict ? "" : "; keeping the previous value");
		return;
	}
	if (k >= 0 && !lc->first_line[k])
		lc->first_line[k] = lineno;
}

/*
 * One line into buf (without '\n').  Returns 0, or -1 at end of file.
 * A line longer than the buffer is consumed whole and flagged, as is a
 * line holding a NUL byte.
 */
static int read_line(FILE *f, char *buf, size_t cap, bool *too_long,
		     bool *has_nul)
{
	size_t n = 0;
	int c;

	*too_long = *has_nul = false;
	while ((c = getc(f)) != EOF && c != '\n') {
		if (c == '\0')
			*has_nul = true;
		if (n + 1 < cap)
			buf[n++] = (char)c;
		else
			*too_long = true;
	}
	buf[n] = '\0';
	return c == EOF && n == 0 && !*too_long && !*has_nul ? -1 : 0;
}

/* Problems found (0: none), or -1 when the file could not be read. */
static int load(struct tracer_config *cfg, const char *path, bool missing_ok,
		config_warn_fn warn, bool strict)
{
	static char line[CONFIG_LINE_MAX]; /* one reader at a time: callers are single-threaded */
	struct load_ctx lc = {.path = path, .warn = warn, .strict = strict};
	bool too_long, has_nul;
	int lineno = 0, ret = -1;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT && missing_ok)
			return 0;
		errmsg_warn(warn, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	lc.first_line = calloc(config_key_count(), sizeof(*lc.first_line));
	if (!lc.first_line) {
		errmsg_warn(warn, "%s: out of memory", path);
		fclose(f);
		return -1;
	}
	while (read_line(f, line, sizeof(line), &too_long, &has_nul) == 0) {
		lineno++;
		if (too_long) {
			lc.problems++;
			errmsg_warn(warn, "%s:%d: line longer than %d bytes%s", path, lineno,
			      CONFIG_LINE_MAX - 1, strict ? "" : ", skipped");
		} else if (has_nul) {
			lc.problems++;
			errmsg_warn(warn, "%s:%d: NUL byte in line%s", path, lineno,
			      strict ? "" : ", skipped");
		} else {
			config_line(cfg, line, lineno, &lc);
		}
	}
	if (ferror(f)) {
		errmsg_warn(warn, "%s: cannot read: %s", path, strerror(errno));
		goto out;
	}
	ret = lc.problems;
out:
	free(lc.first_line);
	fclose(f);
	return ret;
}

int config_load(struct tracer_config *cfg, const char *path, bool missing_ok,
		config_warn_fn warn)
{
	return load(cfg, path ? path : TRACER_DEFAULT_CONFIG, missing_ok, warn, false) < 0 ? -1 : 0;
}

int config_check(struct tracer_config *cfg, const char *path, bool missing_ok,
		 config_warn_fn warn)
{
	return load(cfg, path ? path : TRACER_DEFAULT_CONFIG, missing_ok, warn, true);
}

