/*
 * main.c - tracer-wrap: the job's entrypoint.  It finds out who the job
 * is, then either registers itself with the node's tracerd (the child it
 * forks inherits the tag in the kernel) or records the job by itself,
 * and in both cases runs the command as a correct init and exits with
 * its status.  Whatever goes wrong with tracing, the command still runs.
 */
#include "wrap.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "log.h"
#include "runner.h"

/* Signals that come before the child exists are passed on to it after. */
static const int early_sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT,
				 SIGUSR1, SIGUSR2};
static volatile sig_atomic_t early_pending[sizeof(early_sigs) / sizeof(int)];

static void early_handler(int sig)
{
	for (size_t i = 0; i < sizeof(early_sigs) / sizeof(int); i++)
		if (early_sigs[i] == sig)
			early_pending[i] = 1;
}

static void catch_early_signals(void)
{
	struct sigaction sa = {.sa_handler = early_handler, .sa_flags = SA_RESTART};

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(early_sigs) / sizeof(int); i++)
		if (sigaction(early_sigs[i], &sa, NULL) < 0)
			log_warn("sigaction(%d): %s", early_sigs[i], strerror(errno));
}

void wrap_forward_early_signals(pid_t child, bool pgroup)
{
	for (size_t i = 0; i < sizeof(early_sigs) / sizeof(int); i++) {
		if (!early_pending[i])
			continue;
		early_pending[i] = 0;
		if (kill(pgroup ? -child : child, early_sigs[i]) < 0)
			log_warn("passing early signal %d: %s", early_sigs[i],
				 strerror(errno));
	}
}

static void set_log_level(const struct wrap_opts *o,
			  const struct tracer_config *cfg)
{
	int lvl = log_parse_level(cfg->log_level);

	/* the wrapper speaks on the job's stderr: warnings and up only */
	if (lvl < LOG_WARN)
		lvl = LOG_WARN;
	log_set_level(o->verbose ? LOG_DEBUG : (enum log_level)lvl);
}

/* Registered with tracerd: run the child tagged, tell tracerd the end. */
static int run_tagged(const struct wrap_opts *o,
		      const struct tracer_config *cfg, const char *job_uid)
{
	struct runner_opts ropts = {.signal_pgroup = o->pgroup, .subreaper = true};
	struct runner r;
	char err[256];
	int status;

	if (runner_start(&r, o->cmd, &ropts) < 0) {
		status = r.child_status;
	} else {
		wrap_forward_early_signals(r.child, o->pgroup);
		status = runner_wait(&r);
	}
	if (tracer_end(cfg->socket_path, cfg->client_timeout_ms, job_uid,
		       status, err, sizeof(err)) < 0)
		log_warn("telling tracerd that job %s ended: %s", job_uid, err);
	return runner_exit_code(status);
}

/* 0 and the job's uid when tracerd took us; -1 to go standalone. */
static int try_register(const struct tracer_config *cfg,
			const struct tracer_identity *id, char *uid, size_t len)
{
	struct stat st;
	char err[256];

	if (stat(cfg->socket_path, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		log_debug("no tracerd socket at %s: standalone", cfg->socket_path);
		return -1;
	}
	if (tracer_register(cfg->socket_path, cfg->client_timeout_ms, id, uid,
			    len, err, sizeof(err)) < 0) {
		log_warn("tracerd at %s: %s: recording in the wrapper",
			 cfg->socket_path, err);
		return -1;
	}
	log_debug("registered with tracerd as job %s", uid);
	return 0;
}

int main(int argc, char **argv)
{
	struct tracer_identity id;
	struct tracer_config cfg;
	struct wrap_opts o;
	char uid[TRACER_JOB_UID_LEN];
	int rc;

	log_set_prefix("tracer-wrap");
	log_set_level(LOG_WARN);
	catch_early_signals();
	rc = wrap_parse_args(argc, argv, &o);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (o.verbose)
		log_set_level(LOG_DEBUG);
	wrap_load_config(&o, &cfg);
	set_log_level(&o, &cfg);
	wrap_identity(&o, &cfg, &id);

	if (!o.standalone && try_register(&cfg, &id, uid, sizeof(uid)) == 0)
		return run_tagged(&o, &cfg, uid);
	return standalone_run(&o, &cfg, &id);
}
