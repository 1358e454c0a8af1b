/*
 * identity.c - the job identity a registrant sends and its JSON form.
 *
 * The JSON form is a flat object; unknown values (empty strings, -1,
 * allocation zeros) are omitted so that consumers can tell "unknown" from
 * a real value.  Parsing is strict about types and sizes because the
 * object arrives from any local process over the socket.
 */
#include "identity.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "errmsg.h"
#include "json.h"

/* Largest integer a JSON double holds exactly (2^53). */
#define JSON_INT_MAX 9007199254740992.0
/* Largest double below 2^64: the conversion to uint64_t stays defined. */
#define U64_DOUBLE_MAX 18446744073709549568.0

struct str_field {
	const char *name;
	size_t off, size;
};

struct long_field {
	const char *name;
	size_t off;
	long max;
};

#define SF(f) {#f, offsetof(struct tracer_identity, f), \
	       sizeof(((struct tracer_identity *)0)->f)}
#define LF(f, m) {#f, offsetof(struct tracer_identity, f), m}

static const struct str_field str_fields[] = {
	SF(run_id), SF(run_name), SF(pipeline), SF(task_name), SF(scheduler),
	SF(cluster), SF(job_id), SF(step_id), SF(array_job_id), SF(user),
	SF(queue), SF(node_name), SF(account), SF(qos), SF(node_list),
};

