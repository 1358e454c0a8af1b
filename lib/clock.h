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

#endif
