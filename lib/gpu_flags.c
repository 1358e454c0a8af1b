/*
 * gpu_flags.c - GPU flags and the GPU count of the request (gpu_flags.h).
 * The evidence is the summary's own numbers: each device's use over the
 * job's wall time, each tool's GPU busy share against its CPU share.
 */
#include "gpu_flags.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "defaults.h"
#include "json.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

/* GPUs that MIG can split (A30, A100, H100, H200, B200, GH200...) */
static bool mig_capable(const char *name)
{
	static const char *const models[] = {"A30", "A100", "H100", "H200", "H20", "B200", "GB200",
					      "H800", "A800"};

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (strstr(name, models[i]))
			return true;
	return false;
}

/*
 * The smallest MIG profile holding need bytes: profiles ng.Mgb of n
 * compute slices hold 1, 2, 4, 4 or 8 eighths of the memory (H100 80GB:
 * 1g.10gb ... 7g.80gb).  The slice count, 0 when none is smaller than
 * the whole GPU; its memory in *gb.
 */
static int mig_slice(double total, double need, int *gb)
{
	static const int g[] = {1, 2, 3}, eighths[] = {1, 2, 4}; /* 7g: the whole GPU */

	for (int i = 0; i < 3; i++) {
		double mem = total / 8 * eighths[i];

		if (mem >= need) {
			*gb = (int)lround(mem / GiB);
			return g[i];
		}
	}
	return 0;
}

static void idle_flag(cJSON *flags, const cJSON *d, double wall, const struct tracer_config *cfg)
{
	double util = json_get_num(d, "utilization_pct", 0);
	int procs = (int)json_get_num(d, "processes", 0);
	cJSON *f;

	if (!cJSON_IsTrue(cJSON_GetObjectItem(d, "allocated")) ||
	    (procs && util > 100 * cfg->flag_gpu_idle_share))
		return;
	if (!procs)
		f = analysis_flag(flags, "gpu_idle_allocation", "warning", NULL, "flag_gpu_idle_share",
				  cfg->flag_gpu_idle_share,
				  "GPU %d (%s, %s) was allocated and no process of the job used it "
				  "in its %.0f s",
				  (int)json_get_num(d, "index", 0), json_get_str(d, "name", "?"),
				  json_get_str(d, "uuid", "?"), wall);
	else
		f = analysis_flag(flags, "gpu_idle_allocation", "warning", NULL, "flag_gpu_idle_share",
				  cfg->flag_gpu_idle_share,
				  "GPU %d (%s, %s) was allocated and busy %.1f%% of the job's %.0f s",
				  (int)json_get_num(d, "index", 0), json_get_str(d, "name", "?"),
				  json_get_str(d, "uuid", "?"), util, wall);
	analysis_evidence(f, "gpu_index", json_get_num(d, "index", 0));
	analysis_evidence(f, "processes", procs);
	analysis_evidence(f, "utilization_pct", util);
	analysis_evidence(f, "busy_s", json_get_num(d, "busy_s", 0));
	analysis_evidence(f, "memory_peak_bytes", json_get_num(d, "memory_peak_bytes", 0));
	analysis_evidence(f, "wall_s", wall);
}

