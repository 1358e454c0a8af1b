/*
 * jobs_format.c - `tracer jobs --format` fields (jobs_format.h).  Values
 * are printed as sacct prints them, so that scripts written for
 * `sacct -P --format=...` read tracer's lines: Elapsed and TotalCPU as
 * [D-]HH:MM:SS, ReqMem as 8G or 500M (per node), MaxRSS in K, times as
 * local YYYY-MM-DDTHH:MM:SS, ExitCode as code:signal; unknown is empty.
 */
#include "jobs_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli.h"

enum field {
	JF_JOBID, JF_JOBNAME, JF_USER, JF_ACCOUNT, JF_PARTITION, JF_QOS, JF_STATE,
	JF_EXITCODE, JF_ELAPSED, JF_TOTALCPU, JF_ALLOCCPUS, JF_REQMEM, JF_MAXRSS,
	JF_NODELIST, JF_START, JF_END, JF_SUBMIT, JF_CPUEFF, JF_MEMEFF, JF_FLAGS,
	JF_COST, JF_JOB, JF__N
};

static const char *const names[JF__N] = {
	"JobID", "JobName", "User", "Account", "Partition", "QOS", "State",
	"ExitCode", "Elapsed", "TotalCPU", "AllocCPUS", "ReqMem", "MaxRSS",
	"NodeList", "Start", "End", "Submit", "CPUEff", "MemEff", "Flags",
	"Cost", "Job",
};

