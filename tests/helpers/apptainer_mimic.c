/*
 * apptainer_mimic.c - a stand-in for Apptainer's `starter` (Debian 12
 * packages no Apptainer).  The test installs a copy at
 * PREFIX/libexec/apptainer/bin/starter (or .../singularity/...), where
 * tracerd recognises a starter by its path, and a CLI script execs it as
 * the `apptainer` CLI does.  Like the starter it sets up the container's
 * namespaces and runs the command:
 *
 *   starter [--pid] -- CMD [ARGS...]
 *
 * a private mount namespace always; with --pid a new pid namespace too,
 * and then it forks so that CMD is pid 1 there (with its own /proc) and
 * waits for it, as the starter stays the container's parent.  Without
 * --pid it execs CMD in its own pid.  (The real starter gets its
 * configuration through its environment and a pipe, and pivots into the
 * image; the mimic takes the command from its argv and keeps the host's
 * file system.)  Exit: CMD's status, 255 when the set-up fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "starter: %s: %s\n", what, strerror(errno));
	exit(255);
}

int main(int argc, char **argv)
{
	int pidns = 0, i = 1, status;
	pid_t child;

	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--pid") == 0) {
			pidns = 1;
		} else {
			fprintf(stderr, "usage: starter [--pid] -- CMD [ARGS...]\n");
			return 255;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: starter [--pid] -- CMD [ARGS...]\n");
		return 255;
	}
	argv += i + 1;
	if (unshare(CLONE_NEWNS | (pidns ? CLONE_NEWPID : 0)) != 0)
		die("unshare");
	/* nothing mounted in the container reaches the host */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		die("making / private");
	if (!pidns) {
		execvp(argv[0], argv);
		die(argv[0]);
	}
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		/* pid 1 of the new namespace: a /proc of its own */
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
			die("mounting /proc");
		execvp(argv[0], argv);
		die(argv[0]);
	}
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
