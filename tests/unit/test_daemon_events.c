/*
 * test_daemon_events.c - tracerd's handling of ring buffer records
 * (daemon/events.c) fed synthetic records of every type in bpf/tracer.h:
 * fork, exec (path, filename, argv), exit with totals, OOM; records of
 * jobs that are not open (late), records shorter than their type's fixed
 * part, exec records whose lengths claim more than the record holds, an
 * unknown type and an empty record.  Effects are checked on the job model
 * (lib/job.h) and on the counters (struct jobs_stats, daemon/jobs.h).
 *
 * The jobs are real: registered through jobs_register() for a child
 * process that waits to be killed, with tracer's BPF programs loaded (the
 * late-record path untags processes in the kernel's table, checked here
 * too).  So this test needs root; without it, it fails and says so.
 * Every record is copied into a heap block of exactly its size, so that
 * the sanitizer build catches a read past its end.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>

#include "bpf_loader.h"
#include "config.h"
#include "events.h"
#include "hostinfo.h"
#include "jobs.h"
#include "rules.h"
#include "tracer.h"
#include "unit.h"

/* pids of processes that do not exist: records only, never looked up in
 * /proc (a pid above the kernel's maximum cannot be a real process) */
#define FAKE_PID 4000000

static struct tracer_config cfg;
static struct host_info host;
static struct rules *rules;
static struct bpf_loader *bpf;

/* one job per test: registered for a child that pauses until killed */
static struct jobs js;
static bool js_up;
static pid_t root_pid;
static struct djob *dj;
static struct job *job;

/* every child started, so that a test stopped by a fatal assertion
 * leaves none behind: reaped at the next test's start and at the end */
#define MAX_CHILDREN 8
static pid_t children[MAX_CHILDREN];

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Kill and reap a child of ours (only those: a pid reaped once may
 * belong to another process since). */
static void reap(pid_t pid)
{
	for (int i = 0; pid > 0 && i < MAX_CHILDREN; i++) {
		if (children[i] == pid) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			children[i] = 0;
		}
	}
}

static void reap_all(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		reap(children[i]);
}

/* A child that does nothing until it is killed; -1 when none. */
static pid_t idle_child(void)
{
	pid_t pid;
	int slot = -1;

	for (int i = 0; i < MAX_CHILDREN && slot < 0; i++)
		if (!children[i])
			slot = i;
	if (slot < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/* gone with the test, even when it crashes */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(0);
		for (;;)
			pause();
	}
	if (pid > 0)
		children[slot] = pid;
	return pid;
}

static void job_down(void)
{
	if (js_up)
		jobs_fini(&js);
	js_up = false;
	reap_all();
	root_pid = 0;
	dj = NULL;
	job = NULL;
}

/* A fresh table of jobs with one open local job for a new child. */
static int job_up(void)
{
	struct tracer_identity id;
	struct ucred peer;
	cJSON *r;
	char *reply;
	const char *uid;

	job_down(); /* whatever a failed test left */
	jobs_init(&js, &cfg, &host, rules, NULL, bpf);
	js_up = true;
	root_pid = idle_child();
	if (root_pid < 0)
		return -1;
	identity_init(&id);
	snprintf(id.scheduler, sizeof(id.scheduler), "local");
	snprintf(id.task_name, sizeof(id.task_name), "events-test");
	peer.pid = root_pid;
	peer.uid = 0;
	peer.gid = 0;
	reply = jobs_register(&js, &id, &peer);
	r = reply ? cJSON_Parse(reply) : NULL;
	uid = r ? cJSON_GetStringValue(cJSON_GetObjectItem(r, "job")) : NULL;
	dj = uid ? jobs_find_name(&js, uid) : NULL;
	if (!dj)
		fprintf(stderr, "\n  jobs_register: %s\n", reply ? reply : "(no reply)");
	cJSON_Delete(r);
	free(reply);
	job = dj ? dj->job : NULL;
	return dj ? 0 : -1;
}

#define JOB_UP()                                      \
	do {                                          \
		if (job_up() != 0) {                  \
			job_down();                   \
			CU_FAIL_FATAL("no job to test"); \
		}                                     \
	} while (0)

/* Hand the first size bytes of rec to events_handle, from a heap block
 * of exactly that size. */
static int feed(const void *rec, size_t size)
{
	void *copy = malloc(size ? size : 1);
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, rec, size);
	rc = events_handle(&js, copy, size);
	free(copy);
	return rc;
}

static void hdr(struct tracer_event_hdr *h, __u32 type, __u32 pid, __u64 key)
{
	h->type = type;
	h->pid = pid;
	h->job = key;
	h->ts_ns = mono_ns();
}

