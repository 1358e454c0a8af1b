/*
 * sweep_acc.c - the sweep over the local archive (sweep.h): summaries
 * folded one at a time into (job, node) entries, then jobs into groups,
 * with the rules of the datalake's query (sweep.c) so that both sources
 * give the same numbers: a job whose summaries all carry node increments
 * (jobinc.h) sums them, as the datalake does, the others are folded per
 * node.  Memory grows with the jobs in the window, not
 * with their summaries' size (by tool, with their tools' names too, at
 * most TRACER_SWEEP_TOOLS_MAX of them).
 */
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobinc.h"
#include "json.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

struct sweep_node {
	char *host;
	struct jobinc_node t; /* as tracerd's increments count them */
	double start_ns, end_ns;
	double own_start_ns; /* without the scheduler's job start */
	unsigned steps;
	/* the summaries' node_increments summed (jobinc.h) */
	double inc_cpus, inc_cpu_s, inc_unused, inc_gpus;
};

/* by tool: one tool's CPU time in a job, over its steps and nodes */
struct sweep_tool {
	char *name;
	double cpu_s;
};

struct sweep_job {
	char *key;        /* scheduler, cluster, job: what makes it one job */
	char *id;         /* the job id shown (or the job's uid) */
	char *group;      /* the group's key (not by host) */
	bool timeout, oom;
	bool folded;      /* a summary without node_increments: fold the nodes */
	struct sweep_node *nodes;
	size_t nn;
	struct sweep_tool *tools; /* by tool */
	size_t nt;
};

struct sweep_acc {
	struct sweep_query q;
	struct sweep_job **slots; /* open addressing on key */
	size_t cap, n;
	size_t tools;  /* tool entries held over all jobs */
	bool full; /* jobs (or tools) left out: TRACER_SWEEP_JOBS_MAX held */
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

struct sweep_acc *sweep_acc_new(const struct sweep_query *q)
{
	struct sweep_acc *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->q = *q;
	a->cap = 256;
	a->slots = calloc(a->cap, sizeof(*a->slots));
	if (!a->slots) {
		free(a);
		return NULL;
	}
	return a;
}

static struct sweep_job **slot_of(struct sweep_job **slots, size_t cap, const char *key)
{
	size_t i = hash(key) & (cap - 1);

