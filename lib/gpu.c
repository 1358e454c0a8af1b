/*
 * gpu.c - a job's record of GPU use and its part of the summary (gpu.h).
 * Records are kept per (process, GPU), bounded; exact figures from the
 * driver's accounting replace sampled ones of the same process.
 */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json.h"

struct job_gpu *gpu_job_new(const struct gpu_device *dev, int ndev, bool nvml)
{
	struct job_gpu *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->nvml = nvml;
	if (ndev > GPU_MAX_DEVICES)
		ndev = GPU_MAX_DEVICES;
	g->ndev = ndev > 0 ? ndev : 0;
	if (g->ndev)
		memcpy(g->dev, dev, (size_t)g->ndev * sizeof(*dev));
	g->accounting = g->ndev > 0;
	for (int i = 0; i < g->ndev; i++)
		g->accounting = g->accounting && g->dev[i].accounting;
	return g;
}

void gpu_job_free(struct job_gpu *g)
{
	if (!g)
		return;
	free(g->procs);
	free(g->points);
	free(g);
}

/* The record of (pid, dev), made when missing; NULL when full. */
static struct gpu_proc *proc_slot(struct job_gpu *g, pid_t pid, int dev, const char *tool)
{
	struct gpu_proc *p;

	for (size_t i = 0; i < g->nprocs; i++)
		if (g->procs[i].pid == pid && g->procs[i].dev == dev)
			return &g->procs[i];
	if (g->nprocs >= GPU_MAX_PROCS) {
		g->procs_dropped++;
		return NULL;
	}
	if (g->nprocs == g->procs_cap) {
		size_t cap = g->procs_cap ? g->procs_cap * 2 : 8;
		struct gpu_proc *v = realloc(g->procs, cap * sizeof(*v));

		if (!v) {
			g->procs_dropped++;
			return NULL;
		}
		g->procs = v;
		g->procs_cap = cap;
	}
	p = &g->procs[g->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->dev = dev;
	snprintf(p->tool, sizeof(p->tool), "%s", tool && tool[0] ? tool : "?");
	return p;
}

void gpu_job_note_sample(struct job_gpu *g, pid_t pid, const char *tool, int dev,
			 uint64_t mem, unsigned sm_util, uint64_t interval_ms)
{
	struct gpu_proc *p;

	if (!g || dev < 0 || dev >= g->ndev || !(p = proc_slot(g, pid, dev, tool)) || p->exact)
		return;
	if (sm_util > 100)
		sm_util = 100;
	if (mem > p->mem_peak_bytes)
		p->mem_peak_bytes = mem;
	p->time_ms += interval_ms;
	p->busy_us += interval_ms * 10 * sm_util;
	p->util_pct = p->time_ms ? (unsigned)((p->busy_us / 10 + p->time_ms / 2) / p->time_ms) : 0;
}

void gpu_job_note_device_mem(struct job_gpu *g, int dev, uint64_t mem)
{
	if (g && dev >= 0 && dev < g->ndev && mem > g->sampled_mem_peak[dev])
		g->sampled_mem_peak[dev] = mem;
}

void gpu_job_note_point(struct job_gpu *g, uint64_t t_ms, unsigned util_pct, uint64_t mem)
{
	if (!g)
		return;
	if (g->point_skip) {
		g->point_skip--;
		return;
	}
	if (!g->points && !(g->points = calloc(GPU_MAX_POINTS, sizeof(*g->points))))
		return;
	if (g->npoints == GPU_MAX_POINTS) { /* full: every other point, from now on too */
		for (size_t i = 0; i < GPU_MAX_POINTS / 2; i++)
			g->points[i] = g->points[2 * i];
		g->npoints = GPU_MAX_POINTS / 2;
		g->point_every = g->point_every ? g->point_every * 2 : 2;
	}
	g->point_skip = g->point_every ? g->point_every - 1 : 0;
	g->points[g->npoints++] = (struct gpu_point){
		.t_ms = t_ms > UINT32_MAX ? UINT32_MAX : (uint32_t)t_ms,
		.util_pct = util_pct > 65535 ? 65535 : (uint16_t)util_pct,
		.mem_bytes = mem,
	};
}

void gpu_job_note_exact(struct job_gpu *g, pid_t pid, const char *tool, int dev,
			uint64_t max_mem, uint64_t time_ms, unsigned gpu_util,
			unsigned mem_util)
{
	struct gpu_proc *p;

	if (!g || dev < 0 || dev >= g->ndev || !(p = proc_slot(g, pid, dev, tool)))
		return;
	if (gpu_util > 100)
		gpu_util = 100;
	p->mem_peak_bytes = max_mem;
	p->time_ms = time_ms;
	p->busy_us = time_ms * 10 * gpu_util;
	p->util_pct = gpu_util;
	p->mem_util_pct = mem_util > 100 ? 100 : mem_util;
	p->exact = true;
}

/* Does token name device d? */
static bool names(const struct gpu_device *d, const char *tok, size_t n, bool by_minor)
{
	char *end;
	unsigned long v;

	if (n >= 4 && (!strncasecmp(tok, "GPU-", 4) || !strncasecmp(tok, "MIG-", 4)))
		return strlen(d->uuid) == n && !strncasecmp(d->uuid, tok, n);
	v = strtoul(tok, &end, 10);
	if (end != tok + n || d->mig_gi >= 0)
		return false;
	return by_minor ? v == d->minor : v == (unsigned long)d->index;
}

int gpu_alloc_match(const struct job_gpu *g, const char *list, bool by_minor,
		    bool out[GPU_MAX_DEVICES])
{
	int unmatched = 0;

	memset(out, 0, GPU_MAX_DEVICES * sizeof(*out));
	for (const char *p = list ? list : ""; *p;) {
		size_t n = strcspn(p, ",");
		bool hit = false;

		for (int i = 0; g && i < g->ndev && n; i++)
			if (names(&g->dev[i], p, n, by_minor))
				out[i] = hit = true;
		if (n && !hit)
			unmatched++;
		p += n;
		p += *p == ',';
	}
	return unmatched;
}

/* What the job did on device slot d, over its processes. */
struct dev_use {
	uint64_t mem_peak, busy_us, time_ms;
	unsigned procs;
};

static void dev_use(const struct job_gpu *g, int d, struct dev_use *u)
{
	memset(u, 0, sizeof(*u));
	for (size_t i = 0; i < g->nprocs; i++) {
		const struct gpu_proc *p = &g->procs[i];

		if (p->dev != d)
			continue;
		u->procs++;
		u->busy_us += p->busy_us;
		u->time_ms += p->time_ms;
		if (p->mem_peak_bytes > u->mem_peak)
			u->mem_peak = p->mem_peak_bytes;
	}
	/* processes at once, as sampled, may hold more than the largest one */
	if (g->sampled_mem_peak[d] > u->mem_peak)
		u->mem_peak = g->sampled_mem_peak[d];
}

static void add_ms(cJSON *o, const char *key, uint64_t ms)
{
	json_add_secs(o, key, ms * 1000000ull);
}

static void add_us(cJSON *o, const char *key, uint64_t us)
{
	json_add_secs(o, key, us * 1000ull);
}

static double pct(uint64_t part, uint64_t whole)
{
	double v = whole ? 100.0 * (double)part / (double)whole : 0;

	return v > 100 ? 100 : (double)(long)(v * 10 + 0.5) / 10;
}

static cJSON *device_json(const struct job_gpu *g, int d, bool allocated, uint64_t wall_ms,
			  const struct dev_use *u)
{
	const struct gpu_device *dv = &g->dev[d];
	cJSON *o = cJSON_CreateObject(), *m;
	uint32_t bit = 1u << d;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "index", dv->index);
	cJSON_AddNumberToObject(o, "minor", dv->minor);
	json_add_str(o, "uuid", dv->uuid);
	json_add_str(o, "name", dv->name);
	json_add_u64(o, "memory_bytes", dv->memory_bytes);
	if (dv->mig_gi >= 0 && (m = cJSON_AddObjectToObject(o, "mig"))) {
		cJSON_AddNumberToObject(m, "gpu_instance", dv->mig_gi);
		cJSON_AddNumberToObject(m, "compute_instance", dv->mig_ci);
	}
	cJSON_AddBoolToObject(o, "allocated", allocated);
	cJSON_AddBoolToObject(o, "used", u->procs > 0);
	cJSON_AddNumberToObject(o, "processes", u->procs);
	json_add_u64(o, "memory_peak_bytes", u->mem_peak);
	add_us(o, "busy_s", u->busy_us);
	cJSON_AddNumberToObject(o, "utilization_pct", pct(u->busy_us, wall_ms * 1000));
	if ((g->energy_start_ok & bit) && (g->energy_end_ok & bit) && !(g->shared & bit) &&
	    g->energy_end_mj[d] >= g->energy_start_mj[d])
		cJSON_AddNumberToObject(o, "energy_j",
					(double)(g->energy_end_mj[d] - g->energy_start_mj[d]) / 1000.0);
	cJSON_AddBoolToObject(o, "shared", (g->shared & bit) != 0);
	return o;
}

