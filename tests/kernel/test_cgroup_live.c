/*
 * test_cgroup_live.c - a memory cgroup made for the test (root) with a
 * child that touches a known amount of memory: its counters as lib/cgroup
 * reads them.  Part of the root suites (tests/run-all.sh), not of
 * `make check`.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "../unit/unit.h"

/*
 * A memory cgroup of our own: v1 memory controller where it is mounted,
 * else v2 (with memory enabled for children).  Returns the parent dir.
 */
static int memory_hierarchy(char *dir, size_t len, int *v1)
{
	char line[4096], mnt[1024], opts[1024], fstype[64];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %*s %1023s", mnt) != 1 ||
		    sscanf(dash + 3, "%63s %*s %1023s", fstype, opts) != 2)
			continue;
		if (strcmp(fstype, "cgroup") == 0 &&
		    (strstr(opts, ",memory") || strncmp(opts, "memory", 6) == 0)) {
			snprintf(dir, len, "%s", mnt);
			*v1 = 1;
			found = 1;
		}
	}
	fclose(f);
	if (found)
		return 0;
	f = fopen("/sys/fs/cgroup/cgroup.subtree_control", "r");
	if (f && fgets(line, sizeof(line), f) && strstr(line, "memory")) {
		snprintf(dir, len, "/sys/fs/cgroup");
		*v1 = 0;
		found = 1;
	}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

static int write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(s, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static void test_memory_cgroup(void)
{
	char parent[1024], dir[1200], path[1300], buf[32];
	int v1, go[2], done[2];
	struct cgroup_ref ref;
	struct cgroup_stats st;
	pid_t child;
	char c = 0;

	if (memory_hierarchy(parent, sizeof(parent), &v1) != 0) {
		fprintf(stderr, "\n  no memory controller (v1 mount or v2 "
				"subtree_control) to test with\n");
		CU_FAIL_FATAL("memory controller");
	}
	snprintf(dir, sizeof(dir), "%s/tracer_test_%d", parent, (int)getpid());
	if (mkdir(dir, 0755) != 0) {
		fprintf(stderr, "\n  mkdir %s: %s (tests run as root)\n", dir,
			strerror(errno));
		CU_FAIL_FATAL("mkdir cgroup");
	}
	if (pipe(go) != 0 || pipe(done) != 0 || (child = fork()) < 0) {
		CU_FAIL("pipe/fork");
		rmdir(dir);
		return;
	}
	if (child == 0) {
		size_t n = 32u << 20;
		volatile char *m;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		m = malloc(n);
		if (!m)
			_exit(1);
		/* touch every page (volatile: the stores must happen) */
		for (size_t i = 0; i < n; i += 4096)
			m[i] = 1;
		if (write(done[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	/* from here on, no fatal assertion: the child and the cgroup must go */
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(buf, sizeof(buf), "%d", (int)child);
	if (write_str(path, buf) != 0) {
		CU_FAIL("move the child into the test cgroup");
		goto cleanup;
	}
	if (write(go[1], &c, 1) != 1 || read(done[0], &c, 1) != 1) {
		CU_FAIL("child did not touch its memory");
		goto cleanup;
	}
	CU_ASSERT_EQUAL(cgroup_ref_for_pid(child, &ref), 0);
	if (v1) {
		if (strcmp(ref.mem_v1, dir) != 0)
			fprintf(stderr, "\n  mem_v1 \"%s\", want \"%s\"\n", ref.mem_v1, dir);
		CU_ASSERT_STRING_EQUAL(ref.mem_v1, dir);
	} else {
		CU_ASSERT_STRING_EQUAL(ref.v2, dir);
	}
	CU_ASSERT_EQUAL(cgroup_read_stats(&ref, &st), 0);
	CU_ASSERT(st.have_mem);
	if (st.mem_peak_bytes < (32u << 20) || st.mem_current_bytes < (30u << 20))
		fprintf(stderr, "\n  %s: peak %llu current %llu\n", dir,
			(unsigned long long)st.mem_peak_bytes,
			(unsigned long long)st.mem_current_bytes);
	CU_ASSERT(st.mem_peak_bytes >= (32u << 20));
	CU_ASSERT(st.mem_current_bytes >= (30u << 20));
	CU_ASSERT(st.mem_peak_bytes < (64u << 20));
	CU_ASSERT_EQUAL(st.oom_kills, 0);

cleanup:
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
	/* the cgroup is empty once the child is reaped; removal may lag a
	 * little (more on a loaded machine): up to 10 s */
	for (int i = 0; i < 1000 && rmdir(dir) != 0; i++)
		usleep(10000);
	CU_ASSERT(access(dir, F_OK) != 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"memory cgroup with a known load", test_memory_cgroup},
	};

	if (geteuid() != 0) {
		fprintf(stderr, "test_cgroup_live must run as root (makes a cgroup)\n");
		return 1;
	}
	return UNIT_RUN("cgroup (live)", tests);
}
