/* test_jsonutil.c - JSON output stays valid and exact whatever the input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "unit.h"

/* Print obj, parse it back: the output must always be valid JSON. */
static cJSON *roundtrip(const cJSON *obj)
{
	char *text = cJSON_PrintUnformatted(obj);
	cJSON *back;

	CU_ASSERT_FATAL(text != NULL);
	back = cJSON_Parse(text);
	if (!back)
		fprintf(stderr, "\n  does not parse: %s\n", text);
	CU_ASSERT(back != NULL);
	free(text);
	return back;
}

static void sanitize_is(const char *in, size_t len, const char *want)
{
	char *s = json_utf8_sanitize(in, len);

	CU_ASSERT_FATAL(s != NULL);
	if (strcmp(s, want) != 0)
		fprintf(stderr, "\n  got \"%s\", want \"%s\"\n", s, want);
	CU_ASSERT_STRING_EQUAL(s, want);
	free(s);
}

static void test_sanitize(void)
{
	sanitize_is("plain ascii", 11, "plain ascii");
	sanitize_is("", 0, "");
	sanitize_is(NULL, 5, "");
	sanitize_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14,
		    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* lone bytes, truncated sequences */
	sanitize_is("a\xff" "b", 3, "a\\xffb");
	sanitize_is("\x80", 1, "\\x80");
	sanitize_is("\xc3", 1, "\\xc3");
	sanitize_is("\xe2\x82", 2, "\\xe2\\x82");
	sanitize_is("\xf0\x9f\x98", 3, "\\xf0\\x9f\\x98");
	/* overlong forms */
	sanitize_is("\xc0\xaf", 2, "\\xc0\\xaf");
	sanitize_is("\xc1\xbf", 2, "\\xc1\\xbf");
	sanitize_is("\xe0\x80\xaf", 3, "\\xe0\\x80\\xaf");
	sanitize_is("\xf0\x80\x80\xaf", 4, "\\xf0\\x80\\x80\\xaf");
	/* surrogates U+D800..U+DFFF */
	sanitize_is("\xed\xa0\x80", 3, "\\xed\\xa0\\x80");
	sanitize_is("\xed\xbf\xbf", 3, "\\xed\\xbf\\xbf");
	sanitize_is("\xed\x9f\xbf", 3, "\xed\x9f\xbf"); /* U+D7FF is fine */
	/* beyond U+10FFFF */
	sanitize_is("\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80");
	sanitize_is("\xf4\x8f\xbf\xbf", 4, "\xf4\x8f\xbf\xbf"); /* U+10FFFF */
	sanitize_is("\xf5\x80\x80\x80", 4, "\\xf5\\x80\\x80\\x80");
	/* stops at NUL and at len */
	sanitize_is("ab\0cd", 5, "ab");
	sanitize_is("abcdef", 3, "abc");
	/* a cut sequence at the end of len */
	sanitize_is("x\xc3\xa9", 2, "x\\xc3");
}

static void test_strings_roundtrip(void)
{
	cJSON *o = cJSON_CreateObject(), *back;
	char all[256];

	for (int i = 0; i < 255; i++)
		all[i] = (char)(i + 1); /* every byte but NUL */
	all[255] = '\0';
	CU_ASSERT_FATAL(o != NULL);
	CU_ASSERT(json_add_str(o, "all", all) != NULL);
	CU_ASSERT(json_add_str(o, "ctrl", "tab\there\nnew\"q\\b\x01\x1f\x7f") != NULL);
	CU_ASSERT(json_add_str(o, "bad\xff" "key", "v") != NULL);
	CU_ASSERT(json_add_str(o, "null", NULL) != NULL);
	CU_ASSERT(json_add_str(NULL, "x", "y") == NULL);
	back = roundtrip(o);
	CU_ASSERT_STRING_EQUAL(json_get_str(back, "ctrl", ""),
			       "tab\there\nnew\"q\\b\x01\x1f\x7f");
	CU_ASSERT_STRING_EQUAL(json_get_str(back, "bad\\xffkey", ""), "v");
	CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(back, "null")));
	CU_ASSERT_PTR_NULL(json_get_str(back, "null", NULL));
	CU_ASSERT_STRING_EQUAL(json_get_str(back, "missing", "def"), "def");
	cJSON_Delete(back);
	cJSON_Delete(o);
}

static void test_numbers(void)
{
	cJSON *o = cJSON_CreateObject(), *back;
	char *text;

	CU_ASSERT_FATAL(o != NULL);
	json_add_u64(o, "umax", UINT64_MAX);
	json_add_u64(o, "big", 9007199254740993ull); /* 2^53 + 1 */
	json_add_u64(o, "zero", 0);
	json_add_i64(o, "imin", INT64_MIN);
	json_add_i64(o, "imax", INT64_MAX);
	json_add_i64(o, "neg", -1);
	text = cJSON_PrintUnformatted(o);
	CU_ASSERT_FATAL(text != NULL);
	/* written exactly, not through a double */
	CU_ASSERT(strstr(text, "\"umax\":18446744073709551615") != NULL);
	CU_ASSERT(strstr(text, "\"big\":9007199254740993") != NULL);
	CU_ASSERT(strstr(text, "\"imin\":-9223372036854775808") != NULL);
	CU_ASSERT(strstr(text, "\"imax\":9223372036854775807") != NULL);
	free(text);
	/* read back exactly from the raw items */
	CU_ASSERT_EQUAL(json_get_u64(o, "umax", 1), UINT64_MAX);
	CU_ASSERT_EQUAL(json_get_u64(o, "big", 1), 9007199254740993ull);
	CU_ASSERT_EQUAL(json_get_i64(o, "imin", 1), INT64_MIN);
	CU_ASSERT_EQUAL(json_get_i64(o, "neg", 1), -1);
	CU_ASSERT_EQUAL(json_get_u64(o, "neg", 7), 7); /* negative: not a u64 */
	back = roundtrip(o);
	CU_ASSERT_FATAL(back != NULL);
	CU_ASSERT_EQUAL(json_get_u64(back, "zero", 1), 0);
	CU_ASSERT_EQUAL(json_get_i64(back, "neg", 1), -1);
	/* 2^64 parsed as a double is out of range: the default */
	CU_ASSERT_EQUAL(json_get_u64(back, "umax", 5), 5);
	cJSON_Delete(back);
	cJSON_Delete(o);
}

