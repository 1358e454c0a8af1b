/*
 * sink_clickhouse_rows.c - a summary as rows of the datalake's tables
 * (contrib/clickhouse/migrations/): one row of jobs carrying the whole
 * summary, one of tools per tool, of processes per process kept, of
 * flags per flag; an idle_host record as a row of idle_hosts
 * (sink_clickhouse_idle.c).  Rows are JSONEachRow lines, ready for
 * INSERT INTO db.table FORMAT JSONEachRow (sink_clickhouse.c).  Exact
 * nanosecond times above 2^53 come back from the summary's JSON as
 * doubles: *_ns columns may be off by up to 256 ns; the DateTime
 * columns (seconds) are exact.
 */
#include "sink_priv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "summary.h"

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

/* schema v8: the summary's tools by name (a tool's paths are one tool:
 * CPU seconds and processes summed, the longest wall time), as
 * tracer.tools holds them, so that `tracer sweep --by tool` and the
 * per-tool queries read the summary's row alone; tools_kind 1: the
 * arrays are the summary's own.  At most JOB_MAX_TOOLS + 1 names: the
 * scan is bounded.  false when out of memory (the arrays must be as
 * long as each other). */
enum { V8_NAMES, V8_CPU, V8_WALL, V8_PROCS, V8_ARRAYS };
static const char *const v8_cols[V8_ARRAYS] = {"tool_names", "tool_cpu_s", "tool_wall_s",
					       "tool_processes"};

/* the array slot of name, added (zeros) when new; NULL when out of memory */
static cJSON *v8_slot(cJSON **a, const char *name, cJSON **cells)
{
	cJSON *n;
	int i = 0;

	cJSON_ArrayForEach(n, a[V8_NAMES]) {
		if (strcmp(n->valuestring, name) == 0)
			break;
		i++;
	}
	if (!n) {
		cJSON *v[V8_ARRAYS] = {cJSON_CreateString(name), cJSON_CreateNumber(0),
				       cJSON_CreateNumber(0), cJSON_CreateNumber(0)};
		bool ok = true;

		for (int k = 0; k < V8_ARRAYS; k++)
			ok = ok && v[k];
		if (!ok) {
			for (int k = 0; k < V8_ARRAYS; k++)
				cJSON_Delete(v[k]);
			return NULL;
		}
		for (int k = 0; k < V8_ARRAYS; k++)
			cJSON_AddItemToArray(a[k], v[k]);
	}
	for (int k = 0; k < V8_ARRAYS; k++)
		cells[k] = cJSON_GetArrayItem(a[k], i);
	return cells[V8_NAMES];
}

static bool v8_columns(cJSON *r, const cJSON *s)
{
	cJSON *a[V8_ARRAYS], *c[V8_ARRAYS];
	const cJSON *t;

	for (int k = 0; k < V8_ARRAYS; k++)
		if (!(a[k] = cJSON_AddArrayToObject(r, v8_cols[k])))
			return false;
	if (!cJSON_AddNumberToObject(r, "tools_kind", 1))
		return false;
	cJSON_ArrayForEach(t, at(s, "tools")) {
		double wall = num_at(t, "wall_s");

		if (!v8_slot(a, str_at(t, "tool"), c))
			return false;
		cJSON_SetNumberValue(c[V8_CPU], c[V8_CPU]->valuedouble + num_at(t, "cpu_s"));
		if (wall > c[V8_WALL]->valuedouble)
			cJSON_SetNumberValue(c[V8_WALL], wall);
		cJSON_SetNumberValue(c[V8_PROCS],
				     c[V8_PROCS]->valuedouble + (double)u64_at(t, "processes"));
	}
	return true;
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
	if (!v8_columns(r, s))
		b->oom = true;
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

int sink_clickhouse_rows(const char *text, size_t len, struct growbuf *rows)
{
	cJSON *sum = cJSON_ParseWithLength(text, len);
	char *copy = strndup(text, len);

	if (!cJSON_IsObject(sum) || !copy) {
		rows[CLICKHOUSE_SINK_JOBS].oom |= !copy;
		cJSON_Delete(sum);
		free(copy);
		return -1;
	}
	if (cJSON_GetObjectItemCaseSensitive(sum, "record")) {
		/* not a summary: an idle host's period has its own table;
		 * a record kind this tracerd does not know has none */
		if (!strcmp(str_at(sum, "record"), SUMMARY_IDLE_HOST_RECORD))
			sink_clickhouse_idle_row(&rows[CLICKHOUSE_SINK_IDLE_HOSTS], sum);
	} else {
		job_row(&rows[CLICKHOUSE_SINK_JOBS], sum, copy);
		tool_rows(&rows[CLICKHOUSE_SINK_TOOLS], sum);
		process_rows(&rows[CLICKHOUSE_SINK_PROCESSES], sum);
		flag_rows(&rows[CLICKHOUSE_SINK_FLAGS], sum);
	}
	cJSON_Delete(sum);
	free(copy);
	return 0;
}
