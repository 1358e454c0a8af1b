/* touchmem MIB [HOLD_MS] - touch MIB MiB of memory, hold it, exit. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	long hold = argc > 2 ? atol(argv[2]) : 100;
	char *p = malloc(mib << 20);
	struct timespec ts = {.tv_sec = hold / 1000, .tv_nsec = (hold % 1000) * 1000000L};

	if (!p)
		return 1;
	memset(p, 1, mib << 20);
	nanosleep(&ts, NULL);
	return p[mib] == 1 ? 0 : 2;
}
