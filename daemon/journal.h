/*
 * journal.h - tracerd's journal of open jobs, in the state directory:
 * written while it runs, read by the next tracerd to resume the jobs
 * (their live processes come from the process table, pinned in bpffs).
 * Open jobs, and closed jobs until the spool has their summaries.
 */
#ifndef TRACERD_JOURNAL_H
#define TRACERD_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct jobs;
struct open_job;
struct journal_done;

/* The journal's state, in struct jobs (jobs.h): owned by journal.c; the
 * table only says that a job opened or closed (dirty). */
struct journal {
	const char *path;          /* NULL: no journal */
	uint64_t at_ns;            /* monotonic time of the last write */
	bool dirty, warned;        /* a job opened or closed; a failure logged */
	/* closed jobs kept in the journal until their summary is spooled */
	struct journal_done *done;
	size_t ndone, done_cap;
};

/* What the journal keeps of one open job, in struct open_job: owned by
 * journal.c. */
struct journal_job {
	bool resume_closing;       /* it was closing when tracerd stopped */
	/* a closed job whose summary a crash lost before the spool had it,
	 * finished again from the journal */
	bool recovered;
	uint64_t recovered_end_ns;
	char summary_id[40];       /* the lost summary's id, kept */
};

/* Was oj rebuilt from the journal (closed before a crash, its summary
 * lost)?  Its end time, then, as the journal kept it (jobs_finish). */
bool journal_rebuilt(const struct open_job *oj);
uint64_t journal_end_ns(const struct open_job *oj);

/* Write js->journal.path now (0 or -1; a failure is logged once). */
int journal_write(struct jobs *js);
/* From the loop's tick: write when a job opened or closed, and every
 * second; then the closed jobs' summaries to delivery. */
void journal_tick(struct jobs *js);
/* After each turn of the loop: when closed jobs' summaries wait, the
 * tick, at most every JOURNAL_FLUSH_NS (journal.c). */
void journal_flush(struct jobs *js);
/*
 * Re-open the jobs of the journal left by a previous tracerd.  maps:
 * its kernel state was kept (bpf_loader_resumed()): their live processes
 * are adopted from the process table.  Each resumed job gets a gap from
 * the journal's last write to now.  Returns the number of jobs resumed.
 */
int journal_resume(struct jobs *js, bool maps);

/*
 * Hand a closed job's summary to delivery (jobs_finish), once a journal
 * that lists the job as finished is written (journal_flush, journal_tick):
 * the job stays in the journal until the spool has it.  A job rebuilt
 * from the journal (journal_rebuilt()) keeps its summary_id and is marked
 * incomplete.  Without a journal, to delivery at once.
 */
void journal_submit(struct jobs *js, struct open_job *oj, cJSON *summary);
/* Shutdown: wait (timeout_ms at most) for the spool to have the closed
 * jobs' summaries, then write the journal. */
void journal_settle(struct jobs *js, unsigned timeout_ms);
void journal_free(struct jobs *js);

#endif
