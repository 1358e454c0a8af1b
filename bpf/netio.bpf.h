/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * netio.bpf.h - network and block I/O per process (counters in netio_record.h).
 * Included by tracer.bpf.c only, after the `procs`, `counters` and
 * `events` maps and their helpers.
 *
 * Sockets: sock:sock_send_length / sock:sock_recv_length fire in the
 * context of the thread moving the data, for every socket family; an
 * untagged process pays one `procs` lookup.  TCP connects are counted at
 * CLOSE -> SYN_SENT, which only connect() (and a fast-open sendmsg) makes,
 * in the caller's context.  An accepted connection changes state in
 * softirq context, which belongs to nobody: it is counted instead when
 * the process first moves data on a TCP socket it did not connect
 * (`net_socks` remembers the sockets seen; entries go at TCP_CLOSE).
 * Each connect and accept sends one record with the remote address and
 * port, from which tracerd counts the distinct remote endpoints.
 *
 * Close-time totals (net_close_totals, set by the loader when the kernel
 * has no sock_send_length/sock_recv_length before v6.3, or by the
 * test_no_sock_length setting): the byte programs are not loaded; TCP
 * bytes come instead from the tcp_sock counters (bytes_acked plus what is
 * still queued, bytes_received), read at the state changes of close()
 * and shutdown() (ESTABLISHED -> FIN_WAIT1, CLOSE_WAIT -> LAST_ACK: the
 * caller's context) and at the final change to CLOSE, which may run in
 * softirq context where `current` is anybody: what the socket gained
 * since is credited to its owner recorded in `net_socks` (the process
 * that connected it, or that first closed it: an accepted connection),
 * if that process is still followed.  A connection received by the
 * listening socket of a tagged process (`net_listen`) is that process's
 * from its start, and goes to the first process that closes it: one reset
 * before anybody read or closed it is still counted.  UDP and Unix bytes
 * are not counted in this mode (the summary's net_not_counted says so).
 *
 * Block I/O: block:block_io_start runs where the request is made (the
 * submitting process: direct I/O, page-cache misses, fsync of its own
 * files); page-cache writeback by the kernel's flusher threads starts in
 * those threads and is nobody's.  The process's bytes and requests are
 * counted there, in its `procs` entry, and so are the bios it submits
 * that the block layer merges into a request already started
 * (block:block_bio_backmerge/frontmerge, also in the submitter's
 * context): a request holds only its first bio at its start.  The
 * request is also remembered in `blk_reqs` (bounded LRU) and its end, in
 * interrupt context, sends one record with bytes and latency to tracerd,
 * which keeps them per device: at the completion of its last bytes
 * (block_rq_complete, before the issuer is woken), else at block_io_done.
 * An untagged process pays one lookup at each start and merge; a host
 * request one at each of block_rq_complete and block_io_done.
 */
#ifndef TRACER_NETIO_BPF_H
#define TRACER_NETIO_BPF_H

#include <bpf/bpf_endian.h>
#include "netio_peer.h"

#define NETIO_AF_UNIX 1
#define NETIO_AF_INET 2
#define NETIO_AF_INET6 10
#define NETIO_IPPROTO_TCP 6
#define NETIO_IPPROTO_UDP 17
#define NETIO_IPPROTO_UDPLITE 136
#define NETIO_IPPROTO_MPTCP 262
#define NETIO_MSG_PEEK 2
#define NETIO_TCP_ESTABLISHED 1
#define NETIO_TCP_SYN_SENT 2
#define NETIO_TCP_FIN_WAIT1 4
#define NETIO_TCP_SYN_RECV 3
#define NETIO_TCP_CLOSE 7
#define NETIO_TCP_CLOSE_WAIT 8
#define NETIO_TCP_LAST_ACK 9
#define NETIO_TCP_LISTEN 10
#define NETIO_REQ_OP_MASK 0xff /* include/linux/blk_types.h */
#define NETIO_REQ_OP_READ 0
#define NETIO_REQ_OP_WRITE 1
#define NETIO_MINORBITS 20     /* include/linux/kdev_t.h */
#define NETIO_MAX_SOCKS 16384
#define NETIO_MAX_BLK_REQS 4096
#define NETIO_MAX_LISTEN 1024

/* TCP totals at close instead of per call (see above); set before load */
const volatile bool net_close_totals = false;

/* a TCP socket of a tagged process: its owner, and what was credited */
struct net_sock {
	__u64 job;
	__u64 sent, recv; /* close-time totals already credited to the owner */
	__u32 tgid;
	__u32 from_listen; /* close-time totals: a connection its listening
			      socket received, that no process closed yet */
};

/* close-time totals: a listening TCP socket, by network namespace and port */
struct net_listen_key {
	__u32 netns;
	__u32 port;
};

/* close-time totals: the listening sockets of tagged processes, so that a
 * connection they receive is theirs from its start, even one reset
 * before any process accepted or closed it */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, NETIO_MAX_LISTEN);
	__type(key, struct net_listen_key);
	__type(value, struct net_sock);
} net_listen SEC(".maps");

