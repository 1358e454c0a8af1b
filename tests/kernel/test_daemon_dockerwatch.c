/*
 * test_daemon_dockerwatch.c - the docker watch thread of tracerd
 * (daemon/dockerwatch.c) against a fake dockerd on a Unix socket of the
 * test: a named container found once running, one container that two
 * jobs' commands may claim is ambiguous (none joins), two containers for
 * one command are ambiguous, create and start of one job both find it,
 * no dockerd is "failed" and an empty list "unmatched" once the client
 * exited, the per-job cap, and a hanging dockerd never holds the loop's
 * calls.  Needs no root; lives here because it links tracerd's objects.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "dockerwatch.h"
#include "../unit/unit.h"

#define ID(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
	      c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c

static char sock_path[108], missing_path[108];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char body[4096];
static bool hang;
static unsigned served; /* lists answered so far */

/* The fake dockerd: each request answered with body (or, hanging, never). */
static void *server(void *arg)
{
	int ls = *(int *)arg;

	for (;;) {
		char req[4096], resp[8192];
		size_t got = 0;
		bool h;
		int c = accept(ls, NULL, NULL);

		if (c < 0)
			return NULL;
		while (got < sizeof(req) - 1) {
			ssize_t n = read(c, req + got, sizeof(req) - 1 - got);

			if (n <= 0)
				break;
			got += (size_t)n;
			req[got] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		pthread_mutex_lock(&lock);
		h = hang;
		snprintf(resp, sizeof(resp),
			 "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
			 "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", strlen(body), body);
		pthread_mutex_unlock(&lock);
		if (h) {
			char b;

			/* until the client gives up (its 1 s timeout) */
			while (read(c, &b, 1) > 0)
				;
		} else if (write(c, resp, strlen(resp)) < 0) {
			perror("write");
		}
		close(c);
		pthread_mutex_lock(&lock);
		served++;
		pthread_mutex_unlock(&lock);
	}
}

static void set_list(const char *json, bool hanging)
{
	pthread_mutex_lock(&lock);
	snprintf(body, sizeof(body), "%s", json);
	hang = hanging;
	pthread_mutex_unlock(&lock);
}

static void entry(char *out, size_t len, const char *id, const char *name, const char *state)
{
	snprintf(out, len,
		 "{\"Id\":\"%s\",\"Names\":[\"/%s\"],\"Image\":\"img\",\"ImageID\":\"sha256:ab\","
		 "\"Command\":\"sh -c work\",\"Created\":%lld,\"State\":\"%s\"}",
		 id, name, (long long)(clock_real_ns() / NS_PER_SEC), state);
}

static void cmd_of(struct docker_cmd *c, enum docker_verb verb, const char *name)
{
	memset(c, 0, sizeof(*c));
	c->verb = verb;
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->image, sizeof(c->image), "img");
	snprintf(c->command, sizeof(c->command), "sh -c work");
	c->command_known = true;
}

/* the results of n watches, waited for up to secs */
static size_t results(struct dockerwatch_result *r, size_t n, double secs)
{
	uint64_t end = clock_mono_ns() + (uint64_t)(secs * 1e9);
	size_t got = 0;

	while (got < n && clock_mono_ns() < end) {
		got += dockerwatch_take(r + got, n - got);
		if (got < n)
			usleep(20000);
	}
	return got;
}

static unsigned served_now(void)
{
	unsigned n;

	pthread_mutex_lock(&lock);
	n = served;
	pthread_mutex_unlock(&lock);
	return n;
}

/*
 * Up to 5 s for two more lists answered since n0: the watch thread's
 * rounds are one after the other, so the first of them has stored its
 * outcome by the time the second asks.  What is (not) taken then is what
 * a whole round decided on the list set before n0 was read.
 */
static bool one_round_since(unsigned n0)
{
	uint64_t end = clock_mono_ns() + 5 * NS_PER_SEC;

	while (served_now() < n0 + 2 && clock_mono_ns() < end)
		usleep(5000);
	return served_now() >= n0 + 2;
}

static uint64_t started(void)
{
	return clock_real_ns() - NS_PER_SEC; /* a client started a second ago */
}

