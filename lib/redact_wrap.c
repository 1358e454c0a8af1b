/*
 * redact_wrap.c - skipping a wrapper's own options and operands to the
 * command it runs.  Each wrapper is described by the options that take a
 * value (short letters, long names): anything else starting with '-' is a
 * flag.  An unknown option that takes a value makes the value look like
 * the command: its tool then has no rules of its own and the generic
 * rules still apply to every argument, so nothing is lost but the
 * tool-specific forms.
 */
#include "redact_wrap.h"

#include <stdbool.h>
#include <string.h>

#include "redact_span.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

enum {
	W_ASSIGN = 1,    /* NAME=VALUE words before the command (sudo, env) */
	W_SUB = 2,       /* a subcommand first: docker exec, apptainer exec */
	W_DASH_LONG = 4, /* long options with one dash too (mpirun -np 4) */
};

struct wrapper {
	const char *names;     /* "|name|name|" */
	const char *short_val; /* short options that take a value */
	const char *long_val;  /* "|long|long|": long options that take one */
	const char *long_val2; /* those that take two (mpirun -x, -mca a b) */
	const char *subs;      /* W_SUB: "|exec|run|" */
	unsigned npos;         /* operands before the command (timeout 10) */
	unsigned flags;
};

#define DOCKER_LONG                                                         \
	"|env|env-file|user|workdir|volume|publish|name|network|net|"       \
	"entrypoint|memory|cpus|mount|label|label-file|hostname|gpus|"      \
	"device|shm-size|ulimit|cap-add|cap-drop|security-opt|platform|"    \
	"pull|restart|runtime|log-driver|log-opt|add-host|dns|ipc|pid|"     \
	"cgroupns|cidfile|userns|group-add|detach-keys|tmpfs|volumes-from|" \
	"link|expose|health-cmd|stop-signal|stop-timeout|cpuset-cpus|"      \
	"cpu-shares|memory-swap|attach|uts|network-alias|ip|mac-address|"   \
	"pids-limit|sysctl|cgroup-parent|cpu-period|cpu-quota|annotation|"  \
	"memory-reservation|host|context|config|log-level|arch|os|"         \
	"device-cgroup-rule|oom-score-adj|storage-opt|volume-driver|"       \
	"isolation|blkio-weight|tlscacert|tlscert|tlskey|preserve-fds|"     \
	"secret|pod|"

#define SRUN_LONG                                                           \
	"|account|begin|cpus-per-task|dependency|chdir|error|input|job-name|" \
	"licenses|distribution|ntasks|nodes|output|partition|qos|relative|"   \
	"time|nodelist|exclude|constraint|gpus|clusters|mem|mem-per-cpu|"     \
	"mem-per-gpu|gres|ntasks-per-node|gpus-per-node|gpus-per-task|"       \
	"cpu-bind|mpi|export|reservation|wckey|comment|mail-type|mail-user|"  \
	"time-min|tmp|uid|gid|het-group|cpus-per-gpu|ntasks-per-core|"        \
	"ntasks-per-socket|sockets-per-node|cores-per-socket|"                \
	"threads-per-core|signal|slurmd-debug|task-prolog|task-epilog|"       \
	"network|container|extra-node-info|hint|acctg-freq|cpu-freq|"         \
	"profile|prolog|epilog|jobid|switches|thread-spec|deadline|"          \
	"delay-boot|core-spec|gpu-bind|gpu-freq|mem-bind|mcs-label|"          \
	"resv-ports|open-mode|priority|nice|"

#define MPI_LONG                                                            \
	"|n|np|c|N|H|host|hosts|hostfile|machinefile|wdir|npernode|"          \
	"npersocket|map-by|bind-to|rank-by|prefix|f|ppn|genvlist|envlist|"    \
	"iface|launcher|bootstrap|output-filename|rankfile|report-bindings|"  \
	"tmpdir|wd|path|preload-files|x|"

