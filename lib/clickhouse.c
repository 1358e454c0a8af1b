/*
 * clickhouse.c - SQL to ClickHouse over HTTP (clickhouse.h).  Every
 * difference between ClickHouse 18.16 (Debian 12's) and later servers
 * that tracer relies on is decided in clickhouse_settings, from the
 * server's answer to SELECT version(); docs/clickhouse.md lists them.
 */
#include "clickhouse.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "defaults.h"
#include "growbuf.h"
#include "sink_priv.h"

int clickhouse_parse_version(const char *reply, struct clickhouse_server *out)
{
	if (!reply || sscanf(reply, "%d.%d", &out->major, &out->minor) != 2)
		return -1;
	return 0;
}

bool clickhouse_has(const struct clickhouse_server *s, int major, int minor)
{
	return s->major > major || (s->major == major && s->minor >= minor);
}

void clickhouse_settings(const struct clickhouse_server *s, enum clickhouse_use use, char *out,
			 size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	if (use == CLICKHOUSE_DDL) {
		/* LowCardinality is experimental before 19.1: creating or adding
		 * such a column needs the setting there (later servers ignore it,
		 * the newest refuse an unknown setting: sent only to the old) */
		if (!clickhouse_has(s, 19, 1))
			snprintf(out, len, "&allow_experimental_low_cardinality_type=1");
		return;
	}
	/* an older schema takes a newer tracer's rows: unknown fields skipped */
	n += (size_t)snprintf(out, len, "&input_format_skip_unknown_fields=1");
	if (clickhouse_has(s, 21, 11) && n < len) /* many nodes, one server: let it batch parts */
		snprintf(out + n, len - n, "&async_insert=1&wait_for_async_insert=1");
}

int clickhouse_exec(const struct tracer_config *cfg, const char *sql, const char *settings,
		    long timeout_ms, char **out, size_t *len, char *err, size_t errlen)
{
	char password[512] = "";
	struct growbuf body = {.max = SINK_REPLY_BODY_MAX}, url = {0};
	struct http_post r;
	int rc;

	if (out)
		*out = NULL;
	if (len)
		*len = 0;
	if (cfg->clickhouse_password_file[0] &&
	    sink_http_read_secret(cfg->clickhouse_password_file, password, sizeof(password), err,
			errlen) != 0)
		return -1;
	growbuf_add(&url, cfg->clickhouse_url, strlen(cfg->clickhouse_url));
	if (settings && settings[0]) {
		growbuf_add(&url, strchr(cfg->clickhouse_url, '?') ? "&" : "?", 1);
		growbuf_add(&url, settings + 1, strlen(settings + 1)); /* without its '&' */
	}
	if (url.oom) {
		snprintf(err, errlen, "out of memory");
		growbuf_free(&url);
		return -1;
	}
	/* the statement is the POST body: ClickHouse runs it as it is */
	r = (struct http_post){.url = url.p, .body = sql, .len = strlen(sql),
			       .ca_file = cfg->http_ca_file, .user = cfg->clickhouse_user,
			       .password = password, .timeout_ms = timeout_ms, .body_out = &body};
	rc = sink_http_post_run(&r, err, errlen);
	memset(password, 0, sizeof(password));
	growbuf_free(&url);
	if (rc == 0 && (body.oom || body.over)) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	if (rc != 0 || !out) {
		growbuf_free(&body);
		return rc;
	}
	*out = body.p ? body.p : strdup(""); /* a growbuf is NUL-terminated */
	if (len)
		*len = body.len;
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int clickhouse_server_version(const struct tracer_config *cfg, long timeout_ms,
			      struct clickhouse_server *out, char *err, size_t errlen)
{
	char *reply;
	int rc;

	if (clickhouse_exec(cfg, "SELECT version()", NULL, timeout_ms, &reply, NULL, err,
			    errlen) != 0)
		return -1;
	rc = clickhouse_parse_version(reply, out);
	if (rc != 0)
		snprintf(err, errlen, "unexpected answer to SELECT version(): %.60s", reply);
	free(reply);
	return rc;
}

bool clickhouse_is_unknown_table(const char *message)
{
	/* UNKNOWN_TABLE (60) and UNKNOWN_DATABASE (81), on every version */
	return strstr(message, "Code: 60,") || strstr(message, "Code: 60.") ||
	       strstr(message, "Code: 81,") || strstr(message, "Code: 81.");
}

/* one unsigned number answered by a query */
static int select_uint(const struct tracer_config *cfg, const char *sql, long timeout_ms,
		       unsigned *v, char *err, size_t errlen)
{
	char *reply, *end;
	int rc = 0;

	if (clickhouse_exec(cfg, sql, NULL, timeout_ms, &reply, NULL, err, errlen) != 0)
		return -1;
	unsigned long n = strtoul(reply, &end, 10);
	if (end == reply || (*end && *end != '\n') || n > 0xffffffffu) {
		snprintf(err, errlen, "unexpected answer to %s: %.60s", sql, reply);
		rc = -1;
	}
	*v = (unsigned)n;
	free(reply);
	return rc;
}

int clickhouse_schema_version(const struct tracer_config *cfg, long timeout_ms, unsigned *version,
			      char *err, size_t errlen)
{
	char sql[256];
	unsigned jobs;

	snprintf(sql, sizeof(sql), "SELECT max(version) FROM %s.schema_version",
		 cfg->clickhouse_database);
	if (select_uint(cfg, sql, timeout_ms, version, err, errlen) == 0)
		return 0;
	if (!clickhouse_is_unknown_table(err))
		return -1;
	snprintf(sql, sizeof(sql),
		 "SELECT count() FROM system.tables WHERE database = '%s' AND name = 'jobs'",
		 cfg->clickhouse_database);
	if (select_uint(cfg, sql, timeout_ms, &jobs, err, errlen) != 0)
		return -1;
	*version = jobs ? 1 : 0;
	return 0;
}

/* the statement in [s, e) trimmed; SET and empty ones skipped */
static int one_statement(char *s, char *e, int (*each)(void *ctx, const char *stmt), void *ctx)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	*e = '\0';
	if (s == e || (!strncasecmp(s, "SET", 3) && isspace((unsigned char)s[3])))
		return 0;
	return each(ctx, s);
}

int clickhouse_statements(char *sql, int (*each)(void *ctx, const char *stmt), void *ctx)
{
	char *r = sql, *w = sql, *start = sql;
	char quote = 0;
	int rc;

	while (*r) {
		if (quote) {
			if (*r == '\\' && r[1])
				*w++ = *r++;
			else if (*r == quote)
				quote = 0;
			*w++ = *r++;
		} else if (r[0] == '-' && r[1] == '-') {
			r += strcspn(r, "\n"); /* the comment, not its newline */
		} else if (*r == ';') {
			r++;
			if ((rc = one_statement(start, w, each, ctx)) != 0)
				return rc;
			start = w = r;
		} else {
			if (*r == '\'' || *r == '"' || *r == '`')
				quote = *r;
			*w++ = *r++;
		}
	}
	return one_statement(start, w, each, ctx);
}
