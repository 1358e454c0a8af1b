/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * netio_peer.h - the TCP remote endpoint record of the network programs
 * (netio.bpf.h), read by tracerd (daemon/events.c), which counts the
 * distinct endpoints per process, tool and job (lib/netpeers.c).
 * Included after tracer.h.
 */
#ifndef TRACER_BPF_NETIO_PEER_H
#define TRACER_BPF_NETIO_PEER_H

/*
 * The remote end of a TCP connection of a tagged process, sent once per
 * connect (in its context) and per accepted connection (when first seen:
 * its first data move, or its close in close-time totals mode).
 */
#define TRACER_EV_TCP_PEER 17 /* enum tracer_event_type (tracer.h) */
#define TRACER_TCP_CONNECTED 0
#define TRACER_TCP_ACCEPTED 1

struct tracer_tcp_peer_event {
	struct tracer_event_hdr hdr; /* pid: the process's tgid */
	__u16 family;  /* AF_INET or AF_INET6 */
	__u16 port;    /* remote port, host order */
	__u32 kind;    /* TRACER_TCP_* */
	__u8 addr[16]; /* remote address: IPv4 in the first 4 bytes */
};

#endif /* TRACER_BPF_NETIO_PEER_H */
