/*
 * awsmeta.h - who an AWS Batch job is, from its own environment and from
 * the ECS task metadata v4 and EC2 IMDSv2 documents.  Pure functions (no
 * I/O) so the unit tests can feed them odd input; tracer-wrap does the
 * fetching (wrapper/metadata.c).
 *
 * Every parser fills what it can and never overwrites what is already set
 * by a higher-priority source (options, TRACER_* variables).  A field with
 * a bad value is skipped and named in err; the others are still used.
 * Return values: 0 all read, 1 some field refused (reason in err), -1 the
 * document is not a JSON object (reason in err; nothing was used).
 */
#ifndef TRACER_AWSMETA_H
#define TRACER_AWSMETA_H

#include <stdbool.h>
#include <stddef.h>
#include "identity.h"

/* Look a variable up (getenv in the wrapper, a table in the tests). */
typedef const char *(*awsmeta_env_fn)(void *arg, const char *name);

/*
 * AWS_BATCH_JOB_ID (array children end in ":N"), AWS_BATCH_JOB_ATTEMPT,
 * AWS_BATCH_JQ_NAME, AWS_BATCH_CE_NAME, AWS_BATCH_JOB_ARRAY_INDEX/SIZE,
 * AWS_BATCH_JOB_NODE_INDEX, AWS_BATCH_JOB_MAIN_NODE_INDEX,
 * AWS_BATCH_JOB_NUM_NODES, and TRACER_RUN_ID, TRACER_RUN_NAME,
 * TRACER_PIPELINE.  The scheduler becomes "aws-batch" when
 * AWS_BATCH_JOB_ID is set.  Returns 0 or 1 (some value refused).
 */
int awsmeta_from_env(struct tracer_identity *id, awsmeta_env_fn get,
		     void *arg, char *err, size_t errlen);

/*
 * ${ECS_CONTAINER_METADATA_URI_V4}: DockerId, Name, Image -> labels
 * container.id/name/image; Limits.CPU (CPU units; vCPUs = units / 1024,
 * rounded up) and Limits.Memory (MiB) -> allocation; Labels tracer.*.
 */
int awsmeta_parse_ecs_container(const char *json, size_t len,
				struct tracer_identity *id, char *err,
				size_t errlen);

/*
 * ${ECS_CONTAINER_METADATA_URI_V4}/task (or /taskWithTags): Cluster,
 * TaskARN, Family, Revision, AvailabilityZone, LaunchType -> labels
 * ecs.*, aws.availability_zone; task Limits (CPU in vCPUs, Memory MiB)
 * when the container has none; TaskTags tracer.*.
 */
int awsmeta_parse_ecs_task(const char *json, size_t len,
			   struct tracer_identity *id, char *err,
			   size_t errlen);

/*
 * IMDSv2 latest/dynamic/instance-identity/document: instanceId,
 * instanceType, region, availabilityZone -> labels aws.instance_id,
 * aws.instance_type, aws.region, aws.availability_zone.
 */
int awsmeta_parse_imds_document(const char *json, size_t len,
				struct tracer_identity *id, char *err,
				size_t errlen);

/* latest/meta-data/instance-life-cycle ("spot", "on-demand") -> aws.lifecycle. */
int awsmeta_parse_lifecycle(const char *text, size_t len,
			    struct tracer_identity *id, char *err,
			    size_t errlen);

/*
 * Does the machine say it is EC2?  sys_vendor "Amazon EC2" (Nitro), a
 * DMI product_uuid or a Xen hypervisor uuid starting with "ec2" (any
 * case).  NULL arguments are files that could not be read.
 */
bool awsmeta_is_ec2(const char *sys_vendor, const char *product_uuid,
		    const char *hypervisor_uuid);

/*
 * Nextflow's AWS Batch command fetches ".../<2 hex>/<30 hex>/.command.run"
 * (the task's work directory).  From the NUL-separated argv, put the work
 * directory in label nextflow.work_dir and its short hash ("ab/cdef01",
 * as `nextflow log` shows it) in nextflow.hash.  Returns true when found.
 */
bool awsmeta_nextflow_task(const char *argv, size_t len,
			   struct tracer_identity *id);

/* The IMDS base URL: explicit endpoint (trailing '/' dropped) or default. */
#define AWSMETA_IMDS_DEFAULT "http://169.254.169.254"

#endif
