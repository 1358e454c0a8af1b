/*
 * hostinfo.c - the machine's identity and topology (hostinfo.h).  hwloc
 * gives sockets, physical cores, logical CPUs and NUMA nodes the same way
 * on every architecture; uname and /proc/cpuinfo the rest.
 */
#include "hostinfo.h"

#include <hwloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "json.h"

static void read_cpu_model(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		/* x86: "model name"; arm64: "CPU part"-style only; ppc: "cpu" */
		if (strncmp(line, "model name", 10) == 0 || strncmp(line, "cpu\t", 4) == 0) {
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(buf, len, "%s", colon);
			break;
		}
	}
	fclose(f);
}

static int count_type(hwloc_topology_t topo, hwloc_obj_type_t type)
{
	int n = hwloc_get_nbobjs_by_type(topo, type);
	return n > 0 ? n : 0;
}

static void read_topology(struct host_info *h)
{
	hwloc_topology_t topo;

	if (hwloc_topology_init(&topo) != 0)
		return;
	if (hwloc_topology_load(topo) == 0) {
		h->cpus = count_type(topo, HWLOC_OBJ_PU);
		h->cores = count_type(topo, HWLOC_OBJ_CORE);
		h->sockets = count_type(topo, HWLOC_OBJ_PACKAGE);
		h->numa_nodes = count_type(topo, HWLOC_OBJ_NUMANODE);
	}
	hwloc_topology_destroy(topo);
}

int host_info_read(struct host_info *h)
{
	struct utsname u;
	long pages;

	memset(h, 0, sizeof(*h));
	if (gethostname(h->hostname, sizeof(h->hostname) - 1) != 0)
		snprintf(h->hostname, sizeof(h->hostname), "unknown");
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s %s %s", u.sysname,
			 u.release, u.machine);
	read_cpu_model(h->cpu_model, sizeof(h->cpu_model));
	read_topology(h);
	h->page_size = sysconf(_SC_PAGESIZE);
	if (h->cpus <= 0)
		h->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	pages = sysconf(_SC_PHYS_PAGES);
	if (!h->mem_bytes && pages > 0 && h->page_size > 0)
		h->mem_bytes = (uint64_t)pages * (uint64_t)h->page_size;
	return 0;
}

cJSON *host_info_to_json(const struct host_info *h)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	json_add_str(o, "hostname", h->hostname);
	json_add_str(o, "kernel", h->kernel);
	json_add_str(o, "cpu_model", h->cpu_model);
	cJSON_AddNumberToObject(o, "cpus", h->cpus);
	cJSON_AddNumberToObject(o, "cores", h->cores);
	cJSON_AddNumberToObject(o, "sockets", h->sockets);
	cJSON_AddNumberToObject(o, "numa_nodes", h->numa_nodes);
	json_add_u64(o, "mem_bytes", h->mem_bytes);
	return o;
}
