/*
 * netpeers.h - distinct TCP remote endpoints (address, port) of a job's
 * processes, tools and the job itself, from the connect and accept
 * records of the network programs.  One bounded table per job, made at
 * its first connection: at most TRACER_NET_PEERS_MAX (process, endpoint),
 * (tool, endpoint) and (job, endpoint) pairs; beyond, a new endpoint
 * cannot be told from a known one and the counts it would change are
 * marked capped (lower bounds).
 */
#ifndef TRACER_NETPEERS_H
#define TRACER_NETPEERS_H

#include <stdint.h>

struct job;
struct job_proc;
struct netpeers;

/* p (may be NULL: the job only) connected to or accepted from the
 * endpoint; addr holds 16 bytes (IPv4: the first 4, network order). */
void netpeers_note(struct job *j, struct job_proc *p, int family,
		   const uint8_t addr[16], uint16_t port);

/* Once the job's processes are folded (job_close): the tools' and the
 * job's counts into their totals. */
void netpeers_apply(struct job *j);

void netpeers_free(struct netpeers *np);

#endif
