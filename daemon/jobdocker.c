/*
 * jobdocker.c - a container started through dockerd by a job's docker
 * command joins the job (dockerwatch.h asks dockerd which one it is, on
 * its thread).  Here, on the loop: a job's process exec'ing the docker
 * CLI with run, create or start starts a watch; a found container is
 * named from dockerd's list (name, image: fields that carry no
 * environment), its v2 cgroup tagged with the job's tag (jobcontainers.c,
 * with its ownership rules) and the processes already in it adopted, so
 * that the container's init and what it started before the tag are the
 * job's too.  Every command's outcome is counted, per job (summary
 * docker_joins) and in tracer status.
 *
 * Every decision is the job's user's (jobs_user_uid: Slurm's job user,
 * not slurmstepd's root that registered it): dockerd is asked only when
 * that user can write to its socket; the client must be the docker CLI
 * itself (docker_clients, by device and inode: any program can be named
 * docker); and the container joins only when none of its processes
 * started before the client's exec (a running container of someone
 * else's, `docker start NAME`, is not the command's) and, for a user
 * other than root, all of them run as that user (jobcontainers.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bpf_loader.h"
#include "cgroup.h"
#include "closing.h"
#include "container.h"
#include "dockercmd.h"
#include "dockerwatch.h"
#include "jobcontainers.h"
#include "jobdocker.h"
#include "jobs.h"
#include "log.h"
#include "procfs.h"
#include "tracer.h"

/* processes already in a container adopted when it joins (cgroup.procs) */
#define ADOPT_PROCS 64
/* results handled per tick */
#define RESULTS_PER_TICK 8

/* processes of a found container whose start is checked before it joins */
#define START_CHECK_PROCS 64

/*
 * The sockets of list (docker_sockets) the job's user can write to, as
 * the docker CLI must (owner, group of the client process, or anyone),
 * into out: a user without access to dockerd starts no container, and
 * tracerd, root, must not ask dockerd for them (a process merely named
 * docker would learn of other users' containers through the counts).
 * The job's user, not its registrant: slurmstepd registers as root.
 */
static void usable_sockets(const char *list, const struct open_job *oj, pid_t client,
			   char *out, size_t cap)
{
	size_t used = 0;
	uid_t user = jobs_user_uid(oj);

	out[0] = '\0';
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ", ");
		char path[108];
		struct stat st;

		if (len && len < sizeof(path)) {
			memcpy(path, p, len);
			path[len] = '\0';
			if (user == 0 ||
			    (stat(path, &st) == 0 &&
			     (st.st_uid == user || (st.st_mode & S_IWOTH) ||
			      ((st.st_mode & S_IWGRP) && procfs_in_group(client, st.st_gid) == 1)))) {
				int w = snprintf(out + used, cap - used, "%s%s", used ? "," : "", path);
				if (w > 0 && (size_t)w < cap - used)
					used += (size_t)w;
			}
		}
		p += len;
		p += strspn(p, ", ");
	}
}

/* Is the process that exec'd the docker CLI (docker_clients), whatever
 * its name?  Its running file, by /proc/PID/exe: neither argv[0] nor a
 * path bind-mounted in another mount namespace can pass for it. */
static bool is_docker_client(const struct jobs *js, const struct open_job *oj,
			     const struct job_proc *p)
{
	char exe[64];
	int rc;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)p->pid);
	rc = docker_cmd_exe_is(exe, js->cfg->docker_clients);
	if (rc == 1)
		return true;
	if (oj->job->containers.docker.refused & (oj->job->containers.docker.refused - 1))
		return false; /* logged at 1, 2, 4...: a job cannot flood the log */
	if (rc == 0)
		log_warn("job %s: pid %d runs a program named docker that is none of "
			 "docker_clients: its command is refused", oj->job->uid, (int)p->pid);
	else
		log_warn("job %s: pid %d's executable cannot be read (%s): its docker "
			 "command is refused", oj->job->uid, (int)p->pid, strerror(errno));
	return false;
}

