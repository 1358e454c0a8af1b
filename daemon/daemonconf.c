/*
 * daemonconf.c - tracerd's command line, --check-config, signals and
 * the SIGHUP reload (daemonconf.h).
 *
 * One parser (lib/config.c) and one strict check for all three: a file
 * with any problem (unknown key, bad value, duplicate, a rules file that
 * does not parse) is refused as a whole.  A starting tracerd exits 78
 * rather than run with a default where the file said otherwise (a typo in
 * `sinks` must not silently mean `file`); --check-config says the same
 * without starting; SIGHUP keeps the running configuration.
 */
#include "daemonconf.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "mkdirs.h"
#include "summary.h" /* TRACER_VERSION */

/*
 * Keys a reload changes: those read where they are used (the sinks, the
 * analysis at each job's end, the rules at each exec, each sample).
 * Every other key, those of the future included, is read once at start:
 * a reload keeps its value and says so.
 */
static const char *const reloadable[] = {
	"sinks", "file", "file_max_bytes", "file_keep", "http_url", "http_timeout_ms",
	"http_token_file", "http_ca_file", "http_gzip", "clickhouse_url",
	"clickhouse_database", "clickhouse_user", "clickhouse_password_file",
	"retry_max_ms", "spool_max_bytes", "rules", "keep_procs", "sample_interval_ms",
	"log_level", "advice_min_runtime_s", "stall_threshold_s", "docker_sockets",
	"docker_clients",
};
static const char *const reloadable_prefixes[] = {"flag_", "price_"};

static bool is_reloadable(const char *key)
{
	for (size_t i = 0; i < sizeof(reloadable) / sizeof(reloadable[0]); i++)
		if (strcmp(key, reloadable[i]) == 0)
			return true;
	for (size_t i = 0; i < sizeof(reloadable_prefixes) / sizeof(reloadable_prefixes[0]); i++)
		if (strncmp(key, reloadable_prefixes[i], strlen(reloadable_prefixes[i])) == 0)
			return true;
	return false;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tracerd [-c CONFIG] [-o KEY=VALUE]... [-v] [--check-config] [--reader]\n"
		"  Node daemon of tracer: records every process of registered jobs.\n"
		"  -c, --config FILE   configuration (default " TRACER_DEFAULT_CONFIG ")\n"
		"  -o, --set KEY=VAL   override one configuration key (see tracer.conf(5))\n"
		"      --check-config  check the configuration and exit: 0 valid, 78 not\n"
		"      --reader        no tracing: only answer tracer jobs/show/report from\n"
		"                      the datalake (mode = reader; a login node)\n"
		"  -v, --verbose       debug messages\n"
		"  -h, --help          this help\n"
		"      --version       print the version\n");
}

static void config_warn(const char *msg)
{
	log_warn("config: %s", msg);
}

/* ---- strict reading: start-up, --check-config and SIGHUP ---- */

static config_warn_fn report_fn; /* where problems go now (one reader at a time) */
static int rules_problems;

static void rules_report(const char *msg)
{
	rules_problems++;
	report_fn(msg);
}

/* Keys that are each valid but do not go together. */
static int check_sinks(const struct daemonconf *dc, const struct tracer_config *cfg)
{
	char msg[600];
	int problems = 0;

	if (strstr(cfg->sinks, "http") && !cfg->http_url[0]) {
		snprintf(msg, sizeof(msg), "%s: http_url: empty, but sinks lists http", dc->path);
		report_fn(msg);
		problems++;
	}
	if (strstr(cfg->sinks, "clickhouse") &&
	    (!cfg->clickhouse_url[0] || !cfg->clickhouse_database[0])) {
		snprintf(msg, sizeof(msg),
			 "%s: clickhouse_url: clickhouse_url and clickhouse_database needed by sink clickhouse",
			 dc->path);
		report_fn(msg);
		problems++;
	}
	return problems;
}

