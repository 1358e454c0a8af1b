/*
 * summary_container.h - the container entity in a job's summary:
 * "container" (the job's: its registrant's, else the first one seen),
 * "containers" when the job ran in several, and a process's "container"
 * where it differs from the job's.
 */
#ifndef TRACER_SUMMARY_CONTAINER_H
#define TRACER_SUMMARY_CONTAINER_H

#include <cjson/cJSON.h>

#include "job_record.h"

void summary_add_containers(cJSON *root, const struct job *j);
/* The outcomes of docker commands ("docker_joins": watched, joined, ...). */
cJSON *summary_container_joins(const struct container_joins *cj);
void summary_proc_container(cJSON *o, const struct job *j, const struct job_proc *p);

#endif
