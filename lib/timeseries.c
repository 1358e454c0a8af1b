/* timeseries.c - see timeseries.h. */
#include "timeseries.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SERIES_FIRST_CAP 64

/* Halve the resolution: points 2i and 2i+1 become point i. */
static void halve(struct job_series *s)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i + 1 < s->n; i += 2, k++) {
		struct series_point a = s->p[i], b = s->p[i + 1];
		s->p[k] = b;
		if (a.mem_kib > b.mem_kib)
			s->p[k].mem_kib = a.mem_kib;
	}
	if (s->n % 2)
		s->p[k++] = s->p[s->n - 1];
	s->n = k;
	s->stride *= 2;
}

static int push(struct job_series *s, const struct series_point *pt)
{
	/* one place left for the point being filled (timeseries_json) */
	if (s->n + 1 >= SERIES_MAX_POINTS)
		halve(s);
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : SERIES_FIRST_CAP;
		struct series_point *p;

		if (cap > SERIES_MAX_POINTS)
			cap = SERIES_MAX_POINTS;
		p = realloc(s->p, cap * sizeof(*p));
		if (!p)
			return -1;
		s->p = p;
		s->cap = cap;
	}
	s->p[s->n++] = *pt;
	return 0;
}

void timeseries_note(struct job_series **sp, uint64_t start_ns, uint64_t now_ns,
		     uint64_t cpu_ns, uint64_t mem_bytes)
{
	struct job_series *s = *sp;
	uint64_t t_ms, kib = mem_bytes / 1024;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return;
		s->start_ns = start_ns;
		s->stride = 1;
		*sp = s;
	}
	t_ms = now_ns > s->start_ns ? (now_ns - s->start_ns) / 1000000 : 0;
	if (t_ms > UINT32_MAX)
		t_ms = UINT32_MAX;
	if (s->pending == 0 || kib > s->next.mem_kib)
		s->next.mem_kib = kib > UINT32_MAX ? UINT32_MAX : (uint32_t)kib;
	/* never backwards, whatever the clock or a sampling budget did */
	s->next.t_ms = s->n && t_ms < s->p[s->n - 1].t_ms ? s->p[s->n - 1].t_ms : (uint32_t)t_ms;
	s->next.cpu_ns = s->n && cpu_ns < s->p[s->n - 1].cpu_ns ? s->p[s->n - 1].cpu_ns : cpu_ns;
	if (++s->pending < s->stride)
		return;
	if (push(s, &s->next) == 0)
		s->pending = 0;
	else
		s->pending--; /* retried at the next sample */
}

void timeseries_free(struct job_series *s)
{
	if (!s)
		return;
	free(s->p);
	free(s);
}

static double round3(double v)
{
	return round(v * 1000) / 1000;
}

cJSON *timeseries_json(const struct job_series *s, uint32_t sample_interval_ms)
{
	cJSON *o, *t, *cpu, *mem;
	uint32_t n;
	const struct series_point *prev = NULL;
	struct series_point zero = {0};

	if (!s || (s->n == 0 && s->pending == 0))
		return NULL;
	n = s->n + (s->pending ? 1 : 0);
	o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "interval_s", (double)sample_interval_ms * s->stride / 1000);
	cJSON_AddNumberToObject(o, "points", n);
	t = cJSON_AddArrayToObject(o, "t_s");
	cpu = cJSON_AddArrayToObject(o, "cpu_cores");
	mem = cJSON_AddArrayToObject(o, "mem_bytes");
	if (!t || !cpu || !mem) {
		cJSON_Delete(o);
		return NULL;
	}
	prev = &zero;
	for (uint32_t i = 0; i < n; i++) {
		const struct series_point *pt = i < s->n ? &s->p[i] : &s->next;
		uint32_t dt = pt->t_ms - prev->t_ms;
		double cores = dt ? (double)(pt->cpu_ns - prev->cpu_ns) / 1e6 / dt : 0;

		cJSON_AddItemToArray(t, cJSON_CreateNumber(pt->t_ms / 1000.0));
		cJSON_AddItemToArray(cpu, cJSON_CreateNumber(round3(cores)));
		cJSON_AddItemToArray(mem, cJSON_CreateNumber((double)pt->mem_kib * 1024));
		prev = pt;
	}
	return o;
}
