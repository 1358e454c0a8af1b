/*
 * admission.h - how many registrations tracerd takes from users other
 * than root, in shares no user can use up for the others:
 *
 *   - open jobs: at most max_jobs_per_user per user (a uid within its
 *     scope: the host, or one container — root in a container is a user,
 *     peer.h), and a node-wide bound on the open jobs of all users
 *     together (a rootless container gives one person 65,536 uids:
 *     per-uid limits alone would not bound them);
 *   - rate: a token bucket per user.  A token is spent only by a
 *     registration that passed the identity check and opened or joined a
 *     job (admission_spend), so refused requests cost their sender
 *     nothing and nobody else anything.  The table of buckets is bounded:
 *     a full bucket is the same as none and its slot is reused; when
 *     every slot holds a bucket being refilled, the users beyond share one
 *     overflow bucket (only many users at once get there).
 *
 * Root's registrations on the host (slurmstepd through the SPANK plugin)
 * are never refused here: a flood of user registrations cannot keep
 * scheduled jobs from being traced.  Every refusal is counted.  The clock
 * is the caller's (now_ns), so that tests need no sleep.
 */
#ifndef TRACERD_ADMISSION_H
#define TRACERD_ADMISSION_H

#include <stdint.h>
#include <sys/socket.h>

#include "jobs.h"
#include "peer.h"

#define ADMIT_MAX_USER_JOBS 256 /* open jobs of all non-root users together */
#define ADMIT_RATE_PER_S 10     /* registrations per second of one uid... */
#define ADMIT_BURST 32          /* ...after a burst of this many */
#define ADMIT_UIDS 1024         /* buckets kept (uids registering at once) */

struct admit_bucket {
	uid_t uid;
	uint64_t scope; /* the peer's (peer.h): root in a container is a user */
	double tokens;
	uint64_t last_ns;
	int used; /* 0: free slot */
};

struct admission {
	struct admit_bucket slot[ADMIT_UIDS];
	struct admit_bucket overflow; /* uids beyond the table, together */
	uint64_t refused_rate, refused_user_jobs, refused_node_limit;
	uint64_t overflowed; /* registrations rated by the overflow bucket */
};

void admission_init(struct admission *a, uint64_t now_ns);

/* NULL when the registration may go on, else the reason (counted).
 * max_jobs_per_user: open jobs one uid may have registered. */
const char *admission_check(struct admission *a, const struct jobs *js,
			    const struct peer *peer, int max_jobs_per_user,
			    uint64_t now_ns);

/* The registration was accepted (a job opened or joined): the peer
 * spends a token. */
void admission_spend(struct admission *a, const struct peer *peer, uint64_t now_ns);

#endif
