/*
 * jobcontainers.c - a container the job's processes run in joins the job
 * whole: its v2 cgroup is tagged in the kernel with the job's tag, so
 * that a process that enters the container from outside the job (podman
 * exec, docker exec, a sidecar started by the runtime) is the job's, as
 * for a job's own cgroup (jobs_table.c, attach_job_cgroup).  Untagged when the
 * job starts closing.  Needs the container to have a v2 cgroup (pure v2,
 * or hybrid hosts where the runtime also places it in the v2 tree, as
 * runc does); v1-only containers are followed by descent only.
 * A cgroup joins only the job that may have it (may_tag: never another
 * job's, and for a user's job only with that user's processes in it).
 *
 * Also here: the containers' names and images (container_meta.c, read by
 * containernames.c's thread), asked for at the exec of a process in
 * another pid namespace than the host's, and
 * their cgroup read when the job's last process in them exits; and the
 * Apptainer/Singularity containers, which have no cgroup of their own:
 * one starts at the exec of the runtime's starter, and the starter's
 * descendants are its processes (container_apptainer.h).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bpf_loader.h"
#include "closing.h"
#include "container_apptainer.h"
#include "container_meta.h"
#include "containernames.h"
#include "jobcontainers.h"
#include "jobs.h"
#include "json.h"
#include "log.h"
#include "procfs.h"

/* Name and image, once per container: the registrant's labels (ECS,
 * through tracer-wrap) or the containers/storage records (podman, CRI-O),
 * which a thread reads (containernames.c): until its answer is in, the
 * container is asked about again at each tick and at the job's end. */
static void name_one(struct jobs *js, struct open_job *oj, struct container_info *c)
{
	if (container_meta_labels(&oj->job->id, c) == 0 ||
	    containernames_get(js->cfg->container_storage, c))
		c->meta_tried = true;
}

void jobcontainers_name(struct jobs *js, struct open_job *oj)
{
	struct container_set *s = &oj->job->containers;

	for (size_t k = 0; k < s->n; k++)
		if (!s->c[k].meta_tried)
			name_one(js, oj, &s->c[k]);
}

/* The job that has cgroup cgid (its own or a container's), or NULL. */
static struct open_job *cgroup_holder(struct jobs *js, uint64_t cgid)
{
	for (size_t i = 0; i < jobs_count(js); i++) {
		struct open_job *o = jobs_at(js, i);
		const struct container_set *s = &o->job->containers;

		if (o->cgroup_id == cgid)
			return o;
		for (size_t k = 0; k < s->n; k++)
			if (s->c[k].tagged_cgroup_id == cgid)
				return o;
	}
	return NULL;
}

/* processes of a container checked before it joins a job */
#define TAG_CHECK_PROCS 64

/*
 * May the job take in this container's cgroup?  Never one that another
 * job has; and for a job of a user other than root, only when every
 * process in it is the job's own or runs as the job's user: a user must
 * not pull another user's processes into the job by putting one of
 * theirs into that container.  The job's user (jobs_user_uid), never its
 * registrant: slurmstepd registers every user's job as root.  NULL when
 * it may, else why not (into why).
 */
static const char *may_tag(struct jobs *js, struct open_job *oj, const struct container_info *c,
			   uint64_t cgid, char *why, size_t len)
{
	struct open_job *holder = cgroup_holder(js, cgid);
	pid_t pids[TAG_CHECK_PROCS];
	uid_t user = jobs_user_uid(oj);
	int n;

	if (holder && holder != oj) {
		snprintf(why, len, "it is job %s's", holder->job->uid);
		return why;
	}
	if (user == 0)
		return NULL;
	n = cgroup_read_procs(c->ref.v2, pids, TAG_CHECK_PROCS);
	if (n == -2) {
		snprintf(why, len, "more than %d processes in it to check", TAG_CHECK_PROCS);
		return why;
	}
	if (n < 0) {
		snprintf(why, len, "its processes cannot be read");
		return why;
	}
	/* processes below it (docker-in-docker, systemd in the container:
	 * the top cgroup is empty) would be the job's unchecked */
	if (n == 0 || cgroup_has_children(c->ref.v2)) {
		snprintf(why, len, "%s", n == 0 ? "no process in it to check" : "it has child cgroups");
		return why;
	}
	for (int i = 0; i < n; i++) {
		struct procfs_status ps;

		if (job_proc_find(oj->job, pids[i]))
			continue;
		if (procfs_read_status(pids[i], &ps) != 0)
			continue; /* exited since */
		if (ps.uid != user) {
			snprintf(why, len, "process %d in it runs as uid %u, the job's user is %u",
				 (int)pids[i], (unsigned)ps.uid, (unsigned)user);
			return why;
		}
	}
	return NULL;
}