void jobdocker_exec(struct jobs *js, struct open_job *oj, const struct job_proc *p,
		    uint64_t exec_real_ns)
{
	char sockets[sizeof(js->cfg->docker_sockets)];
	struct docker_cmd cmd;
	char argv0[256];
	size_t n0;

	if (oj == js->host_job || closing_active(oj) || !p->argv)
		return;
	/* argv is argv_len bytes: its last argument may have no NUL */
	n0 = strnlen(p->argv, p->argv_len);
	snprintf(argv0, sizeof(argv0), "%.*s", (int)(n0 < sizeof(argv0) ? n0 : 0), p->argv);
	if (!docker_cmd_is_cli(p->exe) && !docker_cmd_is_cli(argv0))
		return;
	if (docker_cmd_parse(p->argv, p->argv_len, !!(p->flags & PROC_F_ARGV_TRUNCATED), &cmd) < 0)
		return;
	if (!js->cfg->docker_sockets[0])
		return; /* asking dockerd is off */
	usable_sockets(js->cfg->docker_sockets, oj, p->pid, sockets, sizeof(sockets));
	if (!sockets[0]) {
		log_debug("job %s: pid %d runs docker, but the job's user cannot use any of "
			  "docker_sockets: not watched", oj->job->uid, (int)p->pid);
		return;
	}
	oj->job->containers.docker.watched++;
	js->stats.docker.watched++;
	if (!is_docker_client(js, oj, p)) {
		oj->job->containers.docker.refused++;
		js->stats.docker.refused++;
		return;
	}
	/* its container is created after this exec (not after the fork: a
	 * script's `exec docker run` may come long after its start) */
	if (!dockerwatch_add(oj->job->tag, p->pid, exec_real_ns, &cmd, sockets)) {
		uint64_t n = ++oj->job->containers.docker.failed;

		js->stats.docker.failed++;
		if (n & (n - 1))
			return; /* logged at 1, 2, 4, 8...: a job cannot flood the log */
		log_warn("job %s: docker command of pid %d not watched (%d at once at most, %d "
			 "per job, or no watch thread): its container stays apart", oj->job->uid,
			 (int)p->pid, DOCKERWATCH_MAX, DOCKERWATCH_PER_JOB);
		return;
	}
	log_debug("job %s: pid %d runs docker %s %s: watching dockerd", oj->job->uid,
		  (int)p->pid, cmd.verb == DOCKER_START ? "start" : "run/create",
		  cmd.name[0] ? cmd.name : cmd.image);
}

/* The processes already in container idx of oj, at most ADOPT_PROCS:
 * tagged and added to the job, unless another job has them. */
static void adopt(struct jobs *js, struct open_job *oj, int idx)
{
	struct container_info *c = &oj->job->containers.c[idx - 1];
	pid_t pids[ADOPT_PROCS];
	int n = cgroup_read_procs(c->ref.v2, pids, ADOPT_PROCS);

	if (n == -2)
		log_warn("job %s: container %.12s: more than %d processes in it: none adopted "
			 "(those it starts from now on are the job's)", oj->job->uid, c->id,
			 ADOPT_PROCS);
	for (int i = 0; i < n; i++) {
		struct tracer_proc kp;
		struct job_proc *p;

		if (job_proc_find(oj->job, pids[i]))
			continue;
		if (bpf_loader_lookup_proc(js->bpf, pids[i], &kp) == 0 && kp.job != oj->job->tag &&
		    kp.job != TRACER_JOB_HOST)
			continue; /* another job's */
		if (bpf_loader_tag_pid(js->bpf, pids[i], oj->job->tag) != 0)
			continue; /* exited since */
		if (js->host_job && (p = job_proc_find(js->host_job->job, pids[i])))
			job_proc_forget(js->host_job->job, p); /* trace_all: the host job's till now */
		p = jobs_proc_from_proc(js, oj, pids[i]);
		if (!p)
			continue;
		p->container = idx;
		c->nlive++;
		oj->empty_since_ns = 0;
	}
}

/* CLOCK_BOOTTIME minus CLOCK_MONOTONIC now (suspended time): process
 * start times in /proc count from boot, the kernel's events do not. */
static int64_t boot_minus_mono_ns(void)
{
	struct timespec b, m;

	if (clock_gettime(CLOCK_BOOTTIME, &b) != 0 || clock_gettime(CLOCK_MONOTONIC, &m) != 0)
		return 0;
	return ((int64_t)b.tv_sec - m.tv_sec) * 1000000000LL + (b.tv_nsec - m.tv_nsec);
}

/*
 * Did every process in container c start after the client's exec
 * (exec_mono_ns, the event's clock)?  NULL when they did, else why not:
 * a container running before the command (`docker start` of another
 * user's running container by its name) is not the command's.
 */
static const char *started_after(const struct container_info *c, uint64_t exec_mono_ns,
				 char *why, size_t len)
{
	pid_t pids[START_CHECK_PROCS];
	int n = cgroup_read_procs(c->ref.v2, pids, START_CHECK_PROCS);
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t exec_ticks;

	if (n == -2) {
		snprintf(why, len, "more than %d processes in it to check", START_CHECK_PROCS);
		return why;
	}
	if (n < 0 || hz <= 0) {
		snprintf(why, len, "its processes' start cannot be read");
		return why;
	}
	exec_ticks = (uint64_t)((int64_t)exec_mono_ns + boot_minus_mono_ns()) /
		     (1000000000ull / (uint64_t)hz);
	for (int i = 0; i < n; i++) {
		struct procfs_stat st;

		if (procfs_read_stat(pids[i], &st) != 0)
			continue; /* exited since */
		if (st.start_ticks < exec_ticks) {
			snprintf(why, len, "process %d in it ran before the docker command",
				 (int)pids[i]);
			return why;
		}
	}
	return NULL;
}

