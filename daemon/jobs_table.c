/*
 * jobs_table.c - the life of a job in tracerd (jobs.h): a registration opens
 * it (or joins the open job of the same Slurm step / AWS Batch attempt),
 * its registrant's "end" closes it, and so does the exit of its last
 * process when the registrant is gone.  Closing writes the summary.
 */
#include "jobs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf_loader.h"
#include "clock.h"
#include "closing.h"
#include "defaults.h"
#include "jobcontainers.h"
#include "jobdocker.h"
#include "jobgpu.h"
#include "json.h"
#include "log.h"
#include "netpeers.h"
#include "procfs.h"
#include "proto.h"
#include "livestats.h"
#include "summary_finish.h"
#include "usernames.h"
#include "slurmjob.h"
#include "journal.h"

void jobs_clock_update(struct jobs *js)
{
	js->mono_to_real_ns = (int64_t)(clock_real_ns() - clock_mono_ns());
}

uint64_t jobs_real_ns(const struct jobs *js, uint64_t mono_ns)
{
	return mono_ns ? (uint64_t)((int64_t)mono_ns + js->mono_to_real_ns) : 0;
}

int jobs_init(struct jobs *js, const struct tracer_config *cfg,
	      const struct host_info *host, const struct rules *rules,
	      struct delivery *delivery, struct bpf_loader *bpf)
{
	memset(js, 0, sizeof(*js));
	js->cfg = cfg;
	js->host = host;
	js->rules = rules;
	js->delivery = delivery;
	js->bpf = bpf;
	js->next_tag = 1;
	jobs_clock_update(js);
	/* before the event loop: the tail of the archive, bounded */
	if (history_init(&js->history) == 0 && strstr(cfg->sinks, "file")) {
		int n = history_load_file(&js->history, cfg->file_path);
		if (n > 0)
			log_info("history: %d earlier runs read from %s", n, cfg->file_path);
	}
	js->jobinc = jobinc_new(TRACER_JOBINC_MAX, TRACER_JOBINC_IDLE_S * 1000000000ull,
				clock_real_ns());
	if (!js->jobinc) /* summaries then carry no increments: the sweep folds them */
		log_error("node increments: out of memory");
	if (cfg->trace_all)
		jobs_open_host(js);
	return 0;
}

size_t jobs_count(const struct jobs *js)
{
	return js->nopen;
}

struct open_job *jobs_at(const struct jobs *js, size_t i)
{
	return i < js->nopen ? js->open[i] : NULL;
}

struct open_job *jobs_find_tag(struct jobs *js, uint64_t tag)
{
	if (js->last_hit && js->last_hit->job->tag == tag)
		return js->last_hit;
	for (size_t i = 0; i < js->nopen; i++) {
		if (js->open[i]->job->tag == tag) {
			js->last_hit = js->open[i];
			return js->open[i];
		}
	}
	return NULL;
}

/* The open job with this uid or join key. */
static struct open_job *jobs_find_name(struct jobs *js, const char *name)
{
	if (!name[0])
		return NULL;
	for (size_t i = 0; i < js->nopen; i++)
		if (!closing_active(js->open[i]) && (strcmp(js->open[i]->job->uid, name) == 0 ||
					      strcmp(js->open[i]->join_key, name) == 0))
			return js->open[i];
	return NULL;
}

static int open_add(struct jobs *js, struct open_job *oj)
{
	if (js->nopen == js->cap) {
		size_t cap = js->cap ? js->cap * 2 : 16;
		struct open_job **v = realloc(js->open, cap * sizeof(*v));
		if (!v)
			return -1;
		js->open = v;
		js->cap = cap;
	}
	js->open[js->nopen++] = oj;
	return 0;
}

static void open_remove(struct jobs *js, struct open_job *oj)
{
	for (size_t i = 0; i < js->nopen; i++) {
		if (js->open[i] == oj) {
			js->open[i] = js->open[--js->nopen];
			break;
		}
	}
	if (js->last_hit == oj)
		js->last_hit = NULL;
}

static uint64_t drop_count(struct jobs *js)
{
	__u64 c[TRACER_CNT__MAX];

	bpf_loader_counters(js->bpf, c);
	return c[TRACER_CNT_DROP_RINGBUF] + c[TRACER_CNT_DROP_PROCS_FULL];
}

