/*
 * filter_opts.c - the job-selecting options of tracer jobs and tracer
 * report (filter_opts.h): their getopt_long entries and their parsing
 * into a job_filter, defined once.
 */
#include "filter_opts.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock.h"

static const struct option filter_long[FILTER_OPTS_COUNT] = {
	{"jobs", required_argument, NULL, 'j'},
	{"user", required_argument, NULL, 'u'},
	{"account", required_argument, NULL, 'A'},
	{"partition", required_argument, NULL, FILTER_OPTS_PARTITION},
	{"nodelist", required_argument, NULL, 'N'},
	{"node", required_argument, NULL, 'N'},
	{"starttime", required_argument, NULL, 'S'},
	{"endtime", required_argument, NULL, 'E'},
};

int filter_opts_table(struct option *out, size_t n, const struct option *own)
{
	size_t k = 0;

	while (own[k].name)
		k++;
	if (k + FILTER_OPTS_COUNT + 1 > n)
		return -1;
	memcpy(out, own, k * sizeof(*own));
	memcpy(out + k, filter_long, sizeof(filter_long));
	memset(&out[k + FILTER_OPTS_COUNT], 0, sizeof(*out));
	return 0;
}

int filter_opts_take(int c, const char *arg, const char *cmd, struct job_filter *f)
{
	switch (c) {
	case 'j': f->job_ids = arg; return 0;
	case 'u': f->users = arg; return 0;
	case 'A': f->accounts = arg; return 0;
	case FILTER_OPTS_PARTITION: f->partitions = arg; return 0;
	case 'N': f->nodes = arg; return 0;
	case 'S':
	case 'E':
		if (clock_parse_time(arg, time(NULL), c == 'S' ? &f->since_ns : &f->until_ns) == 0)
			return 0;
		fprintf(stderr, "tracer %s: -%c: \"%s\" is not a time (now-1day, today, "
				"2026-11-22T06:30, ...)\n", cmd, c, arg);
		return 2;
	default:
		return 1;
	}
}
