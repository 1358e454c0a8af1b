/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * netio_record.h - the network and block I/O part of the BPF/user-space contract
 * (programs in netio.bpf.h): per-process socket byte and connection
 * counters, appended to the per-process state and the exit record, and
 * the block request operations (the record itself is in tracer.h).
 * Included by tracer.h only (the TCP endpoint record: netio_peer.h).
 */
#ifndef TRACER_BPF_NETIO_RECORD_H
#define TRACER_BPF_NETIO_RECORD_H

/*
 * Socket traffic of one process, counted by the thread that moves the
 * data (sock:sock_send_length / sock:sock_recv_length: every sendmsg and
 * recvmsg of any socket family, whatever the system call).  Bytes are the
 * payload handed to or taken from the socket (headers not included).
 */
struct tracer_netio {
	__u64 tcp_sent, tcp_recv;     /* AF_INET/AF_INET6, TCP or MPTCP */
	__u64 udp_sent, udp_recv;     /* AF_INET/AF_INET6, UDP or UDP-Lite */
	__u64 unix_sent, unix_recv;   /* AF_UNIX, any type */
	__u64 other_sent, other_recv; /* any other family or protocol */
	__u64 tcp_connects; /* connect() started: CLOSE -> SYN_SENT in its context */
	__u64 tcp_accepts;  /* TCP connections it moved data on but did not
			       connect itself: accepted (or inherited) ones */
	/* Block I/O it asked for, counted in its own context when asked:
	 * requests it started (block:block_io_start: their bytes then) plus
	 * the bios it had merged into requests already started, its own or
	 * another's (block:block_bio_backmerge/frontmerge).  Counting here
	 * rather than at completion needs no record that could be lost or
	 * arrive after its exit, and survives a tracerd restart. */
	__u64 blk_read_bytes, blk_write_bytes;
	__u64 blk_requests; /* requests started (merged bios are not requests) */
};

/* tracer_blkio_event.op */
#define TRACER_BLK_READ 0
#define TRACER_BLK_WRITE 1
#define TRACER_BLK_OTHER 2 /* flush, discard, ... */

#endif /* TRACER_BPF_NETIO_RECORD_H */
