/*
 * closing.c - the end of a job without ever waiting in tracerd's loop
 * (jobs.h), and the reconcile of processes whose exit record was lost.
 *
 * When a job ends, each of its live processes must be settled before the
 * summary is written: its exit record arrives (the kernel sends it at the
 * last thread's final switch, a moment after the parent's wait4()), or it
 * outlives the job (its totals so far are read from /proc and it is
 * untagged), or its record was lost (counted).  Settling is done a few
 * processes per step from the loop, so a job with thousands of live
 * processes costs many short steps, never one long one, and a request
 * that arrives meanwhile is answered between two steps.
 *
 * How a process is settled, from the kernel's process table (bpf/tracer.h)
 * and /proc:
 *   - its exit record arrived: it is no longer live in the job;
 *   - no entry in the table: the record is in flight, or was lost (ring
 *     buffer full) once the grace period is over;
 *   - an entry, /proc gone: the entry outlived the process (a thread the
 *     kernel did not let us count): lost after the grace period;
 *   - an entry, a zombie: its last thread is on its way out, or it is a
 *     leader that called exit while its other threads run (the record
 *     comes when the last one exits): after the grace period it outlives;
 *   - an entry, alive: it outlives the job.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf_loader.h"
#include "clock.h"
#include "closing.h"
#include "jobcontainers.h"
#include "jobdocker.h"
#include "jobgpu.h"
#include "jobs.h"
#include "livestats.h"
#include "log.h"
#include "netio_kernel.h"
#include "procfs.h"
#include "proto.h"

/* processes settled per step, over every closing job */
#define SETTLE_PER_STEP 16
/* how long an exit record may take to follow the end of its process */
#define CLOSE_GRACE_NS (100ull * 1000000ull)
/* an end request is answered once the summary is written, or "ok" after
 * this (clients give up after 200 ms by default) */
#define ANSWER_WAIT_NS (150ull * 1000000ull)
/* kernel table look-ups of live processes per tick (reconcile) */
#define RECONCILE_PER_TICK 256
/* a process without table entry at two checks in a row: record lost */
#define PROC_F_NO_ENTRY (1u << 30)

enum fate { SETTLED, PENDING };

static bool is_host(const struct open_job *oj)
{
	return strcmp(oj->job->id.scheduler, "host") == 0;
}

/* Is pid in the kernel's table, as a process of oj?  Its entry in *kp. */
static bool in_table(struct jobs *js, const struct open_job *oj, pid_t pid,
		     struct tracer_proc *kp)
{
	if (bpf_loader_lookup_proc(js->bpf, pid, kp) != 0)
		return false;
	return kp->job == oj->job->tag || (is_host(oj) && kp->job == TRACER_JOB_HOST);
}

/*
 * A process outliving its job keeps the socket and block counters it had at the
 * job's end (the kernel's entry, before it is untagged); what it moves
 * afterwards is nobody's: the summary is not held for it.
 */
static void socket_counters_so_far(struct job_proc *p, const struct tracer_proc *kp)
{
	netio_kernel_to_totals(&p->totals.net, &kp->net);
}

/* p's exit record will never come: it ends now, its totals unknown. */
static void exit_lost(struct jobs *js, struct open_job *oj, struct job_proc *p)
{
	js->stats.exits_lost++;
	oj->job->exits_lost++;
	log_debug("job %s: pid %d gone without exit record", oj->job->uid, (int)p->pid);
	job_proc_exit(oj->job, p, -1, clock_real_ns(), &p->totals, 0);
	jobs_note_exit(js, oj);
}

