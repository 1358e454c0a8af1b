/*
 * history.h - the last runs of each task name of each user, in memory and
 * bounded (HISTORY_TASKS keys, HISTORY_RUNS runs each, least recently used
 * key evicted), so that flags (`slower_than_usual`) and right-sizing can
 * compare a job with earlier runs without reading the archive at job
 * close.  tracerd fills it once at start from the tail of its NDJSON file
 * (at most HISTORY_LOAD_BYTES) and then from each job it closes.
 *
 * The key is (uid, task name): a user's runs are compared only with that
 * user's own runs.  Keyed on the name alone, anyone's runs of a task
 * named like yours would move your flags and requests and reveal their
 * run times.  A pipeline shared by a group is still kept per user: the
 * summary carries no group the pipeline belongs to, and a group key would
 * let any member poison the others' history.  A run whose uid is unknown
 * (-1) has its own key, shared by no user.
 */
#ifndef TRACER_HISTORY_H
#define TRACER_HISTORY_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#define HISTORY_TASKS 1024
#define HISTORY_RUNS 10
#define HISTORY_NAME_LEN 128
#define HISTORY_LOAD_BYTES (8u << 20)

struct history_run {
	double wall_s;
	uint64_t peak_bytes;
	int cpus;             /* CPUs the run needed (concurrency p95, at least mean use) */
};

struct history_task {
	long uid;             /* the runs' owner; -1 unknown */
	char name[HISTORY_NAME_LEN];
	struct history_run runs[HISTORY_RUNS]; /* ring, oldest overwritten */
	int n, next;
	uint64_t used;        /* LRU stamp */
};

struct history {
	struct history_task *tasks;
	size_t n;
	uint64_t clock;
};

int history_init(struct history *h);
void history_free(struct history *h);
void history_add(struct history *h, long uid, const char *name, const struct history_run *r);
/* NULL when uid's task name has no runs */
const struct history_task *history_find(const struct history *h, long uid, const char *name);
/* The run a summary describes (owner in identity.uid, -1 when absent;
 * task name in identity.task_name): 0, -1 when it has no task name or no
 * wall time. */
int history_run_of_summary(const cJSON *s, long *uid, char *name, size_t len,
			   struct history_run *r);
/* Add the summaries in the last HISTORY_LOAD_BYTES of an NDJSON file;
 * returns how many, -1 when it cannot be read. */
int history_load_file(struct history *h, const char *path);
/* p-th percentile (0..100) of the walls of t's runs */
double history_wall_pct(const struct history_task *t, double p);

#endif
