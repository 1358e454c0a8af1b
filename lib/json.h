/*
 * json.h - JSON that is always valid, whatever bytes a path or argv
 * holds: strings are made valid UTF-8 before they reach cJSON (each
 * invalid byte becomes the text "\xNN"), and integers beyond 2^53 are
 * written exactly.
 */
#ifndef TRACER_JSON_H
#define TRACER_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

/* malloc'd valid-UTF-8 copy of len bytes of s (stops at NUL). */
char *json_utf8_sanitize(const char *s, size_t len);

/* Add a sanitized string (NULL s adds JSON null). Returns the item or NULL. */
cJSON *json_add_str(cJSON *obj, const char *key, const char *s);
/* Add an unsigned / signed integer exactly (as a raw number). */
cJSON *json_add_u64(cJSON *obj, const char *key, uint64_t v);
cJSON *json_add_i64(cJSON *obj, const char *key, int64_t v);
/* Add an unsigned integer as a decimal string ("1763900000123456789"):
 * for values beyond 2^53, which most JSON readers round. */
cJSON *json_add_u64_text(cJSON *obj, const char *key, uint64_t v);
/* Add seconds with 6 decimals from nanoseconds. */
cJSON *json_add_secs(cJSON *obj, const char *key, uint64_t ns);
/* ISO-8601 UTC time with milliseconds from CLOCK_REALTIME ns. */
cJSON *json_add_time(cJSON *obj, const char *key, uint64_t realtime_ns);

/* Read helpers: return def when absent or of the wrong type. */
const char *json_get_str(const cJSON *obj, const char *key, const char *def);
int64_t json_get_i64(const cJSON *obj, const char *key, int64_t def);
uint64_t json_get_u64(const cJSON *obj, const char *key, uint64_t def);
/* A number, also one written raw (seconds, byte counts): def otherwise. */
double json_get_num(const cJSON *obj, const char *key, double def);

#endif
