/*
 * summary_container.c - containers as JSON (docs/schema.md, "container").
 */
#include "summary_container.h"

#include <stdio.h>
#include <string.h>

#include "json.h"

static cJSON *container_json(const struct container_info *c)
{
	cJSON *o = cJSON_CreateObject(), *cg;
	char short_id[CONTAINER_SHORT_ID + 1];

	if (!o)
		return NULL;
	snprintf(short_id, sizeof(short_id), "%s", c->id);
	json_add_str(o, "runtime", c->runtime);
	json_add_str(o, "id", c->id);
	json_add_str(o, "short_id", short_id);
	if (c->name[0])
		json_add_str(o, "name", c->name);
	if (c->image[0])
		json_add_str(o, "image", c->image);
	if (c->image_id[0])
		json_add_str(o, "image_id", c->image_id);
	if (c->pidns)
		json_add_u64(o, "pid_namespace", c->pidns);
	cg = cJSON_AddObjectToObject(o, "cgroup");
	if (!cg)
		return o;
	json_add_str(cg, "path", c->cgroup);
	if (!c->have_stats)
		return o;
	if (c->stats.have_cpu)
		json_add_secs(cg, "cpu_s", c->stats.cpu_ns);
	if (c->stats.have_mem)
		json_add_u64(cg, "memory_peak_bytes", c->stats.mem_peak_bytes);
	if (c->stats.have_io) {
		json_add_u64(cg, "io_read_bytes", c->stats.io_read_bytes);
		json_add_u64(cg, "io_write_bytes", c->stats.io_write_bytes);
	}
	return o;
}

cJSON *summary_container_joins(const struct container_joins *cj)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	json_add_u64(o, "watched", cj->watched);
	json_add_u64(o, "joined", cj->joined);
	json_add_u64(o, "ambiguous", cj->ambiguous);
	json_add_u64(o, "unmatched", cj->unmatched);
	json_add_u64(o, "refused", cj->refused);
	json_add_u64(o, "failed", cj->failed);
	return o;
}

void summary_add_containers(cJSON *root, const struct job *j)
{
	const struct container_set *s = &j->containers;
	cJSON *arr;

	if (root && s->docker.watched)
		cJSON_AddItemToObject(root, "docker_joins", summary_container_joins(&s->docker));
	if (!root || s->n == 0)
		return;
	cJSON_AddItemToObject(root, "container", container_json(&s->c[0]));
	if (s->n == 1 && !s->not_listed)
		return;
	arr = cJSON_AddArrayToObject(root, "containers");
	for (size_t i = 0; arr && i < s->n; i++)
		cJSON_AddItemToArray(arr, container_json(&s->c[i]));
	if (s->not_listed)
		json_add_u64(root, "containers_not_listed", s->not_listed);
}

void summary_proc_container(cJSON *o, const struct job *j, const struct job_proc *p)
{
	char short_id[CONTAINER_SHORT_ID + 1];

	if (o && p->pidns)
		json_add_u64(o, "pid_namespace", p->pidns);
	/* the job's own container is said once, on the job */
	if (!o || p->container <= 1 || (size_t)p->container > j->containers.n)
		return;
	snprintf(short_id, sizeof(short_id), "%s", j->containers.c[p->container - 1].id);
	json_add_str(o, "container", short_id);
}
