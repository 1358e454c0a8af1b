/*
 * sink_clickhouse.c - the ClickHouse sink: summaries become rows of the
 * datalake's tables (contrib/clickhouse/migrations/: jobs, tools,
 * processes, flags), inserted over ClickHouse's HTTP interface with
 * INSERT INTO db.table FORMAT JSONEachRow, one insert per table per
 * batch.  Every table is a ReplacingMergeTree whose sorting key holds
 * summary_id: a batch inserted twice (a retry after a lost reply) leaves
 * no visible duplicate with FINAL.  The jobs row carries the whole
 * summary (column summary), as the spool holds it.  An idle_host record
 * is a row of idle_hosts instead (schema v5, sink_clickhouse_idle.c).
 *
 * The server's version and the schema's (max(version) of schema_version;
 * none: version 1) are asked once per connection and again after a
 * failed insert.  A schema newer than this tracerd writes is refused:
 * nothing is inserted, the summaries stay spooled until the datalake is
 * one this tracerd knows (or tracerd is upgraded).  Version 1 takes the
 * rows as they are: its unknown columns are skipped
 * (input_format_skip_unknown_fields).  What differs between server
 * versions is decided in clickhouse.c.  Exact nanosecond times above
 * 2^53 come back from the summary's JSON as doubles: *_ns columns may be
 * off by up to 256 ns; the DateTime columns (seconds) are exact.
 */
#include "sink_priv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "defaults.h"
#include "json.h"
#include "summary.h"

enum {
	T_JOBS = CLICKHOUSE_SINK_JOBS,
	T_TOOLS = CLICKHOUSE_SINK_TOOLS,
	T_PROCESSES = CLICKHOUSE_SINK_PROCESSES,
	T_FLAGS = CLICKHOUSE_SINK_FLAGS,
	T_IDLE = CLICKHOUSE_SINK_IDLE_HOSTS,
	T_COUNT = CLICKHOUSE_SINK_TABLES
};
static const char *const table_names[T_COUNT] = {"jobs", "tools", "processes", "flags",
						 "idle_hosts"};

/* obj.a.b */
static const cJSON *at(const cJSON *o, const char *path)
{
	char key[64];

	while (o && *path) {
		size_t n = strcspn(path, ".");
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		o = cJSON_GetObjectItemCaseSensitive(o, key);
		path += n + (path[n] == '.');
	}
	return o;
}

static const char *str_at(const cJSON *o, const char *path)
{
	const cJSON *it = at(o, path);
	return cJSON_IsString(it) ? it->valuestring : "";
}

static double num_at(const cJSON *o, const char *path)
{
	const cJSON *it = at(o, path);

	if (cJSON_IsNumber(it))
		return it->valuedouble;
	if (cJSON_IsString(it)) /* a number kept as a string for exactness */
		return strtod(it->valuestring, NULL);
	return 0;
}

static uint64_t u64_at(const cJSON *o, const char *path)
{
	const cJSON *it = at(o, path);

	if (cJSON_IsString(it))
		return strtoull(it->valuestring, NULL, 10);
	double d = cJSON_IsNumber(it) ? it->valuedouble : 0;
	return d > 0 && d < 18446744073709551616.0 ? (uint64_t)d : 0;
}

/* the first of several names that is present (fields renamed across
 * versions of the summary) */
static const cJSON *first_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *it = at(o, a);
	return it ? it : at(o, b);
}

static void put_str(cJSON *row, const char *col, const char *v)
{
	cJSON_AddStringToObject(row, col, v ? v : "");
}

static void put_num(cJSON *row, const char *col, double v)
{
	cJSON_AddNumberToObject(row, col, v);
}

static void put_nullable(cJSON *row, const char *col, const cJSON *it)
{
	if (cJSON_IsNumber(it))
		cJSON_AddNumberToObject(row, col, it->valuedouble);
	else
		cJSON_AddNullToObject(row, col);
}

/* DateTime columns take seconds since the epoch */
static void put_time(cJSON *row, const char *col, uint64_t ns)
{
	json_add_u64(row, col, ns / 1000000000ull);
}

static uint64_t iso_ns(const char *iso)
{
	struct tm tm;
	int ms = 0;

	memset(&tm, 0, sizeof(tm));
	if (!iso || !strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm))
		return 0;
	const char *dot = strchr(iso, '.');
	if (dot)
		ms = atoi(dot + 1);
	return (uint64_t)timegm(&tm) * 1000000000ull + (uint64_t)ms * 1000000ull;
}

