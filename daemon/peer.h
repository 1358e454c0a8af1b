/*
 * peer.h - is the process that connected to tracerd's socket still the
 * one the pid from SO_PEERCRED names?  A registrant that exits after
 * connecting frees its pid; a process of another user that gets the pid
 * must not be tagged into the registrant's job.  With SO_PEERPIDFD
 * (Linux 6.5) the connection holds a pidfd, which names the process, not
 * the number; before that, the pid's owner and start time are compared
 * with what they were when the connection was accepted.
 *
 * And who the peer is: without a user namespace, root in a container is
 * uid 0 in SO_PEERCRED, and a container that has tracerd's socket mounted
 * (AWS Batch's set-up) would be root to tracerd.  A peer outside
 * tracerd's pid namespace, or in a container's cgroup, is "contained":
 * never an administrator (unless admin_in_containers), and what it
 * registers belongs to its uid within its container only (its scope).
 */
#ifndef TRACERD_PEER_H
#define TRACERD_PEER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* scope of a peer whose pid tracerd cannot see or read: no job has it */
#define PEER_SCOPE_UNSEEN UINT64_MAX

/* The other end of a connection: the kernel's credentials (peer->uid,
 * ->pid, ->gid as in struct ucred) and where it runs. */
struct peer {
	union {
		struct ucred cred;
		struct {
			pid_t pid;
			uid_t uid;
			gid_t gid;
		};
	};
	bool contained; /* in another pid namespace or a container's cgroup */
	bool trusted;   /* not contained, or admin_in_containers: may be an admin */
	uint64_t scope; /* 0: the host; else its container (pid namespace inode,
			   or container id) */
};

struct peer_proof {
	int pidfd;             /* -1: the kernel has no SO_PEERPIDFD */
	uint64_t start_ticks;  /* fallback: start time at accept (0: unknown) */
};

/* At accept: take the proof for the connection's peer.  0, or -1 when
 * the peer is already gone (its pid may be someone else's). */
int peer_proof_take(int fd, const struct ucred *peer, struct peer_proof *pp);

/*
 * After the proof: is the peer in a container, and which?  Reads
 * /proc/PID/ns/pid and /proc/PID/cgroup once (a few small reads, never
 * growing with what the peer controls).  admin_in_containers: root in a
 * container is an administrator still (config admin_in_containers).
 */
void peer_classify(struct peer *p, bool admin_in_containers);

/* Root on the host (or trusted in a container): sees, acts and speaks
 * for every job, and is exempt from the per-user limits. */
bool peer_is_admin(const struct peer *p);

/* In a container (whatever admin_in_containers says). */
bool peer_in_container(const struct peer *p);

/* Is the principal that owns a job (uid within scope) this peer? */
bool peer_owns(const struct peer *p, uid_t owner_uid, uint64_t owner_scope);

/* At the request: 1 when the pid is still the peer's process, 0 if not. */
int peer_proof_holds(const struct ucred *peer, const struct peer_proof *pp);

void peer_proof_drop(struct peer_proof *pp);

#endif