/* The found container joins oj: 0, or -1 (why logged). */
static int join(struct jobs *js, struct open_job *oj, const struct dockerwatch_result *r)
{
	struct container_info c;
	struct container_info *in;
	const char *iid = r->entry.image_id;
	char why[96];
	int idx;

	if (container_find_docker(r->entry.id, &c) < 0) {
		log_warn("job %s: docker container %.12s of pid %d: no cgroup of it found "
			 "(gone, or a layout other than /docker/<id> and "
			 "system.slice/docker-<id>.scope)", oj->job->uid, r->entry.id, (int)r->client);
		return -1;
	}
	if (started_after(&c, r->client_start_ns - (uint64_t)js->mono_to_real_ns, why,
			  sizeof(why))) {
		log_warn("job %s: docker container %.12s of pid %d does not join the job: %s",
			 oj->job->uid, r->entry.id, (int)r->client, why);
		return -1;
	}
	/* the list's fields: no environment in them */
	snprintf(c.name, sizeof(c.name), "%s",
		 r->entry.names[0] == '/' ? r->entry.names + 1 : r->entry.names);
	c.name[strcspn(c.name, ",")] = '\0';
	snprintf(c.image, sizeof(c.image), "%s", r->entry.image);
	if (!strncmp(iid, "sha256:", 7))
		iid += 7;
	snprintf(c.image_id, sizeof(c.image_id), "%s", iid);
	c.meta_tried = true;
	idx = container_set_add(&oj->job->containers, &c);
	if (idx <= 0) {
		log_warn("job %s: docker container %.12s: the job lists %d containers already",
			 oj->job->uid, r->entry.id, CONTAINER_MAX);
		return -1;
	}
	in = &oj->job->containers.c[idx - 1];
	if (!in->name[0]) { /* seen before by its cgroup alone */
		memcpy(in->name, c.name, sizeof(in->name));
		memcpy(in->image, c.image, sizeof(in->image));
		memcpy(in->image_id, c.image_id, sizeof(in->image_id));
		in->meta_tried = true;
	}
	if (jobcontainers_tag(js, oj, in) < 0)
		return -1;
	adopt(js, oj, idx);
	return 0;
}

void jobdocker_tick(struct jobs *js)
{
	struct dockerwatch_result r[RESULTS_PER_TICK];
	size_t n = dockerwatch_take(r, RESULTS_PER_TICK);

	for (size_t i = 0; i < n; i++) {
		struct open_job *oj = jobs_find_tag(js, r[i].job_tag);
		struct container_joins *cj, *all = &js->stats.docker;

		if (!oj || closing_active(oj))
			continue;
		cj = &oj->job->containers.docker;
		switch (r[i].outcome) {
		case DOCKERWATCH_FOUND:
			if (join(js, oj, &r[i]) == 0) {
				cj->joined++;
				all->joined++;
			} else {
				cj->refused++;
				all->refused++;
			}
			break;
		case DOCKERWATCH_AMBIGUOUS:
			cj->ambiguous++;
			all->ambiguous++;
			log_warn("job %s: the container of pid %d's docker command does not join: %s",
				 oj->job->uid, (int)r[i].client, r[i].why);
			break;
		case DOCKERWATCH_UNMATCHED:
			cj->unmatched++;
			all->unmatched++;
			log_info("job %s: no container of pid %d's docker command found running",
				 oj->job->uid, (int)r[i].client);
			break;
		case DOCKERWATCH_FAILED:
			cj->failed++;
			all->failed++;
			log_warn("job %s: dockerd not asked for pid %d's docker command: %s",
				 oj->job->uid, (int)r[i].client, r[i].why[0] ? r[i].why : "no answer");
			break;
		}
	}
}

void jobdocker_close(struct jobs *js, struct open_job *oj)
{
	struct container_joins before = oj->job->containers.docker, *cj = &oj->job->containers.docker;

	dockerwatch_forget(oj->job->tag, cj);
	js->stats.docker.unmatched += cj->unmatched - before.unmatched;
	js->stats.docker.failed += cj->failed - before.failed;
	if (cj->failed > before.failed)
		log_warn("job %s: it ended before dockerd answered for %llu of its docker commands",
			 oj->job->uid, (unsigned long long)(cj->failed - before.failed));
}
