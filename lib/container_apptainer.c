/*
 * container_apptainer.c - Apptainer/Singularity containers from the path
 * of the starter a process execs and the command line of the CLI that
 * exec'd it (container_apptainer.h).  Pure functions: nothing is read
 * here, and never the starter's environment.
 */
#include "container_apptainer.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const char *container_apptainer_starter(const char *path)
{
	/* PREFIX/libexec/RUNTIME/bin/starter[-suid], any PREFIX */
	static const struct {
		const char *suffix, *runtime;
	} starters[] = {
		{"/libexec/apptainer/bin/starter", "apptainer"},
		{"/libexec/apptainer/bin/starter-suid", "apptainer"},
		{"/libexec/singularity/bin/starter", "singularity"},
		{"/libexec/singularity/bin/starter-suid", "singularity"},
	};
	size_t n;

	if (!path)
		return NULL;
	n = strlen(path);
	for (size_t i = 0; i < sizeof(starters) / sizeof(starters[0]); i++) {
		size_t l = strlen(starters[i].suffix);

		if (n >= l && strcmp(path + n - l, starters[i].suffix) == 0)
			return starters[i].runtime;
	}
	return NULL;
}

/* Options of the CLI that take a value (Apptainer 1.x, Singularity 3.x):
 * the rest are flags.  The global -c is --config; after the action it is
 * --contain, a flag. */
static const char *const valued_long[] = {
	"add-caps", "app", "apply-cgroups", "authfile", "bind", "blkio-weight",
	"blkio-weight-device", "cdi-dirs", "config", "cpu-shares", "cpus", "cpuset-cpus",
	"cpuset-mems", "cwd", "device", "dns", "docker-host", "drop-caps", "env", "env-file",
	"fusemount", "home", "hostname", "memory", "memory-reservation", "memory-swap",
	"mount", "network", "network-args", "no-mount", "overlay", "pem-path", "pid-file",
	"pids-limit", "pwd", "scratch", "security", "workdir",
};
#define VALUED_SHORT "BHoSW"
#define VALUED_SHORT_GLOBAL "c"

static bool long_takes_value(const char *opt)
{
	for (size_t i = 0; i < sizeof(valued_long) / sizeof(valued_long[0]); i++)
		if (strcmp(opt, valued_long[i]) == 0)
			return true;
	return false;
}

/* Does the option arg (starting with '-') consume the next argument? */
static bool takes_next(const char *arg, bool global)
{
	const char *shorts = global ? VALUED_SHORT_GLOBAL : VALUED_SHORT;

	if (arg[1] == '-')
		return !strchr(arg, '=') && long_takes_value(arg + 2);
	/* -abc: flags, up to one that takes a value, attached or next */
	for (const char *c = arg + 1; *c; c++)
		if (strchr(shorts, *c))
			return c[1] == '\0';
	return false;
}

static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

#define CLI_MAX_ARGS 256

int container_apptainer_cli(const char *argv, size_t len, struct apptainer_cli *out)
{
	const char *args[CLI_MAX_ARGS];
	char buf[4096];
	size_t n = 0, i = 0;
	const char *runtime = NULL;
	bool instance = false;

	memset(out, 0, sizeof(*out));
	if (!argv || len == 0)
		return -1;
	/* a NUL-terminated copy, so that every argument ends */
	if (len > sizeof(buf) - 1)
		len = sizeof(buf) - 1;
	memcpy(buf, argv, len);
	buf[len] = '\0';
	for (size_t off = 0; off < len && n < CLI_MAX_ARGS; off += strlen(buf + off) + 1)
		args[n++] = buf + off;
	/* the CLI itself, or the interpreter of a CLI script, which the
	 * kernel gives the script's path (with a '/') as its argv[1] */
	for (; i < n && i < 2; i++) {
		runtime = base_name(args[i]);
		if (i == 1 && !strchr(args[i], '/'))
			continue;
		if (strcmp(runtime, "apptainer") == 0 || strcmp(runtime, "singularity") == 0)
			break;
	}
	if (i >= n || i >= 2)
		return -1;
	snprintf(out->runtime, sizeof(out->runtime), "%s", runtime);
	/* global options, then the action */
	for (i++; i < n && args[i][0] == '-' && strcmp(args[i], "--") != 0; i++)
		if (takes_next(args[i], true))
			i++;
	if (i >= n)
		goto none;
	if (strcmp(args[i], "instance") == 0) {
		if (++i >= n || (strcmp(args[i], "start") != 0 && strcmp(args[i], "run") != 0))
			goto none;
		instance = true;
	} else if (strcmp(args[i], "exec") != 0 && strcmp(args[i], "run") != 0 &&
		   strcmp(args[i], "shell") != 0 && strcmp(args[i], "test") != 0) {
		goto none;
	}
	snprintf(out->action, sizeof(out->action), "%s%s", instance ? "instance " : "", args[i]);
	/* the action's options, then IMAGE */
	for (i++; i < n && args[i][0] == '-' && args[i][1]; i++) {
		if (strcmp(args[i], "--") == 0) {
			i++;
			break;
		}
		if (takes_next(args[i], false))
			i++;
	}
	if (i >= n || !args[i][0])
		goto none;
	snprintf(out->image, sizeof(out->image), "%s", args[i]);
	/* instance start|run IMAGE NAME */
	if (instance && i + 1 < n)
		snprintf(out->instance, sizeof(out->instance), "%s", args[i + 1]);
	return 0;
none:
	memset(out, 0, sizeof(*out));
	return -1;
}

/* splitmix64: a well-spread 64-bit word from any input */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void container_apptainer_id(pid_t pid, uint64_t start_ns, char *id)
{
	uint64_t h = mix64(start_ns) ^ mix64((uint64_t)(uint32_t)pid << 1 | 1);

	for (int k = 0; k < 4; k++) {
		h = mix64(h + (uint64_t)k);
		snprintf(id + 16 * k, 17, "%016llx", (unsigned long long)h);
	}
	id[CONTAINER_ID_LEN] = '\0';
}

int container_apptainer_info(const char *path, pid_t pid, uint64_t start_ns,
			     const char *cli, size_t cli_len, struct container_info *out)
{
	const char *runtime = container_apptainer_starter(path);
	struct apptainer_cli parsed;

	memset(out, 0, sizeof(*out));
	if (!runtime)
		return -1;
	snprintf(out->runtime, sizeof(out->runtime), "%s", runtime);
	container_apptainer_id(pid, start_ns, out->id);
	out->by_descent = true;
	if (container_apptainer_cli(cli, cli_len, &parsed) == 0) {
		snprintf(out->image, sizeof(out->image), "%s", parsed.image);
		snprintf(out->name, sizeof(out->name), "%s", parsed.instance);
	}
	return 0;
}