static enum fate settle_one(struct jobs *js, struct open_job *oj, pid_t pid,
			    bool grace_over)
{
	struct job_proc *p = job_proc_find(oj->job, pid);
	struct procfs_stat st;
	struct tracer_proc kp;

	if (!p)
		return SETTLED; /* its exit record came */
	if (!in_table(js, oj, pid, &kp)) {
		if (!grace_over)
			return PENDING;
		exit_lost(js, oj, p);
		return SETTLED;
	}
	if (procfs_read_stat(pid, &st) != 0) {
		if (!grace_over)
			return PENDING;
		bpf_loader_untag_pid(js->bpf, pid);
		exit_lost(js, oj, p);
		return SETTLED;
	}
	if ((st.state == 'Z' || st.state == 'X') && !grace_over)
		return PENDING;
	/* it outlives the job: its totals so far, and it is no longer ours
	 * (host processes simply go on to the next period) */
	livestats_read_totals(p);
	socket_counters_so_far(p, &kp);
	if (!is_host(oj))
		bpf_loader_untag_pid(js->bpf, pid);
	return SETTLED;
}

void closing_start(struct jobs *js, struct open_job *oj, const char *why)
{
	struct job *j = oj->job;
	size_t n = 0;

	if (oj->closing.active)
		return;
	oj->closing.active = true;
	jobdocker_close(js, oj);
	oj->closing.why = why;
	oj->closing.since_ns = clock_mono_ns();
	jobgpu_closing(js, oj);
	js->closing.nclosing++;
	if (j->cgroup_stats)
		job_blocked_sample_cgroup(j, &oj->cgroup);
	container_sample(&j->containers);
	jobcontainers_name(js, oj);
	jobcontainers_untag(js, oj);
	if (oj->cgroup_id) {
		bpf_loader_untag_cgroup(js->bpf, oj->cgroup_id);
		oj->cgroup_id = 0;
	}
	free(oj->closing.settle);
	oj->closing.settle = j->nlive ? malloc(j->nlive * sizeof(*oj->closing.settle)) : NULL;
	if (oj->closing.settle) {
		JOB_FOREACH_LIVE(j, p)
			if (n < j->nlive)
				oj->closing.settle[n++] = p->pid;
	} else if (j->nlive) {
		log_error("job %s: out of memory: live processes closed unread", j->uid);
	}
	oj->closing.nsettle = n;
	oj->closing.settle_pos = 0;
}

bool closing_busy(const struct jobs *js)
{
	return js->closing.nclosing > 0;
}

size_t closing_count(const struct jobs *js)
{
	return js->closing.nclosing;
}

bool closing_active(const struct open_job *oj)
{
	return oj->closing.active;
}

uint64_t closing_since_ns(const struct open_job *oj)
{
	return oj->closing.since_ns;
}

const char *closing_why(const struct open_job *oj)
{
	return oj->closing.why;
}

void closing_set_answer(struct jobs *js, closing_answer_fn fn, void *ctx)
{
	js->closing.answer = fn;
	js->closing.answer_ctx = ctx;
}

/* Settle up to *budget processes of oj; true when it is done. */
static bool settle_some(struct jobs *js, struct open_job *oj, size_t *budget)
{
	bool grace_over = clock_mono_ns() - oj->closing.since_ns >= CLOSE_GRACE_NS;
	size_t seen = 0, pass = oj->closing.nsettle;

	while (oj->closing.nsettle && *budget && seen < pass) {
		size_t i = oj->closing.settle_pos < oj->closing.nsettle ? oj->closing.settle_pos : 0;

		(*budget)--;
		seen++;
		if (settle_one(js, oj, oj->closing.settle[i], grace_over) == SETTLED) {
			oj->closing.settle[i] = oj->closing.settle[--oj->closing.nsettle];
			oj->closing.settle_pos = i;
		} else {
			oj->closing.settle_pos = i + 1;
		}
	}
	return oj->closing.nsettle == 0;
}

static void answer(struct jobs *js, struct open_job *oj, char *reply)
{
	uint64_t t = oj->closing.answer_ticket;

	oj->closing.answer_ticket = 0;
	if (js->closing.answer)
		js->closing.answer(js->closing.answer_ctx, t, reply);
	else
		free(reply);
}