/* What every row of one summary repeats: its key and who it was. */
static void put_common(cJSON *row, const cJSON *s)
{
	put_str(row, "summary_id", str_at(s, "summary_id"));
	put_time(row, "end", u64_at(s, "end_ns"));
	put_str(row, "host", str_at(s, "host.hostname"));
	put_str(row, "user", str_at(s, "identity.user"));
	put_str(row, "partition", str_at(s, "identity.queue"));
	put_str(row, "pipeline", str_at(s, "identity.pipeline"));
	put_str(row, "run_id", str_at(s, "identity.run_id"));
	put_str(row, "task_name", str_at(s, "identity.task_name"));
}

static void add_row(struct growbuf *b, cJSON *row)
{
	char *t = cJSON_PrintUnformatted(row);

	if (!t) {
		b->oom = true;
	} else {
		growbuf_add(b, t, strlen(t));
		growbuf_add(b, "\n", 1);
	}
	cJSON_free(t);
	cJSON_Delete(row);
}

/* the job's GPUs (docs/gpu.md): allocated, used, idle, its figures */
static void gpu_columns(cJSON *r, const cJSON *s)
{
	const cJSON *d;
	uint64_t used = 0, idle = 0;

	cJSON_ArrayForEach(d, at(s, "gpu.devices")) {
		bool u = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "used"));
		used += u;
		idle += !u && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "allocated"));
	}
	put_str(r, "gpu_counting", str_at(s, "gpu_counting"));
	put_str(r, "gpus_allocated", str_at(s, "identity.allocation.gpus"));
	json_add_u64(r, "gpus_used", used);
	json_add_u64(r, "gpus_idle", idle);
	json_add_u64(r, "gpu_memory_peak_bytes", u64_at(s, "gpu.memory_peak_bytes"));
	put_num(r, "gpu_time_s", num_at(s, "gpu.time_s"));
	put_num(r, "gpu_busy_s", num_at(s, "gpu.busy_s"));
	put_nullable(r, "gpu_energy_j", at(s, "gpu.energy_j"));
}

/* a whole number, or null when absent (a Nullable(UInt*) column) */
static void put_nullable_u64(cJSON *row, const char *col, const cJSON *it)
{
	if (cJSON_IsNumber(it) && it->valuedouble >= 0)
		json_add_u64(row, col, (uint64_t)(it->valuedouble + 0.5));
	else
		cJSON_AddNullToObject(row, col);
}

/* schema v2: the scheduler's facts, state, I/O, cost, recommendation,
 * container, and the summary itself */
static void v2_columns(cJSON *r, const cJSON *s, const char *text)
{
	const cJSON *limit = first_at(s, "identity.request.time_limit_s",
				      "identity.allocation.time_limit_s");
	const char *image = str_at(s, "container.image");

	put_str(r, "state", str_at(s, "state"));
	put_str(r, "account", str_at(s, "identity.account"));
	put_str(r, "qos", str_at(s, "identity.qos"));
	put_nullable(r, "array_task_id", at(s, "identity.array_index"));
	put_time(r, "submit", u64_at(s, "identity.submit_ns"));
	put_time(r, "job_start", u64_at(s, "identity.job_start_ns"));
	put_nullable(r, "queue_wait_s", at(s, "identity.queue_wait_s"));
	put_str(r, "node_list", str_at(s, "identity.node_list"));
	json_add_u64(r, "req_cpus", u64_at(s, "identity.request.cpus"));
	json_add_u64(r, "req_mem_bytes", u64_at(s, "identity.request.mem_bytes"));
	json_add_u64(r, "req_gpus", u64_at(s, "identity.request.gpus"));
	json_add_u64(r, "req_nodes", u64_at(s, "identity.request.nodes"));
	json_add_u64(r, "alloc_nodes", u64_at(s, "identity.allocation.nodes"));
	put_nullable_u64(r, "time_limit_s", limit);
	json_add_u64(r, "net_rx_bytes", u64_at(s, "totals.net.recv_bytes"));
	json_add_u64(r, "net_tx_bytes", u64_at(s, "totals.net.sent_bytes"));
	json_add_u64(r, "block_read_bytes", u64_at(s, "totals.block.read_bytes"));
	json_add_u64(r, "block_write_bytes", u64_at(s, "totals.block.write_bytes"));
	put_nullable(r, "cost_total", at(s, "cost.total"));
	put_nullable(r, "cost_unused", at(s, "cost.unused"));
	put_nullable_u64(r, "rec_cpus", at(s, "recommendation.cpus"));
	put_nullable_u64(r, "rec_mem_bytes", at(s, "recommendation.mem_bytes"));
	put_nullable_u64(r, "rec_time_s", at(s, "recommendation.time_s"));
	put_str(r, "container", image[0] ? image : str_at(s, "container.short_id"));
	put_str(r, "summary", text);
}