static const struct long_field long_fields[] = {
	LF(array_index, 1L << 30), LF(attempt, 1L << 30),
	LF(uid, 4294967294L), LF(node_id, 1L << 30), LF(node_count, 1L << 30),
	LF(local_task_id, 1L << 30), LF(global_task_id, 1L << 30),
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

void identity_init(struct tracer_identity *id)
{
	memset(id, 0, sizeof(*id));
	for (size_t i = 0; i < NELEM(long_fields); i++)
		*(long *)((char *)id + long_fields[i].off) = -1;
}

int identity_set_label(struct tracer_identity *id, const char *key,
		       const char *value)
{
	struct tracer_label *l = NULL;

	if (!key || !*key || !value || strlen(key) >= sizeof(l->key) ||
	    strlen(value) >= sizeof(l->value))
		return -1;
	for (int i = 0; i < id->nlabels; i++)
		if (strcmp(id->labels[i].key, key) == 0)
			l = &id->labels[i];
	if (!l) {
		if (id->nlabels < 0 || id->nlabels >= ID_MAX_LABELS)
			return -1;
		l = &id->labels[id->nlabels++];
		snprintf(l->key, sizeof(l->key), "%s", key);
	}
	snprintf(l->value, sizeof(l->value), "%s", value);
	return 0;
}

const char *identity_label(const struct tracer_identity *id, const char *key)
{
	for (int i = 0; i < id->nlabels && i < ID_MAX_LABELS; i++)
		if (strcmp(id->labels[i].key, key) == 0)
			return id->labels[i].value;
	return NULL;
}

void identity_set_user(struct tracer_identity *id, uid_t uid)
{
	struct passwd pw, *res = NULL;
	long max = sysconf(_SC_GETPW_R_SIZE_MAX);
	size_t cap = max > 0 && max < (1 << 20) ? (size_t)max : 16384;
	char *buf = malloc(cap);

	id->uid = (long)uid;
	/* the buffer glibc asks for; a long GECOS or shell may still need more */
	while (buf && getpwuid_r(uid, &pw, buf, cap, &res) == ERANGE &&
	       cap < (1 << 20)) {
		char *nb = realloc(buf, cap * 2);

		if (!nb)
			break;
		buf = nb;
		cap *= 2;
	}
	if (buf && res)
		snprintf(id->user, sizeof(id->user), "%s", pw.pw_name);
	else
		snprintf(id->user, sizeof(id->user), "%lu", (unsigned long)uid);
	free(buf);
}

int identity_scheduler_reserved(const char *scheduler)
{
	static const char *const reserved[] = {"slurm", "aws-batch", "host"};
	char trimmed[32];
	size_t n;

	if (!scheduler)
		return 0;
	/* "slurm " and " slurm" are slurm to a reader too */
	scheduler += strspn(scheduler, " \t");
	snprintf(trimmed, sizeof(trimmed), "%s", scheduler);
	n = strlen(trimmed);
	while (n && (trimmed[n - 1] == ' ' || trimmed[n - 1] == '\t'))
		trimmed[--n] = '\0';
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (strcasecmp(trimmed, reserved[i]) == 0)
			return 1;
	return 0;
}

void identity_join_key(const struct tracer_identity *id, char *buf, size_t len)
{
	if (!buf || len == 0)
		return;
	buf[0] = '\0';
	if (!id->job_id[0])
		return;
	if (strcmp(id->scheduler, "slurm") == 0) {
		char node[24] = "";

		/* two slurmds on one host each hold their part of a step */
		if (id->node_id > 0)
			snprintf(node, sizeof(node), "@%ld", id->node_id);
		snprintf(buf, len, "slurm:%s%s%s%s", id->job_id, id->step_id[0] ? "." : "",
			 id->step_id, node);
	} else if (strcmp(id->scheduler, "aws-batch") == 0) {
		if (id->attempt >= 0)
			snprintf(buf, len, "aws-batch:%s#%ld", id->job_id,
				 id->attempt);
		else
			snprintf(buf, len, "aws-batch:%s", id->job_id);
	}
}

static cJSON *allocation_to_json(const struct tracer_allocation *a)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	if (a->cpus > 0 && !cJSON_AddNumberToObject(o, "cpus", a->cpus))
		goto fail;
	if (a->cpuset[0] && !json_add_str(o, "cpuset", a->cpuset))
		goto fail;
	if (a->mem_bytes > 0 && !json_add_u64(o, "mem_bytes", a->mem_bytes))
		goto fail;
	if (a->time_limit_s > 0 && !json_add_u64(o, "time_limit_s", a->time_limit_s))
		goto fail;
	if (a->gpus[0] && !json_add_str(o, "gpus", a->gpus))
		goto fail;
	if (a->nodes > 0 && !cJSON_AddNumberToObject(o, "nodes", a->nodes))
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/* The request; NULL with *none when nothing of it is known. */
static cJSON *request_to_json(const struct client_request *r, int *none)
{
	cJSON *o;

	*none = !r->cpus && !r->mem_bytes && !r->gpus && !r->nodes && !r->time_limit_s;
	if (*none || !(o = cJSON_CreateObject()))
		return NULL;
	if ((r->cpus > 0 && !cJSON_AddNumberToObject(o, "cpus", r->cpus)) ||
	    (r->mem_bytes > 0 && !json_add_u64(o, "mem_bytes", r->mem_bytes)) ||
	    (r->gpus > 0 && !cJSON_AddNumberToObject(o, "gpus", r->gpus)) ||
	    (r->nodes > 0 && !cJSON_AddNumberToObject(o, "nodes", r->nodes)) ||
	    (r->time_limit_s > 0 && !json_add_u64(o, "time_limit_s", r->time_limit_s))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* submit_ns, job_start_ns and queue_wait_s (start - submit) when known. */
static int times_to_json(cJSON *o, const struct tracer_identity *id)
{
	if (id->submit_ns && !json_add_u64(o, "submit_ns", id->submit_ns))
		return -1;
	if (id->job_start_ns && !json_add_u64(o, "job_start_ns", id->job_start_ns))
		return -1;
	if (id->submit_ns && id->job_start_ns >= id->submit_ns &&
	    !cJSON_AddNumberToObject(o, "queue_wait_s",
				     (double)(id->job_start_ns - id->submit_ns) / 1e9))
		return -1;
	return 0;
}

static cJSON *labels_to_json(const struct tracer_identity *id)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	for (int i = 0; i < id->nlabels && i < ID_MAX_LABELS; i++)
		if (!json_add_str(o, id->labels[i].key, id->labels[i].value))
			goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

cJSON *identity_to_json(const struct tracer_identity *id)
{
	cJSON *o = cJSON_CreateObject(), *sub;
	int none;

	if (!o)
		return NULL;
	for (size_t i = 0; i < NELEM(str_fields); i++) {
		const char *s = (const char *)id + str_fields[i].off;

		/* the struct may come from anywhere: never read past it */
		if (memchr(s, '\0', str_fields[i].size) && s[0] &&
		    !json_add_str(o, str_fields[i].name, s))
			goto fail;
	}
	for (size_t i = 0; i < NELEM(long_fields); i++) {
		long v = *(const long *)((const char *)id + long_fields[i].off);

		if (v != -1 && !json_add_i64(o, long_fields[i].name, v))
			goto fail;
	}
	sub = allocation_to_json(&id->alloc);
	if (!sub || !cJSON_AddItemToObject(o, "allocation", sub)) {
		cJSON_Delete(sub);
		goto fail;
	}
	if (times_to_json(o, id) < 0)
		goto fail;
	sub = request_to_json(&id->req, &none);
	if (!none && (!sub || !cJSON_AddItemToObject(o, "request", sub))) {
		cJSON_Delete(sub);
		goto fail;
	}
	sub = labels_to_json(id);
	if (!sub || !cJSON_AddItemToObject(o, "labels", sub)) {
		cJSON_Delete(sub);
		goto fail;
	}
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/* Copy a string member; absent or null keeps the default. */
static int get_str(const cJSON *obj, const char *path, const char *name,
		   char *dst, size_t size, char *err, size_t errlen)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, name);
	size_t n;

	if (!it || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsString(it) || !it->valuestring)
		return errmsg_fail(err, errlen, "%s%s: expected a string", path,
				name);
	n = strlen(it->valuestring);
	if (n >= size)
		return errmsg_fail(err, errlen,
				"%s%s: too long (%zu bytes, at most %zu)", path,
				name, n, size - 1);
	memcpy(dst, it->valuestring, n + 1);
	return 0;
}

/*
 * A scheduler name is a word of ASCII letters, digits, '-', '_' and '.':
 * a reserved name must not be imitated by a look-alike ("slurm" with a
 * zero-width space, a no-break space, a Cyrillic "ѕ" or a trailing
 * newline reads as "slurm" in a report), so anything else is refused
 * rather than normalised.
 */
static int check_scheduler(const char *s, char *err, size_t errlen)
{
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.'))
			return errmsg_fail(err, errlen,
					"scheduler: byte 0x%02x at %zu: only ASCII letters, "
					"digits, '-', '_' and '.'",
					(unsigned)(unsigned char)*c, (size_t)(c - s));
	return 0;
}

/*
 * An integral number in [min, max].  Raw items (exact text written by
 * json_add_i64/u64) are accepted too, so an object built by
 * identity_to_json can be read back without a round trip through text.
 */
static int get_num(const cJSON *obj, const char *path, const char *name,
		   double min, double max, double *out, int *present,
		   char *err, size_t errlen)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, name);
	double d;

	*present = 0;
	if (!it || cJSON_IsNull(it))
		return 0;
	if (cJSON_IsRaw(it)) {
		char *end;

		if (!it->valuestring)
			goto bad_type;
		d = strtod(it->valuestring, &end);
		if (end == it->valuestring || *end)
			goto bad_type;
	} else if (cJSON_IsNumber(it)) {
		d = it->valuedouble;
	} else {
		goto bad_type;
	}
	if (!(d >= min && d <= max))
		return errmsg_fail(err, errlen, "%s%s: out of range (%.0f..%.0f)",
				path, name, min, max);
	/* beyond 2^53 every double is an integer (and casting could overflow) */
	if (d > -JSON_INT_MAX && d < JSON_INT_MAX && (double)(long long)d != d)
		return errmsg_fail(err, errlen, "%s%s: expected an integer", path,
				name);
	*out = d;
	*present = 1;
	return 0;
bad_type:
	return errmsg_fail(err, errlen, "%s%s: expected a number", path, name);
}

