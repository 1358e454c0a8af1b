/*
 * standalone.c - the job without a node daemon (Fargate, no socket): the
 * wrapper runs it as init and records it itself, through the tracker
 * (/proc + wait4) and the container's cgroup counters, then finishes its
 * summary as tracerd does (summary_finish: flags, request, cost against
 * the container's allocation: the ECS task's limits, else its cgroup's)
 * and writes it to the configured sinks.  Any failure of the recording
 * leaves the job running untouched: at worst no summary.
 */
#include "wrap.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "cgroup_limits.h"
#include "clock.h"
#include "container_meta.h"
#include "hostinfo.h"
#include "jobinc.h"
#include "job_record.h"
#include "job_state.h"
#include "json.h"
#include "log.h"
#include "rules.h"
#include "runner.h"
#include "tracker.h"
#include "sink.h"
#include "summary_finish.h"

struct standalone {
	struct job *job;
	struct tracker *trk;
	bool have_cg;
	struct cgroup_ref cg;
	uint64_t oom_seen;
};

static void rules_warn(const char *msg)
{
	log_debug("%s", msg);
}

/* The container's counters, pressure and limits (its allocation when the
 * ECS task metadata declared none), as tracerd reads a job's cgroup. */
static void read_cgroup(struct standalone *sa)
{
	if (sa->have_cg)
		job_blocked_sample_cgroup(sa->job, &sa->cg);
}

static void on_tick(void *arg)
{
	struct standalone *sa = arg;

	tracker_sample(sa->trk);
	read_cgroup(sa);
	container_sample(&sa->job->containers);
}

/* "ecs" container from the task metadata's DockerId (a 64-hex id). */
static int container_from_labels(struct container_info *c, const struct tracer_identity *id)
{
	const char *cid = identity_label(id, "container.id");

	if (!cid || strlen(cid) != CONTAINER_ID_LEN || strspn(cid, "0123456789abcdef") != CONTAINER_ID_LEN)
		return -1;
	memset(c, 0, sizeof(*c));
	snprintf(c->runtime, sizeof(c->runtime), "ecs");
	memcpy(c->id, cid, CONTAINER_ID_LEN + 1);
	return 0;
}

/*
 * The container the wrapper runs in, as tracerd would name it: its
 * cgroup path (hidden where the container has its own cgroup namespace),
 * else the ECS task metadata's DockerId; name and image from the ECS
 * labels, or from the containers/storage records when they are visible.
 */
static void find_container(struct standalone *sa, const struct tracer_config *cfg)
{
	struct container_set *s = &sa->job->containers;
	struct container_info *c = &s->c[0];

	if (container_note_pid(s, getpid()) > 0) {
		/* seen from inside, the container's cgroup directories are
		 * the mount roots, without the id in their path */
		if (sa->have_cg)
			c->ref = sa->cg;
	} else {
		if (container_from_labels(c, &sa->job->id) < 0)
			return;
		s->n = 1;
		/* our cgroup is the container's when we are its init */
		if (sa->have_cg) {
			c->ref = sa->cg;
			snprintf(c->cgroup, sizeof(c->cgroup), "%s", sa->job->cgroup_path);
		}
	}
	if (container_meta_labels(&sa->job->id, c) < 0) {
		char why[640];

		container_meta_storage(cfg->container_storage, c, why, sizeof(why));
		if (why[0])
			log_warn("%s", why);
	}
	c->meta_tried = true;
	/* the init of a pid namespace: the container's */
	if (getpid() == 1)
		c->pidns = container_pidns(0);
}

/* The OOM kill described as tracerd describes one from the kernel's
 * event: the victim, the largest process by its last sample, the
 * container's memory limit and its peak use; victim 0 is a kill of a
 * process the wrapper did not reap (its tool is unknown). */
static void note_oom(struct standalone *sa, pid_t victim, const struct cgroup_stats *st)
{
	struct cgroup_limits lim = {0};
	long page = sysconf(_SC_PAGESIZE), phys = sysconf(_SC_PHYS_PAGES);

	if (page <= 0)
		page = 4096;
	if (cgroup_read_limits(&sa->cg, &lim) < 0)
		lim.mem_bytes = 0;
	job_note_oom(sa->job, victim, 0, lim.mem_bytes / (uint64_t)page,
		     st->mem_peak_bytes / (uint64_t)page,
		     phys > 0 ? (uint64_t)phys * (uint64_t)page : 0, page);
}

