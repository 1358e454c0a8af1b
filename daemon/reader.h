/*
 * reader.h - tracerd in reader mode (`tracerd --reader`, mode = reader):
 * a login node's daemon, with no BPF, no kernel requirement and no
 * sinks.  It traces nothing and registers no job; it only answers
 * "summaries", "summary", "sweep" and "status" on its socket, from the datalake
 * (archive.c with datalake = clickhouse), each user seeing only their own
 * jobs.  The datalake's credentials stay with it (root-only file).
 */
#ifndef TRACERD_READER_H
#define TRACERD_READER_H

#include "config.h"
#include "daemonconf.h"

/* Is cfg tracerd's reader mode? */
bool reader_mode(const struct tracer_config *cfg);

/* Run the reader until SIGTERM or SIGINT: the exit status. */
int reader_run(const struct daemonconf *dc, const struct tracer_config *cfg);

#endif
