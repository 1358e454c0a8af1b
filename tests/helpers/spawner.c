/*
 * spawner OUT N PROG [ARGS...] - run PROG N times one after another,
 * wait4 each, and write the ground truth to OUT as JSON: the sum of
 * ru_utime+ru_stime, the largest ru_maxrss, and each exit status.  "%i"
 * in an argument is replaced by the run's index modulo 32.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	double cpu = 0;
	long maxrss = 0;
	long counts[256] = {0};
	FILE *out;
	int n;

	if (argc < 4)
		return 2;
	n = atoi(argv[2]);
	for (int i = 0; i < n; i++) {
		char idx[16], *args[64];
		int k;
		snprintf(idx, sizeof(idx), "%d", i % 32);
		for (k = 0; k + 3 < argc && k < 63; k++)
			args[k] = strcmp(argv[k + 3], "%i") ? argv[k + 3] : idx;
		args[k] = NULL;
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			execv(args[0], args);
			_exit(127);
		}
		int st;
		struct rusage ru;
		if (wait4(pid, &st, 0, &ru) != pid)
			return 1;
		cpu += ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
		if (ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
		if (WIFEXITED(st))
			counts[WEXITSTATUS(st)]++;
	}
	out = fopen(argv[1], "w");
	if (!out)
		return 1;
	fprintf(out, "{\"cpu_s\": %.6f, \"maxrss_kb\": %ld, \"exit_counts\": {", cpu, maxrss);
	for (int c = 0, first = 1; c < 256; c++) {
		if (!counts[c])
			continue;
		fprintf(out, "%s\"%d\": %ld", first ? "" : ", ", c, counts[c]);
		first = 0;
	}
	fprintf(out, "}}\n");
	return fclose(out) == 0 ? 0 : 1;
}
