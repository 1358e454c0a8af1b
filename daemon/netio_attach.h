/*
 * netio_attach.h - the optional programs of bpf/netio.bpf.h (sockets,
 * block I/O): loaded only where the kernel has their tracepoints, attached
 * after the process programs; their absence is logged and shows in the
 * program list of `tracer status`, and tracing goes on without them.
 */
#ifndef TRACER_NETIO_ATTACH_H
#define TRACER_NETIO_ATTACH_H

struct tracer_bpf;
struct bpf_link;
struct bpf_program;

/* Before load: turn off the programs whose tracepoint this kernel lacks. */
void netio_prepare(struct tracer_bpf *skel);

/* After load: attach the programs that were loaded; failures are logged. */
void netio_attach(struct tracer_bpf *skel);

/* The i-th netio program and its link slot (i from 0; NULL past the end). */
struct bpf_program *netio_program(struct tracer_bpf *skel, int i, struct bpf_link ***link);

#endif
