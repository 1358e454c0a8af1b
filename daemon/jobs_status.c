/*
 * jobs_status.c - the jobs part of `tracer status`: tracerd's job counters,
 * the open jobs (at most STATUS_MAX_JOBS, the newest) and the recently
 * closed ones, and the per-user shares (jobs_shares).  Kept apart from
 * jobs_table.c, which opens and closes jobs.
 */
#include "jobs.h"

#include "clock.h"
#include "closing.h"
#include "identity.h"
#include "json.h"
#include "summary_container.h"

/* Open jobs listed in a status reply (the newest). */
#define STATUS_MAX_JOBS 50

/* the memo of the node increments (jobinc.h): every entry dropped counted */
static void add_increments(cJSON *o, const struct jobinc_memo *m)
{
	cJSON *n = cJSON_AddObjectToObject(o, "node_increments");
	struct jobinc_stats st;

	jobinc_stats(m, &st);
	json_add_u64(n, "jobs_held", st.entries);
	json_add_u64(n, "written", st.written);
	json_add_u64(n, "unknown", st.unknown);
	json_add_u64(n, "dropped_full", st.dropped_full);
	json_add_u64(n, "dropped_idle", st.dropped_ttl);
	json_add_u64(n, "ended", st.ended);
}

cJSON *jobs_status_json(const struct jobs *js)
{
	cJSON *o = cJSON_CreateObject(), *arr;

	if (!o)
		return NULL;
	json_add_u64(o, "open", jobs_count(js));
	json_add_u64(o, "registered", js->stats.registered);
	json_add_u64(o, "joined", js->stats.joined);
	json_add_u64(o, "closed", js->stats.closed);
	json_add_u64(o, "closed_by_end", js->stats.closed_by_end);
	json_add_u64(o, "closed_empty", js->stats.closed_empty);
	json_add_u64(o, "tag_failures", js->stats.tag_failures);
	json_add_u64(o, "late_events", js->stats.late_events);
	json_add_u64(o, "unknown_procs", js->stats.unknown_procs);
	json_add_u64(o, "bad_records", js->stats.bad_records);
	json_add_u64(o, "exit_records_lost", js->stats.exits_lost);
	json_add_u64(o, "samples_pid_reused", js->stats.pid_reused);
	json_add_u64(o, "closing", closing_count(js));
	add_increments(o, js->jobinc);
	cJSON_AddItemToObject(o, "docker_joins", summary_container_joins(&js->stats.docker));
	arr = cJSON_AddArrayToObject(o, "open_jobs");
	size_t first = jobs_count(js) > STATUS_MAX_JOBS ? jobs_count(js) - STATUS_MAX_JOBS : 0;
	json_add_u64(o, "open_jobs_omitted", first);
	for (size_t i = first; arr && i < jobs_count(js); i++) {
		cJSON *e = cJSON_CreateObject();
		const struct job *j = jobs_at(js, i)->job;
		if (!e)
			break;
		uint64_t rss = 0;
		JOB_FOREACH_LIVE(j, p)
			rss += p->rss_bytes;
		json_add_str(e, "job", j->uid);
		cJSON_AddItemToObject(e, "identity", identity_to_json(&j->id));
		json_add_time(e, "start", j->start_ns);
		uint64_t now = clock_real_ns();
		json_add_secs(e, "wall_s", now > j->start_ns ? now - j->start_ns : 0);
		json_add_u64(e, "live", j->nlive);
		json_add_u64(e, "processes", j->procs_total);
		/* finished processes only: live ones report at their exit */
		json_add_secs(e, "cpu_s_exited", j->totals.cpu_ns);
		json_add_u64(e, "rss_bytes", rss);
		json_add_u64(e, "mem_peak_bytes", j->mem_peak_bytes);
		cJSON_AddBoolToObject(e, "stalled", j->stalled);
		if (j->gpu) /* points of the GPU lane so far (gpu.h) */
			json_add_u64(e, "gpu_points", j->gpu->npoints);
		cJSON_AddItemToArray(arr, e);
	}
	arr = cJSON_AddArrayToObject(o, "recent");
	unsigned n = js->nrecent < RECENT_JOBS ? js->nrecent : RECENT_JOBS;
	for (unsigned i = 0; arr && i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(
			js->recent[(js->nrecent - 1 - i) % RECENT_JOBS]));
	return o;
}

cJSON *jobs_shares_json(const struct jobs_shares *sh)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	json_add_u64(o, "max_jobs_per_user", sh->max_jobs_per_user);
	json_add_u64(o, "max_procs_per_user", sh->max_procs_per_user);
	json_add_u64(o, "max_procs_all_users", sh->max_procs_all_users);
	json_add_u64(o, "refused_user_jobs", sh->refused_user_jobs);
	json_add_u64(o, "refused_node_jobs", sh->refused_node_jobs);
	json_add_u64(o, "refused_rate", sh->refused_rate);
	json_add_u64(o, "rated_together", sh->rated_together);
	json_add_u64(o, "forks_over_user_cap", sh->forks_over_user_cap);
	json_add_u64(o, "forks_over_users_cap", sh->forks_over_users_cap);
	json_add_u64(o, "archive_held_for_fairness", sh->archive_held);
	json_add_u64(o, "archive_refused_busy", sh->archive_refused);
	json_add_u64(o, "spool_dropped", sh->spool_dropped);
	json_add_u64(o, "spool_share_spared", sh->spool_spared);
	json_add_u64(o, "archive_share_dropped", sh->archive_dropped);
	return o;
}