/* schema v3: the allocation's own time limit and the ids of the flags
 * raised, for analyses that group jobs without reading the summary */
static void v3_columns(cJSON *r, const cJSON *s)
{
	cJSON *ids = cJSON_AddArrayToObject(r, "flag_ids");
	const cJSON *f;

	put_nullable_u64(r, "alloc_time_limit_s", at(s, "identity.allocation.time_limit_s"));
	cJSON_ArrayForEach(f, at(s, "flags")) {
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "id"));

		if (ids && id)
			cJSON_AddItemToArray(ids, cJSON_CreateString(id));
	}
}

/* schema v4: the sampled CPU concurrency p95, the CPUs a run needed for
 * tune (0 when the summary has no sample) */
static void v4_columns(cJSON *r, const cJSON *s)
{
	json_add_u64(r, "conc_p95", u64_at(s, "allocation_use.concurrency.p95"));
}

/* schema v7: what the summary adds to its job's totals on its node
 * (jobinc.h; inc_kind 0 when the summary has none: the sweep folds the
 * job from its summaries) */
static void v7_columns(cJSON *r, const cJSON *s)
{
	const cJSON *inc = at(s, "node_increments");

	json_add_u64(r, "inc_kind", cJSON_IsObject(inc));
	if (!cJSON_IsObject(inc))
		return;
	json_add_u64(r, "inc_single", cJSON_IsTrue(at(inc, "single")));
	json_add_u64(r, "inc_cpus", u64_at(inc, "alloc_cpus"));
	put_num(r, "inc_cpu_s", num_at(inc, "cpu_s"));
	json_add_i64(r, "inc_unused_mem_bytes", (int64_t)num_at(inc, "unused_mem_bytes"));
	json_add_u64(r, "inc_gpus_idle", u64_at(inc, "gpus_idle"));
}

static void job_row(struct growbuf *b, const cJSON *s, const char *text)
{
	cJSON *r = cJSON_CreateObject();
	const cJSON *exit = cJSON_GetObjectItemCaseSensitive(s, "exit");
	char *labels = cJSON_PrintUnformatted(at(s, "identity.labels"));

	put_common(r, s);
	put_str(r, "job", str_at(s, "job"));
	put_str(r, "schema", str_at(s, "schema"));
	put_str(r, "scheduler", str_at(s, "identity.scheduler"));
	put_str(r, "cluster", str_at(s, "identity.cluster"));
	json_add_u64(r, "uid", u64_at(s, "identity.uid"));
	put_str(r, "job_id", str_at(s, "identity.job_id"));
	put_str(r, "step_id", str_at(s, "identity.step_id"));
	put_str(r, "array_job_id", str_at(s, "identity.array_job_id"));
	put_str(r, "run_name", str_at(s, "identity.run_name"));
	put_time(r, "start", u64_at(s, "start_ns"));
	json_add_u64(r, "start_ns", u64_at(s, "start_ns"));
	json_add_u64(r, "end_ns", u64_at(s, "end_ns"));
	put_num(r, "wall_s", num_at(s, "wall_s"));
	put_nullable(r, "exit_code", first_at(exit, "code", "exit_code"));
	put_nullable(r, "exit_signal", at(exit, "signal"));
	put_num(r, "cpu_s", num_at(s, "totals.cpu_s"));
	put_num(r, "user_s", num_at(s, "totals.user_s"));
	put_num(r, "sys_s", num_at(s, "totals.sys_s"));
	put_nullable(r, "cpu_efficiency", at(s, "cpu_efficiency"));
	json_add_u64(r, "alloc_cpus", u64_at(s, "identity.allocation.cpus"));
	json_add_u64(r, "alloc_mem_bytes", u64_at(s, "identity.allocation.mem_bytes"));
	json_add_u64(r, "host_cpus", u64_at(s, "host.cpus"));
	json_add_u64(r, "mem_peak_bytes", u64_at(s, "memory.peak_bytes"));
	put_nullable(r, "mem_efficiency", at(s, "memory.efficiency"));
	json_add_u64(r, "rchar", u64_at(s, "totals.rchar"));
	json_add_u64(r, "wchar", u64_at(s, "totals.wchar"));
	json_add_u64(r, "read_bytes", u64_at(s, "totals.read_bytes"));
	json_add_u64(r, "write_bytes", u64_at(s, "totals.write_bytes"));
	json_add_u64(r, "processes", u64_at(s, "processes.total"));
	json_add_u64(r, "oom_kills", u64_at(s, "oom_kills"));
	json_add_u64(r, "events_dropped", u64_at(s, "drops.events"));
	json_add_u64(r, "tools", (uint64_t)cJSON_GetArraySize(at(s, "tools")));
	json_add_u64(r, "flags", (uint64_t)cJSON_GetArraySize(at(s, "flags")));
	put_str(r, "source", str_at(s, "tracer.source"));
	put_str(r, "tracer_version", str_at(s, "tracer.version"));
	put_str(r, "labels", labels ? labels : "{}");
	cJSON_free(labels);
	gpu_columns(r, s);
	v2_columns(r, s, text);
	v3_columns(r, s);
	v4_columns(r, s);
	v7_columns(r, s);
	add_row(b, r);
}

