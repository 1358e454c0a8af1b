/*
 * peers_wait [-n N] [-o TRUTH] [-i IN] [-O OUT] -- CMD [ARGS...] - the
 * launcher of every step of the peers benchmark's pipeline (bench/peers.sh).
 * It runs CMD N times (default 1) one after another, as a child
 * subreaper, so that children that outlive their parent are reaped here
 * too.  With -o, each reaped process adds one line to TRUTH: its name,
 * pid, ru_utime+ru_stime in microseconds and ru_maxrss in KiB, the
 * kernel's own figures from wait4 (the ground truth the collectors are
 * measured against).  It runs in every pass, with or without -o, so that
 * every collector sees the same processes.  -i/-O redirect CMD's stdin
 * and stdout.  Exits 1 when a run of CMD failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* the name of a zombie, read before it is reaped */
static void comm_of(pid_t pid, char *buf, size_t len)
{
	char path[64];
	int fd;
	ssize_t n;

	snprintf(buf, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0) {
		snprintf(buf, len, "?");
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* reap every child until none is left; 1 when `main_pid` failed */
static int reap_all(pid_t main_pid, int truth_fd)
{
	int failed = 0;

	for (;;) {
		siginfo_t si;
		struct rusage ru;
		char comm[32], line[160];
		int st, len;

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			if (errno != ECHILD)
				perror("peers_wait: waitid");
			return failed;
		}
		comm_of(si.si_pid, comm, sizeof(comm));
		if (wait4(si.si_pid, &st, 0, &ru) < 0) {
			perror("peers_wait: wait4");
			return 1;
		}
		if (si.si_pid == main_pid && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			failed = 1;
		if (truth_fd < 0)
			continue;
		len = snprintf(line, sizeof(line), "%s\t%d\t%lld\t%ld\n", comm, (int)si.si_pid,
			       (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL +
				       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec,
			       ru.ru_maxrss);
		if (write(truth_fd, line, (size_t)len) != len) {
			perror("peers_wait: write truth");
			return 1;
		}
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: peers_wait [-n N] [-o TRUTH] [-i IN] [-O OUT] -- CMD [ARGS...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *truth = NULL, *in = NULL, *out = NULL;
	posix_spawn_file_actions_t fa;
	long n = 1;
	int c, truth_fd = -1, failed = 0;

	while ((c = getopt(argc, argv, "+n:o:i:O:")) != -1) {
		switch (c) {
		case 'n': n = strtol(optarg, NULL, 10); break;
		case 'o': truth = optarg; break;
		case 'i': in = optarg; break;
		case 'O': out = optarg; break;
		default: return usage();
		}
	}
	if (optind >= argc || n < 1)
		return usage();
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		perror("peers_wait: prctl(PR_SET_CHILD_SUBREAPER)");
		return 1;
	}
	if (truth && (truth_fd = open(truth, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		fprintf(stderr, "peers_wait: %s: %s\n", truth, strerror(errno));
		return 1;
	}
	if ((errno = posix_spawn_file_actions_init(&fa)) ||
	    (in && (errno = posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0))) ||
	    (out && (errno = posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644)))) {
		perror("peers_wait: posix_spawn_file_actions");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		pid_t pid;
		int err = posix_spawn(&pid, argv[optind], &fa, NULL, argv + optind, environ);

		if (err) {
			fprintf(stderr, "peers_wait: %s: %s\n", argv[optind], strerror(err));
			return 1;
		}
		failed |= reap_all(pid, truth_fd);
	}
	posix_spawn_file_actions_destroy(&fa);
	return failed;
}
