/*
 * peers_spike - a short tool with a memory spike, for the peers benchmark
 * (bench/peers.sh): 300 ms of CPU, then 300 MiB touched and held for
 * 200 ms, released, then 300 ms of CPU again.  A sampler whose period is
 * longer than the spike sees it only by luck.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "peers_burn.h"

#define SPIKE_BYTES (300UL << 20)

int main(void)
{
	struct timespec hold = {0, 200 * 1000000L};
	char *p;

	peers_burn_ms(300);
	p = mmap(NULL, SPIKE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("peers_spike: mmap");
		return 1;
	}
	/* huge pages where the kernel allows them: the spike's ramp is short */
	if (madvise(p, SPIKE_BYTES, MADV_HUGEPAGE) < 0)
		perror("peers_spike: madvise");
	memset(p, 1, SPIKE_BYTES);
	if (nanosleep(&hold, NULL) < 0)
		perror("peers_spike: nanosleep");
	if (munmap(p, SPIKE_BYTES) < 0) {
		perror("peers_spike: munmap");
		return 1;
	}
	peers_burn_ms(300);
	return 0;
}
