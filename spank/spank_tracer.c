/*
 * spank_tracer.c - the Slurm SPANK plugin: registers every task of every
 * job step with tracerd before any user code runs, and tells tracerd when
 * tasks and steps end, so each step gets its summary; with --tracer-notes,
 * srun prints the step's verdict on its stderr when the step ends
 * (spank_notes.c).
 *
 * The plugin must never harm a job: every callback returns 0 whatever
 * happens, every exchange with tracerd is bounded by timeout_ms, and a
 * failure costs one log line and leaves the job untraced.
 *
 *   optional spank_tracer.so [socket=/run/tracer/tracerd.sock] [timeout_ms=200]
 *                            [notes=yes|no]
 */
#include <stdio.h>
#include <string.h>
#include <stdint.h>

#include "clock.h"
#include "spank_tracer.h"

SPANK_PLUGIN(tracer, 1);

enum { OPT_TRACER = 1, OPT_RUN, OPT_PIPELINE, OPT_NOTES };

/*
 * Set in slurm_spank_init and by the option callbacks, both of which run
 * in slurmstepd before tasks are forked, so every task process and the
 * task_exit / exit callbacks see the same values.
 */
static struct spank_settings settings = {
	.socket_path = TRACER_DEFAULT_SOCKET,
	.timeout_ms = TRACER_DEFAULT_TIMEOUT_MS,
};
static struct spank_user_opts user_opts = {.notes = -1};

/*
 * slurmstepd's own calls (task_exit, exit) stop once one of them used up
 * its whole timeout: a hung tracerd then costs a step's end one timeout,
 * not one per task.
 */
static bool daemon_hung;

/*
 * The step's exit as the summary reports it: the wait status of the first
 * task that failed, else 0 once tasks ended (-1: none seen).  Both task
 * exits and the step's end run in the same slurmstepd process.
 */
static int step_status = -1;

static int opt_cb(int val, const char *optarg, int remote);

static struct spank_option options[] = {
	{ "tracer", "on|off",
	  "Execution tracing of this job by tracerd (default on).", 1,
	  OPT_TRACER, opt_cb },
	{ "tracer-run", "NAME",
	  "Group this job into the tracer run NAME (default: TRACER_RUN_ID, "
	  "else the job is its own run).",
	  1, OPT_RUN, opt_cb },
	{ "tracer-pipeline", "NAME",
	  "Record NAME as the pipeline of this job's run (default: "
	  "TRACER_PIPELINE).",
	  1, OPT_PIPELINE, opt_cb },
	{ "tracer-notes", "yes|no",
	  "srun: print the step's efficiency and advice on stderr when it "
	  "ends (steps long enough for advice).",
	  2, OPT_NOTES, opt_cb },
	SPANK_OPTIONS_TABLE_END
};

static void set_switch(const char *arg)
{
	int v = plugin_parse_switch(arg);

	if (v < 0)
		slurm_error("spank_tracer: --tracer=%.64s: expected on or off, tracing stays on",
			    arg);
	else
		user_opts.off = !v;
}

/* --tracer-notes alone is yes */
static void set_notes(const char *optarg)
{
	int v = optarg ? plugin_parse_switch(optarg) : 1;

	if (v < 0)
		slurm_error("spank_tracer: --tracer-notes=%.64s: expected yes or no, ignored",
			    optarg);
	else
		user_opts.notes = v;
}

/* Never fails: a bad value is reported and the job goes on. */
static int opt_cb(int val, const char *optarg, int remote)
{
	const char *arg = optarg ? optarg : "";

	switch (val) {
	case OPT_TRACER:
		set_switch(arg);
		break;
	case OPT_RUN:
		snprintf(user_opts.run, sizeof(user_opts.run), "%s", arg);
		break;
	case OPT_PIPELINE:
		snprintf(user_opts.pipeline, sizeof(user_opts.pipeline), "%s",
			 arg);
		break;
	case OPT_NOTES:
		set_notes(optarg && *optarg ? optarg : NULL);
		break;
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	char err[512];

	for (struct spank_option *o = options; o->name; o++) {
		spank_err_t rc = spank_option_register(sp, o);

		if (rc != ESPANK_SUCCESS)
			slurm_error("spank_tracer: cannot register option --%s: %s",
				    o->name, spank_strerror(rc));
	}
	/* srun needs socket= and notes= too; complain in slurmstepd, not in
	 * every srun */
	if (plugin_parse_args(ac, av, &settings, err, sizeof(err)) > 0 &&
	    spank_context() == S_CTX_REMOTE)
		slurm_error("spank_tracer: plugstack.conf: %s", err);
	return 0;
}

/* srun, its step created: the only place srun may read the step's ids. */
int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	if (spank_context() == S_CTX_LOCAL && plugin_notes_wanted(&settings, &user_opts))
		plugin_notes_step(sp);
	return 0;
}

