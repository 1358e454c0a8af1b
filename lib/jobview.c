/*
 * jobview.c - one job across its steps and nodes (jobview.h).
 *
 * A step shares its job's allocation: on one node the batch step and the
 * srun steps run in the same allocation, so the job's allocation is
 * counted once per node (the largest any of the node's steps reports) and
 * summed over the nodes, never summed over the steps.  Peak memory per
 * node is the largest of its steps' peaks, a step's cgroup peak counted
 * when larger (as sacct's MaxRSS and seff take the largest step); memory
 * efficiency is the largest node's peak against the per-node request, as
 * seff computes it.  CPU efficiency is the CPU time of every step on
 * every node over (allocated CPUs of the job x its elapsed time), as
 * seff.  The steps' process trees are not repeated in the job view (their
 * pids are per node and per step): `tracer show JOB.STEP` shows each.
 */
#include "jobview.h"

#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cost.h"
#include "hostinfo.h"
#include "identity.h"
#include "job_record.h"
#include "jobfilter.h"
#include "json.h"

/* One node of the job: what its steps add up to. */
struct node_part {
	const char *name;
	double alloc_cpus, alloc_mem, time_limit; /* the largest of its steps' */
	double peak, cpu_s;
	double host_cpus, host_mem;
	int conc_p95; /* the largest of its steps' concurrency p95 */
	int steps;
};

int jobview_state_rank(const char *state)
{
	static const char *const order[] = {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT",
					    "OUT_OF_MEMORY"};

	for (int i = 0; state && i < (int)(sizeof(order) / sizeof(order[0])); i++)
		if (!strcmp(state, order[i]))
			return i + 1;
	return 0;
}

