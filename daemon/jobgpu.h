/*
 * jobgpu.h - a job's GPU use through the NVML thread (gpu_nvml.h): asked
 * at each exit and sample, answered later, never waited for in the loop.
 */
#ifndef TRACERD_JOBGPU_H
#define TRACERD_JOBGPU_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#include "jobs.h"

/* A job opened (fresh) or resumed: its GPU record when the node has GPUs
 * or the job was allocated some. */
void jobgpu_open(struct jobs *js, struct open_job *oj, bool fresh);
/* p exits: ask for its accounting record (accounting mode on). */
void jobgpu_exit(struct jobs *js, struct open_job *oj, const struct job_proc *p);
/* oj starts closing: its end's energy counters. */
void jobgpu_closing(struct jobs *js, struct open_job *oj);
/* Take the thread's answers into their jobs. */
void jobgpu_drain(struct jobs *js);
/* The latest sample of the GPUs' processes into their jobs. */
void jobgpu_sample(struct jobs *js);
/* oj's answers are in, or it waited TRACER_GPU_ANSWER_WAIT_MS for them. */
bool jobgpu_settled(struct jobs *js, struct open_job *oj);
/* Before the summary: answers still missing are counted. */
void jobgpu_finish(struct open_job *oj);

#endif
