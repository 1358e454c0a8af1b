/*
 * sweep_idle.c - the sweep's idle hosts (sweep.h): the idle_host records
 * tracerd makes when a host's period with no job ends (docs/schema.md,
 * "Idle hosts"), summed per host over the window - from the archive,
 * folded here one record at a time, or from the datalake's
 * tracer.idle_hosts (schema v5), summed by ClickHouse with the same
 * rule: the part of each period inside the window (a period that began
 * before it counts from its start), a record delivered twice once.  For
 * an EC2 host these are its instance-hours with no job.
 */
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clickhouse.h"
#include "datalake_read.h"
#include "json.h"
#include "summary.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

struct sweep_idle_host {
	char *host, *cluster, *instance_id, *instance_type;
	double periods, idle_s, busy_s, cpus, mem_bytes, cost;
	bool priced;
};

struct sweep_idle {
	double from_s;
	int limit;
	struct sweep_idle_host *v;
	size_t n, cap;
	size_t *index; /* open addressing on host: entry + 1, 0 empty */
	size_t icap;
	bool full;     /* hosts left out: TRACER_SWEEP_HOSTS_MAX held */
};

struct sweep_idle *sweep_idle_new(const struct sweep_query *q)
{
	struct sweep_idle *a = calloc(1, sizeof(*a));

	if (a) {
		a->from_s = floor(q->from_s);
		a->limit = q->limit;
	}
	return a;
}

void sweep_idle_free(struct sweep_idle *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].host);
		free(a->v[i].cluster);
		free(a->v[i].instance_id);
		free(a->v[i].instance_type);
	}
	free(a->v);
	free(a->index);
	free(a);
}

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static size_t *slot_of(size_t *index, size_t icap, const struct sweep_idle_host *v,
		       const char *host)
{
	size_t i = hash(host) & (icap - 1);

	while (index[i] && strcmp(v[index[i] - 1].host, host) != 0)
		i = (i + 1) & (icap - 1);
	return &index[i];
}

/* room for one more host, the index at most half full: 0, -1 */
static int room(struct sweep_idle *a)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		struct sweep_idle_host *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -1;
		a->v = v;
		a->cap = cap;
	}
	if ((a->n + 1) * 2 > a->icap) {
		size_t icap = a->icap ? a->icap * 2 : 64;
		size_t *ix = calloc(icap, sizeof(*ix));

		if (!ix)
			return -1;
		for (size_t i = 0; i < a->n; i++)
			*slot_of(ix, icap, a->v, a->v[i].host) = i + 1;
		free(a->index);
		a->index = ix;
		a->icap = icap;
	}
	return 0;
}

/* the host's entry, made when new; NULL when out of memory or full */
static struct sweep_idle_host *host_of(struct sweep_idle *a, const char *host)
{
	struct sweep_idle_host *h;
	size_t *slot;

	if (a->icap && *(slot = slot_of(a->index, a->icap, a->v, host)))
		return &a->v[*slot - 1];
	if (a->n >= TRACER_SWEEP_HOSTS_MAX) {
		a->full = true;
		return NULL;
	}
	if (room(a) != 0)
		return NULL;
	h = &a->v[a->n];
	memset(h, 0, sizeof(*h));
	if (!(h->host = strdup(host)))
		return NULL;
	*slot_of(a->index, a->icap, a->v, host) = ++a->n;
	return h;
}

/* a string member kept when the entry has none yet */
static int keep_str(char **dst, const char *s)
{
	if (*dst || !s || !*s)
		return 0;
	*dst = strdup(s);
	return *dst ? 0 : -1;
}

static double ns_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? strtod(v->valuestring, NULL) : json_get_num(o, key, 0);
}

