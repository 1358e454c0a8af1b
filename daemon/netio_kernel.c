/*
 * netio_kernel.c - a BPF record's socket and block counters into the
 * job model (netio_kernel.h).
 */
#include "netio_kernel.h"

#include <linux/types.h>

#include "tracer.h" /* struct tracer_netio (bpf/netio_record.h) */

void netio_kernel_to_totals(struct netio_totals *t, const struct tracer_netio *k)
{
	t->tcp_sent = k->tcp_sent;
	t->tcp_recv = k->tcp_recv;
	t->udp_sent = k->udp_sent;
	t->udp_recv = k->udp_recv;
	t->unix_sent = k->unix_sent;
	t->unix_recv = k->unix_recv;
	t->other_sent = k->other_sent;
	t->other_recv = k->other_recv;
	t->tcp_connects = k->tcp_connects;
	t->tcp_accepts = k->tcp_accepts;
	t->blk_read_bytes = k->blk_read_bytes;
	t->blk_write_bytes = k->blk_write_bytes;
	t->blk_requests = k->blk_requests;
}
