/*
 * awsmeta.c - AWS Batch, ECS task metadata v4 and EC2 IMDSv2 identity
 * parsers (see awsmeta.h).  No I/O: the wrapper fetches, these read.
 */
#include "awsmeta.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>

/* Keep the first problem: it is the one worth a message. */
static void note_err(char *err, size_t errlen, int *bad, const char *fmt,
		     const char *what)
{
	if (!*bad && err && errlen)
		snprintf(err, errlen, fmt, what);
	*bad = 1;
}

/* Fill an empty field; a value that does not fit is refused, not cut. */
static void set_field(char *dst, size_t size, const char *src,
		      const char *name, char *err, size_t errlen, int *bad)
{
	if (!src || !*src || *dst)
		return;
	if (strlen(src) >= size) {
		note_err(err, errlen, bad, "%s is too long", name);
		return;
	}
	memcpy(dst, src, strlen(src) + 1);
}

static void set_label(struct tracer_identity *id, const char *key,
		      const char *value, char *err, size_t errlen, int *bad)
{
	if (!value || !*value || identity_label(id, key))
		return;
	if (strlen(value) >= sizeof(id->labels[0].value)) {
		note_err(err, errlen, bad, "label %s is too long", key);
		return;
	}
	if (identity_set_label(id, key, value) < 0)
		note_err(err, errlen, bad, "no room for label %s", key);
}

