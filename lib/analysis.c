/*
 * analysis.c - flags, right-sizing and cost of one job (analysis.h).
 * Works on the summary already built (its numbers are the evidence) and
 * on the job's samples.  No advice for jobs shorter than
 * advice_min_runtime_s, except oom_killed and failed.
 */
#include "analysis.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allocation.h"
#include "cost.h"
#include "fargate.h"
#include "gpu_flags.h"
#include "json.h"
#include "sleep_flags.h"
#include "tune.h"
#include "waitacct.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

static const char *jstr_or(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;

	return cJSON_IsString(v) && v->valuestring ? v->valuestring : "";
}

static double num(const cJSON *o, const char *key)
{
	/* seconds and byte counts are written raw (json.c) */
	return json_get_num(o, key, 0.0);
}

cJSON *analysis_flag(cJSON *flags, const char *id, const char *severity,
		       const char *tool, const char *threshold_key, double threshold,
		       const char *fmt, ...)
{
	cJSON *f = cJSON_CreateObject();
	char msg[512];
	va_list ap;

	if (!f)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_add_str(f, "id", id);
	json_add_str(f, "severity", severity);
	if (tool)
		json_add_str(f, "tool", tool);
	json_add_str(f, "message", msg);
	cJSON_AddObjectToObject(f, "evidence");
	if (threshold_key) {
		cJSON *t = cJSON_AddObjectToObject(f, "thresholds");
		if (t)
			cJSON_AddNumberToObject(t, threshold_key, threshold);
	}
	cJSON_AddItemToArray(flags, f);
	return f;
}

void analysis_evidence(cJSON *f, const char *key, double v)
{
	cJSON *e = f ? cJSON_GetObjectItem(f, "evidence") : NULL;

	if (e)
		cJSON_AddNumberToObject(e, key, v);
}

uint64_t analysis_round_mem(uint64_t peak_bytes, double headroom)
{
	double gib = (double)peak_bytes * headroom / GiB;
	double r = ceil(gib);

	if (r > 30)
		r = ceil(gib / 10.0) * 10.0;
	if (r < 1)
		r = 1;
	return (uint64_t)r;
}

static void fmt_hms(char *buf, size_t len, double secs)
{
	unsigned long s = (unsigned long)ceil(secs);

	snprintf(buf, len, "%02lu:%02lu:%02lu", s / 3600, (s / 60) % 60, s % 60);
}

/* "2G" / "1536M" (Slurm), "2 GB" / "1536 MB" (Nextflow): whole GiB as
 * such, else MiB, as each reads them (binary units) */
static void fmt_mem(char *buf, size_t len, uint64_t mib, const char *sep, const char *g,
		    const char *m)
{
	if (mib % 1024 == 0)
		snprintf(buf, len, "%llu%s%s", (unsigned long long)(mib / 1024), sep, g);
	else
		snprintf(buf, len, "%llu%s%s", (unsigned long long)mib, sep, m);
}

/* The request for next time, from this run: CPUs from the concurrency
 * p95 (at least the mean CPU use, rounded up), memory peak x 1.2 rounded
 * as tracer tune rounds it (tune_round_mem: the same steps and floor),
 * time wall x 1.2 rounded up to the minute (Slurm). */
