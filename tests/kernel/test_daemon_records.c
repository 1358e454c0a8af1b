/*
 * test_daemon_records.c - tracerd's handling of ring buffer records that
 * are not what they should be (daemon/events.c): records of jobs that are
 * not open (late; untagged in the kernel when still theirs), records
 * shorter than their type's fixed part, exec records whose lengths claim
 * more than the record holds, an unknown type and an empty record.
 * Nothing is read past a record, and every bad one is counted.
 * Needs root, as test_daemon_events.c (events_fixture.h).
 */
#include "events_fixture.h"

/* ---- the tests ---- */

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
	CU_ASSERT_PTR_NULL(jobs_find_tag(&js, closed));
	CU_ASSERT_PTR_NULL(jobs_find_tag(&js, other));
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
	/* shorter than the header: not an event, but a bad record */
	fork_rec(&f, FAKE_PID, (__u32)root_pid, job->tag, "short");
	CU_ASSERT_EQUAL(feed(&f, sizeof(struct tracer_event_hdr) - 1), 0);
	CU_ASSERT_EQUAL(js.stats.events, 0);
	CU_ASSERT_EQUAL(js.stats.bad_records, 1);
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
	exec_rec(x, FAKE_PID, (__u32)root_pid, job->tag, "/usr/bin/xz", "xz", "xz\0", 3, "xz");
	CU_ASSERT_EQUAL(feed(x, offsetof(struct tracer_exec_event, argv) - 1), 0);
	CU_ASSERT_PTR_EQUAL(job_proc_find(job, FAKE_PID), p);
	CU_ASSERT(p->exe == NULL || strcmp(p->exe, "/usr/bin/xz") != 0);
	if (tool_before && p->tool)
		CU_ASSERT_STRING_EQUAL(p->tool, tool_before);
	CU_ASSERT_STRING_EQUAL(p->comm, "short");
	free(tool_before);
	exit_rec(&e, FAKE_PID, (__u32)root_pid, job->tag, 0, "short");
	e.totals.cpu_ns = 1000;
	CU_ASSERT_EQUAL(feed(&e, sizeof(e) - 1), 0);
	CU_ASSERT_PTR_EQUAL(job_proc_find(job, FAKE_PID), p);
	CU_ASSERT_EQUAL(job->procs_exited, 0);
	CU_ASSERT_EQUAL(job->totals.cpu_ns, 0);
	CU_ASSERT_EQUAL(js.stats.events, 5);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 0);
	CU_ASSERT_EQUAL(js.stats.late_events, 0);
	/* every record cut short was counted: nothing is lost silently */
	CU_ASSERT_EQUAL(js.stats.bad_records, 5);

	/* exactly the fixed part of an exec: no argv at all */
	exec_rec(x, FAKE_PID, (__u32)root_pid, job->tag, "/usr/bin/xz", "xz", "xz\0-9\0", 6, "xz");
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
	exec_rec(x, FAKE_PID, (__u32)root_pid, job->tag, "/usr/bin/sort", "sort",
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
	exec_rec(x, FAKE_PID, (__u32)root_pid, job->tag, "/usr/bin/sort", "sort",
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
	exec_rec(x, FAKE_PID, (__u32)root_pid, job->tag, "/x", "x", "x\0", 2, "x");
	memcpy(x->path, longpath, sizeof(longpath));
	x->path_len = 5000;
	CU_ASSERT_EQUAL(feed(x, fixed + 2), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->exe);
	CU_ASSERT(strlen(p->exe) >= TRACER_PATH_MAX - 1 && strlen(p->exe) <= TRACER_PATH_MAX);
	CU_ASSERT_EQUAL(memcmp(p->exe, longpath, strlen(p->exe)), 0);
	/* the same for the filename standing in for the path */
	exec_rec(x, FAKE_PID, (__u32)root_pid, job->tag, "/x", "x", "x\0", 2, "x");
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
	fork_rec(&f, FAKE_PID, (__u32)root_pid, job->tag, "odd");
	f.hdr.type = 99;
	CU_ASSERT_EQUAL(feed(&f, sizeof(f)), 0);
	f.hdr.type = 0;
	CU_ASSERT_EQUAL(feed(&f, sizeof(f)), 0);
	CU_ASSERT_EQUAL(js.stats.events, 2);
	CU_ASSERT_EQUAL(js.stats.bad_records, 2);
	CU_ASSERT_EQUAL(js.stats.late_events, 0);
	CU_ASSERT_EQUAL(js.stats.unknown_procs, 0);
	CU_ASSERT_PTR_NULL(job_proc_find(job, FAKE_PID));
	CU_ASSERT_EQUAL(job->procs_total, 1);
	CU_ASSERT_EQUAL(job->nlive, 1);
	/* an empty record: nothing read, counted as bad */
	CU_ASSERT_EQUAL(feed(&f, 0), 0);
	CU_ASSERT_EQUAL(js.stats.bad_records, 3);
	CU_ASSERT_EQUAL(js.stats.events, 2);
	job_down();
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"records of jobs not open: late, untagged in the kernel when still theirs",
		 test_late_records},
		{"records shorter than their fixed part are ignored, and counted",
		 test_truncated_records},
		{"exec lengths beyond the record are cut to what it holds",
		 test_exec_lengths_beyond_record},
		{"unknown type and empty record", test_unknown_type_and_empty},
	};

	return events_main("daemon records", tests, sizeof(tests) / sizeof(tests[0]));
}