/*
 * Runs in the task's own process, as root, before it becomes the user and
 * execs: tracerd tags this process (the peer of the socket), so every
 * process the task starts is traced from its first instruction.
 */
int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
	struct tracer_identity id;
	char job_uid[TRACER_JOB_UID_LEN];
	char err[256];

	if (user_opts.off || !spank_remote(sp))
		return 0;
	if (plugin_task_identity(sp, &user_opts, &id, err, sizeof(err)) < 0) {
		slurm_info("spank_tracer: task not traced: %s", err);
		return 0;
	}
	if (client_register(settings.socket_path, settings.timeout_ms, &id, false,
			    job_uid, sizeof(job_uid), err, sizeof(err)) < 0) {
		slurm_info("spank_tracer: job %s step %s task %ld not traced: %s",
			   id.job_id, id.step_id, id.global_task_id, err);
		return 0;
	}
	slurm_debug("spank_tracer: job %s step %s task %ld registered as %s",
		    id.job_id, id.step_id, id.global_task_id, job_uid);
	return 0;
}

/*
 * task_exit and exit run in slurmstepd itself, which never saw the job
 * uid tracerd returned to the task process: tracerd also accepts the job
 * key, which both sides derive from the step ids.
 *
 * slurmstepd runs no task callbacks in the extern step (it only holds a
 * sleep): nothing was registered there, and there is no key to end.
 */
/* The node's index in the step, part of the key as at registration. */
static void step_node(spank_t sp, struct tracer_identity *id)
{
	uint32_t node = 0;

	if (spank_get_item(sp, S_JOB_NODEID, &node) == ESPANK_SUCCESS)
		id->node_id = (long)node;
}

static int step_key(spank_t sp, char *key, size_t len)
{
	struct tracer_identity id;
	char err[256];

	identity_init(&id);
	if (plugin_step_ids(sp, &id, err, sizeof(err)) < 0) {
		slurm_debug("spank_tracer: %s", err);
		return -1;
	}
	if (!strcmp(id.step_id, "extern"))
		return -1;
	step_node(sp, &id);
	identity_join_key(&id, key, len);
	return key[0] ? 0 : -1;
}

static long elapsed_ms(uint64_t since_ms)
{
	return (long)(clock_mono_ms() - since_ms);
}

/*
 * Tell tracerd that a task of the step ended, or (is_end) the step.  The
 * task already logged why it was not traced, so failures here (expected
 * then) are debug messages.
 */
static void notify(spank_t sp, bool is_end, int status)
{
	char key[TRACER_JOIN_KEY_LEN], err[256];
	uint64_t t0;
	int rc;

	if (daemon_hung || step_key(sp, key, sizeof(key)) < 0)
		return;
	t0 = clock_mono_ms();
	if (is_end)
		rc = client_end(settings.socket_path, settings.timeout_ms, key,
				status, err, sizeof(err));
	else
		rc = client_task_exit(settings.socket_path, settings.timeout_ms,
				      key, status, err, sizeof(err));
	if (rc == 0)
		return;
	slurm_debug("spank_tracer: %s of %s not sent: %s",
		    is_end ? "end" : "task exit", key, err);
	if (elapsed_ms(t0) >= settings.timeout_ms) {
		daemon_hung = true;
		slurm_debug("spank_tracer: tracerd did not answer within %d ms, no more calls for %s",
			    settings.timeout_ms, key);
	}
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	int status = 0;

	if (user_opts.off || !spank_remote(sp))
		return 0;
	if (spank_get_item(sp, S_TASK_EXIT_STATUS, &status) != ESPANK_SUCCESS)
		status = -1;
	if (status >= 0 && (step_status < 0 || (step_status == 0 && status)))
		step_status = status;
	notify(sp, false, status);
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	if (spank_context() == S_CTX_LOCAL && plugin_notes_wanted(&settings, &user_opts))
		plugin_notes_print(&settings);
	if (user_opts.off || spank_context() != S_CTX_REMOTE)
		return 0;
	notify(sp, true, step_status);
	return 0;
}