int jobs_format_parse(const char *list, int *idx, int max)
{
	const char *p = list;
	int n = 0;

	while (*p) {
		size_t len = strcspn(p, ",");
		int f;

		for (f = 0; f < JF__N; f++)
			if (strlen(names[f]) == len && !strncasecmp(p, names[f], len))
				break;
		if (len > 0 && f == JF__N) {
			char all[512];

			jobs_format_list(all, sizeof(all));
			fprintf(stderr, "tracer jobs: --format: unknown field \"%.*s\" (fields: %s)\n",
				(int)len, p, all);
			return -1;
		}
		if (len > 0) {
			if (n == max) {
				fprintf(stderr, "tracer jobs: --format: more than %d fields\n", max);
				return -1;
			}
			idx[n++] = f;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (n == 0)
		fprintf(stderr, "tracer jobs: --format: no field\n");
	return n ? n : -1;
}

const char *jobs_format_name(int field)
{
	return field >= 0 && field < JF__N ? names[field] : "?";
}

void jobs_format_list(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int f = 0; f < JF__N && off < len; f++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", f ? ", " : "", names[f]);
}

/* [D-]HH:MM:SS */
static const char *duration(double s, char *buf, size_t len)
{
	unsigned long t;

	if (isnan(s) || s < 0)
		return "";
	t = (unsigned long)llround(s);
	if (t >= 86400)
		snprintf(buf, len, "%lu-%02lu:%02lu:%02lu", t / 86400, t / 3600 % 24, t / 60 % 60,
			 t % 60);
	else
		snprintf(buf, len, "%02lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	return buf;
}

/* epoch ns (a decimal string or a number) as sacct's local time */
static const char *local_time(const cJSON *o, const char *key, char *buf, size_t len)
{
	const char *text = cli_jstr(o, key);
	double ns = text ? strtod(text, NULL) : cli_jnum(o, key);
	time_t t;
	struct tm tm;

	if (isnan(ns) || ns <= 0)
		return "";
	t = (time_t)(ns / 1e9);
	if (!localtime_r(&t, &tm))
		return "";
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	return buf;
}

static const char *job_id(const cJSON *s, char *buf, size_t len)
{
	const cJSON *id = cJSON_GetObjectItem(s, "identity");
	const char *job = cli_jstr(id, "job_id");
	/* a job view is the job: no step (one of one step keeps its step_id) */
	const char *step = cli_jstr(s, "scope") ? NULL : cli_jstr(id, "step_id");
	const char *array = cli_jstr(id, "array_job_id");
	double index = cli_jnum(id, "array_index");
	char base[256];

	if (!job)
		return fmt_or_dash(cli_jstr(s, "job"));
	if (array && !isnan(index))
		snprintf(base, sizeof(base), "%s_%.0f", array, index);
	else
		snprintf(base, sizeof(base), "%s", job);
	snprintf(buf, len, "%s%s%s", base, step ? "." : "", step ? step : "");
	return buf;
}

static const char *req_mem(double bytes, char *buf, size_t len)
{
	double mib = bytes / 1048576.0;

	if (isnan(bytes) || bytes <= 0)
		return "";
	if (fmod(mib, 1024) == 0)
		snprintf(buf, len, "%.0fG", mib / 1024);
	else
		snprintf(buf, len, "%.0fM", ceil(mib));
	return buf;
}

static const char *flag_ids(const cJSON *s, char *buf, size_t len)
{
	const cJSON *f;
	size_t off = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(s, "flags"))
		if (cli_jstr(f, "id") && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "",
						cli_jstr(f, "id"));
	return buf;
}

static const char *pct(double ratio, char *buf, size_t len)
{
	if (isnan(ratio))
		return "";
	snprintf(buf, len, "%.2f%%", 100 * ratio);
	return buf;
}

static const char *number(double v, const char *fmt, char *buf, size_t len)
{
	if (isnan(v))
		return "";
	snprintf(buf, len, fmt, v);
	return buf;
}

static const char *exit_code(const cJSON *e, char *buf, size_t len)
{
	double code = cli_jnum(e, "code"), sig = cli_jnum(e, "signal");

	if (!e)
		return "";
	snprintf(buf, len, "%.0f:%.0f", isnan(code) ? 0 : code, isnan(sig) ? 0 : sig);
	return buf;
}

static const char *text(const char *v)
{
	return v ? v : "";
}

const char *jobs_format_value(int field, const cJSON *s, char *buf, size_t len)
{
	const cJSON *id = cJSON_GetObjectItem(s, "identity");
	const cJSON *alloc = cJSON_GetObjectItem(id, "allocation");
	const cJSON *mem = cJSON_GetObjectItem(s, "memory");

	switch (field) {
	case JF_JOBID: return job_id(s, buf, len);
	case JF_JOBNAME: return text(cli_jstr(id, "task_name"));
	case JF_USER: return text(cli_jstr(id, "user"));
	case JF_ACCOUNT: return text(cli_jstr(id, "account"));
	case JF_PARTITION: return text(cli_jstr(id, "queue"));
	case JF_QOS: return text(cli_jstr(id, "qos"));
	case JF_STATE: return text(cli_jstr(s, "state"));
	case JF_EXITCODE: return exit_code(cJSON_GetObjectItem(s, "exit"), buf, len);
	case JF_ELAPSED: return duration(cli_jnum(s, "wall_s"), buf, len);
	case JF_TOTALCPU:
		return duration(cli_jnum(cJSON_GetObjectItem(s, "totals"), "cpu_s"), buf, len);
	case JF_ALLOCCPUS: return number(cli_jnum(alloc, "cpus"), "%.0f", buf, len);
	case JF_REQMEM: return req_mem(cli_jnum(alloc, "mem_bytes"), buf, len);
	case JF_MAXRSS: return number(ceil(cli_jnum(mem, "peak_bytes") / 1024), "%.0fK", buf, len);
	case JF_NODELIST:
		return text(cli_jstr(id, "node_list") ? cli_jstr(id, "node_list") : job_filter_node_of(s));
	case JF_START: return local_time(s, "start_ns", buf, len);
	case JF_END: return local_time(s, "end_ns", buf, len);
	case JF_SUBMIT: return local_time(id, "submit_ns", buf, len);
	case JF_CPUEFF: return pct(cli_jnum(s, "cpu_efficiency"), buf, len);
	case JF_MEMEFF: return pct(cli_jnum(mem, "efficiency"), buf, len);
	case JF_FLAGS: return flag_ids(s, buf, len);
	case JF_COST:
		return number(cli_jnum(cJSON_GetObjectItem(s, "cost"), "total"), "%.2f", buf, len);
	case JF_JOB: return text(cli_jstr(s, "job"));
	}
	return "";
}
