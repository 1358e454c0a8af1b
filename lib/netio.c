/*
 * netio.c - sums, device table and JSON of network and block I/O
 * (netio.h).  Device names come from /sys/dev/block/<maj>:<min>/uevent,
 * read once per device when the summary is made (a few small sysfs reads).
 */
#include "netio.h"

#include <stdio.h>
#include <string.h>

#include "json.h"

#define MINORBITS 20

cJSON *netio_not_counted_json(const char *mode)
{
	static const char *const close_totals[] = {"tcp_open_connections", "udp", "unix",
						   "other"};
	static const char *const none[] = {"tcp", "udp", "unix", "other"};
	cJSON *a = cJSON_CreateArray();
	const char *const *v = NULL;
	size_t n = 0;

	if (!strcmp(mode, "tcp_close_totals")) {
		v = close_totals;
		n = sizeof(close_totals) / sizeof(close_totals[0]);
	} else if (strcmp(mode, "per_call") != 0) {
		v = none;
		n = sizeof(none) / sizeof(none[0]);
	}
	for (size_t i = 0; a && i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

void netio_totals_add(struct netio_totals *s, const struct netio_totals *t)
{
	s->tcp_sent += t->tcp_sent;
	s->tcp_recv += t->tcp_recv;
	s->udp_sent += t->udp_sent;
	s->udp_recv += t->udp_recv;
	s->unix_sent += t->unix_sent;
	s->unix_recv += t->unix_recv;
	s->other_sent += t->other_sent;
	s->other_recv += t->other_recv;
	s->tcp_connects += t->tcp_connects;
	s->tcp_accepts += t->tcp_accepts;
	s->blk_read_bytes += t->blk_read_bytes;
	s->blk_write_bytes += t->blk_write_bytes;
	s->blk_requests += t->blk_requests;
}

static struct netio_dev *dev_slot(struct netio_devs *d, uint32_t dev)
{
	for (int i = 0; i < d->ndevs; i++)
		if (d->dev[i].dev == dev)
			return &d->dev[i];
	if (d->ndevs < NETIO_MAX_DEVS && dev != 0) {
		d->dev[d->ndevs].dev = dev;
		return &d->dev[d->ndevs++];
	}
	return &d->dev[NETIO_MAX_DEVS];
}

static int log2_bucket(uint64_t v)
{
	int b = v ? 63 - __builtin_clzll(v) : 0;

	return b < NETIO_LAT_BUCKETS ? b : NETIO_LAT_BUCKETS - 1;
}

void netio_note_block(struct netio_totals *t, struct netio_devs *d, uint32_t dev,
		      uint32_t op, uint64_t bytes, uint64_t latency_ns)
{
	struct netio_dev *s = dev_slot(d, dev);

	if (op == NETIO_BLK_READ)
		s->read_bytes += bytes;
	else if (op == NETIO_BLK_WRITE)
		s->write_bytes += bytes;
	s->requests++;
	s->lat_hist[log2_bucket(latency_ns)]++;
	if (latency_ns > s->lat_max_ns)
		s->lat_max_ns = latency_ns;
	if (!t)
		return;
	if (op == NETIO_BLK_READ)
		t->blk_read_bytes += bytes;
	else if (op == NETIO_BLK_WRITE)
		t->blk_write_bytes += bytes;
	t->blk_requests++;
}

uint64_t netio_dev_quantile_ns(const struct netio_dev *d, double q)
{
	uint64_t n = 0, seen = 0;

	for (int i = 0; i < NETIO_LAT_BUCKETS; i++)
		n += d->lat_hist[i];
	if (n == 0)
		return 0;
	double rank = q * (double)n;
	for (int i = 0; i < NETIO_LAT_BUCKETS; i++) {
		uint64_t c = d->lat_hist[i];
		if (c == 0 || (double)(seen + c) < rank) {
			seen += c;
			continue;
		}
		double lo = i ? (double)(1ull << i) : 0, hi = (double)(1ull << i) * 2;
		double v = lo + (hi - lo) * ((rank - (double)seen) / (double)c);
		if (v > (double)d->lat_max_ns)
			v = (double)d->lat_max_ns;
		return (uint64_t)v;
	}
	return d->lat_max_ns;
}

void netio_add_json(cJSON *o, const struct netio_totals *t)
{
	cJSON *n = cJSON_AddObjectToObject(o, "net");
	cJSON *b;

	if (n) {
		json_add_u64(n, "sent_bytes", t->tcp_sent + t->udp_sent + t->other_sent);
		json_add_u64(n, "recv_bytes", t->tcp_recv + t->udp_recv + t->other_recv);
		json_add_u64(n, "tcp_sent_bytes", t->tcp_sent);
		json_add_u64(n, "tcp_recv_bytes", t->tcp_recv);
		json_add_u64(n, "udp_sent_bytes", t->udp_sent);
		json_add_u64(n, "udp_recv_bytes", t->udp_recv);
		json_add_u64(n, "unix_sent_bytes", t->unix_sent);
		json_add_u64(n, "unix_recv_bytes", t->unix_recv);
		json_add_u64(n, "other_sent_bytes", t->other_sent);
		json_add_u64(n, "other_recv_bytes", t->other_recv);
		json_add_u64(n, "tcp_connects", t->tcp_connects);
		json_add_u64(n, "tcp_accepts", t->tcp_accepts);
		json_add_u64(n, "tcp_remote_endpoints", t->tcp_remotes);
		cJSON_AddBoolToObject(n, "tcp_remote_endpoints_capped", t->tcp_remotes_capped);
		if (t->tcp_remotes_partial)
			cJSON_AddBoolToObject(n, "tcp_remote_endpoints_partial", true);
	}
	b = cJSON_AddObjectToObject(o, "block");
	if (b) {
		json_add_u64(b, "read_bytes", t->blk_read_bytes);
		json_add_u64(b, "write_bytes", t->blk_write_bytes);
		json_add_u64(b, "requests", t->blk_requests);
	}
}

/* DEVNAME= of the device's uevent, or "" */
static void dev_name(uint32_t dev, char *out, size_t len)
{
	char path[64], line[128];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", dev >> MINORBITS,
		 dev & ((1u << MINORBITS) - 1));
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "DEVNAME=", 8) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, len, "%s", line + 8);
			break;
		}
	}
	fclose(f);
}

