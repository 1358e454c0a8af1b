/*
 * usernames.c - user names of uids for tracerd, resolved off its loop
 * (usernames.h).  The password database may be LDAP or SSSD, where one
 * look-up can take seconds: an asker's thread does them (asker.h), and the
 * loop only reads its cache.
 */
#include "usernames.h"

#include <stdio.h>
#include <stdlib.h>

#include "asker.h"
#include "clock.h"

/* a name is looked up again after this (renamed or removed users) */
#define TTL_NS (600ull * NS_PER_SEC)

static int resolve(const char *key, void *value, size_t len, char *err, size_t errlen)
{
	struct tracer_identity id;

	(void)err;
	(void)errlen;
	identity_set_user(&id, (uid_t)strtoul(key, NULL, 10)); /* may block */
	snprintf(value, len, "%s", id.user);
	return 0;
}

static struct asker names = {
	.what = "user name of uid",
	.ask = resolve,
	.nslots = 256,
	.value_len = USERNAME_LEN,
	.ttl_ns = TTL_NS,
};

int usernames_start(void)
{
	return asker_start(&names);
}

void usernames_stop(void)
{
	asker_stop(&names); /* a look-up in progress ends first: the NSS timeout */
}

bool usernames_get(uid_t uid, char *buf, size_t len)
{
	char key[24], name[USERNAME_LEN];

	snprintf(key, sizeof(key), "%lu", (unsigned long)uid);
	if (!asker_get(&names, key, name))
		return false;
	snprintf(buf, len, "%s", name);
	return true;
}

void usernames_fill(struct tracer_identity *id)
{
	if (id->uid < 0 || id->user[0])
		return;
	if (!usernames_get((uid_t)id->uid, id->user, sizeof(id->user)))
		snprintf(id->user, sizeof(id->user), "%ld", id->uid);
}