struct open_job *jobs_open_new(struct jobs *js, const struct tracer_identity *id)
{
	struct open_job *oj = calloc(1, sizeof(*oj));
	char uid[TRACER_JOB_UID_LEN];

	if (!oj)
		return NULL;
	/* unique per host: hostname, daemon start, sequence */
	snprintf(uid, sizeof(uid), "%.30s-%llx-%llu", js->host->hostname,
		 (unsigned long long)(clock_real_ns() / 1000000000ull),
		 (unsigned long long)++js->uid_seq);
	oj->job = job_new(uid, id, (size_t)js->cfg->keep_procs);
	if (!oj->job) {
		free(oj);
		return NULL;
	}
	oj->job->tag = js->next_tag++;
	oj->job->start_ns = clock_real_ns();
	identity_join_key(id, oj->join_key, sizeof(oj->join_key));
	oj->drops_at_start = drop_count(js);
	js->journal.dirty = true;
	if (open_add(js, oj) != 0) {
		job_free(oj->job);
		free(oj);
		return NULL;
	}
	return oj;
}

struct open_job *jobs_adopt(struct jobs *js, const struct tracer_identity *id,
			    const char *uid, uint64_t tag)
{
	struct open_job *oj = calloc(1, sizeof(*oj));

	if (!oj || !(oj->job = job_new(uid, id, (size_t)js->cfg->keep_procs))) {
		free(oj);
		return NULL;
	}
	oj->job->tag = tag;
	identity_join_key(id, oj->join_key, sizeof(oj->join_key));
	if (open_add(js, oj) != 0) {
		job_free(oj->job);
		free(oj);
		return NULL;
	}
	if (tag >= js->next_tag)
		js->next_tag = tag + 1;
	slurmjob_want(id); /* not journaled: asked again */
	jobgpu_open(js, oj, false);
	return oj;
}

/* The registered process: what it is now (it has not exec'd the job's
 * command yet when the SPANK plugin registers it). */
static void add_root_proc(struct jobs *js, struct open_job *oj, pid_t pid, bool stays)
{
	struct job_proc *p = jobs_proc_from_proc(js, oj, pid);

	if (!p)
		return;
	p->flags |= PROC_F_ROOT;
	if (stays) {
		job_proc_set_registrant(oj->job, p);
		oj->job->registrant_pid = pid; /* journaled: known again after a restart */
	}
}

struct job_proc *jobs_proc_from_proc(struct jobs *js, struct open_job *oj, pid_t pid)
{
	struct procfs_stat st;
	struct job_proc *p;
	char exe[TRACER_PATH_MAX];
	char argv[TRACER_ARGV_MAX];
	uint64_t start = clock_real_ns();
	ssize_t n;

	memset(&st, 0, sizeof(st));
	if (procfs_read_stat(pid, &st) == 0)
		start = procfs_start_ns(&st, CLOCK_REALTIME);
	p = job_proc_add(oj->job, pid, st.ppid, start, st.comm);
	if (!p)
		return NULL;
	if (!p->start_mono_ns && st.start_ticks)
		p->start_mono_ns = procfs_start_ns(&st, CLOCK_MONOTONIC);
	if (procfs_read_exe(pid, exe, sizeof(exe)) != 0)
		exe[0] = '\0';
	n = procfs_read_cmdline(pid, argv, sizeof(argv));
	/* a full buffer may have cut the last argument: it is then hidden */
	job_proc_exec(oj->job, p, exe, argv, n > 0 ? (size_t)n : 0, js->rules,
		      n >= (ssize_t)sizeof(argv));
	return p;
}

/*
 * A job with a cgroup of its own: its counters are read at every sample,
 * and (v2) every process that enters the cgroup is the job's, even one
 * that did not descend from the registered process.
 */
