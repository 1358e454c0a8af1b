/*
 * spank_identity.c - who a Slurm task is, from what slurmstepd tells the
 * plugin: SPANK items, and the job's environment as given to slurmstepd
 * (spank_getenv), never the environment of a running user process.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "spank_tracer.h"

/* Special step ids (slurm.h, not part of spank.h). */
#define STEP_EXTERN 0xfffffffcU
#define STEP_BATCH 0xfffffffbU
#define STEP_INTERACTIVE 0xfffffffaU

/* NO_VAL (0xfffffffe) and INFINITE (0xffffffff): no value. */
#define NO_VAL32 0xfffffffeU

#define MB 1048576ULL

/*
 * A variable of the job's environment, copied into buf (truncated to fit).
 * Returns true when it is set and not empty.
 */
static bool job_getenv(spank_t sp, const char *name, char *buf, size_t len)
{
	spank_err_t rc;

	buf[0] = '\0';
	rc = spank_getenv(sp, name, buf, (int)len);
	if (rc != ESPANK_SUCCESS && rc != ESPANK_NOSPACE) {
		buf[0] = '\0';
		return false;
	}
	buf[len - 1] = '\0';
	return buf[0] != '\0';
}

static void name_step(uint32_t step, char *buf, size_t len)
{
	if (step == STEP_BATCH)
		snprintf(buf, len, "batch");
	else if (step == STEP_EXTERN)
		snprintf(buf, len, "extern");
	else if (step == STEP_INTERACTIVE)
		snprintf(buf, len, "interactive");
	else
		snprintf(buf, len, "%u", step);
}

int plugin_step_ids(spank_t sp, struct tracer_identity *id, char *err,
		    size_t errlen)
{
	uint32_t job = 0, step = 0;
	spank_err_t rc;

	snprintf(id->scheduler, sizeof(id->scheduler), "slurm");
	rc = spank_get_item(sp, S_JOB_ID, &job);
	if (rc != ESPANK_SUCCESS) {
		snprintf(err, errlen, "no job id: %s", spank_strerror(rc));
		return -1;
	}
	rc = spank_get_item(sp, S_JOB_STEPID, &step);
	if (rc != ESPANK_SUCCESS) {
		snprintf(err, errlen, "no step id for job %u: %s", job,
			 spank_strerror(rc));
		return -1;
	}
	snprintf(id->job_id, sizeof(id->job_id), "%u", job);
	name_step(step, id->step_id, sizeof(id->step_id));
	return 0;
}

/* User name from the uid; the number when the lookup fails. */
static void fill_user(spank_t sp, struct tracer_identity *id)
{
	uid_t uid;

	if (spank_get_item(sp, S_JOB_UID, &uid) == ESPANK_SUCCESS)
		identity_set_user(id, uid);
}

/*
 * slurmstepd reports a job that is not an array task as array id = job id
 * (or 0) with task id NO_VAL: only a real task id makes an array task.
 */
static void fill_array(spank_t sp, struct tracer_identity *id)
{
	uint32_t array_job = 0, array_task = NO_VAL32;

	if (spank_get_item(sp, S_JOB_ARRAY_ID, &array_job) != ESPANK_SUCCESS ||
	    array_job == 0)
		return;
	if (spank_get_item(sp, S_JOB_ARRAY_TASK_ID, &array_task) !=
		    ESPANK_SUCCESS ||
	    array_task >= NO_VAL32)
		return;
	snprintf(id->array_job_id, sizeof(id->array_job_id), "%u", array_job);
	id->array_index = (long)array_task;
}

static void fill_placement(spank_t sp, struct tracer_identity *id)
{
	uint32_t u32 = 0, restarts = 0;
	int local = -1;

	if (spank_get_item(sp, S_JOB_NODEID, &u32) == ESPANK_SUCCESS)
		id->node_id = (long)u32;
	/* The batch step reports 0 nodes: unknown rather than wrong. */
	if (spank_get_item(sp, S_JOB_NNODES, &u32) == ESPANK_SUCCESS && u32)
		id->node_count = (long)u32;
	if (spank_get_item(sp, S_TASK_ID, &local) == ESPANK_SUCCESS)
		id->local_task_id = local;
	if (spank_get_item(sp, S_TASK_GLOBAL_ID, &u32) == ESPANK_SUCCESS)
		id->global_task_id = (long)u32;
	if (spank_get_item(sp, S_SLURM_RESTART_COUNT, &restarts) ==
	    ESPANK_SUCCESS)
		id->attempt = (long)restarts;
}

