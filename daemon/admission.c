/* admission.c - see admission.h. */
#include "admission.h"

#include <string.h>


static void refill(struct admit_bucket *b, uint64_t now_ns)
{
	if (now_ns > b->last_ns)
		b->tokens += (double)(now_ns - b->last_ns) * ADMIT_RATE_PER_S / 1e9;
	if (b->tokens > ADMIT_BURST)
		b->tokens = ADMIT_BURST;
	b->last_ns = now_ns;
}

void admission_init(struct admission *a, uint64_t now_ns)
{
	memset(a, 0, sizeof(*a));
	a->overflow.tokens = ADMIT_BURST;
	a->overflow.last_ns = now_ns;
	a->overflow.used = 1;
}

/*
 * uid's bucket: its own, a free slot, or a slot whose bucket is full
 * again (as good as none); else the overflow bucket.  A bounded scan of
 * a fixed table: the cost never grows with what users send.
 */
static struct admit_bucket *bucket_of(struct admission *a, const struct peer *peer,
				      uint64_t now_ns, int take)
{
	struct admit_bucket *spare = NULL;

	for (size_t i = 0; i < ADMIT_UIDS; i++) {
		struct admit_bucket *b = &a->slot[i];

		if (b->used && b->uid == peer->uid && b->scope == peer->scope) {
			refill(b, now_ns);
			return b;
		}
		if (!spare) {
			if (!b->used)
				spare = b;
			else if (refill(b, now_ns), b->tokens >= ADMIT_BURST)
				spare = b;
		}
	}
	if (!spare) {
		refill(&a->overflow, now_ns);
		if (take)
			a->overflowed++;
		return &a->overflow;
	}
	if (take)
		*spare = (struct admit_bucket){peer->uid, peer->scope, ADMIT_BURST, now_ns, 1};
	return take ? spare : NULL;
}

static size_t jobs_open_of(const struct jobs *js, const struct peer *peer,
			   size_t *all_users)
{
	size_t n = 0;

	*all_users = 0;
	for (size_t i = 0; i < jobs_count(js); i++) {
		const struct open_job *oj = jobs_at(js, i);

		if (oj == js->host_job || (oj->owner_uid == 0 && oj->owner_scope == 0))
			continue;
		(*all_users)++;
		n += peer_owns(peer, oj->owner_uid, oj->owner_scope);
	}
	return n;
}

const char *admission_check(struct admission *a, const struct jobs *js,
			    const struct peer *peer, int max_jobs_per_user,
			    uint64_t now_ns)
{
	struct admit_bucket *b;
	size_t all, mine;

	if (peer_is_admin(peer))
		return NULL;
	mine = jobs_open_of(js, peer, &all);
	if (mine >= (size_t)max_jobs_per_user) {
		a->refused_user_jobs++;
		return "too many open jobs of yours on this node (max_jobs_per_user)";
	}
	if (all >= ADMIT_MAX_USER_JOBS) {
		a->refused_node_limit++;
		return "too many open jobs of users on this node";
	}
	/* no slot taken yet: a request refused later costs no slot */
	b = bucket_of(a, peer, now_ns, 0);
	if (b && b->tokens < 1.0) {
		a->refused_rate++;
		return "too many registrations from you: try again in a moment";
	}
	return NULL;
}

void admission_spend(struct admission *a, const struct peer *peer, uint64_t now_ns)
{
	struct admit_bucket *b;

	if (peer_is_admin(peer))
		return;
	b = bucket_of(a, peer, now_ns, 1);
	if (b->tokens >= 1.0)
		b->tokens -= 1.0;
	else
		b->tokens = 0;
}