static const cJSON *obj(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *str(const cJSON *o, const char *key)
{
	return json_get_str(o, key, NULL);
}

static double num(const cJSON *o, const char *key)
{
	return json_get_num(o, key, 0);
}

/* epoch ns: a decimal string (summaries write them so) or a number */
static int64_t ns_of(const cJSON *s, const char *key)
{
	const char *t = str(s, key);

	return t ? strtoll(t, NULL, 10) : (int64_t)num(s, key);
}

static bool eq_or_both_absent(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

bool jobview_same_job(const cJSON *a, const cJSON *b)
{
	const cJSON *ia = obj(a, "identity"), *ib = obj(b, "identity");
	const char *ja = str(ia, "job_id"), *jb = str(ib, "job_id");

	if (!ja || !jb)
		return !ja && !jb && eq_or_both_absent(str(a, "job"), str(b, "job"));
	/* the scheduler too: a job id a user gives a local job is no Slurm job */
	return !strcmp(ja, jb) && eq_or_both_absent(str(ia, "cluster"), str(ib, "cluster")) &&
	       eq_or_both_absent(str(ia, "scheduler"), str(ib, "scheduler"));
}

static int by_start(const void *x, const void *y)
{
	int64_t a = ns_of(*(const cJSON *const *)x, "start_ns");
	int64_t b = ns_of(*(const cJSON *const *)y, "start_ns");

	return a < b ? -1 : a > b;
}

/* a step's own peak: its concurrent RSS peak or its cgroup's, the larger */
static double step_peak(const cJSON *s)
{
	const cJSON *m = obj(s, "memory");
	double p = num(m, "peak_bytes"), c = num(m, "cgroup_peak_bytes");

	return c > p ? c : p;
}

static const char *step_host(const cJSON *s)
{
	const char *h = job_filter_node_of(s);

	return h ? h : "?";
}

static double dmax(double a, double b)
{
	return a > b ? a : b;
}

/* The nodes of the sorted steps, in the order they first appear. */
static size_t node_parts(const cJSON *const *v, size_t n, struct node_part *p)
{
	size_t np = 0;

	for (size_t i = 0; i < n; i++) {
		const cJSON *alloc = obj(obj(v[i], "identity"), "allocation");
		const cJSON *host = obj(v[i], "host");
		const char *h = step_host(v[i]);
		size_t k;
		double conc = num(obj(obj(v[i], "allocation_use"), "concurrency"), "p95");

		for (k = 0; k < np && strcmp(p[k].name, h); k++)
			;
		if (k == np)
			p[np++] = (struct node_part){.name = h};
		p[k].alloc_cpus = dmax(p[k].alloc_cpus, num(alloc, "cpus"));
		p[k].alloc_mem = dmax(p[k].alloc_mem, num(alloc, "mem_bytes"));
		p[k].time_limit = dmax(p[k].time_limit, num(alloc, "time_limit_s"));
		p[k].peak = dmax(p[k].peak, step_peak(v[i]));
		p[k].cpu_s += num(obj(v[i], "totals"), "cpu_s");
		p[k].host_cpus = dmax(p[k].host_cpus, num(host, "cpus"));
		p[k].host_mem = dmax(p[k].host_mem, num(host, "mem_bytes"));
		if (conc > p[k].conc_p95)
			p[k].conc_p95 = (int)conc;
		p[k].steps++;
	}
	return np;
}

static void put(cJSON *o, const char *key, cJSON *item)
{
	if (!item)
		return;
	if (cJSON_HasObjectItem(o, key))
		cJSON_ReplaceItemInObjectCaseSensitive(o, key, item);
	else
		cJSON_AddItemToObject(o, key, item);
}

static void put_num(cJSON *o, const char *key, double v)
{
	put(o, key, cJSON_CreateNumber(v));
}

static void put_str(cJSON *o, const char *key, const char *v)
{
	put(o, key, cJSON_CreateString(v));
}

static void put_ns(cJSON *o, const char *key, int64_t ns)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	json_add_u64_text(o, key, ns > 0 ? (uint64_t)ns : 0);
}

static cJSON *steps_json(const cJSON *const *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; a && i < n; i++) {
		const cJSON *id = obj(v[i], "identity"), *alloc = obj(id, "allocation");
		const cJSON *code = obj(obj(v[i], "exit"), "code");
		cJSON *e = cJSON_CreateObject();

		if (!e || !cJSON_AddItemToArray(a, e)) {
			cJSON_Delete(e);
			break;
		}
		if (str(v[i], "summary_id"))
			put_str(e, "summary_id", str(v[i], "summary_id"));
		if (str(v[i], "job"))
			put_str(e, "job", str(v[i], "job"));
		if (str(id, "step_id"))
			put_str(e, "step_id", str(id, "step_id"));
		put_str(e, "host", step_host(v[i]));
		put_ns(e, "start_ns", ns_of(v[i], "start_ns"));
		put_ns(e, "end_ns", ns_of(v[i], "end_ns"));
		put_num(e, "wall_s", num(v[i], "wall_s"));
		put_num(e, "cpu_s", num(obj(v[i], "totals"), "cpu_s"));
		put_num(e, "mem_peak_bytes", step_peak(v[i]));
		if (str(v[i], "state"))
			put_str(e, "state", str(v[i], "state"));
		put(e, "exit_code", cJSON_IsNumber(code) ? cJSON_CreateNumber(code->valuedouble)
							 : cJSON_CreateNull());
		put_num(e, "alloc_cpus", num(alloc, "cpus"));
		put_num(e, "alloc_mem_bytes", num(alloc, "mem_bytes"));
		put_num(e, "processes", num(obj(v[i], "processes"), "total"));
	}
	return a;
}

static cJSON *hosts_json(const struct node_part *p, size_t np)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t k = 0; a && k < np; k++) {
		cJSON *e = cJSON_CreateObject();

		if (!e || !cJSON_AddItemToArray(a, e)) {
			cJSON_Delete(e);
			break;
		}
		put_str(e, "hostname", p[k].name);
		put_num(e, "steps", p[k].steps);
		put_num(e, "cpu_s", p[k].cpu_s);
		put_num(e, "mem_peak_bytes", p[k].peak);
		put_num(e, "alloc_cpus", p[k].alloc_cpus);
		put_num(e, "alloc_mem_bytes", p[k].alloc_mem);
	}
	return a;
}

/* Add "scope", "steps" and "hosts" to view. */
static void add_scope(cJSON *view, const cJSON *const *v, size_t n, const struct node_part *p,
		      size_t np)
{
	put_str(view, "scope", "job");
	put(view, "steps", steps_json(v, n));
	put(view, "hosts", hosts_json(p, np));
}

/* the first of the worst state: the job's state and exit */
static const cJSON *worst_step(const cJSON *const *v, size_t n)
{
	const cJSON *w = v[0];

	for (size_t i = 1; i < n; i++)
		if (jobview_state_rank(str(v[i], "state")) > jobview_state_rank(str(w, "state")))
			w = v[i];
	return w;
}

