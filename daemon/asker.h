/*
 * asker.h - answers that may take seconds (the password database over
 * LDAP, slurmctld through squeue, a container runtime's API), asked by a
 * thread of their own and kept in a small cache that tracerd's loop reads
 * without ever waiting.  One asker per kind of question; each has its
 * thread, which holds no capability.
 */
#ifndef TRACERD_ASKER_H
#define TRACERD_ASKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ASKER_KEY_LEN 72

/*
 * The slow question: the answer to key into value (value_len bytes, zeroed
 * before the call), 0; or -1 with why in err.  Runs on the asker's thread,
 * never on the loop; must end by itself within a bounded time.
 */
typedef int (*asker_fn)(const char *key, void *value, size_t value_len, char *err,
			size_t errlen);

struct asker_slot;

struct asker {
	const char *what;  /* for the log: "user name", "Slurm time limit" */
	asker_fn ask;
	size_t nslots, value_len;
	uint64_t ttl_ns;   /* asker_get asks again after this; 0: only asker_want */
	struct asker_slot *slots;
	unsigned char *values; /* nslots * value_len */
	pthread_mutex_t lock;
	pthread_cond_t work;
	pthread_t thread;
	bool running, stopping;
	uint64_t last_warn_ns;
};

/*
 * Start the thread of a: what, ask, nslots, value_len and ttl_ns are set by
 * the caller before.  0, or -1 (logged: every get then answers "not
 * known").
 */
int asker_start(struct asker *a);
/* Stop the thread: a question being asked ends first (bounded by ask). */
void asker_stop(struct asker *a);

/* Queue the question for key unless it is queued already (asked again even
 * when answered: the answer may have changed).  Never blocks on ask. */
void asker_want(struct asker *a, const char *key);

/*
 * The cached answer for key into value: true.  false when no answer has
 * come (yet).  With a ttl, a key never asked or answered longer than ttl
 * ago is queued.  Never blocks on ask.
 */
bool asker_get(struct asker *a, const char *key, void *value);

#endif
