/*
 * netio_attach.c - load and attach the socket and block I/O programs
 * (bpf/netio.bpf.h) only where the kernel has their tracepoints: tp_btf
 * programs fail to load without the tracepoint's BTF type, so each is
 * checked in the kernel's BTF first (sock:sock_send_length appeared in
 * v6.3, block:block_io_start in v6.5; the bio merge tracepoints are
 * older and go with block_io_start).  Without them, processes are still
 * followed; their network or block columns stay empty and the log says why,
 * except that TCP bytes then come from the connection totals at close.
 */
#include "netio_attach.h"

#include <errno.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "tracer.skel.h"

/* the programs, with the BTF typedef of their tracepoint */
static const char *const netio_tp[] = {
	"btf_trace_sock_send_length", "btf_trace_sock_recv_length",
	"btf_trace_inet_sock_set_state", "btf_trace_block_io_start",
	"btf_trace_block_rq_complete", "btf_trace_block_io_done",
	"btf_trace_block_bio_backmerge", "btf_trace_block_bio_frontmerge",
};

struct bpf_program *netio_program(struct tracer_bpf *skel, int i, struct bpf_link ***link)
{
	struct bpf_program *progs[] = {
		skel->progs.tracer_sock_send, skel->progs.tracer_sock_recv,
		skel->progs.tracer_sock_state, skel->progs.tracer_blk_start,
		skel->progs.tracer_blk_complete, skel->progs.tracer_blk_done,
		skel->progs.tracer_blk_backmerge, skel->progs.tracer_blk_frontmerge,
	};
	struct bpf_link **links[] = {
		&skel->links.tracer_sock_send, &skel->links.tracer_sock_recv,
		&skel->links.tracer_sock_state, &skel->links.tracer_blk_start,
		&skel->links.tracer_blk_complete, &skel->links.tracer_blk_done,
		&skel->links.tracer_blk_backmerge, &skel->links.tracer_blk_frontmerge,
	};

	if (i < 0 || i >= (int)(sizeof(progs) / sizeof(progs[0])))
		return NULL;
	if (link)
		*link = links[i];
	return progs[i];
}

void netio_prepare(struct tracer_bpf *skel, bool no_sock_length)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct bpf_program *prog;

	if (!vmlinux) {
		log_warn("read kernel BTF: %s: network and block I/O not followed",
			 strerror(errno));
		for (int i = 0; (prog = netio_program(skel, i, NULL)); i++)
			bpf_program__set_autoload(prog, false);
		return;
	}
	for (int i = 0; (prog = netio_program(skel, i, NULL)); i++) {
		if (btf__find_by_name_kind(vmlinux, netio_tp[i], BTF_KIND_TYPEDEF) >= 0)
			continue;
		log_warn("kernel has no tracepoint for %s (%s): %s not followed",
			 bpf_program__name(prog), netio_tp[i] + strlen("btf_trace_"),
			 i < 3 ? "network traffic" : "block I/O");
		bpf_program__set_autoload(prog, false);
	}
	btf__free(vmlinux);
	/* merged bios add to the bytes of requests counted at their start */
	if (!bpf_program__autoload(skel->progs.tracer_blk_start)) {
		bpf_program__set_autoload(skel->progs.tracer_blk_backmerge, false);
		bpf_program__set_autoload(skel->progs.tracer_blk_frontmerge, false);
	}
	/* sock_send_length and sock_recv_length go together (v6.3) */
	if (no_sock_length || !bpf_program__autoload(skel->progs.tracer_sock_send) ||
	    !bpf_program__autoload(skel->progs.tracer_sock_recv)) {
		bpf_program__set_autoload(skel->progs.tracer_sock_send, false);
		bpf_program__set_autoload(skel->progs.tracer_sock_recv, false);
		if (bpf_program__autoload(skel->progs.tracer_sock_state)) {
			skel->rodata->net_close_totals = true;
			log_info("network: TCP bytes counted at close (%s); UDP and Unix not counted",
				 no_sock_length ? "test_no_sock_length set"
						: "no sock_send_length/sock_recv_length");
		}
	}
}

const char *netio_net_mode(struct tracer_bpf *skel)
{
	if (skel->links.tracer_sock_send && skel->links.tracer_sock_recv)
		return "per_call";
	if (skel->links.tracer_sock_state && skel->rodata->net_close_totals)
		return "tcp_close_totals";
	return "none";
}

void netio_attach(struct tracer_bpf *skel)
{
	struct bpf_program *prog;
	struct bpf_link **link;

	for (int i = 0; (prog = netio_program(skel, i, &link)); i++) {
		if (!bpf_program__autoload(prog))
			continue;
		*link = bpf_program__attach(prog);
		if (!*link)
			log_warn("attach %s (%s): %s: not followed", bpf_program__name(prog),
				 bpf_program__section_name(prog), strerror(errno));
	}
}
