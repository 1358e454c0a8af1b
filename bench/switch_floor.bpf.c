// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * switch_floor.bpf.c - an empty program on tp_btf/sched_switch, for
 * bench/switch.sh only: what any program on this tracepoint costs per
 * context switch (the kernel's call into it, and bpf_stats' own clock
 * reads when they are on), the floor that tracer_switch is measured
 * against.  Loaded and attached by bench/switch_floor.c.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sched_switch")
int BPF_PROG(switch_floor)
{
	return 0;
}
