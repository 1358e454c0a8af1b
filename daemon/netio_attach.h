/*
 * netio_attach.h - the optional programs of bpf/netio.bpf.h (sockets,
 * block I/O): loaded only where the kernel has their tracepoints, attached
 * after the process programs; their absence is logged and shows in the
 * program list of `tracer status`, and tracing goes on without them.
 */
#ifndef TRACER_NETIO_ATTACH_H
#define TRACER_NETIO_ATTACH_H

#include <stdbool.h>

struct tracer_bpf;
struct bpf_link;
struct bpf_program;

/*
 * Before load: turn off the programs whose tracepoint this kernel lacks.
 * Without sock_send_length/sock_recv_length (or with no_sock_length, a
 * test setting), TCP bytes are taken at close instead (netio.bpf.h).
 */
void netio_prepare(struct tracer_bpf *skel, bool no_sock_length);

/* How network bytes are counted, for `tracer status` and the summaries
 * (docs/schema.md, net_counting): "per_call", "tcp_close_totals", "none". */
const char *netio_net_mode(struct tracer_bpf *skel);

/* After load: attach the programs that were loaded; failures are logged.
 * They count once their generation is in `netio_gen` (netio.bpf.h). */
void netio_attach(struct tracer_bpf *skel);

/* The i-th netio program and its link slot (i from 0; NULL past the end). */
struct bpf_program *netio_program(struct tracer_bpf *skel, int i, struct bpf_link ***link);

#endif