/* processes of a tool whose exit was not a clean 0 */
static uint64_t failed_exits(const cJSON *codes)
{
	const cJSON *e;
	uint64_t n = 0;

	cJSON_ArrayForEach(e, codes) {
		const cJSON *code = first_at(e, "code", "exit_code");
		if (!(cJSON_IsNumber(code) && code->valuedouble == 0))
			n += u64_at(e, "count");
	}
	return n;
}

static void tool_rows(struct growbuf *b, const cJSON *s)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, at(s, "tools")) {
		cJSON *r = cJSON_CreateObject();
		put_common(r, s);
		put_str(r, "cluster", str_at(s, "identity.cluster"));
		put_str(r, "job_id", str_at(s, "identity.job_id"));
		put_str(r, "step_id", str_at(s, "identity.step_id"));
		put_str(r, "tool", str_at(t, "tool"));
		put_str(r, "path", str_at(t, "path"));
		put_str(r, "interpreter", str_at(t, "interpreter"));
		json_add_u64(r, "processes", u64_at(t, "processes"));
		put_num(r, "cpu_s", num_at(t, "cpu_s"));
		put_num(r, "user_s", num_at(t, "user_s"));
		put_num(r, "sys_s", num_at(t, "sys_s"));
		put_num(r, "wall_s", num_at(t, "wall_s"));
		json_add_u64(r, "peak_rss_bytes", u64_at(t, "peak_rss_bytes"));
		json_add_u64(r, "rchar", u64_at(t, "rchar"));
		json_add_u64(r, "wchar", u64_at(t, "wchar"));
		json_add_u64(r, "read_bytes", u64_at(t, "read_bytes"));
		json_add_u64(r, "write_bytes", u64_at(t, "write_bytes"));
		put_time(r, "first_start", iso_ns(str_at(t, "first_start")));
		put_time(r, "last_end", iso_ns(str_at(t, "last_end")));
		json_add_u64(r, "oom_kills", u64_at(t, "oom_kills"));
		json_add_u64(r, "failed", failed_exits(at(t, "exit_codes")));
		json_add_u64(r, "alloc_cpus", u64_at(s, "identity.allocation.cpus"));
		put_num(r, "job_wall_s", num_at(s, "wall_s"));
		json_add_u64(r, "gpu_memory_peak_bytes", u64_at(t, "gpu.memory_peak_bytes"));
		put_num(r, "gpu_time_s", num_at(t, "gpu.time_s"));
		put_num(r, "gpu_busy_s", num_at(t, "gpu.busy_s"));
		add_row(b, r);
	}
}