/* Sum the object key of every step into view's (a copy of the first's). */
static void sum_key(cJSON *view, const cJSON *const *v, size_t n, const char *key,
		    const char *const *max_keys)
{
	cJSON *into = cJSON_GetObjectItemCaseSensitive(view, key);

	if (!cJSON_IsObject(into))
		return;
	for (size_t i = 1; i < n; i++)
		jobview_sum_into(into, obj(v[i], key), max_keys);
}

static double sum_num(const cJSON *const *v, size_t n, const char *key)
{
	double t = 0;

	for (size_t i = 0; i < n; i++)
		t += num(v[i], key);
	return t;
}

static void roll_memory(cJSON *view, const cJSON *const *v, size_t n, const struct node_part *p,
			size_t np)
{
	cJSON *m = cJSON_CreateObject();
	double peak = 0, req = 0, cg = 0, cg_cpu = 0, samples = 0;
	bool have_cg = false;

	if (!m)
		return;
	for (size_t k = 0; k < np; k++) {
		peak = dmax(peak, p[k].peak);
		req = dmax(req, p[k].alloc_mem);
	}
	for (size_t i = 0; i < n; i++) {
		const cJSON *sm = obj(v[i], "memory");

		samples += num(sm, "samples");
		if (cJSON_HasObjectItem(sm, "cgroup_peak_bytes")) {
			have_cg = true;
			cg = dmax(cg, num(sm, "cgroup_peak_bytes"));
			cg_cpu += num(sm, "cgroup_cpu_s");
		}
	}
	put_num(m, "peak_bytes", peak);
	put_num(m, "samples", samples);
	if (req > 0) {
		put_num(m, "allocated_bytes", req);
		put_num(m, "efficiency", peak / req);
	}
	if (have_cg) {
		put_num(m, "cgroup_peak_bytes", cg);
		put_num(m, "cgroup_cpu_s", cg_cpu);
	}
	put(view, "memory", m);
}

/* identity and host of the job as a whole */
static void roll_identity(cJSON *view, const struct node_part *p, size_t np,
			  double *cpus, double *mem_node, double *mem_all)
{
	cJSON *id = cJSON_GetObjectItemCaseSensitive(view, "identity");
	cJSON *alloc = cJSON_GetObjectItemCaseSensitive(id, "allocation");
	cJSON *host = cJSON_GetObjectItemCaseSensitive(view, "host");
	double tl = 0, hc = 0, hm = 0;
	size_t len = 1;
	char *names;

	*cpus = *mem_node = *mem_all = 0;
	for (size_t k = 0; k < np; k++) {
		*cpus += p[k].alloc_cpus;
		*mem_node = dmax(*mem_node, p[k].alloc_mem);
		*mem_all += p[k].alloc_mem;
		tl = dmax(tl, p[k].time_limit);
		hc += p[k].host_cpus;
		hm += p[k].host_mem;
		len += strlen(p[k].name) + 1;
	}
	static const char *const per_step[] = {"step_id", "node_id", "local_task_id",
					       "global_task_id"};
	for (size_t i = 0; i < sizeof(per_step) / sizeof(per_step[0]); i++)
		cJSON_DeleteItemFromObjectCaseSensitive(id, per_step[i]);
	put_num(id, "node_count", (double)np);
	if (cJSON_IsObject(alloc)) {
		cJSON_DeleteItemFromObjectCaseSensitive(alloc, "cpuset");
		if (*cpus > 0)
			put_num(alloc, "cpus", *cpus);
		if (*mem_node > 0)
			put_num(alloc, "mem_bytes", *mem_node);
		if (tl > 0)
			put_num(alloc, "time_limit_s", tl);
		put_num(alloc, "nodes", (double)np);
	}
	if (np < 2 || !cJSON_IsObject(host) || !(names = calloc(1, len)))
		return;
	for (size_t k = 0; k < np; k++) {
		if (k)
			strcat(names, ",");
		strcat(names, p[k].name);
	}
	put_str(host, "hostname", names);
	free(names);
	put_num(host, "cpus", hc);
	put_num(host, "mem_bytes", hm);
	cJSON_DeleteItemFromObjectCaseSensitive(host, "cores");
	cJSON_DeleteItemFromObjectCaseSensitive(host, "sockets");
	cJSON_DeleteItemFromObjectCaseSensitive(host, "numa_nodes");
}

