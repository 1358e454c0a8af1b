/* daemonize MS - double fork: the grandchild (a new session) lives MS
 * milliseconds longer than its parents, as daemons started by jobs do. */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 500;
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (pid > 0) {
		waitpid(pid, NULL, 0);
		return 0;
	}
	setsid();
	pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid > 0)
		_exit(0);
	/* the daemon: reparented to init or the nearest subreaper */
	nanosleep(&ts, NULL);
	_exit(7);
}