static cJSON *proc_json(const struct job_gpu *g, const struct gpu_proc *p)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "pid", p->pid);
	json_add_str(o, "tool", p->tool);
	cJSON_AddNumberToObject(o, "gpu", g->dev[p->dev].index);
	json_add_str(o, "uuid", g->dev[p->dev].uuid);
	json_add_u64(o, "memory_peak_bytes", p->mem_peak_bytes);
	add_ms(o, "time_s", p->time_ms);
	add_us(o, "busy_s", p->busy_us);
	cJSON_AddNumberToObject(o, "utilization_pct", p->util_pct);
	if (p->exact)
		cJSON_AddNumberToObject(o, "memory_utilization_pct", p->mem_util_pct);
	json_add_str(o, "counting", p->exact ? "accounting" : "sampled");
	return o;
}

/* tools[i].gpu: the sums of the tool's records */
static void add_tool_gpu(cJSON *tools, const struct job_gpu *g)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, tools) {
		const char *name = json_get_str(t, "tool", "");
		uint64_t peak = 0, time_ms = 0, busy_us = 0, n = 0;
		cJSON *o;

		for (size_t i = 0; i < g->nprocs; i++) {
			const struct gpu_proc *p = &g->procs[i];

			if (strncmp(p->tool, name, GPU_TOOL_LEN - 1))
				continue;
			n++;
			time_ms += p->time_ms;
			busy_us += p->busy_us;
			if (p->mem_peak_bytes > peak)
				peak = p->mem_peak_bytes;
		}
		if (!n || !(o = cJSON_AddObjectToObject((cJSON *)t, "gpu")))
			continue;
		json_add_u64(o, "processes", n);
		json_add_u64(o, "memory_peak_bytes", peak);
		add_ms(o, "time_s", time_ms);
		add_us(o, "busy_s", busy_us);
		cJSON_AddNumberToObject(o, "utilization_pct", pct(busy_us, time_ms * 1000));
	}
}