static void test_named_found(void)
{
	struct dockerwatch_result r[1];
	struct docker_cmd c;
	char e[512], list[600];
	unsigned n0;

	entry(e, sizeof(e), ID("1"), "job1", "created");
	snprintf(list, sizeof(list), "[%s]", e);
	set_list(list, false);
	cmd_of(&c, DOCKER_RUN, "job1");
	n0 = served_now();
	CU_ASSERT_TRUE(dockerwatch_add(1, getpid(), started(), &c, sock_path));
	/* created, not running: no answer after a round on that list */
	CU_ASSERT_TRUE(one_round_since(n0));
	CU_ASSERT_EQUAL(dockerwatch_take(r, 1), 0);
	entry(e, sizeof(e), ID("1"), "job1", "running");
	snprintf(list, sizeof(list), "[%s]", e);
	set_list(list, false);
	CU_ASSERT_EQUAL_FATAL(results(r, 1, 5), 1);
	CU_ASSERT_EQUAL(r[0].outcome, DOCKERWATCH_FOUND);
	CU_ASSERT_EQUAL(r[0].job_tag, 1);
	CU_ASSERT_STRING_EQUAL(r[0].entry.id, ID("1"));
	CU_ASSERT_STRING_EQUAL(r[0].entry.names, "/job1");
}

static void test_two_jobs_ambiguous(void)
{
	struct dockerwatch_result r[2];
	struct docker_cmd c;
	char e[512], list[600];

	entry(e, sizeof(e), ID("2"), "anon", "running");
	snprintf(list, sizeof(list), "[%s]", e);
	set_list(list, false);
	cmd_of(&c, DOCKER_RUN, "");
	CU_ASSERT_TRUE(dockerwatch_add(2, getpid(), started(), &c, sock_path));
	CU_ASSERT_TRUE(dockerwatch_add(3, getpid(), started(), &c, sock_path));
	CU_ASSERT_EQUAL_FATAL(results(r, 2, 5), 2);
	CU_ASSERT_EQUAL(r[0].outcome, DOCKERWATCH_AMBIGUOUS);
	CU_ASSERT_EQUAL(r[1].outcome, DOCKERWATCH_AMBIGUOUS);
}

static void test_two_containers_ambiguous(void)
{
	struct dockerwatch_result r[1];
	struct docker_cmd c;
	char e1[512], e2[512], list[1100];

	entry(e1, sizeof(e1), ID("3"), "x3", "running");
	entry(e2, sizeof(e2), ID("4"), "x4", "running");
	snprintf(list, sizeof(list), "[%s,%s]", e1, e2);
	set_list(list, false);
	cmd_of(&c, DOCKER_RUN, "");
	CU_ASSERT_TRUE(dockerwatch_add(4, getpid(), started(), &c, sock_path));
	CU_ASSERT_EQUAL_FATAL(results(r, 1, 5), 1);
	CU_ASSERT_EQUAL(r[0].outcome, DOCKERWATCH_AMBIGUOUS);
}

static void test_create_start_one_job(void)
{
	struct dockerwatch_result r[2];
	struct docker_cmd c, s;
	char e[512], list[600];
	unsigned n0;

	entry(e, sizeof(e), ID("5"), "cs", "running");
	snprintf(list, sizeof(list), "[%s]", e);
	set_list(list, false);
	cmd_of(&c, DOCKER_CREATE, "cs");
	cmd_of(&s, DOCKER_START, "cs");
	CU_ASSERT_TRUE(dockerwatch_add(5, getpid(), started(), &c, sock_path));
	CU_ASSERT_TRUE(dockerwatch_add(5, getpid(), started(), &s, sock_path));
	CU_ASSERT_EQUAL_FATAL(results(r, 2, 5), 2);
	CU_ASSERT_EQUAL(r[0].outcome, DOCKERWATCH_FOUND);
	CU_ASSERT_EQUAL(r[1].outcome, DOCKERWATCH_FOUND);
	/* claimed by job 5: another job's start of it is not given it (a
	 * round on the list that has it, and nothing taken) */
	n0 = served_now();
	CU_ASSERT_TRUE(dockerwatch_add(6, getpid(), started(), &s, sock_path));
	CU_ASSERT_TRUE(one_round_since(n0));
	CU_ASSERT_EQUAL(dockerwatch_take(r, 1), 0);
	{
		struct container_joins cj = {0};

		dockerwatch_forget(6, &cj);
		CU_ASSERT_EQUAL(cj.unmatched, 1);
		CU_ASSERT_EQUAL(cj.failed, 0);
	}
}