int jobcontainers_tag(struct jobs *js, struct open_job *oj, struct container_info *c)
{
	struct stat st;
	char why[160];
	int err;

	c->tag_tried = true;
	if (!c->ref.v2[0] || stat(c->ref.v2, &st) != 0)
		return -1;
	if (c->tagged_cgroup_id == (uint64_t)st.st_ino)
		return 0;
	if (may_tag(js, oj, c, (uint64_t)st.st_ino, why, sizeof(why))) {
		log_warn("job %s: container %s %.12s does not join the job: %s", oj->job->uid,
			 c->runtime, c->id, why);
		return -1;
	}
	/* the same container started again has a new cgroup: the old one's
	 * tag would stay in the kernel's map for good */
	if (c->tagged_cgroup_id) {
		bpf_loader_untag_cgroup(js->bpf, c->tagged_cgroup_id);
		c->tagged_cgroup_id = 0;
	}
	err = bpf_loader_tag_cgroup(js->bpf, (__u64)st.st_ino, oj->job->tag);
	if (err) {
		log_warn("job %s: container %.12s: cannot tag its cgroup: %s",
			 oj->job->uid, c->id, strerror(-err));
		return -1;
	}
	c->tagged_cgroup_id = (uint64_t)st.st_ino;
	log_info("job %s: container %s %.12s (cgroup %s) joins the job", oj->job->uid,
		 c->runtime, c->id, c->ref.v2);
	return 0;
}

/*
 * p is about to exec path (its argv still the one before the exec): when
 * path is an Apptainer/Singularity starter, p starts a container, whose
 * image is on the command line of the CLI that exec'd the starter (p's
 * own argv before this exec, or else its parent's).  Costs a suffix
 * comparison per exec, and nothing is read: the container has no cgroup
 * of its own (cgroup path "", no counters).
 */
void jobcontainers_exec_starter(struct jobs *js, struct open_job *oj, struct job_proc *p,
				const char *path)
{
	struct container_set *s = &oj->job->containers;
	struct container_info c;
	struct apptainer_cli cli;
	const struct job_proc *from = p;
	int idx;

	(void)js;
	if (!container_apptainer_starter(path))
		return;
	if (container_apptainer_cli(p->argv, p->argv_len, &cli) < 0) {
		const struct job_proc *parent = job_proc_find(oj->job, p->ppid);

		if (parent)
			from = parent;
	}
	if (container_apptainer_info(path, p->pid, p->start_ns, from->argv, from->argv_len,
				     &c) < 0)
		return;
	c.meta_tried = true; /* name and image are the CLI's */
	c.tag_tried = true;  /* no cgroup of its own to tag */
	if (p->container > 0 && (size_t)p->container <= s->n && s->c[p->container - 1].nlive)
		s->c[p->container - 1].nlive--;
	idx = container_set_add(s, &c);
	p->container = idx > 0 ? idx : -1;
	if (idx <= 0)
		return;
	s->c[idx - 1].nlive++;
	log_info("job %s: %s container %.12s (image %s) started by pid %d", oj->job->uid,
		 c.runtime, c.id, c.image[0] ? c.image : "unknown", (int)p->pid);
}

/* A process of the job forked: a child of a process in a container that
 * has no cgroup (Apptainer) is in that container too. */
void jobcontainers_fork(struct open_job *oj, struct job_proc *child)
{
	struct container_set *s = &oj->job->containers;
	const struct job_proc *parent;

	if (!child || child->container != 0)
		return;
	parent = job_proc_find(oj->job, child->ppid);
	if (!parent || parent->container <= 0 || (size_t)parent->container > s->n ||
	    !s->c[parent->container - 1].by_descent)
		return;
	child->container = parent->container;
	s->c[child->container - 1].nlive++;
}

/*
 * A process of the job exec'd in another pid namespace than the host's:
 * the container it runs in, now rather than at the next sample, which a
 * short container does not live to see.  A child exec'ing in its
 * parent's container and namespace costs no read.
 */
/* tracerd's own pid namespace, the host's (0: unknown) */
static uint32_t host_pidns(void)
{
	static uint32_t ns;

	if (!ns)
		ns = container_pidns(0);
	return ns;
}