static int allocation_from_json(const cJSON *a, struct tracer_allocation *al,
				char *err, size_t errlen)
{
	double d;
	int present;

	if (!a || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsObject(a))
		return errmsg_fail(err, errlen, "allocation: expected an object");
	if (get_num(a, "allocation.", "cpus", 0, 1 << 24, &d, &present, err,
		    errlen) < 0)
		return -1;
	if (present)
		al->cpus = (int)d;
	if (get_str(a, "allocation.", "cpuset", al->cpuset, sizeof(al->cpuset),
		    err, errlen) < 0)
		return -1;
	if (get_num(a, "allocation.", "mem_bytes", 0, U64_DOUBLE_MAX,
		    &d, &present, err, errlen) < 0)
		return -1;
	if (present)
		al->mem_bytes = (uint64_t)d;
	if (get_num(a, "allocation.", "time_limit_s", 0, U64_DOUBLE_MAX,
		    &d, &present, err, errlen) < 0)
		return -1;
	if (present)
		al->time_limit_s = (uint64_t)d;
	if (get_str(a, "allocation.", "gpus", al->gpus, sizeof(al->gpus), err, errlen) < 0)
		return -1;
	if (strspn(al->gpus, "0123456789abcdefABCDEFGMIU-,/") != strlen(al->gpus))
		return errmsg_fail(err, errlen, "allocation.gpus: indices or UUIDs, comma-separated");
	if (get_num(a, "allocation.", "nodes", 0, 1 << 24, &d, &present, err, errlen) < 0)
		return -1;
	if (present)
		al->nodes = (int)d;
	return 0;
}

/* One unsigned member of an object into *out (left alone when absent). */
static int get_u64(const cJSON *o, const char *path, const char *name, double max,
		   uint64_t *out, char *err, size_t errlen)
{
	double d;
	int present;

	if (get_num(o, path, name, 0, max, &d, &present, err, errlen) < 0)
		return -1;
	if (present)
		*out = (uint64_t)d;
	return 0;
}

