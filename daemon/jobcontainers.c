/*
 * jobcontainers.c - a container the job's processes run in joins the job
 * whole: its v2 cgroup is tagged in the kernel with the job's tag, so
 * that a process that enters the container from outside the job (podman
 * exec, docker exec, a sidecar started by the runtime) is the job's, as
 * for a job's own cgroup (jobs.c, attach_job_cgroup).  Untagged when the
 * job starts closing.  Needs the container to have a v2 cgroup (pure v2,
 * or hybrid hosts where the runtime also places it in the v2 tree, as
 * runc does); v1-only containers are followed by descent only.
 */
#include <string.h>
#include <sys/stat.h>

#include "bpf_loader.h"
#include "container_meta.h"
#include "jobs.h"
#include "log.h"

/* Name and image, once per container: the registrant's labels (ECS,
 * through tracer-wrap) or the containers/storage records (podman, CRI-O). */
static void name_one(struct jobs *js, struct open_job *oj, struct container_info *c)
{
	c->meta_tried = true;
	if (container_meta_labels(&oj->job->id, c) == 0)
		return;
	container_meta_storage(js->cfg->container_storage, c);
}

void jobs_name_containers(struct jobs *js, struct open_job *oj)
{
	struct container_set *s = &oj->job->containers;

	for (size_t k = 0; k < s->n; k++)
		if (!s->c[k].meta_tried)
			name_one(js, oj, &s->c[k]);
}

static void tag_one(struct jobs *js, struct open_job *oj, struct container_info *c)
{
	struct stat st;
	int err;

	c->tag_tried = true;
	if (!c->ref.v2[0] || stat(c->ref.v2, &st) != 0)
		return;
	err = bpf_loader_tag_cgroup(js->bpf, (__u64)st.st_ino, oj->job->tag);
	if (err) {
		log_warn("job %s: container %.12s: cannot tag its cgroup: %s",
			 oj->job->uid, c->id, strerror(-err));
		return;
	}
	c->tagged_cgroup_id = (uint64_t)st.st_ino;
	log_info("job %s: container %s %.12s (cgroup %s) joins the job", oj->job->uid,
		 c->runtime, c->id, c->ref.v2);
}

void jobs_tag_containers(struct jobs *js)
{
	for (size_t i = 0; i < js->nopen; i++) {
		struct open_job *oj = js->open[i];
		struct container_set *s = &oj->job->containers;

		/* the host's activity is no container's owner */
		if (oj == js->host_job || oj->closing)
			continue;
		jobs_name_containers(js, oj);
		for (size_t k = 0; k < s->n; k++)
			if (!s->c[k].tag_tried)
				tag_one(js, oj, &s->c[k]);
	}
}

void jobs_untag_containers(struct jobs *js, struct open_job *oj)
{
	struct container_set *s = &oj->job->containers;

	for (size_t k = 0; k < s->n; k++) {
		if (!s->c[k].tagged_cgroup_id)
			continue;
		bpf_loader_untag_cgroup(js->bpf, s->c[k].tagged_cgroup_id);
		s->c[k].tagged_cgroup_id = 0;
	}
}
