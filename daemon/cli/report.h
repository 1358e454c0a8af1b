/*
 * report.h - `tracer report`: jobs of the archive folded into groups
 * (report.c), printed as a table, JSON or CSV (report_out.c).
 */
#ifndef TRACER_CLI_REPORT_H
#define TRACER_CLI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"

enum report_by { REPORT_BY_ALL, REPORT_BY_RUN, REPORT_BY_TASK, REPORT_BY_TOOL,
		 REPORT_BY_USER, REPORT_BY_PIPELINE };
enum report_format { REPORT_TABLE, REPORT_JSON, REPORT_CSV };

struct flag_count {
	char *id;
	uint64_t n;
};

/* Sums over the jobs (or, by tool, the tool's share of each job) of a group. */
struct group {
	char *key;
	uint64_t jobs;
	uint64_t failed;        /* jobs not COMPLETED; by tool: processes that failed */
	uint64_t processes;     /* by tool */
	double wall_s;          /* by tool: sum of the tool's spans */
	double cpu_s;
	double core_s;          /* wall x allocated CPUs of the jobs (cpu_efficiency's basis) */
	double peak_bytes;      /* the largest peak */
	double mem_used_bytes, mem_alloc_bytes; /* jobs with a memory allocation */
	double read_bytes, write_bytes;
	double cost, cost_unused;
	bool has_cost;
	struct flag_count *flags;
	size_t nflags;
};

struct report {
	enum report_by by;
	const char *by_name;
	enum report_format format;
	char since_text[32];
	double since_s, now_s, from_s;
	const char *path;
	int files;
	uint64_t jobs;
	bool clickhouse;        /* from ClickHouse, not the local archive */
	const char *run;        /* --run: only this run's tasks */
	const char *html;       /* --html FILE: the run's page (html_run.c) */
	bool wide;              /* table lines as long as they need */
	struct job_filter filter; /* -j, -u, -A, --partition, -N, -S, -E */
	cJSON *steps;           /* summaries of scheduler jobs, rolled up per job
				 * at the end (a job's allocation once per node) */
	bool rolled;            /* the roll-up is being counted */
	struct group **slots;   /* hash table of groups */
	size_t cap, ngroups;
};

/* The group of key (made when new); NULL when out of memory. */
struct group *report_group(struct report *r, const char *key);
void report_add_flag(struct group *g, const char *id, uint64_t n);

/* Fill r's groups from ClickHouse's tables (report_clickhouse.c): 0, or
 * -1 after saying why on stderr. */
struct tracer_config;
int report_from_clickhouse(struct report *r, const struct tracer_config *cfg);

/* Print the groups (sorted) in r->format. 0, or -1 when out of memory. */
int report_print(const struct report *r, struct group **v, size_t n);

#endif
