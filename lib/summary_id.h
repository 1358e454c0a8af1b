/*
 * summary_id.h - the unique id of one summary (docs/schema.md,
 * `summary_id`): a random UUID (version 4), drawn once when the summary
 * is built, so every retry of its delivery carries the same id and a
 * sink can drop what it already has.
 */
#ifndef TRACER_SUMMARY_ID_H
#define TRACER_SUMMARY_ID_H

#define SUMMARY_ID_LEN 37 /* "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" + NUL */

/* Fill buf (SUMMARY_ID_LEN bytes) with a new id. */
void summary_id_new(char buf[SUMMARY_ID_LEN]);

#endif
