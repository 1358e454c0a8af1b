/*
 * usernames.c - user names of uids for tracerd, resolved off its loop
 * (usernames.h).  The password database may be LDAP or SSSD, where one
 * look-up can take seconds: a thread of its own does them, and the loop
 * only reads a small cache.
 */
#include "caps.h"
#include "usernames.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "identity.h"
#include "log.h"
#include "threads.h"

#define CACHE_SIZE 256
/* a name is looked up again after this (renamed or removed users) */
#define TTL_NS (600ull * 1000000000ull)

struct entry {
	uid_t uid;
	bool used, resolved, queued;
	uint64_t at_ns; /* resolved or queued at, monotonic */
	char name[USERNAME_LEN];
};

static struct entry cache[CACHE_SIZE];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static pthread_t thread;
static bool running, stopping;

static struct entry *find(uid_t uid)
{
	for (int i = 0; i < CACHE_SIZE; i++)
		if (cache[i].used && cache[i].uid == uid)
			return &cache[i];
	return NULL;
}

/* A free slot, or the one used longest ago that no one waits for. */
static struct entry *slot(void)
{
	struct entry *old = NULL;

	for (int i = 0; i < CACHE_SIZE; i++) {
		if (!cache[i].used)
			return &cache[i];
		if (!cache[i].queued && (!old || cache[i].at_ns < old->at_ns))
			old = &cache[i];
	}
	return old;
}

static void *resolver(void *arg)
{
	(void)arg;
	{
		char err[128];

		/* user look-ups (NSS, maybe LDAP) need no capability */
		if (caps_drop_all(err, sizeof(err)) != 0)
			log_warn("user name resolver: capabilities kept: %s", err);
	}
	pthread_mutex_lock(&lock);
	while (!stopping) {
		struct entry *e = NULL;

		for (int i = 0; i < CACHE_SIZE && !e; i++)
			if (cache[i].used && cache[i].queued)
				e = &cache[i];
		if (!e) {
			pthread_cond_wait(&work, &lock);
			continue;
		}
		uid_t uid = e->uid;
		struct tracer_identity id;

		pthread_mutex_unlock(&lock);
		identity_set_user(&id, uid); /* may block: not on the loop */
		pthread_mutex_lock(&lock);
		if (e->used && e->uid == uid) {
			snprintf(e->name, sizeof(e->name), "%s", id.user);
			e->resolved = true;
			e->queued = false;
			e->at_ns = clock_mono_ns();
		}
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int usernames_start(void)
{
	int rc = thread_start(&thread, resolver, NULL);

	if (rc != 0) {
		log_warn("user name thread: %s: user names will be numbers", strerror(rc));
		return -1;
	}
	running = true;
	return 0;
}

void usernames_stop(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&lock);
	stopping = true;
	pthread_cond_signal(&work);
	pthread_mutex_unlock(&lock);
	/* a look-up in progress ends first: bounded by the NSS timeout */
	pthread_join(thread, NULL);
	running = false;
}

bool usernames_get(uid_t uid, char *buf, size_t len)
{
	bool found = false;
	struct entry *e;

	pthread_mutex_lock(&lock);
	e = find(uid);
	if (e && e->resolved) {
		snprintf(buf, len, "%s", e->name);
		found = true;
	}
	if (running && (!e || (!e->queued && clock_mono_ns() - e->at_ns >= TTL_NS))) {
		if (!e && (e = slot())) {
			memset(e, 0, sizeof(*e));
			e->used = true;
			e->uid = uid;
		}
		if (e) {
			e->queued = true;
			e->at_ns = clock_mono_ns();
			pthread_cond_signal(&work);
		}
	}
	pthread_mutex_unlock(&lock);
	return found;
}

void usernames_fill(struct tracer_identity *id)
{
	if (id->uid < 0 || id->user[0])
		return;
	if (!usernames_get((uid_t)id->uid, id->user, sizeof(id->user)))
		snprintf(id->user, sizeof(id->user), "%ld", id->uid);
}
