/*
 * identity.h - who a job is: the identity a registrant (SPANK plugin,
 * tracer-wrap, `tracer run`) sends to tracerd, and the allocation it was
 * given.  One struct, one JSON form (see docs/schema.md), used by the
 * protocol, the daemon and the summary alike.
 */
#ifndef TRACER_IDENTITY_H
#define TRACER_IDENTITY_H

#include <stdint.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#define ID_STR 256       /* every string field, including the NUL */
#define ID_CPUSET 1024
#define ID_MAX_LABELS 32 /* free-form scheduler/cloud labels */

struct tracer_label {
	char key[64];
	char value[ID_STR];
};

struct tracer_allocation {
	int cpus;               /* allocated CPUs (0 = unknown) */
	char cpuset[ID_CPUSET]; /* list form, e.g. "0-3,8" ("" = unknown) */
	uint64_t mem_bytes;     /* allocated memory (0 = unknown) */
	uint64_t time_limit_s;  /* time limit (0 = unknown) */
	char gpus[ID_STR];      /* GPUs: indices or UUIDs, "0,2" ("" = none known) */
	uint64_t deadline_s;    /* when the scheduler stops the job, epoch s
				 * (0 = unknown); tracerd's own, not sent */
	int nodes;              /* nodes of the whole job (0 = unknown) */
};

/* What the job asked the scheduler for, whole job (0 = unknown). */
struct client_request {
	int cpus;
	uint64_t mem_bytes;
	int gpus;
	int nodes;
	uint64_t time_limit_s;
};

struct tracer_identity {
	char run_id[ID_STR];
	char run_name[ID_STR];
	char pipeline[ID_STR];
	char task_name[ID_STR];  /* task or job name */
	char scheduler[32];      /* "slurm", "aws-batch", "local" */
	char cluster[ID_STR];
	char job_id[ID_STR];
	char step_id[64];        /* "batch", "extern", "interactive", "0", ... */
	char array_job_id[ID_STR];
	long array_index;        /* -1 when not an array task */
	long attempt;            /* -1 when unknown */
	char user[ID_STR];
	long uid;                /* -1 when unknown */
	char queue[ID_STR];      /* Slurm partition, AWS Batch job queue */
	char node_name[ID_STR];  /* the scheduler's name of this node */
	char account[ID_STR];    /* scheduler facts ("" = unknown) */
	char qos[ID_STR];
	char node_list[ID_STR];  /* the job's nodes, Slurm hostlist "n[1-2]" */
	uint64_t submit_ns;      /* epoch ns of submission (0 = unknown) */
	uint64_t job_start_ns;   /* epoch ns the whole job started (0 = unknown) */
	long node_id;            /* -1 when unknown */
	long node_count;         /* -1 when unknown */
	long local_task_id;      /* -1 when unknown */
	long global_task_id;     /* -1 when unknown */
	struct tracer_allocation alloc;
	struct client_request req;
	int nlabels;
	struct tracer_label labels[ID_MAX_LABELS]; /* e.g. aws.ce_name, container.image */
};

/* Fill with "unknown" values (empty strings, -1). */
void identity_init(struct tracer_identity *id);

/* Add or replace a label; returns 0, or -1 when the table is full. */
int identity_set_label(struct tracer_identity *id, const char *key,
		       const char *value);
const char *identity_label(const struct tracer_identity *id, const char *key);

/*
 * uid and user name (from the password database: files, LDAP, SSSD...);
 * the number as the name when the look-up fails.
 */
void identity_set_user(struct tracer_identity *id, uid_t uid);

/*
 * The key under which tracerd groups registrations into one job:
 * "slurm:<job>.<step>" (with "@<node_id>" past the step's first node) and "aws-batch:<job>#<attempt>" join tasks of the
 * same step; an empty key (local) means "always a new job".
 */
void identity_join_key(const struct tracer_identity *id, char *buf, size_t len);

/*
 * Scheduler names only root may register ("slurm", "aws-batch", "host"),
 * compared without case: their jobs join by key and are trusted in
 * reports, so another user must not be able to squat or imitate them.
 */
int identity_scheduler_reserved(const char *scheduler);

/*
 * The gid of a group name (from the group database, which may be LDAP:
 * not for an event loop).  0, or -1 with the reason in err.
 */
int identity_group_gid(const char *name, gid_t *gid, char *err, size_t errlen);

/* JSON form (an object); unknown fields are omitted. NULL on OOM. */
cJSON *identity_to_json(const struct tracer_identity *id);

/*
 * Parse the JSON form.  Unknown keys are ignored, wrong types and
 * over-long strings are errors, and so is a scheduler name that is not
 * one ASCII word (letters, digits, '-', '_', '.'): returns 0, or -1 with
 * a message in err.
 */
int identity_from_json(const cJSON *obj, struct tracer_identity *id,
		       char *err, size_t errlen);

#endif
