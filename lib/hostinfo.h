/*
 * hostinfo.h - what the machine is: name, kernel, CPU model, topology
 * (hwloc: sockets, physical cores, logical CPUs, NUMA nodes) and memory.
 * Read once at start.
 */
#ifndef TRACER_HOSTINFO_H
#define TRACER_HOSTINFO_H

#include <stdint.h>
#include <cjson/cJSON.h>

struct host_info {
	char hostname[256];
	char kernel[256];
	char cpu_model[256];
	int cpus;       /* logical CPUs (PUs) */
	int cores;      /* physical cores */
	int sockets;
	int numa_nodes;
	uint64_t mem_bytes;
	long page_size;
};

/* Fill h; fields that cannot be read stay 0/"". Returns 0. */
int host_info_read(struct host_info *h);
cJSON *host_info_to_json(const struct host_info *h);

#endif