	while (slots[i] && strcmp(slots[i]->key, key) != 0)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow(struct sweep_acc *a)
{
	size_t cap = a->cap * 2;
	struct sweep_job **s = calloc(cap, sizeof(*s));

	if (!s)
		return -1;
	for (size_t i = 0; i < a->cap; i++)
		if (a->slots[i])
			*slot_of(s, cap, a->slots[i]->key) = a->slots[i];
	free(a->slots);
	a->slots = s;
	a->cap = cap;
	return 0;
}

/* nanoseconds: a string (tracer.job/2) or a number; 0 when absent */
static double ns_of(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;

	if (cJSON_IsString(v))
		return strtod(v->valuestring, NULL);
	return json_get_num(o, key, 0);
}

static const cJSON *obj(const cJSON *o, const char *key)
{
	return o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *str_or(const cJSON *o, const char *key, const char *def)
{
	const char *s = json_get_str(o, key, NULL);

	return s && *s ? s : def;
}

static const char *group_of(const struct sweep_acc *a, const cJSON *s)
{
	const cJSON *id = obj(s, "identity");

	switch (a->q.by) {
	case SWEEP_BY_ACCOUNT:
		return str_or(id, "account", "-");
	case SWEEP_BY_PARTITION:
		return str_or(id, "queue", "-");
	case SWEEP_BY_PIPELINE:
		return str_or(id, "pipeline", "-");
	case SWEEP_BY_HOST:
		return str_or(obj(s, "host"), "hostname", "-");
	default:
		return str_or(id, "user", "-");
	}
}

/* the job of summary s, made when new; NULL when out of memory */
static struct sweep_job *job_of(struct sweep_acc *a, const cJSON *s)
{
	const cJSON *id = obj(s, "identity");
	const char *jid = str_or(id, "job_id", NULL);
	const char *shown = jid ? jid : str_or(s, "job", "-");
	size_t len;
	char *key;
	struct sweep_job **slot, *j;

	len = strlen(str_or(id, "scheduler", "")) + strlen(str_or(id, "cluster", "")) +
	      strlen(shown) + 4;
	key = malloc(len);
	if (!key)
		return NULL;
	snprintf(key, len, "%s\x1f%s\x1f%s", str_or(id, "scheduler", ""), str_or(id, "cluster", ""),
		 shown);
	slot = slot_of(a->slots, a->cap, key);
	if (*slot) {
		free(key);
		return *slot;
	}
	if (a->n >= TRACER_SWEEP_JOBS_MAX) {
		a->full = true;
		free(key);
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (!j || !(j->id = strdup(shown)) || !(j->group = strdup(group_of(a, s)))) {
		if (j)
			free(j->id);
		free(j);
		free(key);
		return NULL;
	}
	j->key = key;
	*slot = j;
	a->n++;
	return j;
}

static struct sweep_node *node_of(struct sweep_job *j, const char *host)
{
	struct sweep_node *v;

	for (size_t i = 0; i < j->nn; i++)
		if (strcmp(j->nodes[i].host, host) == 0)
			return &j->nodes[i];
	v = realloc(j->nodes, (j->nn + 1) * sizeof(*v));
	if (!v)
		return NULL;
	j->nodes = v;
	memset(&v[j->nn], 0, sizeof(v[0]));
	if (!(v[j->nn].host = strdup(host)))
		return NULL;
	return &v[j->nn++];
}

static double dmax(double a, double b)
{
	return a > b ? a : b;
}

/* The datalake sums a job's increments where each of its summaries in
 * the window has them, and folds its nodes otherwise (sweep_jobs.c):
 * the same here, so that both sources count alike. */
static void add_increments(struct sweep_job *j, struct sweep_node *nd, const cJSON *inc)
{
	if (!cJSON_IsObject(inc)) {
		j->folded = true;
		return;
	}
	nd->inc_cpus += json_get_num(inc, "alloc_cpus", 0);
	nd->inc_cpu_s += json_get_num(inc, "cpu_s", 0);
	nd->inc_unused += json_get_num(inc, "unused_mem_bytes", 0);
	nd->inc_gpus += json_get_num(inc, "gpus_idle", 0);
}

/* by tool: summary s's tools' CPU time into its job, by name (a tool's
 * paths are one tool); 0, -1 when out of memory */
static int add_tools(struct sweep_acc *a, struct sweep_job *j, const cJSON *s)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, obj(s, "tools")) {
		const char *name = str_or(t, "tool", "-");
		struct sweep_tool *v = NULL;

		for (size_t i = 0; i < j->nt && !v; i++)
			if (strcmp(j->tools[i].name, name) == 0)
				v = &j->tools[i];
		if (!v) {
			if (a->tools >= TRACER_SWEEP_TOOLS_MAX) {
				a->full = true;
				continue;
			}
			v = realloc(j->tools, (j->nt + 1) * sizeof(*v));
			if (!v)
				return -1;
			j->tools = v;
			v = &j->tools[j->nt];
			if (!(v->name = strdup(name)))
				return -1;
			v->cpu_s = 0;
			j->nt++;
			a->tools++;
		}
		v->cpu_s += json_get_num(t, "cpu_s", 0);
	}
	return 0;
}

int sweep_acc_add(struct sweep_acc *a, const cJSON *s)
{
	const cJSON *id = obj(s, "identity");
	double end = ns_of(s, "end_ns"), start = ns_of(s, "start_ns");
	double js = ns_of(id, "job_start_ns");
	const char *state = json_get_str(s, "state", "");
	struct sweep_job *j;
	struct sweep_node *nd;

	if (strcmp(str_or(id, "scheduler", ""), "host") == 0 || floor(end / 1e9) < floor(a->q.from_s))
		return 0;
	if (a->q.uid >= 0 && json_get_num(id, "uid", -1) != (double)a->q.uid)
		return 0;
	if (a->n * 2 >= a->cap && grow(a) != 0)
		return -1;
	j = job_of(a, s);
	if (!j && a->full)
		return 0;
	nd = j ? node_of(j, str_or(obj(s, "host"), "hostname", "")) : NULL;
	if (!nd)
		return -1;
	nd->own_start_ns = nd->steps && nd->own_start_ns < start ? nd->own_start_ns : start;
	/* the scheduler's start of the job, when earlier (whole seconds) */
	if (js > 0 && js < start)
		start = js;
	nd->start_ns = nd->steps && nd->start_ns < start ? nd->start_ns : start;
	nd->steps++;
	nd->end_ns = dmax(nd->end_ns, end);
	jobinc_node_add(&nd->t, s);
	add_increments(j, nd, obj(s, "node_increments"));
	j->timeout = j->timeout || strcmp(state, "TIMEOUT") == 0;
	j->oom = j->oom || strcmp(state, "OUT_OF_MEMORY") == 0 ||
		 json_get_num(s, "oom_kills", 0) > 0;
	return a->q.by == SWEEP_BY_TOOL ? add_tools(a, j, s) : 0;
}

/* ---- jobs into groups ---- */

struct groups {
	struct sweep_row *rows;
	size_t n, cap;
	size_t *index; /* open addressing on key: row + 1, 0 empty */
	size_t icap;
};

/* where key's row is, or the empty slot it would take */
static size_t *index_slot(size_t *index, size_t icap, const struct sweep_row *rows,
			  const char *key)
{
	size_t i = hash(key) & (icap - 1);

	while (index[i] && strcmp(rows[index[i] - 1].key, key) != 0)
		i = (i + 1) & (icap - 1);
	return &index[i];
}

/* room for one more row, the index at most half full: 0, -1 */
static int groups_room(struct groups *g)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 16;
		struct sweep_row *v = realloc(g->rows, cap * sizeof(*v));

