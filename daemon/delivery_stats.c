/*
 * delivery_stats.c - delivery's counters as JSON, for `tracer status`
 * (delivery.h).
 */
#include "delivery.h"

#include "json.h"

cJSON *delivery_stats_json(const struct delivery_stats *st)
{
	cJSON *o = cJSON_CreateObject(), *sp, *arr;

	if (!o)
		return NULL;
	json_add_u64(o, "submitted", st->submitted);
	json_add_u64(o, "queued", st->queued);
	json_add_u64(o, "queue_dropped", st->queue_dropped);
	sp = cJSON_AddObjectToObject(o, "spool");
	json_add_u64(sp, "records", st->spool.records);
	json_add_u64(sp, "bytes", st->spool.bytes);
	json_add_u64(sp, "written", st->spool.written);
	json_add_u64(sp, "write_errors", st->spool.write_errors);
	json_add_u64(sp, "disk_full", st->spool.disk_full);
	json_add_u64(sp, "corrupt", st->spool.corrupt);
	json_add_u64(sp, "dropped", st->spool.dropped);
	json_add_u64(sp, "share_spared", st->spool.share_spared);
	arr = cJSON_AddArrayToObject(o, "sinks");
	for (int i = 0; arr && i < st->nsinks; i++) {
		const struct sink_stats *s = &st->sinks[i];
		cJSON *e = cJSON_CreateObject();
		if (!e)
			break;
		json_add_str(e, "sink", sink_kind_name(s->kind));
		json_add_u64(e, "delivered", s->delivered);
		json_add_u64(e, "batches", s->batches);
		json_add_u64(e, "failures", s->failures);
		json_add_u64(e, "dropped", s->dropped);
		if (s->kind == SINK_FILE)
			json_add_u64(e, "share_dropped", s->share_dropped);
		json_add_u64(e, "pending", s->pending);
		if (s->last_success_ns)
			json_add_time(e, "last_success", s->last_success_ns);
		else
			cJSON_AddNullToObject(e, "last_success");
		if (s->last_error[0])
			json_add_str(e, "last_error", s->last_error);
		cJSON_AddItemToArray(arr, e);
	}
	return o;
}
