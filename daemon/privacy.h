/*
 * privacy.h - who sees which jobs through tracerd's socket.  Root and the
 * members of the configured admin group (config admin_group) see every
 * job; any other user sees only the jobs registered for their uid, as
 * with Slurm's PrivateData=jobs and /proc mounted hidepid=2.  A process
 * in a container is neither, whatever its uid and groups (root there can
 * take any group), unless admin_in_containers: it sees the open jobs it
 * registered itself (uid and container: peer.h), and no summary.
 */
#ifndef TRACERD_PRIVACY_H
#define TRACERD_PRIVACY_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#include "peer.h"

struct jobs;

struct privacy {
	bool has_group;
	gid_t gid;
};

/* Resolve the admin group (empty name: none).  0, or -1 with err. */
int privacy_init(struct privacy *pv, const char *group, char *err, size_t errlen);

/* May this peer see every user's jobs? */
bool privacy_sees_all(const struct privacy *pv, const struct peer *peer);

/* May this peer read summaries (its own)?  Not from a container: the
 * archive cannot tell its jobs from those of the same uid elsewhere. */
bool privacy_reads_summaries(const struct peer *peer);

/* Keep in a status "jobs" object only what the peer may see: its own
 * open jobs (on the host: those of its uid; in a container: those it
 * registered there, by js); the list of recently closed job ids goes. */
void privacy_filter_jobs(cJSON *jobs, const struct peer *peer, const struct jobs *js);

/* Drop from a status "delivery" object what only admins see: each
 * sink's last error (it may name the sink's URL and quote its server). */
void privacy_filter_delivery(cJSON *delivery);

#endif
