/*
 * sweep_source.c - a sweep from where the summaries are (sweep.h): the
 * datalake when configured, where ClickHouse sums; else the archive file
 * and its rotated files, folded here one summary at a time.  The CLI
 * (root) and tracerd's archive workers (every other user) both call it.
 */
#include "sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "datalake_read.h"
#include "jobfilter.h"
#include "sumfile.h"

static int fold(const cJSON *s, void *ctx)
{
	return sweep_acc_add(ctx, s) != 0;
}

cJSON *sweep_run(const struct tracer_config *cfg, const struct sweep_query *q,
		 uint64_t deadline_ns, const _Atomic int *cancel, char *err, size_t errlen)
{
	struct sumfile_status st = {.deadline_ns = deadline_ns, .cancel = cancel};
	struct job_filter f;
	struct sweep_acc *a;
	cJSON *ans;
	int files = 0, rc;

	if (datalake_configured(cfg))
		return sweep_from_datalake(cfg, q, err, errlen);
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
	if (!ans) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return ans;
}
