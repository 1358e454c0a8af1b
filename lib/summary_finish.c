/*
 * summary_finish.c - a job's finished summary (summary_finish.h).  tracerd
 * and a standalone tracer-wrap both end a job here, so a job recorded
 * without a node daemon carries the same flags, request and cost as one
 * recorded by tracerd; only what each can count differs (net_mode).
 */
#include "summary_finish.h"

#include "analysis.h"
#include "json.h"
#include "netio.h"

cJSON *summary_finish(const struct job *j, const struct host_info *host,
		      const struct summary_opts *opts, const struct tracer_config *cfg,
		      const char *net_mode, const struct history_task *prev)
{
	cJSON *summary = summary_build(j, host, opts);

	if (!summary)
		return NULL;
	json_add_str(summary, "net_counting", net_mode);
	cJSON_AddItemToObject(summary, "net_not_counted", netio_not_counted_json(net_mode));
	/* the analysis reads the numbers above: it comes last */
	analysis_add(summary, j, host, cfg, prev);
	return summary;
}
