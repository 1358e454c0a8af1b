/*
 * spank_tracer.h - what the parts of the SPANK plugin share: the settings
 * from plugstack.conf, the user's options, and the identity builder.
 */
#ifndef TRACER_SPANK_H
#define TRACER_SPANK_H

#include <stdbool.h>
#include <slurm/spank.h>
#include "client.h"
#include "identity.h"

/*
 * Everything the plugin uses exists, with the same types, from Slurm 22.05
 * on; an older spank.h is refused here rather than misread at run time.
 */
#if !defined(SLURM_VERSION_NUMBER) || \
	SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0)
#error "spank_tracer needs the headers of Slurm 22.05 or later"
#endif

/*
 * The plugin's own functions stay inside the .so: slurmstepd and other
 * plugins must never bind to them, nor they to Slurm's symbols.
 */
#define PLUGIN_LOCAL __attribute__((visibility("hidden")))

#define SPANK_TIMEOUT_MIN_MS 1
#define SPANK_TIMEOUT_MAX_MS 1000

/* notes=: srun's lines at a step's end (--tracer-notes) */
enum spank_notes {
	SPANK_NOTES_ASKED = 0, /* (default) for srun --tracer-notes */
	SPANK_NOTES_ON,        /* notes=yes: unless --tracer-notes=no */
	SPANK_NOTES_FORBIDDEN, /* notes=no: never */
};

/* plugstack.conf arguments: socket=PATH timeout_ms=N notes=yes|no */
struct spank_settings {
	char socket_path[256];
	int timeout_ms;
	enum spank_notes notes;
};

/* What the user asked for with --tracer, --tracer-run, --tracer-pipeline,
 * --tracer-notes (notes: -1 not said, 0 no, 1 yes). */
struct spank_user_opts {
	bool off;
	char run[ID_STR];
	char pipeline[ID_STR];
	int notes;
};

/*
 * Parse the plugstack.conf arguments over the defaults.  A bad argument is
 * described in err (one line; the caller logs it) and skipped, so the
 * defaults stay in force.  Returns the number of bad arguments.
 */
PLUGIN_LOCAL int plugin_parse_args(int ac, char **av,
				   struct spank_settings *set, char *err,
				   size_t errlen);

/* yes/on/1/true: 1, no/off/0/false: 0, else -1. */
PLUGIN_LOCAL int plugin_parse_switch(const char *arg);

/* Does this srun print the step's notes (settings and the user's say)? */
PLUGIN_LOCAL bool plugin_notes_wanted(const struct spank_settings *set,
				      const struct spank_user_opts *opts);

/*
 * srun, at the start of its step (local_user_init): remember the step
 * key; at its end (exit, local context): print the step's verdict on
 * stderr, at most TRACER_NOTES_LINES lines, when tracerd has the
 * summary within TRACER_NOTES_WAIT_MS in all and the step ran long
 * enough for advice.  Nothing otherwise (spank_notes.c).
 */
PLUGIN_LOCAL void plugin_notes_step(spank_t sp);
PLUGIN_LOCAL void plugin_notes_print(const struct spank_settings *set);

/* Number of CPUs in a list such as "0-3,8"; -1 when it is not a list. */
PLUGIN_LOCAL int plugin_cpuset_count(const char *list);

/*
 * The fields that name the job step (scheduler, job id, step id): enough
 * for identity_join_key(), and available in every remote callback.
 * Returns 0, or -1 with a reason in err when the job id is not known.
 */
PLUGIN_LOCAL int plugin_step_ids(spank_t sp, struct tracer_identity *id,
				 char *err, size_t errlen);

/*
 * The whole identity of the task being launched (task_init_privileged):
 * step ids, user, array, placement, allocation and run.  Fields SPANK
 * cannot give stay unknown.  Returns 0, or -1 with a reason in err.
 */
PLUGIN_LOCAL int plugin_task_identity(spank_t sp,
				      const struct spank_user_opts *opts,
				      struct tracer_identity *id, char *err,
				      size_t errlen);

#endif
