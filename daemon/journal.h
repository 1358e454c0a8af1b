/*
 * journal.h - tracerd's journal of open jobs, in the state directory:
 * written while it runs, read by the next tracerd to resume the jobs
 * (their live processes come from the process table, pinned in bpffs).
 * Only open jobs: finished summaries are the sinks' business.
 */
#ifndef TRACERD_JOURNAL_H
#define TRACERD_JOURNAL_H

#include <stdbool.h>

#include "jobs.h"

/* Write js->journal_path now (0 or -1; a failure is logged once). */
int journal_write(struct jobs *js);
/* From the loop's tick: write when a job opened or closed, and every second. */
void journal_tick(struct jobs *js);
/*
 * Re-open the jobs of the journal left by a previous tracerd.  maps:
 * its kernel state was kept (bpf_loader_resumed()): their live processes
 * are adopted from the process table.  Each resumed job gets a gap from
 * the journal's last write to now.  Returns the number of jobs resumed.
 */
int journal_resume(struct jobs *js, bool maps);

#endif
