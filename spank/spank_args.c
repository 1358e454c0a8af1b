/*
 * spank_args.c - the plain-text inputs of the plugin, kept apart from
 * the SPANK calls so that unit tests can run them:
 * the plugstack.conf arguments
 *   socket=PATH      tracerd's registration socket
 *   timeout_ms=N     hard limit of each exchange with tracerd (1..1000)
 *   notes=yes|no     srun's notes at a step's end: on unless the user
 *                    says --tracer-notes=no / never (default: when asked)
 * (a bad argument is reported and skipped; the default stays in force),
 * and Slurm's CPU lists ("0-3,8").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

#include "spank_tracer.h"

static int parse_timeout(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < SPANK_TIMEOUT_MIN_MS ||
	    v > SPANK_TIMEOUT_MAX_MS)
		return -1;
	*out = (int)v;
	return 0;
}

/* Append one complaint to err, keeping it a single line. */
static void complain(char *err, size_t errlen, const char *what,
		     const char *arg)
{
	size_t used = strlen(err);

	if (used >= errlen - 1)
		return;
	snprintf(err + used, errlen - used, "%s%s '%.200s'",
		 used ? "; " : "", what, arg);
}

/* An absolute path that fits a unix socket address. */
static int parse_socket(const char *path, struct spank_settings *set)
{
	size_t max = sizeof(((struct sockaddr_un *)0)->sun_path);

	if (path[0] != '/' || strlen(path) >= max ||
	    strlen(path) >= sizeof(set->socket_path))
		return -1;
	snprintf(set->socket_path, sizeof(set->socket_path), "%s", path);
	return 0;
}

int plugin_parse_args(int ac, char **av, struct spank_settings *set,
		      char *err, size_t errlen)
{
	int bad = 0;

	err[0] = '\0';
	for (int i = 0; i < ac; i++) {
		const char *a = av[i];

		if (!a || !*a)
			continue;
		if (!strncmp(a, "socket=", 7)) {
			if (parse_socket(a + 7, set) < 0) {
				complain(err, errlen,
					 "socket must be an absolute path of at most 107 bytes, ignored",
					 a);
				bad++;
			}
		} else if (!strncmp(a, "notes=", 6)) {
			int v = plugin_parse_switch(a + 6);

			if (v < 0) {
				complain(err, errlen, "notes must be yes or no, ignored", a);
				bad++;
			} else {
				set->notes = v ? SPANK_NOTES_ON : SPANK_NOTES_FORBIDDEN;
			}
		} else if (!strncmp(a, "timeout_ms=", 11)) {
			if (parse_timeout(a + 11, &set->timeout_ms) < 0) {
				complain(err, errlen,
					 "timeout_ms must be an integer 1..1000, ignored",
					 a);
				bad++;
			}
		} else {
			complain(err, errlen, "unknown argument, ignored", a);
			bad++;
		}
	}
	return bad;
}

int plugin_parse_switch(const char *arg)
{
	static const char *const yes[] = {"yes", "on", "1", "true"};
	static const char *const no[] = {"no", "off", "0", "false"};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(arg, yes[i]))
			return 1;
		if (!strcasecmp(arg, no[i]))
			return 0;
	}
	return -1;
}

bool plugin_notes_wanted(const struct spank_settings *set, const struct spank_user_opts *opts)
{
	if (opts->off || set->notes == SPANK_NOTES_FORBIDDEN)
		return false;
	if (opts->notes >= 0)
		return opts->notes == 1;
	return set->notes == SPANK_NOTES_ON;
}

int plugin_cpuset_count(const char *list)
{
	const char *p = list;
	long count = 0;

	if (!list || !*list)
		return -1;
	while (*p) {
		char *end;
		long lo, hi;

		errno = 0;
		lo = strtol(p, &end, 10);
		if (end == p || errno || lo < 0)
			return -1;
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			hi = strtol(p, &end, 10);
			if (end == p || errno || hi < lo)
				return -1;
			p = end;
		}
		count += hi - lo + 1;
		if (count > 1L << 20)
			return -1;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return (int)count;
}
