/*
 * jobcontainers.h - the containers of a job's processes (podman, docker,
 * Apptainer): found at exec, named, their v2 cgroups tagged for the job
 * when the ownership rules let it, kept in the journal of open jobs.
 */
#ifndef TRACERD_JOBCONTAINERS_H
#define TRACERD_JOBCONTAINERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#include "jobs.h"

/* The containers of a job's processes join it (v2 cgroup tag). */
void jobcontainers_tag_all(struct jobs *js);
void jobcontainers_untag(struct jobs *js, struct open_job *oj);
void jobcontainers_name(struct jobs *js, struct open_job *oj);
void jobcontainers_exec(struct jobs *js, struct open_job *oj, struct job_proc *p,
			uint32_t pidns);
void jobcontainers_exit(struct jobs *js, struct open_job *oj, struct job_proc *p);
/* Apptainer/Singularity: a starter's exec starts a container, its forks are in it. */
void jobcontainers_exec_starter(struct jobs *js, struct open_job *oj, struct job_proc *p,
				const char *path);
void jobcontainers_fork(struct open_job *oj, struct job_proc *child);
/* The job's containers in the journal of open jobs, and back (journal.c). */
cJSON *jobcontainers_to_json(const struct container_set *s);
void jobcontainers_from_json(struct container_set *s, const cJSON *o);
/* A registrant's container and, in another pid namespace, that namespace. */
void jobcontainers_registrant(struct open_job *oj, pid_t pid);
/* Tag container c's v2 cgroup for oj when the ownership rules let it
 * (logged when not): 0 tagged (now or before), -1 not. */
int jobcontainers_tag(struct jobs *js, struct open_job *oj, struct container_info *c);

#endif
