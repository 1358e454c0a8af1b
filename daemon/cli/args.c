/*
 * args.c - one way for every `tracer` subcommand to read its options:
 * getopt_long, `-h`/`--help` to stdout with exit 0, and one line on
 * stderr naming an unknown option, a missing value or an extra argument
 * (a usage error: exit 2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The option as typed, without "=value". */
static void name_of(char **argv, char *buf, size_t len)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (optopt && !(arg[0] == '-' && arg[1] == '-')) {
		snprintf(buf, len, "-%c", optopt);
		return;
	}
	snprintf(buf, len, "%.*s", (int)strcspn(arg, "="), arg);
}

int cli_getopt(int argc, char **argv, const char *optstring,
	       const struct option *longopts, const char *cmd)
{
	const char *sp = cmd ? " " : "", *name_cmd = cmd ? cmd : "";
	char name[64];
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, optstring, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	name_of(argv, name, sizeof(name));
	if (c == ':')
		fprintf(stderr, "tracer%s%s: option %s needs a value\n", sp, name_cmd, name);
	else if (optopt && name[1] == '-')   /* a known long option given "=value" */
		fprintf(stderr, "tracer%s%s: option %s takes no value\n", sp, name_cmd, name);
	else
		fprintf(stderr, "tracer%s%s: unknown option %s (see tracer%s%s --help)\n", sp,
			name_cmd, name, sp, name_cmd);
	return '?';
}

int cli_extra_arg(const char *cmd, const char *arg)
{
	fprintf(stderr, "tracer %s: unexpected argument \"%s\" (see tracer %s --help)\n",
		cmd, arg, cmd);
	return 2;
}
