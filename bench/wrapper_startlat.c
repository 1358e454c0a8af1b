/*
 * wrapper_startlat.c - how long a command takes to reach its main():
 *   wrapper_startlat N CMD... [wrapper_startlat stamp]
 * runs CMD N times; the command line must end by running this program
 * with "stamp", which writes CLOCK_MONOTONIC to fd 3.  Prints the median
 * and the 10th/90th percentile of fork-to-stamp latencies in ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "stamp") == 0) {
		long long t = now_ns();

		return write(3, &t, sizeof(t)) == sizeof(t) ? 0 : 1;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: %s N CMD... %s stamp\n", argv[0], argv[0]);
		return 2;
	}
	int n = atoi(argv[1]);
	double *lat = calloc((size_t)n, sizeof(double));

	if (n <= 0 || !lat)
		return 2;
	for (int i = 0; i < n; i++) {
		int fds[2], status;
		long long t0, t1 = 0;
		pid_t pid;

		if (pipe(fds) < 0)
			return 1;
		t0 = now_ns();
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			close(fds[0]);
			if (dup2(fds[1], 3) < 0)
				_exit(127);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		close(fds[1]);
		if (read(fds[0], &t1, sizeof(t1)) != sizeof(t1)) {
			fprintf(stderr, "run %d: no stamp\n", i);
			return 1;
		}
		close(fds[0]);
		waitpid(pid, &status, 0);
		lat[i] = (double)(t1 - t0) / 1e6;
	}
	qsort(lat, (size_t)n, sizeof(double), cmp);
	printf("%.3f %.3f %.3f\n", lat[n / 2], lat[n / 10], lat[n * 9 / 10]);
	return 0;
}
