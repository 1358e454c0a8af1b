/*
 * asker.c - slow questions answered on a thread, read from a cache by the
 * loop (asker.h).  The cache is a small array searched linearly: a few
 * hundred keys at most, each read under a mutex the thread never holds
 * while it asks.
 */
#include "asker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "clock.h"
#include "log.h"
#include "threads.h"

struct asker_slot {
	char key[ASKER_KEY_LEN];
	bool used, queued, answered;
	uint64_t at_ns; /* queued or answered at, monotonic */
};

static void *value_of(struct asker *a, const struct asker_slot *s)
{
	return a->values + (size_t)(s - a->slots) * a->value_len;
}

static struct asker_slot *find(struct asker *a, const char *key)
{
	for (size_t i = 0; i < a->nslots; i++)
		if (a->slots[i].used && !strcmp(a->slots[i].key, key))
			return &a->slots[i];
	return NULL;
}

/* A free slot, or the one used longest ago that is not queued. */
static struct asker_slot *free_slot(struct asker *a)
{
	struct asker_slot *old = NULL;

	for (size_t i = 0; i < a->nslots; i++) {
		struct asker_slot *s = &a->slots[i];

		if (!s->used)
			return s;
		if (!s->queued && (!old || s->at_ns < old->at_ns))
			old = s;
	}
	return old;
}

/* Queue key (a->lock held); the slot, or NULL when every slot is queued. */
static struct asker_slot *queue(struct asker *a, struct asker_slot *s, const char *key)
{
	if (!s && (s = free_slot(a))) {
		memset(s, 0, sizeof(*s));
		memset(value_of(a, s), 0, a->value_len);
		s->used = true;
		snprintf(s->key, sizeof(s->key), "%s", key);
	}
	if (s && !s->queued) {
		s->queued = true;
		s->at_ns = clock_mono_ns();
		pthread_cond_signal(&a->work);
	}
	return s;
}

static void *asker_thread(void *arg)
{
	struct asker *a = arg;
	unsigned char *value = calloc(1, a->value_len);
	char cerr[128];

	/* NSS, squeue and a runtime's socket need no capability */
	if (caps_drop_all(cerr, sizeof(cerr)) != 0)
		log_warn("%s thread: capabilities kept: %s", a->what, cerr);
	pthread_mutex_lock(&a->lock);
	while (!a->stopping) {
		struct asker_slot *s = NULL;
		char key[ASKER_KEY_LEN], err[160] = "";
		int rc;

		for (size_t i = 0; i < a->nslots && !s; i++)
			if (a->slots[i].used && a->slots[i].queued)
				s = &a->slots[i];
		if (!s || !value) {
			pthread_cond_wait(&a->work, &a->lock);
			continue;
		}
		snprintf(key, sizeof(key), "%s", s->key);
		memset(value, 0, a->value_len);
		pthread_mutex_unlock(&a->lock);
		rc = a->ask(key, value, a->value_len, err, sizeof(err)); /* slow: not on the loop */
		pthread_mutex_lock(&a->lock);
		if (rc < 0 && clock_mono_ns() - a->last_warn_ns >= 60 * NS_PER_SEC) {
			log_warn("%s %s: %s (logged once a minute)", a->what, key, err);
			a->last_warn_ns = clock_mono_ns();
		}
		/* the slot may have been given to another key meanwhile */
		if (s->used && !strcmp(s->key, key)) {
			s->queued = false;
			s->answered = rc == 0;
			s->at_ns = clock_mono_ns();
			if (rc == 0)
				memcpy(value_of(a, s), value, a->value_len);
		}
	}
	pthread_mutex_unlock(&a->lock);
	free(value);
	return NULL;
}

int asker_start(struct asker *a)
{
	int rc;

	a->slots = calloc(a->nslots, sizeof(*a->slots));
	a->values = calloc(a->nslots, a->value_len);
	if (!a->slots || !a->values) {
		log_warn("%s: out of memory: not asked", a->what);
		goto fail;
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->work, NULL);
	rc = threads_start(&a->thread, asker_thread, a);
	if (rc != 0) {
		log_warn("%s thread: %s: not asked", a->what, strerror(rc));
		goto fail;
	}
	a->running = true;
	return 0;
fail:
	free(a->slots);
	free(a->values);
	a->slots = NULL;
	a->values = NULL;
	return -1;
}

void asker_stop(struct asker *a)
{
	if (!a->running)
		return;
	pthread_mutex_lock(&a->lock);
	a->stopping = true;
	pthread_cond_signal(&a->work);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	a->running = false;
	free(a->slots);
	free(a->values);
	a->slots = NULL;
	a->values = NULL;
}

void asker_want(struct asker *a, const char *key)
{
	if (!a->running || strlen(key) >= ASKER_KEY_LEN)
		return;
	pthread_mutex_lock(&a->lock);
	queue(a, find(a, key), key);
	pthread_mutex_unlock(&a->lock);
}

bool asker_get(struct asker *a, const char *key, void *value)
{
	struct asker_slot *s;
	bool found = false;

	if (!a->running || strlen(key) >= ASKER_KEY_LEN)
		return false;
	pthread_mutex_lock(&a->lock);
	s = find(a, key);
	if (s && s->answered) {
		memcpy(value, value_of(a, s), a->value_len);
		found = true;
	}
	if (a->ttl_ns && (!s || (!s->queued && clock_mono_ns() - s->at_ns >= a->ttl_ns)))
		queue(a, s, key);
	pthread_mutex_unlock(&a->lock);
	return found;
}
