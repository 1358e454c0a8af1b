/*
 * brief.h - the verdict on a finished job in a few short lines, for the
 * places that have no room for `tracer show`: the end-of-job mail
 * (tracer-mail), srun's stderr (the SPANK plugin's --tracer-notes) and
 * `tracer show --brief`.
 */
#ifndef TRACER_BRIEF_H
#define TRACER_BRIEF_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

/* no line of the verdict is longer (columns; a longer one is cut) */
#define BRIEF_LINE_MAX 100

/*
 * The verdict of a summary or a job view (docs/schema.md), at most
 * max_lines lines, each ending in '\n':
 *   1. the state, the wall time, the CPU efficiency against the
 *      allocation and the memory peak against the request;
 *   2. the flags' sentences, the job's own before the tools', the most
 *      severe first, as many as fit;
 *   3. "Next time: #SBATCH ..." from recommendation.syntax.slurm.
 * Line 3 is kept when max_lines allows it, before the flags.  A job
 * shorter than advice_min_runtime_s has neither flags (but oom_killed and
 * failed) nor a recommendation, so it gets the first line only.  Control
 * characters of the summary's text are written as '?'.
 * Returns the length of the text in out (always NUL-terminated; cut at a
 * line's end when outlen is too small); 0 when s is not a summary.
 */
size_t brief_lines(const cJSON *summary_or_jobview, int max_lines, char *out, size_t outlen);

/* Is s long enough for advice: does it carry the recommendation that
 * tracerd adds from advice_min_runtime_s of wall time on? */
bool brief_has_advice(const cJSON *s);

#endif
