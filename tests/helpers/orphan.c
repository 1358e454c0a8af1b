/*
 * orphan FILE - for the runner's test: our child B starts C and exits; C
 * exits 5 only once its parent is no longer B, so it dies an orphan and
 * only a subreaper above us can reap it.  We write C's pid to FILE and
 * exit 4 once C is gone from the process table (reaped): the runner
 * cannot be done before it reaped C.  Every wait is bounded (20 s).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEADLINE_S 20

static int expired(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - t0->tv_sec >= DEADLINE_S;
}

int main(int argc, char **argv)
{
	struct timespec step = {0, 5 * 1000000L}, t0;
	pid_t b, c = 0;
	int fd[2];
	FILE *f;

	if (argc != 2 || pipe(fd) < 0)
		return 3;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	b = fork();
	if (b < 0)
		return 3;
	if (b == 0) {
		pid_t me = getpid();

		c = fork();
		if (c == 0) {
			while (getppid() == me && !expired(&t0))
				nanosleep(&step, NULL);
			_exit(5);
		}
		_exit(c > 0 && write(fd[1], &c, sizeof(c)) == sizeof(c) ? 0 : 3);
	}
	close(fd[1]);
	if (waitpid(b, NULL, 0) != b || read(fd[0], &c, sizeof(c)) != sizeof(c))
		return 3;
	f = fopen(argv[1], "w");
	if (!f)
		return 3;
	fprintf(f, "%d\n", (int)c);
	fclose(f);
	while (!(kill(c, 0) < 0 && errno == ESRCH) && !expired(&t0))
		nanosleep(&step, NULL);
	return 4;
}
