/*
 * tracerd_priv.h - the daemon's state, shared by the files of its main
 * program (tracerd.c: the event loop; status_reply.c: the status reply
 * and the per-user shares).  Only the loop touches it.
 */
#ifndef TRACERD_PRIV_H
#define TRACERD_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "admission.h"
#include "archive.h"
#include "bpf_loader.h"
#include "config.h"
#include "daemonconf.h"
#include "delivery.h"
#include "hostinfo.h"
#include "idlehost.h"
#include "jobs.h"
#include "metrics_http.h"
#include "privacy.h"
#include "rules.h"
#include "server.h"

struct tracerd {
	struct daemonconf conf;
	struct tracer_config cfg;
	struct host_info host;
	struct rules *rules;
	struct delivery *delivery;
	struct bpf_loader *bpf;
	struct server *server;
	struct jobs jobs;
	struct admission admission;
	struct privacy privacy;
	int epfd, sigfd, timerfd;
	struct server_watch ringbuf_w, signal_w, timer_w;
	uint64_t started_mono_ns, last_sample_ns;
	bool stop;
	bool expire_due;
	bool ringbuf_ready; /* records to read: a batch after the sockets */
	struct metrics_http *metrics; /* NULL: metrics_listen off */
	uint64_t started_real_s;
	struct idle_host idle;        /* node-level idle_host (idlehost.h) */
	struct archive *archive; /* users' questions about finished jobs */
	/* registration replies held until the journal has their jobs */
	struct held_reply {
		uint64_t ticket;
		char *reply;
	} *held;
	size_t nheld, held_cap;
};

/* Each per-user limit and what it refused or dropped (jobs.h). */
void status_reply_shares(struct tracerd *d, const __u64 *kernel,
			 const struct delivery_stats *ds, struct jobs_shares *sh);
/* The status request's reply line (malloc'd), as the peer may see it. */
char *status_reply_render(struct tracerd *d, const struct peer *peer);

#endif
