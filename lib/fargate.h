/*
 * fargate.h - the task sizes AWS Fargate runs: a request for a job on
 * Fargate (the summary's recommendation, tracer tune's AWS Batch
 * overrides) must be one of them, or Batch refuses the job.
 */
#ifndef TRACER_FARGATE_H
#define TRACER_FARGATE_H

#include <stdbool.h>
#include <stdint.h>

#include "identity.h"

/* a Fargate task size: vCPU as AWS Batch writes it ("0.25" .. "16") */
struct fargate_size {
	char vcpu[8];
	double vcpus;
	uint64_t mem_mib;
};

/* The smallest size with at least cpus vCPUs and mem_mib MiB (the fewest
 * vCPUs first, which cost most, then the least memory): 0, or -1 when
 * the request is larger than Fargate's largest size (16 vCPU, 120 GiB). */
int fargate_fit(double cpus, uint64_t mem_mib, struct fargate_size *out);

/* Did the job run on Fargate (ECS task metadata's launch type)? */
bool fargate_job(const struct tracer_identity *id);

#endif
