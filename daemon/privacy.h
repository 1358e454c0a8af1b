/*
 * privacy.h - who sees which jobs through tracerd's socket.  Root and the
 * members of the configured admin group (config admin_group) see every
 * job; any other user sees only the jobs registered for their uid, as
 * with Slurm's PrivateData=jobs and /proc mounted hidepid=2.
 */
#ifndef TRACERD_PRIVACY_H
#define TRACERD_PRIVACY_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

struct privacy {
	bool has_group;
	gid_t gid;
};

/* Resolve the admin group (empty name: none).  0, or -1 with err. */
int privacy_init(struct privacy *pv, const char *group, char *err, size_t errlen);

/* May this peer see every user's jobs? */
bool privacy_sees_all(const struct privacy *pv, const struct ucred *peer);

/* Keep in a status "jobs" object only what uid may see: its own open
 * jobs; the list of recently closed job ids goes. */
void privacy_filter_jobs(cJSON *jobs, uid_t uid);

/* Drop from a status "delivery" object what only admins see: each
 * sink's last error (it may name the sink's URL and quote its server). */
void privacy_filter_delivery(cJSON *delivery);

#endif
