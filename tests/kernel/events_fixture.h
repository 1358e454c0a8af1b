/*
 * events_fixture.h - what the tests of tracerd's ring buffer records
 * share: a table of jobs with tracer's BPF programs loaded (root), one
 * real job per test registered for a child that waits to be killed, and
 * builders of synthetic records of every type in bpf/tracer.h.  Every
 * record is fed from a heap block of exactly its size, so that the
 * sanitizer build catches a read past its end.  Included by one test
 * file each (everything here is static).
 */
#ifndef TRACER_TESTS_EVENTS_FIXTURE_H
#define TRACER_TESTS_EVENTS_FIXTURE_H

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
#include "clock.h"
#include "../unit/unit.h"

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
static struct open_job *oj;
static struct job *job;

/* every child started, so that a test stopped by a fatal assertion
 * leaves none behind: reaped at the next test's start and at the end */
#define MAX_CHILDREN 8
static pid_t children[MAX_CHILDREN];

/* Kill and reap a child of ours (only those: a pid reaped once may
 * belong to another process since). */
static inline void reap(pid_t pid)
{
	for (int i = 0; pid > 0 && i < MAX_CHILDREN; i++) {
		if (children[i] == pid) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			children[i] = 0;
		}
	}
}

static inline void reap_all(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		reap(children[i]);
}

/* A child that does nothing until it is killed; -1 when none. */
static inline pid_t idle_child(void)
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

static inline void job_down(void)
{
	if (js_up)
		jobs_fini(&js);
	js_up = false;
	reap_all();
	root_pid = 0;
	oj = NULL;
	job = NULL;
}

/* A fresh table of jobs with one open local job for a new child. */
static inline int job_up(void)
{
	struct tracer_identity id;
	struct peer peer = {.trusted = true}; /* root on the host */
	cJSON *r;
	char *reply;
	const char *uid;
	const cJSON *tag;

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
	reply = jobs_register(&js, &id, false, &peer);
	r = reply ? cJSON_Parse(reply) : NULL;
	uid = r ? cJSON_GetStringValue(cJSON_GetObjectItem(r, "job")) : NULL;
	tag = r ? cJSON_GetObjectItem(r, "tag") : NULL;
	oj = uid && cJSON_IsNumber(tag) ? jobs_find_tag(&js, (uint64_t)tag->valuedouble) : NULL;
	if (oj && strcmp(oj->job->uid, uid) != 0)
		oj = NULL;
	if (!oj)
		fprintf(stderr, "\n  jobs_register: %s\n", reply ? reply : "(no reply)");
	cJSON_Delete(r);
	free(reply);
	job = oj ? oj->job : NULL;
	return oj ? 0 : -1;
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
static inline int feed(const void *rec, size_t size)
{
	void *copy = malloc(size ? size : 1);
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, rec, size);
	rc = events_handle(&js, copy, size);
	free(copy);
	return rc;
}

static inline void hdr(struct tracer_event_hdr *h, __u32 type, __u32 pid, __u64 key)
{
	h->type = type;
	h->pid = pid;
	h->job = key;
	h->ts_ns = clock_mono_ns();
}

/* comm as the kernel fills it; a name of 16 bytes or more leaves no NUL */
static inline void set_comm(char *dst, const char *comm)
{
	size_t n = strlen(comm);

	memcpy(dst, comm, n < TRACER_COMM_LEN ? n : TRACER_COMM_LEN);
}

static inline void fork_rec(struct tracer_fork_event *e, __u32 pid, __u32 ppid, __u64 key,
		     const char *comm)
{
	memset(e, 0, sizeof(*e));
	hdr(&e->hdr, TRACER_EV_FORK, pid, key);
	e->ppid = ppid;
	e->start_ns = clock_mono_ns();
	set_comm(e->comm, comm);
}

/* An exec record with path, filename and argv (NUL-separated, argv_len
 * bytes); returns the size of the record as the kernel sends it. */
static inline size_t exec_rec(struct tracer_exec_event *e, __u32 pid, __u32 ppid, __u64 key,
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
	e->start_ns = clock_mono_ns();
	set_comm(e->comm, comm);
	return offsetof(struct tracer_exec_event, argv) + argv_len;
}

static inline void exit_rec(struct tracer_exit_event *e, __u32 pid, __u32 ppid, __u64 key,
		     int status, const char *comm)
{
	memset(e, 0, sizeof(*e));
	hdr(&e->hdr, TRACER_EV_EXIT, pid, key);
	e->ppid = ppid;
	e->exit_status = status;
	e->nr_threads = 1;
	e->start_ns = clock_mono_ns() - 1000000000ull;
	set_comm(e->comm, comm);
}

static inline struct tracer_exec_event *new_exec(void)
{
	struct tracer_exec_event *e = calloc(1, sizeof(*e));

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	return e;
}

static inline const struct tool_agg *find_agg(const char *tool)
{
	for (const struct tool_agg *t = job->tools; t; t = t->next)
		if (!strcmp(t->tool, tool))
			return t;
	return NULL;
}

static inline const struct job_proc *find_kept(pid_t pid)
{
	for (size_t i = 0; i < job->nkept; i++)
		if (job->kept[i]->pid == pid)
			return job->kept[i];
	return NULL;
}

static inline void rules_warn(const char *msg)
{
	fprintf(stderr, "rules: %s\n", msg);
}

/* Load everything, run the suite, tear down: the exit status. */
static inline int events_main(const char *suite, const struct unit_test *tests, size_t n)
{
	struct bpf_loader_opts bo = {.ringbuf_bytes = 1 << 16};
	char err[512];
	int rc;

	if (geteuid() != 0) {
		fprintf(stderr, "%s: FAIL: needs root (it loads tracer's BPF "
				"programs and tags processes in the kernel)\n", suite);
		return 1;
	}
	config_defaults(&cfg);
	if (host_info_read(&host) != 0) {
		fprintf(stderr, "%s: FAIL: cannot read host information\n", suite);
		return 1;
	}
	rules = rules_load(source_file("contrib/rules/tools.rules"), rules_warn);
	if (!rules) {
		fprintf(stderr, "%s: FAIL: cannot load contrib/rules/tools.rules\n", suite);
		return 1;
	}
	bpf = bpf_loader_open(&bo, events_handle, &js, err, sizeof(err));
	if (!bpf) {
		fprintf(stderr, "%s: FAIL: BPF: %s\n", suite, err);
		rules_free(rules);
		return 1;
	}
	rc = unit_run(suite, tests, n);
	job_down();
	bpf_loader_close(bpf);
	rules_free(rules);
	return rc;
}

#endif
