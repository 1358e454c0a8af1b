/*
 * holdkids FIFO N Z [SPIN_MS [wait]] - fork N children that wait until
 * FIFO is opened for writing and closed again, then exit; the parent
 * exits at once (or, with "wait", waits on FIFO too), so the children
 * outlive it.  The first Z children are "leaders
 * gone first": their main thread calls SYS_exit while a second thread
 * waits (and then spins SPIN_MS of CPU), so the process is a zombie
 * leader with a live thread, and ends only when that thread does.
 * Prints the pid of the last child to stdout once all are forked.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *fifo;
static long spin_ms;

static void wait_fifo(void)
{
	char c;
	int fd = open(fifo, O_RDONLY);

	if (fd >= 0) {
		while (read(fd, &c, 1) > 0)
			;
		close(fd);
	}
}

static void spin(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void *thread_main(void *arg)
{
	(void)arg;
	wait_fifo();
	spin(spin_ms);
	return NULL;
}

int main(int argc, char **argv)
{
	long n, z;
	pid_t last = 0;

	if (argc < 4)
		return 2;
	fifo = argv[1];
	n = atol(argv[2]);
	z = atol(argv[3]);
	spin_ms = argc > 4 ? atol(argv[4]) : 0;
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid > 0) {
			last = pid;
			continue;
		}
		if (i < z) {
			pthread_t t;

			if (pthread_create(&t, NULL, thread_main, NULL) != 0)
				_exit(3);
			syscall(SYS_exit, 0); /* this thread only */
		}
		wait_fifo();
		_exit(0);
	}
	printf("%d\n", (int)last);
	fflush(stdout);
	if (argc > 5)
		wait_fifo();
	return 0;
}
