/*
 * test_daemon_asker.c - the slow-question cache of tracerd (daemon/asker.c):
 * a get never waits for the question, the answer arrives from the thread,
 * a failed question leaves no answer, asker_want asks again, a full cache
 * reuses the slot answered longest ago, and a key too long is refused.
 * Needs no root; lives here because it links tracerd's objects.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "asker.h"
#include "clock.h"
#include "../unit/unit.h"

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static int asked;

/* "fail..." fails; anything else answers "<key>#<how many asked so far>";
 * the gate holds the thread while a test checks that get does not wait */
static int answer(const char *key, void *value, size_t len, char *err, size_t errlen)
{
	int n;

	pthread_mutex_lock(&gate);
	n = ++asked;
	pthread_mutex_unlock(&gate);
	if (!strncmp(key, "fail", 4)) {
		snprintf(err, errlen, "no such thing");
		return -1;
	}
	snprintf(value, len, "%s#%d", key, n);
	return 0;
}

/* how many questions were asked so far (the thread writes it) */
static int asked_now(void)
{
	int n;

	pthread_mutex_lock(&gate);
	n = asked;
	pthread_mutex_unlock(&gate);
	return n;
}

/* up to 5 s for the asked count to reach n: true when it did */
static bool wait_asked(int n)
{
	uint64_t until = clock_mono_ns() + 5 * NS_PER_SEC;

	while (asked_now() < n && clock_mono_ns() < until)
		usleep(1000);
	return asked_now() >= n;
}

static struct asker a = {.what = "test answer of", .ask = answer, .nslots = 2, .value_len = 32};

/* the answer for key, polled for up to 5 s: true when it came */
static bool wait_answer(const char *key, char *out)
{
	uint64_t until = clock_mono_ns() + 5 * NS_PER_SEC;

	while (clock_mono_ns() < until) {
		if (asker_get(&a, key, out))
			return true;
		usleep(1000);
	}
	return false;
}

static void test_asker(void)
{
	char v[32];
	int before;

	CU_ASSERT_FATAL(asker_start(&a) == 0);
	/* the thread is held: get answers "not known" at once, and queues */
	pthread_mutex_lock(&gate);
	CU_ASSERT_FALSE(asker_get(&a, "x", v));
	asker_want(&a, "x");
	pthread_mutex_unlock(&gate);
	CU_ASSERT_TRUE(wait_answer("x", v));
	CU_ASSERT_STRING_EQUAL(v, "x#1");
	/* no ttl: a get does not ask again; want does */
	CU_ASSERT_TRUE(asker_get(&a, "x", v));
	CU_ASSERT_EQUAL(asked_now(), 1);
	asker_want(&a, "x");
	for (int i = 0; i < 5000 && !(asker_get(&a, "x", v) && !strcmp(v, "x#2")); i++)
		usleep(1000);
	CU_ASSERT_STRING_EQUAL(v, "x#2");
	/* a failed question: no answer, and the thread goes on.  Wanted again
	 * until it is asked a second time: a want while it is still queued
	 * does nothing, so the second ask proves the first one's outcome was
	 * recorded (a failure recorded as an answer would be seen here) */
	before = asked_now();
	asker_want(&a, "fail-1");
	CU_ASSERT_TRUE(wait_asked(before + 1));
	for (int i = 0; i < 5000 && asked_now() < before + 2; i++) {
		asker_want(&a, "fail-1");
		usleep(1000);
	}
	CU_ASSERT_EQUAL_FATAL(asked_now(), before + 2);
	CU_ASSERT_FALSE(asker_get(&a, "fail-1", v));
	/* two slots: "y" takes the slot of the key answered longest ago */
	asker_want(&a, "y");
	CU_ASSERT_TRUE(wait_answer("y", v));
	CU_ASSERT_STRING_EQUAL(v, "y#5");
	CU_ASSERT_TRUE(asker_get(&a, "y", v));
	CU_ASSERT_FALSE(asker_get(&a, "x", v)); /* its slot went to "y" */
	asker_stop(&a);
	/* stopped: nothing known, nothing asked */
	CU_ASSERT_FALSE(asker_get(&a, "y", v));
}

/*
 * A key longer than the cache holds is never asked.  One slot: had the
 * long key been queued, the marker that follows would find no slot (while
 * it waits) or be asked second (once it was asked); the marker answered
 * as the only question proves that the long key took nothing.
 */
static void test_long_key(void)
{
	struct asker one = {.what = "test answer of", .ask = answer, .nslots = 1,
			    .value_len = 32};
	char longkey[ASKER_KEY_LEN + 8], v[32];
	int before;

	memset(longkey, 'k', sizeof(longkey) - 1);
	longkey[sizeof(longkey) - 1] = '\0';
	CU_ASSERT_FATAL(asker_start(&one) == 0);
	before = asked_now();
	asker_want(&one, longkey);
	CU_ASSERT_FALSE(asker_get(&one, longkey, v));
	asker_want(&one, "marker");
	uint64_t until = clock_mono_ns() + 5 * NS_PER_SEC;
	bool got = false;
	while (!(got = asker_get(&one, "marker", v)) && clock_mono_ns() < until)
		usleep(1000);
	CU_ASSERT_TRUE(got);
	CU_ASSERT_EQUAL(asked_now(), before + 1);
	CU_ASSERT_FALSE(asker_get(&one, longkey, v));
	asker_stop(&one);
}

/* with a ttl, a get of an unknown key asks by itself */
static int ttl_answer(const char *key, void *value, size_t len, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	snprintf(value, len, "t:%s", key);
	return 0;
}

static void test_ttl(void)
{
	struct asker t = {.what = "ttl answer of", .ask = ttl_answer, .nslots = 4,
			  .value_len = 16, .ttl_ns = 3600 * NS_PER_SEC};
	uint64_t until = clock_mono_ns() + 5 * NS_PER_SEC;
	char v[16] = "";
	bool got = false;

	CU_ASSERT_FATAL(asker_start(&t) == 0);
	while (!got && clock_mono_ns() < until) {
		got = asker_get(&t, "1000", v);
		if (!got)
			usleep(1000);
	}
	CU_ASSERT_TRUE(got);
	CU_ASSERT_STRING_EQUAL(v, "t:1000");
	asker_stop(&t);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"answers come from the thread, never waited for", test_asker},
		{"a key too long is never asked", test_long_key},
		{"a ttl asks by itself", test_ttl},
	};
	return UNIT_RUN("asker", tests);
}
