/*
 * status_reply.c - tracerd's answer to a status request (`tracer status`):
 * its counters, the kernel's, delivery's, the per-user shares and the
 * open jobs, with other users' jobs and sinks hidden from a user who may
 * not see them (privacy.c).
 */
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "json.h"
#include "proto.h"
#include "summary.h"
#include "tracerd_priv.h"
#include "waitacct.h"
#include "gpu_nvml.h"
#include "slurmjob.h"

/* Each per-user limit and what it refused or dropped (jobs.h). */
void status_reply_shares(struct tracerd *d, const __u64 *kernel,
			 const struct delivery_stats *ds, struct jobs_shares *sh)
{
	memset(sh, 0, sizeof(*sh));
	sh->max_jobs_per_user = (unsigned)d->cfg.max_jobs_per_user;
	sh->max_procs_per_user = config_procs_per_user(&d->cfg);
	sh->max_procs_all_users = config_procs_all_users(&d->cfg);
	sh->refused_user_jobs = d->admission.refused_user_jobs;
	sh->refused_node_jobs = d->admission.refused_node_limit;
	sh->refused_rate = d->admission.refused_rate;
	sh->rated_together = d->admission.overflowed;
	sh->forks_over_user_cap = kernel[TRACER_CNT_OVER_USER_CAP];
	sh->forks_over_users_cap = kernel[TRACER_CNT_OVER_USERS_CAP];
	archive_get_counts(d->archive, &sh->archive_held, &sh->archive_refused);
	sh->spool_dropped = ds->spool.dropped;
	sh->spool_spared = ds->spool.share_spared;
	for (int i = 0; i < ds->nsinks; i++)
		sh->archive_dropped += ds->sinks[i].share_dropped;
}

char *status_reply_render(struct tracerd *d, const struct peer *peer)
{
	cJSON *o = cJSON_CreateObject(), *st, *arr, *cnt;
	__u64 c[TRACER_CNT__MAX];
	char names[16][32];
	const struct server_stats *ss = server_get_stats(d->server);
	char *line;
	int n;

	if (!o)
		return NULL;
	cJSON_AddTrueToObject(o, "ok");
	st = cJSON_AddObjectToObject(o, "status");
	json_add_str(st, "version", TRACER_VERSION);
	json_add_u64(st, "pid", (uint64_t)getpid());
	json_add_secs(st, "uptime_s", clock_mono_ns() - d->started_mono_ns);
	json_add_str(st, "hostname", d->host.hostname);
	cJSON_AddBoolToObject(st, "trace_all", d->cfg.trace_all);
	json_add_str(st, "socket", d->cfg.socket_path);
	json_add_str(st, "sinks", d->cfg.sinks);
	json_add_str(st, "file", d->cfg.file_path);
	json_add_str(st, "network_counting", bpf_loader_net_mode(d->bpf));
	cJSON_AddItemToObject(st, "network_not_counted",
			      netio_not_counted_json(bpf_loader_net_mode(d->bpf)));
	arr = cJSON_AddArrayToObject(st, "programs");
	n = bpf_loader_programs(d->bpf, names, 16);
	for (int i = 0; arr && i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(names[i]));
	bpf_loader_counters(d->bpf, c);
	cnt = cJSON_AddObjectToObject(st, "kernel");
	json_add_u64(cnt, "events", c[TRACER_CNT_EVENTS]);
	json_add_u64(cnt, "forks", c[TRACER_CNT_FORKS]);
	json_add_u64(cnt, "execs", c[TRACER_CNT_EXECS]);
	json_add_u64(cnt, "exits", c[TRACER_CNT_EXITS]);
	json_add_u64(cnt, "ooms", c[TRACER_CNT_OOMS]);
	json_add_u64(cnt, "drops_ringbuf", c[TRACER_CNT_DROP_RINGBUF]);
	json_add_u64(cnt, "drops_procs_full", c[TRACER_CNT_DROP_PROCS_FULL]);
	json_add_u64(cnt, "forks_over_job_cap", c[TRACER_CNT_OVER_CAP]);
	json_add_u64(cnt, "forks_over_user_cap", c[TRACER_CNT_OVER_USER_CAP]);
	json_add_u64(st, "drops", c[TRACER_CNT_DROP_RINGBUF] + c[TRACER_CNT_DROP_PROCS_FULL]);
	cnt = cJSON_AddObjectToObject(st, "socket_stats");
	json_add_u64(cnt, "accepted", ss->accepted);
	json_add_u64(cnt, "requests", ss->requests);
	json_add_u64(cnt, "bad_requests", ss->bad_requests);
	json_add_u64(cnt, "too_many_connections", ss->too_many);
	json_add_u64(cnt, "peer_gone", ss->peer_gone);
	json_add_u64(cnt, "refused_rate", d->admission.refused_rate);
	json_add_u64(cnt, "refused_node_limit", d->admission.refused_node_limit);
	json_add_u64(cnt, "timeouts", ss->timeouts);
	json_add_u64(cnt, "reply_failed", ss->reply_failed);
	struct delivery_stats ds;
	delivery_get_stats(d->delivery, &ds);
	cJSON_AddItemToObject(st, "delivery", delivery_stats_json(&ds));
	{
		struct jobs_shares sh;

		status_reply_shares(d, c, &ds, &sh);
		cJSON_AddItemToObject(st, "shares", jobs_shares_json(&sh));
	}
	cJSON_AddItemToObject(st, "jobs", jobs_status_json(&d->jobs));
	cJSON_AddItemToObject(st, "archive_requests", archive_stats_json(d->archive));
	cJSON_AddItemToObject(st, "slurm", slurmjob_stats_json());
	if (!privacy_sees_all(&d->privacy, peer)) {
		privacy_filter_jobs(cJSON_GetObjectItem(st, "jobs"), peer, &d->jobs);
		privacy_filter_delivery(cJSON_GetObjectItem(st, "delivery"));
	}
	{
		struct wait_accounting wa;

		waitacct_probe(&wa);
		cJSON_AddItemToObject(st, "wait_accounting", waitacct_json(&wa));
	}
	cJSON_AddItemToObject(st, "gpu", gpu_nvml_status_json());
	cJSON_AddItemToObject(st, "idle_host", idle_host_json(&d->idle, d->cfg.idle_host_cpu_share,
							      d->cfg.idle_host_after_s));
	line = proto_render_line(o);
	cJSON_Delete(o);
	return line;
}