static void add_recommendation(cJSON *root, const struct job *j, double wall_s,
			       double cpu_s, uint64_t peak, const struct history_task *prev,
			       int gpus)
{
	cJSON *r = cJSON_AddObjectToObject(root, "recommendation"), *sx;
	int cpus = allocation_concurrency_pct(j, 95);
	int mean = wall_s > 0 ? (int)ceil(cpu_s / wall_s - 0.05) : 1;
	uint64_t mem, mib;
	double t;
	char hms[32], buf[320], g_slurm[32] = "", g_nf[32] = "", g_smk[32] = "", g_aws[64] = "";
	char m_slurm[32], m_nf[32];
	struct fargate_size fs;

	if (!r)
		return;
	if (gpus > 0) { /* the GPUs it kept busy (gpu_flags.c) */
		snprintf(g_slurm, sizeof(g_slurm), " --gres=gpu:%d", gpus);
		snprintf(g_nf, sizeof(g_nf), "\naccelerator = %d", gpus);
		snprintf(g_smk, sizeof(g_smk), ", gpu=%d", gpus);
		snprintf(g_aws, sizeof(g_aws), ", {\"type\": \"GPU\", \"value\": \"%d\"}", gpus);
	}
	if (mean > cpus)
		cpus = mean;
	/* over the earlier runs of the task name too: the largest of each */
	for (int i = 0; prev && i < prev->n; i++) {
		if (prev->runs[i].cpus > cpus)
			cpus = prev->runs[i].cpus;
		if (prev->runs[i].peak_bytes > peak)
			peak = prev->runs[i].peak_bytes;
		if (prev->runs[i].wall_s > wall_s)
			wall_s = prev->runs[i].wall_s;
	}
	mem = tune_round_mem((double)peak * TRACER_DEFAULT_MEM_HEADROOM);
	mib = mem >> 20;
	t = ceil(wall_s * TRACER_DEFAULT_MEM_HEADROOM / 60.0) * 60.0;
	if (cpus < 1)
		cpus = 1;
	if (t < 60)
		t = 60;
	fmt_hms(hms, sizeof(hms), t);
	cJSON_AddNumberToObject(r, "cpus", cpus);
	json_add_u64(r, "mem_bytes", mem);
	cJSON_AddNumberToObject(r, "time_s", t);
	if (gpus >= 0)
		cJSON_AddNumberToObject(r, "gpus", gpus);
	snprintf(buf, sizeof(buf), "this run and %d earlier runs of the task name: "
		 "largest concurrency p95, peak memory x 1.2, wall x 1.2", prev ? prev->n : 0);
	json_add_str(r, "basis", buf);
	cJSON_AddNumberToObject(r, "runs", 1 + (prev ? prev->n : 0));
	sx = cJSON_AddObjectToObject(r, "syntax");
	if (!sx)
		return;
	fmt_mem(m_slurm, sizeof(m_slurm), mib, "", "G", "M");
	fmt_mem(m_nf, sizeof(m_nf), mib, " ", "GB", "MB");
	snprintf(buf, sizeof(buf), "--cpus-per-task=%d --mem=%s --time=%s%s", cpus, m_slurm, hms,
		 g_slurm);
	json_add_str(sx, "slurm", buf);
	snprintf(buf, sizeof(buf), "cpus = %d\nmemory = '%s'%s", cpus, m_nf, g_nf);
	json_add_str(sx, "nextflow", buf);
	/* Snakemake's mem_mb is in megabytes (10^6 bytes), as tune writes it */
	snprintf(buf, sizeof(buf), "threads: %d\nresources: mem_mb=%llu%s", cpus,
		 (unsigned long long)ceil((double)mem / 1e6), g_smk);
	json_add_str(sx, "snakemake", buf);
	/* on Fargate, the smallest size Fargate has that holds the request */
	if (!fargate_job(&j->id) || fargate_fit(cpus, mib, &fs) != 0) {
		snprintf(fs.vcpu, sizeof(fs.vcpu), "%d", cpus);
		fs.mem_mib = mib;
	}
	snprintf(buf, sizeof(buf),
		 "\"resourceRequirements\": [{\"type\": \"VCPU\", \"value\": \"%s\"}, "
		 "{\"type\": \"MEMORY\", \"value\": \"%llu\"}%s]",
		 fs.vcpu, (unsigned long long)fs.mem_mib, g_aws);
	json_add_str(sx, "aws_batch", buf);
}

/*
 * network_bound: off the CPU most of the wall (flag_network_bound_share),
 * a real part of it blocked rather than waiting for a CPU (run-queue
 * delay), and more bytes through sockets (TCP, UDP, other; not Unix)
 * than to or from storage, at least flag_network_min_bytes.  Off-CPU
 * time is not split by what it waited for: the bytes say which wait it
 * most likely was.
 */
static bool network_bound(double wall, double cpu, double delay, double netb, double io,
			  const struct tracer_config *cfg)
{
	return wall > 0 && (wall - cpu) / wall >= cfg->flag_network_bound_share &&
	       wall - cpu - delay >= 0.1 * wall && netb >= (double)cfg->flag_network_min_bytes &&
	       netb > io;
}