		if (!v)
			return -1;
		g->rows = v;
		g->cap = cap;
	}
	if ((g->n + 1) * 2 > g->icap) {
		size_t icap = g->icap ? g->icap * 2 : 64;
		size_t *ix = calloc(icap, sizeof(*ix));

		if (!ix)
			return -1;
		for (size_t i = 0; i < g->n; i++)
			*index_slot(ix, icap, g->rows, g->rows[i].key) = i + 1;
		free(g->index);
		g->index = ix;
		g->icap = icap;
	}
	return 0;
}

/* the group's row, made when new (tools and hosts may be many: hashed) */
static struct sweep_row *group_row(struct groups *g, const char *key)
{
	struct sweep_row *v;
	size_t *slot;

	if (g->icap) {
		slot = index_slot(g->index, g->icap, g->rows, key);
		if (*slot)
			return &g->rows[*slot - 1];
	}
	if (groups_room(g) != 0)
		return NULL;
	slot = index_slot(g->index, g->icap, g->rows, key);
	v = &g->rows[g->n];
	memset(v, 0, sizeof(*v));
	if (!(v->key = strdup(key)))
		return NULL;
	*slot = ++g->n;
	return v;
}

/* what one job (or one node of it, by host; a tool's share, by tool)
 * wasted, into its group; cpu_s: by tool, the tool's CPU time */
static int add_waste(const struct sweep_query *q, struct groups *g, const char *key,
		     const struct sweep_job *j, double idle_cs, double unused_bs, double gpu_s,
		     double cpu_s)
{
	struct sweep_row *r = group_row(g, key);
	double rank = sweep_rank(q, idle_cs, unused_bs);

	if (!r)
		return -1;
	r->jobs++;
	r->cpu_s += cpu_s;
	r->timeouts += j->timeout;
	r->ooms += j->oom;
	r->idle_core_s += idle_cs;
	r->unused_mem_byte_s += unused_bs;
	r->idle_gpu_s += gpu_s;
	if (!r->worst || rank > r->worst_rank) {
		free(r->worst);
		if (!(r->worst = strdup(j->id)))
			return -1;
		r->worst_rank = rank;
	}
	return 0;
}

/* by tool: the job's waste shared by its tools' CPU time (equally when
 * they used none; SWEEP_TOOL_RULE), the datalake's sweep_tool_sql */