/* comm as the kernel fills it; a name of 16 bytes or more leaves no NUL */
static void set_comm(char *dst, const char *comm)
{
	size_t n = strlen(comm);

	memcpy(dst, comm, n < TRACER_COMM_LEN ? n : TRACER_COMM_LEN);
}

static void fork_rec(struct tracer_fork_event *e, __u32 pid, __u32 ppid, __u64 key,
		     const char *comm)
{
	memset(e, 0, sizeof(*e));
	hdr(&e->hdr, TRACER_EV_FORK, pid, key);
	e->ppid = ppid;
	e->start_ns = mono_ns();
	set_comm(e->comm, comm);
}

/* An exec record with path, filename and argv (NUL-separated, argv_len
 * bytes); returns the size of the record as the kernel sends it. */
static size_t exec_rec(struct tracer_exec_event *e, __u32 pid, __u32 ppid, __u64 key,
		       const char *path, const char *filename, const char *argv,
		       size_t argv_len, const char *comm)
{
	memset(e, 0, sizeof(*e));
	hdr(&e->hdr, TRACER_EV_EXEC, pid, key);
	e->ppid = ppid;
	e->path_len = (__u32)strlen(path);
	memcpy(e->path, path, e->path_len);
	e->filename_len = (__u32)strlen(filename);
	memcpy(e->filename, filename, e->filename_len);
	e->argv_len = (__u32)argv_len;
	memcpy(e->argv, argv, argv_len);
	for (size_t i = 0; i < argv_len; i++)
		e->argc += argv[i] == '\0';
	e->start_ns = mono_ns();
	set_comm(e->comm, comm);
	return offsetof(struct tracer_exec_event, argv) + argv_len;
}

static void exit_rec(struct tracer_exit_event *e, __u32 pid, __u32 ppid, __u64 key,
		     int status, const char *comm)
{
	memset(e, 0, sizeof(*e));
	hdr(&e->hdr, TRACER_EV_EXIT, pid, key);
	e->ppid = ppid;
	e->exit_status = status;
	e->nr_threads = 1;
	e->start_ns = mono_ns() - 1000000000ull;
	set_comm(e->comm, comm);
}

static struct tracer_exec_event *new_exec(void)
{
	struct tracer_exec_event *e = calloc(1, sizeof(*e));

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	return e;
}

static const struct tool_agg *find_agg(const char *tool)
{
	for (const struct tool_agg *t = job->tools; t; t = t->next)
		if (!strcmp(t->tool, tool))
			return t;
	return NULL;
}

static const struct job_proc *find_kept(pid_t pid)
{
	for (size_t i = 0; i < job->nkept; i++)
		if (job->kept[i]->pid == pid)
			return job->kept[i];
	return NULL;
}

/* ---- the tests ---- */

static void test_registered_job(void)
{
	JOB_UP();
	/* the registered process is the job's root, alive */
	struct job_proc *root = job_proc_find(job, root_pid);
	CU_ASSERT_PTR_NOT_NULL(root);
	if (root)
		CU_ASSERT(root->flags & PROC_F_ROOT);
	CU_ASSERT_EQUAL(job->nlive, 1);
	CU_ASSERT_EQUAL(job->procs_total, 1);
	CU_ASSERT_NOT_EQUAL(job->key, TRACER_JOB_HOST);
	CU_ASSERT_EQUAL(js.stats.registered, 1);
	CU_ASSERT_EQUAL(js.stats.events, 0);
	job_down();
}

static void test_fork(void)
{
	struct tracer_fork_event e;
	struct job_proc *p;

	JOB_UP();
	dj->empty_since_ns = 12345; /* a fork makes the job busy again */
	fork_rec(&e, FAKE_PID, (__u32)root_pid, job->key, "worker");
	CU_ASSERT_EQUAL(feed(&e, sizeof(e)), 0);
	p = job_proc_find(job, FAKE_PID);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(p->ppid, root_pid);
	CU_ASSERT_STRING_EQUAL(p->comm, "worker");
	CU_ASSERT_EQUAL(p->start_ns, jobs_real_ns(&js, e.start_ns));
	CU_ASSERT_EQUAL(p->exit_status, -1);
	/* it runs its parent's program until it execs */
	CU_ASSERT_PTR_NOT_NULL(p->tool);
	if (p->tool && job_proc_find(job, root_pid)->tool)
		CU_ASSERT_STRING_EQUAL(p->tool, job_proc_find(job, root_pid)->tool);
	CU_ASSERT_EQUAL(job->nlive, 2);
	CU_ASSERT_EQUAL(job->procs_total, 2);
	CU_ASSERT_EQUAL(dj->empty_since_ns, 0);
	CU_ASSERT_EQUAL(js.stats.events, 1);
	CU_ASSERT_EQUAL(js.stats.late_events, 0);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 0);

	/* a 16-byte comm without its NUL stays within 15 characters */
	fork_rec(&e, FAKE_PID + 1, (__u32)root_pid, job->key, "0123456789abcdefXYZ");
	CU_ASSERT_EQUAL(feed(&e, sizeof(e)), 0);
	p = job_proc_find(job, FAKE_PID + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_STRING_EQUAL(p->comm, "0123456789abcde");
	CU_ASSERT_EQUAL(js.stats.events, 2);
	job_down();
}

