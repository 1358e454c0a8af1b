/*
 * sink_clickhouse_idle.c - the ClickHouse sink's row of an idle host's
 * period (the "idle_host" record, docs/schema.md): one row of
 * tracer.idle_hosts (schema v5, contrib/clickhouse/migrations/005_v5.sql),
 * sorted by host, start and summary_id, so that a record inserted twice
 * folds with FINAL as a summary's rows do.
 */
#include "sink_priv.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"

static const char *str_of(const cJSON *o, const char *key)
{
	const char *s = json_get_str(o, key, "");

	return s ? s : "";
}

/* nanoseconds: a decimal string (exact) or a number */
static uint64_t ns_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (cJSON_IsString(v))
		return strtoull(v->valuestring, NULL, 10);
	return json_get_u64(o, key, 0);
}

int sink_clickhouse_idle_row(struct growbuf *b, const cJSON *rec)
{
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(rec, "host");
	const cJSON *ec2 = cJSON_GetObjectItemCaseSensitive(rec, "ec2");
	const cJSON *cost = cJSON_GetObjectItemCaseSensitive(rec, "cost");
	uint64_t start = ns_of(rec, "start_ns"), end = ns_of(rec, "end_ns");
	cJSON *r = cJSON_CreateObject();
	char *t;

	if (!r) {
		b->oom = true;
		return -1;
	}
	json_add_str(r, "summary_id", str_of(rec, "summary_id"));
	json_add_str(r, "host", str_of(host, "hostname"));
	json_add_str(r, "cluster", str_of(rec, "cluster"));
	json_add_u64(r, "start", start / 1000000000ull); /* DateTime: seconds */
	json_add_u64(r, "end", end / 1000000000ull);
	json_add_u64(r, "start_ns", start);
	json_add_u64(r, "end_ns", end);
	cJSON_AddNumberToObject(r, "idle_s", json_get_num(rec, "idle_s", 0));
	json_add_u64(r, "cpus", json_get_u64(host, "cpus", 0));
	json_add_u64(r, "mem_bytes", json_get_u64(host, "mem_bytes", 0));
	cJSON_AddNumberToObject(r, "cpu_share_busy", json_get_num(rec, "cpu_share_busy", 0));
	json_add_str(r, "ended_by", str_of(rec, "ended_by"));
	json_add_str(r, "instance_id", str_of(ec2, "instance_id"));
	json_add_str(r, "instance_type", str_of(ec2, "instance_type"));
	cJSON_AddNumberToObject(r, "price_hour", json_get_num(cost, "price_hour", 0));
	t = cJSON_PrintUnformatted(r);
	cJSON_Delete(r);
	if (!t) {
		b->oom = true;
		return -1;
	}
	growbuf_add(b, t, strlen(t));
	growbuf_add(b, "\n", 1);
	cJSON_free(t);
	return 0;
}

size_t sink_clickhouse_idle_count(const struct growbuf *b)
{
	size_t n = 0;

	for (size_t i = 0; i < b->len; i++)
		n += b->p[i] == '\n';
	return n;
}
