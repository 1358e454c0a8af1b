/*
 * jobinc.c - a summary's increments to its (job, node) totals (jobinc.h).
 *
 * The memo is a small array searched linearly: its size is bounded
 * (max_jobs, tracerd's TRACER_JOBINC_MAX), so a summary's close costs a
 * bounded scan whatever the node runs.  Knowing that a job's summary is
 * the first on this node needs every earlier one seen: the memo knows
 * the jobs that started at or after since_ns (the daemon's start), and
 * when it drops an entry (full, or idle past max_idle_ns) it moves
 * since_ns past that job's start, so that the dropped job, and any other
 * job it cannot vouch for, is written without increments (counted in
 * "unknown") instead of with wrong ones.
 */
#include "jobinc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define KEY_LEN 256

struct entry {
	char key[KEY_LEN];
	uint64_t job_start_ns;
	uint64_t last_ns; /* the latest summary's close */
	struct jobinc_node t;
};

struct jobinc_memo {
	struct entry *e;
	size_t n, max;
	uint64_t max_idle_ns;
	uint64_t since_ns; /* jobs started at or after it: every summary seen */
	struct jobinc_stats st;
};

struct jobinc_memo *jobinc_new(size_t max_jobs, uint64_t max_idle_ns, uint64_t since_ns)
{
	struct jobinc_memo *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->e = calloc(max_jobs ? max_jobs : 1, sizeof(*m->e));
	if (!m->e) {
		free(m);
		return NULL;
	}
	m->max = max_jobs ? max_jobs : 1;
	m->max_idle_ns = max_idle_ns;
	m->since_ns = since_ns;
	return m;
}

void jobinc_free(struct jobinc_memo *m)
{
	if (!m)
		return;
	free(m->e);
	free(m);
}

bool jobinc_key(const char *scheduler, const char *cluster, const char *job_id, char *out,
		size_t len)
{
	int n;

	if (!job_id || !*job_id)
		return false;
	n = snprintf(out, len, "%s\x1f%s\x1f%s", scheduler ? scheduler : "", cluster ? cluster : "",
		     job_id);
	return n > 0 && (size_t)n < len;
}

static const cJSON *obj(const cJSON *o, const char *key)
{
	return o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static double dmax(double a, double b)
{
	return a > b ? a : b;
}

struct jobinc_fold jobinc_node_fold(const struct jobinc_node *t)
{
	return (struct jobinc_fold){
		.cpus = t->cpus,
		.cpu_s = t->cpus > 0 ? t->cpu_s : 0,
		.unused_mem = t->mem > t->peak ? t->mem - t->peak : 0,
		.gpus_idle = t->gpus,
	};
}

static double gpus_idle(const cJSON *s)
{
	const cJSON *d;
	double n = 0;

	cJSON_ArrayForEach(d, obj(obj(s, "gpu"), "devices"))
		n += !cJSON_IsTrue(obj(d, "used")) && cJSON_IsTrue(obj(d, "allocated"));
	return n;
}

void jobinc_node_add(struct jobinc_node *t, const cJSON *s)
{
	const cJSON *alloc = obj(obj(s, "identity"), "allocation");

	t->cpus = dmax(t->cpus, json_get_num(alloc, "cpus", 0));
	t->mem = dmax(t->mem, json_get_num(alloc, "mem_bytes", 0));
	t->peak = dmax(t->peak, json_get_num(obj(s, "memory"), "peak_bytes", 0));
	t->cpu_s += json_get_num(obj(s, "totals"), "cpu_s", 0);
	t->gpus = dmax(t->gpus, gpus_idle(s));
}

static int write_increments(cJSON *s, const struct jobinc_node *before,
			    const struct jobinc_node *after, bool single)
{
	struct jobinc_fold b = jobinc_node_fold(before), a = jobinc_node_fold(after);
	cJSON *o = cJSON_CreateObject();

	if (!o || !json_add_u64(o, "alloc_cpus", (uint64_t)(a.cpus - b.cpus)) ||
	    !cJSON_AddNumberToObject(o, "cpu_s", a.cpu_s - b.cpu_s) ||
	    !json_add_i64(o, "unused_mem_bytes", (int64_t)a.unused_mem - (int64_t)b.unused_mem) ||
	    !json_add_u64(o, "gpus_idle", (uint64_t)(a.gpus_idle - b.gpus_idle)) ||
	    !cJSON_AddBoolToObject(o, "single", single)) {
		cJSON_Delete(o);
		return -1;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(s, "node_increments");
	if (!cJSON_AddItemToObject(s, "node_increments", o)) {
		cJSON_Delete(o);
		return -1;
	}
	return 0;
}

/* forget entry i; lost: the job may have more summaries, which the
 * memo can no longer vouch for */
static void drop(struct jobinc_memo *m, size_t i, bool lost)
{
	if (lost && m->e[i].job_start_ns + 1 > m->since_ns)
		m->since_ns = m->e[i].job_start_ns + 1;
	m->e[i] = m->e[--m->n];
}

static void expire(struct jobinc_memo *m, uint64_t now_ns)
{
	for (size_t i = 0; i < m->n;)
		if (m->max_idle_ns && now_ns > m->e[i].last_ns + m->max_idle_ns) {
			drop(m, i, true);
			m->st.dropped_ttl++;
		} else {
			i++;
		}
}

/* room for one more: the job that started first goes */
static void make_room(struct jobinc_memo *m)
{
	size_t old = 0;

	if (m->n < m->max)
		return;
	for (size_t i = 1; i < m->n; i++)
		if (m->e[i].job_start_ns < m->e[old].job_start_ns)
			old = i;
	drop(m, old, true);
	m->st.dropped_full++;
}

static struct entry *find(struct jobinc_memo *m, const char *key, size_t *at)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->e[i].key, key) == 0) {
			*at = i;
			return &m->e[i];
		}
	return NULL;
}