static void attach_job_cgroup(struct jobs *js, struct open_job *oj, pid_t pid)
{
	struct stat st;

	bool scheduled = !strcmp(oj->job->id.scheduler, "slurm") ||
			 !strcmp(oj->job->id.scheduler, "aws-batch");

	if (oj->job->cgroup_stats || !livestats_job_cgroup(pid, &oj->cgroup))
		return;
	/* Schedulers make a cgroup per job; a local command's container or
	 * session cgroup holds other work too, unless made for it by hand. */
	if (!scheduled && !strstr(oj->cgroup.v2, "/tracer-job") &&
	    !strstr(oj->cgroup.mem_v1, "/tracer-job") && !strstr(oj->cgroup.cpu_v1, "/tracer-job") &&
	    !strstr(oj->cgroup.cpuctl_v1, "/tracer-job"))
		return;
	oj->job->cgroup_stats = true;
	snprintf(oj->job->cgroup_path, sizeof(oj->job->cgroup_path), "%s",
		 oj->cgroup.v2[0] ? oj->cgroup.v2 : oj->cgroup.mem_v1[0] ? oj->cgroup.mem_v1
									: oj->cgroup.cpu_v1);
	if (oj->cgroup.v2[0] && stat(oj->cgroup.v2, &st) == 0 &&
	    bpf_loader_tag_cgroup(js->bpf, (__u64)st.st_ino, oj->job->tag) == 0)
		oj->cgroup_id = (uint64_t)st.st_ino;
	log_info("job %s: own cgroup %s", oj->job->uid, oj->job->cgroup_path);
}

/*
 * Only root on the host (slurmstepd) speaks for others.  Root in a
 * container registers its own job only: as tracer-wrap, its init, does
 * for AWS Batch, under its own uid, never another scheduler's job.
 */
static const char *vet_identity(struct tracer_identity *id, const struct peer *peer)
{
	if (peer_is_admin(peer))
		return NULL;
	if (peer->uid == 0 && peer_in_container(peer)) {
		if (identity_scheduler_reserved(id->scheduler) &&
		    strcmp(id->scheduler, "aws-batch") != 0)
			return "root in a container registers only its own job "
			       "(scheduler aws-batch, or none)";
	} else if (identity_scheduler_reserved(id->scheduler)) {
		/* in any case: "Slurm" must not pass for "slurm" in a report */
		return "only root (the SPANK plugin, tracer-wrap as a container's "
		       "init) registers jobs of a scheduler";
	}
	/* the name from the cache: a look-up (LDAP...) never runs here;
	 * one not known yet is filled in at the summary */
	id->uid = (long)peer->uid;
	id->user[0] = '\0';
	usernames_get(peer->uid, id->user, sizeof(id->user));
	return NULL;
}

/* A job of a user (not root's on the host). */
static bool user_job(const struct open_job *o)
{
	return o->owner_uid != 0 || o->owner_scope != 0;
}

/* Another open job than oj of a user: of oj's owner, or any. */
static bool other_user_job(const struct jobs *js, const struct open_job *oj, bool any)
{
	for (size_t i = 0; i < js->nopen; i++) {
		const struct open_job *o = js->open[i];

		if (o != oj && user_job(o) &&
		    (any || (o->owner_uid == oj->owner_uid && o->owner_scope == oj->owner_scope)))
			return true;
	}
	return false;
}

/*
 * oj's share of the kernel's table goes (it leaves the open jobs); its
 * user's share with it when it was the user's last open job.
 */
static void close_job_share(struct jobs *js, const struct open_job *oj)
{
	bpf_loader_job_close(js->bpf, oj->job->tag);
	if (user_job(oj) && !other_user_job(js, oj, false))
		bpf_loader_user_close(js->bpf, bpf_loader_user_key(oj->owner_uid, oj->owner_scope));
}

static bool may_act_on(const struct jobs *js, const struct open_job *oj, const struct peer *peer)
{
	return oj != js->host_job &&
	       (peer_is_admin(peer) || peer_owns(peer, oj->owner_uid, oj->owner_scope));
}

bool jobs_registered_by(const struct jobs *js, const char *job, const struct peer *peer)
{
	for (size_t i = 0; i < js->nopen; i++) {
		const struct open_job *oj = js->open[i];

		if (oj != js->host_job && !strcmp(oj->job->uid, job))
			return peer_owns(peer, oj->owner_uid, oj->owner_scope);
	}
	return false;
}

uid_t jobs_user_uid(const struct open_job *oj)
{
	return oj->job->id.uid >= 0 ? (uid_t)oj->job->id.uid : oj->owner_uid;
}

/* A process registered again (nested `tracer run`): it leaves its old job. */
static void detach_from_other_jobs(struct jobs *js, struct open_job *keep, pid_t pid)
{
	for (size_t i = 0; i < js->nopen; i++) {
		struct open_job *oj = js->open[i];
		struct job_proc *p;

		if (oj == keep || !(p = job_proc_find(oj->job, pid)))
			continue;
		job_proc_forget(oj->job, p);
		jobs_note_exit(js, oj);
	}
}

