/*
 * fmt.c - human units, JSON field access and small printing helpers
 * for the tables of the `tracer` command.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char *fmt_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double d = (double)v;
	int u = 0;

	while (d >= 1024 && u < 5) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)v);
	else
		snprintf(buf, len, "%.1f %s", d, units[u]);
	return buf;
}

const char *fmt_secs(double s, char *buf, size_t len)
{
	if (isnan(s))
		snprintf(buf, len, "-");
	else if (s < 10)
		snprintf(buf, len, "%.3f s", s);
	else if (s < 3600)
		snprintf(buf, len, "%.1f s", s);
	else
		snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
	return buf;
}

const char *fmt_pct(double ratio, char *buf, size_t len)
{
	if (isnan(ratio))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f%%", ratio * 100);
	return buf;
}

double cli_jnum(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *cli_jstr(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *fmt_or_dash(const char *s)
{
	return s && *s ? s : "-";
}

const char *fmt_exit_text(const cJSON *o, const char *code_key, char *buf, size_t len)
{
	double code = cli_jnum(o, code_key), sig = cli_jnum(o, "signal");

	if (!isnan(sig))
		snprintf(buf, len, "sig %.0f", sig);
	else if (!isnan(code))
		snprintf(buf, len, "%.0f", code);
	else
		snprintf(buf, len, "-");
	return buf;
}

void cli_print_json(const cJSON *o)
{
	char *s = cJSON_Print(o);
	if (s)
		printf("%s\n", s);
	cJSON_free(s);
}

/* "Container podman 0123456789ab (image x)", and one line per container
 * when the job ran in several. */
static void print_container_line(const char *label, const cJSON *c)
{
	char mem[32];
	const cJSON *cg = cJSON_GetObjectItem(c, "cgroup");

	printf("%-8s %s %s", label, fmt_or_dash(cli_jstr(c, "runtime")), fmt_or_dash(cli_jstr(c, "short_id")));
	if (cli_jstr(c, "name"))
		printf(" name %s", cli_jstr(c, "name"));
	if (cli_jstr(c, "image"))
		printf(" image %s", cli_jstr(c, "image"));
	if (!isnan(cli_jnum(cg, "memory_peak_bytes")))
		printf(", cgroup peak %s", fmt_bytes((uint64_t)cli_jnum(cg, "memory_peak_bytes"),
						     mem, sizeof(mem)));
	printf("\n");
}

void fmt_containers(const cJSON *s)
{
	const cJSON *c, *all = cJSON_GetObjectItem(s, "containers");

	c = cJSON_GetObjectItem(s, "container");
	if (!cJSON_IsObject(c))
		return;
	print_container_line("Container", c);
	cJSON_ArrayForEach(c, all)
		print_container_line("  in", c);
}

/* Two byte counts of o's object name, added up, or "-". */
static const char *bytes_sum(const cJSON *o, const char *name, const char *a, const char *b,
			     char *buf, size_t len)
{
	const cJSON *n = cJSON_GetObjectItem(o, name);
	double v = cli_jnum(n, a) + cli_jnum(n, b);

	if (isnan(v))
		snprintf(buf, len, "-");
	else
		fmt_bytes((uint64_t)v, buf, len);
	return buf;
}

/* NET: network bytes sent + received (TCP, UDP, other; not Unix sockets) */
const char *fmt_net(const cJSON *o, char *buf, size_t len)
{
	return bytes_sum(o, "net", "sent_bytes", "recv_bytes", buf, len);
}

/* DISK: bytes of the block requests it issued, read + written */
const char *fmt_disk(const cJSON *o, char *buf, size_t len)
{
	return bytes_sum(o, "block", "read_bytes", "write_bytes", buf, len);
}

/* The job's GPU line (docs/gpu.md): GPUs allocated and used, memory
 * peak, busy time, energy, how it was counted. */
