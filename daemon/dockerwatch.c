/*
 * dockerwatch.c - the docker watch thread (dockerwatch.h).  The table of
 * watches is shared with the loop under a mutex that the thread never
 * holds while it asks dockerd: the loop adds, takes results and forgets
 * in constant time.  Each round the thread asks every socket the open
 * watches name once (1 s at most each: a hanging dockerd costs the
 * thread time, never the loop), then decides each watch:
 *  - no container may be its command's yet: it waits (dockerd lists a
 *    container as "created" before it starts);
 *  - one, running, that no open watch of another job may also claim, in
 *    two rounds in a row: found;
 *  - two containers, or one another job's open watch may also claim:
 *    ambiguous, none joins (never the wrong job);
 *  - its client exited 2 s ago, or 60 s passed: unmatched, or failed
 *    when no dockerd ever answered.
 */
#define CURL_DISABLE_TYPECHECK
#include "dockerwatch.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "caps.h"
#include "clock.h"
#include "growbuf.h"
#include "log.h"
#include "procfs.h"
#include "threads.h"

#define POLL_NS (200ull * 1000000ull)
#define GIVE_UP_NS (60ull * NS_PER_SEC)
#define AFTER_CLIENT_NS (2ull * NS_PER_SEC)
#define ASK_TIMEOUT_MS 1000L
#define ANSWER_MAX (4u << 20)  /* bytes of one list; more: failed */
#define ENTRIES_MAX 512        /* containers read per round, newest first */
#define SOCKETS_MAX 8
#define CLAIMS 64              /* containers given to jobs, remembered */

struct docker_watch {
	bool used, done;
	uint64_t seq;
	uint64_t tag, client_start_ns, added_ns, gone_ns;
	uint64_t client_ticks; /* its start in /proc/PID/stat (0: not read yet) */
	char seen_id[65];      /* the running container found in the last round */
	pid_t client;
	struct docker_cmd cmd;
	char sockets[512];
	bool answered;
	struct dockerwatch_result result;
};

struct claim {
	char id[65];
	uint64_t tag;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work;
	pthread_t thread;
	bool running, stopping;
	uint64_t seq;
	struct docker_watch w[DOCKERWATCH_MAX];
	/* jobs ended since the thread last looked: their claims go */
	uint64_t released[CLAIMS];
	unsigned nreleased;
	/* thread only */
	struct claim claims[CLAIMS];
	unsigned nclaims;
	struct docker_entry *entries;
	int entry_sock[ENTRIES_MAX];
} dw = {.lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER};

/* ---- asking dockerd ---- */

/* The container list of the dockerd at sock into out (at most max):
 * the number of entries, or -1 with why. */
static int ask_list(const char *sock, struct docker_entry *out, size_t max, char *why,
		    size_t whylen)
{
	struct growbuf a = {.max = ANSWER_MAX};
	CURL *h = curl_easy_init();
	long code = 0;
	CURLcode rc;
	int n = -1;

	if (!h) {
		snprintf(why, whylen, "libcurl: %s", "cannot start a request");
		return -1;
	}
	curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, sock);
	/* the list only: a container's inspect carries its environment */
	curl_easy_setopt(h, CURLOPT_URL, "http://localhost/containers/json?all=1");
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ASK_TIMEOUT_MS);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ASK_TIMEOUT_MS / 2);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, growbuf_curl_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &a);
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	if (a.over)
		snprintf(why, whylen, "%s: list longer than %u bytes", sock, ANSWER_MAX);
	else if (rc != CURLE_OK)
		snprintf(why, whylen, "%s: %s", sock, curl_easy_strerror(rc));
	else if (code != 200)
		snprintf(why, whylen, "%s: HTTP status %ld", sock, code);
	else if ((n = dockercmd_list_parse(a.p ? a.p : "", a.len, out, max)) < 0)
		snprintf(why, whylen, "%s: the answer is not a container list", sock);
	curl_easy_cleanup(h);
	growbuf_free(&a);
	return n;
}

