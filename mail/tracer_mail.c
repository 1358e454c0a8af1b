/*
 * tracer_mail.c - tracer-mail, Slurm's MailProg on the controller: adds
 * the job's verdict (`tracer show --brief JOBID`, lib/brief.c) to the
 * end of Slurm's end, failure and requeue mails, then hands the mail to
 * the real mailer with Slurm's own arguments.
 *
 *   tracer-mail [--config FILE] [--mail-command PATH] [--tracer PATH]
 *               [--timeout SECONDS] -s SUBJECT USER      (as slurmctld calls it)
 *
 * The verdict is looked up only among the jobs of the cluster and the
 * user slurmctld names in MailProg's environment (SLURM_CLUSTER_NAME,
 * SLURM_JOB_UID or SLURM_JOB_USER): another cluster's or another user's
 * job of the same id is never mailed; without the user, no verdict.
 *
 * The mail must go out whatever happens: every step that could fail
 * (the configuration, the verdict, the copy of the body) is skipped with
 * a line on stderr and the mailer is run all the same; the verdict is
 * bounded by --timeout in all, its tries included.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "defaults.h"
#include "slurmmail.h"

#define VERDICT_MAX 4096  /* bytes of tracer's answer kept */
#define RETRY_MS 500      /* between two asks while the summary is not there */

struct mail_opts {
	const char *cluster;      /* SLURM_CLUSTER_NAME; NULL: not given */
	const char *user;         /* SLURM_JOB_UID, else SLURM_JOB_USER */
	const char *config;       /* NULL: tracer's default */
	const char *mail_command; /* NULL: mail_command of the configuration */
	const char *tracer;       /* NULL: beside this program */
	int timeout_s;
	int first_mail_arg;       /* argv index of Slurm's first argument */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tracer-mail [--config FILE] [--mail-command PATH] [--tracer PATH]\n"
		"                   [--timeout SECONDS] [MAIL ARGUMENTS...]\n"
		"Slurm's MailProg: the job's verdict (tracer show --brief JOBID) is added to\n"
		"the body of end, failure and requeue mails, then the mail goes to the mailer\n"
		"with the arguments as given (-s SUBJECT USER).  The mail goes out whatever\n"
		"happens.\n"
		"      --config FILE        tracer's configuration (default %s)\n"
		"      --mail-command PATH  the mailer (default: mail_command, %s)\n"
		"      --tracer PATH        the tracer command (default: beside tracer-mail)\n"
		"      --timeout SECONDS    longest wait for the verdict, 1..60 (default %d)\n"
		"  -h, --help               this help\n",
		TRACER_DEFAULT_CONFIG, TRACER_DEFAULT_MAIL_COMMAND, TRACER_MAIL_BRIEF_TIMEOUT_S);
}

/*
 * Our options come first and only in the --name VALUE / --name=VALUE
 * forms; everything from the first other argument on is the mailer's,
 * passed as is.  A bad value of ours is reported and ignored.
 */
static void parse_opts(int argc, char **argv, struct mail_opts *o)
{
	static const char *const names[] = {"--config", "--mail-command", "--tracer", "--timeout"};
	int i = 1;

	o->timeout_s = TRACER_MAIL_BRIEF_TIMEOUT_S;
	while (i < argc) {
		const char *a = argv[i], *val = NULL;
		size_t k, n = 0;

		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			n = strlen(names[k]);
			if (!strncmp(a, names[k], n) && (a[n] == '\0' || a[n] == '='))
				break;
		}
		if (k == sizeof(names) / sizeof(names[0]))
			break;
		if (a[n] == '=') {
			val = a + n + 1;
			i++;
		} else if (i + 1 < argc) {
			val = argv[i + 1];
			i += 2;
		} else {
			fprintf(stderr, "tracer-mail: %s needs a value, ignored\n", a);
			i++;
			continue;
		}
		if (k == 0) {
			o->config = val;
		} else if (k == 1) {
			o->mail_command = val;
		} else if (k == 2) {
			o->tracer = val;
		} else {
			char *end;
			long t = strtol(val, &end, 10);

			if (end == val || *end || t < 1 || t > 60)
				fprintf(stderr, "tracer-mail: --timeout %s: expected 1..60 seconds, "
						"%d kept\n", val, o->timeout_s);
			else
				o->timeout_s = (int)t;
		}
	}
	o->first_mail_arg = i;
}

