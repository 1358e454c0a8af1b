/*
 * slurmjob.h - facts about a Slurm job asked of slurmctld by a thread of
 * tracerd (never by its loop, never by the SPANK plugin inside the job's
 * launch): one `squeue` per Slurm job id, whatever its steps, and the loop
 * only reads a small cache.  Slurm 22.05 gives SPANK plugins neither item
 * nor launch variable for the time limit, account, QOS, submit and start
 * times or the job's node list.
 */
#ifndef TRACERD_SLURMJOB_H
#define TRACERD_SLURMJOB_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "identity.h"

/* One job as squeue prints it (0 / "" / -1: not known). */
struct slurmjob_facts {
	uint64_t limit_s, end_s;    /* time limit (0 = none), scheduled end, epoch s */
	uint64_t submit_s, start_s; /* epoch s */
	char account[64], qos[64], partition[64];
	char array_job_id[24];
	long array_task;            /* -1: not an array task */
	int cpus, nodes, gpus;      /* the job's, allocated once it runs */
	uint64_t mem_bytes;
	char node_list[ID_STR];     /* "" when not started or cut off */
};

/* Start the query thread (0, or -1: Slurm jobs then lack these facts). */
int slurmjob_start(void);
void slurmjob_stop(void);

/* A Slurm step was opened: queue the query for its job id unless the job
 * has been answered already or is being asked.  Never blocks. */
void slurmjob_want(const struct tracer_identity *id);

/* Fill what id does not know yet from the cache, when the answer has
 * come (else it stays unknown).  Never blocks. */
void slurmjob_fill(struct tracer_identity *id);

/* {"squeue_calls", "squeue_failed", "steps"}: the bound "one call per
 * job, whatever its steps" made visible (tracer status).  NULL on OOM. */
cJSON *slurmjob_stats_json(void);

/* Host n (from 0) of a Slurm hostlist ("tn[1-2],x", 1 -> "tn2") into
 * out: 0, or -1 when there is none, it does not fit or the list is not
 * one (several bracket groups in one name are not read).  Exposed for
 * the unit test. */
int slurmjob_nth_node(const char *list, long n, char *out, size_t len);

/* The --Format that slurmjob_pick reads: the job id, then slurmjob_parse's. */
#define SLURMJOB_FORMAT                                                              \
	"JobID:|,TimeLimit:|,EndTime:|,Account:|,QOS:|,Partition:|,SubmitTime:|,StartTime:|," \
	"ArrayJobID:|,ArrayTaskID:|,NumCPUs:|,NumNodes:|,tres-alloc:|,NodeList:"

/*
 * Parse one line of `squeue --Format=SLURMJOB_FORMAT` after its job id (with
 * SLURM_TIME_FORMAT=%s): 0 with the facts, or -1.  A line cut off (no
 * newline) loses only its node list.  Exposed for the unit test.
 */
int slurmjob_parse(const char *line, struct slurmjob_facts *f);

/* The line of job (its raw id, squeue's JobID) in squeue's reply, parsed:
 * 0, or -1 when it is not there or unparsable.  Exposed for the unit
 * test. */
int slurmjob_pick(const char *reply, const char *job, struct slurmjob_facts *f);

#endif