/* ---- one round ---- */

/* Sockets named by the open watches, deduplicated (socks[k]). */
static size_t collect_sockets(const struct docker_watch *w, size_t nw, char socks[][108])
{
	size_t ns = 0;

	for (size_t i = 0; i < nw; i++)
		for (const char *p = w[i].sockets; *p && ns < SOCKETS_MAX;) {
			size_t len = strcspn(p, ", ");
			size_t k;

			if (len && len < 108) {
				for (k = 0; k < ns; k++)
					if (strlen(socks[k]) == len && !strncmp(socks[k], p, len))
						break;
				if (k == ns) {
					memcpy(socks[ns], p, len);
					socks[ns++][len] = '\0';
				}
			}
			p += len;
			p += strspn(p, ", ");
		}
	return ns;
}

static bool names_socket(const struct docker_watch *w, const char *sock)
{
	size_t sl = strlen(sock);

	for (const char *p = w->sockets; *p;) {
		size_t len = strcspn(p, ", ");

		if (len == sl && !strncmp(p, sock, len))
			return true;
		p += len;
		p += strspn(p, ", ");
	}
	return false;
}

static bool claimed_by_other(const char *id, uint64_t tag)
{
	for (unsigned i = 0; i < dw.nclaims && i < CLAIMS; i++)
		if (!strcmp(dw.claims[i].id, id) && dw.claims[i].tag != tag)
			return true;
	return false;
}

static void claim(const char *id, uint64_t tag)
{
	struct claim *c = &dw.claims[dw.nclaims++ % CLAIMS];

	snprintf(c->id, sizeof(c->id), "%s", id);
	c->tag = tag;
}

/* The claims of ended jobs go (thread, under the lock): a later job may
 * then take a long-lived container (docker start) that one of them had. */
static void drop_released_claims(void)
{
	unsigned n = dw.nreleased < CLAIMS ? dw.nreleased : CLAIMS;

	for (unsigned r = 0; r < n; r++)
		for (unsigned i = 0; i < CLAIMS; i++)
			if (dw.claims[i].tag == dw.released[r]) {
				dw.claims[i].tag = 0;
				dw.claims[i].id[0] = '\0';
			}
	dw.nreleased = 0;
}

static bool candidate(const struct docker_watch *w, const char socks[][108], int e)
{
	const struct docker_entry *en = &dw.entries[e];

	return names_socket(w, socks[dw.entry_sock[e]]) &&
	       dockercmd_entry_matches(&w->cmd, (int64_t)(w->client_start_ns / NS_PER_SEC), en) &&
	       !claimed_by_other(en->id, w->tag);
}

/* The client still runs: the same process (its start time in ticks, as
 * first read here: never compared across clocks) and not a zombie. */
static bool client_alive(struct docker_watch *w)
{
	struct procfs_stat st;

	if (procfs_read_stat(w->client, &st) != 0 || st.state == 'Z' || st.state == 'X')
		return false;
	if (!w->client_ticks)
		w->client_ticks = st.start_ticks;
	return st.start_ticks == w->client_ticks;
}

