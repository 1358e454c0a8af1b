/*
 * containernames.c - container names and images for tracerd, looked up
 * off its loop (containernames.h).  Reading and searching containers.json
 * takes milliseconds, more on a busy node with thousands of containers:
 * an asker's thread does it (asker.h), and the loop only reads the cache.
 * Only this thread calls lib/container_meta.c in tracerd, whose kept
 * files are therefore never shared between threads.
 */
#include "containernames.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "asker.h"
#include "clock.h"
#include "container_meta.h"
#include "log.h"

/* a name is looked up again after this (a renamed container) */
#define TTL_NS (60ull * NS_PER_SEC)

struct ct_names {
	bool found;
	char name[128];
	char image[256];
	char image_id[CONTAINER_ID_LEN + 1];
};

/* the storage directory the thread reads (container_storage), set by the
 * loop when it asks */
static pthread_mutex_t storage_lock = PTHREAD_MUTEX_INITIALIZER;
static char storage_dir[512];

/* key: RUNTIME/ID */
static int look_up(const char *key, void *value, size_t len, char *err, size_t errlen)
{
	struct ct_names *v = value;
	struct container_info c;
	const char *slash = strchr(key, '/');
	char storage[sizeof(storage_dir)];

	(void)len;
	(void)err;
	(void)errlen;
	memset(&c, 0, sizeof(c));
	if (!slash || (size_t)(slash - key) >= sizeof(c.runtime))
		return 0; /* not found */
	memcpy(c.runtime, key, (size_t)(slash - key));
	snprintf(c.id, sizeof(c.id), "%s", slash + 1);
	pthread_mutex_lock(&storage_lock);
	snprintf(storage, sizeof(storage), "%s", storage_dir);
	pthread_mutex_unlock(&storage_lock);
	char why[640];
	int rc = container_meta_storage(storage, &c, why, sizeof(why));

	if (why[0])
		log_warn("%s", why);
	if (rc != 0)
		return 0; /* an answer too: the records do not name it */
	v->found = true;
	snprintf(v->name, sizeof(v->name), "%s", c.name);
	snprintf(v->image, sizeof(v->image), "%s", c.image);
	snprintf(v->image_id, sizeof(v->image_id), "%s", c.image_id);
	return 0;
}

static struct asker names = {
	.what = "container name of",
	.ask = look_up,
	.nslots = 64,
	.value_len = sizeof(struct ct_names),
	.ttl_ns = TTL_NS,
};

int containernames_start(void)
{
	return asker_start(&names);
}

void containernames_stop(void)
{
	asker_stop(&names);
	container_meta_reset(); /* the thread is gone: its kept files go */
}

bool containernames_get(const char *storage, struct container_info *c)
{
	char key[ASKER_KEY_LEN];
	struct ct_names v;

	/* only containers/storage's runtimes have records to read */
	if (!storage || !storage[0] || !c->id[0] ||
	    (strcmp(c->runtime, "podman") != 0 && strcmp(c->runtime, "cri-o") != 0))
		return true;
	pthread_mutex_lock(&storage_lock);
	if (strcmp(storage_dir, storage) != 0)
		snprintf(storage_dir, sizeof(storage_dir), "%s", storage);
	pthread_mutex_unlock(&storage_lock);
	snprintf(key, sizeof(key), "%s/%s", c->runtime, c->id);
	if (!asker_get(&names, key, &v))
		return false;
	if (v.found) {
		snprintf(c->name, sizeof(c->name), "%s", v.name);
		snprintf(c->image, sizeof(c->image), "%s", v.image);
		snprintf(c->image_id, sizeof(c->image_id), "%s", v.image_id);
	}
	return true;
}
