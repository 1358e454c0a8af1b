/*
 * admission.h - how many registrations tracerd takes from users other
 * than root.  Per-uid limits alone are no bound: a rootless container
 * gives one person 65,536 uids.  So non-root registrations share one
 * node-wide bound on open jobs and one rate (a token bucket); root's on
 * the host (slurmstepd) are never refused here (root in a container is
 * a user: peer.h), so a flood
 * of user registrations cannot keep scheduled jobs from being traced.
 * Every refusal is counted.
 */
#ifndef TRACERD_ADMISSION_H
#define TRACERD_ADMISSION_H

#include <stdint.h>
#include <sys/socket.h>

#include "jobs.h"
#include "peer.h"

#define ADMIT_MAX_USER_JOBS 256 /* open jobs of all non-root users together */
#define ADMIT_RATE_PER_S 20     /* non-root registrations per second... */
#define ADMIT_BURST 64          /* ...after a burst of this many */

struct admission {
	double tokens;
	uint64_t last_ns;
	uint64_t refused_rate, refused_node_limit;
};

void admission_init(struct admission *a);

/* NULL when the registration may go on, else the reason (counted). */
const char *admission_check(struct admission *a, const struct jobs *js,
			    const struct peer *peer);

#endif
