/*
 * cli.h - the `tracer` command: shared options and the subcommands.
 */
#ifndef TRACER_CLI_H
#define TRACER_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "config.h"

struct cli {
	struct tracer_config cfg;
	bool json;
};

int cmd_status(struct cli *c, int argc, char **argv);
int cmd_jobs(struct cli *c, int argc, char **argv);
int cmd_show(struct cli *c, int argc, char **argv);
int cmd_run(struct cli *c, int argc, char **argv);

/*
 * getopt_long for a subcommand (argv[0] is its name, cmd; optind starts
 * at 0), or for `tracer` itself (cmd NULL).  Returns the option, -1 after the last one, or '?' after one
 * line on stderr naming an unknown option or one missing its value (the
 * caller returns 2).  optstring starts with ':' (after '+' if any).
 */
int cli_getopt(int argc, char **argv, const char *optstring,
	       const struct option *longopts, const char *cmd);
/* One line about an argument cmd does not take; returns 2. */
int cli_extra_arg(const char *cmd, const char *arg);

/* `tracer jobs`' selection (jobfilter.c); every field set must match. */
struct job_filter {
	const char *users;   /* -u: comma list of user names or uids */
	const char *states;  /* --state: comma list of state words (sacct's) */
	const char *names;   /* --name: comma list of task names */
	const char *runs;    /* -r: comma list of run ids or run names */
	int64_t since_ns;    /* -S: ended at or after (INT64_MIN: any) */
	int64_t until_ns;    /* -E: started at or before (INT64_MAX: any) */
};

void job_filter_init(struct job_filter *f);
bool job_filter_match(const struct job_filter *f, const cJSON *identity,
		      const char *state, int64_t start_ns, int64_t end_ns);
bool job_filter_summary(const struct job_filter *f, const cJSON *summary);

/* Summaries from the file sink: the last `max` that pass f (NULL: all;
 * max 0: no limit), oldest first, or the one whose job uid, Slurm/AWS
 * job id or task name matches (NULL if none).  "last" names the newest. */
cJSON *summaries_tail(const char *path, size_t max, const struct job_filter *f);
cJSON *summary_find(const char *path, const char *name);

/* Every summary of the archive, oldest file first: FILE.N ... FILE.1
 * (rotated), then FILE.  fn gets each parsed summary (freed after it
 * returns); non-zero from fn stops.  Returns 0, fn's value, or -1 when a
 * file cannot be read; *files is the number of files read. */
typedef int (*summary_fn)(const cJSON *s, void *ctx);
int summaries_each(const char *path, summary_fn fn, void *ctx, int *files);
int cmd_report(struct cli *c, int argc, char **argv);

/* Human units: "1.5 GiB", "12.3 s", "87%"; into buf, returns buf. */
const char *fmt_bytes(uint64_t v, char *buf, size_t len);
const char *fmt_net(const cJSON *o, char *buf, size_t len);  /* network bytes */
const char *fmt_disk(const cJSON *o, char *buf, size_t len); /* block bytes */
void print_netio_header(const cJSON *summary);
const char *fmt_secs(double s, char *buf, size_t len);
/* `tracer show`: state, OOM, flags, recommendation, cost (advice.c) */
void print_advice(const cJSON *s, int width); /* width 0: no limit */
const char *fmt_pct(double ratio, char *buf, size_t len);
double jnum(const cJSON *o, const char *key);
const char *jstr(const cJSON *o, const char *key);
/* "-" for NULL or "" */
const char *or_dash(const char *s);
/* "3", "sig 9" or "-" from o's code_key and "signal" */
const char *exit_text(const cJSON *o, const char *code_key, char *buf, size_t len);
void cli_print_json(const cJSON *o);
void print_containers(const cJSON *s);

#endif
