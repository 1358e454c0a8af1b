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
 */
#include <stdio.h>
#include <string.h>

#include "bpf_loader.h"
#include "container.h"
#include "dockercmd.h"
#include "dockerwatch.h"
#include "jobs.h"
#include "log.h"
#include "procfs.h"
#include "tracer.h"

/* processes already in a container adopted when it joins (cgroup.procs) */
#define ADOPT_PROCS 64
/* results handled per tick */
#define RESULTS_PER_TICK 8

void jobs_exec_docker(struct jobs *js, struct open_job *oj, const struct job_proc *p)
{
	struct docker_cmd cmd;
	char argv0[256];
	size_t n0;

	if (oj == js->host_job || oj->closing || !p->argv)
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
	oj->job->containers.docker.watched++;
	js->stats.docker.watched++;
	if (!dockerwatch_add(oj->job->tag, p->pid, p->start_ns, &cmd, js->cfg->docker_sockets)) {
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
		p = jobs_proc_from_proc(js, oj, pids[i]);
		if (!p)
			continue;
		p->container = idx;
		c->nlive++;
		oj->empty_since_ns = 0;
	}
}

/* The found container joins oj: 0, or -1 (why logged). */
static int join(struct jobs *js, struct open_job *oj, const struct dockerwatch_result *r)
{
	struct container_info c;
	struct container_info *in;
	const char *iid = r->entry.image_id;
	int idx;

	if (container_find_docker(r->entry.id, &c) < 0) {
		log_warn("job %s: docker container %.12s of pid %d: no cgroup of it found "
			 "(gone, or a layout other than /docker/<id> and "
			 "system.slice/docker-<id>.scope)", oj->job->uid, r->entry.id, (int)r->client);
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
	if (jobs_container_tag(js, oj, in) < 0)
		return -1;
	adopt(js, oj, idx);
	return 0;
}

void jobs_docker_tick(struct jobs *js)
{
	struct dockerwatch_result r[RESULTS_PER_TICK];
	size_t n = dockerwatch_take(r, RESULTS_PER_TICK);

	for (size_t i = 0; i < n; i++) {
		struct open_job *oj = jobs_find_tag(js, r[i].job_tag);
		struct container_joins *cj, *all = &js->stats.docker;

		if (!oj || oj->closing)
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

void jobs_docker_close(struct jobs *js, struct open_job *oj)
{
	struct container_joins before = oj->job->containers.docker, *cj = &oj->job->containers.docker;

	dockerwatch_forget(oj->job->tag, cj);
	js->stats.docker.unmatched += cj->unmatched - before.unmatched;
	js->stats.docker.failed += cj->failed - before.failed;
	if (cj->failed > before.failed)
		log_warn("job %s: it ended before dockerd answered for %llu of its docker commands",
			 oj->job->uid, (unsigned long long)(cj->failed - before.failed));
}