/* delay accounting of every step: its block I/O wait summed */
static void roll_blocked(cJSON *view, const cJSON *const *v, size_t n)
{
	cJSON *b = cJSON_CreateObject();
	bool on = true;
	double io = 0;

	for (size_t i = 0; i < n; i++) {
		const cJSON *sb = obj(v[i], "blocked");

		on = on && eq_or_both_absent(str(sb, "delay_accounting"), "on");
		io += num(sb, "blkio_delay_s");
	}
	if (!b)
		return;
	put_str(b, "delay_accounting", on ? "on" : "off");
	if (on)
		put_num(b, "blkio_delay_s", io);
	put(view, "blocked", b);
}

/* the longest stall any step reported */
static double stalled_s(const cJSON *const *v, size_t n)
{
	double m = 0;

	for (size_t i = 0; i < n; i++) {
		const cJSON *f;

		cJSON_ArrayForEach(f, obj(v[i], "flags"))
			if (eq_or_both_absent(str(f, "id"), "stalled"))
				m = dmax(m, num(obj(f, "evidence"), "stalled_s"));
	}
	return m;
}

/* The cost once: the allocation of each node over the job's elapsed time
 * (cost_add with the job's CPUs and every node's memory), the used part
 * the steps' used parts summed when each step has one. */
static void roll_cost(cJSON *view, struct job *j, int cpus, double mem_all,
		      const struct tracer_config *cfg, const cJSON *const *v, size_t n)
{
	double used = 0, was, total;
	cJSON *c, *t;

	cJSON_DeleteItemFromObjectCaseSensitive(view, "cost");
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(view, "tools"))
		cJSON_DeleteItemFromObjectCaseSensitive(t, "cost");
	j->id.alloc.mem_bytes = (uint64_t)mem_all;
	cost_add(view, j, cpus, cfg);
	c = cJSON_GetObjectItemCaseSensitive(view, "cost");
	if (!c)
		return;
	for (size_t i = 0; i < n; i++) {
		const cJSON *sc = obj(v[i], "cost");

		if (!cJSON_HasObjectItem(sc, "used"))
			return;
		used += num(sc, "used");
	}
	was = num(c, "used");
	total = num(c, "total");
	put_num(c, "used", used);
	put_num(c, "unused", total > used ? total - used : 0);
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(view, "tools"))
		if (was > 0)
			put_num(t, "cost", num(t, "cost") * used / was);
}

/* Flags, request and cost for the job, by the analysis of one summary. */
static void roll_answers(cJSON *view, const cJSON *const *v, size_t n, const struct node_part *p,
			 size_t np, double cpus, double mem_node, double mem_all,
			 const struct tracer_config *cfg)
{
	struct tracer_identity id;
	struct host_info hi = {0};
	char err[128];
	struct job *j;
	int conc = 0;

	identity_init(&id);
	identity_from_json(cJSON_GetObjectItemCaseSensitive(view, "identity"), &id, err,
			   sizeof(err));
	id.alloc.cpus = (int)cpus;
	id.alloc.mem_bytes = (uint64_t)mem_node;
	id.alloc.cpuset[0] = '\0';
	j = job_new(str(view, "job") ? str(view, "job") : "job", &id, 1);
	if (!j)
		return;
	for (size_t k = 0; k < np; k++) {
		hi.cpus += (int)p[k].host_cpus;
		conc += p[k].conc_p95;
	}
	if (conc > 0) { /* the job's concurrency: each node's at once */
		j->cpu_samples = 1;
		j->conc_hist[conc < JOB_CONC_MAX ? conc : JOB_CONC_MAX] = 1;
	}
	j->oom_kills = (uint64_t)sum_num(v, n, "oom_kills");
	j->stalled_max_ns = (uint64_t)(stalled_s(v, n) * 1e9);
	static const char *const remade[] = {"flags", "recommendation", "cost"};
	for (size_t i = 0; i < sizeof(remade) / sizeof(remade[0]); i++)
		cJSON_DeleteItemFromObjectCaseSensitive(view, remade[i]);
	analysis_add_rollup(view, j, &hi, cfg);
	roll_cost(view, j, (int)cpus, mem_all, cfg, v, n);
	job_free(j);
}