int sweep_idle_add(struct sweep_idle *a, const cJSON *rec)
{
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(rec, "host");
	const cJSON *ec2 = cJSON_GetObjectItemCaseSensitive(rec, "ec2");
	const cJSON *cost = cJSON_GetObjectItemCaseSensitive(rec, "cost");
	const char *name = json_get_str(host, "hostname", NULL);
	double start = ns_of(rec, "start_ns") / 1e9, end = ns_of(rec, "end_ns") / 1e9, secs;
	double price = json_get_num(cost, "price_hour", 0);
	struct sweep_idle_host *h;

	/* whole seconds, as the datalake's DateTime column compares */
	if (floor(end) < a->from_s || end <= start)
		return 0;
	secs = end - (start > a->from_s ? start : a->from_s);
	h = host_of(a, name && *name ? name : "-");
	if (!h)
		return a->full ? 0 : -1;
	h->periods++;
	h->idle_s += secs;
	h->busy_s += secs * json_get_num(rec, "cpu_share_busy", 0);
	h->cpus = fmax(h->cpus, json_get_num(host, "cpus", 0));
	h->mem_bytes = fmax(h->mem_bytes, json_get_num(host, "mem_bytes", 0));
	h->cost += secs / 3600 * price;
	h->priced = h->priced || price > 0;
	if (keep_str(&h->cluster, json_get_str(rec, "cluster", NULL)) != 0 ||
	    keep_str(&h->instance_id, json_get_str(ec2, "instance_id", NULL)) != 0 ||
	    keep_str(&h->instance_type, json_get_str(ec2, "instance_type", NULL)) != 0)
		return -1;
	return 0;
}

bool sweep_idle_full(const struct sweep_idle *a)
{
	return a->full;
}

static int by_idle(const void *x, const void *y)
{
	const struct sweep_idle_host *a = x, *b = y;

	if (a->idle_s != b->idle_s)
		return a->idle_s > b->idle_s ? -1 : 1;
	return strcmp(a->host, b->host);
}

static double round6(double v)
{
	return round(v * 1e6) / 1e6;
}

static cJSON *host_json(const struct sweep_idle_host *h)
{
	cJSON *o = cJSON_CreateObject();
	double hours = h->idle_s / 3600;

	if (!o)
		return NULL;
	json_add_str(o, "host", h->host);
	json_add_str(o, "cluster", h->cluster ? h->cluster : "-");
	json_add_u64(o, "periods", (uint64_t)h->periods);
	cJSON_AddNumberToObject(o, "idle_hours", round6(hours));
	cJSON_AddNumberToObject(o, "cpus", h->cpus);
	cJSON_AddNumberToObject(o, "idle_core_hours", round6(hours * h->cpus));
	cJSON_AddNumberToObject(o, "mem_gib", round6(h->mem_bytes / GIB));
	cJSON_AddNumberToObject(o, "cpu_share_busy",
				round6(h->idle_s > 0 ? h->busy_s / h->idle_s : 0));
	if (h->instance_id || h->instance_type) {
		cJSON *e = cJSON_AddObjectToObject(o, "ec2");

		if (e && h->instance_id)
			json_add_str(e, "instance_id", h->instance_id);
		if (e && h->instance_type)
			json_add_str(e, "instance_type", h->instance_type);
		cJSON_AddNumberToObject(o, "instance_hours_without_job", round6(hours));
	}
	if (h->priced)
		cJSON_AddNumberToObject(o, "cost", round6(h->cost));
	return o;
}

