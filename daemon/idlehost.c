/*
 * idlehost.c - is the node idle, and the record of each idle period
 * (idlehost.h).  Nothing here blocks: one read of /proc/stat per
 * sampling tick; the record is built from what the state holds (the DMI
 * files are read once, at start).
 */
#include "idlehost.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "defaults.h"
#include "json.h"
#include "log.h"
#include "summary.h"
#include "summary_id.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* The first line of DIR/name, trimmed, into out ("" when absent). */
static void dmi_read(const char *dir, const char *name, char *out, size_t len)
{
	char path[512], buf[128];
	ssize_t n;
	int fd;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT && errno != EACCES)
			log_debug("idle_host: %s: %s", path, strerror(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		log_debug("idle_host: read %s: %s", path, strerror(errno));
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	snprintf(out, len, "%s", buf);
}

/*
 * An EC2 instance names itself in its DMI (Nitro: board_asset_tag is the
 * instance id, product_name its type).  Local files read once: no call
 * to the metadata service.  Test hook TRACERD_TEST_DMI_DIR
 * (docs/configuration.md, "Test hooks"): tracerd's own environment.
 */
static void read_ec2(struct idle_host *h)
{
	const char *dir = getenv("TRACERD_TEST_DMI_DIR");
	char vendor[64], id[64], type[64];

	if (!dir || !*dir)
		dir = TRACER_DMI_DIR;
	dmi_read(dir, "sys_vendor", vendor, sizeof(vendor));
	if (strcmp(vendor, "Amazon EC2") != 0)
		return;
	dmi_read(dir, "board_asset_tag", id, sizeof(id));
	dmi_read(dir, "product_name", type, sizeof(type));
	if (strncmp(id, "i-", 2) == 0)
		snprintf(h->instance_id, sizeof(h->instance_id), "%s", id);
	snprintf(h->instance_type, sizeof(h->instance_type), "%s", type);
}

void idle_host_init(struct idle_host *h, const struct host_info *hi,
		    const struct tracer_config *cfg)
{
	*h = (struct idle_host){.cpu_share = -1};
	snprintf(h->hostname, sizeof(h->hostname), "%s", hi->hostname);
	h->cpus = hi->cpus;
	h->mem_bytes = hi->mem_bytes;
	read_ec2(h);
	h->cfg = cfg;
}

/* The hourly price of the host, read when a record is made (a reload
 * may change it): the instance's price when set (cost.c's "instance"
 * basis), else its CPUs and memory at the resources' prices; 0 none. */
static double price_hour(const struct idle_host *h, const char **keys)
{
	const struct tracer_config *cfg = h->cfg;

	if (cfg->price_instance_hour > 0) {
		*keys = "price_instance_hour";
		return cfg->price_instance_hour;
	}
	*keys = "price_cpu_hour,price_gb_hour";
	return h->cpus * cfg->price_cpu_hour + (double)h->mem_bytes / GIB * cfg->price_gb_hour;
}

static double busy_share(const struct procfs_cpu_ticks *a, const struct procfs_cpu_ticks *b)
{
	return b->total > a->total ? (double)(b->busy - a->busy) / (double)(b->total - a->total)
				   : 0;
}

/* The record of the period from the first quiet sample to now. */
static cJSON *period_record(const struct idle_host *h, const char *ended_by)
{
	uint64_t end = clock_real_ns(), start = h->quiet_real_ns;
	double secs = end > start ? (double)(end - start) / 1e9 : 0, price;
	const char *keys;
	char id[SUMMARY_ID_LEN];
	cJSON *r = cJSON_CreateObject(), *host, *ec2;

	if (!r)
		return NULL;
	summary_id_new(id);
	json_add_str(r, "record", SUMMARY_IDLE_HOST_RECORD);
	json_add_str(r, "schema", SUMMARY_IDLE_HOST_SCHEMA);
	json_add_str(r, "summary_id", id);
	host = cJSON_AddObjectToObject(r, "host");
	if (host) {
		json_add_str(host, "hostname", h->hostname);
		cJSON_AddNumberToObject(host, "cpus", h->cpus);
		json_add_u64(host, "mem_bytes", h->mem_bytes);
	}
	if (h->cluster[0])
		json_add_str(r, "cluster", h->cluster);
	json_add_time(r, "start", start);
	json_add_time(r, "end", end);
	json_add_u64_text(r, "start_ns", start);
	json_add_u64_text(r, "end_ns", end);
	json_add_secs(r, "idle_s", end > start ? end - start : 0);
	cJSON_AddNumberToObject(r, "cpu_share_busy",
				(double)(int64_t)(busy_share(&h->quiet_ticks, &h->prev) * 1e6) / 1e6);
	json_add_str(r, "ended_by", ended_by);
	if (h->instance_type[0] || h->instance_id[0]) {
		ec2 = cJSON_AddObjectToObject(r, "ec2");
		if (ec2 && h->instance_id[0])
			json_add_str(ec2, "instance_id", h->instance_id);
		if (ec2 && h->instance_type[0])
			json_add_str(ec2, "instance_type", h->instance_type);
	}
	price = price_hour(h, &keys);
	if (price > 0) {
		cJSON *c = cJSON_AddObjectToObject(r, "cost");

		if (c) {
			cJSON_AddNumberToObject(c, "price_hour", price);
			json_add_str(c, "price_keys", keys);
			cJSON_AddNumberToObject(c, "total", secs / 3600 * price);
		}
	}
	return r;
}

cJSON *idle_host_tick(struct idle_host *h, bool jobs_open, const char *cluster,
		      double share_max, int after_s, uint64_t now_mono_ns)
{
	struct procfs_cpu_ticks now;
	cJSON *rec = NULL;
	bool quiet;

	if (cluster && *cluster)
		snprintf(h->cluster, sizeof(h->cluster), "%s", cluster);
	if (procfs_read_cpu_ticks(&now) != 0)
		return NULL; /* keep the state: one bad read says nothing */
	if (h->prev.total && now.total > h->prev.total)
		h->cpu_share = (double)(now.busy - h->prev.busy) / (double)(now.total - h->prev.total);
	quiet = !jobs_open && h->cpu_share >= 0 && h->cpu_share <= share_max;
	if (!quiet) {
		if (h->idle) {
			log_info("idle_host ended: %s (host CPU busy %.0f%%)",
				 jobs_open ? "a job opened" : "CPU use rose", 100 * h->cpu_share);
			/* the CPU share up to the last quiet sample */
			rec = period_record(h, jobs_open ? "job" : "cpu");
			if (!rec)
				log_error("idle_host: out of memory: the period's record is lost");
		}
		h->prev = now;
		h->quiet_since_ns = 0;
		h->idle = false;
		return rec;
	}
	if (!h->quiet_since_ns) {
		h->quiet_since_ns = now_mono_ns;
		h->quiet_real_ns = clock_real_ns();
		/* the CPU share of the period counts from the sample before:
		 * the interval that was already quiet */
		h->quiet_ticks = h->prev.total ? h->prev : now;
	}
	h->prev = now;
	if (!h->idle && now_mono_ns - h->quiet_since_ns >= (uint64_t)after_s * 1000000000ull) {
		h->idle = true;
		h->idle_since_real_s = clock_real_ns() / 1000000000ull;
		log_warn("idle_host: no job and host CPU busy at most %.0f%% for %d s (now %.1f%%)",
			 100 * share_max, after_s, 100 * h->cpu_share);
	}
	return NULL;
}

cJSON *idle_host_stop(struct idle_host *h)
{
	struct procfs_cpu_ticks now;
	cJSON *rec;

	if (!h->idle)
		return NULL;
	if (procfs_read_cpu_ticks(&now) == 0)
		h->prev = now;
	rec = period_record(h, "stop");
	h->idle = false;
	h->quiet_since_ns = 0;
	if (!rec)
		log_error("idle_host: out of memory: the period's record is lost");
	return rec;
}

cJSON *idle_host_json(const struct idle_host *h, double share_max, int after_s)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddBoolToObject(o, "idle", h->idle);
	if (h->idle)
		json_add_u64(o, "since", h->idle_since_real_s);
	if (h->cpu_share >= 0)
		cJSON_AddNumberToObject(o, "cpu_share", h->cpu_share);
	cJSON_AddNumberToObject(o, "cpu_share_max", share_max);
	cJSON_AddNumberToObject(o, "after_s", after_s);
	return o;
}