static cJSON *network_flag(cJSON *flags, const char *tool, double wall, double cpu,
			   double delay, double netb, double io, const struct tracer_config *cfg)
{
	cJSON *f = analysis_flag(flags, "network_bound", "info", tool, "flag_network_bound_share",
			    cfg->flag_network_bound_share,
			    "%s was off the CPU %.0f%% of its %.1f s (%.1f s, of which %.1f s blocked, "
			    "%.1f s waiting for a CPU) while sending and receiving %.1f MiB on network sockets "
			    "(%.2f MiB/s over the wall) and %.1f MiB to or from storage",
			    tool ? tool : "the job", 100 * (wall - cpu) / wall,
			    wall, wall - cpu, wall - cpu - delay, delay, netb / 1048576.0,
			    netb / 1048576.0 / wall, io / 1048576.0);

	analysis_evidence(f, "off_cpu_s", wall - cpu);
	analysis_evidence(f, "blocked_s", wall - cpu - delay);
	analysis_evidence(f, "run_delay_s", delay);
	analysis_evidence(f, "network_bytes", netb);
	analysis_evidence(f, "network_bytes_per_s", netb / wall);
	analysis_evidence(f, "storage_bytes", io);
	return f;
}

/* Storage I/O that explains off-CPU time where I/O wait is not measured:
 * flag_io_bound_min_bytes_per_s of it at least.  A few KB while sleeping
 * or waiting on a child is not; any I/O at all would be. */
static bool io_moved(double io_bytes, double off_cpu_s, const struct tracer_config *cfg)
{
	return io_bytes > 0 && io_bytes >= (double)cfg->flag_io_bound_min_bytes_per_s * off_cpu_s;
}

/* delayacct: the tools' blkio_delay_s is known (delay accounting on) */
static void tool_flags(cJSON *flags, const cJSON *tools, const struct tracer_config *cfg,
		       bool delayacct)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, tools) {
		const char *name = jstr_or(t, "tool");
		double cpu = num(t, "cpu_s"), wall = num(t, "wall_s") * num(t, "processes");
		double delay = num(t, "run_delay_s"), io = num(t, "read_bytes") + num(t, "write_bytes");
		const cJSON *net = cJSON_GetObjectItem(t, "net");
		double netb = num(net, "sent_bytes") + num(net, "recv_bytes");
		double iowait = num(t, "blkio_delay_s");
		cJSON *f;

		if (wall <= 0 || num(t, "processes") != 1)
			continue; /* per-process shares need one process's wall */
		if (cpu + delay > 0 && delay / (cpu + delay) >= cfg->flag_contended_share) {
			f = analysis_flag(flags, "contended", "warning", name, "flag_contended_share",
				     cfg->flag_contended_share,
				     "%s waited for a CPU %.0f%% of the time it wanted one", name,
				     100 * delay / (cpu + delay));
			analysis_evidence(f, "run_delay_s", delay);
			analysis_evidence(f, "cpu_s", cpu);
		}
		if (cpu / wall >= cfg->flag_cpu_bound_share) {
			f = analysis_flag(flags, "cpu_bound", "info", name, "flag_cpu_bound_share",
				     cfg->flag_cpu_bound_share, "%s kept a CPU busy %.0f%% of its run",
				     name, 100 * cpu / wall);
			analysis_evidence(f, "cpu_s", cpu);
			analysis_evidence(f, "wall_s", wall);
		} else if (network_bound(wall, cpu, delay, netb, io, cfg)) {
			f = network_flag(flags, name, wall, cpu, delay, netb, io, cfg);
		} else if ((wall - cpu) / wall >= cfg->flag_io_bound_share &&
			   wall - cpu - delay >= 0.1 * wall &&
			   (delayacct ? iowait >= 0.25 * (wall - cpu - delay)
				      : io_moved(io, wall - cpu, cfg))) {
			/* off the CPU most of its run, a real part of it blocked
			 * (not waiting for a CPU), in I/O wait where delay
			 * accounting tells, else moving storage bytes at a
			 * rate only I/O explains */
			f = analysis_flag(flags, "io_bound", "info", name, "flag_io_bound_share",
				     cfg->flag_io_bound_share,
				     "%s was off the CPU %.0f%% of its run (blocked %.0f%%), doing storage I/O",
				     name, 100 * (wall - cpu) / wall, 100 * (wall - cpu - delay) / wall);
			analysis_evidence(f, "off_cpu_s", wall - cpu);
			analysis_evidence(f, "blocked_s", wall - cpu - delay);
			analysis_evidence(f, "storage_bytes", io);
			if (delayacct)
				analysis_evidence(f, "io_wait_s", iowait);
		}
	}
}

