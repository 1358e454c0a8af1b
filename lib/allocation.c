/*
 * allocation.c - the allocation on the topology and its use (allocation.h).
 */
#include "allocation.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define MAX_CPUS 4096

void allocation_note_cpu_busy(struct job *j, int cpu, int host_cpus)
{
	int n = host_cpus > 0 ? host_cpus : 1;

	if (cpu < 0 || cpu >= MAX_CPUS)
		return;
	if (!j->cpu_busy) {
		if (n < cpu + 1)
			n = cpu + 1;
		if (n > MAX_CPUS)
			n = MAX_CPUS;
		j->cpu_busy = calloc((size_t)n, sizeof(*j->cpu_busy));
		if (!j->cpu_busy)
			return;
		j->ncpu_busy = n;
	}
	if (cpu < j->ncpu_busy)
		j->cpu_busy[cpu]++;
}

void allocation_note_concurrency(struct job *j, int running)
{
	if (running < 0)
		running = 0;
	if (running > JOB_CONC_MAX)
		running = JOB_CONC_MAX;
	j->conc_hist[running]++;
	j->cpu_samples++;
}

int allocation_cpulist_parse(const char *s, unsigned char *mask, int n)
{
	int count = 0;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0)
			return -1;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -1;
			s = end;
		}
		for (long c = a; c <= b && c < n; c++)
			if (!mask[c]) {
				mask[c] = 1;
				count++;
			}
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return count;
}

int allocation_concurrency_pct(const struct job *j, double p)
{
	uint64_t seen = 0, want;

	if (!j->cpu_samples)
		return 0;
	want = (uint64_t)((p / 100.0) * (double)j->cpu_samples + 0.999999);
	if (want < 1)
		want = 1;
	for (int i = 0; i <= JOB_CONC_MAX; i++) {
		seen += j->conc_hist[i];
		if (seen >= want)
			return i;
	}
	return JOB_CONC_MAX;
}

/* core and NUMA node of each PU, by OS index, from hwloc (loaded once) */
struct topo_map {
	int n;
	int core[MAX_CPUS], numa[MAX_CPUS];
};

static const struct topo_map *topo(void)
{
	static struct topo_map m;
	static int loaded;
	hwloc_topology_t t;

	if (loaded)
		return m.n ? &m : NULL;
	loaded = 1;
	if (hwloc_topology_init(&t) != 0)
		return NULL;
	if (hwloc_topology_load(t) == 0) {
		int npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);

		for (int i = 0; i < npu; i++) {
			hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, i);
			hwloc_obj_t core, node;
			unsigned os;

			if (!pu || pu->os_index >= MAX_CPUS)
				continue;
			os = pu->os_index;
			core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
			m.core[os] = core ? (int)core->os_index : (int)os;
			node = NULL;
			if (pu->nodeset) {
				int first = hwloc_bitmap_first(pu->nodeset);
				m.numa[os] = first >= 0 ? first : 0;
			} else {
				m.numa[os] = node ? (int)node->os_index : 0;
			}
			if ((int)os + 1 > m.n)
				m.n = (int)os + 1;
		}
	}
	hwloc_topology_destroy(t);
	return m.n ? &m : NULL;
}

/* "1-3,7" from a 0/1 array */
static void list_form(const unsigned char *set, int n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		int k = i;

		if (!set[i])
			continue;
		while (k + 1 < n && set[k + 1])
			k++;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
					 "%s%d", used ? "," : "", i);
		if (k > i)
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
						 "-%d", k);
		if (used >= len)
			break;
		i = k;
	}
}

cJSON *allocation_use_json(const struct job *j, const struct host_info *host,
			   double idle_share)
{
	static unsigned char alloc[MAX_CPUS], idle[MAX_CPUS], core_seen[MAX_CPUS],
		core_busy[MAX_CPUS], numa_seen[MAX_CPUS], numa_busy[MAX_CPUS];
	const struct topo_map *tm = topo();
	int n = host->cpus > 0 ? host->cpus : 1, nalloc;
	cJSON *o, *cpus, *c;
	char buf[1024];

	if (!j->cpu_samples)
		return NULL;
	if (n > MAX_CPUS)
		n = MAX_CPUS;
	memset(alloc, 0, sizeof(alloc));
	memset(idle, 0, sizeof(idle));
	memset(core_seen, 0, sizeof(core_seen));
	memset(core_busy, 0, sizeof(core_busy));
	memset(numa_seen, 0, sizeof(numa_seen));
	memset(numa_busy, 0, sizeof(numa_busy));
	nalloc = j->id.alloc.cpuset[0] ? allocation_cpulist_parse(j->id.alloc.cpuset, alloc, n) : -1;
	if (nalloc <= 0) { /* no CPU list: the whole host */
		memset(alloc, 1, (size_t)n);
		nalloc = n;
	}
	o = cJSON_CreateObject();
	if (!o)
		return NULL;
	json_add_str(o, "method", "sampled");
	json_add_u64(o, "samples", j->cpu_samples);
	cpus = cJSON_AddArrayToObject(o, "cpus");
	for (int i = 0; i < n && cpus; i++) {
		double busy;
		int core, numa;

		if (!alloc[i])
			continue;
		busy = (j->cpu_busy && i < j->ncpu_busy) ?
			       (double)j->cpu_busy[i] / (double)j->cpu_samples : 0.0;
		if (busy > 1.0)
			busy = 1.0;
		core = tm && i < tm->n ? tm->core[i] : i;
		numa = tm && i < tm->n ? tm->numa[i] : 0;
		if (core < 0 || core >= MAX_CPUS)
			core = 0;
		if (numa < 0 || numa >= MAX_CPUS)
			numa = 0;
		c = cJSON_CreateObject();
		if (!c)
			break;
		cJSON_AddNumberToObject(c, "cpu", i);
		cJSON_AddNumberToObject(c, "core", core);
		cJSON_AddNumberToObject(c, "numa_node", numa);
		cJSON_AddNumberToObject(c, "busy", busy);
		cJSON_AddItemToArray(cpus, c);
		idle[i] = busy < idle_share;
		core_seen[core] = numa_seen[numa] = 1;
		if (!idle[i])
			core_busy[core] = numa_busy[numa] = 1;
	}
	list_form(alloc, n, buf, sizeof(buf));
	json_add_str(o, "allocated_cpus", buf);
	list_form(idle, n, buf, sizeof(buf));
	json_add_str(o, "idle_cpus", buf);
	for (int i = 0; i < MAX_CPUS; i++) {
		core_seen[i] = core_seen[i] && !core_busy[i];
		numa_seen[i] = numa_seen[i] && !numa_busy[i];
	}
	list_form(core_seen, MAX_CPUS, buf, sizeof(buf));
	json_add_str(o, "idle_cores", buf);
	list_form(numa_seen, MAX_CPUS, buf, sizeof(buf));
	json_add_str(o, "idle_numa_nodes", buf);
	c = cJSON_AddObjectToObject(o, "concurrency");
	if (c) {
		cJSON_AddNumberToObject(c, "p50", allocation_concurrency_pct(j, 50));
		cJSON_AddNumberToObject(c, "p95", allocation_concurrency_pct(j, 95));
		cJSON_AddNumberToObject(c, "max", allocation_concurrency_pct(j, 100));
	}
	return o;
}