int jobinc_apply(struct jobinc_memo *m, cJSON *s, bool others_open, uint64_t now_ns)
{
	const cJSON *id = obj(s, "identity");
	const char *step = json_get_str(id, "step_id", "");
	double start_d = json_get_num(id, "job_start_ns", 0);
	uint64_t job_start = start_d > 0 && start_d < 1.8e19 ? (uint64_t)start_d : 0;
	bool one_node = json_get_num(obj(id, "allocation"), "nodes", 0) == 1;
	/* a 1-node job's batch step is the last of the job on its node */
	bool job_ends = one_node && strcmp(step, "batch") == 0 && !others_open;
	struct jobinc_node none = {0}, t = {0};
	char key[KEY_LEN];
	struct entry *e;
	size_t at = 0;

	const char *job_id = json_get_str(id, "job_id", "");

	if (!*job_id) {
		/* no job id: the summary is its job (tracer run, tracer-wrap) */
		jobinc_node_add(&t, s);
		if (m)
			m->st.written++;
		return write_increments(s, &none, &t, true);
	}
	if (!jobinc_key(json_get_str(id, "scheduler", ""), json_get_str(id, "cluster", ""), job_id,
			key, sizeof(key))) { /* a key beyond the memo's: not vouched for */
		if (m)
			m->st.unknown++;
		return 0;
	}
	if (!m) { /* on its own: its node's only summary of the job */
		jobinc_node_add(&t, s);
		return write_increments(s, &none, &t, false);
	}
	expire(m, now_ns);
	e = find(m, key, &at);
	if (!e && !(job_start > 0 && job_start >= m->since_ns)) {
		m->st.unknown++;
		return 0;
	}
	if (e)
		t = e->t;
	jobinc_node_add(&t, s);
	if (write_increments(s, e ? &e->t : &none, &t, !e && job_ends) != 0)
		return -1;
	m->st.written++;
	if (job_ends) {
		if (e) {
			drop(m, at, false);
			m->st.ended++;
		}
		return 0;
	}
	if (!e) {
		make_room(m);
		e = &m->e[m->n++];
		snprintf(e->key, sizeof(e->key), "%s", key);
		e->job_start_ns = job_start;
	}
	e->t = t;
	e->last_ns = now_ns;
	return 0;
}

void jobinc_stats(const struct jobinc_memo *m, struct jobinc_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!m)
		return;
	*out = m->st;
	out->entries = m->n;
}
