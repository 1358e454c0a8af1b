/*
 * sweep_source.c - a sweep from where the summaries are (sweep.h): the
 * datalake when configured, where ClickHouse sums; else the archive file
 * and its rotated files, folded here one summary at a time.  The CLI
 * (root) and tracerd's archive workers (every other user) both call it.
 * A sweep of every user's jobs also reads the idle hosts' records from
 * the same source (sweep_idle.c): they are the site's, not a user's.
 */
#include "sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "datalake_read.h"
#include "jobfilter.h"
#include "json.h"
#include "sumfile.h"
#include "summary.h"

static int fold(const cJSON *s, void *ctx)
{
	return sweep_acc_add(ctx, s) != 0;
}

static int fold_idle(const cJSON *r, void *ctx)
{
	return sweep_idle_add(ctx, r) != 0;
}

/* The idle hosts into ans ("idle_hosts"), and by host each row's idle
 * hours; what cannot be read is said in "idle_hosts_error", the jobs'
 * answer stands.  0, -1 when out of memory. */
static int add_idle(cJSON *ans, const struct tracer_config *cfg, const struct sweep_query *q,
		    uint64_t deadline_ns, const _Atomic int *cancel)
{
	struct sumfile_status st = {.deadline_ns = deadline_ns, .cancel = cancel};
	struct sweep_idle *a = sweep_idle_new(q);
	char err[512] = "";
	const cJSON *row;
	cJSON *idle;
	int files = 0, rc = 0;

	if (!a)
		return -1;
	if (datalake_configured(cfg)) {
		rc = sweep_idle_from_datalake(a, cfg, q, err, sizeof(err));
	} else {
		rc = sumfile_records_each(cfg->file_path, SUMMARY_IDLE_HOST_RECORD, fold_idle, a,
					  &files, &st);
		if (rc < 0 && st.open_errno && st.open_errno != ENOENT)
			snprintf(err, sizeof(err), "cannot read the archive %s: %s", st.failed_path,
				 strerror(st.open_errno));
		else if (rc > 0)
			snprintf(err, sizeof(err), "out of memory");
		else
			rc = 0;
	}
	if (rc != 0) {
		json_add_str(ans, "idle_hosts_error", err);
		sweep_idle_free(a);
		return 0;
	}
	if (q->by == SWEEP_BY_HOST)
		cJSON_ArrayForEach(row, cJSON_GetObjectItem(ans, "rows"))
			cJSON_AddNumberToObject((cJSON *)row, "idle_hours",
						round(sweep_idle_hours_of(
							a, json_get_str(row, "key", "-")) * 1e6) / 1e6);
	idle = sweep_idle_answer(a);
	if (idle && (st.truncated || sweep_idle_full(a)))
		cJSON_AddBoolToObject(idle, "truncated", true);
	sweep_idle_free(a);
	if (!idle)
		return -1;
	cJSON_AddItemToObject(ans, "idle_hosts", idle);
	return 0;
}

cJSON *sweep_run(const struct tracer_config *cfg, const struct sweep_query *q,
		 uint64_t deadline_ns, const _Atomic int *cancel, char *err, size_t errlen)
{
	struct sumfile_status st = {.deadline_ns = deadline_ns, .cancel = cancel};
	struct job_filter f;
	struct sweep_acc *a;
	cJSON *ans;
	int files = 0, rc;

	if (datalake_configured(cfg)) {
		ans = sweep_from_datalake(cfg, q, err, errlen);
		goto idle;
	}
	job_filter_init(&f);
	f.owner_uid = q->uid;
	/* whole seconds, as the datalake's DateTime column compares */
	f.since_ns = (int64_t)floor(q->from_s) * 1000000000;
	a = sweep_acc_new(q);
	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rc = sumfile_each(cfg->file_path, &f, fold, a, &files, &st);
	if (rc < 0 && st.open_errno && st.open_errno != ENOENT) {
		snprintf(err, errlen, "cannot read the archive %s: %s", st.failed_path,
			 strerror(st.open_errno));
		sweep_acc_free(a);
		return NULL;
	}
	if (rc > 0) {
		snprintf(err, errlen, "out of memory");
		sweep_acc_free(a);
		return NULL;
	}
	ans = sweep_acc_answer(a);
	if (ans && (st.truncated || st.bad || sweep_acc_full(a))) {
		cJSON_AddBoolToObject(ans, "truncated", st.truncated || sweep_acc_full(a));
		cJSON_AddNumberToObject(ans, "skipped_lines", (double)st.bad);
	}
	sweep_acc_free(a);
	if (!ans)
		snprintf(err, errlen, "out of memory");
idle:
	/* the site's idle hosts: for a sweep of every user's jobs only */
	if (ans && q->uid < 0 && add_idle(ans, cfg, q, deadline_ns, cancel) != 0) {
		cJSON_Delete(ans);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return ans;
}
