/*
 * cli.h - the `tracer` command: shared options and the subcommands.
 */
#ifndef TRACER_CLI_H
#define TRACER_CLI_H

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

/* Summaries from the file sink: the last `max` (oldest first), or the one
 * whose job uid, Slurm/AWS job id or task name matches (NULL if none).
 * "last" names the newest. */
cJSON *summaries_tail(const char *path, size_t max);
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
const char *fmt_secs(double s, char *buf, size_t len);
const char *fmt_pct(double ratio, char *buf, size_t len);
double jnum(const cJSON *o, const char *key);
const char *jstr(const cJSON *o, const char *key);

#endif