/* The subject: the argument after the mailer's -s. */
static const char *find_subject(int argc, char **argv, int from)
{
	for (int i = from; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-s"))
			return argv[i + 1];
	return NULL;
}

/* tracer beside this program (both are installed in one bin directory). */
static void default_tracer(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0) {
		snprintf(buf, len, "/usr/bin/tracer");
		return;
	}
	self[n] = '\0';
	slash = strrchr(self, '/');
	snprintf(buf, len, "%.*s/tracer", slash ? (int)(slash - self) : 0, self);
}

static const char *nonempty(const char *s)
{
	return s && s[0] ? s : NULL;
}

static void config_warn(const char *msg)
{
	fprintf(stderr, "tracer-mail: config: %s\n", msg);
}

/* Run tracer once; its stdout into out.  Returns its exit status, or -1
 * when it could not be run or was stopped at the deadline. */
static int ask_tracer(const struct mail_opts *o, const char *tracer, const char *job_id,
		      uint64_t deadline_ms, char *out, size_t outlen, size_t *got)
{
	int fds[2], status = 0;
	pid_t pid;
	bool killed = false;

	*got = 0;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		fprintf(stderr, "tracer-mail: pipe: %s\n", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "tracer-mail: fork: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null < 0 || dup2(null, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(null, 2) < 0)
			_exit(127);
		const char *av[12];
		int n = 0;

		av[n++] = "tracer";
		if (o->config) {
			av[n++] = "--config";
			av[n++] = o->config;
		}
		av[n++] = "show";
		av[n++] = "--brief";
		av[n++] = "--user";
		av[n++] = o->user;
		if (o->cluster) {
			av[n++] = "--cluster";
			av[n++] = o->cluster;
		}
		av[n++] = "--";
		av[n++] = job_id;
		av[n] = NULL;
		execv(tracer, (char *const *)av);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		uint64_t now = clock_mono_ms();
		struct pollfd p = {.fd = fds[0], .events = POLLIN};
		ssize_t n;
		int r;

		if (now >= deadline_ms) {
			killed = true;
			break;
		}
		r = poll(&p, 1, (int)(deadline_ms - now));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			killed = r == 0;
			break;
		}
		n = read(fds[0], out + *got, outlen - 1 - *got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*got += (size_t)n;
		if (*got == outlen - 1) { /* more than a verdict: keep what we have */
			killed = true;
			break;
		}
	}
	out[*got] = '\0';
	close(fds[0]);
	if (killed && kill(pid, SIGKILL) < 0 && errno != ESRCH)
		fprintf(stderr, "tracer-mail: kill %d: %s\n", (int)pid, strerror(errno));
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (killed) {
		fprintf(stderr, "tracer-mail: %s show --brief %s: no answer within the timeout\n",
			tracer, job_id);
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * The job's verdict into out ("" when there is none): the summary may be
 * written a moment after slurmctld sends the end mail, so "no such job"
 * (exit 1) is asked again until the deadline.
 */
static void get_verdict(const struct mail_opts *o, const char *job_id, char *out, size_t outlen)
{
	uint64_t deadline = clock_mono_ms() + (uint64_t)o->timeout_s * 1000;
	char tracer[PATH_MAX];
	size_t got = 0;
	int rc;

	out[0] = '\0';
	if (o->tracer)
		snprintf(tracer, sizeof(tracer), "%s", o->tracer);
	else
		default_tracer(tracer, sizeof(tracer));
	for (;;) {
		rc = ask_tracer(o, tracer, job_id, deadline, out, outlen, &got);
		if (rc == 0 && got > 0)
			return;
		out[0] = '\0';
		if (rc != 1 || clock_mono_ms() + RETRY_MS >= deadline)
			break;
		struct timespec ts = {.tv_sec = 0, .tv_nsec = RETRY_MS * 1000000L};

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	fprintf(stderr, "tracer-mail: no verdict for job %s (%s exited %d)\n", job_id, tracer, rc);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The body: Slurm's (stdin; empty from slurmctld 22.05), then the
 * verdict, in a memory file that becomes the mailer's stdin.  Returns it,
 * or -1 (after a line on stderr) when the mailer must read our stdin as
 * it is: nothing of it was consumed then.
 */
static int body_with_verdict(const char *job_id, const char *verdict)
{
	char buf[65536], head[128];
	size_t total = 0;
	bool nl = true;
	int fd = memfd_create("tracer-mail", MFD_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "tracer-mail: memfd_create: %s; the mail goes without the verdict\n",
			strerror(errno));
		return -1;
	}
	for (;;) {
		ssize_t n = read(0, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EBADF)
			fprintf(stderr, "tracer-mail: reading the body: %s\n", strerror(errno));
		if (n <= 0)
			break;
		if (write_all(fd, buf, (size_t)n) < 0) {
			fprintf(stderr, "tracer-mail: copying the body: %s\n", strerror(errno));
			break;
		}
		total += (size_t)n;
		nl = buf[n - 1] == '\n';
	}
	snprintf(head, sizeof(head), "%s-- tracer: job %s (tracer show %s for more) --\n",
		 total == 0 ? "" : nl ? "\n" : "\n\n", job_id, job_id);
	if (write_all(fd, head, strlen(head)) < 0 || write_all(fd, verdict, strlen(verdict)) < 0)
		fprintf(stderr, "tracer-mail: adding the verdict: %s\n", strerror(errno));
	if (lseek(fd, 0, SEEK_SET) < 0) {
		fprintf(stderr, "tracer-mail: lseek: %s\n", strerror(errno));
		close(fd);
		return -1; /* cannot happen on a memfd; stdin may be read already */
	}
	return fd;
}

/* Run the mailer with Slurm's arguments; only returns when it cannot. */
static void run_mailer(const char *mailer, int argc, char **argv, int first)
{
	char **av = calloc((size_t)(argc - first) + 2, sizeof(char *));

	if (!av) {
		fprintf(stderr, "tracer-mail: out of memory\n");
		return;
	}
	av[0] = (char *)mailer;
	for (int i = first; i < argc; i++)
		av[1 + i - first] = argv[i];
	execv(mailer, av);
	fprintf(stderr, "tracer-mail: cannot run %s: %s\n", mailer, strerror(errno));
	free(av);
}

int main(int argc, char **argv)
{
	struct mail_opts o = {0};
	struct tracer_config cfg;
	struct slurmmail m;
	char verdict[VERDICT_MAX];
	const char *subject, *mailer;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	parse_opts(argc, argv, &o);
	config_defaults(&cfg);
	if (config_load(&cfg, o.config ? o.config : TRACER_DEFAULT_CONFIG, true, config_warn) != 0)
		fprintf(stderr, "tracer-mail: configuration %s not read, defaults used\n",
			o.config ? o.config : TRACER_DEFAULT_CONFIG);
	subject = find_subject(argc, argv, o.first_mail_arg);
	if (slurmmail_parse(subject, &m) != 0)
		slurmmail_from_env(getenv("SLURM_JOB_ID"), getenv("SLURM_JOB_MAIL_TYPE"), &m);
	else
		slurmmail_type(getenv("SLURM_JOB_MAIL_TYPE"), &m.event); /* before the subject's */
	o.cluster = nonempty(getenv("SLURM_CLUSTER_NAME"));
	o.user = nonempty(getenv("SLURM_JOB_UID"));
	if (!o.user)
		o.user = nonempty(getenv("SLURM_JOB_USER"));
	if (slurmmail_wants_verdict(&m) && !o.user)
		fprintf(stderr, "tracer-mail: no verdict for job %s: neither SLURM_JOB_UID nor "
				"SLURM_JOB_USER is set (the job's owner is not known)\n", m.job_id);
	else if (slurmmail_wants_verdict(&m)) {
		get_verdict(&o, m.job_id, verdict, sizeof(verdict));
		if (verdict[0]) {
			int fd = body_with_verdict(m.job_id, verdict);

			if (fd >= 0 && (dup2(fd, 0) < 0 || close(fd) < 0))
				fprintf(stderr, "tracer-mail: dup2: %s\n", strerror(errno));
		}
	}
	mailer = o.mail_command ? o.mail_command : cfg.mail_command;
	run_mailer(mailer, argc, argv, o.first_mail_arg);
	if (strcmp(mailer, TRACER_DEFAULT_MAIL_COMMAND)) /* the mail still goes */
		run_mailer(TRACER_DEFAULT_MAIL_COMMAND, argc, argv, o.first_mail_arg);
	return 1;
}