static void test_exec(void)
{
	static const char argv[] = "samtools\0sort\0-o\0x.bam\0--password=hunter2";
	struct tracer_fork_event f;
	struct tracer_exec_event *e = new_exec();
	struct job_proc *p;
	size_t size;

	JOB_UP();
	fork_rec(&f, FAKE_PID, (__u32)root_pid, job->key, "bash");
	feed(&f, sizeof(f));
	size = exec_rec(e, FAKE_PID, (__u32)root_pid, job->key, "/usr/bin/samtools",
			"samtools", argv, sizeof(argv), "samtools");
	CU_ASSERT_EQUAL(feed(e, size), 0);
	p = job_proc_find(job, FAKE_PID);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->exe);
	CU_ASSERT_STRING_EQUAL(p->exe, "/usr/bin/samtools");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->tool);
	CU_ASSERT_STRING_EQUAL(p->tool, "samtools sort");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->cmdline);
	CU_ASSERT_STRING_EQUAL(p->cmdline, "samtools sort -o x.bam --password=***");
	CU_ASSERT_STRING_EQUAL(p->comm, "samtools");
	CU_ASSERT_FALSE(p->flags & PROC_F_ARGV_TRUNCATED);
	/* the same process, not a second one */
	CU_ASSERT_EQUAL(job->nlive, 2);
	CU_ASSERT_EQUAL(job->procs_total, 2);
	CU_ASSERT_EQUAL(js.stats.events, 2);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 0);

	/* the dentry walk failed: the filename stands in for the path */
	size = exec_rec(e, FAKE_PID, (__u32)root_pid, job->key, "garbage-not-used",
			"/opt/aligner/bin/bwa", "bwa\0mem\0", 8, "bwa");
	e->flags = TRACER_F_PATH_FROM_FILENAME | TRACER_F_ARGV_TRUNCATED;
	CU_ASSERT_EQUAL(feed(e, size), 0);
	CU_ASSERT_STRING_EQUAL(p->exe, "/opt/aligner/bin/bwa");
	CU_ASSERT_STRING_EQUAL(p->cmdline, "bwa mem");
	CU_ASSERT_STRING_EQUAL(p->comm, "bwa");
	CU_ASSERT(p->flags & PROC_F_ARGV_TRUNCATED);
	CU_ASSERT_EQUAL(js.stats.events, 3);
	free(e);
	job_down();
}

/* An exec of a process whose fork was not seen (a lost record): it is
 * added, with the parent the record names, and counted. */
static void test_exec_unknown_process(void)
{
	struct tracer_exec_event *e = new_exec();
	struct job_proc *p;
	size_t size;

	JOB_UP();
	dj->empty_since_ns = 777;
	size = exec_rec(e, FAKE_PID + 7, (__u32)root_pid, job->key, "/usr/bin/gzip", "gzip",
			"gzip\0-d\0", 8, "gzip");
	CU_ASSERT_EQUAL(feed(e, size), 0);
	p = job_proc_find(job, FAKE_PID + 7);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(p->ppid, root_pid);
	CU_ASSERT_EQUAL(p->start_ns, jobs_real_ns(&js, e->start_ns));
	CU_ASSERT_STRING_EQUAL(p->exe, "/usr/bin/gzip");
	CU_ASSERT_STRING_EQUAL(p->cmdline, "gzip -d");
	CU_ASSERT_EQUAL(job->nlive, 2);
	CU_ASSERT_EQUAL(dj->empty_since_ns, 0);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 1);
	CU_ASSERT_EQUAL(js.stats.events, 1);
	free(e);
	job_down();
}

