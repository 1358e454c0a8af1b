/*
 * dockercmd.h - the docker CLI commands that start a container (run,
 * create, start, and their `container ...` forms), read from a process's
 * already redacted argv, and the entries of dockerd's container list
 * (GET /containers/json: Id, Names, Image, ImageID, Command, Created,
 * State; nothing of the containers' environment) that such a command may
 * have started, and whether an executable is the docker CLI itself.
 * tracerd's docker watch (daemon/dockerwatch.c) asks, matches and tags.
 */
#ifndef TRACER_DOCKERCMD_H
#define TRACER_DOCKERCMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum docker_verb { DOCKER_RUN = 1, DOCKER_CREATE, DOCKER_START };

struct docker_cmd {
	enum docker_verb verb;
	char name[128];     /* run/create: --name (""); start: the container argument */
	char image[256];    /* run/create: the image */
	char command[1024]; /* run/create: the command words as dockerd's list
			     * writes them ("" : the image's default) */
	bool command_known; /* false: no words, or some redacted or cut */
};

/*
 * Parse NUL-separated argv (len bytes; the last argument need not end in
 * NUL).  0 and *out when it is a docker command that starts a container,
 * -1 otherwise (another subcommand, no image, an argument too long).
 * truncated: argv was cut; the command words are then not compared.
 */
int docker_cmd_parse(const char *argv, size_t len, bool truncated, struct docker_cmd *out);

/* May this executable or argv[0] be the docker CLI?  (basename "docker":
 * a name only, which anyone can give any program: see docker_cmd_exe_is) */
bool docker_cmd_is_cli(const char *path);

/*
 * Is the file exe (a path; /proc/PID/exe names the file a process runs,
 * whatever its name or mount namespace) one of clients (docker_clients:
 * absolute paths separated by commas), by device and inode?  1 yes, 0
 * no, -1 when exe cannot be read (errno: the process is gone, ...).
 */
int docker_cmd_exe_is(const char *exe, const char *clients);

struct docker_entry {
	char id[65];
	char names[256];    /* "/a,/b": dockerd's Names joined by commas */
	char image[256];
	char image_id[80];  /* "sha256:<hex>" */
	char command[1024];
	int64_t created_s;  /* unix seconds */
	char state[16];     /* created, running, paused, restarting, exited, ... */
};

/*
 * Parse dockerd's answer to GET /containers/json (len bytes).  Returns the
 * number of entries stored in out (at most max; entries without a valid
 * 64-hex Id are skipped), -1 when it is not a JSON array.
 */
int dockercmd_list_parse(const char *json, size_t len, struct docker_entry *out, size_t max);

/*
 * May entry e be the container of cmd, whose client started at
 * client_start_s (unix seconds)?  run/create: created at or after the
 * client's start, and named --name, else of the same image and (when
 * known) ending with the same command.  start: named or id'd by the
 * argument.
 */
bool dockercmd_entry_matches(const struct docker_cmd *cmd, int64_t client_start_s,
			  const struct docker_entry *e);

/* running, paused or restarting: its cgroup exists */
bool dockercmd_entry_live(const struct docker_entry *e);

#endif
