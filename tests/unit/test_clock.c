/* test_clock.c - times as people type them (clock_parse_time). */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "unit.h"

#define S ((int64_t)NS_PER_SEC)
/* 2026-11-22T06:32:47Z, a Sunday */
#define NOW ((time_t)1795329167)

static void is(const char *text, int64_t want_ns)
{
	int64_t got = 0;
	int rc = clock_parse_time(text, NOW, &got);

	if (rc != 0 || got != want_ns)
		fprintf(stderr, "\n  %s: rc %d, got %lld, want %lld\n", text, rc,
			(long long)got, (long long)want_ns);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(got, want_ns);
}

static void bad(const char *text)
{
	int64_t got = 0;

	if (clock_parse_time(text, NOW, &got) == 0)
		fprintf(stderr, "\n  \"%s\" accepted as %lld\n", text, (long long)got);
	CU_ASSERT_EQUAL(clock_parse_time(text, NOW, &got), -1);
}

static void set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static void test_relative(void)
{
	is("now", NOW * S);
	is("NOW", NOW * S);
	is("now-1day", (NOW - 86400) * S);
	is("now-1days", (NOW - 86400) * S);
	is("now-2d", (NOW - 2 * 86400) * S);
	is("now+3hours", (NOW + 3 * 3600) * S);
	is("now-90", (NOW - 90) * S);
	is("now-90s", (NOW - 90) * S);
	is("now-15min", (NOW - 900) * S);
	is("now-15minutes", (NOW - 900) * S);
	is("now-1week", (NOW - 604800) * S);
	is("now-1w", (NOW - 604800) * S);
	bad("now-");
	bad("now-day");
	bad("now-1fortnight");
	bad("now1day");
	bad("now-99999999999999999999days");
	bad("nowhere");
}

static void test_iso_utc(void)
{
	set_tz("UTC0");
	is("2026-11-22", (NOW - (6 * 3600 + 32 * 60 + 47)) * S);
	is("2026-11-22T06:32:47Z", NOW * S);
	is("2026-11-22T06:32:47", NOW * S);
	is("2026-11-22 06:32:47", NOW * S);
	is("2026-11-22T06:32", (NOW - 47) * S);
	is("2026-11-22T06:32:47.422Z", NOW * S + 422000000);
	is("2026-11-22T07:32:47+01:00", NOW * S);
	is("2026-11-22T01:32:47-0500", NOW * S);
	is("2026-11-22T08:32:47+02", NOW * S);
	bad("2026-11-22T");
	bad("2026-13-01");
	bad("2026-11-22T25:00");
	bad("2026-11-22T06:32:47+1");
	bad("2026-11-22T06:32:47 UTC");
	bad("22/11/2026");
	bad("");
	bad("yesterdays");
}

static void test_local(void)
{
	/* POSIX TZ strings: no tzdata needed.  CET-1 is UTC+1. */
	set_tz("CET-1");
	is("2026-11-22T07:32:47", NOW * S);
	is("2026-11-22T06:32:47Z", NOW * S);
	/* local midnight of 2026-11-22 is 23:00Z the day before */
	int64_t midnight = (NOW - (6 * 3600 + 32 * 60 + 47) - 3600) * S;
	is("today", midnight);
	is("Today", midnight);
	is("yesterday", midnight - 86400 * S);
	is("tomorrow", midnight + 86400 * S);
	is("2026-11-22", midnight);
	set_tz("UTC0");
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"now and relative times", test_relative},
		{"ISO 8601 with and without a zone", test_iso_utc},
		{"local time and day words", test_local},
	};

	return UNIT_RUN("clock", tests);
}
