/*
 * tune_write.h - `tracer tune`'s output: the steps' requests as a table,
 * as each workflow engine's own file (Nextflow config, Snakemake profile,
 * #SBATCH lines, AWS Batch SubmitJob overrides), as JSON, and as an HTML
 * page (tune_html.c).  docs/tune.md describes each.
 */
#ifndef TRACER_TUNE_WRITE_H
#define TRACER_TUNE_WRITE_H

#include <stdbool.h>
#include <stdio.h>

#include "tune.h"

/* What the writers are given: the steps and the runs they came from. */
struct tune_report {
	const struct tune_step *steps;
	size_t nsteps;
	const struct tune_run *runs; /* every run read (any order) */
	size_t nruns;
	const char *selection;       /* "pipeline P", "run R", for the headers */
	const char *source;          /* "datalake", "archive" */
	const struct tune_params *params;
};

/* Is fmt one of table, nextflow, snakemake, slurm, aws-batch, json? */
bool tune_format_known(const char *fmt);
/* Write r in fmt to f: 0, or -1 (out of memory). */
int tune_write(FILE *f, const char *fmt, const struct tune_report *r);
/* The page (tune_html.c): 0, or 1 after a message on stderr. */
int tune_write_html(const struct tune_report *r, const char *path);

/* Helpers shared with tune_html.c: "00:12:00", "1536M" */
const char *tune_hms(double s, char *buf, size_t len);
/* a name as safe text for a comment line (control characters escaped) */
const char *tune_label(const char *s, char *buf, size_t len);

#endif
