/*
 * html_io.c - the job page's network, disk and container rows, and the
 * network and disk figures of a tool (html.h).  What a counting mode does
 * not see is said on the page, never shown as a zero: a summary written
 * without socket tracepoints has no network row of numbers, but the
 * sentence that says why.  Fields as docs/schema.md names them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html.h"

/* a counter: 0 when absent */
static double num(const cJSON *o, const char *key)
{
	double v = cli_jnum(o, key);

	return isnan(v) ? 0 : v;
}

static const char *bytes(double v, char *buf, size_t len)
{
	return fmt_bytes((uint64_t)fmax(v, 0), buf, len);
}

double html_net_bytes(const cJSON *o)
{
	const cJSON *net = cJSON_GetObjectItem(o, "net");

	return num(net, "sent_bytes") + num(net, "recv_bytes");
}

double html_disk_bytes(const cJSON *o)
{
	const cJSON *blk = cJSON_GetObjectItem(o, "block");

	return num(blk, "read_bytes") + num(blk, "write_bytes");
}

/* "TCP sent 1 GiB, received 2 MiB" for one family, when it moved data */
static void family(FILE *f, const cJSON *net, const char *label, const char *prefix, bool *first)
{
	char k1[32], k2[32], a[32], b[32];

	snprintf(k1, sizeof(k1), "%s_sent_bytes", prefix);
	snprintf(k2, sizeof(k2), "%s_recv_bytes", prefix);
	if (num(net, k1) <= 0 && num(net, k2) <= 0)
		return;
	fprintf(f, "%s%s sent <b>%s</b>, received <b>%s</b>", *first ? "" : "; ", label,
		bytes(num(net, k1), a, sizeof(a)), bytes(num(net, k2), b, sizeof(b)));
	*first = false;
}

static void network_row(FILE *f, const cJSON *s)
{
	const cJSON *net = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "totals"), "net");
	const char *mode = cli_jstr(s, "net_counting");
	bool first = true;

	fputs("<tr><th>Network</th><td class=\"net\">", f);
	if (mode && !strcmp(mode, "none")) {
		fputs("not counted (no socket tracepoints, or tracer-wrap without tracerd)</td></tr>\n", f);
		return;
	}
	family(f, net, "TCP", "tcp", &first);
	family(f, net, "UDP", "udp", &first);
	family(f, net, "other", "other", &first);
	family(f, net, "Unix sockets (local)", "unix", &first);
	if (first)
		fputs("no bytes sent or received", f);
	if (num(net, "tcp_connects") > 0 || num(net, "tcp_accepts") > 0)
		fprintf(f, "<br><span class=\"small\">TCP connections: %.0f made, %.0f accepted, "
			"%.0f distinct remote endpoints%s</span>",
			num(net, "tcp_connects"), num(net, "tcp_accepts"), num(net, "tcp_remote_endpoints"),
			cJSON_IsTrue(cJSON_GetObjectItem(net, "tcp_remote_endpoints_capped"))
				? " (at least: the table was full)" : "");
	if (mode && !strcmp(mode, "tcp_close_totals"))
		fputs("<br><span class=\"small\">TCP counted from each connection's totals at its "
		      "close (this kernel has no per-call socket tracepoints); UDP and Unix sockets "
		      "are not counted</span>", f);
	fputs("</td></tr>\n", f);
}

static void disk_row(FILE *f, const cJSON *s)
{
	const cJSON *blk = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "totals"), "block");
	const cJSON *devs = cJSON_GetObjectItem(s, "block_devices"), *d;
	const cJSON *cg = cJSON_GetObjectItem(s, "cgroup_io");
	char a[32], b[32];

	fprintf(f, "<tr><th>Disk</th><td class=\"disk\">block requests of the job's processes: read "
		"<b>%s</b>, written <b>%s</b> in %.0f requests",
		bytes(num(blk, "read_bytes"), a, sizeof(a)), bytes(num(blk, "write_bytes"), b, sizeof(b)),
		num(blk, "requests"));
	cJSON_ArrayForEach(d, devs) {
		fputs("<br><span class=\"small\">", f);
		h_cut(f, cli_jstr(d, "device") ? cli_jstr(d, "device") : "?", 64);
		fprintf(f, ": read %s, written %s, %.0f requests, latency p50 %.3g ms, p99 %.3g ms, "
			"max %.3g ms</span>",
			bytes(num(d, "read_bytes"), a, sizeof(a)), bytes(num(d, "write_bytes"), b, sizeof(b)),
			num(d, "requests"), num(d, "latency_p50_s") * 1e3, num(d, "latency_p99_s") * 1e3,
			num(d, "latency_max_s") * 1e3);
	}
	if (cJSON_IsObject(cg))
		fprintf(f, "<br><span class=\"small\">the job's cgroup, page-cache writeback by the "
			"kernel included: read %s, written %s</span>",
			bytes(num(cg, "read_bytes"), a, sizeof(a)), bytes(num(cg, "write_bytes"), b, sizeof(b)));
	fputs("</td></tr>\n", f);
}

void html_io_rows(FILE *f, const cJSON *s)
{
	network_row(f, s);
	disk_row(f, s);
}

/* "podman 0123456789ab name web image docker.io/library/x:1" */
static void one_container(FILE *f, const cJSON *c)
{
	h_cut(f, cli_jstr(c, "runtime") ? cli_jstr(c, "runtime") : "-", 32);
	fputs(" ", f);
	h_cut(f, cli_jstr(c, "short_id") ? cli_jstr(c, "short_id") : "-", 80);
	if (cli_jstr(c, "name")) {
		fputs(" <span class=\"muted\">name</span> ", f);
		h_cut(f, cli_jstr(c, "name"), 200);
	}
	if (cli_jstr(c, "image")) {
		fputs(" <span class=\"muted\">image</span> ", f);
		h_cut(f, cli_jstr(c, "image"), 300);
	}
}

void html_container_rows(FILE *f, const cJSON *s)
{
	const cJSON *c = cJSON_GetObjectItem(s, "container");
	const cJSON *all = cJSON_GetObjectItem(s, "containers"), *x;
	int n = cJSON_GetArraySize(all), i = 0;

	if (!cJSON_IsObject(c))
		return;
	fputs("<tr><th>Container</th><td class=\"container\">", f);
	one_container(f, c);
	/* the first of `containers` is `container` */
	cJSON_ArrayForEach(x, all) {
		if (i++ == 0)
			continue;
		fputs("<br>", f);
		one_container(f, x);
	}
	if (num(s, "containers_not_listed") > 0)
		fprintf(f, "<br><span class=\"small\">and %.0f more</span>", num(s, "containers_not_listed"));
	if (n > 1)
		fprintf(f, "<br><span class=\"small\">%d containers</span>", n);
	fputs("</td></tr>\n", f);
}
