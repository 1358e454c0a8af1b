/*
 * job_blocked.c - a job's blocked time and its cgroup's limits (job_blocked.h).
 */
#include "job_blocked.h"

#include <math.h>
#include <string.h>

#include "clock.h"
#include "job_record.h"
#include "identity.h"
#include "json.h"

uint64_t job_blocked_note_blkio(struct job_blocked *w, uint64_t *seen, uint64_t ticks)
{
	uint64_t grew = 0;

	/* a thread that exits takes its share out of the process's sum:
	 * never count a decrease */
	if (ticks > *seen)
		grew = clock_ticks_ns(ticks - *seen);
	w->blkio_ns += grew;
	*seen = ticks;
	return grew;
}

void job_blocked_note_cgroup(struct job_blocked *w, const struct cgroup_pressure *p,
			     const struct cgroup_limits *l)
{
	if (p) {
		if (!w->psi)
			w->psi_first = *p;
		w->psi_last = *p;
		w->psi = true;
	}
	if (l)
		w->limits = *l;
}

double job_blocked_blkio_s(const struct job_blocked *w, bool delayacct_on)
{
	return delayacct_on ? (double)w->blkio_ns / 1e9 : -1;
}

static double psi_delta_s(const struct job_blocked *w, int r, int full)
{
	uint64_t a = w->psi_first.total_us[r][full], b = w->psi_last.total_us[r][full];

	return b > a ? (double)(b - a) / 1e6 : 0;
}

cJSON *job_blocked_json(const struct job_blocked *w, bool delayacct_on)
{
	static const char *const names[PSI__N] = {"cpu", "memory", "io"};
	cJSON *o = cJSON_CreateObject(), *psi;

	if (!o)
		return NULL;
	json_add_str(o, "delay_accounting", delayacct_on ? "on" : "off");
	if (delayacct_on)
		cJSON_AddNumberToObject(o, "blkio_delay_s", (double)w->blkio_ns / 1e9);
	if (w->psi && (psi = cJSON_AddObjectToObject(o, "psi"))) {
		for (int r = 0; r < PSI__N; r++) {
			cJSON *x = cJSON_AddObjectToObject(psi, names[r]);
			if (!x)
				continue;
			cJSON_AddNumberToObject(x, "some_s", psi_delta_s(w, r, 0));
			cJSON_AddNumberToObject(x, "full_s", psi_delta_s(w, r, 1));
		}
	}
	return o;
}

void job_blocked_limits_to_alloc(struct job_blocked *w, struct tracer_allocation *a)
{
	const struct cgroup_limits *l = &w->limits;
	int qcpus = l->cpus > 0 ? (int)ceil(l->cpus - 1e-9) : 0;

	if (l->mem_bytes && (!a->mem_bytes || (w->limits_used & JOB_WAIT_MEM_LIMIT))) {
		a->mem_bytes = l->mem_bytes;
		w->limits_used |= JOB_WAIT_MEM_LIMIT;
	}
	if (qcpus > 0 && (a->cpus <= 0 || qcpus < a->cpus || (w->limits_used & JOB_WAIT_CPU_LIMIT))) {
		a->cpus = qcpus;
		w->limits_used |= JOB_WAIT_CPU_LIMIT;
	}
}

cJSON *job_blocked_limits_json(const struct job_blocked *w)
{
	cJSON *o, *used;

	if (!w->limits.mem_bytes && w->limits.cpus <= 0)
		return NULL;
	o = cJSON_CreateObject();
	if (!o)
		return NULL;
	if (w->limits.mem_bytes)
		json_add_u64(o, "mem_bytes", w->limits.mem_bytes);
	if (w->limits.cpus > 0)
		cJSON_AddNumberToObject(o, "cpus", w->limits.cpus);
	used = cJSON_AddArrayToObject(o, "used_as_allocation");
	if (used && (w->limits_used & JOB_WAIT_MEM_LIMIT))
		cJSON_AddItemToArray(used, cJSON_CreateString("mem_bytes"));
	if (used && (w->limits_used & JOB_WAIT_CPU_LIMIT))
		cJSON_AddItemToArray(used, cJSON_CreateString("cpus"));
	return o;
}

void job_blocked_sample_cgroup(struct job *j, const struct cgroup_ref *ref)
{
	struct cgroup_stats st;
	struct cgroup_pressure psi;
	struct cgroup_limits lim;
	bool have_psi = cgroup_read_pressure(ref, &psi) == 0;

	if (cgroup_read_stats(ref, &st) == 0)
		job_note_cgroup(j, &st);
	cgroup_read_limits(ref, &lim); /* zeros: no limit */
	job_blocked_note_cgroup(&j->blocked, have_psi ? &psi : NULL, &lim);
	/* no scheduler's allocation: the cgroup's limits are the job's */
	if (strcmp(j->id.scheduler, "slurm") != 0)
		job_blocked_limits_to_alloc(&j->blocked, &j->id.alloc);
}
