/*
 * peer.h - is the process that connected to tracerd's socket still the
 * one the pid from SO_PEERCRED names?  A registrant that exits after
 * connecting frees its pid; a process of another user that gets the pid
 * must not be tagged into the registrant's job.  With SO_PEERPIDFD
 * (Linux 6.5) the connection holds a pidfd, which names the process, not
 * the number; before that, the pid's owner and start time are compared
 * with what they were when the connection was accepted.
 */
#ifndef TRACERD_PEER_H
#define TRACERD_PEER_H

#include <stdint.h>
#include <sys/socket.h>

struct peer_proof {
	int pidfd;             /* -1: the kernel has no SO_PEERPIDFD */
	uint64_t start_ticks;  /* fallback: start time at accept (0: unknown) */
};

/* At accept: take the proof for the connection's peer.  0, or -1 when
 * the peer is already gone (its pid may be someone else's). */
int peer_proof_take(int fd, const struct ucred *peer, struct peer_proof *pp);

/* At the request: 1 when the pid is still the peer's process, 0 if not. */
int peer_proof_holds(const struct ucred *peer, const struct peer_proof *pp);

void peer_proof_drop(struct peer_proof *pp);

#endif