static int share_job(const struct sweep_query *q, struct groups *g, const struct sweep_job *j,
		     double idle_cs, double unused_bs, double gpu_s)
{
	double total = 0;

	if (!j->nt)
		return add_waste(q, g, "-", j, idle_cs, unused_bs, gpu_s, 0);
	for (size_t i = 0; i < j->nt; i++)
		total += j->tools[i].cpu_s;
	for (size_t i = 0; i < j->nt; i++) {
		const struct sweep_tool *t = &j->tools[i];
		double sh = total > 0 ? t->cpu_s / total : 1.0 / (double)j->nt;

		if (add_waste(q, g, t->name, j, idle_cs * sh, unused_bs * sh, gpu_s * sh,
			      t->cpu_s) != 0)
			return -1;
	}
	return 0;
}

static int fold_job(const struct sweep_query *q, struct groups *g, const struct sweep_job *j)
{
	double start = 0, end = 0, wall, cpus = 0, cpu_s = 0, unused = 0, gpus = 0;
	unsigned steps = 0;

	for (size_t i = 0; i < j->nn; i++)
		steps += j->nodes[i].steps;
	/* one summary is its own view (jobview.c): its own start */
	for (size_t i = 0; i < j->nn; i++) {
		const struct sweep_node *nd = &j->nodes[i];
		double s = steps > 1 ? nd->start_ns : nd->own_start_ns;

		start = i == 0 || s < start ? s : start;
		end = dmax(end, nd->end_ns);
	}
	wall = end > start ? (end - start) / 1e9 : 0;
	for (size_t i = 0; i < j->nn; i++) {
		const struct sweep_node *nd = &j->nodes[i];
		struct jobinc_fold f = jobinc_node_fold(&nd->t);
		double n_cpu = f.cpu_s, n_unused = f.unused_mem;
		double n_cpus = f.cpus, n_gpus = f.gpus_idle;

		if (!j->folded) {
			n_cpus = nd->inc_cpus;
			n_cpu = nd->inc_cpu_s;
			n_unused = nd->inc_unused;
			n_gpus = nd->inc_gpus;
		}

		if (q->by == SWEEP_BY_HOST) {
			if (add_waste(q, g, nd->host[0] ? nd->host : "-", j,
				      dmax(n_cpus * wall - n_cpu, 0), n_unused * wall, n_gpus * wall,
				      0) != 0)
				return -1;
			continue;
		}
		cpus += n_cpus;
		cpu_s += n_cpu;
		unused += n_unused;
		gpus += n_gpus;
	}
	if (q->by == SWEEP_BY_HOST)
		return 0;
	if (q->by == SWEEP_BY_TOOL)
		return share_job(q, g, j, dmax(cpus * wall - cpu_s, 0), unused * wall, gpus * wall);
	return add_waste(q, g, j->group, j, dmax(cpus * wall - cpu_s, 0), unused * wall, gpus * wall,
			 0);
}

cJSON *sweep_acc_answer(struct sweep_acc *a)
{
	struct groups g = {0};
	cJSON *ans;

	for (size_t i = 0; i < a->cap; i++)
		if (a->slots[i] && fold_job(&a->q, &g, a->slots[i]) != 0) {
			for (size_t k = 0; k < g.n; k++) {
				free(g.rows[k].key);
				free(g.rows[k].worst);
			}
			free(g.rows);
			free(g.index);
			return NULL;
		}
	free(g.index);
	ans = sweep_answer(&a->q, "archive", g.rows, g.n);
	free(g.rows);
	return ans;
}

bool sweep_acc_full(const struct sweep_acc *a)
{
	return a->full;
}

void sweep_acc_free(struct sweep_acc *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->cap; i++) {
		struct sweep_job *j = a->slots[i];

		if (!j)
			continue;
		for (size_t k = 0; k < j->nn; k++)
			free(j->nodes[k].host);
		for (size_t k = 0; k < j->nt; k++)
			free(j->tools[k].name);
		free(j->tools);
		free(j->nodes);
		free(j->key);
		free(j->id);
		free(j->group);
		free(j);
	}
	free(a->slots);
	free(a);
}
