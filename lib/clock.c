/*
 * clock.c - clock readings and conversions (clock.h).
 */
#include "clock.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

uint64_t clock_now_ns(clockid_t clk)
{
	struct timespec ts;

	/* fails only for a bad clock id or pointer, neither of which we pass */
	if (clock_gettime(clk, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t clock_timeval_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * NS_PER_SEC + (uint64_t)tv->tv_usec * 1000u;
}

uint64_t clock_ticks_ns(uint64_t ticks)
{
	static uint64_t ns_per_tick;

	if (!ns_per_tick) {
		long hz = sysconf(_SC_CLK_TCK);

		/* USER_HZ is 100 on every Linux architecture we build for */
		ns_per_tick = NS_PER_SEC / (uint64_t)(hz > 0 ? hz : 100);
	}
	return ticks * ns_per_tick;
}

uint64_t clock_from_boot(clockid_t clk, uint64_t boot_ns)
{
	uint64_t boot_now = clock_now_ns(CLOCK_BOOTTIME);
	uint64_t now = clock_now_ns(clk);
	uint64_t ago = boot_now > boot_ns ? boot_now - boot_ns : 0;

	return now > ago ? now - ago : 0;
}

/* "now" [+|- N [unit]]: the count and unit sacct accepts */
static int parse_relative(const char *s, time_t now, int64_t *out_ns)
{
	static const struct { const char *name; int64_t secs; } units[] = {
		{"", 1}, {"s", 1}, {"sec", 1}, {"secs", 1}, {"second", 1}, {"seconds", 1},
		{"m", 60}, {"min", 60}, {"mins", 60}, {"minute", 60}, {"minutes", 60},
		{"h", 3600}, {"hour", 3600}, {"hours", 3600},
		{"d", 86400}, {"day", 86400}, {"days", 86400},
		{"w", 604800}, {"week", 604800}, {"weeks", 604800},
	};
	int64_t sign, n = 0;
	const char *p = s + 3;

	if (*p == '\0') {
		*out_ns = (int64_t)now * (int64_t)NS_PER_SEC;
		return 0;
	}
	if (*p != '+' && *p != '-')
		return -1;
	sign = *p++ == '-' ? -1 : 1;
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (*p - '0');
		if (n > 100LL * 366 * 86400)   /* a century, in any unit */
			return -1;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcasecmp(p, units[i].name) == 0) {
			*out_ns = ((int64_t)now + sign * n * units[i].secs) * (int64_t)NS_PER_SEC;
			return 0;
		}
	return -1;
}

/* today, yesterday, tomorrow: local midnight */
static int parse_day_word(const char *s, time_t now, int64_t *out_ns)
{
	static const char *const words[] = {"yesterday", "today", "tomorrow"};
	struct tm tm;

	for (int i = 0; i < 3; i++) {
		if (strcasecmp(s, words[i]) != 0)
			continue;
		if (!localtime_r(&now, &tm))
			return -1;
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		tm.tm_mday += i - 1;
		tm.tm_isdst = -1;
		time_t t = mktime(&tm);
		if (t == (time_t)-1)
			return -1;
		*out_ns = (int64_t)t * (int64_t)NS_PER_SEC;
		return 0;
	}
	return -1;
}

/* n decimal digits exactly, into *v */
static const char *digits(const char *p, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++, p++) {
		if (*p < '0' || *p > '9')
			return NULL;
		*v = *v * 10 + (*p - '0');
	}
	return p;
}

/* "Z", "+HH:MM", "-HHMM", "+HH" into seconds east of UTC */
static int parse_zone(const char *p, long *east)
{
	int sign, h, m = 0;

	if (strcmp(p, "Z") == 0 || strcmp(p, "z") == 0) {
		*east = 0;
		return 0;
	}
	if (*p != '+' && *p != '-')
		return -1;
	sign = *p == '-' ? -1 : 1;
	if (!(p = digits(p + 1, 2, &h)))
		return -1;
	if (*p == ':')
		p++;
	if (*p && !(p = digits(p, 2, &m)))
		return -1;
	if (*p || h > 23 || m > 59)
		return -1;
	*east = sign * (h * 3600L + m * 60L);
	return 0;
}

/* YYYY-MM-DD[THH:MM[:SS[.frac]]][zone] */
static int parse_iso(const char *p, int64_t *out_ns)
{
	struct tm tm = {0};
	int y, mo, d, h = 0, mi = 0, sec = 0;
	int64_t frac_ns = 0, scale = NS_PER_SEC / 10;
	long east = 0;
	bool zone = false;
	time_t t;

	if (!(p = digits(p, 4, &y)) || *p++ != '-' || !(p = digits(p, 2, &mo)) ||
	    *p++ != '-' || !(p = digits(p, 2, &d)))
		return -1;
	if (*p == 'T' || *p == 't' || *p == ' ') {
		if (!(p = digits(p + 1, 2, &h)) || *p++ != ':' || !(p = digits(p, 2, &mi)))
			return -1;
		if (*p == ':' && !(p = digits(p + 1, 2, &sec)))
			return -1;
		if (*p == '.' || *p == ',') {
			for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
				frac_ns += (*p - '0') * scale;
		}
	}
	if (*p) {
		if (parse_zone(p, &east) != 0)
			return -1;
		zone = true;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	t = zone ? timegm(&tm) - east : mktime(&tm);
	if (t == (time_t)-1 && !zone)
		return -1;
	*out_ns = (int64_t)t * (int64_t)NS_PER_SEC + frac_ns;
	return 0;
}

int clock_parse_time(const char *text, time_t now, int64_t *out_ns)
{
	if (!text || !*text)
		return -1;
	if (strncasecmp(text, "now", 3) == 0)
		return parse_relative(text, now, out_ns);
	if (parse_day_word(text, now, out_ns) == 0)
		return 0;
	return parse_iso(text, out_ns);
}

/* "90s", "30m", "24h", "7d", "2w": seconds, or -1 */
double clock_parse_duration(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	static const struct {
		char unit;
		double secs;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 604800}};

	if (end == s || !(v > 0) || end[0] == '\0' || end[1] != '\0')
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].unit)
			return v * units[i].secs;
	return -1;
}