/*
 * The job as a whole, over its wall time times the threads it ran at once
 * (concurrency p95, at least 1).  io_bound: off the CPU most of that, a
 * real part of it blocked rather than waiting for a CPU, and a quarter of
 * that blocked time at least in I/O wait where the host can tell (delay
 * accounting, else the io pressure of the job's cgroup; a fsync also
 * waits on the journal, which neither counts), else storage I/O at
 * flag_io_bound_min_bytes_per_s of its off-CPU time (io_moved).
 */
static void job_flags(cJSON *flags, const cJSON *root, const struct job *j,
		      const struct tracer_config *cfg, double wall, double iowait_s)
{
	const cJSON *tot = cJSON_GetObjectItem(root, "totals");
	double cpu = num(tot, "cpu_s"), delay = num(tot, "run_delay_s");
	double io = num(tot, "read_bytes") + num(tot, "write_bytes");
	int conc = allocation_concurrency_pct(j, 95);
	double span = wall * (conc > 1 ? conc : 1), off, blocked;
	cJSON *f;

	if (span <= 0)
		return;
	off = span - cpu;
	blocked = off - delay;
	if (cpu / span >= cfg->flag_cpu_bound_share) {
		f = analysis_flag(flags, "cpu_bound", "info", NULL, "flag_cpu_bound_share",
			     cfg->flag_cpu_bound_share,
			     "the job's threads kept their CPUs busy %.0f%% of its run", 100 * cpu / span);
		analysis_evidence(f, "cpu_s", cpu);
		analysis_evidence(f, "wall_s", wall);
		analysis_evidence(f, "concurrency_p95", conc);
		return;
	}
	if (off / span < cfg->flag_io_bound_share || blocked < 0.1 * span)
		return;
	if (iowait_s >= 0 ? iowait_s < 0.25 * blocked : !io_moved(io, off, cfg))
		return;
	f = analysis_flag(flags, "io_bound", "info", NULL, "flag_io_bound_share", cfg->flag_io_bound_share,
		     iowait_s >= 0 ? "the job was off the CPU %.0f%% of its run, %.0f%% in I/O wait"
				   : "the job was off the CPU %.0f%% of its run (blocked %.0f%%), doing storage I/O",
		     100 * off / span, 100 * (iowait_s >= 0 ? iowait_s : blocked) / span);
	analysis_evidence(f, "off_cpu_s", off);
	analysis_evidence(f, "blocked_s", blocked);
	if (iowait_s >= 0)
		analysis_evidence(f, "io_wait_s", iowait_s);
	analysis_evidence(f, "storage_bytes", io);
}

/* I/O wait of the job: delay accounting, else its cgroup's io pressure
 * ("some": a task of the cgroup waited); -1 when the host cannot tell. */
static double job_iowait_s(const cJSON *blocked)
{
	const cJSON *b = cJSON_GetObjectItem(blocked, "blkio_delay_s");
	const cJSON *io = cJSON_GetObjectItem(cJSON_GetObjectItem(blocked, "psi"), "io");

	if (cJSON_IsNumber(b))
		return b->valuedouble;
	if (io)
		return num(io, "some_s");
	return -1;
}

/* Flags, cost and the request for next time of root, from the facts in
 * j and root: use is its allocation use (NULL: not sampled), iowait_s
 * its I/O wait (-1: unknown), delayacct whether delay accounting ran. */