static const struct wrapper wrappers[] = {
	{"|sudo|doas|", "CDghpRrTtUu",
	 "|user|group|prompt|role|type|other-user|command-timeout|chroot|"
	 "chdir|close-from|host|", NULL, NULL, 0, W_ASSIGN},
	{"|env|", "uCS", "|unset|chdir|split-string|", NULL, NULL, 0, W_ASSIGN},
	{"|timeout|", "ks", "|kill-after|signal|", NULL, NULL, 1, 0},
	{"|nice|", "n", "|adjustment|", NULL, NULL, 0, 0},
	{"|ionice|", "cn", "|class|classdata|", NULL, NULL, 0, 0},
	{"|time|", "fo", "|format|output|", NULL, NULL, 0, 0},
	{"|xargs|", "adEILnPs",
	 "|arg-file|delimiter|max-lines|max-args|max-procs|max-chars|"
	 "process-slot-var|", NULL, NULL, 0, 0},
	{"|nohup|setsid|exec|command|builtin|then|do|else|if|while|until|!|{|",
	 "", "", NULL, NULL, 0, 0},
	{"|stdbuf|", "ioe", "|input|output|error|", NULL, NULL, 0, 0},
	{"|numactl|", "CmNPp", "|physcpubind|membind|cpunodebind|preferred|"
	 "interleave|", NULL, NULL, 0, 0},
	{"|taskset|chrt|", "", "", NULL, NULL, 1, 0},
	{"|srun|", "AbcdDeiJLmnNopqrtwxCGMSTW", SRUN_LONG, NULL, NULL, 0, 0},
	{"|mpirun|mpiexec|orterun|mpiexec.hydra|prterun|", "nNcHf", MPI_LONG,
	 "|mca|gmca|genv|env|", NULL, 0, W_DASH_LONG},
	{"|docker|podman|nerdctl|", "acehHlmpuvw", DOCKER_LONG, NULL,
	 "|exec|run|", 1, W_SUB},
	{"|apptainer|singularity|", "BHWo",
	 "|bind|home|workdir|overlay|env|env-file|pwd|security|app|network|"
	 "network-args|dns|hostname|mount|scratch|fusemount|apply-cgroups|"
	 "drop-caps|add-caps|", NULL, "|exec|", 1, W_SUB},
};

/* Is word (n bytes) one of "|a|b|"? */
static bool in_list(const char *list, const char *word, size_t n)
{
	const char *p = list;

	if (!list || n == 0)
		return false;
	while ((p = strstr(p, "|")) != NULL && p[1]) {
		const char *e = strchr(p + 1, '|');

		if (!e)
			return false;
		if ((size_t)(e - p - 1) == n && memcmp(p + 1, word, n) == 0)
			return true;
		p = e;
	}
	return false;
}

static const struct wrapper *wrapper_of(const char *tool)
{
	for (size_t i = 0; i < NELEM(wrappers); i++)
		if (in_list(wrappers[i].names, tool, strlen(tool)))
			return &wrappers[i];
	return NULL;
}

bool redact_wrap_assignment(const char *a)
{
	size_t i = 0;

	while ((a[i] >= 'A' && a[i] <= 'Z') || (a[i] >= 'a' && a[i] <= 'z') ||
	       a[i] == '_' || (i > 0 && a[i] >= '0' && a[i] <= '9'))
		i++;
	return i > 0 && a[i] == '=';
}

/*
 * How many arguments the option args[j] of w takes with it (1: itself,
 * 2: and its value, 3: and two values).
 */
static size_t option_width(const struct wrapper *w, const char *a)
{
	const char *name = a + (a[1] == '-' ? 2 : 1);
	size_t n = strlen(name);

	if (a[1] == '-' || (w->flags & W_DASH_LONG)) {
		if (memchr(name, '=', n))
			return 1;
		if (in_list(w->long_val2, name, n))
			return 3;
		if (in_list(w->long_val, name, n))
			return 2;
		if (a[1] == '-')
			return 1;
	}
	/* a cluster of short flags: the first letter that takes a value
	 * takes the rest, or the next argument when nothing is left */
	for (size_t i = 1; a[i]; i++) {
		REDACT_STEP(1);
		if (strchr(w->short_val, a[i]))
			return a[i + 1] ? 1 : 2;
	}
	return 1;
}