static void process_rows(struct growbuf *b, const cJSON *s)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, at(s, "process_tree")) {
		cJSON *r = cJSON_CreateObject();
		const char *start = str_at(p, "start");
		put_common(r, s);
		json_add_u64(r, "pid", u64_at(p, "pid"));
		json_add_u64(r, "ppid", u64_at(p, "ppid"));
		put_str(r, "tool", str_at(p, "tool"));
		put_str(r, "comm", str_at(p, "comm"));
		put_str(r, "exe", str_at(p, "exe"));
		put_str(r, "cmdline", str_at(p, "cmdline"));
		put_time(r, "start", iso_ns(start));
		json_add_u64(r, "start_ms", iso_ns(start) / 1000000ull);
		put_num(r, "wall_s", num_at(p, "wall_s"));
		put_num(r, "cpu_s", num_at(p, "cpu_s"));
		put_num(r, "user_s", num_at(p, "user_s"));
		put_num(r, "sys_s", num_at(p, "sys_s"));
		json_add_u64(r, "peak_rss_bytes", u64_at(p, "peak_rss_bytes"));
		json_add_u64(r, "rchar", u64_at(p, "rchar"));
		json_add_u64(r, "wchar", u64_at(p, "wchar"));
		json_add_u64(r, "read_bytes", u64_at(p, "read_bytes"));
		json_add_u64(r, "write_bytes", u64_at(p, "write_bytes"));
		put_nullable(r, "exit_code", first_at(p, "exit_code", "code"));
		put_nullable(r, "signal", at(p, "signal"));
		json_add_u64(r, "oom_killed", cJSON_IsTrue(at(p, "oom_killed")));
		json_add_u64(r, "outlived", cJSON_IsTrue(at(p, "outlived")));
		add_row(b, r);
	}
}

static void flag_rows(struct growbuf *b, const cJSON *s)
{
	const cJSON *f;
	uint64_t n = 0;

	cJSON_ArrayForEach(f, at(s, "flags")) {
		cJSON *r = cJSON_CreateObject();
		char *ev = cJSON_PrintUnformatted(at(f, "evidence"));
		put_common(r, s);
		json_add_u64(r, "n", n++);
		put_str(r, "flag", str_at(f, "id"));
		put_str(r, "severity", str_at(f, "severity"));
		put_str(r, "message", str_at(f, "message"));
		put_str(r, "evidence", ev ? ev : "");
		cJSON_free(ev);
		add_row(b, r);
	}
}

static void url_encode(struct growbuf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[3] = {'%', hex[c >> 4], hex[c & 15]};
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '_' || c == '.' || c == '-')
			growbuf_add(b, (const char *)&c, 1);
		else
			growbuf_add(b, e, 3);
	}
}

struct ch_ctx {
	struct sink *s;
	char password[512];
	long timeout_ms;
	const _Atomic int *abort;
	struct growbuf *out; /* when set: the whole answer (http_post.body_out) */
};

