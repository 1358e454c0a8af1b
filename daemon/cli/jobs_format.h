/*
 * jobs_format.h - the fields of `tracer jobs --format` by sacct's names
 * (JobID, Elapsed, MaxRSS, ...) and tracer's own (CPUEff, MemEff, Flags,
 * Cost), each as sacct prints it, from a job view or a summary.
 */
#ifndef TRACER_CLI_JOBS_FORMAT_H
#define TRACER_CLI_JOBS_FORMAT_H

#include <stddef.h>
#include <cjson/cJSON.h>

#define JOBS_FORMAT_MAX 32 /* fields of one --format */
/* sacct's default fields */
#define JOBS_FORMAT_DEFAULT "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode"

/* The fields of a comma list (names without case) into idx; their count,
 * or -1 after a line on stderr naming the unknown field. */
int jobs_format_parse(const char *list, int *idx, int max);
/* The field's name as sacct spells it. */
const char *jobs_format_name(int field);
/* The field's value for summary or job view s into buf ("" unknown). */
const char *jobs_format_value(int field, const cJSON *s, char *buf, size_t len);
/* Every field name, for --help: "JobID, JobName, ..." */
void jobs_format_list(char *buf, size_t len);

#endif