static int request_from_json(const cJSON *r, struct client_request *rq, char *err,
			     size_t errlen)
{
	uint64_t cpus = 0, gpus = 0, nodes = 0;

	if (!r || cJSON_IsNull(r))
		return 0;
	if (!cJSON_IsObject(r))
		return errmsg_fail(err, errlen, "request: expected an object");
	if (get_u64(r, "request.", "cpus", 1 << 24, &cpus, err, errlen) < 0 ||
	    get_u64(r, "request.", "gpus", 1 << 24, &gpus, err, errlen) < 0 ||
	    get_u64(r, "request.", "nodes", 1 << 24, &nodes, err, errlen) < 0 ||
	    get_u64(r, "request.", "mem_bytes", U64_DOUBLE_MAX, &rq->mem_bytes, err,
		    errlen) < 0 ||
	    get_u64(r, "request.", "time_limit_s", U64_DOUBLE_MAX, &rq->time_limit_s, err,
		    errlen) < 0)
		return -1;
	rq->cpus = (int)cpus;
	rq->gpus = (int)gpus;
	rq->nodes = (int)nodes;
	return 0;
}

static int labels_from_json(const cJSON *l, struct tracer_identity *id,
			    char *err, size_t errlen)
{
	const cJSON *it;

	if (!l || cJSON_IsNull(l))
		return 0;
	if (!cJSON_IsObject(l))
		return errmsg_fail(err, errlen, "labels: expected an object");
	cJSON_ArrayForEach(it, l) {
		const char *k = it->string ? it->string : "";

		if (!cJSON_IsString(it) || !it->valuestring)
			return errmsg_fail(err, errlen,
					"labels.%.64s: expected a string", k);
		if (!*k || strlen(k) >= sizeof(id->labels[0].key))
			return errmsg_fail(err, errlen,
					"labels: key empty or too long (at most %zu bytes)",
					sizeof(id->labels[0].key) - 1);
		if (strlen(it->valuestring) >= sizeof(id->labels[0].value))
			return errmsg_fail(err, errlen,
					"labels.%s: too long (at most %zu bytes)",
					k, sizeof(id->labels[0].value) - 1);
		if (!identity_label(id, k) && id->nlabels >= ID_MAX_LABELS)
			return errmsg_fail(err, errlen,
					"labels: too many (at most %d)",
					ID_MAX_LABELS);
		if (identity_set_label(id, k, it->valuestring) < 0)
			return errmsg_fail(err, errlen, "labels.%s: rejected", k);
	}
	return 0;
}

int identity_from_json(const cJSON *obj, struct tracer_identity *id,
		       char *err, size_t errlen)
{
	double d;
	int present;

	identity_init(id);
	if (!cJSON_IsObject(obj))
		return errmsg_fail(err, errlen, "identity: expected an object");
	for (size_t i = 0; i < NELEM(str_fields); i++)
		if (get_str(obj, "", str_fields[i].name,
			    (char *)id + str_fields[i].off, str_fields[i].size,
			    err, errlen) < 0)
			goto fail;
	if (check_scheduler(id->scheduler, err, errlen) < 0)
		goto fail;
	for (size_t i = 0; i < NELEM(long_fields); i++) {
		if (get_num(obj, "", long_fields[i].name, -1,
			    (double)long_fields[i].max, &d, &present, err,
			    errlen) < 0)
			goto fail;
		if (present)
			*(long *)((char *)id + long_fields[i].off) = (long)d;
	}
	if (allocation_from_json(
		    cJSON_GetObjectItemCaseSensitive(obj, "allocation"),
		    &id->alloc, err, errlen) < 0)
		goto fail;
	if (labels_from_json(cJSON_GetObjectItemCaseSensitive(obj, "labels"),
			     id, err, errlen) < 0)
		goto fail;
	/* queue_wait_s is derived from these two, never read */
	if (get_u64(obj, "", "submit_ns", U64_DOUBLE_MAX, &id->submit_ns, err, errlen) < 0 ||
	    get_u64(obj, "", "job_start_ns", U64_DOUBLE_MAX, &id->job_start_ns, err,
		    errlen) < 0 ||
	    request_from_json(cJSON_GetObjectItemCaseSensitive(obj, "request"), &id->req, err,
			      errlen) < 0)
		goto fail;
	return 0;
fail:
	identity_init(id);
	return -1;
}

int identity_group_gid(const char *name, gid_t *gid, char *err, size_t errlen)
{
	struct group gr, *res = NULL;
	long size = sysconf(_SC_GETGR_R_SIZE_MAX);
	char *buf;
	int rc;

	if (size < 1024)
		size = 16384;
	buf = malloc((size_t)size);
	if (!buf) {
		snprintf(err, errlen, "group %s: out of memory", name);
		return -1;
	}
	rc = getgrnam_r(name, &gr, buf, (size_t)size, &res);
	if (rc != 0 || !res) {
		snprintf(err, errlen, "group %s: %s", name,
			 rc ? strerror(rc) : "no such group");
		free(buf);
		return -1;
	}
	*gid = gr.gr_gid;
	free(buf);
	return 0;
}