static void test_get_wrong_types(void)
{
	cJSON *o = cJSON_Parse("{\"s\":\"12\",\"f\":1.5,\"huge\":1e300,"
			       "\"neg\":-5,\"t\":true,\"n\":null,\"ok\":42,"
			       "\"a\":[1]}");

	CU_ASSERT_FATAL(o != NULL);
	CU_ASSERT_EQUAL(json_get_i64(o, "s", -7), -7);
	CU_ASSERT_EQUAL(json_get_i64(o, "f", -7), -7);
	CU_ASSERT_EQUAL(json_get_i64(o, "huge", -7), -7);
	CU_ASSERT_EQUAL(json_get_u64(o, "huge", 7), 7);
	CU_ASSERT_EQUAL(json_get_u64(o, "neg", 7), 7);
	CU_ASSERT_EQUAL(json_get_i64(o, "neg", 7), -5);
	CU_ASSERT_EQUAL(json_get_i64(o, "t", -7), -7);
	CU_ASSERT_EQUAL(json_get_i64(o, "n", -7), -7);
	CU_ASSERT_EQUAL(json_get_i64(o, "ok", -7), 42);
	CU_ASSERT_EQUAL(json_get_u64(o, "ok", 7), 42);
	CU_ASSERT_EQUAL(json_get_u64(o, "a", 7), 7);
	CU_ASSERT_EQUAL(json_get_u64(o, "missing", 7), 7);
	CU_ASSERT_STRING_EQUAL(json_get_str(o, "ok", "d"), "d");
	CU_ASSERT_STRING_EQUAL(json_get_str(o, "s", "d"), "12");
	CU_ASSERT_EQUAL(json_get_i64(NULL, "x", 3), 3);
	cJSON_Delete(o);
}

static void test_secs_and_time(void)
{
	cJSON *o = cJSON_CreateObject(), *back;
	char *text;

	CU_ASSERT_FATAL(o != NULL);
	json_add_secs(o, "s1", 1500000000ull);   /* 1.5 s */
	json_add_secs(o, "s2", 999);             /* rounds to 0.000001 */
	json_add_secs(o, "s3", 499);             /* rounds to 0 */
	json_add_secs(o, "s4", UINT64_MAX);
	json_add_secs(o, "s5", 1999999999ull);   /* rounds up to 2.000000 */
	json_add_time(o, "t0", 0);
	json_add_time(o, "t1", 1700000000123456789ull);
	json_add_time(o, "tmax", UINT64_MAX);
	text = cJSON_PrintUnformatted(o);
	CU_ASSERT_FATAL(text != NULL);
	CU_ASSERT(strstr(text, "\"s1\":1.500000") != NULL);
	CU_ASSERT(strstr(text, "\"s2\":0.000001") != NULL);
	CU_ASSERT(strstr(text, "\"s3\":0.000000") != NULL);
	CU_ASSERT(strstr(text, "\"s4\":18446744073.709552") != NULL);
	CU_ASSERT(strstr(text, "\"s5\":2.000000") != NULL);
	CU_ASSERT(strstr(text, "\"t0\":\"1970-01-01T00:00:00.000Z\"") != NULL);
	CU_ASSERT(strstr(text, "\"t1\":\"2023-11-14T22:13:20.123Z\"") != NULL);
	CU_ASSERT(strstr(text, "\"tmax\":\"2554-07-21T23:34:33.709Z\"") != NULL);
	free(text);
	back = roundtrip(o);
	cJSON_Delete(back);
	cJSON_Delete(o);
}

/* Every byte string of a hostile corpus makes valid JSON. */
static void test_fuzz_roundtrip(void)
{
	unsigned seed = 12345;
	char buf[64];

	for (int iter = 0; iter < 20000; iter++) {
		cJSON *o = cJSON_CreateObject(), *back;
		size_t n = (size_t)(iter % 63);

		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = (char)(seed >> 16);
			if (buf[i] == '\0')
				buf[i] = (char)0xC3;
		}
		buf[n] = '\0';
		CU_ASSERT_FATAL(o != NULL);
		json_add_str(o, buf, buf);
		back = roundtrip(o);
		cJSON_Delete(back);
		cJSON_Delete(o);
		if (!back)
			break;
	}
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"utf-8 sanitize", test_sanitize},
		{"strings round trip", test_strings_roundtrip},
		{"exact integers", test_numbers},
		{"getters and wrong types", test_get_wrong_types},
		{"seconds and times", test_secs_and_time},
		{"random bytes round trip", test_fuzz_roundtrip},
	};

	return UNIT_RUN("jsonutil", tests);
}