/* The file and the overrides into cfg: the number of problems (0: valid). */
static int load_strict(const struct daemonconf *dc, struct tracer_config *cfg,
		       config_warn_fn report)
{
	char err[512], msg[600];
	int problems, rc;

	report_fn = report;
	config_defaults(cfg);
	rc = config_check(cfg, dc->path, !dc->path_given, report);
	problems = rc < 0 ? 1 : rc;
	for (int i = 0; i < dc->noverrides; i++) {
		if (config_set_pair(cfg, dc->overrides[i], err, sizeof(err)) != 0) {
			snprintf(msg, sizeof(msg), "-o %s", err);
			report(msg);
			problems++;
		}
	}
	if (dc->reader)
		snprintf(cfg->mode, sizeof(cfg->mode), "reader");
	problems += check_sinks(dc, cfg);
	if (strcmp(cfg->mode, "reader") == 0 && strcmp(cfg->datalake, "clickhouse") != 0) {
		snprintf(msg, sizeof(msg), "%s: mode: reader answers from the datalake: "
			 "datalake = clickhouse needed", dc->path);
		report(msg);
		problems++;
	}
	/* the rules file, when there is one (none: the built-in rules) */
	if (access(cfg->rules_path, F_OK) == 0) {
		rules_problems = 0;
		rules_free(rules_load(cfg->rules_path, rules_report));
		problems += rules_problems;
	}
	return problems;
}

static void print_problem(const char *msg)
{
	fprintf(stderr, "%s\n", msg);
}

static int check_config(const struct daemonconf *dc)
{
	struct tracer_config *cfg = malloc(sizeof(*cfg));
	int problems;

	if (!cfg) {
		fprintf(stderr, "tracerd: out of memory\n");
		return 1;
	}
	problems = load_strict(dc, cfg, print_problem);
	free(cfg);
	if (problems) {
		fprintf(stderr, "tracerd: %s: %d problem%s\n", dc->path, problems,
			problems == 1 ? "" : "s");
		return DAEMONCONF_EX_CONFIG;
	}
	if (access(dc->path, F_OK) != 0)
		printf("%s: absent: the defaults apply\n", dc->path);
	else
		printf("%s: valid\n", dc->path);
	return 0;
}

/* A starting tracerd: each problem on stderr (the journal), then a count. */
static void log_start_problem(const char *msg)
{
	log_error("%s", msg);
}

/* The configuration of a starting tracerd, as strict as --check-config:
 * -1 to run, DAEMONCONF_EX_CONFIG when the file or an override is bad. */
static int start_config(const struct daemonconf *dc, struct tracer_config *cfg)
{
	int problems = load_strict(dc, cfg, log_start_problem);
	int lvl;

	if (problems) {
		log_error("%s: %d problem%s: not starting (tracerd --check-config lists them)",
			  dc->path, problems, problems == 1 ? "" : "s");
		return DAEMONCONF_EX_CONFIG;
	}
	lvl = log_parse_level(cfg->log_level);
	if (lvl >= 0 && !dc->verbose)
		log_set_level((enum log_level)lvl);
	return -1;
}

/* ---- the command line ---- */

