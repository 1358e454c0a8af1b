/*
 * clock.h - the one place that reads clocks and converts between them.
 *
 * Kernel timestamps come as CLOCK_MONOTONIC (bpf_ktime_get_ns,
 * task->start_time), /proc start times as clock ticks of CLOCK_BOOTTIME,
 * and summaries speak CLOCK_REALTIME: the conversions live here so that
 * every caller agrees on them.
 */
#ifndef TRACER_CLOCK_H
#define TRACER_CLOCK_H

#include <stdint.h>
#include <sys/time.h>
#include <time.h>

#define NS_PER_SEC 1000000000ull
#define NS_PER_MS 1000000ull

/* Now on clk in nanoseconds (0 only for an invalid clock id). */
uint64_t clock_now_ns(clockid_t clk);

static inline uint64_t clock_mono_ns(void) { return clock_now_ns(CLOCK_MONOTONIC); }
static inline uint64_t clock_real_ns(void) { return clock_now_ns(CLOCK_REALTIME); }
static inline uint64_t clock_mono_ms(void) { return clock_mono_ns() / NS_PER_MS; }

/* A struct timeval (rusage times) in nanoseconds. */
uint64_t clock_timeval_ns(const struct timeval *tv);

/* Clock ticks (USER_HZ, /proc's unit) in nanoseconds. */
uint64_t clock_ticks_ns(uint64_t ticks);

/*
 * An instant of CLOCK_BOOTTIME (ns since boot, counting suspend) on
 * another clock, by today's offset between the two.  Never below 0.
 */
uint64_t clock_from_boot(clockid_t clk, uint64_t boot_ns);

/*
 * A time as sacct users type it, in nanoseconds since the epoch:
 * "now", "now-1day", "now+2hours" (units s, min, h, day, week and their
 * long forms; seconds when none), "today", "yesterday", "tomorrow"
 * (midnight, local time), or ISO 8601 "YYYY-MM-DD[THH:MM[:SS[.frac]]]"
 * ('T' or a space), local time unless followed by "Z" or "+HH:MM" /
 * "-HHMM".  now is the reference for the relative forms (seconds since
 * the epoch).  Returns 0, or -1 when text is none of these.
 */
int clock_parse_time(const char *text, time_t now, int64_t *out_ns);

/* A window as `--since` takes it, "90s", "30m", "24h", "7d", "2w": its
 * seconds, or -1. */
double clock_parse_duration(const char *s);

#endif
