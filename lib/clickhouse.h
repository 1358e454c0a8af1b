/*
 * clickhouse.h - SQL to the datalake's ClickHouse over its HTTP
 * interface: the one way statements are sent (the sink's inserts aside,
 * which carry rows), what differs between server versions (in one
 * place, chosen by SELECT version()), the schema's version
 * (tracer.schema_version) and the statements of a migration file.
 */
#ifndef TRACER_CLICKHOUSE_H
#define TRACER_CLICKHOUSE_H

#include <stdbool.h>
#include <stddef.h>
#include "config.h"

/* a server's version, from SELECT version() */
struct clickhouse_server {
	int major, minor;
};

/* "18.16.1" -> 0, or -1 */
int clickhouse_parse_version(const char *reply, struct clickhouse_server *out);
bool clickhouse_has(const struct clickhouse_server *s, int major, int minor);

/* What a statement is for: the URL settings it needs on this server. */
enum clickhouse_use {
	CLICKHOUSE_DDL,    /* CREATE/ALTER of a migration */
	CLICKHOUSE_INSERT, /* the sink's INSERT ... FORMAT JSONEachRow */
};
/* "&key=value..." (possibly ""), for the query string of the request */
void clickhouse_settings(const struct clickhouse_server *s, enum clickhouse_use use, char *out,
			 size_t len);

/*
 * Run one statement (the POST body) on the configured ClickHouse with
 * settings ("&k=v...", may be NULL) added to clickhouse_url: 0 with the
 * answer in *out (malloc'd, NUL-terminated, at most 64 MiB; out may be
 * NULL when it is not wanted), or -1 with err (the server's own message
 * quoted).
 */
int clickhouse_exec(const struct tracer_config *cfg, const char *sql, const char *settings,
		    long timeout_ms, char **out, size_t *len, char *err, size_t errlen);

/* The server's version: 0, or -1 with err. */
int clickhouse_server_version(const struct tracer_config *cfg, long timeout_ms,
			      struct clickhouse_server *out, char *err, size_t errlen);

/* Is this a ClickHouse error answer saying a table (or its database)
 * does not exist? */
bool clickhouse_is_unknown_table(const char *message);

/*
 * The datalake's schema version: max(version) of DB.schema_version; a
 * datalake without that table is 1 when DB.jobs exists (made before
 * versions were recorded) and 0 when empty.  0, or -1 with err.
 */
int clickhouse_schema_version(const struct tracer_config *cfg, long timeout_ms, unsigned *version,
			      char *err, size_t errlen);

/*
 * The statements of a migration file, one at a time: "--" comments and
 * SET statements dropped (the settings a server needs come from
 * clickhouse_settings), each statement ends with ";" at the end of a
 * line.  each() returning non-zero stops with its value.  0, or that
 * value.  sql is modified.
 */
int clickhouse_statements(char *sql, int (*each)(void *ctx, const char *stmt), void *ctx);

#endif
