/*
 * switch_floor.c - the timing and bpf_stats half of bench/switch.sh:
 * runs N copies of a command at once and prints their wall time, with the
 * empty sched_switch program (switch_floor.bpf.c) attached or not, and
 * with the kernel's BPF run-time statistics on or not.  Statically linked
 * with its BPF object embedded, so that it runs where only the built tree
 * is (bench/device_run.sh).
 *
 *   switch_floor [-f] [-s] [-a ID] [-v] [-j N] [-P FILE] CMD [ARGS...]
 *   switch_floor -m | -Z
 *     -f    attach the empty program while the copies run
 *     -s    turn bpf_stats on (BPF_ENABLE_STATS: off again when this
 *           process exits, whatever the sysctl says) while they run, and
 *           print, for tracer_switch and switch_floor, the calls and the
 *           nanoseconds per call counted during the run
 *     -a ID count only the programs loaded after program ID (-m before
 *           starting tracerd): not those of another tracerd on the host
 *     -v    also one line per program
 *     -j N  run N copies at once (default 1)
 *     -m    print the highest BPF program id now loaded, and exit
 *     -P FILE BSD process accounting (acct(2)) into FILE while the copies
 *           run, off again after them: the kernel's own cost of a record
 *           at every exit, to set tracer's beside (do not use it on a
 *           host whose own accounting is on: it ends that too)
 *     -Z    switch process accounting off, and exit (a bench's trap)
 *
 * Output, one line each:  wall_s SECONDS
 *                         stats NAME progs P calls C ns_per_call X
 *                         prog NAME ID calls C ns_per_call X     (-v)
 * Exit status 0 when every copy exited 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "switch_floor.skel.h"

#define MAX_PROGS 256

/* the programs whose per-call time is printed (BPF names: 15 chars) */
static const char *const watched[] = { "tracer_switch", "switch_floor" };
#define NWATCHED (sizeof(watched) / sizeof(watched[0]))

struct prog_stat {
	__u32 id;
	int name;		/* index into watched */
	__u64 run_time_ns;
	__u64 run_cnt;
};

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int watched_index(const char *name)
{
	for (size_t i = 0; i < NWATCHED; i++)
		if (!strcmp(name, watched[i]))
			return (int)i;
	return -1;
}

/* the counters of every program with a watched name loaded after `after` */
static int snapshot(struct prog_stat *st, int max, __u32 after)
{
	__u32 id = after;
	int n = 0;

	while (n < max && !bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);
		int w;

		if (fd < 0)
			continue; /* unloaded in between */
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
			fprintf(stderr, "switch_floor: program %u: info: %s\n", id, strerror(errno));
			close(fd);
			continue;
		}
		close(fd);
		w = watched_index(info.name);
		if (w < 0)
			continue;
		st[n].id = id;
		st[n].name = w;
		st[n].run_time_ns = info.run_time_ns;
		st[n].run_cnt = info.run_cnt;
		n++;
	}
	return n;
}

/* per watched name, the time and calls added between the two snapshots,
 * over the programs present in both */