/* Decide watch k of the copy w (nw open ones) from this round's list. */
static void decide(struct docker_watch *w, size_t nw, size_t k, const char socks[][108], int nent,
		   const bool *sock_ok, size_t ns, uint64_t now)
{
	struct docker_watch *me = &w[k];
	int found = -1, nfound = 0;
	bool shared = false;

	for (size_t s = 0; s < ns; s++)
		if (sock_ok[s] && names_socket(me, socks[s]))
			me->answered = true;
	for (int e = 0; e < nent; e++) {
		if (!candidate(me, socks, e))
			continue;
		nfound++;
		found = e;
		for (size_t o = 0; o < nw; o++)
			if (o != k && w[o].tag != me->tag && candidate(&w[o], socks, e))
				shared = true;
	}
	if (nfound > 1 || (nfound == 1 && shared)) {
		me->done = true;
		me->result.outcome = DOCKERWATCH_AMBIGUOUS;
		snprintf(me->result.why, sizeof(me->result.why), "%s",
			 nfound > 1 ? "two containers may be its command's"
				    : "another job's docker command may have started it");
		return;
	}
	/* found in two rounds in a row: another job's docker command whose
	 * exec the loop has not handled yet has one more round to show up */
	if (nfound == 1 && dockercmd_entry_live(&dw.entries[found])) {
		if (!strcmp(me->seen_id, dw.entries[found].id)) {
			me->done = true;
			me->result.outcome = DOCKERWATCH_FOUND;
			me->result.entry = dw.entries[found];
			return;
		}
		snprintf(me->seen_id, sizeof(me->seen_id), "%s", dw.entries[found].id);
	}
	if (!me->gone_ns && !client_alive(me))
		me->gone_ns = now;
	if (now - me->added_ns >= GIVE_UP_NS ||
	    (me->gone_ns && now - me->gone_ns >= AFTER_CLIENT_NS)) {
		me->done = true;
		me->result.outcome = me->answered ? DOCKERWATCH_UNMATCHED : DOCKERWATCH_FAILED;
	}
}

static void round_of(struct docker_watch *w, size_t nw)
{
	char socks[SOCKETS_MAX][108], why[96] = "";
	bool sock_ok[SOCKETS_MAX] = {false};
	size_t ns = collect_sockets(w, nw, socks);
	int nent = 0;
	uint64_t now;

	for (size_t s = 0; s < ns && nent < ENTRIES_MAX; s++) {
		int n = ask_list(socks[s], dw.entries + nent, (size_t)(ENTRIES_MAX - nent), why,
				 sizeof(why));

		if (n < 0)
			continue;
		sock_ok[s] = true;
		for (int e = nent; e < nent + n; e++)
			dw.entry_sock[e] = (int)s;
		nent += n;
	}
	now = clock_mono_ns();
	for (size_t k = 0; k < nw; k++) {
		if (why[0])
			snprintf(w[k].result.why, sizeof(w[k].result.why), "%s", why);
		decide(w, nw, k, socks, nent, sock_ok, ns, now);
	}
	/* claims after every decision: two jobs' watches see the same round */
	for (size_t k = 0; k < nw; k++)
		if (w[k].done && w[k].result.outcome == DOCKERWATCH_FOUND)
			claim(w[k].result.entry.id, w[k].tag);
}

static void *watch_thread(void *arg)
{
	static struct docker_watch copy[DOCKERWATCH_MAX];
	char err[128];

	(void)arg;
	/* a socket owned by root needs no capability, only uid 0 */
	if (caps_drop_all(err, sizeof(err)) != 0)
		log_warn("docker watch thread: capabilities kept: %s", err);
	pthread_mutex_lock(&dw.lock);
	while (!dw.stopping) {
		size_t nw = 0;
		struct timespec until;

		drop_released_claims();
		for (size_t i = 0; i < DOCKERWATCH_MAX; i++)
			if (dw.w[i].used && !dw.w[i].done)
				copy[nw++] = dw.w[i];
		if (!nw) {
			pthread_cond_wait(&dw.work, &dw.lock);
			continue;
		}
		pthread_mutex_unlock(&dw.lock);
		round_of(copy, nw); /* slow: dockerd */
		pthread_mutex_lock(&dw.lock);
		for (size_t k = 0; k < nw; k++)
			for (size_t i = 0; i < DOCKERWATCH_MAX; i++) {
				struct docker_watch *t = &dw.w[i];

				/* forgotten meanwhile, or its slot given to another */
				if (!t->used || t->seq != copy[k].seq || t->done)
					continue;
				t->answered = copy[k].answered;
				t->gone_ns = copy[k].gone_ns;
				t->client_ticks = copy[k].client_ticks;
				memcpy(t->seen_id, copy[k].seen_id, sizeof(t->seen_id));
				t->done = copy[k].done;
				t->result = copy[k].result;
			}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += (long)POLL_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		if (!dw.stopping)
			pthread_cond_timedwait(&dw.work, &dw.lock, &until);
	}
	pthread_mutex_unlock(&dw.lock);
	return NULL;
}

