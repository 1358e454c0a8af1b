/*
 * test_bpf_scope.c - what is traced and how it is named: untagged processes
 * give nothing, a tagged cgroup tags what starts in it, a double-forked
 * daemon stays in the job, exec paths are resolved across mounts and cut
 * cleanly, OOM kills are flagged, and the loader pins and reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <linux/magic.h>

#include <bpf/bpf.h>

#include "bpf_test.h"

/* ---- what is and is not traced ---- */

struct fork_exec_arg {
	int cmd_fd;   /* read one byte before starting */
	int pid_fd;   /* grandchild pid written here */
};

static void fork_exec_on_cmd(void *p)
{
	struct fork_exec_arg *a = p;
	char c;
	pid_t pid;
	int st;

	if (read(a->cmd_fd, &c, 1) != 1)
		_exit(1);
	pid = fork();
	if (pid == 0)
		exec_true(NULL);
	if (pid < 0 || write(a->pid_fd, &pid, sizeof(pid)) != sizeof(pid))
		_exit(2);
	_exit(waitpid(pid, &st, 0) == pid && st == 0 ? 0 : 3);
}

/* Start an untagged child, run `between` with it, let it fork+exec. */
static void untagged_run(void (*between)(pid_t, void *), void *arg, pid_t *child, pid_t *grandchild)
{
	struct fork_exec_arg a;
	int cmd[2], pids[2];

	CU_ASSERT_FATAL(pipe(cmd) == 0 && pipe(pids) == 0);
	a.cmd_fd = cmd[0];
	a.pid_fd = pids[1];
	*child = spawn_untagged(fork_exec_on_cmd, &a);
	if (between)
		between(*child, arg);
	CU_ASSERT(write(cmd[1], "x", 1) == 1);
	CU_ASSERT(read(pids[0], grandchild, sizeof(*grandchild)) == sizeof(*grandchild));
	CU_ASSERT_EQUAL(reap_quiet(*child, NULL), 0);
	close(cmd[0]);
	close(cmd[1]);
	close(pids[0]);
	close(pids[1]);
}

static void test_untagged(void)
{
	pid_t child, grandchild, marker;
	struct tracer_proc p;

	reset();
	untagged_run(NULL, NULL, &child, &grandchild);
	/* a tagged process started after they ended: once its exit record is
	 * in, a wrong record of theirs would be too (one ring buffer, records
	 * in the order they were made) */
	marker = spawn(exec_true, NULL);
	CU_ASSERT_EQUAL(reap(marker, NULL), 0);
	CU_ASSERT_FATAL(find(marker, TRACER_EV_EXIT) != NULL);
	for (size_t i = 0; i < nrecs; i++)
		CU_ASSERT(recs[i].u.hdr.pid != (__u32)child && recs[i].u.hdr.pid != (__u32)grandchild);
	CU_ASSERT_EQUAL(bpf_loader_lookup_proc(L, child, &p), -ENOENT);
}

static void tag_child(pid_t pid, void *arg)
{
	struct tracer_proc p;

	CU_ASSERT_EQUAL(bpf_loader_tag_pid(L, pid, JOB + 1), 0);
	CU_ASSERT_EQUAL(bpf_loader_lookup_proc(L, pid, &p), 0);
	CU_ASSERT(p.job == JOB + 1 && p.threads == 1 && p.flags == 0);
	*(__u64 *)arg = p.start_ns;
}