/* A SIGKILL while the cgroup's OOM count grew: the OOM killer's victim. */
static void mark_oom(struct standalone *sa, pid_t pid, int status)
{
	struct cgroup_stats st;
	struct job_proc *jp;

	if (!sa->have_cg || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		return;
	if (cgroup_read_stats(&sa->cg, &st) < 0 || st.oom_kills <= sa->oom_seen)
		return;
	sa->oom_seen++;
	jp = job_proc_find(sa->job, pid);
	if (!jp)
		return;
	jp->flags |= PROC_F_OOM_KILLED;
	note_oom(sa, pid, &st);
}

/* OOM kills in the container that no reaped process accounts for (a
 * tool killed under a shell that reaped it): the job's all the same. */
static void note_unseen_ooms(struct standalone *sa)
{
	struct cgroup_stats st;

	if (!sa->have_cg || cgroup_read_stats(&sa->cg, &st) < 0)
		return;
	for (; sa->oom_seen < st.oom_kills; sa->oom_seen++)
		note_oom(sa, 0, &st);
}

static void on_reap(void *arg, pid_t pid, int status, const struct rusage *ru)
{
	struct standalone *sa = arg;

	mark_oom(sa, pid, status);
	tracker_reaped(sa->trk, pid, status, ru);
}

/*
 * The container's cgroup is the job's own only when we are its init;
 * elsewhere the cgroup holds whatever else the session runs.
 */
static void find_cgroup(struct standalone *sa)
{
	struct cgroup_stats st;

	if (getpid() != 1 || cgroup_ref_for_pid(getpid(), &sa->cg) < 0)
		return;
	sa->have_cg = true;
	if (cgroup_read_stats(&sa->cg, &st) == 0)
		sa->oom_seen = st.oom_kills;
	snprintf(sa->job->cgroup_path, sizeof(sa->job->cgroup_path), "%s",
		 sa->cg.v2[0] ? sa->cg.v2 : sa->cg.mem_v1);
}

static void job_uid(const struct tracer_identity *id, char *buf, size_t len)
{
	char host[128] = "";

	identity_join_key(id, buf, len);
	if (buf[0])
		return;
	gethostname(host, sizeof(host) - 1);
	snprintf(buf, len, "%s-wrap-%d-%llu", host[0] ? host : "localhost",
		 (int)getpid(), (unsigned long long)(clock_real_ns() / 1000000));
}

static void write_summary(const struct tracer_config *cfg,
			  const struct job *j)
{
	struct summary_opts sopts = {
		.source = "tracer-wrap",
		.sample_interval_ms = cfg->sample_interval_ms,
	};
	struct host_info host;
	struct sinks *sinks;
	cJSON *summary;
	char err[256] = "";

	host_info_read(&host);
	/* no kernel programs without tracerd: no socket or block counters
	 * per process (the container's cgroup_io still has its block I/O);
	 * one job per container: no earlier runs to compare with */
	summary = summary_finish(j, &host, &sopts, cfg, "none", NULL);
	if (!summary) {
		log_error("summary: out of memory: job %s not written", j->uid);
		return;
	}
	/* on its own, the summary is its job's only one on this host: its
	 * own node totals (jobinc.h) */
	if (jobinc_apply(NULL, summary, false, 0) != 0)
		log_error("summary of job %s: node increments: out of memory", j->uid);
	sinks = sinks_open(cfg, err, sizeof(err));
	if (!sinks) {
		log_error("summary of job %s not written: %s", j->uid, err);
	} else {
		if (sinks_write(sinks, summary, err, sizeof(err)) > 0)
			log_error("summary of job %s: %s", j->uid, err);
		sinks_close(sinks);
	}
	cJSON_Delete(summary);
}

/* The wrapper's own cost, for the tests and the curious (-v). */
static void report_cost(const struct standalone *sa, uint64_t wall0)
{
	double wall = (double)(clock_real_ns() - wall0) / 1e9;
	struct rusage ru;
	double own;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return;
	own = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	log_debug("cost: %llu samples took %.3f ms of CPU (%.3f%% of one core); "
		  "the wrapper used %.3f ms of CPU in %.3f s (%.3f%% of one core)",
		  (unsigned long long)tracker_samples(sa->trk),
		  (double)tracker_cost_ns(sa->trk) / 1e6,
		  wall > 0 ? (double)tracker_cost_ns(sa->trk) / 1e7 / wall : 0,
		  own * 1e3, wall, wall > 0 ? own * 100 / wall : 0);
}

int standalone_run(const struct wrap_opts *o, const struct tracer_config *cfg,
		   const struct tracer_identity *id, struct runner *r,
		   const struct runner_opts *base)
{
	struct runner_opts ropts = *base;
	struct rules *rules = rules_load(cfg->rules_path, rules_warn);
	char uid[TRACER_JOB_UID_LEN];
	uint64_t wall0 = clock_real_ns();
	struct standalone sa;
	int status;

	memset(&sa, 0, sizeof(sa));
	job_uid(id, uid, sizeof(uid));
	sa.job = job_new(uid, id, (size_t)cfg->keep_procs);
	if (sa.job) {
		sa.job->start_ns = wall0;
		sa.trk = tracker_new(sa.job, rules, cfg->argv_max);
		find_cgroup(&sa);
		find_container(&sa, cfg);
		read_cgroup(&sa); /* the first reading: pressure counts from here */
	}
	if (!sa.job || !sa.trk)
		log_error("out of memory: job runs without being recorded");
	else {
		ropts.tick_ms = cfg->sample_interval_ms;
		ropts.on_tick = on_tick;
		ropts.on_reap = on_reap;
		ropts.arg = &sa;
	}

	if (runner_start(r, o->cmd, &ropts) < 0) {
		status = r->child_status;
	} else {
		if (sa.trk)
			tracker_add_root(sa.trk, r->child, o->cmd);
		status = runner_wait(r);
	}

	if (sa.job && sa.trk) {
		tracker_finish(sa.trk);
		note_unseen_ooms(&sa);
		read_cgroup(&sa);
		container_sample(&sa.job->containers);
		sa.job->exit_status = status;
		job_close(sa.job, clock_real_ns());
		write_summary(cfg, sa.job);
		report_cost(&sa, wall0);
	}
	tracker_free(sa.trk);
	job_free(sa.job);
	rules_free(rules);
	return runner_exit_code(status);
}