/* TCP sockets a tagged process connected, moved data on or closed */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, NETIO_MAX_SOCKS);
	__type(key, __u64);
	__type(value, struct net_sock);
} net_socks SEC(".maps");

struct blk_req {
	__u64 job;
	__u64 start_ns;
	__u64 bytes; /* completed so far */
	__u32 tgid;
	__u32 dev;
	__u32 op;
	__u32 pad;
};

/* requests started by a tagged process, until their end: rq -> blk_req */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, NETIO_MAX_BLK_REQS);
	__type(key, __u64);
	__type(value, struct blk_req);
} blk_reqs SEC(".maps");

/*
 * Across a tracerd restart the previous tracerd's programs (pinned) and
 * ours both run for a moment: tracerd attaches ours first, then writes
 * its generation into `netio_gen` (shared: pinned), then detaches the old
 * ones.  Only the programs of the generation written there count, so an
 * event is counted once, never by neither (detaching first leaves a gap
 * of a few milliseconds: tracepoint probes wait for an RCU grace period).
 * Checked after the first lookup finds something: the untagged path
 * stays at one lookup.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} netio_gen SEC(".maps");

volatile __u64 netio_my_gen = 0; /* set by tracerd after load */

static __always_inline bool netio_active(void)
{
	__u32 k = 0;
	__u64 *g = bpf_map_lookup_elem(&netio_gen, &k);

	return g && *g == netio_my_gen;
}

static __always_inline struct tracer_proc *current_proc(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct tracer_proc *p = bpf_map_lookup_elem(&procs, &tgid);

	return p && netio_active() ? p : NULL;
}

/* The remote end of a connection of p: one record (tracerd counts the
 * distinct endpoints).  Addresses are as the socket holds them. */
static __always_inline void send_tcp_peer(struct tracer_proc *p, __u32 tgid,
					  const struct sock *sk, __u32 kind)
{
	struct tracer_tcp_peer_event *e;
	__u32 a4;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		drop_record(p->job);
		return;
	}
	fill_hdr(&e->hdr, TRACER_EV_TCP_PEER, tgid, p->job);
	e->family = BPF_CORE_READ(sk, __sk_common.skc_family);
	e->port = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
	e->kind = kind;
	__builtin_memset(e->addr, 0, sizeof(e->addr));
	if (e->family == NETIO_AF_INET6) {
		BPF_CORE_READ_INTO(&e->addr, sk, __sk_common.skc_v6_daddr.in6_u.u6_addr8);
	} else {
		a4 = BPF_CORE_READ(sk, __sk_common.skc_daddr);
		__builtin_memcpy(e->addr, &a4, sizeof(a4));
	}
	bpf_ringbuf_submit(e, wakeup_flag());
	count(TRACER_CNT_EVENTS);
}

/* Remember sk as tgid's; true when it was not known yet. */
static __always_inline bool own_sock(struct tracer_proc *p, __u32 tgid, const struct sock *sk,
				     __u64 flags)
{
	__u64 key = (__u64)(unsigned long)sk;
	struct net_sock n = {.job = p->job, .tgid = tgid};

	return bpf_map_update_elem(&net_socks, &key, &n, flags) == 0;
}

/* A TCP socket moving data for the first time in a tagged process that
 * did not connect it: an accepted (or inherited) connection. */
static __always_inline void note_tcp_sock(struct tracer_proc *p, struct sock *sk)
{
	__u64 key = (__u64)(unsigned long)sk;
	__u32 tgid;

	if (bpf_map_lookup_elem(&net_socks, &key))
		return;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (own_sock(p, tgid, sk, BPF_NOEXIST)) {
		tracer_atomic_add(&p->net.tcp_accepts, 1);
		send_tcp_peer(p, tgid, sk, TRACER_TCP_ACCEPTED);
	}
}

