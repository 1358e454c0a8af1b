/* admission.c - see admission.h. */
#include "admission.h"

#include "clock.h"

void admission_init(struct admission *a)
{
	a->tokens = ADMIT_BURST;
	a->last_ns = clock_mono_ns();
	a->refused_rate = a->refused_node_limit = 0;
}

static size_t user_jobs_open(const struct jobs *js)
{
	size_t n = 0;

	for (size_t i = 0; i < js->nopen; i++)
		if (js->open[i] != js->host_job &&
		    (js->open[i]->owner_uid != 0 || js->open[i]->owner_scope != 0))
			n++;
	return n;
}

const char *admission_check(struct admission *a, const struct jobs *js,
			    const struct peer *peer)
{
	uint64_t now = clock_mono_ns();

	if (peer_is_admin(peer))
		return NULL;
	a->tokens += (double)(now - a->last_ns) * ADMIT_RATE_PER_S / 1e9;
	if (a->tokens > ADMIT_BURST)
		a->tokens = ADMIT_BURST;
	a->last_ns = now;
	if (user_jobs_open(js) >= ADMIT_MAX_USER_JOBS) {
		a->refused_node_limit++;
		return "too many open jobs of users on this node";
	}
	if (a->tokens < 1.0) {
		a->refused_rate++;
		return "too many registrations from users: try again in a moment";
	}
	a->tokens -= 1.0;
	return NULL;
}
