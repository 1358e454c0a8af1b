/*
 * test_daemon_admission.c - the node-wide bound and rate of non-root
 * registrations (daemon/admission.c): a burst beyond the bucket is
 * refused and counted, the rate refills it, open jobs of all users
 * together are bounded whatever their uids, root is never refused.
 * Pure logic on a jobs table built by hand: needs no root, lives here
 * because it links tracerd's objects.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission.h"
#include "../unit/unit.h"

/* a peer on the host (not in a container) */
static struct peer user(uid_t uid)
{
	struct peer c = {.pid = 1, .uid = uid, .gid = uid, .trusted = true};

	return c;
}

static void test_burst_then_rate(void)
{
	struct admission a;
	struct jobs js;
	struct peer u;
	int ok = 0, refused = 0;
	struct timespec pause = {0, 200 * 1000000L};

	memset(&js, 0, sizeof(js));
	admission_init(&a);
	/* 200 registrations from 200 uids at once: the burst passes, no more
	 * (a few tokens may refill while the loop runs) */
	for (int i = 0; i < 200; i++) {
		u = user(100000 + (uid_t)i);
		if (admission_check(&a, &js, &u))
			refused++;
		else
			ok++;
	}
	CU_ASSERT(ok >= ADMIT_BURST && ok <= ADMIT_BURST + 2);
	CU_ASSERT_EQUAL((uint64_t)refused, a.refused_rate);
	/* root is never refused, bucket empty or not */
	u = user(0);
	CU_ASSERT_PTR_NULL(admission_check(&a, &js, &u));
	/* 200 ms later, about 4 more (20/s) */
	nanosleep(&pause, NULL);
	ok = 0;
	for (int i = 0; i < 50; i++) {
		u = user(200000 + (uid_t)i);
		if (!admission_check(&a, &js, &u))
			ok++;
	}
	CU_ASSERT(ok >= 3 && ok <= 10);
}

static void test_node_limit(void)
{
	struct open_job *jobs = calloc(ADMIT_MAX_USER_JOBS + 1, sizeof(*jobs));
	struct open_job **open = calloc(ADMIT_MAX_USER_JOBS + 1, sizeof(*open));
	struct admission a;
	struct jobs js;
	struct peer u;
	const char *why;

	CU_ASSERT_FATAL(jobs && open);
	memset(&js, 0, sizeof(js));
	js.open = open;
	for (size_t i = 0; i < ADMIT_MAX_USER_JOBS; i++) {
		jobs[i].owner_uid = 100000 + (uid_t)i; /* every one another uid */
		open[i] = &jobs[i];
	}
	js.nopen = ADMIT_MAX_USER_JOBS;
	admission_init(&a);
	u = user(424242);
	why = admission_check(&a, &js, &u);
	CU_ASSERT_PTR_NOT_NULL(why);
	CU_ASSERT_EQUAL(a.refused_node_limit, 1);
	u = user(0);
	CU_ASSERT_PTR_NULL(admission_check(&a, &js, &u));
	/* one closes: a user may register again */
	js.nopen--;
	u = user(424242);
	CU_ASSERT_PTR_NULL(admission_check(&a, &js, &u));
	free(open);
	free(jobs);
}

/* Root in a container (its own pid namespace: peer.h) is a user here:
 * the bucket and the node-wide bound apply to it, and the jobs of
 * containers' root count among the users' jobs. */
static void test_root_in_container(void)
{
	struct open_job *jobs = calloc(ADMIT_MAX_USER_JOBS + 1, sizeof(*jobs));
	struct open_job **open = calloc(ADMIT_MAX_USER_JOBS + 1, sizeof(*open));
	struct peer ct = {.pid = 1, .uid = 0, .gid = 0, .contained = true, .scope = 4026532000u};
	struct peer host = user(0);
	struct admission a;
	struct jobs js;
	int ok = 0;

	CU_ASSERT_FATAL(jobs && open);
	memset(&js, 0, sizeof(js));
	admission_init(&a);
	CU_ASSERT_FALSE(peer_is_admin(&ct));
	CU_ASSERT_TRUE(peer_is_admin(&host));
	for (int i = 0; i < 200; i++)
		ok += admission_check(&a, &js, &ct) == NULL;
	CU_ASSERT(ok >= ADMIT_BURST && ok <= ADMIT_BURST + 2);
	CU_ASSERT(a.refused_rate >= 200 - ADMIT_BURST - 2);
	CU_ASSERT_PTR_NULL(admission_check(&a, &js, &host));
	/* root-owned jobs of containers fill the users' bound */
	js.open = open;
	for (size_t i = 0; i < ADMIT_MAX_USER_JOBS; i++) {
		jobs[i].owner_uid = 0;
		jobs[i].owner_scope = 4026532000u + i;
		open[i] = &jobs[i];
	}
	js.nopen = ADMIT_MAX_USER_JOBS;
	admission_init(&a);
	CU_ASSERT_PTR_NOT_NULL(admission_check(&a, &js, &ct));
	CU_ASSERT_EQUAL(a.refused_node_limit, 1);
	CU_ASSERT_PTR_NULL(admission_check(&a, &js, &host));
	free(open);
	free(jobs);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"burst then rate", test_burst_then_rate},
		{"node-wide bound over many uids", test_node_limit},
		{"root in a container is a user", test_root_in_container},
	};

	return UNIT_RUN("daemon_admission", tests);
}
