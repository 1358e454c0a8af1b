/*
 * clock.c - clock readings and conversions (clock.h).
 */
#include "clock.h"

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
