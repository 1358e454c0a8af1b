/*
 * dockercmd.c - docker CLI commands that start a container, and the
 * entries of dockerd's container list they may have started
 * (dockercmd.h).  The CLI's options are known only as far as needed to
 * find the image: a long option takes a value unless it is one of the
 * flags below, so a new valued option of the CLI is skipped right and a
 * new flag at worst makes a command not understood (no watch, no harm).
 */
#include "dockercmd.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "defaults.h"

#define MAX_ARGS 512

static const char *const global_flags[] = {
	"-D", "--debug", "--tls", "--tlsverify", "-v", "--version", "-h", "--help", NULL,
};
/* run and create: options without a value */
static const char *const run_flags[] = {
	"--detach", "--interactive", "--tty", "--rm", "--privileged", "--init",
	"--publish-all", "--read-only", "--no-healthcheck", "--oom-kill-disable",
	"--quiet", "--help", "--disable-content-trust", "--sig-proxy", "--use-api-socket",
	NULL,
};
static const char run_short_flags[] = "ditPq";
static const char *const start_flags[] = {"--attach", "--interactive", "--help", NULL};
static const char start_short_flags[] = "ai";

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

bool docker_cmd_is_cli(const char *path)
{
	const char *b;

	if (!path)
		return false;
	b = strrchr(path, '/');
	return !strcmp(b ? b + 1 : path, "docker");
}

int docker_cmd_exe_is(const char *exe, const char *clients)
{
	struct stat x, c;

	if (stat(exe, &x) != 0)
		return -1;
	for (const char *p = clients; *p;) {
		size_t len = strcspn(p, ", ");
		char path[512];

		if (len && len < sizeof(path)) {
			memcpy(path, p, len);
			path[len] = '\0';
			/* a client not installed is not an error: the next one */
			if (stat(path, &c) == 0 && c.st_dev == x.st_dev && c.st_ino == x.st_ino)
				return 1;
		}
		p += len;
		p += strspn(p, ", ");
	}
	return 0;
}

/* Split argv into words (pointers into a copy in buf). */
static int split(const char *argv, size_t len, char *buf, size_t cap, const char **w)
{
	int n = 0;

	if (len >= cap)
		return -1;
	memcpy(buf, argv, len);
	buf[len] = '\0';
	for (size_t i = 0; i < len && n < MAX_ARGS;) {
		w[n++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	return n;
}

/*
 * Options from w[*i] on: stops at the first word that is no option (its
 * index in *i).  A --name value is kept in name (when name != NULL).
 * -1 when an option's value is missing or --name is too long.
 */
static int skip_options(const char *const *w, int n, int *i, const char *const *flags,
			const char *short_flags, char *name, size_t name_len)
{
	while (*i < n) {
		const char *a = w[*i];

		if (!strcmp(a, "--")) {
			(*i)++;
			return 0;
		}
		if (a[0] != '-' || !a[1])
			return 0;
		if (a[1] == '-') {
			const char *eq = strchr(a, '=');

			if (name && !strncmp(a, "--name=", 7)) {
				if ((size_t)snprintf(name, name_len, "%s", a + 7) >= name_len)
					return -1;
			} else if (!eq && !in_list(flags, a)) {
				if (*i + 1 >= n)
					return -1;
				if (name && !strcmp(a, "--name") &&
				    (size_t)snprintf(name, name_len, "%s", w[*i + 1]) >= name_len)
					return -1;
				(*i)++;
			}
			(*i)++;
			continue;
		}
		/* -dit: flags; -e X or -eX: a value */
		for (const char *c = a + 1; *c; c++) {
			if (strchr(short_flags, *c))
				continue;
			if (!c[1]) {
				if (*i + 1 >= n)
					return -1;
				(*i)++;
			}
			break;
		}
		(*i)++;
	}
	return 0;
}

/* The command words as dockerd's list writes them: words with a space
 * between single quotes.  command_known false when some are redacted. */
static void command_of(const char *const *w, int n, struct docker_cmd *out)
{
	size_t used = 0;

	out->command_known = n > 0;
	for (int k = 0; k < n && out->command_known; k++) {
		bool q = k > 0 && strchr(w[k], ' ');
		int r = snprintf(out->command + used, sizeof(out->command) - used, "%s%s%s%s",
				 k ? " " : "", q ? "'" : "", w[k], q ? "'" : "");

		if (strstr(w[k], "***") || r < 0 || (size_t)r >= sizeof(out->command) - used)
			out->command_known = false;
		else
			used += (size_t)r;
	}
	if (!out->command_known)
		out->command[0] = '\0';
}

int docker_cmd_parse(const char *argv, size_t len, bool truncated, struct docker_cmd *out)
{
	char buf[TRACER_ARGV_MAX + 1];
	const char *w[MAX_ARGS];
	int n, i = 1;

	memset(out, 0, sizeof(*out));
	if (!argv || (n = split(argv, len, buf, sizeof(buf), w)) < 2 || !docker_cmd_is_cli(w[0]))
		return -1;
	/* global options: -H unix://..., --context x, -D */
	while (i < n && w[i][0] == '-') {
		if (!in_list(global_flags, w[i]) && !strchr(w[i], '=') &&
		    (w[i][1] == '-' || (w[i][1] && !w[i][2])))
			i++; /* its value */
		i++;
	}
	if (i < n && !strcmp(w[i], "container"))
		i++;
	if (i >= n)
		return -1;
	if (!strcmp(w[i], "run"))
		out->verb = DOCKER_RUN;
	else if (!strcmp(w[i], "create"))
		out->verb = DOCKER_CREATE;
	else if (!strcmp(w[i], "start"))
		out->verb = DOCKER_START;
	else
		return -1;
	i++;
	if (out->verb == DOCKER_START) {
		if (skip_options(w, n, &i, start_flags, start_short_flags, NULL, 0) < 0 || i >= n ||
		    (size_t)snprintf(out->name, sizeof(out->name), "%s", w[i]) >= sizeof(out->name))
			return -1;
		return 0;
	}
	if (skip_options(w, n, &i, run_flags, run_short_flags, out->name, sizeof(out->name)) < 0 ||
	    i >= n ||
	    (size_t)snprintf(out->image, sizeof(out->image), "%s", w[i]) >= sizeof(out->image))
		return -1;
	i++;
	if (!truncated && n < MAX_ARGS)
		command_of(w + i, n - i, out);
	return 0;
}

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) && v->valuestring ? v->valuestring : "";
}

