/*
 * history.c - bounded history of runs per (user, task name) (history.h).
 */
#include "history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int history_init(struct history *h)
{
	memset(h, 0, sizeof(*h));
	h->tasks = calloc(HISTORY_TASKS, sizeof(*h->tasks));
	return h->tasks ? 0 : -1;
}

void history_free(struct history *h)
{
	free(h->tasks);
	memset(h, 0, sizeof(*h));
}

static struct history_task *find(const struct history *h, long uid, const char *name)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->tasks[i].uid == uid && strcmp(h->tasks[i].name, name) == 0)
			return &h->tasks[i];
	return NULL;
}

const struct history_task *history_find(const struct history *h, long uid, const char *name)
{
	const struct history_task *t = h->tasks && name && *name ? find(h, uid, name) : NULL;

	return t && t->n ? t : NULL;
}

void history_add(struct history *h, long uid, const char *name, const struct history_run *r)
{
	struct history_task *t;

	if (!h->tasks || !name || !*name || strlen(name) >= HISTORY_NAME_LEN)
		return;
	t = find(h, uid, name);
	if (!t) {
		if (h->n < HISTORY_TASKS) {
			t = &h->tasks[h->n++];
		} else { /* evict the least recently used name */
			t = &h->tasks[0];
			for (size_t i = 1; i < h->n; i++)
				if (h->tasks[i].used < t->used)
					t = &h->tasks[i];
		}
		memset(t, 0, sizeof(*t));
		t->uid = uid;
		snprintf(t->name, sizeof(t->name), "%s", name);
	}
	t->runs[t->next] = *r;
	t->next = (t->next + 1) % HISTORY_RUNS;
	if (t->n < HISTORY_RUNS)
		t->n++;
	t->used = ++h->clock;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;

	if (cJSON_IsNumber(v))
		return v->valuedouble;
	if (cJSON_IsRaw(v) && v->valuestring)
		return strtod(v->valuestring, NULL);
	return 0;
}

int history_run_of_summary(const cJSON *s, long *uid, char *name, size_t len,
			   struct history_run *r)
{
	const cJSON *id = cJSON_GetObjectItem(s, "identity");
	const cJSON *tn = cJSON_GetObjectItem(id, "task_name");
	/* written raw (json.c), like the other counts */
	const cJSON *u = cJSON_GetObjectItem(id, "uid");
	const cJSON *use = cJSON_GetObjectItem(s, "allocation_use");
	double cpu = num(cJSON_GetObjectItem(s, "totals"), "cpu_s");
	int mean;

	if (!cJSON_IsString(tn) || !tn->valuestring[0])
		return -1;
	snprintf(name, len, "%s", tn->valuestring);
	*uid = u && num(id, "uid") >= 0 ? (long)num(id, "uid") : -1;
	memset(r, 0, sizeof(*r));
	r->wall_s = num(s, "wall_s");
	if (r->wall_s <= 0)
		return -1;
	r->peak_bytes = (uint64_t)num(cJSON_GetObjectItem(s, "memory"), "peak_bytes");
	r->cpus = (int)num(cJSON_GetObjectItem(use, "concurrency"), "p95");
	mean = (int)(cpu / r->wall_s + 0.95);
	if (mean > r->cpus)
		r->cpus = mean;
	if (r->cpus < 1)
		r->cpus = 1;
	return 0;
}

int history_load_file(struct history *h, const char *path)
{
	FILE *f = fopen(path, "re");
	struct stat st;
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	int n = 0;

	if (!f)
		return -1;
	if (fstat(fileno(f), &st) == 0 && st.st_size > (off_t)HISTORY_LOAD_BYTES) {
		fseeko(f, st.st_size - (off_t)HISTORY_LOAD_BYTES, SEEK_SET);
		got = getline(&line, &cap, f); /* a partial first line */
	}
	while ((got = getline(&line, &cap, f)) > 0) {
		cJSON *s = cJSON_ParseWithLength(line, (size_t)got);
		struct history_run r;
		char name[HISTORY_NAME_LEN];
		long uid;

		if (s && history_run_of_summary(s, &uid, name, sizeof(name), &r) == 0) {
			history_add(h, uid, name, &r);
			n++;
		}
		cJSON_Delete(s);
	}
	free(line);
	fclose(f);
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double history_wall_pct(const struct history_task *t, double p)
{
	double v[HISTORY_RUNS];
	int k;

	if (!t || t->n == 0)
		return 0;
	for (int i = 0; i < t->n; i++)
		v[i] = t->runs[i].wall_s;
	qsort(v, (size_t)t->n, sizeof(v[0]), cmp_double);
	k = (int)(p / 100.0 * t->n + 0.999999) - 1; /* nearest rank */
	if (k < 0)
		k = 0;
	if (k >= t->n)
		k = t->n - 1;
	return v[k];
}