void jobcontainers_exec(struct jobs *js, struct open_job *oj, struct job_proc *p,
			uint32_t pidns)
{
	struct container_set *s = &oj->job->containers;
	struct job_proc *parent;
	int idx;

	if (!pidns || !host_pidns() || pidns == host_pidns())
		return;
	p->pidns = pidns;
	if (p->container > 0 && (size_t)p->container <= s->n && !s->c[p->container - 1].pidns)
		s->c[p->container - 1].pidns = pidns; /* e.g. apptainer --pid */
	if (p->container != 0)
		return;
	parent = job_proc_find(oj->job, p->ppid);
	if (parent && parent->container > 0 && parent->pidns == pidns)
		idx = parent->container;
	else
		idx = container_note_pid(s, p->pid);
	p->container = idx > 0 ? idx : -1;
	if (idx <= 0)
		return;
	s->c[idx - 1].nlive++;
	if (!s->c[idx - 1].pidns)
		s->c[idx - 1].pidns = pidns;
	/* the runtime may forget a short container before the next tick */
	if (!s->c[idx - 1].meta_tried)
		name_one(js, oj, &s->c[idx - 1]);
}

/*
 * A registrant (tracer run, tracer-wrap) in a container: the container
 * joins the job's set, and when the registrant is in another pid
 * namespace than the host's, that namespace is the container's and the
 * registrant's own (before any process of the job execs there, and for a
 * registrant whose children never do).  One /proc read per registration.
 */
void jobcontainers_registrant(struct open_job *oj, pid_t pid)
{
	struct container_set *s = &oj->job->containers;
	struct job_proc *p = job_proc_find(oj->job, pid);
	int idx = container_note_pid(s, pid);
	uint32_t ns;

	if (idx <= 0)
		return;
	if (p && p->container == 0) {
		p->container = idx;
		s->c[idx - 1].nlive++;
	}
	ns = container_pidns(pid);
	if (!ns || !host_pidns() || ns == host_pidns())
		return;
	if (p)
		p->pidns = ns;
	if (!s->c[idx - 1].pidns)
		s->c[idx - 1].pidns = ns;
}

/*
 * A process of a container exited.  When it was the last the job knew
 * in it, the container's cgroup is read now: the runtime removes it soon
 * after (podman, docker), and a container shorter than the sampling
 * interval would otherwise have no counters at all.
 */
void jobcontainers_exit(struct jobs *js, struct open_job *oj, struct job_proc *p)
{
	struct container_info *c;

	(void)js;
	if (p->container <= 0 || (size_t)p->container > oj->job->containers.n)
		return;
	c = &oj->job->containers.c[p->container - 1];
	if (c->nlive > 0 && --c->nlive == 0)
		container_sample_one(c);
}

void jobcontainers_tag_all(struct jobs *js)
{
	for (size_t i = 0; i < jobs_count(js); i++) {
		struct open_job *oj = jobs_at(js, i);
		struct container_set *s = &oj->job->containers;

		/* the host's activity is no container's owner */
		if (oj == js->host_job || closing_active(oj))
			continue;
		jobcontainers_name(js, oj);
		for (size_t k = 0; k < s->n; k++)
			if (!s->c[k].tag_tried)
				jobcontainers_tag(js, oj, &s->c[k]);
	}
}

void jobcontainers_untag(struct jobs *js, struct open_job *oj)
{
	struct container_set *s = &oj->job->containers;

	for (size_t k = 0; k < s->n; k++) {
		if (!s->c[k].tagged_cgroup_id)
			continue;
		bpf_loader_untag_cgroup(js->bpf, s->c[k].tagged_cgroup_id);
		s->c[k].tagged_cgroup_id = 0;
	}
}

/* ---- across a restart (journal.c) ---- */

/*
 * The job's containers as the journal keeps them: what the summary says
 * of each and the cgroup tagged for the job, so that a restarted tracerd
 * still names them and removes the tags when the job ends (the tags are
 * in the pinned map: lost from here, they would stay there for good).
 * The last counters are kept too (a container gone before the restart
 * has no cgroup to read again); the processes' own attribution is not kept
 * (an Apptainer container's processes adopted after the restart are the
 * job's, not the container's).
 */
