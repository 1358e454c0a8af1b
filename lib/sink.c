/*
 * sink.c - the sinks behind one interface (sink.h): names, limits,
 * dispatch, and the all-sinks-once path of tracer-wrap's standalone mode.
 * Each sink's own work is in sink_file.c, sink_http.c, sink_clickhouse.c.
 */
#include "sink_priv.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

static const char *const kind_names[SINK_KINDS] = {"file", "http", "clickhouse"};

const char *sink_kind_name(enum sink_kind k)
{
	return k < SINK_KINDS ? kind_names[k] : "?";
}

int sink_kinds(const char *list, enum sink_kind out[SINK_KINDS])
{
	int n = 0;

	for (const char *p = list; *p && n < SINK_KINDS;) {
		p += strspn(p, " ,");
		size_t len = strcspn(p, " ,");
		for (int k = 0; k < SINK_KINDS; k++)
			if (len && len == strlen(kind_names[k]) && !strncmp(p, kind_names[k], len))
				out[n++] = (enum sink_kind)k;
		p += len;
	}
	return n;
}

/*
 * Batches: a file takes any number of lines; an HTTP collector gets
 * bodies of a few MiB; ClickHouse wants few, large inserts (each insert
 * makes a part on disk), hence the interval.
 */
void sink_limits(enum sink_kind k, struct sink_limits *out)
{
	switch (k) {
	case SINK_FILE:
		*out = (struct sink_limits){1000, 16u << 20, 0};
		break;
	case SINK_HTTP:
		*out = (struct sink_limits){500, 4u << 20, 0};
		break;
	default:
		*out = (struct sink_limits){10000, 16u << 20, TRACER_CLICKHOUSE_INTERVAL_MS};
		break;
	}
}

struct sink *sink_open(enum sink_kind k, const struct tracer_config *cfg, char *err,
		       size_t errlen)
{
	struct sink *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->kind = k;
	s->cfg = cfg;
	s->fd = -1;
	if (k == SINK_FILE && sink_file_open(s, err, errlen) != 0)
		goto fail;
	if (k == SINK_HTTP && !cfg->http_url[0]) {
		snprintf(err, errlen, "sink http needs http_url");
		goto fail;
	}
	if (k == SINK_CLICKHOUSE && (!cfg->clickhouse_url[0] || !cfg->clickhouse_database[0])) {
		snprintf(err, errlen, "sink clickhouse needs clickhouse_url and clickhouse_database");
		goto fail;
	}
	if (k != SINK_FILE)
		curl_global_init(CURL_GLOBAL_DEFAULT);
	return s;
fail:
	free(s);
	return NULL;
}

uint64_t sink_take_share_dropped(struct sink *s)
{
	uint64_t n = s ? s->share_dropped : 0;

	if (s)
		s->share_dropped = 0;
	return n;
}

int sink_deliver(struct sink *s, char *const *texts, const size_t *lens, size_t n,
		 long timeout_ms, const _Atomic int *abort, char *err, size_t errlen)
{
	err[0] = '\0';
	if (n == 0)
		return 0;
	switch (s->kind) {
	case SINK_FILE:
		return sink_file_deliver(s, texts, lens, n, err, errlen);
	case SINK_HTTP:
		return sink_http_deliver(s, texts, lens, n, timeout_ms, abort, err, errlen);
	default:
		return sink_clickhouse_deliver(s, texts, lens, n, timeout_ms, abort, err, errlen);
	}
}

int sink_probe(struct sink *s, long timeout_ms, const _Atomic int *abort, char *err,
	       size_t errlen)
{
	err[0] = '\0';
	return s->kind == SINK_CLICKHOUSE ? sink_clickhouse_probe(s, timeout_ms, abort, err, errlen)
					  : 0;
}

void sink_close(struct sink *s)
{
	if (!s)
		return;
	sink_file_close(s);
	free(s->seen);
	free(s);
}

/* ---- tracer-wrap's standalone mode: every sink once ---- */

struct sinks {
	struct sink *s[SINK_KINDS];
	int n;
	long timeout_ms;
};

struct sinks *sinks_open(const struct tracer_config *cfg, char *err, size_t errlen)
{
	struct sinks *ss = calloc(1, sizeof(*ss));
	enum sink_kind kinds[SINK_KINDS];
	int nk = sink_kinds(cfg->sinks, kinds);

	if (!ss) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ss->timeout_ms = cfg->http_timeout_ms;
	for (int i = 0; i < nk; i++) {
		ss->s[ss->n] = sink_open(kinds[i], cfg, err, errlen);
		if (!ss->s[ss->n]) {
			sinks_close(ss);
			return NULL;
		}
		/* a job's end waits for this write: no merge of the archive
		 * by share here (tracerd's rotation does it) */
		ss->s[ss->n]->no_share_merge = true;
		ss->n++;
	}
	if (ss->n == 0) {
		snprintf(err, errlen, "no known sink in \"%s\" (file, http, clickhouse)", cfg->sinks);
		sinks_close(ss);
		return NULL;
	}
	return ss;
}

int sinks_write(struct sinks *ss, const cJSON *summary, char *err, size_t errlen)
{
	char *text = cJSON_PrintUnformatted(summary);
	uint64_t deadline = clock_mono_ms() + (uint64_t)ss->timeout_ms;
	char why[512];
	int failed = 0;

	err[0] = '\0';
	if (!text) {
		snprintf(err, errlen, "out of memory rendering the summary");
		return ss->n;
	}
	size_t len = strlen(text);
	for (int i = 0; i < ss->n; i++) {
		uint64_t now = clock_mono_ms();
		long left = now < deadline ? (long)(deadline - now) : 1;
		if (sink_deliver(ss->s[i], &text, &len, 1, left, NULL, why, sizeof(why)) != 0) {
			size_t used = strlen(err);
			snprintf(err + used, errlen - used, "%s%s sink: %s", used ? "; " : "",
				 sink_kind_name(ss->s[i]->kind), why);
			failed++;
		}
	}
	free(text);
	return failed;
}

void sinks_close(struct sinks *ss)
{
	if (!ss)
		return;
	for (int i = 0; i < ss->n; i++)
		sink_close(ss->s[i]);
	free(ss);
}
