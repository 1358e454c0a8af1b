/*
 * tune.c - a step's request for its next run from its past runs
 * (tune.h, docs/tune.md).
 *
 * Why these rules: a request below what a successful run needed fails the
 * next one, so memory never goes under the largest peak of a run that
 * succeeded; an OOM-killed run's peak is only what it reached before the
 * kill, so it counts as at least its allocation x TRACER_TUNE_OOM_FACTOR,
 * and a timed-out run's wall as its limit x TRACER_TUNE_TIMEOUT_FACTOR.
 * p95 rather than the largest so that one outlier does not size every
 * run; the margins cover run-to-run spread.  The work is bounded by the
 * number of runs read (TRACER_TUNE_MAX_RUNS).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "defaults.h"
#include "fargate.h"
#include "tune.h"

#define MiB (1024.0 * 1024.0)
#define GiB (1024.0 * MiB)

void tune_params_init(struct tune_params *p, const struct tracer_config *cfg)
{
	memset(p, 0, sizeof(*p));
	p->min_runs = TRACER_TUNE_MIN_RUNS;
	p->mem_margin = TRACER_TUNE_MEM_MARGIN;
	p->time_margin = TRACER_TUNE_TIME_MARGIN;
	p->oom_factor = TRACER_TUNE_OOM_FACTOR;
	p->timeout_factor = TRACER_TUNE_TIMEOUT_FACTOR;
	if (cfg) {
		p->price_cpu_hour = cfg->price_cpu_hour;
		p->price_gb_hour = cfg->price_gb_hour;
	}
}

static const cJSON *obj(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = obj(o, key);

	if (cJSON_IsNumber(v))
		return v->valuedouble;
	if (cJSON_IsString(v)) /* the ns times are decimal strings */
		return strtod(v->valuestring, NULL);
	return 0;
}

static void copy_str(char *dst, size_t len, const cJSON *o, const char *key)
{
	const cJSON *v = obj(o, key);

	dst[0] = '\0';
	if (cJSON_IsString(v)) {
		strncpy(dst, v->valuestring, len - 1);
		dst[len - 1] = '\0';
	}
}

static enum tune_end end_of(const char *state)
{
	if (!state)
		return TUNE_OTHER;
	if (!strcmp(state, "COMPLETED"))
		return TUNE_OK;
	if (!strcmp(state, "OUT_OF_MEMORY"))
		return TUNE_OOM;
	if (!strcmp(state, "TIMEOUT"))
		return TUNE_TIMEOUT;
	if (!strcmp(state, "FAILED"))
		return TUNE_FAILED;
	return TUNE_OTHER;
}

