/*
 * peers_orphan - a step whose children outlive it, for the peers benchmark
 * (bench/peers.sh): it forks two children and exits at once; each child
 * waits (bounded, 5 s) until it has been reparented, then burns 400 ms of
 * CPU.  Only a subreaper above (peers_wait) reaps them.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "peers_burn.h"

int main(void)
{
	pid_t self = getpid();

	for (int i = 0; i < 2; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("peers_orphan: fork");
			return 1;
		}
		if (pid == 0) {
			struct timespec tick = {0, 1000000L};

			for (int n = 0; n < 5000 && getppid() == self; n++)
				nanosleep(&tick, NULL);
			peers_burn_ms(400);
			_exit(0);
		}
	}
	return 0;
}
