/*
 * usernames.h - user names of uids without blocking tracerd's loop: a
 * cache (names expire after 10 minutes) filled by a thread that does the
 * password database look-ups (LDAP, SSSD: possibly slow).
 */
#ifndef TRACERD_USERNAMES_H
#define TRACERD_USERNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "identity.h"

#define USERNAME_LEN 256

/* Start the look-up thread (0, or -1: names are then numbers). */
int usernames_start(void);
void usernames_stop(void);

/*
 * The cached name of uid into buf: true.  false when not known yet (a
 * look-up is queued; ask again later).  Never blocks on the database.
 */
bool usernames_get(uid_t uid, char *buf, size_t len);

/* id->user from the cache when empty and id->uid is known; the number
 * when the name is not known yet. */
void usernames_fill(struct tracer_identity *id);

#endif
