/*
 * netio_kernel.h - the kernel's per-process network and block counters
 * (struct tracer_netio, bpf/netio_record.h) into the job model's
 * netio_totals (lib/netio.h).  Kept in daemon/, the only part that reads
 * BPF records, so that lib/ depends on no BPF header.
 */
#ifndef TRACERD_NETIO_KERNEL_H
#define TRACERD_NETIO_KERNEL_H

#include "netio.h"

struct tracer_netio;

/* k into t; the fields the kernel does not keep (distinct endpoints) are
 * left alone. */
void netio_kernel_to_totals(struct netio_totals *t, const struct tracer_netio *k);

#endif
