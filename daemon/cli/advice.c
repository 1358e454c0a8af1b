/*
 * advice.c - the analysis part of `tracer show`: the job's state word,
 * its OOM kill, its flags with their evidence, the recommended request
 * in each syntax, and the cost (fields of docs/schema.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void print_flags(const cJSON *flags)
{
	const cJSON *f;

	if (cJSON_GetArraySize(flags) == 0)
		return;
	printf("\nFLAGS\n");
	cJSON_ArrayForEach(f, flags) {
		const char *tool = jstr(f, "tool");

		printf("  %-8s %-30s %s%s%s\n", jstr(f, "severity") ? jstr(f, "severity") : "-",
		       jstr(f, "id") ? jstr(f, "id") : "-", tool ? tool : "", tool ? ": " : "",
		       jstr(f, "message") ? jstr(f, "message") : "");
	}
}

/* Print a multi-line text indented. */
static void print_block(const char *label, const char *text)
{
	const char *p = text;

	if (!text)
		return;
	printf("  %-10s ", label);
	for (; *p; p++) {
		putchar(*p);
		if (*p == '\n')
			printf("  %-10s ", "");
	}
	putchar('\n');
}

void print_advice(const cJSON *s)
{
	const cJSON *oom = cJSON_GetObjectItem(s, "oom");
	const cJSON *rec = cJSON_GetObjectItem(s, "recommendation");
	const cJSON *cost = cJSON_GetObjectItem(s, "cost");
	const cJSON *use = cJSON_GetObjectItem(s, "allocation_use");

	if (jstr(s, "state"))
		printf("State    %s\n", jstr(s, "state"));
	if (oom) {
		const cJSON *v = cJSON_GetObjectItem(oom, "victim");
		const cJSON *l = cJSON_GetObjectItem(oom, "largest");
		printf("OOM      %s OOM: killed %s (pid %.0f); largest holder %s (pid %.0f)\n",
		       jstr(oom, "kind") ? jstr(oom, "kind") : "-",
		       jstr(v, "tool") ? jstr(v, "tool") : "-", jnum(v, "pid"),
		       jstr(l, "tool") ? jstr(l, "tool") : "-", jnum(l, "pid"));
	}
	if (use) {
		const cJSON *c = cJSON_GetObjectItem(use, "concurrency");
		printf("CPUs     allocated %s, idle %s (cores %s); concurrency p50 %.0f, p95 %.0f, max %.0f\n",
		       jstr(use, "allocated_cpus") ? jstr(use, "allocated_cpus") : "-",
		       jstr(use, "idle_cpus") && *jstr(use, "idle_cpus") ? jstr(use, "idle_cpus") : "none",
		       jstr(use, "idle_cores") && *jstr(use, "idle_cores") ? jstr(use, "idle_cores") : "none",
		       jnum(c, "p50"), jnum(c, "p95"), jnum(c, "max"));
	}
	if (cost) {
		printf("Cost     %.4f", jnum(cost, "total"));
		if (!isnan(jnum(cost, "unused")))
			printf(" (unused part of the allocation %.4f)", jnum(cost, "unused"));
		putchar('\n');
	}
	print_flags(cJSON_GetObjectItem(s, "flags"));
	if (rec) {
		const cJSON *sx = cJSON_GetObjectItem(rec, "syntax");
		printf("\nREQUEST NEXT TIME (%s)\n", jstr(rec, "basis") ? jstr(rec, "basis") : "-");
		print_block("Slurm", jstr(sx, "slurm"));
		print_block("Nextflow", jstr(sx, "nextflow"));
		print_block("Snakemake", jstr(sx, "snakemake"));
		print_block("AWS Batch", jstr(sx, "aws_batch"));
	}
}