static void test_exit_totals(void)
{
	struct tracer_fork_event f;
	struct tracer_exit_event e;
	const struct tool_agg *t;
	const struct job_proc *kept;
	char tool[256];

	JOB_UP();
	fork_rec(&f, FAKE_PID, (__u32)root_pid, job->key, "worker");
	feed(&f, sizeof(f));
	snprintf(tool, sizeof(tool), "%s", job_proc_find(job, FAKE_PID)->tool);
	exit_rec(&e, FAKE_PID, (__u32)root_pid, job->key, 3 << 8, "worker");
	e.totals = (struct tracer_totals){
		.cpu_ns = 2000000000ull, .utime_ns = 3000000000ull, .stime_ns = 1000000000ull,
		.maxrss_kb = 2048, .rchar = 100, .wchar = 200, .syscr = 3, .syscw = 4,
		.read_bytes = 4096, .write_bytes = 8192, .cancelled_write_bytes = 512,
		.nvcsw = 5, .nivcsw = 6, .min_flt = 7, .maj_flt = 8,
	};
	CU_ASSERT_EQUAL(feed(&e, sizeof(e)), 0);
	/* folded: no longer live, its totals in the job's and its tool's */
	CU_ASSERT_PTR_NULL(job_proc_find(job, FAKE_PID));
	CU_ASSERT_EQUAL(job->nlive, 1);
	CU_ASSERT_EQUAL(job->procs_exited, 1);
	CU_ASSERT_EQUAL(job->procs_total, 2);
	CU_ASSERT_EQUAL(job->totals.cpu_ns, 2000000000ull);
	/* the precise CPU split by the tick-sampled ratio: 3/4 user */
	CU_ASSERT_EQUAL(job->totals.user_ns, 1500000000ull);
	CU_ASSERT_EQUAL(job->totals.sys_ns, 500000000ull);
	CU_ASSERT_EQUAL(job->totals.maxrss_bytes, 2048ull * 1024);
	CU_ASSERT_EQUAL(job->totals.rchar, 100);
	CU_ASSERT_EQUAL(job->totals.wchar, 200);
	CU_ASSERT_EQUAL(job->totals.syscr, 3);
	CU_ASSERT_EQUAL(job->totals.syscw, 4);
	CU_ASSERT_EQUAL(job->totals.read_bytes, 4096);
	CU_ASSERT_EQUAL(job->totals.write_bytes, 8192);
	CU_ASSERT_EQUAL(job->totals.cancelled_write_bytes, 512);
	CU_ASSERT_EQUAL(job->totals.nvcsw, 5);
	CU_ASSERT_EQUAL(job->totals.nivcsw, 6);
	CU_ASSERT_EQUAL(job->totals.min_flt, 7);
	CU_ASSERT_EQUAL(job->totals.maj_flt, 8);
	CU_ASSERT_EQUAL(job->oom_kills, 0);
	t = find_agg(tool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->procs, 1);
	CU_ASSERT_EQUAL(t->sum.cpu_ns, 2000000000ull);
	CU_ASSERT_EQUAL(t->nexits, 1);
	CU_ASSERT_EQUAL(t->exits[0].status, 3 << 8);
	CU_ASSERT_EQUAL(t->exits[0].count, 1);
	CU_ASSERT_EQUAL(t->last_end_ns, jobs_real_ns(&js, e.hdr.ts_ns));
	kept = find_kept(FAKE_PID);
	CU_ASSERT_PTR_NOT_NULL_FATAL(kept);
	CU_ASSERT_EQUAL(kept->exit_status, 3 << 8);
	CU_ASSERT_EQUAL(kept->end_ns, jobs_real_ns(&js, e.hdr.ts_ns));
	CU_ASSERT_FALSE(kept->flags & PROC_F_OOM_KILLED);
	/* the root is still alive: the job is not empty */
	CU_ASSERT_EQUAL(dj->empty_since_ns, 0);
	CU_ASSERT_EQUAL(js.stats.events, 2);

	/* the root's exit empties the job: the grace period starts */
	exit_rec(&e, (__u32)root_pid, 1, job->key, 0, "events-test");
	CU_ASSERT_EQUAL(feed(&e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(job->nlive, 0);
	CU_ASSERT_EQUAL(job->procs_exited, 2);
	CU_ASSERT_NOT_EQUAL(dj->empty_since_ns, 0);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 0);

	/* an exit of a process never seen: added, counted, folded */
	exit_rec(&e, FAKE_PID + 9, (__u32)root_pid, job->key, 0, "ghost");
	CU_ASSERT_EQUAL(feed(&e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 1);
	CU_ASSERT_EQUAL(job->procs_total, 3);
	CU_ASSERT_EQUAL(job->procs_exited, 3);
	CU_ASSERT_EQUAL(job->nlive, 0);
	CU_ASSERT_PTR_NOT_NULL(find_agg("ghost"));
	job_down();
}

static void test_oom(void)
{
	struct tracer_fork_event f;
	struct tracer_exit_event e;
	struct tracer_oom_event o;
	struct job_proc *p;
	const struct job_proc *kept;

	JOB_UP();
	fork_rec(&f, FAKE_PID, (__u32)root_pid, job->key, "touchmem");
	feed(&f, sizeof(f));
	/* the OOM killer chose it: marked while alive */
	hdr(&o.hdr, TRACER_EV_OOM, FAKE_PID, job->key);
	CU_ASSERT_EQUAL(feed(&o, sizeof(o)), 0);
	p = job_proc_find(job, FAKE_PID);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT(p->flags & PROC_F_OOM_KILLED);
	/* an OOM record of a process the job does not have adds nothing */
	hdr(&o.hdr, TRACER_EV_OOM, FAKE_PID + 1, job->key);
	CU_ASSERT_EQUAL(feed(&o, sizeof(o)), 0);
	CU_ASSERT_PTR_NULL(job_proc_find(job, FAKE_PID + 1));
	CU_ASSERT_EQUAL(job->procs_total, 2);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 0);
	/* its exit (SIGKILL) counts one OOM kill, and it is kept in the tree */
	exit_rec(&e, FAKE_PID, (__u32)root_pid, job->key, SIGKILL, "touchmem");
	CU_ASSERT_EQUAL(feed(&e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(job->oom_kills, 1);
	kept = find_kept(FAKE_PID);
	CU_ASSERT_PTR_NOT_NULL_FATAL(kept);
	CU_ASSERT(kept->flags & PROC_F_OOM_KILLED);
	CU_ASSERT_EQUAL(kept->exit_status, SIGKILL);

	/* the flag in the exit record alone is enough */
	fork_rec(&f, FAKE_PID + 2, (__u32)root_pid, job->key, "touchmem");
	feed(&f, sizeof(f));
	exit_rec(&e, FAKE_PID + 2, (__u32)root_pid, job->key, SIGKILL, "touchmem");
	e.flags = TRACER_F_OOM_KILLED;
	CU_ASSERT_EQUAL(feed(&e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(job->oom_kills, 2);
	kept = find_kept(FAKE_PID + 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(kept);
	CU_ASSERT(kept->flags & PROC_F_OOM_KILLED);
	CU_ASSERT_EQUAL(js.stats.events, 6);
	CU_ASSERT_EQUAL(js.stats.late_events, 0);
	job_down();
}

/* Records of a job that is not open: counted as late, the job model
 * untouched; a process still tagged with that job in the kernel is
 * untagged (not on its exit record, and not when it moved to another job). */
static void test_late_records(void)
{
	struct tracer_fork_event f;
	struct tracer_exit_event e;
	struct tracer_oom_event o;
	struct tracer_exec_event *x = new_exec();
	struct tracer_proc kp;
	const __u64 closed = 9999, other = 9998;
	pid_t tagged;
	size_t size;

	JOB_UP();
	CU_ASSERT_PTR_NULL(jobs_find_key(&js, closed));
	CU_ASSERT_PTR_NULL(jobs_find_key(&js, other));
	/* processes that are not in the kernel's table */
	fork_rec(&f, FAKE_PID, 1, closed, "late");
	CU_ASSERT_EQUAL(feed(&f, sizeof(f)), 0);
	size = exec_rec(x, FAKE_PID, 1, closed, "/bin/true", "true", "true\0", 5, "true");
	CU_ASSERT_EQUAL(feed(x, size), 0);
	exit_rec(&e, FAKE_PID, 1, closed, 0, "late");
	CU_ASSERT_EQUAL(feed(&e, sizeof(e)), 0);
	hdr(&o.hdr, TRACER_EV_OOM, FAKE_PID, closed);
	CU_ASSERT_EQUAL(feed(&o, sizeof(o)), 0);
	CU_ASSERT_EQUAL(js.stats.events, 4);
	CU_ASSERT_EQUAL(js.stats.late_events, 4);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 0);
	CU_ASSERT_PTR_NULL(job_proc_find(job, FAKE_PID));
	CU_ASSERT_EQUAL(job->procs_total, 1);
	CU_ASSERT_EQUAL(job->nlive, 1);
	CU_ASSERT_EQUAL(job->procs_exited, 0);

	/* a real process, tagged in the kernel with a job that is closed */
	tagged = idle_child();
	CU_ASSERT_FATAL(tagged > 0);
	CU_ASSERT_EQUAL_FATAL(bpf_loader_tag_pid(bpf, tagged, closed), 0);
	/* its exit record: nothing to untag (the kernel drops it itself) */
	exit_rec(&e, (__u32)tagged, 1, closed, 0, "late");
	feed(&e, sizeof(e));
	CU_ASSERT_EQUAL(bpf_loader_lookup_proc(bpf, tagged, &kp), 0);
	/* a record of the closed job while it has moved to another: kept */
	CU_ASSERT_EQUAL(bpf_loader_tag_pid(bpf, tagged, other), 0);
	fork_rec(&f, (__u32)tagged, 1, closed, "late");
	feed(&f, sizeof(f));
	CU_ASSERT_EQUAL(bpf_loader_lookup_proc(bpf, tagged, &kp), 0);
	CU_ASSERT_EQUAL(kp.job, other);
	/* a fork, exec or OOM record of its own closed job: untagged */
	fork_rec(&f, (__u32)tagged, 1, other, "late");
	feed(&f, sizeof(f));
	CU_ASSERT_EQUAL(bpf_loader_lookup_proc(bpf, tagged, &kp), -ENOENT);
	CU_ASSERT_EQUAL(bpf_loader_tag_pid(bpf, tagged, other), 0);
	size = exec_rec(x, (__u32)tagged, 1, other, "/bin/true", "true", "true\0", 5, "true");
	feed(x, size);
	CU_ASSERT_EQUAL(bpf_loader_lookup_proc(bpf, tagged, &kp), -ENOENT);
	CU_ASSERT_EQUAL(bpf_loader_tag_pid(bpf, tagged, other), 0);
	hdr(&o.hdr, TRACER_EV_OOM, (__u32)tagged, other);
	feed(&o, sizeof(o));
	CU_ASSERT_EQUAL(bpf_loader_lookup_proc(bpf, tagged, &kp), -ENOENT);
	CU_ASSERT_EQUAL(js.stats.late_events, 9);
	CU_ASSERT_EQUAL(js.stats.events, 9);
	CU_ASSERT_EQUAL(job->procs_total, 1);
	reap(tagged);
	free(x);
	job_down();
}

/* Shorter than the type's fixed part: counted as an event, ignored. */
static void test_truncated_records(void)
{
	struct tracer_fork_event f;
	struct tracer_exit_event e;
	struct tracer_exec_event *x = new_exec();
	struct job_proc *p;

	JOB_UP();
	/* shorter than the header: not even counted */
	fork_rec(&f, FAKE_PID, (__u32)root_pid, job->key, "short");
	CU_ASSERT_EQUAL(feed(&f, sizeof(struct tracer_event_hdr) - 1), 0);
	CU_ASSERT_EQUAL(js.stats.events, 0);
	CU_ASSERT_EQUAL(feed(&f, sizeof(struct tracer_event_hdr)), 0);
	CU_ASSERT_EQUAL(js.stats.events, 1);
	CU_ASSERT_EQUAL(feed(&f, sizeof(f) - 1), 0);
	CU_ASSERT_EQUAL(js.stats.events, 2);
	CU_ASSERT_PTR_NULL(job_proc_find(job, FAKE_PID));
	CU_ASSERT_EQUAL(job->procs_total, 1);

	/* a process to exec and exit, then records too short for that */
	CU_ASSERT_EQUAL(feed(&f, sizeof(f)), 0);
	p = job_proc_find(job, FAKE_PID);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	char *tool_before = p->tool ? strdup(p->tool) : NULL;
	exec_rec(x, FAKE_PID, (__u32)root_pid, job->key, "/usr/bin/xz", "xz", "xz\0", 3, "xz");
	CU_ASSERT_EQUAL(feed(x, offsetof(struct tracer_exec_event, argv) - 1), 0);
	CU_ASSERT_PTR_EQUAL(job_proc_find(job, FAKE_PID), p);
	CU_ASSERT(p->exe == NULL || strcmp(p->exe, "/usr/bin/xz") != 0);
	if (tool_before && p->tool)
		CU_ASSERT_STRING_EQUAL(p->tool, tool_before);
	CU_ASSERT_STRING_EQUAL(p->comm, "short");
	free(tool_before);
	exit_rec(&e, FAKE_PID, (__u32)root_pid, job->key, 0, "short");
	e.totals.cpu_ns = 1000;
	CU_ASSERT_EQUAL(feed(&e, sizeof(e) - 1), 0);
	CU_ASSERT_PTR_EQUAL(job_proc_find(job, FAKE_PID), p);
	CU_ASSERT_EQUAL(job->procs_exited, 0);
	CU_ASSERT_EQUAL(job->totals.cpu_ns, 0);
	CU_ASSERT_EQUAL(js.stats.events, 5);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 0);
	CU_ASSERT_EQUAL(js.stats.late_events, 0);

	/* exactly the fixed part of an exec: no argv at all */
	exec_rec(x, FAKE_PID, (__u32)root_pid, job->key, "/usr/bin/xz", "xz", "xz\0-9\0", 6, "xz");
	CU_ASSERT_EQUAL(feed(x, offsetof(struct tracer_exec_event, argv)), 0);
	CU_ASSERT_STRING_EQUAL(p->exe, "/usr/bin/xz");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->cmdline);
	CU_ASSERT_STRING_EQUAL(p->cmdline, "");
	free(x);
	job_down();
}

/* Lengths in an exec record that claim more than it holds: only what
 * arrived (argv) or what fits (path, filename) is read. */
static void test_exec_lengths_beyond_record(void)
{
	struct tracer_exec_event *x = new_exec();
	struct job_proc *p;
	char longpath[TRACER_PATH_MAX];
	size_t fixed = offsetof(struct tracer_exec_event, argv);

	JOB_UP();
	/* argv_len says 4000 bytes, 8 arrived */
	exec_rec(x, FAKE_PID, (__u32)root_pid, job->key, "/usr/bin/sort", "sort",
		 "sort\0-n\0-r\0", 11, "sort");
	x->argv_len = 4000;
	CU_ASSERT_EQUAL(feed(x, fixed + 8), 0);
	p = job_proc_find(job, FAKE_PID);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_STRING_EQUAL(p->exe, "/usr/bin/sort");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->cmdline);
	CU_ASSERT_STRING_EQUAL(p->cmdline, "sort -n");
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 1);

	/* argv_len beyond even the largest record the kernel sends */
	exec_rec(x, FAKE_PID, (__u32)root_pid, job->key, "/usr/bin/sort", "sort",
		 "sort\0-u\0", 8, "sort");
	x->argv_len = 0xffffffffu;
	CU_ASSERT_EQUAL(feed(x, fixed + 8), 0);
	CU_ASSERT_STRING_EQUAL(p->cmdline, "sort -u");
	/* a full-size record, its argv field full (no final NUL), with
	 * argv_len over TRACER_ARGV_MAX: read up to the field's end */
	memset(x->argv + 8, 'x', TRACER_ARGV_MAX - 8);
	x->argv_len = TRACER_ARGV_MAX + 100;
	CU_ASSERT_EQUAL(feed(x, sizeof(*x)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->cmdline);
	CU_ASSERT_EQUAL(strncmp(p->cmdline, "sort -u xxxx", 12), 0);
	CU_ASSERT(strlen(p->cmdline) <= TRACER_ARGV_MAX + 3); /* may end in "..." */

	/* path_len over TRACER_PATH_MAX (no NUL in the path): cut to the
	 * field, never past it.  (The tool rules keep paths in 1024 bytes
	 * with their NUL: the job's exe may lose the field's last byte.) */
	memset(longpath, 'p', sizeof(longpath));
	longpath[0] = '/';
	exec_rec(x, FAKE_PID, (__u32)root_pid, job->key, "/x", "x", "x\0", 2, "x");
	memcpy(x->path, longpath, sizeof(longpath));
	x->path_len = 5000;
	CU_ASSERT_EQUAL(feed(x, fixed + 2), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->exe);
	CU_ASSERT(strlen(p->exe) >= TRACER_PATH_MAX - 1 && strlen(p->exe) <= TRACER_PATH_MAX);
	CU_ASSERT_EQUAL(memcmp(p->exe, longpath, strlen(p->exe)), 0);
	/* the same for the filename standing in for the path */
	exec_rec(x, FAKE_PID, (__u32)root_pid, job->key, "/x", "x", "x\0", 2, "x");
	memcpy(x->filename, longpath, sizeof(longpath));
	x->filename_len = 0x80000000u;
	x->flags = TRACER_F_PATH_FROM_FILENAME;
	CU_ASSERT_EQUAL(feed(x, fixed + 2), 0);
	CU_ASSERT(strlen(p->exe) >= TRACER_PATH_MAX - 1 && strlen(p->exe) <= TRACER_PATH_MAX);
	CU_ASSERT_EQUAL(memcmp(p->exe, longpath, strlen(p->exe)), 0);
	CU_ASSERT_EQUAL(js.stats.events, 5);
	CU_ASSERT_EQUAL(job->nlive, 2);
	free(x);
	job_down();
}

static void test_unknown_type_and_empty(void)
{
	struct tracer_fork_event f;

	JOB_UP();
	/* a type this build does not know, of an open job: counted, ignored */
	fork_rec(&f, FAKE_PID, (__u32)root_pid, job->key, "odd");
	f.hdr.type = 99;
	CU_ASSERT_EQUAL(feed(&f, sizeof(f)), 0);
	f.hdr.type = 0;
	CU_ASSERT_EQUAL(feed(&f, sizeof(f)), 0);
	CU_ASSERT_EQUAL(js.stats.events, 2);
	CU_ASSERT_EQUAL(js.stats.late_events, 0);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 0);
	CU_ASSERT_PTR_NULL(job_proc_find(job, FAKE_PID));
	CU_ASSERT_EQUAL(job->procs_total, 1);
	CU_ASSERT_EQUAL(job->nlive, 1);
	/* an empty record: nothing read, nothing counted */
	CU_ASSERT_EQUAL(feed(&f, 0), 0);
	CU_ASSERT_EQUAL(js.stats.events, 2);
	job_down();
}

/* Records come in runs per job: two open jobs, interleaved records,
 * each lands in its own job. */
static void test_two_jobs(void)
{
	struct tracer_identity id;
	struct tracer_fork_event f;
	struct ucred peer = {.uid = 0, .gid = 0};
	struct djob *dj2;
	pid_t second;
	char *reply;

	JOB_UP();
	second = idle_child();
	CU_ASSERT_FATAL(second > 0);
	identity_init(&id);
	snprintf(id.scheduler, sizeof(id.scheduler), "local");
	peer.pid = second;
	reply = jobs_register(&js, &id, &peer);
	CU_ASSERT_PTR_NOT_NULL(reply);
	free(reply);
	CU_ASSERT_EQUAL_FATAL(js.nopen, 2);
	dj2 = js.open[0] == dj ? js.open[1] : js.open[0];
	CU_ASSERT_NOT_EQUAL(dj2->job->key, job->key);
	for (int i = 0; i < 6; i++) {
		struct djob *to = i % 2 ? dj2 : dj;
		fork_rec(&f, FAKE_PID + (__u32)i, (__u32)(i % 2 ? second : root_pid), to->job->key,
			 "w");
		CU_ASSERT_EQUAL(feed(&f, sizeof(f)), 0);
	}
	for (int i = 0; i < 6; i++) {
		struct job *in = (i % 2 ? dj2 : dj)->job, *not_in = (i % 2 ? dj : dj2)->job;
		CU_ASSERT_PTR_NOT_NULL(job_proc_find(in, FAKE_PID + i));
		CU_ASSERT_PTR_NULL(job_proc_find(not_in, FAKE_PID + i));
	}
	CU_ASSERT_EQUAL(job->nlive, 4);
	CU_ASSERT_EQUAL(dj2->job->nlive, 4);
	CU_ASSERT_EQUAL(js.stats.events, 6);
	CU_ASSERT_EQUAL(js.stats.late_events, 0);
	job_down(); /* reaps the second child too */
}

static void rules_warn(const char *msg)
{
	fprintf(stderr, "rules: %s\n", msg);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"a registered job: its root process, no events yet", test_registered_job},
		{"fork: a live process with parent, comm, start time", test_fork},
		{"exec: path, tool, redacted argv; filename when the path is missing",
		 test_exec},
		{"exec of a process whose fork was lost: added and counted",
		 test_exec_unknown_process},
		{"exit: totals folded into the job and its tool; the job empties",
		 test_exit_totals},
		{"OOM record and OOM flag on exit", test_oom},
		{"records of jobs not open: late, untagged in the kernel when still theirs",
		 test_late_records},
		{"records shorter than their fixed part are ignored", test_truncated_records},
		{"exec lengths beyond the record are cut to what it holds",
		 test_exec_lengths_beyond_record},
		{"unknown type and empty record", test_unknown_type_and_empty},
		{"interleaved records of two jobs", test_two_jobs},
	};
	struct bpf_loader_opts bo = {.ringbuf_bytes = 1 << 16};
	char err[512];
	int rc;

	if (geteuid() != 0) {
		fprintf(stderr, "test_daemon_events: FAIL: needs root (it loads tracer's BPF "
				"programs and tags processes in the kernel)\n");
		return 1;
	}
	config_defaults(&cfg);
	if (host_info_read(&host) != 0) {
		fprintf(stderr, "test_daemon_events: FAIL: cannot read host information\n");
		return 1;
	}
	rules = rules_load(source_file("contrib/rules/tools.rules"), rules_warn);
	if (!rules) {
		fprintf(stderr, "test_daemon_events: FAIL: cannot load contrib/rules/tools.rules\n");
		return 1;
	}
	bpf = bpf_loader_open(&bo, events_handle, &js, err, sizeof(err));
	if (!bpf) {
		fprintf(stderr, "test_daemon_events: FAIL: BPF: %s\n", err);
		rules_free(rules);
		return 1;
	}
	rc = UNIT_RUN("daemon events", tests);
	job_down();
	bpf_loader_close(bpf);
	rules_free(rules);
	return rc;
}