bool tune_run_from_summary(const cJSON *s, struct tune_run *r)
{
	const cJSON *id = obj(s, "identity"), *alloc = obj(id, "allocation");
	const cJSON *state = obj(s, "state"), *conc, *lt;
	double nodes = num(id, "node_count"), mean;
	bool rolled = cJSON_IsArray(obj(s, "steps")) && cJSON_GetArraySize(obj(s, "steps")) > 1;

	memset(r, 0, sizeof(*r));
	copy_str(r->task, sizeof(r->task), id, "task_name");
	if (!r->task[0] || !cJSON_IsString(state))
		return false;
	copy_str(r->pipeline, sizeof(r->pipeline), id, "pipeline");
	copy_str(r->user, sizeof(r->user), id, "user");
	r->uid = cJSON_IsNumber(obj(id, "uid")) ? (int64_t)num(id, "uid") : -1;
	r->end_ns = (int64_t)num(s, "end_ns");
	r->end = end_of(state->valuestring);
	if (nodes < 1)
		nodes = 1;
	/* a job view's CPUs are every node's: the request is per node */
	r->alloc_cpus = num(alloc, "cpus") / (rolled ? nodes : 1);
	r->alloc_mem = (uint64_t)num(alloc, "mem_bytes");
	r->time_limit_s = num(alloc, "time_limit_s");
	r->peak = (uint64_t)num(obj(s, "memory"), "peak_bytes");
	r->wall_s = num(s, "wall_s");
	r->cpu_s = num(obj(s, "totals"), "cpu_s");
	r->input_bytes = (uint64_t)num(obj(s, "totals"), "rchar");
	lt = obj(obj(id, "labels"), "ecs.launch_type");
	r->fargate = cJSON_IsString(lt) && strcmp(lt->valuestring, "FARGATE") == 0;
	/* one step: its sampled concurrency; a roll-up keeps none, but its
	 * recommendation is made again from the steps' (without history) */
	conc = obj(obj(s, "allocation_use"), "concurrency");
	if (conc)
		r->cpus_needed = num(conc, "p95");
	else if (rolled)
		r->cpus_needed = ceil(num(obj(s, "recommendation"), "cpus") / nodes);
	mean = r->wall_s > 0 ? ceil(r->cpu_s / r->wall_s / nodes - 0.05) : 1;
	if (mean > r->cpus_needed)
		r->cpus_needed = mean;
	if (r->cpus_needed < 1)
		r->cpus_needed = 1;
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double tune_percentile(double *v, size_t n, double pct)
{
	size_t rank;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	/* nearest rank: the smallest value with pct% of them at or below it */
	rank = (size_t)ceil(pct / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

uint64_t tune_round_mem(double bytes)
{
	double step = TRACER_MEM_REQUEST_STEP_MIB * MiB;
	double floor_b = TRACER_MEM_REQUEST_MIN_MIB * MiB;
	double r = ceil(bytes / step) * step;

	if (r < floor_b)
		r = floor_b;
	return (uint64_t)r;
}

bool tune_same_step(const struct tune_run *a, const struct tune_run *b, bool shared)
{
	if (strcmp(a->task, b->task) || strcmp(a->pipeline, b->pipeline))
		return false;
	/* the owner: one user's runs never size another's */
	return shared || (a->uid == b->uid && !strcmp(a->user, b->user));
}

/* the memory a run needed: its peak, or for an OOM kill a lower bound */
static double needed_mem(const struct tune_run *r, const struct tune_params *p)
{
	double m = (double)r->peak;

	if (r->end == TUNE_OOM && (double)r->alloc_mem * p->oom_factor > m)
		m = (double)r->alloc_mem * p->oom_factor;
	return m;
}

static double needed_wall(const struct tune_run *r, const struct tune_params *p)
{
	if (r->end == TUNE_TIMEOUT && r->time_limit_s * p->timeout_factor > r->wall_s)
		return r->time_limit_s * p->timeout_factor;
	return r->wall_s;
}

static void count_ends(struct tune_step *s, const struct tune_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct tune_run *r = &runs[i];

		switch (r->end) {
		case TUNE_OK: s->ok++; break;
		case TUNE_OOM: s->oom++; break;
		case TUNE_TIMEOUT: s->timeout++; break;
		case TUNE_FAILED: s->failed++; break;
		default: s->other++; break;
		}
		s->fargate |= r->fargate;
		if (i == 0 || r->end_ns < s->first_end_ns)
			s->first_end_ns = r->end_ns;
		if (r->end_ns > s->last_end_ns)
			s->last_end_ns = r->end_ns;
		if ((double)r->peak > (double)s->peak_max)
			s->peak_max = r->peak;
		if (r->end == TUNE_OK && r->peak > s->peak_ok_max)
			s->peak_ok_max = r->peak;
		if (r->wall_s > s->wall_max)
			s->wall_max = r->wall_s;
		if (r->time_limit_s > s->time_limit_max)
			s->time_limit_max = r->time_limit_s;
		if (r->input_bytes > s->input_max)
			s->input_max = r->input_bytes;
	}
}

static double spread(const double *v, size_t n)
{
	double mean = 0, var = 0;

	for (size_t i = 0; i < n; i++)
		mean += v[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		var += (v[i] - mean) * (v[i] - mean);
	return mean > 0 ? sqrt(var / (double)n) / mean : 0;
}

/* statistics: p95s of use and of request, the fit of peak on input */
static void stats(struct tune_step *s, const struct tune_run *runs, size_t n,
		  const struct tune_params *p, double *a, double *b)
{
	for (size_t i = 0; i < n; i++)
		a[i] = runs[i].cpus_needed;
	s->cpus_used_p95 = tune_percentile(a, n, 95);
	for (size_t i = 0; i < n; i++)
		a[i] = runs[i].alloc_cpus;
	s->cpus_req_p95 = tune_percentile(a, n, 95);
	for (size_t i = 0; i < n; i++)
		a[i] = (double)runs[i].alloc_mem;
	s->mem_req_p95 = (uint64_t)tune_percentile(a, n, 95);
	for (size_t i = 0; i < n; i++) {
		a[i] = (double)runs[i].input_bytes;
		b[i] = needed_mem(&runs[i], p);
	}
	tune_fit_line(a, b, n, &s->fit);
	s->fit_used = tune_fit_usable(&s->fit);
	s->peak_cv = spread(b, n);
	s->peak_p95 = (uint64_t)tune_percentile(b, n, 95);
	for (size_t i = 0; i < n; i++)
		a[i] = needed_wall(&runs[i], p);
	s->wall_p95 = tune_percentile(a, n, 95);
}

static void request(struct tune_step *s, const struct tune_run *runs, size_t n,
		    const struct tune_params *p)
{
	double mem = (double)s->peak_p95, t;

	s->cpus = (int)ceil(s->cpus_used_p95 - 1e-9);
	if (s->cpus < 1)
		s->cpus = 1;
	/* with a usable fit, the size for the largest input seen */
	if (s->fit_used && s->fit.a + s->fit.b * (double)s->input_max > mem)
		mem = s->fit.a + s->fit.b * (double)s->input_max;
	if ((double)s->peak_ok_max > mem)
		mem = (double)s->peak_ok_max;
	for (size_t i = 0; i < n; i++)
		if (runs[i].end == TUNE_OOM && needed_mem(&runs[i], p) > mem)
			mem = needed_mem(&runs[i], p);
	s->mem_bytes = tune_round_mem(mem * p->mem_margin);
	s->retry_on_oom = s->oom > 0;
	t = ceil(s->wall_p95 * p->time_margin / 60.0) * 60.0;
	s->time_s = t < 60 ? 60 : t;
}

/* What the runs were given minus what this request gives, over their
 * wall: where a run had no allocation of a kind, nothing is counted.  A
 * step on Fargate is given, and billed, the Fargate size that holds the
 * request. */
static void saving(struct tune_step *s, const struct tune_run *runs, size_t n,
		   const struct tune_params *p)
{
	double cpus = s->cpus, mem = (double)s->mem_bytes;
	struct fargate_size fs;

	if (s->fargate && fargate_fit(s->cpus, (uint64_t)(s->mem_bytes / MiB), &fs) == 0) {
		cpus = fs.vcpus;
		mem = (double)fs.mem_mib * MiB;
	}
	for (size_t i = 0; i < n; i++) {
		double h = runs[i].wall_s / 3600.0;

		if (runs[i].alloc_cpus > 0)
			s->core_h_saved += (runs[i].alloc_cpus - cpus) * h;
		if (runs[i].alloc_mem > 0)
			s->gb_h_saved += ((double)runs[i].alloc_mem - mem) / GiB * h;
	}
	s->has_cost = p->price_cpu_hour > 0 || p->price_gb_hour > 0;
	if (s->has_cost)
		s->cost_saved = s->core_h_saved * p->price_cpu_hour +
				s->gb_h_saved * p->price_gb_hour;
}

void tune_step_compute(struct tune_step *s, const struct tune_run *runs, size_t n,
		       const struct tune_params *p)
{
	double *a, *b;

	memset(s, 0, sizeof(*s));
	s->uid = -1;
	s->confidence = "low";
	if (n == 0)
		return;
	memcpy(s->task, runs[0].task, sizeof(s->task));
	memcpy(s->pipeline, runs[0].pipeline, sizeof(s->pipeline));
	if (!p->shared) {
		memcpy(s->user, runs[0].user, sizeof(s->user));
		s->uid = runs[0].uid;
	}
	s->runs = (int)n;
	count_ends(s, runs, n);
	a = calloc(n, sizeof(*a));
	b = calloc(n, sizeof(*b));
	if (a && b) {
		stats(s, runs, n, p, a, b);
		request(s, runs, n, p);
		saving(s, runs, n, p);
	}
	free(a);
	free(b);
	if (n >= 10 && s->peak_cv <= 0.25)
		s->confidence = "high";
	else if (n >= 3 && s->peak_cv <= 0.5)
		s->confidence = "medium";
}

static int cmp_run(const void *x, const void *y)
{
	const struct tune_run *a = x, *b = y;
	int c = strcmp(a->pipeline, b->pipeline);

	if (!c)
		c = strcmp(a->task, b->task);
	if (!c)
		c = strcmp(a->user, b->user);
	if (!c)
		c = (a->uid > b->uid) - (a->uid < b->uid);
	if (!c)
		c = (a->end_ns > b->end_ns) - (a->end_ns < b->end_ns);
	return c;
}

int tune_steps(const struct tune_run *runs, size_t n, const struct tune_params *p,
	       struct tune_step **out, size_t *nout)
{
	struct tune_run *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	struct tune_step *steps = calloc(n ? n : 1, sizeof(*steps));
	size_t k = 0;

	*out = NULL;
	*nout = 0;
	if (!sorted || !steps) {
		free(sorted);
		free(steps);
		return -1;
	}
	memcpy(sorted, runs, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_run);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && tune_same_step(&sorted[i], &sorted[j], p->shared))
			j++;
		if ((int)(j - i) >= p->min_runs)
			tune_step_compute(&steps[k++], &sorted[i], j - i, p);
		i = j;
	}
	free(sorted);
	*out = steps;
	*nout = k;
	return 0;
}
