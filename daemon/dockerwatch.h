/*
 * dockerwatch.h - containers started through dockerd by a job's docker
 * CLI (`docker run`, `create`, `start`): dockerd and containerd start
 * them, so none of their processes descends from the job.  A thread of
 * tracerd asks dockerd's list endpoint (GET /containers/json?all=1 over
 * the Unix sockets of docker_sockets; never a container's inspect, which
 * carries its environment) every 200 ms while the client lives, and says
 * which container the command started; the loop (jobdocker.c) tags that
 * container's cgroup for the job.  Nothing here ever blocks the loop.
 */
#ifndef TRACERD_DOCKERWATCH_H
#define TRACERD_DOCKERWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "container.h"
#include "dockercmd.h"

#define DOCKERWATCH_MAX 32    /* commands watched at once; more are counted */
#define DOCKERWATCH_PER_JOB 8 /* ... of one job */

enum dockerwatch_outcome {
	DOCKERWATCH_FOUND = 1, /* entry: the command's container, running */
	DOCKERWATCH_AMBIGUOUS, /* two containers, or another job's command, may be it */
	DOCKERWATCH_UNMATCHED, /* dockerd answered, no container was the command's in time */
	DOCKERWATCH_FAILED,    /* no dockerd of docker_sockets answered */
};

struct dockerwatch_result {
	uint64_t job_tag;
	pid_t client;
	uint64_t client_start_ns;  /* its exec, CLOCK_REALTIME (dockerwatch_add) */
	enum dockerwatch_outcome outcome;
	struct docker_entry entry; /* DOCKERWATCH_FOUND */
	char why[96];              /* the last failure, for the log */
};

/* Start the thread (0; -1 logged: docker commands are then counted as
 * failed). */
int dockerwatch_start(void);
void dockerwatch_stop(void);

/*
 * Watch cmd of the job tagged job_tag, run by client (started at
 * client_start_ns, CLOCK_REALTIME), asking the dockerd sockets listed in
 * sockets (docker_sockets).  false when not watched (table full, the job
 * has DOCKERWATCH_PER_JOB watched already, thread not running).  Never
 * blocks on the thread's asking.
 */
bool dockerwatch_add(uint64_t job_tag, pid_t client, uint64_t client_start_ns,
		     const struct docker_cmd *cmd, const char *sockets);

/* Finished watches, at most max, into out: their number. */
size_t dockerwatch_take(struct dockerwatch_result *out, size_t max);

/* The job ends: its open watches are dropped, each counted into cj as
 * unmatched (dockerd answered) or failed (it never did). */
void dockerwatch_forget(uint64_t job_tag, struct container_joins *cj);

#endif