static void print_gpu(const cJSON *g, char *x, size_t xl, char *y, size_t yl)
{
	const cJSON *d;
	int alloc = 0, used = 0, idle = 0;

	cJSON_ArrayForEach(d, cJSON_GetObjectItem(g, "devices")) {
		bool a = cJSON_IsTrue(cJSON_GetObjectItem(d, "allocated"));
		bool u = cJSON_IsTrue(cJSON_GetObjectItem(d, "used"));
		alloc += a;
		used += u;
		idle += a && !u;
	}
	printf("GPU      %d allocated, %d used, %d idle; memory peak %s, busy %s",
	       alloc, used, idle, fmt_bytes((uint64_t)fmax(cli_jnum(g, "memory_peak_bytes"), 0), x, xl),
	       fmt_secs(fmax(cli_jnum(g, "busy_s"), 0), y, yl));
	if (cJSON_IsNumber(cJSON_GetObjectItem(g, "energy_j")))
		printf(", energy %.1f kJ", cli_jnum(g, "energy_j") / 1000);
	printf(" (%s)\n", fmt_or_dash(cli_jstr(g, "counting")));
}

/* The job's network, GPU and block lines of `tracer show` (absent in older summaries). */
void fmt_netio_header(const cJSON *s)
{
	const cJSON *g = cJSON_GetObjectItem(s, "gpu");
	const cJSON *tot = cJSON_GetObjectItem(s, "totals");
	const cJSON *n = cJSON_GetObjectItem(tot, "net"), *b = cJSON_GetObjectItem(tot, "block");
	const cJSON *d;
	char x[32], y[32], z[32];

	if (n)
		printf("Network  sent %s, received %s (TCP, UDP, other), Unix sockets %s, "
		       "TCP connects %.0f, accepts %.0f\n",
		       fmt_bytes((uint64_t)cli_jnum(n, "sent_bytes"), x, sizeof(x)),
		       fmt_bytes((uint64_t)cli_jnum(n, "recv_bytes"), y, sizeof(y)),
		       fmt_bytes((uint64_t)(cli_jnum(n, "unix_sent_bytes") + cli_jnum(n, "unix_recv_bytes")),
				 z, sizeof(z)),
		       cli_jnum(n, "tcp_connects"), cli_jnum(n, "tcp_accepts"));
	/* a job that made and accepted no TCP connection has no endpoint
	 * to count: the line would only say 0 */
	if (n && cJSON_GetObjectItem(n, "tcp_remote_endpoints") &&
	    (cli_jnum(n, "tcp_remote_endpoints") > 0 || cli_jnum(n, "tcp_connects") > 0 ||
	     cli_jnum(n, "tcp_accepts") > 0 || cJSON_IsTrue(cJSON_GetObjectItem(n, "tcp_remote_endpoints_capped"))))
		printf("         TCP remote endpoints %.0f%s%s\n", cli_jnum(n, "tcp_remote_endpoints"),
		       cJSON_IsTrue(cJSON_GetObjectItem(n, "tcp_remote_endpoints_capped"))
			       ? " at least (table full)" : "",
		       cli_jstr(s, "net_counting") && !strcmp(cli_jstr(s, "net_counting"), "tcp_close_totals")
			       ? "; bytes: TCP totals at close" : "");
	if (cJSON_IsObject(g))
		print_gpu(g, x, sizeof(x), y, sizeof(y));
	if (b)
		printf("Disk     read %s, written %s, %.0f requests (issued by its processes)\n",
		       fmt_bytes((uint64_t)cli_jnum(b, "read_bytes"), x, sizeof(x)),
		       fmt_bytes((uint64_t)cli_jnum(b, "write_bytes"), y, sizeof(y)),
		       cli_jnum(b, "requests"));
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(s, "block_devices")) {
		printf("  %-12s read %s, written %s, %.0f requests, latency p50 %.3f ms, p99 %.3f ms\n",
		       fmt_or_dash(cli_jstr(d, "device")),
		       fmt_bytes((uint64_t)cli_jnum(d, "read_bytes"), x, sizeof(x)),
		       fmt_bytes((uint64_t)cli_jnum(d, "write_bytes"), y, sizeof(y)),
		       cli_jnum(d, "requests"), cli_jnum(d, "latency_p50_s") * 1e3,
		       cli_jnum(d, "latency_p99_s") * 1e3);
	}
}