char *jobs_register(struct jobs *js, struct tracer_identity *id, bool stays,
		    const struct peer *peer)
{
	struct open_job *oj;
	const char *why;
	char key[TRACER_JOIN_KEY_LEN];
	int err;

	if (peer->pid <= 0)
		return proto_error_replyf("peer pid not visible from tracerd's pid namespace");
	why = vet_identity(id, peer);
	if (why)
		return proto_error_replyf("%s", why);
	identity_join_key(id, key, sizeof(key));
	oj = key[0] ? jobs_find_name(js, key) : NULL;
	if (oj && (oj == js->host_job || !peer_owns(peer, oj->owner_uid, oj->owner_scope)))
		return proto_error_replyf("job %s belongs to another user", key);
	if (oj) {
		js->stats.joined++;
	} else {
		oj = jobs_open_new(js, id);
		if (!oj)
			return proto_error_replyf("out of memory");
		oj->owner_uid = peer->uid;
		oj->owner_scope = peer->scope;
		/* the user's first open job: a share a previous tracerd left
		 * (pinned) counts no process of theirs now; nor all users'
		 * when no user has one */
		if (user_job(oj) && !other_user_job(js, oj, false))
			bpf_loader_user_close(js->bpf, bpf_loader_user_key(peer->uid, peer->scope));
		if (user_job(oj) && !other_user_job(js, oj, true))
			bpf_loader_users_reset(js->bpf);
		/* its share of the kernel's table; without, it has no cap */
		err = bpf_loader_job_open(js->bpf, oj->job->tag,
					  bpf_loader_user_key(peer->uid, peer->scope));
		if (err)
			log_warn("job %s: no per-job counters: %s", oj->job->uid, strerror(-err));
		oj->job_stats = err == 0;
		js->stats.registered++;
		slurmjob_want(id);
		jobgpu_open(js, oj, true);
	}
	err = bpf_loader_tag_pid(js->bpf, peer->pid, oj->job->tag);
	if (err) {
		js->stats.tag_failures++;
		log_warn("register pid %d: cannot tag: %s", (int)peer->pid, strerror(-err));
		if (oj->job->ntasks == 0) {
			open_remove(js, oj);
			if (oj->job_stats)
				close_job_share(js, oj);
			job_free(oj->job);
			free(oj);
		}
		return proto_error_replyf("cannot tag pid %d: %s", (int)peer->pid, strerror(-err));
	}
	oj->job->ntasks++;
	oj->empty_since_ns = 0;
	detach_from_other_jobs(js, oj, peer->pid);
	add_root_proc(js, oj, peer->pid, stays);
	attach_job_cgroup(js, oj, peer->pid);
	jobcontainers_registrant(oj, peer->pid);
	log_info("job %s: pid %d registered (%s%s%s, task %d%s%s)", oj->job->uid,
		 (int)peer->pid, id->scheduler[0] ? id->scheduler : "local",
		 oj->join_key[0] ? " " : "", oj->join_key, oj->job->ntasks,
		 id->task_name[0] ? ", name " : "", id->task_name);
	return proto_ok_reply(oj->job->uid, oj->job->tag);
}

char *jobs_task_exit(struct jobs *js, const char *name, int status,
		     const struct peer *peer)
{
	struct open_job *oj = jobs_find_name(js, name);

	if (!oj || !may_act_on(js, oj, peer))
		return proto_error_replyf("no open job %s of yours", name);
	oj->job->ntasks_exited++;
	if (status > 0 && !oj->job->task_failed_status)
		oj->job->task_failed_status = status;
	return proto_ok_reply(NULL, 0);
}

static void remember_recent(struct jobs *js, const char *uid)
{
	snprintf(js->recent[js->nrecent % RECENT_JOBS], sizeof(js->recent[0]), "%s", uid);
	js->nrecent++;
}

/* This run joins its user's earlier runs of the task name, which its
 * flags and request were measured against (memory only, bounded; keyed
 * per user so that no one moves another's flags: history.h). */
static void note_history(struct jobs *js, const cJSON *summary)
{
	struct history_run r;
	char name[HISTORY_NAME_LEN];
	long uid;

	if (history_run_of_summary(summary, &uid, name, sizeof(name), &r) == 0)
		history_add(&js->history, uid, name, &r);
}

