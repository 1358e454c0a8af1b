/*
 * summary_id.c - random UUIDs for summaries (summary_id.h).  getrandom
 * never blocks once the kernel's pool is initialised (long before any
 * job ends); if it fails anyway, the time and pid make the id unique
 * enough for one host.
 */
#include "summary_id.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "clock.h"

void summary_id_new(char buf[SUMMARY_ID_LEN])
{
	static uint64_t counter;
	uint8_t b[16];

	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != (ssize_t)sizeof(b)) {
		uint64_t t = clock_real_ns(), x = ((uint64_t)getpid() << 32) ^
						    __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
		memcpy(b, &t, 8);
		memcpy(b + 8, &x, 8);
	}
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	snprintf(buf, SUMMARY_ID_LEN,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
		 b[12], b[13], b[14], b[15]);
}
