/*
 * sleep_flags.c - sleeping_tool (sleep_flags.h).  A process that waits
 * is not waste in itself: a shell waits for its children, the reader of
 * a pipe for its writer, and the job's CPUs work meanwhile.  What holds
 * an allocation for nothing is a wait during which the whole job is
 * idle, so the tool's own share asleep is checked against the job's CPU
 * use over the same span, from the time series.
 */
#include "sleep_flags.h"

#include <stdint.h>

#include "analysis.h"
#include "clock.h"
#include "json.h"

/* The ISO time at key of o, in seconds since the job's start_ns; -1 when
 * absent or not a time. */
static double since_start(const cJSON *o, const char *key, int64_t start_ns)
{
	const char *s = json_get_str(o, key, NULL);
	int64_t ns;

	if (!s || clock_parse_time(s, 0, &ns) != 0)
		return -1;
	return (double)(ns - start_ns) / 1e9;
}

/* The job's CPU cores in use on average over the intervals of the time
 * series that lie wholly in [a, b]; -1 when they cover less than half of
 * it (too few samples to tell). */
static double job_cores_between(const cJSON *series, double a, double b)
{
	const cJSON *t = cJSON_GetObjectItem(series, "t_s");
	const cJSON *c = cJSON_GetObjectItem(series, "cpu_cores");
	double prev = 0, covered = 0, cpu = 0;

	/* the two arrays side by side (cJSON_GetArrayItem walks from the
	 * head each time) */
	t = t ? t->child : NULL;
	c = c ? c->child : NULL;
	for (; t && c; t = t->next, c = c->next) {
		double end = cJSON_IsNumber(t) ? t->valuedouble : prev;

		if (prev >= a && end <= b && end > prev && cJSON_IsNumber(c)) {
			covered += end - prev;
			cpu += c->valuedouble * (end - prev);
		}
		prev = end;
		if (prev >= b)
			break;
	}
	if (covered <= 0 || covered < 0.5 * (b - a))
		return -1;
	return cpu / covered;
}

void sleep_flags_add(cJSON *flags, const cJSON *root, const struct tracer_config *cfg)
{
	const cJSON *series = cJSON_GetObjectItem(root, "timeseries"), *t;
	double job_wall = json_get_num(root, "wall_s", 0);
	int64_t start_ns;

	if (!series || job_wall <= 0 ||
	    clock_parse_time(json_get_str(root, "start", ""), 0, &start_ns) != 0)
		return;
	/* bounded by the tools the summary lists (JOB_MAX_TOOLS) and the
	 * series' points (SERIES_MAX_POINTS) */
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(root, "tools")) {
		double wall = json_get_num(t, "wall_s", 0), cpu = json_get_num(t, "cpu_s", 0);
		double asleep = wall - cpu - json_get_num(t, "run_delay_s", 0) -
				json_get_num(t, "blkio_delay_s", 0);
		double a = since_start(t, "first_start", start_ns), cores;
		const char *name = json_get_str(t, "tool", "?");
		cJSON *f;

		if (json_get_num(t, "processes", 0) != 1 || wall <= 0 || a < 0)
			continue; /* the share asleep needs one process's wall */
		if (asleep < (1 - cfg->flag_cpu_idle_share) * wall ||
		    asleep < cfg->flag_sleeping_share * job_wall)
			continue;
		cores = job_cores_between(series, a, a + wall);
		if (cores < 0 || cores >= cfg->flag_cpu_idle_share)
			continue; /* the job worked meanwhile: a shell, a pipe's reader */
		f = analysis_flag(flags, "sleeping_tool", "warning", name, "flag_sleeping_share",
				  cfg->flag_sleeping_share,
				  "%s slept %.1f s (%.0f%% of the job's wall) while the job's CPUs sat idle",
				  name, asleep, 100 * asleep / job_wall);
		analysis_evidence(f, "asleep_s", asleep);
		analysis_evidence(f, "job_cpus_in_use", cores);
	}
}
