/* spinthreads N MS - N threads (the main one included) each burning CPU in
 * user space for MS milliseconds of wall time. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static long ms;

static void *burn(void *arg)
{
	struct timespec start, now;
	volatile unsigned long x = 0;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i * 2654435761u;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >= ms)
			return NULL;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t t[64];

	ms = argc > 2 ? atol(argv[2]) : 1000;
	if (n < 1 || n > 64)
		return 2;
	for (int i = 1; i < n; i++)
		if (pthread_create(&t[i], NULL, burn, NULL) != 0)
			return 1;
	burn(NULL);
	for (int i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
