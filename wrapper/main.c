/*
 * main.c - tracer-wrap: the job's entrypoint.  It finds out who the job
 * is, then either registers itself with the node's tracerd (the child it
 * forks inherits the tag in the kernel) or records the job by itself,
 * and in both cases runs the command as a correct init (runner.h) and
 * exits with its status.  Whatever goes wrong with tracing, the command still runs.
 */
#include "wrap.h"

#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "registrant.h"

static void set_log_level(const struct wrap_opts *o,
			  const struct tracer_config *cfg)
{
	int lvl = log_parse_level(cfg->log_level);

	/* the wrapper speaks on the job's stderr: warnings and up only */
	if (lvl < LOG_WARN)
		lvl = LOG_WARN;
	log_set_level(o->verbose ? LOG_DEBUG : (enum log_level)lvl);
}

/* The runner's problems, on the job's stderr. */
static void report(void *arg, const char *msg)
{
	log_warn("%s", msg);
}

/* 0 when tracerd took us as the job's registrant; -1 to go standalone. */
static int try_register(struct registrant *reg, const struct tracer_config *cfg,
			const struct tracer_identity *id)
{
	struct stat st;
	char err[256];

	if (stat(cfg->socket_path, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		log_debug("no tracerd socket at %s: standalone", cfg->socket_path);
		return -1;
	}
	if (registrant_register(reg, cfg, id, err, sizeof(err)) < 0) {
		log_warn("tracerd at %s: %s: recording in the wrapper",
			 cfg->socket_path, err);
		return -1;
	}
	log_debug("registered with tracerd as job %s", reg->job_uid);
	return 0;
}

int main(int argc, char **argv)
{
	struct runner_opts ropts = {.subreaper = true, .report = report};
	struct registrant reg = {0};
	struct tracer_identity id;
	struct tracer_config cfg;
	struct runner r = {0};
	struct wrap_opts o;
	int rc;

	log_set_prefix("tracer-wrap");
	log_set_level(LOG_WARN);
	/* first: as PID 1, a signal from now on waits for the job, then reaches it */
	runner_block_signals(&r, &ropts);
	rc = wrap_parse_args(argc, argv, &o);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (o.verbose)
		log_set_level(LOG_DEBUG);
	wrap_load_config(&o, &cfg);
	set_log_level(&o, &cfg);
	wrap_identity(&o, &cfg, &id);
	ropts.signal_pgroup = o.pgroup;

	if (!o.standalone && try_register(&reg, &cfg, &id) == 0)
		return registrant_run(&reg, &r, o.cmd, &ropts);
	return standalone_run(&o, &cfg, &id, &r, &ropts);
}
