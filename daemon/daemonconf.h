/*
 * daemonconf.h - tracerd's configuration as a running daemon sees it:
 * the command line, `--check-config`, the signals (signalfd) and the
 * SIGHUP reload of what can change at run time (sinks, thresholds,
 * rules, log level), and where the journal of open jobs lives.
 */
#ifndef TRACERD_DAEMONCONF_H
#define TRACERD_DAEMONCONF_H

#include <stdbool.h>

#include "config.h"
#include "delivery.h"
#include "jobs.h"
#include "rules.h"
#include "server.h"

#define DAEMONCONF_MAX_OVERRIDES 64
/* sysexits.h's EX_CONFIG: what --check-config and a refused start exit with */
#define DAEMONCONF_EX_CONFIG 78

struct daemonconf {
	const char *path;     /* -c FILE, or the default */
	bool path_given;      /* a file named must exist */
	char *overrides[DAEMONCONF_MAX_OVERRIDES]; /* -o KEY=VALUE, applied after the file */
	int noverrides;
	bool verbose;         /* -v: debug, whatever log_level says */
	bool check;           /* --check-config */
	bool reader;          /* --reader: mode = reader, whatever the file says */
};

/*
 * Read the command line into dc and load cfg as strictly as
 * --check-config: any problem is logged as FILE:LINE: KEY: what is wrong
 * and tracerd does not start.  Returns -1 when tracerd is to run,
 * otherwise the status to exit with now (--help, --version,
 * --check-config, a usage error; DAEMONCONF_EX_CONFIG for a bad
 * configuration).
 */
int daemonconf_args(struct daemonconf *dc, struct tracer_config *cfg, int argc, char **argv);

/* state_dir/journal-<pin_dir's name>.json (made), or NULL: no resume. */
const char *daemonconf_journal_path(const struct tracer_config *cfg);

/* SIGTERM, SIGINT, SIGHUP through a signalfd watched by epfd: its fd, or -1. */
int daemonconf_signals_open(int epfd, struct server_watch *w);
#define SIGNALS_STOP 1
#define SIGNALS_RELOAD 2
/* The signals that came (SIGNALS_* bits), read from the signalfd. */
int daemonconf_signals_read(int fd);

/*
 * SIGHUP: read the configuration again, strictly.  Any problem keeps the
 * current configuration (each problem logged).  Otherwise the keys that
 * can change at run time take their new values in cfg, the rules file is
 * read again (*rules and js->rules swapped), and the sinks are handed
 * over to delivery, which restarts them off the event loop; a key that
 * only a restart can change is logged and keeps its value.
 */
void daemonconf_reload(const struct daemonconf *dc, struct tracer_config *cfg,
		       struct rules **rules, struct jobs *js, struct delivery *delivery);

#endif
