/* privacy.c - see privacy.h. */
#include "privacy.h"

#include "identity.h"
#include "jobs.h"
#include "json.h"
#include "procfs.h"

int privacy_init(struct privacy *pv, const char *group, char *err, size_t errlen)
{
	pv->has_group = false;
	pv->gid = (gid_t)-1;
	if (!group || !group[0])
		return 0;
	/* at start-up only: group look-ups may go to LDAP */
	if (identity_group_gid(group, &pv->gid, err, errlen) != 0)
		return -1;
	pv->has_group = true;
	return 0;
}

bool privacy_sees_all(const struct privacy *pv, const struct peer *peer)
{
	if (peer_is_admin(peer))
		return true;
	if (!pv->has_group || !peer->trusted)
		return false;
	return peer->gid == pv->gid ||
	       (peer->pid > 0 && procfs_in_group(peer->pid, pv->gid) == 1);
}

bool privacy_reads_summaries(const struct peer *peer)
{
	return peer->trusted;
}

/* Is the open job listed as e the peer's? */
static bool is_own(const cJSON *e, const struct peer *peer, const struct jobs *js)
{
	/* numbers are raw items (exact text): read them as json.c does */
	int64_t uid = json_get_i64(cJSON_GetObjectItem(e, "identity"), "uid", -1);
	const cJSON *job = cJSON_GetObjectItem(e, "job");

	if (!peer_in_container(peer))
		return uid == (int64_t)peer->uid;
	return cJSON_IsString(job) && jobs_registered_by(js, job->valuestring, peer);
}

void privacy_filter_jobs(cJSON *jobs, const struct peer *peer, const struct jobs *js)
{
	cJSON *open = cJSON_GetObjectItem(jobs, "open_jobs");
	cJSON *e = open ? open->child : NULL;
	double shown = 0;

	while (e) {
		cJSON *next = e->next;

		if (!is_own(e, peer, js))
			cJSON_Delete(cJSON_DetachItemViaPointer(open, e));
		else
			shown++;
		e = next;
	}
	cJSON_DeleteItemFromObject(jobs, "recent");
	cJSON_DeleteItemFromObject(jobs, "open_jobs_omitted");
	/* the node-wide count stays: it says how busy tracerd is, not whose */
	cJSON_AddNumberToObject(jobs, "open_jobs_yours", shown);
}

void privacy_filter_delivery(cJSON *delivery)
{
	cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(delivery, "sinks"))
		cJSON_DeleteItemFromObject(e, "last_error");
}