static int ch_post(struct ch_ctx *c, const char *query, const char *settings,
		   const char *body, size_t len, struct http_post *r, char *err, size_t errlen)
{
	const struct tracer_config *cfg = c->s->cfg;
	struct growbuf url = {0};
	int rc;

	growbuf_add(&url, cfg->clickhouse_url, strlen(cfg->clickhouse_url));
	growbuf_add(&url, strchr(cfg->clickhouse_url, '?') ? "&" : "?", 1);
	growbuf_add(&url, "query=", 6);
	url_encode(&url, query);
	if (settings)
		growbuf_add(&url, settings, strlen(settings));
	if (url.oom) {
		growbuf_free(&url);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*r = (struct http_post){.url = url.p, .body = body, .len = len,
				.ca_file = cfg->http_ca_file, .user = cfg->clickhouse_user,
				.password = c->password, .timeout_ms = c->timeout_ms,
				.abort = c->abort, .body_out = c->out};
	rc = sink_http_post_run(r, err, errlen);
	growbuf_free(&url);
	return rc;
}

/* The datalake's schema version (none: 1, made before versions were
 * recorded); a newer one than this tracerd writes is refused. */
static int ch_schema(struct ch_ctx *c, char *err, size_t errlen)
{
	char query[160];
	struct http_post r;
	unsigned v = 1;

	snprintf(query, sizeof(query), "SELECT max(version) FROM %s.schema_version",
		 c->s->cfg->clickhouse_database);
	if (ch_post(c, query, NULL, "", 0, &r, err, errlen) == 0) {
		if (sscanf(r.reply, "%u", &v) != 1) {
			snprintf(err, errlen, "unexpected answer to %s: %.60s", query, r.reply);
			return -1;
		}
	} else if (!clickhouse_is_unknown_table(err)) {
		return -1;
	}
	c->s->ch_schema = v;
	if (v > TRACER_CLICKHOUSE_SCHEMA) {
		snprintf(err, errlen,
			 "schema version %u unknown (this tracerd writes %d); "
			 "run tracer datalake migrate, or upgrade tracerd",
			 v, TRACER_CLICKHOUSE_SCHEMA);
		return -1;
	}
	return 0;
}

static int ch_version(struct ch_ctx *c, char *err, size_t errlen)
{
	struct http_post r;

	if (c->s->ch_known)
		return 0;
	if (ch_post(c, "SELECT version()", NULL, "", 0, &r, err, errlen) != 0)
		return -1;
	if (clickhouse_parse_version(r.reply, &c->s->ch_server) != 0) {
		snprintf(err, errlen, "unexpected answer to SELECT version(): %.60s", r.reply);
		return -1;
	}
	if (ch_schema(c, err, errlen) != 0)
		return -1;
	c->s->ch_known = true;
	return 0;
}

static int ch_insert(struct ch_ctx *c, int table, const struct growbuf *rows, char *err,
		     size_t errlen)
{
	const struct tracer_config *cfg = c->s->cfg;
	char query[256], settings[256];
	struct http_post r;
	size_t n;

	snprintf(query, sizeof(query), "INSERT INTO %s.%s FORMAT JSONEachRow",
		 cfg->clickhouse_database, table_names[table]);
	clickhouse_settings(&c->s->ch_server, CLICKHOUSE_INSERT, settings, sizeof(settings));
	n = strlen(settings);
	if (clickhouse_has(&c->s->ch_server, 22, 2)) /* the same rows again are the same insert */
		snprintf(settings + n, sizeof(settings) - n,
			 "&insert_deduplication_token=%s-%08lx", table_names[table],
			 crc32(0, (const Bytef *)rows->p, (uInt)rows->len));
	if (ch_post(c, query, settings, rows->p, rows->len, &r, err, errlen) != 0) {
		/* ask again: it may be another server, or another schema, now */
		c->s->ch_known = false;
		return -1;
	}
	return 0;
}

int sink_clickhouse_probe(struct sink *s, long timeout_ms, const _Atomic int *abort,
			  char *err, size_t errlen)
{
	struct ch_ctx c = {.s = s, .timeout_ms = timeout_ms, .abort = abort};
	int rc;

	if (s->ch_known)
		return 0;
	if (s->cfg->clickhouse_password_file[0] &&
	    sink_http_read_secret(s->cfg->clickhouse_password_file, c.password, sizeof(c.password), err,
			errlen) != 0)
		return -1;
	rc = ch_version(&c, err, errlen);
	memset(c.password, 0, sizeof(c.password));
	return rc;
}

int sink_clickhouse_rows(const char *text, size_t len, struct growbuf *rows)
{
	cJSON *sum = cJSON_ParseWithLength(text, len);
	char *copy = strndup(text, len);

	if (!cJSON_IsObject(sum) || !copy) {
		rows[T_JOBS].oom |= !copy;
		cJSON_Delete(sum);
		free(copy);
		return -1;
	}
	if (cJSON_GetObjectItemCaseSensitive(sum, "record")) {
		/* not a summary: an idle host's period has its own table;
		 * a record kind this tracerd does not know has none */
		if (!strcmp(str_at(sum, "record"), SUMMARY_IDLE_HOST_RECORD))
			sink_clickhouse_idle_row(&rows[T_IDLE], sum);
	} else {
		job_row(&rows[T_JOBS], sum, copy);
		tool_rows(&rows[T_TOOLS], sum);
		process_rows(&rows[T_PROCESSES], sum);
		flag_rows(&rows[T_FLAGS], sum);
	}
	cJSON_Delete(sum);
	free(copy);
	return 0;
}

/* Unsure whether an earlier try went in (sink_clickhouse_seen.c): mark
 * in skip the summaries the datalake has (schema v7: the sweep counts a
 * job of one summary from its row as it is).  0, -1 with err. */
static int already_there(struct ch_ctx *c, char *const *texts, const size_t *lens, size_t n,
			 bool *skip, size_t *found, char *err, size_t errlen)
{
	struct growbuf q = {0}, body = {.max = SINK_REPLY_BODY_MAX};
	struct http_post r;
	int asked, rc = -1;

	*found = 0;
	if (c->s->ch_sure || c->s->ch_schema < 7)
		return 0;
	asked = sink_clickhouse_seen_sql(c->s->cfg->clickhouse_database, texts, lens, n, &q);
	if (q.oom || body.oom) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (!asked) { /* no summary to ask about */
		rc = 0;
		goto out;
	}
	c->out = &body;
	rc = ch_post(c, "", NULL, q.p, q.len, &r, err, errlen); /* the query as the body */
	c->out = NULL;
	if (rc == 0 && body.oom) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	if (rc == 0)
		*found = sink_clickhouse_seen_mark(body.p ? body.p : "", texts, lens, n, skip);
out:
	growbuf_free(&q);
	growbuf_free(&body);
	return rc;
}

int sink_clickhouse_deliver(struct sink *s, char *const *texts, const size_t *lens,
			    size_t n, long timeout_ms, const _Atomic int *abort,
			    char *err, size_t errlen)
{
	struct ch_ctx c = {.s = s, .timeout_ms = timeout_ms, .abort = abort};
	struct growbuf rows[T_COUNT];
	size_t bad = 0, idle_left = 0, found = 0;
	bool *skip = calloc(n ? n : 1, sizeof(*skip)), note_failed = false;
	char note[256] = "";
	int rc = -1;

	memset(rows, 0, sizeof(rows));
	if (!skip) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (s->cfg->clickhouse_password_file[0] &&
	    sink_http_read_secret(s->cfg->clickhouse_password_file, c.password, sizeof(c.password), err,
			errlen) != 0) {
		free(skip);
		return -1;
	}
	if (ch_version(&c, err, errlen) != 0)
		goto out;
	if (already_there(&c, texts, lens, n, skip, &found, note, sizeof(note)) != 0) {
		/* not asked (no SELECT on job_use?): inserted as before, said */
		memset(skip, 0, n * sizeof(*skip));
		found = 0;
		note_failed = true;
	}
	for (size_t i = 0; i < n; i++)
		if (!skip[i] && sink_clickhouse_rows(texts[i], lens[i], rows) != 0)
			bad++; /* the spool checked it: cannot happen short of memory */
	for (int t = 0; t < T_COUNT; t++)
		if (rows[t].oom || (bad && bad == n)) {
			snprintf(err, errlen, "out of memory building rows");
			goto out;
		}
	/* jobs last: a job's row means its tools and processes are in; idle
	 * hosts only into a datalake that has their table (v5): before, the
	 * records are left out and counted rather than held up forever */
	for (int t = T_TOOLS; t < T_COUNT; t++)
		if (t == T_IDLE && rows[t].len && s->ch_schema < 5)
			idle_left = sink_clickhouse_idle_count(&rows[t]);
		else if (rows[t].len && ch_insert(&c, t, &rows[t], err, errlen) != 0)
			goto out;
	if (rows[T_JOBS].len && ch_insert(&c, T_JOBS, &rows[T_JOBS], err, errlen) != 0)
		goto out;
	if (idle_left) /* a note for the log, not a failure */
		snprintf(err, errlen, "%zu idle_host records left out: the datalake is at schema "
			 "version %u, tracer.idle_hosts needs 5 (tracer datalake migrate)",
			 idle_left, s->ch_schema);
	else if (found)
		snprintf(err, errlen, "%zu summaries already in the datalake (an earlier try's "
			 "answer was lost): not inserted again", found);
	else if (note_failed)
		snprintf(err, errlen, "could not ask which summaries are already in the "
			 "datalake (inserted all the same): %s", note);
	/* sure again once a batch asked about had none there */
	s->ch_sure = !found && !note_failed;
	s->ch_already += found;
	rc = 0;
out:
	if (rc != 0)
		s->ch_sure = false;
	free(skip);
	memset(c.password, 0, sizeof(c.password));
	for (int t = 0; t < T_COUNT; t++)
		growbuf_free(&rows[t]);
	return rc;
}

int sink_clickhouse_select(const struct tracer_config *cfg, const char *query, long timeout_ms,
		      char **out, size_t *len, char *err, size_t errlen)
{
	return clickhouse_exec(cfg, query, NULL, timeout_ms, out, len, err, errlen);
}