/*
 * The step's GPUs as slurmd set them for the job (GRES indices, which
 * follow the device files of gres.conf: tracerd matches them to minor
 * numbers); the job's when the step has none of its own.  Slurm's own
 * variables in the job's environment, read through spank_getenv, never a
 * user process's.  A truncated or odd value is left out: tracerd would
 * refuse it.
 */
static void fill_gpus(spank_t sp, struct tracer_identity *id)
{
	char *g = id->alloc.gpus;
	size_t len = sizeof(id->alloc.gpus);

	if ((!job_getenv(sp, "SLURM_STEP_GPUS", g, len) &&
	     !job_getenv(sp, "SLURM_JOB_GPUS", g, len)) ||
	    strlen(g) == len - 1 || strspn(g, "0123456789,") != strlen(g))
		g[0] = '\0';
}

/*
 * The step's allocation on this node.  The CPU count is slurmstepd's own
 * (S_JOB_NCPUS, the step's CPUs here): it counts hardware threads, as seff
 * does, where the core list counts cores; the list's length only when the
 * count is missing.
 */
static void fill_allocation(spank_t sp, struct tracer_identity *id)
{
	char *cores = NULL;
	uint64_t mem_mb = 0;
	uint16_t ncpus = 0;
	int n = -1;

	if (spank_get_item(sp, S_STEP_ALLOC_CORES, &cores) == ESPANK_SUCCESS &&
	    cores) {
		n = plugin_cpuset_count(cores);
		if (n > 0)
			snprintf(id->alloc.cpuset, sizeof(id->alloc.cpuset),
				 "%s", cores);
	}
	if (spank_get_item(sp, S_JOB_NCPUS, &ncpus) == ESPANK_SUCCESS &&
	    ncpus > 0)
		n = ncpus;
	if (n > 0)
		id->alloc.cpus = n;
	if (spank_get_item(sp, S_STEP_ALLOC_MEM, &mem_mb) == ESPANK_SUCCESS &&
	    mem_mb > 0 && mem_mb < UINT64_MAX / MB)
		id->alloc.mem_bytes = mem_mb * MB;
	fill_gpus(sp, id);
}

/*
 * The run: options first, then TRACER_RUN_ID / TRACER_RUN_NAME /
 * TRACER_PIPELINE from the job's environment (a workflow engine exports
 * them to every job it submits); with neither, the Slurm job is its own
 * run, and all tasks of an array form one run.
 */
static void fill_run(spank_t sp, const struct spank_user_opts *opts,
		     struct tracer_identity *id)
{
	char name[ID_STR];

	if (opts->run[0]) {
		snprintf(id->run_id, sizeof(id->run_id), "%s", opts->run);
		snprintf(id->run_name, sizeof(id->run_name), "%s", opts->run);
	} else {
		job_getenv(sp, "TRACER_RUN_ID", id->run_id, sizeof(id->run_id));
		if (job_getenv(sp, "TRACER_RUN_NAME", name, sizeof(name)))
			snprintf(id->run_name, sizeof(id->run_name), "%s", name);
		if (!id->run_id[0] && id->run_name[0])
			snprintf(id->run_id, sizeof(id->run_id), "%s",
				 id->run_name);
	}
	if (!id->run_id[0]) {
		snprintf(id->run_id, sizeof(id->run_id), "slurm-%.32s",
			 id->array_job_id[0] ? id->array_job_id : id->job_id);
		if (!id->run_name[0])
			snprintf(id->run_name, sizeof(id->run_name), "%s",
				 id->task_name);
	}
	if (opts->pipeline[0])
		snprintf(id->pipeline, sizeof(id->pipeline), "%s",
			 opts->pipeline);
	else
		job_getenv(sp, "TRACER_PIPELINE", id->pipeline,
			   sizeof(id->pipeline));
}

int plugin_task_identity(spank_t sp, const struct spank_user_opts *opts,
			 struct tracer_identity *id, char *err, size_t errlen)
{
	identity_init(id);
	if (plugin_step_ids(sp, id, err, errlen) < 0)
		return -1;
	job_getenv(sp, "SLURM_CLUSTER_NAME", id->cluster, sizeof(id->cluster));
	job_getenv(sp, "SLURM_JOB_NAME", id->task_name, sizeof(id->task_name));
	job_getenv(sp, "SLURM_JOB_PARTITION", id->queue, sizeof(id->queue));
	fill_user(sp, id);
	fill_array(sp, id);
	fill_placement(sp, id);
	fill_allocation(sp, id);
	fill_run(sp, opts, id);
	return 0;
}
