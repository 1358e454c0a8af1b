/* spin MS - burn CPU in user space for MS milliseconds of CPU time. */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 100;
	struct timespec ts;
	volatile unsigned long x = 0;

	for (;;) {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i * 2654435761u;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		if (ts.tv_sec * 1000 + ts.tv_nsec / 1000000 >= ms)
			return 0;
	}
}