/* ---- the loop's side ---- */

int dockerwatch_start(void)
{
	pthread_condattr_t ca;
	int rc;

	dw.entries = calloc(ENTRIES_MAX, sizeof(*dw.entries));
	if (!dw.entries) {
		log_warn("docker watch: out of memory: containers started by dockerd stay apart");
		return -1;
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_destroy(&dw.work);
	pthread_cond_init(&dw.work, &ca);
	pthread_condattr_destroy(&ca);
	rc = threads_start(&dw.thread, watch_thread, NULL);
	if (rc != 0) {
		log_warn("docker watch thread: %s: containers started by dockerd stay apart",
			 strerror(rc));
		free(dw.entries);
		dw.entries = NULL;
		return -1;
	}
	dw.running = true;
	return 0;
}

void dockerwatch_stop(void)
{
	if (!dw.running)
		return;
	pthread_mutex_lock(&dw.lock);
	dw.stopping = true;
	pthread_cond_signal(&dw.work);
	pthread_mutex_unlock(&dw.lock);
	pthread_join(dw.thread, NULL);
	dw.running = false;
	free(dw.entries);
	dw.entries = NULL;
}

bool dockerwatch_add(uint64_t job_tag, pid_t client, uint64_t client_start_ns,
		     const struct docker_cmd *cmd, const char *sockets)
{
	bool added = false;
	unsigned of_job = 0;

	if (!dw.running)
		return false;
	pthread_mutex_lock(&dw.lock);
	/* one job running docker in a loop must not take every other job's */
	for (size_t i = 0; i < DOCKERWATCH_MAX; i++)
		if (dw.w[i].used && dw.w[i].tag == job_tag)
			of_job++;
	for (size_t i = 0; i < DOCKERWATCH_MAX && !added && of_job < DOCKERWATCH_PER_JOB; i++) {
		struct docker_watch *t = &dw.w[i];

		if (t->used)
			continue;
		memset(t, 0, sizeof(*t));
		t->used = true;
		t->seq = ++dw.seq;
		t->tag = job_tag;
		t->client = client;
		t->client_start_ns = client_start_ns;
		t->added_ns = clock_mono_ns();
		t->cmd = *cmd;
		snprintf(t->sockets, sizeof(t->sockets), "%s", sockets);
		t->result.job_tag = job_tag;
		t->result.client = client;
		t->result.client_start_ns = client_start_ns;
		added = true;
	}
	if (added)
		pthread_cond_signal(&dw.work);
	pthread_mutex_unlock(&dw.lock);
	return added;
}

size_t dockerwatch_take(struct dockerwatch_result *out, size_t max)
{
	size_t n = 0;

	if (!dw.running)
		return 0;
	pthread_mutex_lock(&dw.lock);
	for (size_t i = 0; i < DOCKERWATCH_MAX && n < max; i++)
		if (dw.w[i].used && dw.w[i].done) {
			out[n++] = dw.w[i].result;
			dw.w[i].used = false;
		}
	pthread_mutex_unlock(&dw.lock);
	return n;
}

void dockerwatch_forget(uint64_t job_tag, struct container_joins *cj)
{
	if (!dw.running)
		return;
	pthread_mutex_lock(&dw.lock);
	dw.released[dw.nreleased++ % CLAIMS] = job_tag;
	for (size_t i = 0; i < DOCKERWATCH_MAX; i++)
		if (dw.w[i].used && dw.w[i].tag == job_tag) {
			/* a result not taken yet counts as what the thread found */
			bool answered = dw.w[i].answered ||
					(dw.w[i].done && dw.w[i].result.outcome != DOCKERWATCH_FAILED);

			if (answered)
				cj->unmatched++;
			else
				cj->failed++;
			dw.w[i].used = false;
		}
	pthread_mutex_unlock(&dw.lock);
}
