/*
 * json.c - JSON output that stays valid whatever bytes it is given.
 *
 * cJSON copies string bytes through unchanged, so a path or argument that
 * is not UTF-8 would make the whole document unparsable.  Every string
 * therefore goes through json_utf8_sanitize first.  cJSON also stores
 * numbers as doubles, which lose precision beyond 2^53; byte and
 * nanosecond counters are written as raw number text instead.
 */
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Length of the valid UTF-8 sequence starting at s (at most n bytes
 * available), or 0 when the first byte does not start one.  Overlong
 * forms, surrogates (U+D800..U+DFFF) and code points above U+10FFFF are
 * invalid (RFC 3629, table 3-7 of the Unicode standard).
 */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xBF;
	size_t need;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) {
		need = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 3;
		if (c == 0xE0)
			lo = 0xA0; /* overlong below */
		else if (c == 0xED)
			hi = 0x9F; /* surrogates above */
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 4;
		if (c == 0xF0)
			lo = 0x90; /* overlong below */
		else if (c == 0xF4)
			hi = 0x8F; /* beyond U+10FFFF above */
	} else {
		return 0; /* continuation byte, C0/C1 overlong, F5..FF */
	}
	if (n < need)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < need; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return need;
}

char *json_utf8_sanitize(const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *in = (const unsigned char *)s;
	size_t n, o = 0;
	char *out;

	if (!s)
		len = 0;
	n = s ? strnlen(s, len) : 0;
	/* worst case: every byte becomes the 4-character text \xNN */
	out = malloc(n * 4 + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq_len(in + i, n - i);

		if (k == 0) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[in[i] >> 4];
			out[o++] = hex[in[i] & 0xF];
			i++;
			continue;
		}
		memcpy(out + o, in + i, k);
		o += k;
		i += k;
	}
	out[o] = '\0';
	return out;
}

/* Add item under a sanitized copy of key; frees item on failure. */
static cJSON *add_item(cJSON *obj, const char *key, cJSON *item)
{
	char *k = NULL;

	if (!obj || !key || !item)
		goto fail;
	k = json_utf8_sanitize(key, strlen(key));
	if (!k)
		goto fail;
	if (!cJSON_AddItemToObject(obj, k, item))
		goto fail;
	free(k);
	return item;
fail:
	free(k);
	cJSON_Delete(item);
	return NULL;
}

cJSON *json_add_str(cJSON *obj, const char *key, const char *s)
{
	cJSON *item;
	char *v;

	if (!s)
		return add_item(obj, key, cJSON_CreateNull());
	v = json_utf8_sanitize(s, strlen(s));
	if (!v)
		return NULL;
	item = cJSON_CreateString(v);
	free(v);
	return add_item(obj, key, item);
}

static cJSON *add_raw(cJSON *obj, const char *key, const char *text)
{
	return add_item(obj, key, cJSON_CreateRaw(text));
}

cJSON *json_add_u64(cJSON *obj, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return add_raw(obj, key, buf);
}

cJSON *json_add_i64(cJSON *obj, const char *key, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return add_raw(obj, key, buf);
}

cJSON *json_add_u64_text(cJSON *obj, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return add_item(obj, key, cJSON_CreateString(buf));
}

cJSON *json_add_secs(cJSON *obj, const char *key, uint64_t ns)
{
	/* round to the microsecond without overflowing near UINT64_MAX */
	uint64_t us = ns / 1000 + (ns % 1000 >= 500 ? 1 : 0);
	char buf[40];

	snprintf(buf, sizeof(buf), "%" PRIu64 ".%06" PRIu64, us / 1000000,
		 us % 1000000);
	return add_raw(obj, key, buf);
}

cJSON *json_add_time(cJSON *obj, const char *key, uint64_t realtime_ns)
{
	time_t secs = (time_t)(realtime_ns / 1000000000ull);
	unsigned ms = (unsigned)(realtime_ns % 1000000000ull / 1000000ull);
	char date[64], buf[80];
	struct tm tm;

	/* a time that cannot be shown is written as null, not dropped */
	if (!gmtime_r(&secs, &tm) ||
	    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return add_item(obj, key, cJSON_CreateNull());
	snprintf(buf, sizeof(buf), "%s.%03uZ", date, ms);
	return add_item(obj, key, cJSON_CreateString(buf));
}

const char *json_get_str(const cJSON *obj, const char *key, const char *def)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!cJSON_IsString(it) || !it->valuestring)
		return def;
	return it->valuestring;
}

/* Raw items hold the exact number text we wrote; parse it fully. */
static int raw_to_i64(const char *text, int64_t *out)
{
	char *end;
	long long v;

	if (!text || !*text)
		return -1;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int raw_to_u64(const char *text, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!text || !*text || text[0] == '-')
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int64_t json_get_i64(const cJSON *obj, const char *key, int64_t def)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	int64_t v;
	double d;

	if (cJSON_IsRaw(it))
		return raw_to_i64(it->valuestring, &v) == 0 ? v : def;
	if (!cJSON_IsNumber(it))
		return def;
	d = it->valuedouble;
	/* out-of-range double to integer conversion is undefined */
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
		return def; /* also catches NaN */
	if ((double)(int64_t)d != d)
		return def; /* not an integer */
	return (int64_t)d;
}

uint64_t json_get_u64(const cJSON *obj, const char *key, uint64_t def)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	uint64_t v;
	double d;

	if (cJSON_IsRaw(it))
		return raw_to_u64(it->valuestring, &v) == 0 ? v : def;
	if (!cJSON_IsNumber(it))
		return def;
	d = it->valuedouble;
	if (!(d >= 0 && d < 18446744073709551616.0))
		return def; /* also catches NaN */
	if ((double)(uint64_t)d != d)
		return def; /* not an integer */
	return (uint64_t)d;
}

double json_get_num(const cJSON *obj, const char *key, double def)
{
	const cJSON *it = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	char *end;
	double d;

	if (cJSON_IsNumber(it))
		return it->valuedouble;
	if (!cJSON_IsRaw(it) || !it->valuestring)
		return def;
	d = strtod(it->valuestring, &end);
	return end != it->valuestring ? d : def;
}