static void print_stats(const struct prog_stat *a, int na, const struct prog_stat *b, int nb,
			int verbose)
{
	for (size_t w = 0; w < NWATCHED; w++) {
		__u64 ns = 0, calls = 0;
		int progs = 0;

		for (int j = 0; j < nb; j++) {
			if (b[j].name != (int)w)
				continue;
			for (int i = 0; i < na; i++) {
				if (a[i].id != b[j].id)
					continue;
				__u64 dns = b[j].run_time_ns - a[i].run_time_ns;
				__u64 dcalls = b[j].run_cnt - a[i].run_cnt;

				if (verbose)
					printf("prog %s %u calls %llu ns_per_call %.1f\n", watched[w],
					       b[j].id, (unsigned long long)dcalls,
					       dcalls ? (double)dns / (double)dcalls : 0.0);
				ns += dns;
				calls += dcalls;
				progs++;
			}
		}
		printf("stats %s progs %d calls %llu ns_per_call %.1f\n", watched[w], progs,
		       (unsigned long long)calls, calls ? (double)ns / (double)calls : 0.0);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* N copies of argv at once; 0 when all exited 0 */
static int run_copies(int n, char **argv, double *wall)
{
	double t0 = now_s();
	int bad = 0, started = 0;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("switch_floor: fork");
			bad = 1;
			break;
		}
		if (pid == 0) {
			execvp(argv[0], argv);
			fprintf(stderr, "switch_floor: %s: %s\n", argv[0], strerror(errno));
			_exit(127);
		}
		started++;
	}
	while (started > 0) {
		int st;

		if (wait(&st) < 0) {
			if (errno == EINTR)
				continue;
			perror("switch_floor: wait");
			return 1;
		}
		started--;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	*wall = now_s() - t0;
	return bad;
}

static void usage(void)
{
	fprintf(stderr, "usage: switch_floor [-f] [-s] [-a ID] [-v] [-j N] [-P FILE] CMD [ARGS...]\n"
			"       switch_floor -m | -Z\n");
	exit(2);
}

/* the highest program id loaded now (ids only grow until they wrap) */
static int print_max_id(void)
{
	__u32 id = 0, max = 0;

	while (!bpf_prog_get_next_id(id, &id))
		max = id;
	if (errno != ENOENT) {
		fprintf(stderr, "switch_floor: listing programs: %s\n", strerror(errno));
		return 1;
	}
	printf("%u\n", max);
	return 0;
}

/* acct(2) appends to an existing file only: create it, root's alone */
static int accounting_on(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0) {
		fprintf(stderr, "switch_floor: %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	if (acct(path) != 0) {
		fprintf(stderr, "switch_floor: acct(%s): %s (a kernel without "
			"CONFIG_BSD_PROCESS_ACCT?)\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct prog_stat before[MAX_PROGS], after_st[MAX_PROGS];
	struct switch_floor_bpf *skel = NULL;
	int floor = 0, stats = 0, verbose = 0, jobs = 1, stats_fd = -1, nb = 0, rc, c;
	__u32 after = 0;
	double wall = 0;
	const char *pacct = NULL;

	while ((c = getopt(argc, argv, "+fsa:vj:mP:Z")) != -1) {
		switch (c) {
		case 'f': floor = 1; break;
		case 's': stats = 1; break;
		case 'a': after = (__u32)strtoul(optarg, NULL, 10); break;
		case 'v': verbose = 1; break;
		case 'm': return print_max_id();
		case 'P': pacct = optarg; break;
		case 'Z':
			if (acct(NULL) != 0) {
				fprintf(stderr, "switch_floor: acct(NULL): %s\n", strerror(errno));
				return 1;
			}
			return 0;
		case 'j':
			jobs = atoi(optarg);
			if (jobs < 1 || jobs > 4096)
				usage();
			break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	libbpf_set_print(quiet_print);
	if (floor) {
		skel = switch_floor_bpf__open_and_load();
		if (!skel) {
			fprintf(stderr, "switch_floor: cannot load the empty program: %s\n", strerror(errno));
			return 1;
		}
		if (switch_floor_bpf__attach(skel)) {
			fprintf(stderr, "switch_floor: cannot attach to sched_switch: %s\n", strerror(errno));
			switch_floor_bpf__destroy(skel);
			return 1;
		}
	}
	if (stats) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0) {
			fprintf(stderr, "switch_floor: cannot turn bpf_stats on: %s\n", strerror(errno));
			switch_floor_bpf__destroy(skel);
			return 1;
		}
		nb = snapshot(before, MAX_PROGS, after);
	}
	if (pacct && accounting_on(pacct) != 0) {
		switch_floor_bpf__destroy(skel);
		return 1;
	}
	rc = run_copies(jobs, argv + optind, &wall);
	if (pacct && acct(NULL) != 0) {
		fprintf(stderr, "switch_floor: acct(NULL): %s\n", strerror(errno));
		rc = 1;
	}
	if (stats) {
		int na = snapshot(after_st, MAX_PROGS, after);

		close(stats_fd);
		print_stats(before, nb, after_st, na, verbose);
	}
	printf("wall_s %.6f\n", wall);
	switch_floor_bpf__destroy(skel);
	return rc;
}