int daemonconf_args(struct daemonconf *dc, struct tracer_config *cfg, int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"set", required_argument, NULL, 'o'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"check-config", no_argument, NULL, 'C'},
		{"reader", no_argument, NULL, 'R'},
		{NULL, 0, NULL, 0},
	};
	int c;

	memset(dc, 0, sizeof(*dc));
	dc->path = TRACER_DEFAULT_CONFIG;
	opterr = 0; /* one line of our own below */
	while ((c = getopt_long(argc, argv, ":c:o:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			dc->path = optarg;
			dc->path_given = true;
			break;
		case 'o':
			if (dc->noverrides == DAEMONCONF_MAX_OVERRIDES) {
				log_error("too many -o options");
				return 2;
			}
			dc->overrides[dc->noverrides++] = optarg;
			break;
		case 'v':
			log_set_level(LOG_DEBUG);
			dc->verbose = true;
			break;
		case 'C':
			dc->check = true;
			break;
		case 'R':
			dc->reader = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("tracerd %s\n", TRACER_VERSION);
			return 0;
		case ':':
			fprintf(stderr, "tracerd: option %s needs a value\n", argv[optind - 1]);
			return 2;
		default:
			if (optopt && argv[optind - 1][1] != '-')
				fprintf(stderr, "tracerd: unknown option -%c (see tracerd --help)\n",
					optopt);
			else
				fprintf(stderr, "tracerd: unknown option %.*s (see tracerd --help)\n",
					(int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tracerd: unexpected argument \"%s\" (see tracerd --help)\n",
			argv[optind]);
		return 2;
	}
	if (dc->check)
		return check_config(dc);
	return start_config(dc, cfg);
}

/* ---- SIGHUP ---- */

static void log_problem(const char *msg)
{
	log_error("SIGHUP: %s", msg);
}

void daemonconf_reload(const struct daemonconf *dc, struct tracer_config *cfg,
		       struct rules **rules, struct jobs *js, struct delivery *delivery)
{
	struct tracer_config *ncfg = malloc(sizeof(*ncfg));
	struct rules *nr;
	int problems;

	if (!ncfg) {
		log_error("SIGHUP: out of memory: the current configuration stays");
		return;
	}
	problems = load_strict(dc, ncfg, log_problem);
	if (problems) {
		log_error("SIGHUP: %s: %d problem%s: the current configuration stays", dc->path,
			  problems, problems == 1 ? "" : "s");
		free(ncfg);
		return;
	}
	nr = rules_load(ncfg->rules_path, config_warn);
	if (!nr) {
		log_error("SIGHUP: cannot load the tool rules: the current configuration stays");
		free(ncfg);
		return;
	}
	for (size_t i = 0; config_key_name(i); i++) {
		const char *key = config_key_name(i);
		if (!is_reloadable(key) && config_copy_key(ncfg, cfg, key) == 1)
			log_warn("SIGHUP: %s changed: it takes effect at the next start", key);
	}
	/* the loop's readers (jobs, analysis) see the new values from now on;
	 * delivery has its own copy, handed over below */
	*cfg = *ncfg;
	free(ncfg);
	rules_free(*rules);
	*rules = nr;
	js->rules = nr;
	if (!dc->verbose) {
		int lvl = log_parse_level(cfg->log_level);
		if (lvl >= 0)
			log_set_level((enum log_level)lvl);
	}
	delivery_reload(delivery, cfg);
	log_info("SIGHUP: configuration reloaded from %s (sinks %s)", dc->path, cfg->sinks);
}

/* ---- signals ---- */

int daemonconf_signals_open(int epfd, struct server_watch *w)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = w};
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) {
		log_error("sigprocmask: %s", strerror(errno));
		return -1;
	}
	/* A registrant that hangs up must not kill us. */
	signal(SIGPIPE, SIG_IGN);
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0) {
		log_error("signalfd: %s", strerror(errno));
		return -1;
	}
	w->kind = WATCH_SIGNAL;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		log_error("epoll_ctl signalfd: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int daemonconf_signals_read(int fd)
{
	struct signalfd_siginfo si;
	int what = 0;

	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			log_info("SIGHUP: reloading the configuration");
			what |= SIGNALS_RELOAD;
			continue;
		}
		log_info("signal %u: shutting down", si.ssi_signo);
		what |= SIGNALS_STOP;
	}
	return what;
}

/* ---- the journal's place ---- */

/*
 * state_dir/journal-<pin_dir's name>.json, so that tracerds with their
 * own pin_dir (tests) never share one.  NULL when it cannot be (no
 * resume, no state_dir, mkdir failed).
 */
const char *daemonconf_journal_path(const struct tracer_config *cfg)
{
	static char path[PATH_MAX];
	char pins[PATH_MAX], err[PATH_MAX + 64];

	if (!cfg->resume || !cfg->state_dir[0] || !cfg->pin_dir[0])
		return NULL;
	if (mkdirs(cfg->state_dir, 0700, err, sizeof(err)) != 0) {
		log_warn("state_dir %s: %s: open jobs will not survive a restart", cfg->state_dir,
			 err);
		return NULL;
	}
	snprintf(pins, sizeof(pins), "%s", cfg->pin_dir);
	if (snprintf(path, sizeof(path), "%s/journal-%s.json", cfg->state_dir, basename(pins)) >=
	    (int)sizeof(path))
		return NULL;
	return path;
}