void closing_step(struct jobs *js)
{
	size_t budget = SETTLE_PER_STEP;
	uint64_t now = clock_mono_ns();

	if (!js->closing.nclosing)
		return;
	/* the records waiting are those of the processes being settled */
	bpf_loader_consume(js->bpf);
	for (size_t i = 0; i < jobs_count(js);) {
		struct open_job *oj = jobs_at(js, i);

		if (!oj->closing.active) {
			i++;
			continue;
		}
		/* settled, and its GPU answers in (or waited for long enough) */
		if (budget && settle_some(js, oj, &budget) && jobgpu_settled(js, oj)) {
			jobs_finish(js, oj); /* open[i] now holds another job */
			continue;
		}
		if (oj->closing.answer_ticket && now >= oj->closing.answer_by_ns)
			answer(js, oj, proto_ok_reply(NULL, 0));
		i++;
	}
}

/* Up to max live pids of oj from its reconcile cursor on. */
static size_t next_pids(struct open_job *oj, pid_t *out, size_t max)
{
	struct job *j = oj->job;
	size_t n = 0, b = oj->closing.check_bucket;

	for (size_t k = 0; k < j->live_buckets && n < max; k++, b++) {
		if (b >= j->live_buckets)
			b = 0;
		for (struct job_proc *p = j->live[b]; p; p = p->next)
			if (n < max)
				out[n++] = p->pid;
	}
	oj->closing.check_bucket = b;
	return n;
}

void closing_reconcile(struct jobs *js)
{
	static pid_t pids[RECONCILE_PER_TICK];
	size_t budget = RECONCILE_PER_TICK;

	for (size_t i = 0; i < jobs_count(js) && budget; i++) {
		struct open_job *oj = jobs_at(js, i);
		size_t n;

		if (oj->closing.active || !oj->job->nlive)
			continue;
		n = next_pids(oj, pids, budget < oj->job->nlive ? budget : oj->job->nlive);
		budget -= n;
		for (size_t k = 0; k < n; k++) {
			struct job_proc *p = job_proc_find(oj->job, pids[k]);
			struct tracer_proc kp;

			if (!p)
				continue;
			if (in_table(js, oj, p->pid, &kp))
				p->flags &= ~PROC_F_NO_ENTRY;
			else if (p->flags & PROC_F_NO_ENTRY)
				exit_lost(js, oj, p);
			else
				p->flags |= PROC_F_NO_ENTRY; /* its record may be in flight */
		}
	}
}

/* Shutdown: settle everything (nothing is served any more). */
void closing_drain(struct jobs *js)
{
	while (js->closing.nclosing) {
		closing_step(js);
		if (js->closing.nclosing)
			usleep(1000);
	}
}

/* The end of a job asked by its registrant (jobs_end). */
char *closing_end(struct jobs *js, struct open_job *oj, uint64_t ticket)
{
	size_t budget = SETTLE_PER_STEP;

	closing_start(js, oj, "end");
	bpf_loader_consume(js->bpf);
	if (settle_some(js, oj, &budget) && jobgpu_settled(js, oj)) {
		jobs_finish(js, oj);
		return proto_ok_reply(NULL, 0);
	}
	if (!ticket)
		return proto_ok_reply(NULL, 0);
	oj->closing.answer_ticket = ticket;
	oj->closing.answer_by_ns = clock_mono_ns() + ANSWER_WAIT_NS;
	return NULL;
}

void closing_finish_now(struct jobs *js, struct open_job *oj, const char *why)
{
	oj->closing.why = why;
	jobs_finish(js, oj);
}

void closing_forget(struct jobs *js, struct open_job *oj)
{
	if (oj->closing.answer_ticket)
		answer(js, oj, proto_ok_reply(NULL, 0));
	if (oj->closing.active)
		js->closing.nclosing--;
	closing_free(oj);
}

void closing_free(struct open_job *oj)
{
	free(oj->closing.settle);
	oj->closing.settle = NULL;
	oj->closing.nsettle = 0;
}