/* Close-time totals: what sk moved since the last credit goes to its
 * owner, if the owner is still followed in the same job.  Sent = bytes
 * acknowledged + bytes queued and not yet acknowledged (written by the
 * process; at the final CLOSE the queue is empty or was reset).  A
 * received connection nobody closed (reset, or never accepted) is the
 * listening socket's owner's, and counts as its accept. */
static __always_inline void credit_close_totals(struct net_sock *ns, const struct sock *sk)
{
	const struct tcp_sock *tp = (const struct tcp_sock *)sk;
	struct tracer_proc *owner = bpf_map_lookup_elem(&procs, &ns->tgid);
	__u64 sent, recv;
	__u32 queued;

	if (!owner || owner->job != ns->job)
		return;
	if (ns->from_listen) {
		ns->from_listen = 0;
		tracer_atomic_add(&owner->net.tcp_accepts, 1);
		send_tcp_peer(owner, ns->tgid, sk, TRACER_TCP_ACCEPTED);
	}
	queued = BPF_CORE_READ(tp, write_seq) - BPF_CORE_READ(tp, snd_una);
	sent = BPF_CORE_READ(tp, bytes_acked);
	if (queued < (1u << 30)) /* a sequence-space wrap would be garbage */
		sent += queued;
	recv = BPF_CORE_READ(tp, bytes_received);
	if (sent > ns->sent) {
		tracer_atomic_add(&owner->net.tcp_sent, sent - ns->sent);
		ns->sent = sent;
	}
	if (recv > ns->recv) {
		tracer_atomic_add(&owner->net.tcp_recv, recv - ns->recv);
		ns->recv = recv;
	}
}

/* close() or shutdown() of a TCP socket (close-time totals mode): in the
 * caller's context.  A socket it did not connect is an accepted one. */
static __always_inline void close_by_caller(const struct sock *sk)
{
	__u64 key = (__u64)(unsigned long)sk;
	struct tracer_proc *p = current_proc();
	struct net_sock *ns;
	__u32 tgid;

	if (!p)
		return;
	ns = bpf_map_lookup_elem(&net_socks, &key);
	if (ns && ns->from_listen) {
		/* received by a listening socket: the closer accepted it (one
		 * process listens, another may serve) */
		ns->job = p->job;
		ns->tgid = bpf_get_current_pid_tgid() >> 32;
	}
	if (!ns) {
		tgid = bpf_get_current_pid_tgid() >> 32;
		if (!own_sock(p, tgid, sk, BPF_NOEXIST))
			return;
		tracer_atomic_add(&p->net.tcp_accepts, 1);
		send_tcp_peer(p, tgid, sk, TRACER_TCP_ACCEPTED);
		ns = bpf_map_lookup_elem(&net_socks, &key);
		if (!ns)
			return;
	}
	credit_close_totals(ns, sk);
}

static __always_inline int handle_sock_bytes(struct sock *sk, int ret, bool sent)
{
	struct tracer_proc *p;
	__u16 family, proto;
	__u64 *ctr;

	if (ret <= 0)
		return 0;
	p = current_proc();
	if (!p)
		return 0;
	family = BPF_CORE_READ(sk, __sk_common.skc_family);
	proto = BPF_CORE_READ(sk, sk_protocol);
	if (family == NETIO_AF_UNIX) {
		ctr = sent ? &p->net.unix_sent : &p->net.unix_recv;
	} else if (family != NETIO_AF_INET && family != NETIO_AF_INET6) {
		ctr = sent ? &p->net.other_sent : &p->net.other_recv;
	} else if (proto == NETIO_IPPROTO_TCP || proto == NETIO_IPPROTO_MPTCP) {
		ctr = sent ? &p->net.tcp_sent : &p->net.tcp_recv;
		note_tcp_sock(p, sk);
	} else if (proto == NETIO_IPPROTO_UDP || proto == NETIO_IPPROTO_UDPLITE) {
		ctr = sent ? &p->net.udp_sent : &p->net.udp_recv;
	} else {
		ctr = sent ? &p->net.other_sent : &p->net.other_recv;
	}
	tracer_atomic_add(ctr, (__u64)ret);
	return 0;
}

static __always_inline void listen_key(const struct sock *sk, struct net_listen_key *k)
{
	k->netns = BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
	k->port = BPF_CORE_READ(sk, __sk_common.skc_num);
}