cJSON *jobcontainers_to_json(const struct container_set *s)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	const struct container_joins *d = &s->docker;
	const uint64_t joins[6] = {d->watched,	 d->joined,  d->ambiguous,
				   d->unmatched, d->refused, d->failed};

	if (!o)
		return NULL;
	json_add_u64(o, "not_listed", s->not_listed);
	arr = cJSON_AddArrayToObject(o, "docker_joins");
	for (size_t i = 0; arr && i < 6; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)joins[i]));
	arr = cJSON_AddArrayToObject(o, "list");
	for (size_t k = 0; arr && k < s->n; k++) {
		const struct container_info *c = &s->c[k];
		cJSON *e = cJSON_CreateObject();

		if (!e)
			break;
		json_add_str(e, "runtime", c->runtime);
		json_add_str(e, "id", c->id);
		json_add_str(e, "name", c->name);
		json_add_str(e, "image", c->image);
		json_add_str(e, "image_id", c->image_id);
		json_add_str(e, "cgroup", c->cgroup);
		json_add_u64(e, "pidns", c->pidns);
		json_add_u64(e, "tagged_cgroup_id", c->tagged_cgroup_id);
		cJSON_AddBoolToObject(e, "meta_tried", c->meta_tried);
		cJSON_AddBoolToObject(e, "by_descent", c->by_descent);
		if (c->have_stats) {
			const struct cgroup_stats *st = &c->stats;
			cJSON *t = cJSON_AddObjectToObject(e, "stats");

			if (st->have_cpu)
				json_add_u64(t, "cpu_ns", st->cpu_ns);
			if (st->have_mem)
				json_add_u64(t, "mem_peak_bytes", st->mem_peak_bytes);
			if (st->have_io) {
				json_add_u64(t, "io_read_bytes", st->io_read_bytes);
				json_add_u64(t, "io_write_bytes", st->io_write_bytes);
			}
		}
		cJSON_AddItemToArray(arr, e);
	}
	return o;
}

void jobcontainers_from_json(struct container_set *s, const cJSON *o)
{
	const cJSON *it;
	uint64_t v[6] = {0};
	size_t i = 0;

	if (!cJSON_IsObject(o))
		return; /* a journal of an older tracerd */
	s->not_listed = json_get_u64(o, "not_listed", 0);
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "docker_joins"))
		if (i < 6 && cJSON_IsNumber(it) && it->valuedouble >= 0)
			v[i++] = (uint64_t)it->valuedouble;
	s->docker = (struct container_joins){v[0], v[1], v[2], v[3], v[4], v[5]};
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "list")) {
		struct container_info *c;
		const cJSON *st;

		if (s->n == CONTAINER_MAX)
			break;
		c = &s->c[s->n];
		memset(c, 0, sizeof(*c));
		snprintf(c->runtime, sizeof(c->runtime), "%s", json_get_str(it, "runtime", ""));
		snprintf(c->id, sizeof(c->id), "%s", json_get_str(it, "id", ""));
		if (!c->runtime[0] || !c->id[0])
			continue;
		snprintf(c->name, sizeof(c->name), "%s", json_get_str(it, "name", ""));
		snprintf(c->image, sizeof(c->image), "%s", json_get_str(it, "image", ""));
		snprintf(c->image_id, sizeof(c->image_id), "%s", json_get_str(it, "image_id", ""));
		snprintf(c->cgroup, sizeof(c->cgroup), "%s", json_get_str(it, "cgroup", ""));
		c->pidns = (uint32_t)json_get_u64(it, "pidns", 0);
		c->tagged_cgroup_id = json_get_u64(it, "tagged_cgroup_id", 0);
		c->tag_tried = c->tagged_cgroup_id != 0;
		c->meta_tried = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "meta_tried"));
		c->by_descent = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "by_descent"));
		st = cJSON_GetObjectItemCaseSensitive(it, "stats");
		if (cJSON_IsObject(st)) {
			c->have_stats = true;
			c->stats.have_cpu = cJSON_HasObjectItem(st, "cpu_ns");
			c->stats.cpu_ns = json_get_u64(st, "cpu_ns", 0);
			c->stats.have_mem = cJSON_HasObjectItem(st, "mem_peak_bytes");
			c->stats.mem_peak_bytes = json_get_u64(st, "mem_peak_bytes", 0);
			c->stats.have_io = cJSON_HasObjectItem(st, "io_read_bytes");
			c->stats.io_read_bytes = json_get_u64(st, "io_read_bytes", 0);
			c->stats.io_write_bytes = json_get_u64(st, "io_write_bytes", 0);
		}
		/* its counters from now on, where the cgroup still is */
		if (c->cgroup[0] && cgroup_ref_for_path(c->cgroup, &c->ref) != 0)
			memset(&c->ref, 0, sizeof(c->ref));
		s->n++;
	}
}