/* a client that exits at once: the watch gives up 2 s later */
static pid_t short_client(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static void test_gone_client(void)
{
	struct dockerwatch_result r[2];
	struct docker_cmd c;

	set_list("[]", false);
	cmd_of(&c, DOCKER_RUN, "nobody");
	CU_ASSERT_TRUE(dockerwatch_add(7, short_client(), started(), &c, sock_path));
	CU_ASSERT_TRUE(dockerwatch_add(8, short_client(), started(), &c, missing_path));
	CU_ASSERT_EQUAL_FATAL(results(r, 2, 8), 2);
	for (int i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(r[i].outcome,
				r[i].job_tag == 7 ? DOCKERWATCH_UNMATCHED : DOCKERWATCH_FAILED);
}

static void test_cap_and_hang(void)
{
	struct dockerwatch_result r[DOCKERWATCH_MAX];
	struct container_joins cj = {0};
	struct docker_cmd c;
	uint64_t t0, q0, took, worst = 0;

	set_list("[]", true);
	cmd_of(&c, DOCKER_RUN, "never");
	for (int i = 0; i < DOCKERWATCH_PER_JOB; i++)
		CU_ASSERT_TRUE(dockerwatch_add(9, getpid(), started(), &c, sock_path));
	CU_ASSERT_FALSE(dockerwatch_add(9, getpid(), started(), &c, sock_path));
	CU_ASSERT_TRUE(dockerwatch_add(10, getpid(), started(), &c, sock_path));
	/* the thread waits on the hanging dockerd: the loop's calls do not
	 * (a call's time, less what this thread waited for a CPU meanwhile:
	 * a loaded machine may keep it off the CPU, which is not a wait) */
	for (int i = 0; i < 50; i++) {
		q0 = unit_queued_ns();
		t0 = clock_mono_ns();
		dockerwatch_take(r, DOCKERWATCH_MAX);
		took = clock_mono_ns() - t0;
		q0 = unit_queued_ns() - q0;
		took = took > q0 ? took - q0 : 0;
		if (took > worst)
			worst = took;
		usleep(40000);
	}
	CU_ASSERT(worst < 50 * 1000000ull);
	if (worst >= 50 * 1000000ull)
		fprintf(stderr, "\n  dockerwatch_take took %llu ms\n",
			(unsigned long long)(worst / 1000000));
	dockerwatch_forget(9, &cj);
	dockerwatch_forget(10, &cj);
	CU_ASSERT_EQUAL(cj.failed, DOCKERWATCH_PER_JOB + 1);
	set_list("[]", false);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"a named container, once running", test_named_found},
		{"one container, two jobs' commands: ambiguous", test_two_jobs_ambiguous},
		{"two containers, one command: ambiguous", test_two_containers_ambiguous},
		{"create and start of one job; claimed for it", test_create_start_one_job},
		{"client gone: unmatched, or failed without dockerd", test_gone_client},
		{"per-job cap; a hanging dockerd holds no call", test_cap_and_hang},
	};
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[] = "/tmp/tracer-dw.XXXXXX";
	pthread_t t;
	int ls, rc;

	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(dir))
		return 1;
	snprintf(sock_path, sizeof(sock_path), "%s/d.sock", dir);
	snprintf(missing_path, sizeof(missing_path), "%s/none.sock", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	ls = socket(AF_UNIX, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(ls, 16) != 0 ||
	    pthread_create(&t, NULL, server, &ls) != 0) {
		perror("fake dockerd");
		return 1;
	}
	if (dockerwatch_start() != 0) {
		fprintf(stderr, "dockerwatch_start failed\n");
		return 1;
	}
	rc = unit_run("dockerwatch", tests, sizeof(tests) / sizeof(tests[0]));
	dockerwatch_stop();
	unlink(sock_path);
	rmdir(dir);
	return rc;
}