/* A non-negative decimal number, nothing else around it. */
static int parse_count(const char *s, long *out)
{
	char *end;
	long v;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static void env_count(awsmeta_env_fn get, void *arg, const char *name,
		      long *dst, char *err, size_t errlen, int *bad)
{
	const char *s = get(arg, name);
	long v;

	if (!s || !*s || *dst >= 0)
		return;
	if (parse_count(s, &v) < 0) {
		note_err(err, errlen, bad, "%s is not a number", name);
		return;
	}
	*dst = v;
}

static void env_label(awsmeta_env_fn get, void *arg, const char *name,
		      struct tracer_identity *id, const char *key, char *err,
		      size_t errlen, int *bad)
{
	const char *s = get(arg, name);
	long v;

	if (!s || !*s)
		return;
	if (parse_count(s, &v) < 0) {
		note_err(err, errlen, bad, "%s is not a number", name);
		return;
	}
	set_label(id, key, s, err, errlen, bad);
}

/* "parent:N" -> parent and N; 0 when job is not an array child id. */
static int split_array_id(const char *job, char *parent, size_t size,
			  long *index)
{
	const char *colon = strrchr(job, ':');
	size_t plen;

	if (!colon || colon == job || parse_count(colon + 1, index) < 0)
		return 0;
	plen = (size_t)(colon - job);
	if (plen >= size)
		return 0;
	memcpy(parent, job, plen);
	parent[plen] = '\0';
	return 1;
}

int awsmeta_from_env(struct tracer_identity *id, awsmeta_env_fn get,
		     void *arg, char *err, size_t errlen)
{
	char parent[ID_STR] = "";
	const char *job = get(arg, "AWS_BATCH_JOB_ID");
	long index = -1;
	int bad = 0;

	set_field(id->run_id, sizeof(id->run_id), get(arg, "TRACER_RUN_ID"),
		  "TRACER_RUN_ID", err, errlen, &bad);
	set_field(id->run_name, sizeof(id->run_name),
		  get(arg, "TRACER_RUN_NAME"), "TRACER_RUN_NAME", err, errlen,
		  &bad);
	set_field(id->pipeline, sizeof(id->pipeline),
		  get(arg, "TRACER_PIPELINE"), "TRACER_PIPELINE", err, errlen,
		  &bad);
	if (!job || !*job)
		return bad;

	set_field(id->scheduler, sizeof(id->scheduler), "aws-batch",
		  "scheduler", err, errlen, &bad);
	set_field(id->job_id, sizeof(id->job_id), job, "AWS_BATCH_JOB_ID", err,
		  errlen, &bad);
	env_count(get, arg, "AWS_BATCH_JOB_ARRAY_INDEX", &id->array_index, err,
		  errlen, &bad);
	if (split_array_id(job, parent, sizeof(parent), &index)) {
		set_field(id->array_job_id, sizeof(id->array_job_id), parent,
			  "array job id", err, errlen, &bad);
		if (id->array_index < 0)
			id->array_index = index;
		/* the array is the run unless TRACER_RUN_ID said otherwise */
		set_field(id->run_id, sizeof(id->run_id), parent, "run id",
			  err, errlen, &bad);
	}
	env_count(get, arg, "AWS_BATCH_JOB_ATTEMPT", &id->attempt, err, errlen,
		  &bad);
	set_field(id->queue, sizeof(id->queue), get(arg, "AWS_BATCH_JQ_NAME"),
		  "AWS_BATCH_JQ_NAME", err, errlen, &bad);
	set_label(id, "aws.ce_name", get(arg, "AWS_BATCH_CE_NAME"), err,
		  errlen, &bad);
	env_label(get, arg, "AWS_BATCH_JOB_ARRAY_SIZE", id, "aws.array_size",
		  err, errlen, &bad);
	env_count(get, arg, "AWS_BATCH_JOB_NODE_INDEX", &id->node_id, err,
		  errlen, &bad);
	env_count(get, arg, "AWS_BATCH_JOB_NUM_NODES", &id->node_count, err,
		  errlen, &bad);
	env_label(get, arg, "AWS_BATCH_JOB_MAIN_NODE_INDEX", id,
		  "aws.main_node_index", err, errlen, &bad);
	return bad;
}

/* Parse len bytes as one JSON object (NULL + err otherwise). */
static cJSON *parse_object(const char *json, size_t len, const char *what,
			   char *err, size_t errlen)
{
	cJSON *obj;

	if (!json || !len) {
		snprintf(err, errlen, "%s: empty answer", what);
		return NULL;
	}
	obj = cJSON_ParseWithLength(json, len);
	if (!obj || !cJSON_IsObject(obj)) {
		snprintf(err, errlen, "%s: not a JSON object", what);
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

static const char *obj_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A number, or a string holding one (ECS has used both); -1 if neither. */
static double obj_num(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char *end;
	double d;

	if (cJSON_IsNumber(v))
		return isfinite(v->valuedouble) ? v->valuedouble : -1;
	if (!cJSON_IsString(v) || !*v->valuestring)
		return -1;
	d = strtod(v->valuestring, &end);
	return *end || !isfinite(d) ? -1 : d;
}

/* tracer.* keys of a string map (container Labels, TaskTags). */
static void apply_tracer_keys(const cJSON *map, struct tracer_identity *id,
			      char *err, size_t errlen, int *bad)
{
	if (!cJSON_IsObject(map))
		return;
	set_field(id->run_id, sizeof(id->run_id), obj_str(map, "tracer.run_id"),
		  "tracer.run_id", err, errlen, bad);
	set_field(id->run_name, sizeof(id->run_name),
		  obj_str(map, "tracer.run_name"), "tracer.run_name", err,
		  errlen, bad);
	set_field(id->pipeline, sizeof(id->pipeline),
		  obj_str(map, "tracer.pipeline"), "tracer.pipeline", err,
		  errlen, bad);
	set_field(id->task_name, sizeof(id->task_name),
		  obj_str(map, "tracer.task"), "tracer.task", err, errlen, bad);
}

/* Limits: cpus rounded up to whole CPUs, memory from MiB. */
static void apply_limits(struct tracer_identity *id, double vcpus,
			 double mem_mib)
{
	if (id->alloc.cpus <= 0 && vcpus > 0 && vcpus < 1e6)
		id->alloc.cpus = (int)ceil(vcpus - 1e-9);
	if (id->alloc.mem_bytes == 0 && mem_mib > 0 && mem_mib < 1e12)
		id->alloc.mem_bytes = (uint64_t)(mem_mib * 1048576.0);
}

int awsmeta_parse_ecs_container(const char *json, size_t len,
				struct tracer_identity *id, char *err,
				size_t errlen)
{
	cJSON *obj = parse_object(json, len, "ECS container metadata", err,
				  errlen);
	const cJSON *limits, *labels;
	double units, mem;
	char buf[32];
	int bad = 0;

	if (!obj)
		return -1;
	set_label(id, "container.id", obj_str(obj, "DockerId"), err, errlen,
		  &bad);
	set_label(id, "container.name", obj_str(obj, "Name"), err, errlen,
		  &bad);
	set_label(id, "container.image", obj_str(obj, "Image"), err, errlen,
		  &bad);
	limits = cJSON_GetObjectItemCaseSensitive(obj, "Limits");
	if (cJSON_IsObject(limits)) {
		units = obj_num(limits, "CPU");
		mem = obj_num(limits, "Memory");
		if (units > 0) {
			snprintf(buf, sizeof(buf), "%.0f", units);
			set_label(id, "ecs.cpu_units", buf, err, errlen, &bad);
		}
		apply_limits(id, units > 0 ? units / 1024.0 : -1, mem);
	}
	labels = cJSON_GetObjectItemCaseSensitive(obj, "Labels");
	/* the ECS agent's label of the task definition's family: the same
	 * as the task's Family, known even when /task does not answer */
	if (cJSON_IsObject(labels))
		set_label(id, "ecs.task_family",
			  obj_str(labels, "com.amazonaws.ecs.task-definition-family"), err,
			  errlen, &bad);
	apply_tracer_keys(labels, id, err, errlen, &bad);
	cJSON_Delete(obj);
	return bad;
}

/* "arn:aws:ecs:region:acct:cluster/name" -> "name"; a short name stays. */
static const char *cluster_name(const char *cluster)
{
	const char *slash = cluster ? strrchr(cluster, '/') : NULL;

	return slash && slash[1] ? slash + 1 : cluster;
}

int awsmeta_parse_ecs_task(const char *json, size_t len,
			   struct tracer_identity *id, char *err,
			   size_t errlen)
{
	cJSON *obj = parse_object(json, len, "ECS task metadata", err, errlen);
	const char *cluster;
	const cJSON *limits;
	char buf[32];
	int bad = 0;

	if (!obj)
		return -1;
	cluster = obj_str(obj, "Cluster");
	set_field(id->cluster, sizeof(id->cluster), cluster_name(cluster),
		  "Cluster", err, errlen, &bad);
	set_label(id, "ecs.cluster", cluster, err, errlen, &bad);
	set_label(id, "ecs.task_arn", obj_str(obj, "TaskARN"), err, errlen,
		  &bad);
	set_label(id, "ecs.task_family", obj_str(obj, "Family"), err, errlen,
		  &bad);
	set_label(id, "ecs.task_revision", obj_str(obj, "Revision"), err,
		  errlen, &bad);
	set_label(id, "aws.availability_zone",
		  obj_str(obj, "AvailabilityZone"), err, errlen, &bad);
	set_label(id, "ecs.launch_type", obj_str(obj, "LaunchType"), err,
		  errlen, &bad);
	/* task-level limits are in vCPUs already (Fargate sizes); the exact
	 * size is kept, as Fargate bills 0.25 vCPU as such, not as 1 */
	limits = cJSON_GetObjectItemCaseSensitive(obj, "Limits");
	if (cJSON_IsObject(limits)) {
		double vcpus = obj_num(limits, "CPU");

		if (vcpus > 0 && vcpus < 1e6) {
			snprintf(buf, sizeof(buf), "%g", vcpus);
			set_label(id, "ecs.task_vcpus", buf, err, errlen, &bad);
		}
		apply_limits(id, vcpus, obj_num(limits, "Memory"));
	}
	apply_tracer_keys(cJSON_GetObjectItemCaseSensitive(obj, "TaskTags"), id,
			  err, errlen, &bad);
	cJSON_Delete(obj);
	return bad;
}

int awsmeta_parse_imds_document(const char *json, size_t len,
				struct tracer_identity *id, char *err,
				size_t errlen)
{
	cJSON *obj = parse_object(json, len, "EC2 instance identity document",
				  err, errlen);
	int bad = 0;

	if (!obj)
		return -1;
	set_label(id, "aws.instance_id", obj_str(obj, "instanceId"), err,
		  errlen, &bad);
	set_label(id, "aws.instance_type", obj_str(obj, "instanceType"), err,
		  errlen, &bad);
	set_label(id, "aws.region", obj_str(obj, "region"), err, errlen, &bad);
	set_label(id, "aws.availability_zone",
		  obj_str(obj, "availabilityZone"), err, errlen, &bad);
	cJSON_Delete(obj);
	return bad;
}

int awsmeta_parse_lifecycle(const char *text, size_t len,
			    struct tracer_identity *id, char *err,
			    size_t errlen)
{
	char value[32];
	int bad = 0;

	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	if (!len || len >= sizeof(value)) {
		snprintf(err, errlen, "instance-life-cycle: unexpected answer");
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		if (!islower((unsigned char)text[i]) && text[i] != '-') {
			snprintf(err, errlen,
				 "instance-life-cycle: unexpected answer");
			return -1;
		}
		value[i] = text[i];
	}
	value[len] = '\0';
	set_label(id, "aws.lifecycle", value, err, errlen, &bad);
	return bad;
}

static bool starts_ec2(const char *s)
{
	return s && strncasecmp(s, "ec2", 3) == 0;
}

bool awsmeta_is_ec2(const char *sys_vendor, const char *product_uuid,
		    const char *hypervisor_uuid)
{
	if (sys_vendor && strncmp(sys_vendor, "Amazon EC2", 10) == 0)
		return true;
	return starts_ec2(product_uuid) || starts_ec2(hypervisor_uuid);
}

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/*
 * In one argument, find "<dir>/XX/YYYY.../.command.run" and return the
 * length of <dir>/XX/YYYY... (0 when absent).
 */
static size_t nextflow_workdir(const char *arg, size_t len, const char **dir)
{
	static const char tail[] = "/.command.run";
	const char *p = arg, *end = arg + len, *hit, *h1, *s;

	while ((hit = memmem(p, (size_t)(end - p), tail, sizeof(tail) - 1))) {
		/* walk back over the 30-hex and the 2-hex directories */
		h1 = hit;
		while (h1 > arg && h1[-1] != '/')
			h1--;
		s = h1 - 1;
		if (h1 > arg + 3 && hit - h1 >= 6 && all_hex(h1, (size_t)(hit - h1)) &&
		    s[-3] == '/' && all_hex(s - 2, 2)) {
			/* the path starts after the last space or quote before it */
			const char *start = s - 3;
			while (start > arg && !isspace((unsigned char)start[-1]) &&
			       start[-1] != '\'' && start[-1] != '"')
				start--;
			*dir = start;
			return (size_t)(hit - start);
		}
		p = hit + 1;
	}
	return 0;
}

bool awsmeta_nextflow_task(const char *argv, size_t len,
			   struct tracer_identity *id)
{
	const char *p = argv, *end = argv + len, *dir = NULL;
	char path[ID_STR], hash[16];
	size_t alen, dlen = 0;
	int bad = 0;

	while (p < end && !dlen) {
		alen = strnlen(p, (size_t)(end - p));
		dlen = nextflow_workdir(p, alen, &dir);
		p += alen + 1;
	}
	if (!dlen || dlen >= sizeof(path))
		return false;
	memcpy(path, dir, dlen);
	path[dlen] = '\0';
	/* ".../ab/cdef0123..." -> "ab/cdef01" */
	const char *h = strrchr(path, '/');
	snprintf(hash, sizeof(hash), "%.2s/%.6s", h - 2, h + 1);
	set_label(id, "nextflow.work_dir", path, NULL, 0, &bad);
	set_label(id, "nextflow.hash", hash, NULL, 0, &bad);
	return true;
}