static void add_answers(cJSON *root, const struct job *j, const struct host_info *host,
			const struct tracer_config *cfg, const struct history_task *prev,
			const cJSON *use, double iowait_s, bool delayacct)
{
	const cJSON *mem = cJSON_GetObjectItem(root, "memory");
	const cJSON *tot = cJSON_GetObjectItem(root, "totals");
	const char *state = jstr_or(root, "state");
	double wall = num(root, "wall_s"), cpu = num(tot, "cpu_s"), delay = num(tot, "run_delay_s");
	uint64_t peak = (uint64_t)num(mem, "peak_bytes"), alloc_mem = j->id.alloc.mem_bytes;
	int cpus = j->id.alloc.cpus > 0 ? j->id.alloc.cpus : host->cpus;
	cJSON *flags = cJSON_AddArrayToObject(root, "flags"), *f;
	const cJSON *oom = cJSON_GetObjectItem(root, "oom");

	if (!flags)
		return;
	if (oom || j->oom_kills) {
		const cJSON *v = cJSON_GetObjectItem(oom, "victim"), *l = cJSON_GetObjectItem(oom, "largest");
		const char *vt = v ? jstr_or(v, "tool") : "?";

		/* "?": a victim nobody saw by name (tracer-wrap: a process it
		 * did not reap) */
		if (strcmp(vt, "?") == 0)
			f = analysis_flag(flags, "oom_killed", "error", NULL, NULL, 0,
				     "the OOM killer stopped a process of the job (%s OOM)",
				     oom ? jstr_or(oom, "kind") : "?");
		else
			f = analysis_flag(flags, "oom_killed", "error", NULL, NULL, 0,
				     "the OOM killer stopped %s (%s OOM); %s held the most memory",
				     vt, oom ? jstr_or(oom, "kind") : "?", l ? jstr_or(l, "tool") : "?");
		analysis_evidence(f, "oom_kills", (double)j->oom_kills);
	}
	if (!strcmp(state, "FAILED")) {
		const cJSON *e = cJSON_GetObjectItem(root, "exit");
		const cJSON *code = cJSON_GetObjectItem(e, "code"), *sig = cJSON_GetObjectItem(e, "signal");
		if (cJSON_IsNumber(code))
			f = analysis_flag(flags, "failed", "error", NULL, NULL, 0,
				     "the job failed with exit code %d", code->valueint);
		else
			f = analysis_flag(flags, "failed", "error", NULL, NULL, 0,
				     "the job failed, killed by signal %d",
				     cJSON_IsNumber(sig) ? sig->valueint : 0);
	}
	cost_add(root, j, cpus, cfg);
	if (wall < cfg->advice_min_runtime_s)
		return;
	/* CPU allocation */
	if (j->id.alloc.cpus >= 2 && wall > 0) {
		double eff = cpu / (wall * j->id.alloc.cpus);
		if (eff <= 1.5 / j->id.alloc.cpus && allocation_concurrency_pct(j, 95) <= 1) {
			f = analysis_flag(flags, "serial_in_parallel_allocation", "warning", NULL, NULL, 0,
				     "CPU efficiency %.0f%% of %d CPUs, about 1/%d: this looks like a single-threaded program",
				     100 * eff, j->id.alloc.cpus, j->id.alloc.cpus);
			analysis_evidence(f, "cpu_efficiency", eff);
			analysis_evidence(f, "allocated_cpus", j->id.alloc.cpus);
		}
	}
	if (use) {
		const char *idle = jstr_or(use, "idle_cpus");
		if (idle[0]) {
			f = analysis_flag(flags, "idle_allocation", "warning", NULL, "flag_cpu_idle_share",
				     cfg->flag_cpu_idle_share,
				     "CPUs %s of %s (cores %s, NUMA nodes %s) were idle",
				     idle, jstr_or(use, "allocated_cpus"), jstr_or(use, "idle_cores"),
				     jstr_or(use, "idle_numa_nodes")[0] ? jstr_or(use, "idle_numa_nodes") : "none whole");
			analysis_evidence(f, "allocated_cpus", cpus);
		}
	}
	if (j->stalled_max_ns >= (uint64_t)cfg->stall_threshold_s * 1000000000ull) {
		f = analysis_flag(flags, "stalled", "warning", NULL, "stall_threshold_s",
			     cfg->stall_threshold_s,
			     "the job made no CPU or I/O progress for %.0f s while alive",
			     (double)j->stalled_max_ns / 1e9);
		analysis_evidence(f, "stalled_s", (double)j->stalled_max_ns / 1e9);
	}
	if (cpu + delay > 0 && delay / (cpu + delay) >= cfg->flag_contended_share) {
		f = analysis_flag(flags, "contended", "warning", NULL, "flag_contended_share",
			     cfg->flag_contended_share,
			     "the job's processes waited for a CPU %.0f%% of the time they wanted one",
			     100 * delay / (cpu + delay));
		analysis_evidence(f, "run_delay_s", delay);
		analysis_evidence(f, "cpu_s", cpu);
	}
	if (cpu < wall) { /* the job as a whole: only a job mostly off the CPU */
		const cJSON *net = cJSON_GetObjectItem(tot, "net");
		double netb = num(net, "sent_bytes") + num(net, "recv_bytes");
		double io = num(tot, "read_bytes") + num(tot, "write_bytes");
		if (network_bound(wall, cpu, delay, netb, io, cfg))
			network_flag(flags, NULL, wall, cpu, delay, netb, io, cfg);
	}
	job_flags(flags, root, j, cfg, wall, iowait_s);
	/* the tools' notes on waste first: a report shows the first few */
	sleep_flags_add(flags, root, cfg);
	tool_flags(flags, cJSON_GetObjectItem(root, "tools"), cfg, delayacct);
	if (alloc_mem && peak) {
		double share = (double)peak / (double)alloc_mem;
		if (share < cfg->flag_memory_over_share) {
			f = analysis_flag(flags, "memory_overallocated", "warning", NULL, "flag_memory_over_share",
				     cfg->flag_memory_over_share, "peak memory %.0f%% of the %.1f GiB requested",
				     100 * share, (double)alloc_mem / GiB);
			analysis_evidence(f, "peak_bytes", (double)peak);
			analysis_evidence(f, "allocated_bytes", (double)alloc_mem);
		} else if (share > cfg->flag_memory_near_share) {
			f = analysis_flag(flags, "memory_near_limit", "warning", NULL, "flag_memory_near_share",
				     cfg->flag_memory_near_share, "peak memory %.0f%% of the %.1f GiB limit",
				     100 * share, (double)alloc_mem / GiB);
			analysis_evidence(f, "peak_bytes", (double)peak);
			analysis_evidence(f, "allocated_bytes", (double)alloc_mem);
		}
	}
	if (j->id.alloc.time_limit_s && wall < cfg->flag_time_over_share * j->id.alloc.time_limit_s) {
		f = analysis_flag(flags, "time_overrequested", "info", NULL, "flag_time_over_share",
			     cfg->flag_time_over_share, "ran %.0f s of the %llu s requested", wall,
			     (unsigned long long)j->id.alloc.time_limit_s);
		analysis_evidence(f, "wall_s", wall);
		analysis_evidence(f, "time_limit_s", (double)j->id.alloc.time_limit_s);
	}
	if (prev && prev->n >= 3) {
		double p90 = history_wall_pct(prev, 90);
		if (p90 > 0 && wall > p90 * cfg->flag_slower_factor) {
			f = analysis_flag(flags, "slower_than_usual", "warning", NULL, "flag_slower_factor",
				     cfg->flag_slower_factor,
				     "ran %.1f s, %.1fx the p90 (%.1f s) of its %d earlier runs",
				     wall, wall / p90, p90, prev->n);
			analysis_evidence(f, "wall_s", wall);
			analysis_evidence(f, "earlier_p90_wall_s", p90);
			analysis_evidence(f, "earlier_runs", prev->n);
		}
	}
	gpu_flags_add(flags, root, cfg);
	add_recommendation(root, j, wall, cpu, peak, prev, gpu_flags_request(root, cfg));
}

