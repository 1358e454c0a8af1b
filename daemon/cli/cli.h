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
#include "jobfilter.h"
#include "sumfile.h"

struct cli {
	struct tracer_config cfg;
	bool json;
};

int cmd_status(struct cli *c, int argc, char **argv);
int cmd_jobs(struct cli *c, int argc, char **argv);
int cmd_show(struct cli *c, int argc, char **argv);
int cmd_run(struct cli *c, int argc, char **argv);
int cmd_datalake(struct cli *c, int argc, char **argv);
int cmd_tune(struct cli *c, int argc, char **argv);

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

/*
 * Finished jobs' summaries (archive.c): root reads the archive itself
 * (lib/sumfile); any other user asks tracerd, which answers with that
 * user's jobs only (every job for admin_group), and reads the file
 * itself only when tracerd is not running.  Messages go to stderr.
 */
cJSON *cli_summaries_tail(struct cli *c, size_t max, const struct job_filter *f);
/*
 * The summaries of the newest `jobs` (> 0) finished jobs that pass f
 * step by step (f's states: the job's state, the worst of its steps'),
 * for jobview_group: from a datalake every summary of those jobs; from
 * a file archive (or a tracerd that predates the job window) the newest
 * jobs x TRACER_DEFAULT_JOBS_STEPS_READ summaries.  NULL after a message.
 */
cJSON *cli_jobs_tail(struct cli *c, size_t jobs, const struct job_filter *f);
cJSON *cli_summary_find(struct cli *c, const char *name);
/* Every summary of the whole archive (rotated files too) that passes f
 * (NULL: all), oldest first, handed to fn: 0, or non-zero after a message
 * (or fn's non-zero).  f goes to tracerd and the datalake as the
 * selection, so that they read only what is asked. */
int cli_summaries_each(struct cli *c, const struct job_filter *f, summary_fn fn, void *ctx,
		       int *files);
/* Every summary of the whole archive (rotated files too) that passes f,
 * oldest first, at most TRACER_DEFAULT_JOBVIEW_MAX_STEPS (the newest of
 * tracerd's answer, the oldest of the files); NULL after a message. */
cJSON *cli_summaries_select(struct cli *c, const struct job_filter *f);
/* show_job.c: what `tracer show NAME [--node HOST]` shows: the job view
 * of a job id, else the one summary NAME finds; NULL when none. */
cJSON *cli_job_view(struct cli *c, const char *name, const char *node);
/* Slurm job job_id of cluster (NULL: any) and user (name or uid; NULL:
 * any) rolled up as cli_job_view does; NULL when it has no such job.
 * Another cluster's or user's job of the same id is never taken. */
cJSON *cli_job_view_of(struct cli *c, const char *job_id, const char *cluster, const char *user,
		       const char *node);
/* The job view's steps as a table (nothing for one step). */
void show_job_steps(const cJSON *view, int width);
/* Does this user ask tracerd (not root)? */
bool cli_archive_remote(void);
int report_command(struct cli *c, int argc, char **argv);
int cmd_sweep(struct cli *c, int argc, char **argv); /* cmd_sweep.c */

/* Human units: "1.5 GiB", "12.3 s", "87%"; into buf, returns buf. */
const char *fmt_bytes(uint64_t v, char *buf, size_t len);
const char *fmt_net(const cJSON *o, char *buf, size_t len);  /* network bytes */
const char *fmt_disk(const cJSON *o, char *buf, size_t len); /* block bytes */
void fmt_netio_header(const cJSON *summary);
const char *fmt_secs(double s, char *buf, size_t len);
/* `tracer show`: state, OOM, flags, recommendation, cost (advice.c);
 * width 0: no limit; without all_notes, at most tool_notes notes on tools */
void advice_print(const cJSON *s, int width, bool all_notes, int tool_notes);
const char *fmt_pct(double ratio, char *buf, size_t len);
double cli_jnum(const cJSON *o, const char *key);
const char *cli_jstr(const cJSON *o, const char *key);
/* "-" for NULL or "" */
const char *fmt_or_dash(const char *s);
/* "3", "sig 9" or "-" from o's code_key and "signal" */
const char *fmt_exit_text(const cJSON *o, const char *code_key, char *buf, size_t len);
void cli_print_json(const cJSON *o);
void fmt_containers(const cJSON *s);

#endif