cJSON *sweep_idle_answer(struct sweep_idle *a)
{
	cJSON *o = cJSON_CreateObject(), *rows;
	double hours = 0, inst = 0, cost = 0;
	bool priced = false, ok;

	if (!o)
		return NULL;
	qsort(a->v, a->n, sizeof(*a->v), by_idle);
	for (size_t i = 0; i < a->n; i++) {
		hours += a->v[i].idle_s / 3600;
		if (a->v[i].instance_id || a->v[i].instance_type)
			inst += a->v[i].idle_s / 3600;
		cost += a->v[i].cost;
		priced = priced || a->v[i].priced;
	}
	json_add_u64(o, "hosts", a->n);
	cJSON_AddNumberToObject(o, "idle_hours", round6(hours));
	cJSON_AddNumberToObject(o, "instance_hours_without_job", round6(inst));
	if (priced)
		cJSON_AddNumberToObject(o, "cost", round6(cost));
	rows = cJSON_AddArrayToObject(o, "rows");
	ok = rows != NULL;
	for (size_t i = 0; ok && i < a->n && i < (size_t)a->limit; i++) {
		cJSON *r = host_json(&a->v[i]);

		ok = r && cJSON_AddItemToArray(rows, r);
	}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

double sweep_idle_hours_of(const struct sweep_idle *a, const char *host)
{
	size_t *slot;

	if (!a->icap || !*(slot = slot_of(a->index, a->icap, a->v, host)))
		return 0;
	return a->v[*slot - 1].idle_s / 3600;
}

/* ---- the datalake ---- */

int sweep_idle_sql(const struct sweep_query *q, const char *db, char *out, size_t outlen)
{
	double from = floor(q->from_s);
	int n = snprintf(
		out, outlen,
		"SELECT host, any(cluster) AS cluster, toFloat64(count()) AS periods,"
		" sum(secs) AS idle_s, sum(secs * cpu_share_busy) AS busy_s,"
		" toFloat64(max(cpus)) AS cpus, toFloat64(max(mem_bytes)) AS mem_bytes,"
		" max(instance_id) AS instance_id, max(instance_type) AS instance_type,"
		" sum(secs / 3600 * price_hour) AS cost, max(price_hour) > 0 AS priced"
		" FROM (SELECT host, cluster, cpus, mem_bytes, cpu_share_busy, instance_id,"
		"  instance_type, price_hour, greatest(toFloat64(end_ns) / 1e9"
		"   - greatest(toFloat64(start_ns) / 1e9, %.0f), 0) AS secs"
		"  FROM %s.idle_hosts FINAL WHERE end >= toDateTime(%.0f) AND end_ns > start_ns)"
		" GROUP BY host ORDER BY idle_s DESC, host LIMIT %d FORMAT JSONEachRow",
		from, db, from, TRACER_SWEEP_HOSTS_MAX);

	return n > 0 && (size_t)n < outlen ? 0 : -1;
}

static int take_host(struct sweep_idle *a, const char *line)
{
	cJSON *o = cJSON_Parse(line);
	const char *name = json_get_str(o, "host", NULL);
	struct sweep_idle_host *h;
	int rc = -1;

	if (!cJSON_IsObject(o) || !name)
		goto out;
	h = host_of(a, *name ? name : "-");
	if (!h)
		goto out;
	h->periods = json_get_num(o, "periods", 0);
	h->idle_s = json_get_num(o, "idle_s", 0);
	h->busy_s = json_get_num(o, "busy_s", 0);
	h->cpus = json_get_num(o, "cpus", 0);
	h->mem_bytes = json_get_num(o, "mem_bytes", 0);
	h->cost = json_get_num(o, "cost", 0);
	h->priced = json_get_num(o, "priced", 0) > 0;
	if (keep_str(&h->cluster, json_get_str(o, "cluster", NULL)) == 0 &&
	    keep_str(&h->instance_id, json_get_str(o, "instance_id", NULL)) == 0 &&
	    keep_str(&h->instance_type, json_get_str(o, "instance_type", NULL)) == 0)
		rc = 0;
out:
	cJSON_Delete(o);
	return rc;
}

int sweep_idle_from_datalake(struct sweep_idle *a, const struct tracer_config *cfg,
			     const struct sweep_query *q, char *err, size_t errlen)
{
	char sql[2048], *out = NULL, *save = NULL;
	size_t len;
	int rc = 0;

	if (sweep_idle_sql(q, cfg->clickhouse_database, sql, sizeof(sql)) != 0) {
		snprintf(err, errlen, "the idle hosts' query does not fit");
		return -1;
	}
	if (datalake_query(cfg, sql, &out, &len, err, errlen) != 0) {
		if (clickhouse_is_unknown_table(err))
			snprintf(err, errlen, "the datalake has no %s.idle_hosts (schema version 5): "
				 "run tracer datalake migrate", cfg->clickhouse_database);
		return -1;
	}
	for (char *l = strtok_r(out, "\n", &save); l && rc == 0; l = strtok_r(NULL, "\n", &save))
		if (take_host(a, l) != 0) {
			snprintf(err, errlen, "unexpected answer from ClickHouse: %.80s", l);
			rc = -1;
		}
	free(out);
	return rc;
}