void analysis_add(cJSON *root, const struct job *j, const struct host_info *host,
		  const struct tracer_config *cfg, const struct history_task *prev)
{
	cJSON *use = allocation_use_json(j, host, cfg->flag_cpu_idle_share);
	cJSON *blocked, *limits = job_blocked_limits_json(&j->blocked);
	struct wait_accounting wa;

	waitacct_probe(&wa);
	blocked = job_blocked_json(&j->blocked, wa.delayacct > 0);
	if (use)
		cJSON_AddItemToObject(root, "allocation_use", use);
	if (blocked)
		cJSON_AddItemToObject(root, "blocked", blocked);
	if (limits)
		cJSON_AddItemToObject(root, "cgroup_limits", limits);
	add_answers(root, j, host, cfg, prev, use, job_iowait_s(blocked), wa.delayacct > 0);
}

void analysis_add_rollup(cJSON *root, const struct job *j, const struct host_info *host,
			 const struct tracer_config *cfg)
{
	const cJSON *blocked = cJSON_GetObjectItem(root, "blocked");
	const char *da = jstr_or(blocked, "delay_accounting");

	add_answers(root, j, host, cfg, NULL, cJSON_GetObjectItem(root, "allocation_use"),
		    blocked ? job_iowait_s(blocked) : -1, !strcmp(da, "on"));
}