/*
 * Close-time totals only: listen() (CLOSE -> LISTEN, the caller's
 * context) of a tagged process remembers the socket's owner; a connection
 * it receives (LISTEN -> SYN_RECV on the new socket, softirq) becomes the
 * owner's at once, so that its totals are credited at CLOSE even when no
 * process ever closes it.  One lookup per state change of any socket.
 */
static __always_inline void listen_state(const struct sock *sk, int oldstate, int newstate)
{
	struct net_listen_key k = {};
	struct tracer_proc *p;
	struct net_sock *l;
	__u64 key;

	if (newstate == NETIO_TCP_LISTEN && oldstate == NETIO_TCP_CLOSE) {
		p = current_proc();
		if (!p)
			return;
		struct net_sock n = {.job = p->job, .tgid = bpf_get_current_pid_tgid() >> 32};
		listen_key(sk, &k);
		bpf_map_update_elem(&net_listen, &k, &n, BPF_ANY);
	} else if (oldstate == NETIO_TCP_LISTEN && newstate == NETIO_TCP_SYN_RECV) {
		listen_key(sk, &k);
		l = bpf_map_lookup_elem(&net_listen, &k);
		if (!l || !netio_active())
			return;
		struct net_sock n = {.job = l->job, .tgid = l->tgid, .from_listen = 1};
		key = (__u64)(unsigned long)sk;
		bpf_map_update_elem(&net_socks, &key, &n, BPF_NOEXIST);
	} else if (oldstate == NETIO_TCP_LISTEN && newstate == NETIO_TCP_CLOSE) {
		listen_key(sk, &k);
		bpf_map_delete_elem(&net_listen, &k);
	}
}

static __always_inline int handle_sock_state(const struct sock *sk, int oldstate,
					     int newstate)
{
	__u64 key = (__u64)(unsigned long)sk;
	struct tracer_proc *p;
	struct net_sock *ns;
	__u32 tgid;

	if (net_close_totals &&
	    (oldstate == NETIO_TCP_LISTEN || newstate == NETIO_TCP_LISTEN)) {
		listen_state(sk, oldstate, newstate);
		return 0;
	}
	if (newstate == NETIO_TCP_CLOSE) {
		/* any context: only the owner recorded in the map is credited */
		ns = bpf_map_lookup_elem(&net_socks, &key);
		if (!ns || !netio_active())
			return 0;
		if (net_close_totals)
			credit_close_totals(ns, sk);
		bpf_map_delete_elem(&net_socks, &key);
		return 0;
	}
	if (newstate == NETIO_TCP_SYN_SENT && oldstate == NETIO_TCP_CLOSE) {
		p = current_proc(); /* connect(): the caller's context */
		if (!p)
			return 0;
		tracer_atomic_add(&p->net.tcp_connects, 1);
		tgid = bpf_get_current_pid_tgid() >> 32;
		own_sock(p, tgid, sk, BPF_ANY);
		send_tcp_peer(p, tgid, sk, TRACER_TCP_CONNECTED);
		return 0;
	}
	/* only tcp_close_state() (close(), shutdown()) makes these two */
	if (net_close_totals &&
	    ((oldstate == NETIO_TCP_ESTABLISHED && newstate == NETIO_TCP_FIN_WAIT1) ||
	     (oldstate == NETIO_TCP_CLOSE_WAIT && newstate == NETIO_TCP_LAST_ACK)))
		close_by_caller(sk);
	return 0;
}

/* Bytes p asked for, in its own context (netio_record.h): at a request's start
 * or at a bio's merge into a request already started. */
static __always_inline void count_blk_bytes(struct tracer_proc *p, __u32 op, __u64 bytes)
{
	if (op == NETIO_REQ_OP_READ)
		tracer_atomic_add(&p->net.blk_read_bytes, bytes);
	else if (op == NETIO_REQ_OP_WRITE)
		tracer_atomic_add(&p->net.blk_write_bytes, bytes);
}

