/*
 * jobgpu.c - the GPU use of tracerd's jobs (jobs.h): what the NVML thread
 * (gpu_nvml.h) sees and answers, put into each job's record (gpu.h).
 * Everything here runs on the loop and never waits for the thread: a
 * question is queued, its answer taken at a later tick; a closing job
 * waits for its answers at most TRACER_GPU_ANSWER_WAIT_MS.
 */
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "closing.h"
#include "gpu_nvml.h"
#include "jobgpu.h"
#include "jobs.h"
#include "log.h"

#define ANSWERS_PER_TICK 256

static uint64_t snapshot_seq;

/*
 * The loop takes the NVML thread's latest snapshot at its own ticks, so a
 * snapshot begun while a process ran may be taken in after the loop saw
 * the process exit: its pid is then no job's, and counted as a stranger
 * it would mark the device shared (and the job's energy lost).  The
 * processes the last snapshot showed on a GPU are remembered when they
 * exit (a few: GONE_MAX, the oldest forgotten), and a snapshot begun
 * before such an exit passes over the pid.
 */
#define GONE_MAX 64
static struct gpu_snapshot snap; /* the last taken in */
static struct {
	pid_t pid;
	uint64_t at_ns; /* CLOCK_MONOTONIC when the loop saw it exit */
} gone[GONE_MAX];
static unsigned gone_next;

static void note_gone(pid_t pid)
{
	for (size_t k = 0; k < snap.n; k++)
		if (snap.seen[k].pid == pid) {
			gone[gone_next % GONE_MAX].pid = pid;
			gone[gone_next % GONE_MAX].at_ns = clock_mono_ns();
			gone_next++;
			return;
		}
}

/* pid exited after the snapshot taken at taken_ns began */
static bool gone_since(pid_t pid, uint64_t taken_ns)
{
	for (unsigned i = 0; i < GONE_MAX && i < gone_next; i++)
		if (gone[i].pid == pid && gone[i].at_ns >= taken_ns)
			return true;
	return false;
}

static void ask_energy(struct open_job *oj, enum gpu_ask_kind kind)
{
	struct gpu_ask a = {.kind = kind, .tag = oj->job->tag};

	if (gpu_nvml_ask(&a))
		oj->job->gpu->outstanding++;
}

void jobgpu_open(struct jobs *js, struct open_job *oj, bool fresh)
{
	struct gpu_device dev[GPU_MAX_DEVICES];
	int n = gpu_nvml_devices(dev, GPU_MAX_DEVICES);
	struct job *j = oj->job;

	(void)js;
	if (j->gpu || (!n && !j->id.alloc.gpus[0]))
		return; /* no GPU here, none allocated: nothing to say */
	j->gpu = gpu_job_new(dev, n, n > 0);
	if (!j->gpu) {
		log_warn("job %s: out of memory: GPU use not recorded", j->uid);
		return;
	}
	/* a job resumed after a restart: its start's counters are gone */
	if (n && fresh)
		ask_energy(oj, GPU_ASK_ENERGY_START);
}

void jobgpu_exit(struct jobs *js, struct open_job *oj, const struct job_proc *p)
{
	struct job_gpu *g = oj->job->gpu;
	struct gpu_ask a = {.kind = GPU_ASK_EXIT, .tag = oj->job->tag, .pid = p->pid,
			    .start_us = p->start_ns / 1000};

	(void)js;
	if (!g)
		return;
	note_gone(p->pid);
	if (!g->accounting || (p->flags & PROC_F_REGISTRANT))
		return;
	snprintf(a.tool, sizeof(a.tool), "%s", p->tool ? p->tool : p->comm);
	if (gpu_nvml_ask(&a))
		g->outstanding++;
	else
		g->asks_dropped++;
}

void jobgpu_closing(struct jobs *js, struct open_job *oj)
{
	(void)js;
	if (oj->job->gpu && oj->job->gpu->ndev)
		ask_energy(oj, GPU_ASK_ENERGY_END);
}

static void apply_answer(struct jobs *js, const struct gpu_answer *a)
{
	struct open_job *oj = jobs_find_tag(js, a->ask.tag);
	struct job_gpu *g = oj ? oj->job->gpu : NULL;

	if (!g)
		return; /* its job is gone (it waited long enough) */
	if (g->outstanding)
		g->outstanding--;
	switch (a->ask.kind) {
	case GPU_ASK_EXIT:
		for (int i = 0; i < a->n && i < GPU_ANSWER_DEVS; i++)
			gpu_job_note_exact(g, a->ask.pid, a->ask.tool, a->acct[i].dev, a->acct[i].max_mem,
					   a->acct[i].time_ms, a->acct[i].util, a->acct[i].mem_util);
		break;
	case GPU_ASK_ENERGY_START:
		memcpy(g->energy_start_mj, a->energy_mj, sizeof(g->energy_start_mj));
		g->energy_start_ok = a->energy_ok;
		break;
	case GPU_ASK_ENERGY_END:
		memcpy(g->energy_end_mj, a->energy_mj, sizeof(g->energy_end_mj));
		g->energy_end_ok = a->energy_ok;
		break;
	}
}