static cJSON *dev_json(const struct netio_dev *d)
{
	cJSON *o = cJSON_CreateObject();
	char name[64], num[32];

	if (!o)
		return NULL;
	if (d->dev) {
		dev_name(d->dev, name, sizeof(name));
		snprintf(num, sizeof(num), "%u:%u", d->dev >> MINORBITS,
			 d->dev & ((1u << MINORBITS) - 1));
		json_add_str(o, "device", name[0] ? name : num);
		json_add_str(o, "dev", num);
	} else {
		json_add_str(o, "device", "(other devices)");
	}
	json_add_u64(o, "read_bytes", d->read_bytes);
	json_add_u64(o, "write_bytes", d->write_bytes);
	json_add_u64(o, "requests", d->requests);
	json_add_secs(o, "latency_p50_s", netio_dev_quantile_ns(d, 0.50));
	json_add_secs(o, "latency_p99_s", netio_dev_quantile_ns(d, 0.99));
	json_add_secs(o, "latency_max_s", d->lat_max_ns);
	return o;
}

cJSON *netio_devs_json(const struct netio_devs *d)
{
	cJSON *a = cJSON_CreateArray();

	if (!a)
		return NULL;
	for (int i = 0; i < d->ndevs; i++)
		cJSON_AddItemToArray(a, dev_json(&d->dev[i]));
	if (d->dev[NETIO_MAX_DEVS].requests)
		cJSON_AddItemToArray(a, dev_json(&d->dev[NETIO_MAX_DEVS]));
	return a;
}