static __always_inline int handle_blk_start(struct request *rq)
{
	__u64 key = (__u64)(unsigned long)rq;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32, op;
	struct tracer_proc *p = bpf_map_lookup_elem(&procs, &tgid);
	struct gendisk *disk;
	struct blk_req r = {};

	if (!p || !netio_active())
		return 0;
	op = BPF_CORE_READ(rq, cmd_flags) & NETIO_REQ_OP_MASK;
	/* the request holds its first bio only: later ones merge (below) */
	count_blk_bytes(p, op, BPF_CORE_READ(rq, __data_len));
	tracer_atomic_add(&p->net.blk_requests, 1);
	disk = BPF_CORE_READ(rq, q, disk);
	r.job = p->job;
	r.start_ns = bpf_ktime_get_ns();
	r.tgid = tgid;
	r.op = op == NETIO_REQ_OP_READ ? TRACER_BLK_READ
	       : op == NETIO_REQ_OP_WRITE ? TRACER_BLK_WRITE : TRACER_BLK_OTHER;
	if (disk)
		r.dev = ((__u32)BPF_CORE_READ(disk, major) << NETIO_MINORBITS) |
			(__u32)BPF_CORE_READ(disk, first_minor);
	if (bpf_map_update_elem(&blk_reqs, &key, &r, BPF_ANY))
		count(TRACER_CNT_DROP_BLKREQ);
	return 0;
}

static __always_inline int handle_blk_done(struct request *rq)
{
	__u64 key = (__u64)(unsigned long)rq;
	struct blk_req *r = bpf_map_lookup_elem(&blk_reqs, &key);
	struct tracer_blkio_event *e;

	if (!r || !netio_active())
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		drop_record(r->job); /* charged to the job */
		bpf_map_delete_elem(&blk_reqs, &key);
		return 0;
	}
	fill_hdr(&e->hdr, TRACER_EV_BLKIO, r->tgid, r->job);
	e->dev = r->dev;
	e->op = r->op;
	e->bytes = r->bytes;
	e->latency_ns = e->hdr.ts_ns - r->start_ns;
	bpf_map_delete_elem(&blk_reqs, &key);
	bpf_ringbuf_submit(e, wakeup_flag());
	count(TRACER_CNT_EVENTS);
	return 0;
}

/*
 * May run several times for one request (partial completions).  The call
 * that completes the last bytes sends the record at once: the bios end
 * right after this tracepoint and wake the issuer, which may then exit
 * on another CPU; a record sent later (block_io_done) could follow its
 * exit record, and its job's end.
 */
static __always_inline int handle_blk_complete(struct request *rq, unsigned int nr_bytes)
{
	__u64 key = (__u64)(unsigned long)rq;
	struct blk_req *r = bpf_map_lookup_elem(&blk_reqs, &key);

	if (!r || !netio_active())
		return 0;
	tracer_atomic_add(&r->bytes, nr_bytes);
	if (nr_bytes >= BPF_CORE_READ(rq, __data_len))
		return handle_blk_done(rq);
	return 0;
}

/* A bio merged into a request already started (by the plug or the I/O
 * scheduler), in the submitter's context: its bytes are the submitter's;
 * the request's record at completion carries them to the device table. */
static __always_inline int handle_blk_merge(struct bio *bio)
{
	struct tracer_proc *p = current_proc();

	if (!p)
		return 0;
	count_blk_bytes(p, BPF_CORE_READ(bio, bi_opf) & NETIO_REQ_OP_MASK,
			BPF_CORE_READ(bio, bi_iter.bi_size));
	return 0;
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(tracer_sock_send, struct sock *sk, int ret, int flags)
{
	return handle_sock_bytes(sk, ret, true);
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(tracer_sock_recv, struct sock *sk, int ret, int flags)
{
	if (flags & NETIO_MSG_PEEK) /* the data stays queued: counted when read */
		return 0;
	return handle_sock_bytes(sk, ret, false);
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(tracer_sock_state, const struct sock *sk, int oldstate, int newstate)
{
	return handle_sock_state(sk, oldstate, newstate);
}

SEC("tp_btf/block_io_start")
int BPF_PROG(tracer_blk_start, struct request *rq)
{
	return handle_blk_start(rq);
}

SEC("tp_btf/block_bio_backmerge")
int BPF_PROG(tracer_blk_backmerge, struct bio *bio)
{
	return handle_blk_merge(bio);
}

SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(tracer_blk_frontmerge, struct bio *bio)
{
	return handle_blk_merge(bio);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(tracer_blk_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	return handle_blk_complete(rq, nr_bytes);
}

SEC("tp_btf/block_io_done")
int BPF_PROG(tracer_blk_done, struct request *rq)
{
	return handle_blk_done(rq);
}

#endif /* TRACER_NETIO_BPF_H */