/* Options of w from j: the index of the first argument that is not one. */
static size_t skip_options(const struct wrapper *w, const char *const *args,
			   size_t n, size_t j, bool *dashdash)
{
	*dashdash = false;
	while (j < n) {
		const char *a = args[j];

		REDACT_STEP(1);
		if (strcmp(a, "--") == 0) {
			*dashdash = true;
			return j + 1;
		}
		if (a[0] != '-' || a[1] == '\0')
			return j;
		j += option_width(w, a);
	}
	return j;
}

/* sh -c STR, bash -ec STR...: the command string's index, or n. */
static size_t shell_string(const char *const *args, size_t n, size_t k)
{
	bool c = false;
	size_t j = k + 1;

	for (; j < n; j++) {
		const char *a = args[j];

		REDACT_STEP(1);
		if (strcmp(a, "--") == 0) {
			j++;
			break;
		}
		if ((a[0] != '-' && a[0] != '+') || a[1] == '\0')
			break;
		if (strcmp(a + 1, "o") == 0 || strcmp(a + 1, "O") == 0 ||
		    strcmp(a, "--rcfile") == 0 || strcmp(a, "--init-file") == 0)
			j++; /* its value */
		else if (a[0] == '-' && a[1] != '-' && strchr(a + 1, 'c'))
			c = true;
	}
	return c && j < n ? j : n;
}

/* su/runuser -c STR, --command STR. */
static size_t su_string(const char *const *args, size_t n, size_t k)
{
	for (size_t j = k + 1; j + 1 < n; j++) {
		REDACT_STEP(1);
		if (strcmp(args[j], "-c") == 0 || strcmp(args[j], "--command") == 0)
			return j + 1;
	}
	return n;
}

static const char shells[] =
	"|sh|bash|dash|zsh|ksh|mksh|ash|rbash|fish|busybox|";

size_t redact_wrap_next(const char *tool, const char *const *args, size_t n,
			size_t k, size_t *cmdstring)
{
	const struct wrapper *w = wrapper_of(tool);
	unsigned npos;
	bool dashdash = false;
	size_t j;

	*cmdstring = n;
	if (in_list(shells, tool, strlen(tool))) {
		/* busybox sh -c: the applet is the command word */
		if (strcmp(tool, "busybox") == 0)
			return k + 1 < n ? k + 1 : n;
		*cmdstring = shell_string(args, n, k);
		return n;
	}
	if (strcmp(tool, "su") == 0 || strcmp(tool, "runuser") == 0) {
		*cmdstring = su_string(args, n, k);
		return n;
	}
	if (!w)
		return n;
	j = k + 1;
	if (w->flags & W_SUB) {
		/* global options, then "exec"/"run" ("container exec" too) */
		j = skip_options(w, args, n, j, &dashdash);
		if (j < n && strcmp(args[j], "container") == 0)
			j++;
		if (j >= n || !in_list(w->subs, args[j], strlen(args[j])))
			return n;
		j++;
	}
	npos = w->npos;
	while (j < n) {
		j = skip_options(w, args, n, j, &dashdash);
		if (dashdash || j >= n)
			break;
		if ((w->flags & W_ASSIGN) && redact_wrap_assignment(args[j])) {
			j++;
			continue;
		}
		if (npos == 0)
			break;
		npos--;
		j++;
		if (npos == 0)
			break; /* the command follows its last operand */
	}
	/* after "--" the operands still come first (timeout -- 10 cmd) */
	while (dashdash && npos > 0 && j < n) {
		npos--;
		j++;
	}
	return j < n ? j : n;
}
