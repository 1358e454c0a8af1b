/*
 * test_daemon_events.c - tracerd's handling of ring buffer records
 * (daemon/events.c) fed synthetic records: fork, exec (path, filename,
 * argv), exit with totals, OOM, and records of two jobs interleaved.
 * Effects are checked on the job model (lib/job_record.h) and on the counters
 * (struct jobs_stats, daemon/jobs.h).  Malformed and late records:
 * test_daemon_records.c.
 *
 * The jobs are real: registered through jobs_register() for a child
 * process that waits to be killed, with tracer's BPF programs loaded.
 * So this test needs root (tests/kernel/); without it, it fails and says so.
 */
#include "events_fixture.h"

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
	CU_ASSERT_NOT_EQUAL(job->tag, TRACER_JOB_HOST);
	CU_ASSERT_EQUAL(js.stats.registered, 1);
	CU_ASSERT_EQUAL(js.stats.events, 0);
	job_down();
}

static void test_fork(void)
{
	struct tracer_fork_event e;
	struct job_proc *p;

	JOB_UP();
	oj->empty_since_ns = 12345; /* a fork makes the job busy again */
	fork_rec(&e, FAKE_PID, (__u32)root_pid, job->tag, "worker");
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
	CU_ASSERT_EQUAL(oj->empty_since_ns, 0);
	CU_ASSERT_EQUAL(js.stats.events, 1);
	CU_ASSERT_EQUAL(js.stats.late_events, 0);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 0);

	/* a 16-byte comm without its NUL stays within 15 characters */
	fork_rec(&e, FAKE_PID + 1, (__u32)root_pid, job->tag, "0123456789abcdefXYZ");
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
	fork_rec(&f, FAKE_PID, (__u32)root_pid, job->tag, "bash");
	feed(&f, sizeof(f));
	size = exec_rec(e, FAKE_PID, (__u32)root_pid, job->tag, "/usr/bin/samtools",
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
	size = exec_rec(e, FAKE_PID, (__u32)root_pid, job->tag, "garbage-not-used",
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
	oj->empty_since_ns = 777;
	size = exec_rec(e, FAKE_PID + 7, (__u32)root_pid, job->tag, "/usr/bin/gzip", "gzip",
			"gzip\0-d\0", 8, "gzip");
	CU_ASSERT_EQUAL(feed(e, size), 0);
	p = job_proc_find(job, FAKE_PID + 7);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(p->ppid, root_pid);
	CU_ASSERT_EQUAL(p->start_ns, jobs_real_ns(&js, e->start_ns));
	CU_ASSERT_STRING_EQUAL(p->exe, "/usr/bin/gzip");
	CU_ASSERT_STRING_EQUAL(p->cmdline, "gzip -d");
	CU_ASSERT_EQUAL(job->nlive, 2);
	CU_ASSERT_EQUAL(oj->empty_since_ns, 0);
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
	fork_rec(&f, FAKE_PID, (__u32)root_pid, job->tag, "worker");
	feed(&f, sizeof(f));
	snprintf(tool, sizeof(tool), "%s", job_proc_find(job, FAKE_PID)->tool);
	exit_rec(&e, FAKE_PID, (__u32)root_pid, job->tag, 3 << 8, "worker");
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
	CU_ASSERT_EQUAL(oj->empty_since_ns, 0);
	CU_ASSERT_EQUAL(js.stats.events, 2);

	/* the root's exit empties the job: the grace period starts */
	exit_rec(&e, (__u32)root_pid, 1, job->tag, 0, "events-test");
	CU_ASSERT_EQUAL(feed(&e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(job->nlive, 0);
	CU_ASSERT_EQUAL(job->procs_exited, 2);
	CU_ASSERT_NOT_EQUAL(oj->empty_since_ns, 0);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 0);

	/* an exit of a process never seen: added, counted, folded */
	exit_rec(&e, FAKE_PID + 9, (__u32)root_pid, job->tag, 0, "ghost");
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
	fork_rec(&f, FAKE_PID, (__u32)root_pid, job->tag, "touchmem");
	feed(&f, sizeof(f));
	/* the OOM killer chose it: marked while alive */
	hdr(&o.hdr, TRACER_EV_OOM, FAKE_PID, job->tag);
	CU_ASSERT_EQUAL(feed(&o, sizeof(o)), 0);
	p = job_proc_find(job, FAKE_PID);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT(p->flags & PROC_F_OOM_KILLED);
	/* an OOM record of a process the job does not have adds nothing */
	hdr(&o.hdr, TRACER_EV_OOM, FAKE_PID + 1, job->tag);
	CU_ASSERT_EQUAL(feed(&o, sizeof(o)), 0);
	CU_ASSERT_PTR_NULL(job_proc_find(job, FAKE_PID + 1));
	CU_ASSERT_EQUAL(job->procs_total, 2);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 0);
	/* its exit (SIGKILL) counts one OOM kill, and it is kept in the tree */
	exit_rec(&e, FAKE_PID, (__u32)root_pid, job->tag, SIGKILL, "touchmem");
	CU_ASSERT_EQUAL(feed(&e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(job->oom_kills, 1);
	kept = find_kept(FAKE_PID);
	CU_ASSERT_PTR_NOT_NULL_FATAL(kept);
	CU_ASSERT(kept->flags & PROC_F_OOM_KILLED);
	CU_ASSERT_EQUAL(kept->exit_status, SIGKILL);

	/* the flag in the exit record alone is enough */
	fork_rec(&f, FAKE_PID + 2, (__u32)root_pid, job->tag, "touchmem");
	feed(&f, sizeof(f));
	exit_rec(&e, FAKE_PID + 2, (__u32)root_pid, job->tag, SIGKILL, "touchmem");
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

/* Records come in runs per job: two open jobs, interleaved records,
 * each lands in its own job. */
static void test_two_jobs(void)
{
	struct tracer_identity id;
	struct tracer_fork_event f;
	struct peer peer = {.uid = 0, .gid = 0, .trusted = true};
	struct open_job *dj2;
	pid_t second;
	char *reply;

	JOB_UP();
	second = idle_child();
	CU_ASSERT_FATAL(second > 0);
	identity_init(&id);
	snprintf(id.scheduler, sizeof(id.scheduler), "local");
	peer.pid = second;
	reply = jobs_register(&js, &id, false, &peer);
	CU_ASSERT_PTR_NOT_NULL(reply);
	free(reply);
	CU_ASSERT_EQUAL_FATAL(js.nopen, 2);
	dj2 = js.open[0] == oj ? js.open[1] : js.open[0];
	CU_ASSERT_NOT_EQUAL(dj2->job->tag, job->tag);
	for (int i = 0; i < 6; i++) {
		struct open_job *to = i % 2 ? dj2 : oj;
		fork_rec(&f, FAKE_PID + (__u32)i, (__u32)(i % 2 ? second : root_pid), to->job->tag,
			 "w");
		CU_ASSERT_EQUAL(feed(&f, sizeof(f)), 0);
	}
	for (int i = 0; i < 6; i++) {
		struct job *in = (i % 2 ? dj2 : oj)->job, *not_in = (i % 2 ? oj : dj2)->job;
		CU_ASSERT_PTR_NOT_NULL(job_proc_find(in, FAKE_PID + i));
		CU_ASSERT_PTR_NULL(job_proc_find(not_in, FAKE_PID + i));
	}
	CU_ASSERT_EQUAL(job->nlive, 4);
	CU_ASSERT_EQUAL(dj2->job->nlive, 4);
	CU_ASSERT_EQUAL(js.stats.events, 6);
	CU_ASSERT_EQUAL(js.stats.late_events, 0);
	job_down(); /* reaps the second child too */
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
		{"interleaved records of two jobs", test_two_jobs},
	};

	return events_main("daemon events", tests, sizeof(tests) / sizeof(tests[0]));
}
