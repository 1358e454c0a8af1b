/*
 * jobdocker.h - a job's docker commands: the containers they start (asked
 * of dockerd off the loop, dockerwatch.h) join the job.
 */
#ifndef TRACERD_JOBDOCKER_H
#define TRACERD_JOBDOCKER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#include "jobs.h"

/* A docker command of oj exec'd: its container is watched for. */
void jobdocker_exec(struct jobs *js, struct open_job *oj, const struct job_proc *p,
		    uint64_t exec_real_ns);
void jobdocker_tick(struct jobs *js);
/* oj starts closing: its docker commands still watched are counted, dropped */
void jobdocker_close(struct jobs *js, struct open_job *oj);

#endif
