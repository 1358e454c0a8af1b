/*
 * netpeers.c - distinct TCP remote endpoints per process, tool and job
 * (netpeers.h): an open-addressing set of (scope, endpoint) pairs that
 * grows by doubling up to TRACER_NET_PEERS_MAX slots, and the counts of
 * the tools (at most JOB_MAX_TOOLS + 1) kept beside it.  A process is
 * counted in its own totals at once; tools and the job when the summary
 * is made, since a tool's aggregate exists only once a process is folded.
 */
#include "netpeers.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "defaults.h"
#include "job_record.h"

#define FIRST_SLOTS 64

enum scope_kind { EMPTY = 0, PROC = 1, TOOL = 2, JOB = 3 };

struct peer_key {
	uint64_t scope;   /* PROC: pid and start; TOOL: hash of name and exe */
	uint8_t addr[16];
	uint16_t port;
	uint8_t family;
	uint8_t kind;     /* enum scope_kind; EMPTY: a free slot */
	uint32_t pad;
};

struct tool_count {
	uint64_t scope;
	uint64_t count;
	bool capped;
};

struct netpeers {
	struct peer_key *slot;
	size_t nslots, used;
	uint64_t job_count;
	bool job_capped;
	struct tool_count *tools;
	size_t ntools;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull; /* FNV-1a */
	return h;
}

static uint64_t key_hash(const struct peer_key *k)
{
	uint64_t h = mix(k->scope, k->kind), a, b;

	memcpy(&a, k->addr, 8);
	memcpy(&b, k->addr + 8, 8);
	h = mix(h, a);
	h = mix(h, b);
	return mix(h, ((uint64_t)k->family << 16) | k->port);
}

static bool key_eq(const struct peer_key *a, const struct peer_key *b)
{
	return a->kind == b->kind && a->scope == b->scope && a->port == b->port &&
	       a->family == b->family && memcmp(a->addr, b->addr, 16) == 0;
}

static struct peer_key *find_slot(struct peer_key *slot, size_t nslots,
				  const struct peer_key *k)
{
	size_t i = key_hash(k) & (nslots - 1);

	while (slot[i].kind != EMPTY && !key_eq(&slot[i], k))
		i = (i + 1) & (nslots - 1);
	return &slot[i];
}

static int grow(struct netpeers *np)
{
	size_t n = np->nslots ? np->nslots * 2 : FIRST_SLOTS;
	struct peer_key *s = calloc(n, sizeof(*s));

	if (!s)
		return -1;
	for (size_t i = 0; i < np->nslots; i++)
		if (np->slot[i].kind != EMPTY)
			*find_slot(s, n, &np->slot[i]) = np->slot[i];
	free(np->slot);
	np->slot = s;
	np->nslots = n;
	return 0;
}

/* 1: new pair, 0: known, -1: the table is full (or out of memory) */
static int add(struct netpeers *np, const struct peer_key *k)
{
	struct peer_key *s;

	if (np->used * 2 >= np->nslots && np->nslots < TRACER_NET_PEERS_MAX && grow(np) != 0)
		return -1;
	s = find_slot(np->slot, np->nslots, k);
	if (s->kind != EMPTY)
		return 0;
	if ((np->used + 1) * 4 > np->nslots * 3)
		return -1; /* at the ceiling: keep probes short */
	*s = *k;
	np->used++;
	return 1;
}

static void count(uint64_t *n, bool *capped, int r)
{
	if (r > 0)
		(*n)++;
	else if (r < 0)
		*capped = true;
}

static struct tool_count *tool_count(struct netpeers *np, uint64_t scope)
{
	struct tool_count *t;

	for (size_t i = 0; i < np->ntools; i++)
		if (np->tools[i].scope == scope)
			return &np->tools[i];
	if (np->ntools > JOB_MAX_TOOLS)
		return NULL;
	t = realloc(np->tools, (np->ntools + 1) * sizeof(*t));
	if (!t)
		return NULL;
	np->tools = t;
	t = &np->tools[np->ntools++];
	memset(t, 0, sizeof(*t));
	t->scope = scope;
	return t;
}

/* the tool a process is folded into (job_record.c tool_get): name, then exe */
static uint64_t tool_scope(const char *tool, const char *exe)
{
	return hash_str(hash_str(0xcbf29ce484222325ull, tool) ^ 0xff, exe ? exe : "");
}

void netpeers_note(struct job *j, struct job_proc *p, int family,
		   const uint8_t addr[16], uint16_t port)
{
	struct netpeers *np = j->peers;
	struct peer_key k;
	struct tool_count *tc;

	if (!np) {
		np = j->peers = calloc(1, sizeof(*np));
		if (!np)
			return;
	}
	memset(&k, 0, sizeof(k));
	memcpy(k.addr, addr, 16);
	k.port = port;
	k.family = (uint8_t)family;
	k.kind = JOB;
	count(&np->job_count, &np->job_capped, add(np, &k));
	if (!p)
		return;
	k.kind = PROC;
	k.scope = ((uint64_t)(uint32_t)p->pid << 32) ^ p->start_ns;
	count(&p->totals.net.tcp_remotes, &p->totals.net.tcp_remotes_capped, add(np, &k));
	k.kind = TOOL;
	k.scope = tool_scope(p->tool ? p->tool : (p->comm[0] ? p->comm : "?"), p->exe);
	tc = tool_count(np, k.scope);
	if (tc)
		count(&tc->count, &tc->capped, add(np, &k));
}

void netpeers_apply(struct job *j)
{
	struct netpeers *np = j->peers;

	if (j->peers_partial) {
		j->totals.net.tcp_remotes_partial = true;
		for (struct tool_agg *t = j->tools; t; t = t->next)
			t->sum.net.tcp_remotes_partial = true;
	}
	if (!np)
		return;
	j->totals.net.tcp_remotes = np->job_count;
	j->totals.net.tcp_remotes_capped = np->job_capped;
	for (struct tool_agg *t = j->tools; t; t = t->next) {
		uint64_t scope = tool_scope(t->tool, t->exe);
		for (size_t i = 0; i < np->ntools; i++) {
			if (np->tools[i].scope != scope)
				continue;
			t->sum.net.tcp_remotes = np->tools[i].count;
			t->sum.net.tcp_remotes_capped = np->tools[i].capped;
		}
	}
}

void netpeers_free(struct netpeers *np)
{
	if (!np)
		return;
	free(np->slot);
	free(np->tools);
	free(np);
}