static bool hex64(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

int dockercmd_list_parse(const char *json, size_t len, struct docker_entry *out, size_t max)
{
	cJSON *root = cJSON_ParseWithLength(json, len);
	const cJSON *it;
	size_t n = 0;

	if (!cJSON_IsArray(root)) {
		cJSON_Delete(root);
		return -1;
	}
	cJSON_ArrayForEach(it, root) {
		struct docker_entry *e = &out[n];
		const cJSON *names = cJSON_GetObjectItemCaseSensitive(it, "Names"), *nm;
		const cJSON *created = cJSON_GetObjectItemCaseSensitive(it, "Created");
		size_t used = 0;

		if (n >= max)
			break;
		if (!hex64(str_of(it, "Id")))
			continue;
		memset(e, 0, sizeof(*e));
		snprintf(e->id, sizeof(e->id), "%s", str_of(it, "Id"));
		snprintf(e->image, sizeof(e->image), "%s", str_of(it, "Image"));
		snprintf(e->image_id, sizeof(e->image_id), "%s", str_of(it, "ImageID"));
		snprintf(e->command, sizeof(e->command), "%s", str_of(it, "Command"));
		snprintf(e->state, sizeof(e->state), "%s", str_of(it, "State"));
		if (cJSON_IsNumber(created) && created->valuedouble > 0 &&
		    created->valuedouble < 1e15)
			e->created_s = (int64_t)created->valuedouble;
		cJSON_ArrayForEach(nm, names) {
			int r;

			if (!cJSON_IsString(nm) || !nm->valuestring)
				continue;
			r = snprintf(e->names + used, sizeof(e->names) - used, "%s%s",
				     used ? "," : "", nm->valuestring);
			if (r < 0 || (size_t)r >= sizeof(e->names) - used) {
				e->names[used] = '\0';
				break;
			}
			used += (size_t)r;
		}
		n++;
	}
	cJSON_Delete(root);
	return (int)n;
}

/* "/name" among the entry's comma-joined Names */
static bool has_name(const struct docker_entry *e, const char *name)
{
	size_t len = strlen(name);

	if (!len)
		return false;
	for (const char *p = e->names; *p;) {
		size_t n = strcspn(p, ",");

		if (n == len + 1 && p[0] == '/' && !strncmp(p + 1, name, len))
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

/* busybox, docker.io/library/busybox and busybox:latest are one image */
static void norm_image(const char *in, char *out, size_t cap)
{
	const char *p = in;
	size_t n;

	if (!strncmp(p, "docker.io/library/", 18))
		p += 18;
	else if (!strncmp(p, "docker.io/", 10))
		p += 10;
	snprintf(out, cap, "%s", p);
	n = strlen(out);
	if (!strchr(out, '@') && n > 7 && !strcmp(out + n - 7, ":latest"))
		out[n - 7] = '\0';
}

static bool same_command(const char *entry, const char *cmd)
{
	size_t el = strlen(entry), cl = strlen(cmd);

	if (!strcmp(entry, cmd))
		return true;
	/* an image's ENTRYPOINT comes before the words given */
	return el > cl && entry[el - cl - 1] == ' ' && !strcmp(entry + el - cl, cmd);
}

bool dockercmd_entry_matches(const struct docker_cmd *cmd, int64_t client_start_s,
			  const struct docker_entry *e)
{
	char a[256], b[256];

	if (cmd->verb == DOCKER_START) {
		size_t n = strlen(cmd->name);

		return has_name(e, cmd->name) ||
		       (n && strspn(cmd->name, "0123456789abcdef") == n && !strncmp(e->id, cmd->name, n));
	}
	if (e->created_s < client_start_s)
		return false;
	if (cmd->name[0])
		return has_name(e, cmd->name);
	norm_image(cmd->image, a, sizeof(a));
	norm_image(e->image, b, sizeof(b));
	if (strcmp(a, b))
		return false;
	return !cmd->command_known || same_command(e->command, cmd->command);
}

bool dockercmd_entry_live(const struct docker_entry *e)
{
	return !strcmp(e->state, "running") || !strcmp(e->state, "paused") ||
	       !strcmp(e->state, "restarting");
}
