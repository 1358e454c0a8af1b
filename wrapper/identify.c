/*
 * identify.c - who the wrapped job is.  Sources in order of precedence
 * (a later one never overwrites an earlier one): options, TRACER_* and
 * AWS_BATCH_* variables of the wrapper's own environment (it is the
 * job's entrypoint: these are its inputs), ECS and EC2 metadata, the
 * command line.  Never reads another process's environment.
 */
#include "wrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "awsmeta.h"
#include "log.h"

static const char *own_env(void *arg, const char *name)
{
	(void)arg;
	return getenv(name);
}

static void set_opt(char *dst, size_t size, const char *src, const char *what)
{
	if (!src || !*src)
		return;
	if (strlen(src) >= size) {
		log_warn("%s is longer than %zu bytes, ignored", what, size - 1);
		return;
	}
	memcpy(dst, src, strlen(src) + 1);
}

/* The command's argv as NUL-separated bytes (for the Nextflow rule). */
static size_t join_argv(char *const cmd[], char *buf, size_t len)
{
	size_t used = 0, n;

	for (int i = 0; cmd[i]; i++) {
		n = strlen(cmd[i]) + 1;
		if (used + n > len)
			break;
		memcpy(buf + used, cmd[i], n);
		used += n;
	}
	return used;
}

/*
 * Without --task or a tracer.task tag or container label: a Nextflow
 * task's work directory, else the ECS task definition's family (on AWS
 * Batch the job definition's task definition: every run of a job
 * definition has the same), else the command's name.
 */
static void set_task_name(const struct wrap_opts *o,
			  struct tracer_identity *id)
{
	const char *hash = identity_label(id, "nextflow.hash");
	const char *family = identity_label(id, "ecs.task_family");
	const char *base;
	char name[64];

	if (id->task_name[0])
		return;
	if (hash) {
		/* a Nextflow task: its work directory names it */
		snprintf(name, sizeof(name), "nf-%s", hash);
		set_opt(id->task_name, sizeof(id->task_name), name, "task name");
		return;
	}
	if (family && *family) {
		set_opt(id->task_name, sizeof(id->task_name), family, "task name");
		return;
	}
	base = strrchr(o->cmd[0], '/');
	set_opt(id->task_name, sizeof(id->task_name), base ? base + 1 : o->cmd[0],
		"task name");
}

void wrap_identity(const struct wrap_opts *o, const struct tracer_config *cfg,
		   struct tracer_identity *id)
{
	char err[256] = "";
	char *argv;
	size_t len;

	identity_init(id);
	set_opt(id->run_id, sizeof(id->run_id), o->run, "--run");
	set_opt(id->run_name, sizeof(id->run_name), o->run_name, "--run-name");
	set_opt(id->pipeline, sizeof(id->pipeline), o->pipeline, "--pipeline");
	set_opt(id->task_name, sizeof(id->task_name), o->task, "--task");

	if (awsmeta_from_env(id, own_env, NULL, err, sizeof(err)) != 0)
		log_warn("environment: %s (ignored)", err);
	metadata_collect(cfg, id);

	argv = malloc(8192);
	if (argv) {
		len = join_argv(o->cmd, argv, 8192);
		awsmeta_nextflow_task(argv, len, id);
		free(argv);
	}
	if (!id->scheduler[0])
		set_opt(id->scheduler, sizeof(id->scheduler), "local", "scheduler");
	set_task_name(o, id);
	identity_set_user(id, getuid());
}
