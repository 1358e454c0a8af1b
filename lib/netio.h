/*
 * netio.h - network and block I/O of a process, a tool or a job, and the
 * job's block devices: the counters tracerd gets from its socket and
 * block programs (bpf/netio.bpf.h; daemon/netio_kernel.c turns the
 * kernel's records into these counters), how they add up, and their JSON.
 *
 * Socket bytes are payload moved by the process's own send/receive calls.
 * Block bytes are requests the process itself submitted (direct I/O,
 * page-cache misses, fsync of its files); dirty pages written back later
 * by the kernel's flusher threads belong to no process (see
 * docs/schema.md, "Network and block I/O").
 */
#ifndef TRACER_NETIO_H
#define TRACER_NETIO_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct netio_totals {
	uint64_t tcp_sent, tcp_recv;
	uint64_t udp_sent, udp_recv;
	uint64_t unix_sent, unix_recv;
	uint64_t other_sent, other_recv;
	uint64_t tcp_connects, tcp_accepts;
	uint64_t blk_read_bytes, blk_write_bytes, blk_requests;
	/* distinct TCP remote endpoints (address, port) it connected to or
	 * accepted from: not a sum, set per process, tool and job
	 * (netpeers.c); capped: the count is a lower bound */
	uint64_t tcp_remotes;
	bool tcp_remotes_capped;
	/* the endpoints seen before a tracerd restart were lost: the count
	 * covers those seen since only (job and tools) */
	bool tcp_remotes_partial;
};

#define NETIO_MAX_DEVS 8     /* devices kept per job; beyond: "other" */
#define NETIO_LAT_BUCKETS 40 /* log2 of latency in ns: up to ~18 minutes */

struct netio_dev {
	uint32_t dev; /* kernel dev_t: major << 20 | minor (0: the "other" slot) */
	uint64_t read_bytes, write_bytes, requests;
	uint64_t lat_max_ns;
	uint64_t lat_hist[NETIO_LAT_BUCKETS]; /* [i]: latency in [2^i, 2^(i+1)) ns */
};

struct netio_devs {
	int ndevs;
	struct netio_dev dev[NETIO_MAX_DEVS + 1]; /* the last: other devices */
};

/* op: 0 read, 1 write, 2 other (TRACER_BLK_*) */
#define NETIO_BLK_READ 0
#define NETIO_BLK_WRITE 1

/* Adds the counters of t to sum; distinct counts (tcp_remotes) do not
 * add up and are left alone. */
void netio_totals_add(struct netio_totals *sum, const struct netio_totals *t);

/* A finished block request: counted in the device table, and in t
 * unless NULL (a process's bytes come from the kernel's counters:
 * netio_kernel_to_totals in daemon/). */
void netio_note_block(struct netio_totals *t, struct netio_devs *d, uint32_t dev,
		      uint32_t op, uint64_t bytes, uint64_t latency_ns);

/* Latency at quantile q (0..1), interpolated inside its log2 bucket. */
uint64_t netio_dev_quantile_ns(const struct netio_dev *d, double q);

/* What a network counting mode ("per_call", "tcp_close_totals", "none":
 * docs/schema.md, net_counting) does not see, as a JSON array of names:
 * "tcp", "tcp_open_connections", "udp", "unix", "other". */
cJSON *netio_not_counted_json(const char *mode);

/* Adds "net" and "block" objects (units in docs/schema.md) to o. */
void netio_add_json(cJSON *o, const struct netio_totals *t);

/* The job's devices as a JSON array (names from /sys/dev/block). */
cJSON *netio_devs_json(const struct netio_devs *d);

#endif
