/*
 * slurmmail.h - what a Slurm mail is about, read from the subject that
 * slurmctld gives its MailProg ("Slurm Job_id=1234 Name=x Ended, Run
 * time 00:00:05, COMPLETED, ExitCode 0"), for tracer-mail.
 */
#ifndef TRACER_SLURMMAIL_H
#define TRACER_SLURMMAIL_H

#include <stdbool.h>

enum slurmmail_event {
	SLURMMAIL_OTHER = 0, /* began, time limit warnings, ...: no verdict */
	SLURMMAIL_ENDED,     /* "Ended" (any end state, TIMEOUT included) */
	SLURMMAIL_FAILED,    /* "Failed" */
	SLURMMAIL_REQUEUED,  /* "Requeued": a run ended and the job waits again */
};

struct slurmmail {
	char job_id[24];           /* the job's own id (an array task's too); "" unknown */
	enum slurmmail_event event;
	bool array_summary;        /* "Job_id=1234_*": every task of an array */
};

/*
 * Read subject.  The job id is the number after "Job_id=" (an array
 * task's own id in the parentheses that follow "Job_id=1234_5"); the
 * event is the last of Ended/Failed/Requeued after the name (a job name
 * may hold any of them).  Returns 0 when a job id was found, else -1.
 */
int slurmmail_parse(const char *subject, struct slurmmail *m);

/*
 * The same from the environment slurmctld gives MailProg (Slurm 21.08
 * on: SLURM_JOB_ID, SLURM_JOB_MAIL_TYPE), for a subject of another
 * form: job_id and mail_type may be NULL.  Returns 0 or -1 as above.
 */
int slurmmail_from_env(const char *job_id, const char *mail_type, struct slurmmail *m);

/* The event of SLURM_JOB_MAIL_TYPE ("Ended", "Failed", "Requeued"; any
 * other word: SLURMMAIL_OTHER) into *ev: 0, or -1 when it is NULL or
 * empty (*ev unchanged). */
int slurmmail_type(const char *mail_type, enum slurmmail_event *ev);

/* Does this mail end a run of the job (a verdict belongs in it)? */
bool slurmmail_wants_verdict(const struct slurmmail *m);

#endif
