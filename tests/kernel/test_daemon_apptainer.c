/*
 * test_daemon_apptainer.c - Apptainer/Singularity containers in tracerd
 * (daemon/jobcontainers.c) fed synthetic records: the exec of a starter
 * starts a container whose image is the CLI's, the starter's forks are in
 * it, a host process of the job is not, a pid namespace of the container
 * is noted, exits count down, a starter exec'd by a child of the CLI
 * takes the parent's command line, and a full set counts the rest.
 * Real jobs (registered for a child) with tracer's BPF programs loaded:
 * needs root (tests/kernel/).
 */
#include "events_fixture.h"

#define STARTER "/opt/apptainer/1.3/libexec/apptainer/bin/starter"

static void exec_of(__u32 pid, __u32 ppid, const char *path, const char *argv, size_t len,
		    __u32 pidns)
{
	struct tracer_exec_event *e = new_exec();
	size_t size = exec_rec(e, pid, ppid, job->tag, path, path, argv, len, "x");

	e->pidns = pidns;
	CU_ASSERT_EQUAL(feed(e, size), 0);
	free(e);
}

static void fork_of(__u32 pid, __u32 ppid)
{
	struct tracer_fork_event f;

	fork_rec(&f, pid, ppid, job->tag, "x");
	CU_ASSERT_EQUAL(feed(&f, sizeof(f)), 0);
}

static int container_of(pid_t pid)
{
	const struct job_proc *p = job_proc_find(job, pid);

	CU_ASSERT_PTR_NOT_NULL(p);
	return p ? p->container : -100;
}

static void test_starter(void)
{
	static const char cli[] = "/bin/sh\0/opt/apptainer/1.3/bin/apptainer\0exec\0--pid\0"
				  "-B\0/data\0tool.sif\0sh\0-c\0gzip x\0";
	static const char cmd[] = "sh\0-c\0gzip x\0";
	const struct container_info *c;
	uint32_t host_ns = container_pidns(0);

	JOB_UP();
	fork_of(FAKE_PID, (__u32)root_pid);
	exec_of(FAKE_PID, (__u32)root_pid, "/bin/dash", cli, sizeof(cli), host_ns);
	CU_ASSERT_EQUAL(job->containers.n, 0);
	/* the CLI execs the starter in its own pid */
	exec_of(FAKE_PID, (__u32)root_pid, STARTER, "starter\0", 8, host_ns);
	CU_ASSERT_EQUAL_FATAL(job->containers.n, 1);
	c = &job->containers.c[0];
	CU_ASSERT_STRING_EQUAL(c->runtime, "apptainer");
	CU_ASSERT_STRING_EQUAL(c->image, "tool.sif");
	CU_ASSERT_STRING_EQUAL(c->name, "");
	CU_ASSERT_EQUAL(strlen(c->id), CONTAINER_ID_LEN);
	CU_ASSERT_STRING_EQUAL(c->cgroup, "");
	CU_ASSERT(c->by_descent && c->meta_tried && c->tag_tried);
	CU_ASSERT_EQUAL(container_of(FAKE_PID), 1);
	CU_ASSERT_EQUAL(c->nlive, 1);
	/* its child, pid 1 of a new pid namespace, and a grandchild */
	fork_of(FAKE_PID + 1, FAKE_PID);
	exec_of(FAKE_PID + 1, FAKE_PID, "/bin/sh", cmd, sizeof(cmd), 4026599999u);
	fork_of(FAKE_PID + 2, FAKE_PID + 1);
	CU_ASSERT_EQUAL(container_of(FAKE_PID + 1), 1);
	CU_ASSERT_EQUAL(container_of(FAKE_PID + 2), 1);
	CU_ASSERT_EQUAL(c->nlive, 3);
	CU_ASSERT_EQUAL(c->pidns, 4026599999u);
	CU_ASSERT_EQUAL(job_proc_find(job, FAKE_PID + 1)->pidns, 4026599999u);
	/* a process of the job on the host: in no container */
	fork_of(FAKE_PID + 5, (__u32)root_pid);
	exec_of(FAKE_PID + 5, (__u32)root_pid, "/usr/bin/md5sum", "md5sum\0", 7, host_ns);
	CU_ASSERT_EQUAL(job->containers.n, 1);
	CU_ASSERT(container_of(FAKE_PID + 5) <= 0);
	/* exits count down the container's live processes */
	{
		struct tracer_exit_event x;

		exit_rec(&x, FAKE_PID + 2, FAKE_PID + 1, job->tag, 0, "gzip");
		CU_ASSERT_EQUAL(feed(&x, sizeof(x)), 0);
	}
	CU_ASSERT_EQUAL(c->nlive, 2);
	job_down();
}

static void test_parent_cli_and_full_set(void)
{
	static const char cli[] = "singularity\0instance\0start\0db.sif\0db1\0";
	const struct container_info *c;
	uint32_t host_ns = container_pidns(0);

	JOB_UP();
	fork_of(FAKE_PID, (__u32)root_pid);
	exec_of(FAKE_PID, (__u32)root_pid, "/usr/bin/singularity", cli, sizeof(cli), host_ns);
	/* a child of the CLI runs something else, then the starter */
	fork_of(FAKE_PID + 1, FAKE_PID);
	exec_of(FAKE_PID + 1, FAKE_PID, "/usr/bin/true", "true\0", 5, host_ns);
	exec_of(FAKE_PID + 1, FAKE_PID, "/usr/libexec/singularity/bin/starter-suid",
		"Singularity instance\0", 21, host_ns);
	CU_ASSERT_EQUAL_FATAL(job->containers.n, 1);
	c = &job->containers.c[0];
	CU_ASSERT_STRING_EQUAL(c->runtime, "singularity");
	CU_ASSERT_STRING_EQUAL(c->image, "db.sif");
	CU_ASSERT_STRING_EQUAL(c->name, "db1");
	CU_ASSERT(container_of(FAKE_PID) <= 0); /* the CLI itself is not in it */
	CU_ASSERT_EQUAL(container_of(FAKE_PID + 1), 1);
	/* a starter not exec'd by a CLI: a container without an image */
	for (__u32 i = 0; i < CONTAINER_MAX; i++) {
		fork_of(FAKE_PID + 10 + i, (__u32)root_pid);
		exec_of(FAKE_PID + 10 + i, (__u32)root_pid, STARTER, "starter\0", 8, host_ns);
	}
	CU_ASSERT_EQUAL(job->containers.n, CONTAINER_MAX);
	CU_ASSERT_EQUAL(job->containers.not_listed, 1); /* 1 + CONTAINER_MAX started */
	CU_ASSERT_STRING_EQUAL(job->containers.c[1].image, "");
	CU_ASSERT_EQUAL(container_of(FAKE_PID + 10), 2);
	CU_ASSERT_EQUAL(container_of(FAKE_PID + 10 + CONTAINER_MAX - 1), -1);
	/* a fork of a process in an unlisted container: in none */
	fork_of(FAKE_PID + 30, FAKE_PID + 10 + CONTAINER_MAX - 1);
	CU_ASSERT_EQUAL(container_of(FAKE_PID + 30), 0);
	job_down();
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"a starter's exec starts a container, its descendants are in it",
		 test_starter},
		{"the parent CLI's command line; a full set of containers",
		 test_parent_cli_and_full_set},
	};

	return events_main("daemon_apptainer", tests, sizeof(tests) / sizeof(tests[0]));
}
