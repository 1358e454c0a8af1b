/*
 * test_daemon_admission.c - the shares of non-root registrations
 * (daemon/admission.c): each uid has its own token bucket, spent only by
 * accepted registrations, so one uid's burst refuses nobody else; each
 * uid has its own bound on open jobs, and all users together one
 * node-wide bound; root is never refused.  The clock is injected: no
 * sleep, no timing.  Pure logic on a jobs table built by hand: needs no
 * root, lives here because it links tracerd's objects.
 */
#include <stdlib.h>
#include <string.h>

#include "admission.h"
#include "../unit/unit.h"

#define SEC 1000000000ull

/* a peer on the host (not in a container) */
static struct peer user(uid_t uid)
{
	struct peer c = {.pid = 1, .uid = uid, .gid = uid, .trusted = true};

	return c;
}

/* n accepted registrations of uid at now: how many were admitted */
static int burst(struct admission *a, const struct jobs *js, uid_t uid, int n, uint64_t now)
{
	struct peer u = user(uid);
	int ok = 0;

	for (int i = 0; i < n; i++) {
		if (admission_check(a, js, &u, 1000, now))
			continue;
		admission_spend(a, &u, now);
		ok++;
	}
	return ok;
}

static void test_rate_per_uid(void)
{
	static struct admission a;
	struct jobs js;
	struct peer u;
	uint64_t t0 = 1000 * SEC;

	memset(&js, 0, sizeof(js));
	admission_init(&a, t0);
	/* one uid's burst passes, no more; the refusals are counted */
	CU_ASSERT_EQUAL(burst(&a, &js, 1001, 200, t0), ADMIT_BURST);
	CU_ASSERT_EQUAL(a.refused_rate, 200 - ADMIT_BURST);
	/* another uid is not refused: its own bucket is full */
	CU_ASSERT_EQUAL(burst(&a, &js, 1002, 5, t0), 5);
	/* root never is */
	u = user(0);
	CU_ASSERT_PTR_NULL(admission_check(&a, &js, &u, 1000, t0));
	/* 1 s later the first uid has ADMIT_RATE_PER_S more */
	CU_ASSERT_EQUAL(burst(&a, &js, 1001, 100, t0 + SEC), ADMIT_RATE_PER_S);
}

static void test_refusals_cost_nothing(void)
{
	static struct admission a;
	struct jobs js;
	struct peer u = user(2001);
	uint64_t t0 = 5 * SEC;

	memset(&js, 0, sizeof(js));
	admission_init(&a, t0);
	/* checks never followed by an accepted registration (the identity
	 * check refused them) spend no token */
	for (int i = 0; i < 1000; i++)
		CU_ASSERT_PTR_NULL(admission_check(&a, &js, &u, 1000, t0));
	CU_ASSERT_EQUAL(burst(&a, &js, 2001, ADMIT_BURST, t0), ADMIT_BURST);
	CU_ASSERT_EQUAL(a.refused_rate, 0);
}

static void test_many_uids(void)
{
	static struct admission a;
	struct jobs js;
	uint64_t t0 = 7 * SEC;
	int ok = 0;

	memset(&js, 0, sizeof(js));
	admission_init(&a, t0);
	/* more uids than slots, each draining its bucket: the table stays
	 * bounded, the uids beyond it share the overflow bucket */
	for (uid_t i = 0; i < ADMIT_UIDS; i++)
		CU_ASSERT_EQUAL(burst(&a, &js, 300000 + i, ADMIT_BURST, t0), ADMIT_BURST);
	for (uid_t i = 0; i < 100; i++)
		ok += burst(&a, &js, 400000 + i, 1, t0);
	CU_ASSERT_EQUAL(ok, ADMIT_BURST);
	CU_ASSERT_EQUAL(a.overflowed, (uint64_t)ADMIT_BURST);
	/* once refilled, a slot is free again for a new uid */
	CU_ASSERT_EQUAL(burst(&a, &js, 500000, 3, t0 + 10 * SEC), 3);
}

static struct open_job *jobs_of(struct jobs *js, size_t n, uid_t (*owner)(size_t))
{
	struct open_job *jobs = calloc(n + 1, sizeof(*jobs));
	struct open_job **open = calloc(n + 1, sizeof(*open));

	CU_ASSERT_FATAL(jobs && open);
	memset(js, 0, sizeof(*js));
	js->open = open;
	for (size_t i = 0; i < n; i++) {
		jobs[i].owner_uid = owner(i);
		open[i] = &jobs[i];
	}
	js->nopen = n;
	return jobs;
}

static uid_t every_one_another(size_t i) { return 100000 + (uid_t)i; }
static uid_t all_one(size_t i) { (void)i; return 3001; }

static void test_node_limit(void)
{
	static struct admission a;
	struct jobs js;
	struct open_job *jobs = jobs_of(&js, ADMIT_MAX_USER_JOBS, every_one_another);
	struct peer u;

	admission_init(&a, 0);
	u = user(424242);
	CU_ASSERT_PTR_NOT_NULL(admission_check(&a, &js, &u, 16, 0));
	CU_ASSERT_EQUAL(a.refused_node_limit, 1);
	u = user(0);
	CU_ASSERT_PTR_NULL(admission_check(&a, &js, &u, 16, 0));
	/* one closes: a user may register again */
	js.nopen--;
	u = user(424242);
	CU_ASSERT_PTR_NULL(admission_check(&a, &js, &u, 16, 0));
	free(js.open);
	free(jobs);
}

static void test_user_jobs(void)
{
	static struct admission a;
	struct jobs js;
	struct open_job *jobs = jobs_of(&js, 4, all_one);
	struct peer u = user(3001), other = user(3002), root = user(0);

	admission_init(&a, 0);
	/* the owner of 4 open jobs, at a bound of 4: refused, counted */
	CU_ASSERT_PTR_NOT_NULL(admission_check(&a, &js, &u, 4, 0));
	CU_ASSERT_EQUAL(a.refused_user_jobs, 1);
	CU_ASSERT_EQUAL(a.refused_node_limit, 0);
	/* another user and root are not */
	CU_ASSERT_PTR_NULL(admission_check(&a, &js, &other, 4, 0));
	CU_ASSERT_PTR_NULL(admission_check(&a, &js, &root, 4, 0));
	CU_ASSERT_PTR_NULL(admission_check(&a, &js, &u, 5, 0));
	free(js.open);
	free(jobs);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"a token bucket per uid", test_rate_per_uid},
		{"refused registrations spend no token", test_refusals_cost_nothing},
		{"more uids than slots: bounded, overflow shared", test_many_uids},
		{"node-wide bound over many uids", test_node_limit},
		{"open jobs per user", test_user_jobs},
	};

	return UNIT_RUN("daemon_admission", tests);
}