/* Fields that describe one step on one node only. */
static void drop_per_step(cJSON *view)
{
	static const char *const keys[] = {
		"allocation_use", "cgroup_limits", "cgroup_io", "timeseries", "gpu",
		"gpu_counting", "containers", "containers_not_listed", "docker_joins",
		"registrant", "recovered", "oom"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		cJSON_DeleteItemFromObjectCaseSensitive(view, keys[i]);
	put(view, "process_tree", cJSON_CreateArray());
	put(view, "block_devices", cJSON_CreateArray());
}

static void roll_up(cJSON *view, const cJSON *const *v, size_t n, const struct node_part *p,
		    size_t np, const struct tracer_config *cfg)
{
	static const char *const peaks[] = {"max_rss_bytes", "peak_rss_bytes", NULL};
	int64_t start = ns_of(v[0], "start_ns"), end = 0;
	const cJSON *w = worst_step(v, n);
	double cpus, mem_node, mem_all, wall, cpu;
	bool incomplete = false;

	for (size_t i = 0; i < n; i++) {
		int64_t e = ns_of(v[i], "end_ns");
		/* the scheduler's start of the whole job, when known: the time
		 * before the first step (an salloc waiting for its first srun)
		 * is allocated too, and sacct's Elapsed counts it */
		int64_t js = ns_of(obj(v[i], "identity"), "job_start_ns");

		if (js > 0 && js < start)
			start = js;
		end = e > end ? e : end;
		incomplete = incomplete || cJSON_IsTrue(obj(v[i], "incomplete"));
	}
	wall = end > start ? (double)(end - start) / 1e9 : 0;
	drop_per_step(view);
	for (size_t i = 0; i < n; i++)
		if (obj(v[i], "oom")) {
			put(view, "oom", cJSON_Duplicate(obj(v[i], "oom"), 1));
			break;
		}
	if (str(obj(view, "identity"), "job_id"))
		put_str(view, "job", str(obj(view, "identity"), "job_id"));
	cJSON_DeleteItemFromObjectCaseSensitive(view, "start");
	cJSON_DeleteItemFromObjectCaseSensitive(view, "end");
	json_add_time(view, "start", (uint64_t)start);
	json_add_time(view, "end", (uint64_t)end);
	put_ns(view, "start_ns", start);
	put_ns(view, "end_ns", end);
	put_num(view, "wall_s", wall);
	put(view, "exit", cJSON_Duplicate(obj(w, "exit"), 1));
	if (str(w, "state"))
		put_str(view, "state", str(w, "state"));
	sum_key(view, v, n, "totals", peaks);
	sum_key(view, v, n, "processes", NULL);
	sum_key(view, v, n, "drops", NULL);
	put_num(view, "oom_kills", sum_num(v, n, "oom_kills"));
	if (cJSON_HasObjectItem(view, "incomplete"))
		put(view, "incomplete", cJSON_CreateBool(incomplete));
	roll_memory(view, v, n, p, np);
	roll_blocked(view, v, n);
	roll_identity(view, p, np, &cpus, &mem_node, &mem_all);
	cpu = num(obj(view, "totals"), "cpu_s");
	if (cpus > 0) {
		put_num(view, "cpu_efficiency", wall > 0 ? cpu / (cpus * wall) : 0);
		put_str(view, "cpu_efficiency_basis", "allocation");
	} else {
		double hc = num(obj(view, "host"), "cpus");

		put_num(view, "cpu_efficiency", wall > 0 && hc > 0 ? cpu / (hc * wall) : 0);
		put_str(view, "cpu_efficiency_basis", "host");
	}
	{
		cJSON *steps = cJSON_CreateArray();

		for (size_t i = 0; steps && i < n; i++)
			cJSON_AddItemReferenceToArray(steps, (cJSON *)v[i]);
		put(view, "tools", jobview_tools(steps, wall, cpus > 0 ? cpus : num(obj(view, "host"), "cpus")));
		cJSON_Delete(steps);
	}
	roll_answers(view, v, n, p, np, cpus, mem_node, mem_all, cfg);
}

cJSON *jobview_build(const cJSON *steps, const struct tracer_config *cfg)
{
	size_t n = (size_t)cJSON_GetArraySize(steps), np, i = 0;
	const cJSON **v, *s;
	struct node_part *p;
	cJSON *view = NULL;

	if (n == 0)
		return NULL;
	v = calloc(n, sizeof(*v));
	p = calloc(n, sizeof(*p));
	if (!v || !p)
		goto out;
	cJSON_ArrayForEach(s, steps)
		v[i++] = s;
	qsort(v, n, sizeof(*v), by_start);
	np = node_parts(v, n, p);
	view = cJSON_Duplicate(v[0], 1);
	if (!view)
		goto out;
	if (n > 1)
		roll_up(view, v, n, p, np, cfg);
	add_scope(view, v, n, p, np);
out:
	free(v);
	free(p);
	return view;
}