/* another step of oj's job is still open on this node */
static bool job_steps_open(const struct jobs *js, const struct open_job *oj)
{
	const struct tracer_identity *a = &oj->job->id;

	for (size_t i = 0; a->job_id[0] && i < js->nopen; i++) {
		const struct tracer_identity *b = &js->open[i]->job->id;

		if (js->open[i] != oj && !strcmp(a->job_id, b->job_id) &&
		    !strcmp(a->cluster, b->cluster) && !strcmp(a->scheduler, b->scheduler))
			return true;
	}
	return false;
}

/* Write the summary and forget the job: its processes are settled
 * (closing.c); those still live outlive it with the totals read then. */
void jobs_finish(struct jobs *js, struct open_job *oj)
{
	struct job *j = oj->job;
	struct summary_opts so = {.source = "tracerd",
				  .sample_interval_ms = js->cfg->sample_interval_ms};
	cJSON *summary;

	job_close(j, journal_rebuilt(oj) ? journal_end_ns(oj) : clock_real_ns());
	netpeers_apply(j);
	usernames_fill(&j->id);
	slurmjob_fill(&j->id);
	if (!journal_rebuilt(oj)) /* else: from the journal */
		j->events_dropped = drop_count(js) - oj->drops_at_start;
	if (oj->job_stats) { /* its own losses, not the node's */
		struct tracer_job_stats ks;
		if (bpf_loader_job_stats(js->bpf, j->tag, &ks) == 0) {
			j->events_dropped = ks.ringbuf_drops + ks.table_full;
			/* forks not followed: the job's cap or its user's */
			j->procs_over_cap = ks.over_cap + ks.over_user_cap;
		}
		close_job_share(js, oj);
	}
	jobgpu_finish(oj);
	summary = summary_finish(j, js->host, &so, js->cfg, bpf_loader_net_mode(js->bpf),
				 history_find(&js->history, j->id.uid, j->id.task_name));
	/* what it adds to the job's totals on this node (bounded memo) */
	if (summary && js->jobinc &&
	    jobinc_apply(js->jobinc, summary, job_steps_open(js, oj), clock_real_ns()) != 0)
		log_error("job %s: node increments not written: out of memory", j->uid);
	if (summary)
		note_history(js, summary);
	if (!summary)
		log_error("job %s: summary not written: out of memory", j->uid);
	else if (js->delivery) /* to the spool writer: no disk, no network here;
				* journaled until the spool has it */
		journal_submit(js, oj, summary);
	else
		cJSON_Delete(summary);
	log_info("job %s closed (%s): %llu processes, %zu tools", j->uid, closing_why(oj),
		 (unsigned long long)j->procs_total, j->ntools);
	closing_forget(js, oj);
	remember_recent(js, j->uid);
	js->stats.closed++;
	js->journal.dirty = true;
	open_remove(js, oj);
	job_free(j);
	free(oj);
}

char *jobs_end(struct jobs *js, const char *name, int status,
	       const struct peer *peer, uint64_t ticket)
{
	struct open_job *oj = jobs_find_name(js, name);
	struct job_proc *registrant;

	if (!oj || !may_act_on(js, oj, peer))
		return proto_error_replyf("no open job %s of yours", name);
	/* Events already in the ring buffer belong to the job: take them
	 * before closing (the child's exit is there before its parent
	 * could wait for it). */
	bpf_loader_consume(js->bpf);
	if (status >= 0)
		oj->job->exit_status = status;
	/* A wrapper that registered itself and now reports is not an
	 * outliving process: it ends with its job. */
	registrant = job_proc_find(oj->job, peer->pid);
	if (registrant) {
		livestats_read_totals(registrant);
		bpf_loader_untag_pid(js->bpf, registrant->pid);
		job_proc_exit(oj->job, registrant, -1, clock_real_ns(),
			      &registrant->totals, 0);
	}
	js->stats.closed_by_end++;
	return closing_end(js, oj, ticket);
}

void jobs_note_exit(struct jobs *js, struct open_job *oj)
{
	if (oj->job->nlive == 0 && !oj->empty_since_ns)
		oj->empty_since_ns = clock_mono_ns();
}

void jobs_fini(struct jobs *js)
{
	for (size_t i = 0; i < js->nopen; i++) {
		job_free(js->open[i]->job);
		closing_free(js->open[i]);
		free(js->open[i]);
	}
	free(js->open);
	js->open = NULL;
	js->nopen = 0;
	history_free(&js->history);
	jobinc_free(js->jobinc);
	js->jobinc = NULL;
}
