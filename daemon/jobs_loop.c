/*
 * jobs_loop.c - what tracerd's loop asks of the job table (jobs.h)
 * besides the requests: the periodic tick (the host job's periods in
 * trace_all mode, jobs empty for the grace period, the slices of the
 * containers', docker's, GPUs' and closing's work) and closing
 * everything at shutdown.  The loop's closing slices between two events
 * and the GPUs' sampling are closing.c's and jobgpu.c's own (tracerd.c
 * calls them).
 */
#include "jobs.h"

#include <stdio.h>

#include "bpf_loader.h"
#include "clock.h"
#include "closing.h"
#include "jobcontainers.h"
#include "jobdocker.h"
#include "jobgpu.h"
#include "log.h"

/* In trace_all mode, everything not in a job goes to a "host" job whose
 * summary is written at this interval (and when tracerd stops). */
#define HOST_JOB_PERIOD_NS (600ull * 1000000000ull)

/* How long a job whose processes have all exited waits for its end
 * message before it is closed anyway (its registrant is gone). */
#define EMPTY_GRACE_NS (1000ull * 1000000ull)

void jobs_open_host(struct jobs *js)
{
	struct tracer_identity id;
	struct open_job *oj;

	identity_init(&id);
	snprintf(id.scheduler, sizeof(id.scheduler), "host");
	snprintf(id.task_name, sizeof(id.task_name), "host activity outside jobs");
	oj = jobs_open_new(js, &id);
	if (!oj) {
		log_error("trace_all: cannot open the host job: out of memory");
		return;
	}
	js->next_tag--; /* the host job has the reserved tag */
	oj->job->tag = TRACER_JOB_HOST;
	js->host_job = oj;
	js->host_job_opened_ns = clock_mono_ns();
}

void jobs_tick(struct jobs *js)
{
	uint64_t now = clock_mono_ns();

	jobs_clock_update(js);
	if (js->cfg->trace_all && js->host_job &&
	    now - js->host_job_opened_ns >= HOST_JOB_PERIOD_NS) {
		struct open_job *old = js->host_job;
		js->host_job = NULL;
		old->job->tag = UINT64_MAX; /* the next period's job gets the host's events */
		closing_start(js, old, "host period");
	}
	if (js->cfg->trace_all && !js->host_job)
		jobs_open_host(js);
	for (size_t i = 0; i < jobs_count(js);) {
		struct open_job *oj = jobs_at(js, i);
		if (oj != js->host_job && !closing_active(oj) && oj->job->nlive == 0 &&
		    oj->empty_since_ns && now - oj->empty_since_ns >= EMPTY_GRACE_NS) {
			js->stats.closed_empty++;
			closing_start(js, oj, "all processes exited");
		}
		i++;
	}
	jobdocker_tick(js);
	jobgpu_drain(js);
	jobcontainers_tag_all(js);
	closing_reconcile(js);
	closing_step(js);
}

void jobs_close_all(struct jobs *js, const char *why)
{
	js->host_job = NULL;
	for (size_t i = 0; i < jobs_count(js); i++)
		closing_start(js, jobs_at(js, i), why);
	closing_drain(js);
}

void jobs_close_host(struct jobs *js, const char *why)
{
	struct open_job *h = js->host_job;

	js->host_job = NULL;
	if (h)
		closing_start(js, h, why);
	closing_drain(js);
}