/* The registration case: a running process is tagged and followed from then on. */
static void test_tag_running(void)
{
	pid_t child, grandchild;
	__u64 start_ns = 0;
	struct rec *x, *g;
	double d;

	reset();
	untagged_run(tag_child, &start_ns, &child, &grandchild);
	x = wait_rec(child, TRACER_EV_EXIT);
	g = wait_rec(grandchild, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(x != NULL && g != NULL);
	CU_ASSERT(x->u.hdr.job == JOB + 1 && g->u.hdr.job == JOB + 1);
	CU_ASSERT(find(grandchild, TRACER_EV_EXEC) != NULL);
	CU_ASSERT_EQUAL(x->u.exit.exit_status, 0);
	/* /proc gives the start in clock ticks; the exit record has it exact */
	d = (double)start_ns - (double)x->u.exit.start_ns;
	CU_ASSERT(d > -20e6 && d < 20e6);
}

static void join_cgroup(pid_t pid, void *dir)
{
	char path[PATH_MAX], buf[32];
	struct stat st;
	int fd, n;

	snprintf(path, sizeof(path), "%s/cgroup.procs", (char *)dir);
	/* not fatal: the child waits for us and must still be released */
	fd = open(path, O_WRONLY);
	CU_ASSERT(fd >= 0);
	n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	CU_ASSERT(fd >= 0 && write(fd, buf, n) == n);
	if (fd >= 0)
		close(fd);
	CU_ASSERT(stat(dir, &st) == 0);
	CU_ASSERT_EQUAL(bpf_loader_tag_cgroup(L, st.st_ino, CG_JOB), 0);
}

/* The cgroup2 mount: /sys/fs/cgroup/unified on hybrid hosts, else /sys/fs/cgroup. */
static const char *cgroup2_root(void)
{
	static const char *const roots[] = {"/sys/fs/cgroup/unified", "/sys/fs/cgroup"};
	struct statfs sf;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (statfs(roots[i], &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC)
			return roots[i];
	return NULL;
}

static void test_cgroup_tag(void)
{
	const char *root = cgroup2_root();
	char dir[PATH_MAX];
	pid_t child, grandchild;
	struct rec *e, *x;
	struct stat st;

	reset();
	if (!root)
		CU_FAIL_FATAL("no cgroup2 mount at /sys/fs/cgroup/unified or /sys/fs/cgroup");
	snprintf(dir, sizeof(dir), "%s/tracer-bpf-test-%d", root, (int)getpid());
	if (mkdir(dir, 0755) != 0)
		CU_FAIL_FATAL("cannot create a cgroup v2 directory for the test");
	CU_ASSERT_FATAL(stat(dir, &st) == 0);
	untagged_run(join_cgroup, dir, &child, &grandchild);
	CU_ASSERT_EQUAL(bpf_loader_untag_cgroup(L, st.st_ino), 0);
	CU_ASSERT_EQUAL(bpf_loader_untag_cgroup(L, st.st_ino), -ENOENT);
	CU_ASSERT(rmdir(dir) == 0);
	x = wait_rec(grandchild, TRACER_EV_EXIT);
	e = find(grandchild, TRACER_EV_EXEC);
	CU_ASSERT(find(grandchild, TRACER_EV_FORK) != NULL);
	CU_ASSERT_FATAL(e != NULL && x != NULL);
	CU_ASSERT_EQUAL(e->u.hdr.job, CG_JOB);
	CU_ASSERT_EQUAL(x->u.hdr.job, CG_JOB);
	CU_ASSERT_EQUAL(count_recs(child, TRACER_EV_EXIT), 0);
}

/* Wait for one byte on the pipe, then become a cat of it: alive until
 * the test closes its end (not a sleep: the checks run while it lives). */
static void exec_cat_on_cmd(void *p)
{
	int *cmd = p;
	char c;

	close(cmd[1]);
	if (read(cmd[0], &c, 1) != 1 || dup2(cmd[0], STDIN_FILENO) < 0)
		_exit(1);
	execl("/bin/cat", "cat", (char *)NULL);
	_exit(127);
}

/*
 * A process that enters a tagged cgroup after its fork (runc moving
 * `podman exec` in) and then execs is the job's, and it counts toward
 * the job's cap (job_stats live) as a forked process does.
 */
static void test_cgroup_exec_counted(void)
{
	const char *root = cgroup2_root();
	struct tracer_job_stats js;
	struct tracer_proc p = {0};
	char dir[PATH_MAX];
	struct stat st;
	int cmd[2], found = 0;
	pid_t child;

	reset();
	if (!root)
		CU_FAIL_FATAL("no cgroup2 mount at /sys/fs/cgroup/unified or /sys/fs/cgroup");
	snprintf(dir, sizeof(dir), "%s/tracer-bpf-exec-%d", root, (int)getpid());
	if (mkdir(dir, 0755) != 0)
		CU_FAIL_FATAL("cannot create a cgroup v2 directory for the test");
	CU_ASSERT_FATAL(stat(dir, &st) == 0 && pipe(cmd) == 0);
	CU_ASSERT_EQUAL(bpf_loader_job_open(L, CG_JOB, 0), 0);
	child = spawn_untagged(exec_cat_on_cmd, cmd);
	join_cgroup(child, dir); /* moved in, then tagged: no fork after it */
	CU_ASSERT_EQUAL(bpf_loader_lookup_proc(L, child, &p), -ENOENT);
	CU_ASSERT(write(cmd[1], "x", 1) == 1);
	for (int i = 0; i < 1000 && !found; i++) { /* the exec: within 10 s */
		found = bpf_loader_lookup_proc(L, child, &p) == 0;
		if (!found)
			usleep(10 * 1000);
	}
	CU_ASSERT_FATAL(found);
	CU_ASSERT_EQUAL(p.job, CG_JOB);
	CU_ASSERT(p.flags & TRACER_F_COUNTED);
	CU_ASSERT_EQUAL(bpf_loader_job_stats(L, CG_JOB, &js), 0);
	CU_ASSERT_EQUAL(js.live, 1);
	close(cmd[0]);
	close(cmd[1]); /* cat reads EOF and exits */
	CU_ASSERT_EQUAL(reap_quiet(child, NULL), 0);
	CU_ASSERT(wait_rec(child, TRACER_EV_EXIT) != NULL);
	CU_ASSERT_EQUAL(bpf_loader_job_stats(L, CG_JOB, &js), 0);
	CU_ASSERT_EQUAL(js.live, 0); /* and leaves it at exit */
	CU_ASSERT_EQUAL(bpf_loader_job_close(L, CG_JOB), 0);
	CU_ASSERT_EQUAL(bpf_loader_untag_cgroup(L, st.st_ino), 0);
	CU_ASSERT(rmdir(dir) == 0);
}

static void double_fork(void *arg)
{
	int *fd = arg;
	pid_t pid = fork();

	if (pid == 0) {
		usleep(50 * 1000);
		exec_true(NULL);
	}
	_exit(pid > 0 && write(*fd, &pid, sizeof(pid)) == sizeof(pid) ? 0 : 1);
}

static void test_daemonized(void)
{
	pid_t child, orphan = 0;
	int fds[2];
	struct rec *x;

	reset();
	CU_ASSERT_FATAL(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0 && pipe(fds) == 0);
	child = spawn(double_fork, &fds[1]);
	CU_ASSERT_EQUAL(reap(child, NULL), 0);
	CU_ASSERT_FATAL(read(fds[0], &orphan, sizeof(orphan)) == sizeof(orphan) && orphan > 0);
	CU_ASSERT_EQUAL_FATAL(reap(orphan, NULL), 0);
	close(fds[0]);
	close(fds[1]);
	x = find(orphan, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT_EQUAL(x->u.hdr.job, JOB);
	CU_ASSERT_EQUAL(x->u.exit.ppid, (__u32)getpid()); /* reparented to us */
}

/* ---- paths and argv ---- */

static void exec_rel(void *dir)
{
	if (chdir(dir) != 0)
		_exit(126);
	execl("./x", "x", "arg1", (char *)NULL);
	_exit(127);
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out = open(to, O_CREAT | O_TRUNC | O_WRONLY, 0755);
	int rc = in >= 0 && out >= 0 ? 0 : -1;

	while (rc == 0 && (n = read(in, buf, sizeof(buf))) > 0)
		rc = write(out, buf, n) == n ? 0 : -1;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0)
		rc = -1;
	return rc;
}

static void test_relative_path(void)
{
	char mnt[PATH_MAX], x[PATH_MAX], want[PATH_MAX];
	struct rec *e;
	pid_t pid;

	reset();
	/* a tmpfs of our own: the walk must cross a mount point */
	snprintf(mnt, sizeof(mnt), "%s/mnt", tmpdir);
	CU_ASSERT_FATAL(mkdir(mnt, 0700) == 0);
	CU_ASSERT_FATAL(mount("tmpfs", mnt, "tmpfs", 0, "size=16m") == 0);
	snprintf(x, sizeof(x), "%s/x", mnt);
	CU_ASSERT(copy_file("/bin/true", x) == 0);
	CU_ASSERT(realpath(x, want) != NULL);
	pid = spawn(exec_rel, mnt);
	CU_ASSERT_EQUAL(reap(pid, NULL), 0);
	CU_ASSERT(umount(mnt) == 0);
	CU_ASSERT(rmdir(mnt) == 0);
	e = find(pid, TRACER_EV_EXEC);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_STRING_EQUAL(e->u.exec.path, want);
	CU_ASSERT_EQUAL(e->u.exec.path_len, strlen(want));
	CU_ASSERT_STRING_EQUAL(e->u.exec.filename, "./x");
	CU_ASSERT(e->u.exec.argv_len == 7 && memcmp(e->u.exec.argv, "x\0arg1", 7) == 0);
	CU_ASSERT_EQUAL(e->u.exec.flags, 0);
}

static void exec_long_argv(void *arg)
{
	static char big[3000];

	memset(big, 'a', sizeof(big) - 1);
	execl("/bin/true", "true", big, (char *)NULL);
	_exit(127);
}

static void exec_deep(void *path)
{
	execl(path, "x", (char *)NULL);
	_exit(127);
}

static void test_truncation(void)
{
	char deep[PATH_MAX];
	size_t n;
	struct rec *e;
	pid_t pid;

	reset();
	pid = spawn(exec_long_argv, NULL);
	CU_ASSERT_EQUAL(reap(pid, NULL), 0);
	e = find(pid, TRACER_EV_EXEC);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT(e->u.exec.flags & TRACER_F_ARGV_TRUNCATED);
	CU_ASSERT_EQUAL(e->u.exec.argv_len, TRACER_DEFAULT_ARGV_MAX);

	/* deeper than the walk goes: falls back to the name given to execve */
	n = (size_t)snprintf(deep, sizeof(deep), "%s", tmpdir);
	for (int i = 0; i < 70; i++) {
		n += (size_t)snprintf(deep + n, sizeof(deep) - n, "/d");
		CU_ASSERT_FATAL(mkdir(deep, 0700) == 0 || errno == EEXIST);
	}
	snprintf(deep + n, sizeof(deep) - n, "/x");
	CU_ASSERT_FATAL(copy_file("/bin/true", deep) == 0);
	pid = spawn(exec_deep, deep);
	CU_ASSERT_EQUAL(reap(pid, NULL), 0);
	e = find(pid, TRACER_EV_EXEC);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_EQUAL(e->u.exec.flags, TRACER_F_PATH_TRUNCATED | TRACER_F_PATH_FROM_FILENAME);
	CU_ASSERT_STRING_EQUAL(e->u.exec.path, deep);
	unlink(deep);
	while (n > strlen(tmpdir)) { /* remove d/d/.../d, deepest first */
		deep[n] = '\0';
		rmdir(deep);
		n -= 2;
	}
}

/* ---- OOM: v1 memory controller where present, else v2 ---- */

static int memcg_dir(char *dir, size_t len)
{
	char line[512], base[PATH_MAX] = "";
	FILE *f = fopen("/proc/self/cgroup", "r");
	int v1 = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;

		if (!path)
			continue;
		*path++ = '\0';
		path[strcspn(path, "\n")] = '\0';
		if (strcmp(ctl + 1, "memory") == 0) {
			snprintf(base, sizeof(base), "/sys/fs/cgroup/memory%s", path);
			v1 = 1;
		} else if (!v1 && strcmp(ctl + 1, "") == 0) {
			snprintf(base, sizeof(base), "/sys/fs/cgroup%s", path);
		}
	}
	fclose(f);
	snprintf(dir, len, "%s/tracer-oom-%d", base, (int)getpid());
	return v1;
}

static void oom_child(void *dir)
{
	char path[PATH_MAX];
	char *p;
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.procs", (char *)dir);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "0\n", 2) != 2)
		_exit(1);
	close(fd);
	for (int i = 0; i < 64; i++) { /* 512 MiB against a 64 MiB limit */
		p = malloc(8 * MIB);
		if (!p)
			_exit(2);
		memset(p, 1, 8 * MIB);
	}
	_exit(3);
}

static void test_oom(void)
{
	char dir[PATH_MAX], limit[PATH_MAX];
	struct rec *o, *x;
	int v1 = memcg_dir(dir, sizeof(dir)), fd, st;
	pid_t pid;

	reset();
	CU_ASSERT_FATAL(v1 >= 0);
	if (mkdir(dir, 0755) != 0)
		CU_FAIL_FATAL("cannot create a memory cgroup for the OOM test");
	snprintf(limit, sizeof(limit), "%s/%s", dir, v1 ? "memory.limit_in_bytes" : "memory.max");
	fd = open(limit, O_WRONLY);
	CU_ASSERT(fd >= 0 && write(fd, "67108864\n", 9) == 9);
	if (fd >= 0)
		close(fd);
	pid = spawn(oom_child, dir);
	st = reap(pid, NULL);
	CU_ASSERT(rmdir(dir) == 0);
	CU_ASSERT_FATAL(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	o = find(pid, TRACER_EV_OOM);
	x = find(pid, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(o != NULL && x != NULL);
	CU_ASSERT_EQUAL(o->u.hdr.job, JOB);
	CU_ASSERT(x->u.exit.flags & TRACER_F_OOM_KILLED);
	CU_ASSERT_EQUAL(x->u.exit.exit_status, st);
}

/* ---- loader ---- */

void test_loader(void)
{
	char names[16][32];
	struct stat st;
	__u64 c[TRACER_CNT__MAX];
	int n = bpf_loader_programs(L, names, 16);

	/* 5 process programs + 8 socket and block I/O ones (this kernel has
	 * all their tracepoints) */
	CU_ASSERT_EQUAL(n, 13);
	char p[128];

	CU_ASSERT(stat(pin_dir, &st) == 0 && (st.st_mode & 0777) == 0700);
	CU_ASSERT(stat(test_pin_path(p, sizeof(p), "procs"), &st) == 0 && (st.st_mode & 0777) == 0600);
	CU_ASSERT(stat(test_pin_path(p, sizeof(p), "counters"), &st) == 0);
	/* the stale pin planted before opening was replaced by our map */
	int fd = bpf_obj_get(test_pin_path(p, sizeof(p), "procs"));
	struct bpf_map_info info = {0};
	__u32 len = sizeof(info);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		  info.type == BPF_MAP_TYPE_HASH && strcmp(info.name, "procs") == 0);
	close(fd);
	CU_ASSERT(stat("/sys/kernel/tracing/events/oom/mark_victim", &st) == 0);
	CU_ASSERT(bpf_loader_ringbuf_fd(L) >= 0);
	CU_ASSERT_EQUAL(bpf_loader_tag_pid(L, 999999999, 1), -ESRCH);
	CU_ASSERT_EQUAL(bpf_loader_untag_pid(L, 999999999), -ENOENT);
	bpf_loader_counters(L, c);
	CU_ASSERT_EQUAL(c[TRACER_CNT_DROP_RINGBUF], 0);
	CU_ASSERT_EQUAL(c[TRACER_CNT_DROP_PROCS_FULL], 0);
	CU_ASSERT_EQUAL(bad_recs, 0);
}

int add_scope_tests(CU_pSuite s)
{
	return !CU_add_test(s, "untagged process: no events", test_untagged) ||
	       !CU_add_test(s, "tagging a running process", test_tag_running) ||
	       !CU_add_test(s, "tagged cgroup", test_cgroup_tag) ||
	       !CU_add_test(s, "exec into a tagged cgroup counts toward the cap", test_cgroup_exec_counted) ||
	       !CU_add_test(s, "double fork stays in the job", test_daemonized) ||
	       !CU_add_test(s, "relative exec across a mount", test_relative_path) ||
	       !CU_add_test(s, "argv and path truncation", test_truncation) ||
	       !CU_add_test(s, "OOM kill", test_oom) ? -1 : 0;
}