void jobgpu_drain(struct jobs *js)
{
	static struct gpu_answer a[16];
	size_t n, total = 0;

	while (total < ANSWERS_PER_TICK && (n = gpu_nvml_answers(a, 16)) > 0) {
		for (size_t i = 0; i < n; i++)
			apply_answer(js, &a[i]);
		total += n;
	}
}

bool jobgpu_settled(struct jobs *js, struct open_job *oj)
{
	const struct job_gpu *g = oj->job->gpu;

	if (!g || !g->outstanding)
		return true;
	jobgpu_drain(js);
	return !g->outstanding ||
	       clock_mono_ns() - closing_since_ns(oj) >= TRACER_GPU_ANSWER_WAIT_MS * 1000000ull;
}

void jobgpu_finish(struct open_job *oj)
{
	struct job_gpu *g = oj->job->gpu;

	if (g && g->outstanding) {
		g->answers_missing = g->outstanding;
		log_warn("job %s: %u GPU answers missing (NVML slow or hung)", oj->job->uid,
			 g->outstanding);
	}
}

/* the open job pid is a process of, and the process */
static struct open_job *owner_of(struct jobs *js, pid_t pid, struct job_proc **p)
{
	for (size_t i = 0; i < jobs_count(js); i++)
		if ((*p = job_proc_find(jobs_at(js, i)->job, pid)))
			return jobs_at(js, i);
	return NULL;
}

/* per device at this sample: who used it (NULL: not a job's process) */
struct dev_users {
	bool seen, mixed;
	struct open_job *owner;
};

static void mark_shared(struct jobs *js, const struct dev_users *u, int ndev)
{
	for (size_t i = 0; i < jobs_count(js); i++) {
		struct job_gpu *g = jobs_at(js, i)->job->gpu;

		for (int d = 0; g && d < ndev && d < g->ndev; d++)
			if (u[d].seen && (u[d].mixed || u[d].owner != jobs_at(js, i)))
				g->shared |= 1u << d;
	}
}

/* one point of each job's GPU lane: its utilisation and memory now */
static void note_points(struct jobs *js, const struct gpu_snapshot *s,
			struct open_job *const *owners)
{
	uint64_t now = clock_real_ns();

	for (size_t i = 0; i < jobs_count(js); i++) {
		struct open_job *oj = jobs_at(js, i);
		struct job_gpu *g = oj->job->gpu;
		uint64_t mem[GPU_MAX_DEVICES] = {0}, total = 0;
		unsigned util = 0, dutil[GPU_MAX_DEVICES] = {0};

		if (!g || !g->ndev)
			continue;
		for (size_t k = 0; k < s->n; k++) {
			if (owners[k] != oj || s->seen[k].dev >= g->ndev)
				continue;
			mem[s->seen[k].dev] += s->seen[k].mem;
			dutil[s->seen[k].dev] += s->seen[k].sm_util;
			util += s->seen[k].sm_util;
		}
		for (int d = 0; d < g->ndev; d++) {
			gpu_job_note_device_mem(g, d, mem[d]);
			g->last_mem[d] = mem[d];
			g->last_util[d] = dutil[d];
			total += mem[d];
		}
		gpu_job_note_point(g, now > oj->job->start_ns ? (now - oj->job->start_ns) / 1000000ull : 0,
				   util, total);
	}
}

void jobgpu_sample(struct jobs *js)
{
	static struct open_job *owners[GPU_SEEN_MAX];
	struct dev_users u[GPU_MAX_DEVICES];

	if (!gpu_nvml_snapshot(&snap, snapshot_seq))
		return;
	snapshot_seq = snap.seq;
	memset(u, 0, sizeof(u));
	for (size_t k = 0; k < snap.n; k++) {
		const struct gpu_seen *e = &snap.seen[k];
		struct job_proc *p = NULL;
		struct open_job *oj = owner_of(js, e->pid, &p);

		owners[k] = oj;
		if (e->dev < 0 || e->dev >= GPU_MAX_DEVICES)
			continue;
		if (!oj && gone_since(e->pid, snap.taken_ns))
			continue; /* a job's, gone since: no stranger */
		if (u[e->dev].seen && u[e->dev].owner != oj)
			u[e->dev].mixed = true;
		u[e->dev].seen = true;
		u[e->dev].owner = oj;
		if (oj && oj->job->gpu)
			gpu_job_note_sample(oj->job->gpu, e->pid, p->tool ? p->tool : p->comm, e->dev,
					    e->mem, e->sm_util, snap.interval_ms);
	}
	mark_shared(js, u, GPU_MAX_DEVICES);
	note_points(js, &snap, owners);
}
