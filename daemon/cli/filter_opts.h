/*
 * filter_opts.h - the options that select jobs as sacct does (-j, -u, -A,
 * --partition, -N, -S, -E), one table and one parser for every command
 * that takes them (tracer jobs, tracer report), so that they mean the
 * same everywhere.
 */
#ifndef TRACER_CLI_FILTER_OPTS_H
#define TRACER_CLI_FILTER_OPTS_H

#include <getopt.h>
#include <stddef.h>

#include "jobfilter.h"

/* their short options, for a command's optstring */
#define FILTER_OPTS_SHORT "j:u:A:N:S:E:"
/* the long options' count, and --partition's value (above any char and
 * any command's own enum) */
#define FILTER_OPTS_COUNT 8
#define FILTER_OPTS_PARTITION 0x4000

/*
 * own (a getopt_long table ending with its NULL entry) followed by the
 * filter options and the NULL entry, into out (n entries at most): 0, or
 * -1 when out is too small.
 */
int filter_opts_table(struct option *out, size_t n, const struct option *own);

/*
 * c (getopt's answer, its argument arg) into f when it is a filter
 * option: 0 taken, 1 not one of them, 2 a usage error (one line said
 * why, as "tracer CMD: ...").
 */
int filter_opts_take(int c, const char *arg, const char *cmd, struct job_filter *f);

#endif