static void memory_flag(cJSON *flags, const cJSON *d, const struct tracer_config *cfg)
{
	double peak = json_get_num(d, "memory_peak_bytes", 0);
	double total = json_get_num(d, "memory_bytes", 0);
	double need = peak * TRACER_DEFAULT_MEM_HEADROOM;
	const char *name = json_get_str(d, "name", "?");
	char what[160];
	int gb = 0, slice = 0;
	cJSON *f;

	if (!json_get_num(d, "processes", 0) || peak <= 0 || total <= 0 ||
	    peak / total >= cfg->flag_gpu_memory_over_share)
		return;
	if (mig_capable(name) && !cJSON_GetObjectItem(d, "mig"))
		slice = mig_slice(total, need, &gb);
	if (slice)
		snprintf(what, sizeof(what), "a MIG %dg.%dgb slice would hold it, or a GPU with %llu GiB",
			 slice, gb, (unsigned long long)analysis_round_mem((uint64_t)peak,
									  TRACER_DEFAULT_MEM_HEADROOM));
	else
		snprintf(what, sizeof(what), "a GPU with %llu GiB would hold it",
			 (unsigned long long)analysis_round_mem((uint64_t)peak,
								 TRACER_DEFAULT_MEM_HEADROOM));
	f = analysis_flag(flags, "gpu_memory_overallocated", "info", NULL, "flag_gpu_memory_over_share",
			  cfg->flag_gpu_memory_over_share,
			  "GPU %d (%s) held at most %.2f GiB of its %.1f GiB (%.0f%%): %s",
			  (int)json_get_num(d, "index", 0), name, peak / GiB, total / GiB,
			  100 * peak / total, what);
	analysis_evidence(f, "gpu_index", json_get_num(d, "index", 0));
	analysis_evidence(f, "memory_peak_bytes", peak);
	analysis_evidence(f, "gpu_memory_bytes", total);
	analysis_evidence(f, "suggested_bytes",
			  (double)analysis_round_mem((uint64_t)peak, TRACER_DEFAULT_MEM_HEADROOM) * GiB);
	if (slice) {
		analysis_evidence(f, "mig_slices", slice);
		analysis_evidence(f, "mig_memory_bytes", gb * GiB);
	}
}

/* a tool that drove a GPU little while it kept its CPU busy */
static void underused_flags(cJSON *flags, const cJSON *tools, const struct tracer_config *cfg)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, tools) {
		const cJSON *g = cJSON_GetObjectItem(t, "gpu");
		double util = json_get_num(g, "utilization_pct", 0), gtime = json_get_num(g, "time_s", 0);
		double cpu = json_get_num(t, "cpu_s", 0), delay = json_get_num(t, "run_delay_s", 0);
		double wall = json_get_num(t, "wall_s", 0) * json_get_num(t, "processes", 0);
		const char *name = json_get_str(t, "tool", "?");
		cJSON *f;

		/* the CPU side wanted a CPU: ran, or waited in the run queue */
		if (!g || gtime <= 0 || wall <= 0 || util >= 100 * cfg->flag_gpu_underused_share ||
		    (cpu + delay) / wall < cfg->flag_cpu_bound_share)
			continue;
		f = analysis_flag(flags, "gpu_underused", "warning", name, "flag_gpu_underused_share",
				  cfg->flag_gpu_underused_share,
				  "%s kept its GPU busy %.0f%% of the %.1f s it held it while it ran on "
				  "a CPU or waited for one %.0f%% of its time: the CPU side is the "
				  "bottleneck (data loading or a serial loop feeding the GPU)",
				  name, util, gtime, 100 * (cpu + delay) / wall);
		analysis_evidence(f, "gpu_utilization_pct", util);
		analysis_evidence(f, "gpu_time_s", gtime);
		analysis_evidence(f, "cpu_s", cpu);
		analysis_evidence(f, "run_delay_s", delay);
		analysis_evidence(f, "wall_s", wall);
	}
}

void gpu_flags_add(cJSON *flags, const cJSON *root, const struct tracer_config *cfg)
{
	const cJSON *gpu = cJSON_GetObjectItem(root, "gpu"), *d;
	double wall = json_get_num(root, "wall_s", 0);

	if (!gpu || !strcmp(json_get_str(gpu, "counting", "none"), "none"))
		return; /* nothing measured: nothing to say */
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(gpu, "devices")) {
		idle_flag(flags, d, wall, cfg);
		memory_flag(flags, d, cfg);
	}
	underused_flags(flags, cJSON_GetObjectItem(root, "tools"), cfg);
}

int gpu_flags_request(const cJSON *root, const struct tracer_config *cfg)
{
	const cJSON *gpu = cJSON_GetObjectItem(root, "gpu"), *d;
	int n = 0, seen = 0;

	if (!gpu || !strcmp(json_get_str(gpu, "counting", "none"), "none"))
		return -1;
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(gpu, "devices")) {
		seen++;
		if (json_get_num(d, "processes", 0) > 0 &&
		    json_get_num(d, "utilization_pct", 0) > 100 * cfg->flag_gpu_idle_share)
			n++;
	}
	return seen ? n : -1;
}