static const char *counting(const struct job_gpu *g)
{
	if (!g->nvml || !g->ndev)
		return "none";
	return g->accounting ? "accounting" : "sampled";
}

static void add_series(cJSON *o, const struct job_gpu *g)
{
	cJSON *ts, *t, *u, *m;

	if (!g->npoints || !(ts = cJSON_AddObjectToObject(o, "timeseries")))
		return;
	cJSON_AddNumberToObject(ts, "points", (double)g->npoints);
	t = cJSON_AddArrayToObject(ts, "t_s");
	u = cJSON_AddArrayToObject(ts, "utilization_pct");
	m = cJSON_AddArrayToObject(ts, "memory_bytes");
	for (size_t i = 0; t && u && m && i < g->npoints; i++) {
		cJSON_AddItemToArray(t, cJSON_CreateNumber(g->points[i].t_ms / 1000.0));
		cJSON_AddItemToArray(u, cJSON_CreateNumber(g->points[i].util_pct));
		cJSON_AddItemToArray(m, cJSON_CreateNumber((double)g->points[i].mem_bytes));
	}
}

void gpu_summary_add(cJSON *root, const struct job_gpu *g, uint64_t wall_ns,
		     const char *alloc, bool by_minor)
{
	uint64_t wall_ms = wall_ns / 1000000ull, peak = 0, busy_us = 0, time_ms = 0;
	double energy = 0;
	bool allocated[GPU_MAX_DEVICES], any_energy = false;
	cJSON *o, *arr;
	int unmatched;

	if (!g)
		return;
	json_add_str(root, "gpu_counting", counting(g));
	if (!(o = cJSON_AddObjectToObject(root, "gpu")))
		return;
	json_add_str(o, "counting", counting(g));
	cJSON_AddBoolToObject(o, "nvml", g->nvml);
	unmatched = gpu_alloc_match(g, alloc, by_minor, allocated);
	if (alloc && alloc[0]) {
		json_add_str(o, "allocated", alloc);
		cJSON_AddNumberToObject(o, "allocated_not_found", unmatched);
	}
	arr = cJSON_AddArrayToObject(o, "devices");
	for (int d = 0; arr && d < g->ndev; d++) {
		struct dev_use u;
		const cJSON *e;

		dev_use(g, d, &u);
		if (!allocated[d] && !u.procs)
			continue; /* neither the job's nor used by it */
		cJSON_AddItemToArray(arr, device_json(g, d, allocated[d], wall_ms, &u));
		if (u.mem_peak > peak)
			peak = u.mem_peak;
		busy_us += u.busy_us;
		time_ms += u.time_ms;
		e = cJSON_GetObjectItem(cJSON_GetArrayItem(arr, cJSON_GetArraySize(arr) - 1), "energy_j");
		if (cJSON_IsNumber(e)) {
			energy += e->valuedouble;
			any_energy = true;
		}
	}
	json_add_u64(o, "memory_peak_bytes", peak);
	add_ms(o, "time_s", time_ms);
	add_us(o, "busy_s", busy_us);
	if (any_energy)
		cJSON_AddNumberToObject(o, "energy_j", energy);
	arr = cJSON_AddArrayToObject(o, "processes");
	for (size_t i = 0; arr && i < g->nprocs && i < GPU_LIST_PROCS; i++)
		cJSON_AddItemToArray(arr, proc_json(g, &g->procs[i]));
	json_add_u64(o, "processes_not_listed",
		     (g->nprocs > GPU_LIST_PROCS ? g->nprocs - GPU_LIST_PROCS : 0) + g->procs_dropped);
	json_add_u64(o, "answers_missing", g->answers_missing);
	json_add_u64(o, "exits_not_asked", g->asks_dropped);
	add_series(o, g);
	add_tool_gpu(cJSON_GetObjectItem(root, "tools"), g);
}
