/*
 * idlehost.c - is the node idle (idlehost.h).  Nothing here blocks: one
 * read of /proc/stat per sampling tick.
 */
#include "idlehost.h"

#include "clock.h"
#include "json.h"
#include "log.h"

void idle_host_init(struct idle_host *h)
{
	*h = (struct idle_host){.cpu_share = -1};
}

void idle_host_tick(struct idle_host *h, bool jobs_open, double share_max, int after_s,
		    uint64_t now_mono_ns)
{
	struct procfs_cpu_ticks now;
	bool quiet;

	if (procfs_read_cpu_ticks(&now) != 0)
		return; /* keep the state: one bad read says nothing */
	if (h->prev.total && now.total > h->prev.total)
		h->cpu_share = (double)(now.busy - h->prev.busy) / (double)(now.total - h->prev.total);
	h->prev = now;
	quiet = !jobs_open && h->cpu_share >= 0 && h->cpu_share <= share_max;
	if (!quiet) {
		if (h->idle)
			log_info("idle_host ended: %s (host CPU busy %.0f%%)",
				 jobs_open ? "a job opened" : "CPU use rose", 100 * h->cpu_share);
		h->quiet_since_ns = 0;
		h->idle = false;
		return;
	}
	if (!h->quiet_since_ns)
		h->quiet_since_ns = now_mono_ns;
	if (!h->idle && now_mono_ns - h->quiet_since_ns >= (uint64_t)after_s * 1000000000ull) {
		h->idle = true;
		h->idle_since_real_s = clock_real_ns() / 1000000000ull;
		log_warn("idle_host: no job and host CPU busy at most %.0f%% for %d s (now %.1f%%)",
			 100 * share_max, after_s, 100 * h->cpu_share);
	}
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
