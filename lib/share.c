/* share.c - see share.h. */
#include "share.h"

#include <stdlib.h>
#include <string.h>

#include "identity.h"
#include "json.h"

uint64_t share_of_summary(const cJSON *summary)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(summary, "identity");
	const cJSON *sched = cJSON_GetObjectItemCaseSensitive(id, "scheduler");
	/* a number, or a raw integer (json_add_i64) in a summary being built */
	int64_t uid = cJSON_IsObject(id) ? json_get_i64(id, "uid", -1) : -1;
	uint64_t share;

	if (uid < 0 || uid > 4294967295LL)
		return SHARE_UNKNOWN;
	share = (uint64_t)uid;
	if (cJSON_IsString(sched) && identity_scheduler_reserved(sched->valuestring))
		share |= SHARE_SCHEDULED;
	return share;
}

uint64_t share_of_text(const char *text, size_t len)
{
	cJSON *s = cJSON_ParseWithLength(text, len);
	uint64_t share = s ? share_of_summary(s) : SHARE_UNKNOWN;

	cJSON_Delete(s);
	return share;
}

int share_tally_add(struct share_tally *t, uint64_t share, int64_t bytes)
{
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].share == share) {
			int64_t left = (int64_t)t->v[i].bytes + bytes;

			if (left > 0)
				t->v[i].bytes = (uint64_t)left;
			else /* a share with nothing left goes: the array stays small */
				t->v[i] = t->v[--t->n];
			return 0;
		}
	}
	if (bytes <= 0)
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct share_bytes *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = (struct share_bytes){share, (uint64_t)bytes};
	return 0;
}

int share_tally_largest(const struct share_tally *t, uint64_t *share)
{
	uint64_t most = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].bytes > most) {
			most = t->v[i].bytes;
			*share = t->v[i].share;
		}
	}
	return most ? 0 : -1;
}

void share_tally_free(struct share_tally *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
