/*
 * fargate.c - AWS Fargate's task sizes (fargate.h): the vCPU values and,
 * for each, the memory values AWS Batch accepts for a job on Fargate
 * resources, as listed in AWS Batch's API reference (ResourceRequirement)
 * and in botocore's service model, which tests/wrapper and tests/tuneaws
 * check the requests against.
 */
#include "fargate.h"

#include <stdio.h>
#include <string.h>

/* per vCPU value: memory from lo to hi MiB in steps of step (0.25 vCPU:
 * 512, 1024, 2048 - two ranges) */
static const struct {
	const char *vcpu;
	double vcpus;
	uint64_t lo, hi, step;
} sizes[] = {
	{"0.25", 0.25, 512, 1024, 512},	  {"0.25", 0.25, 2048, 2048, 1024},
	{"0.5", 0.5, 1024, 4096, 1024},	  {"1", 1, 2048, 8192, 1024},
	{"2", 2, 4096, 16384, 1024},	  {"4", 4, 8192, 30720, 1024},
	{"8", 8, 16384, 61440, 4096},	  {"16", 16, 32768, 122880, 8192},
};

int fargate_fit(double cpus, uint64_t mem_mib, struct fargate_size *out)
{
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t m;

		if (sizes[i].vcpus < cpus || sizes[i].hi < mem_mib)
			continue;
		m = sizes[i].lo;
		if (mem_mib > m)
			m += (mem_mib - m + sizes[i].step - 1) / sizes[i].step * sizes[i].step;
		snprintf(out->vcpu, sizeof(out->vcpu), "%s", sizes[i].vcpu);
		out->vcpus = sizes[i].vcpus;
		out->mem_mib = m;
		return 0;
	}
	return -1;
}

bool fargate_job(const struct tracer_identity *id)
{
	const char *lt = identity_label(id, "ecs.launch_type");

	return lt && strcmp(lt, "FARGATE") == 0;
}
