/*
 * peers_burn - CPU burnt on purpose by the peers benchmark's workload
 * programs; linked into each by bench/peers.sh.
 */
#include <time.h>

#include "peers_burn.h"

void peers_burn_ms(long ms)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i * 2654435761u;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}
