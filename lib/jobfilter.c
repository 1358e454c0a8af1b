/*
 * jobfilter.c - which jobs `tracer jobs` lists, with sacct's selection
 * rules: every filter given must match; a list is "a,b,c" and matches
 * when any of its words does; -S keeps jobs still running at or after
 * the time (ended then or later), -E jobs that had started by then, so
 * both together keep the jobs that overlap the window.  tracerd adds the
 * owner: a user's listing holds only their own jobs.  A job id selects
 * as sacct -j does: JOBID every step of the job (and every task of an
 * array whose array job id it is), JOBID.STEP one step, JOBID_TASK one
 * array task.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobfilter.h"

static double member_num(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *member_str(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* epoch ns: summaries write them as decimal strings (exact beyond 2^53),
 * older ones and hand-made ones as numbers */
static double ns_num(const cJSON *o, const char *key)
{
	const char *t = member_str(o, key);
	char *end;
	double v;

	if (!t)
		return member_num(o, key);
	v = strtod(t, &end);
	return end != t && !*end ? v : NAN;
}

/* sacct's short state names */
const char *job_filter_state_word(const char *w, size_t n, char *buf, size_t len)
{
	static const struct { const char *abbrev, *word; } abbrevs[] = {
		{"CD", "COMPLETED"}, {"F", "FAILED"}, {"OOM", "OUT_OF_MEMORY"},
		{"CA", "CANCELLED"}, {"TO", "TIMEOUT"}, {"R", "RUNNING"},
	};

	snprintf(buf, len, "%.*s", (int)n, w);
	for (size_t i = 0; i < sizeof(abbrevs) / sizeof(abbrevs[0]); i++)
		if (strcasecmp(buf, abbrevs[i].abbrev) == 0)
			return abbrevs[i].word;
	return buf;
}

/* Does the comma list hold value?  States compare without case. */
static bool in_list(const char *list, const char *value, bool is_state)
{
	const char *p = list;

	if (!value)
		return false;
	while (*p) {
		size_t n = strcspn(p, ",");
		char buf[64];

		if (n > 0) {
			if (is_state) {
				if (strcasecmp(job_filter_state_word(p, n, buf, sizeof(buf)), value) == 0)
					return true;
			} else if (strlen(value) == n && strncmp(p, value, n) == 0) {
				return true;
			}
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

static bool user_matches(const char *list, const cJSON *id)
{
	double uid = member_num(id, "uid");
	char buf[32];

	if (in_list(list, member_str(id, "user"), false))
		return true;
	if (isnan(uid))
		return false;
	snprintf(buf, sizeof(buf), "%.0f", uid);
	return in_list(list, buf, false);
}

static bool word_eq(const char *w, size_t n, const char *value)
{
	return value && strlen(value) == n && strncmp(w, value, n) == 0;
}

/* w (n bytes) split at its last sep: the part before equals a, after b */
static bool split_eq(const char *w, size_t n, char sep, const char *a, const char *b)
{
	const char *cut = NULL;

	for (size_t i = 0; i < n; i++)
		if (w[i] == sep)
			cut = w + i;
	return cut && word_eq(w, (size_t)(cut - w), a) &&
	       word_eq(cut + 1, n - (size_t)(cut - w) - 1, b);
}

/* One -j word against identity id. */
static bool job_id_word(const char *w, size_t n, const cJSON *id)
{
	const char *job = member_str(id, "job_id"), *array = member_str(id, "array_job_id");
	double index = member_num(id, "array_index");
	char task[32] = "";

	if (word_eq(w, n, job) || word_eq(w, n, array))
		return true;
	if (split_eq(w, n, '.', job, member_str(id, "step_id")))
		return true;
	if (!isnan(index))
		snprintf(task, sizeof(task), "%.0f", index);
	return task[0] && split_eq(w, n, '_', array, task);
}

static bool job_ids_match(const char *list, const cJSON *id)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n > 0 && job_id_word(p, n, id))
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

void job_filter_init(struct job_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->since_ns = INT64_MIN;
	f->until_ns = INT64_MAX;
	f->owner_uid = -1;
}

bool job_filter_match(const struct job_filter *f, const cJSON *id, const char *state,
		      int64_t start_ns, int64_t end_ns)
{
	if (f->owner_uid >= 0 && member_num(id, "uid") != (double)f->owner_uid)
		return false;
	if (f->users && !user_matches(f->users, id))
		return false;
	if (f->names && !in_list(f->names, member_str(id, "task_name"), false))
		return false;
	if (f->runs && !in_list(f->runs, member_str(id, "run_id"), false) &&
	    !in_list(f->runs, member_str(id, "run_name"), false))
		return false;
	if (f->job_ids && !job_ids_match(f->job_ids, id))
		return false;
	if (f->accounts && !in_list(f->accounts, member_str(id, "account"), false))
		return false;
	if (f->partitions && !in_list(f->partitions, member_str(id, "queue"), false))
		return false;
	if (f->states && !in_list(f->states, state, true))
		return false;
	if (f->since_ns != INT64_MIN && !(end_ns >= f->since_ns))
		return false;
	if (f->until_ns != INT64_MAX && !(start_ns <= f->until_ns))
		return false;
	return true;
}

/* The node a summary ran on: Slurm's node name where the step had one
 * (several slurmds may share one host), else the host's name. */
const char *job_filter_node_of(const cJSON *s)
{
	const char *n = member_str(cJSON_GetObjectItem(s, "identity"), "node_name");

	return n && *n ? n : member_str(cJSON_GetObjectItem(s, "host"), "hostname");
}

bool job_filter_host(const struct job_filter *f, const char *hostname)
{
	return !f->nodes || in_list(f->nodes, hostname, false);
}

/* A finished job's summary: its "state" word (when the summary has one)
 * and start_ns/end_ns; a summary without times fails a time filter. */
bool job_filter_summary(const struct job_filter *f, const cJSON *s)
{
	double start = ns_num(s, "start_ns"), end = ns_num(s, "end_ns");

	if (!job_filter_host(f, job_filter_node_of(s)))
		return false;
	/* ns since the epoch fit a double to within a microsecond */
	return job_filter_match(f, cJSON_GetObjectItem(s, "identity"), member_str(s, "state"),
				isnan(start) ? INT64_MAX : (int64_t)start,
				isnan(end) ? INT64_MIN : (int64_t)end);
}
