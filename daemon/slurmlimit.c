/*
 * slurmlimit.c - time limits of Slurm jobs, asked off tracerd's loop
 * (slurmlimit.h).
 *
 * Why here and not in the SPANK plugin: Slurm 22.05 has no SPANK item for
 * the time limit and sets no SLURM_JOB_END_TIME in the job's environment
 * (that variable comes with later releases); the only source is slurmctld,
 * and an RPC from the plugin would hold up the task's launch for as long as
 * slurmctld takes to answer.  tracerd's thread runs `squeue` instead: one
 * query per Slurm job id (steps share the answer), at most one at a time,
 * each bounded by QUERY_TIMEOUT_MS, so a slow or absent slurmctld costs
 * only the missing field.
 */
#include "slurmlimit.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "asker.h"
#include "clock.h"

#define QUERY_TIMEOUT_MS 10000
#define JOBID_LEN 32

extern char **environ;

struct limit {
	uint64_t limit_s, end_s;
};

/* "[D-]HH:MM:SS", "MM:SS", "M" as squeue prints a limit; "UNLIMITED". */
static int parse_duration(const char *s, uint64_t *out)
{
	unsigned long long part[3] = {0, 0, 0}, days = 0;
	int n = 0;
	char *end;

	if (!strncmp(s, "UNLIMITED", 9) || !strncmp(s, "INFINITE", 8)) {
		*out = 0;
		return 0;
	}
	if (strchr(s, '-')) {
		days = strtoull(s, &end, 10);
		if (end == s || *end != '-')
			return -1;
		s = end + 1;
	}
	for (;;) {
		if (n == 3)
			return -1;
		part[n++] = strtoull(s, &end, 10);
		if (end == s)
			return -1;
		if (*end != ':')
			break;
		s = end + 1;
	}
	if (*end && *end != '|')
		return -1;
	if (n == 1) /* minutes */
		*out = days * 86400 + part[0] * 60;
	else if (n == 2) /* minutes:seconds */
		*out = days * 86400 + part[0] * 60 + part[1];
	else
		*out = days * 86400 + part[0] * 3600 + part[1] * 60 + part[2];
	return 0;
}

int slurmlimit_parse(const char *line, uint64_t *limit_s, uint64_t *end_s)
{
	const char *bar = strchr(line, '|');
	char *end;
	unsigned long long e;

	if (!bar || parse_duration(line, limit_s) < 0)
		return -1;
	e = strtoull(bar + 1, &end, 10);
	/* "N/A" or "Unknown" before the job starts; without a limit Slurm
	 * still prints an end a year ahead: no deadline */
	*end_s = (*limit_s && end != bar + 1 && (!*end || *end == '\n')) ? e : 0;
	return 0;
}

/* The environment for squeue: ours with SLURM_TIME_FORMAT=%s (epoch
 * seconds), so the answer does not depend on a time zone. */
static char **query_env(void)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "SLURM_TIME_FORMAT=", 18))
			env[k++] = environ[i];
	env[k++] = "SLURM_TIME_FORMAT=%s";
	env[k] = NULL;
	return env;
}

/* Read the child's answer into buf within the deadline: 0, or -1. */
static int read_answer(int fd, char *buf, size_t len, uint64_t deadline_ms)
{
	size_t got = 0;

	for (;;) {
		uint64_t now = clock_mono_ms();
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t r;

		if (now >= deadline_ms)
			return -1;
		if (poll(&p, 1, (int)(deadline_ms - now)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		if (got == len - 1)
			break;
	}
	buf[got] = '\0';
	return 0;
}

/* Ask squeue about one job: 0 with the answer, or -1 with why in err. */
static int query(const char *job, uint64_t *limit_s, uint64_t *end_s, char *err, size_t errlen)
{
	char jobs[64], buf[256];
	char *argv[] = {"squeue", "--noheader", "--states=all", jobs, "--format=%l|%e", NULL};
	char **env = query_env();
	posix_spawn_file_actions_t fa;
	int fds[2], rc, status = 0, res = -1;
	pid_t pid;

	if (!env || pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "%s", env ? strerror(errno) : "out of memory");
		free(env);
		return -1;
	}
	snprintf(jobs, sizeof(jobs), "--jobs=%s", job);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	rc = posix_spawnp(&pid, "squeue", &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(fds[1]);
	if (rc != 0) {
		snprintf(err, errlen, "cannot run squeue: %s", strerror(rc));
		close(fds[0]);
		return -1;
	}
	if (read_answer(fds[0], buf, sizeof(buf), clock_mono_ms() + QUERY_TIMEOUT_MS) < 0) {
		snprintf(err, errlen, "squeue gave no answer within %d ms", QUERY_TIMEOUT_MS);
		kill(pid, SIGKILL);
	} else if (slurmlimit_parse(buf, limit_s, end_s) < 0) {
		snprintf(err, errlen, "unexpected answer from squeue for job %s", job);
	} else {
		res = 0;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (res == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		snprintf(err, errlen, "squeue failed for job %s", job);
		res = -1;
	}
	return res;
}

/* The asker's question (asker.h): one job's limit and end. */
static int ask(const char *job, void *value, size_t len, char *err, size_t errlen)
{
	struct limit *l = value;

	(void)len;
	return query(job, &l->limit_s, &l->end_s, err, errlen); /* slow: not on the loop */
}

static struct asker limits = {
	.what = "time limit of Slurm job",
	.ask = ask,
	.nslots = 128,
	.value_len = sizeof(struct limit),
};

int slurmlimit_start(void)
{
	return asker_start(&limits);
}

void slurmlimit_stop(void)
{
	asker_stop(&limits); /* a query in progress ends first: QUERY_TIMEOUT_MS */
}

void slurmlimit_want(const struct tracer_identity *id)
{
	if (strcmp(id->scheduler, "slurm") || id->alloc.time_limit_s || !id->job_id[0] ||
	    strlen(id->job_id) >= JOBID_LEN ||
	    strspn(id->job_id, "0123456789") != strlen(id->job_id))
		return;
	/* asked again for each new step: `scontrol update` may change it */
	asker_want(&limits, id->job_id);
}

void slurmlimit_fill(struct tracer_identity *id)
{
	struct limit l;

	if (strcmp(id->scheduler, "slurm") || id->alloc.time_limit_s)
		return;
	if (asker_get(&limits, id->job_id, &l)) {
		id->alloc.time_limit_s = l.limit_s;
		id->alloc.deadline_s = l.end_s;
	}
}
