/*
 * container.h - which container a process runs in, from its cgroup path
 * alone (never the container's environment or configuration): the
 * runtime and container id that docker, podman, containerd/CRI, CRI-O
 * and ECS write into the cgroup names they create, and that container
 * cgroup's own counters.
 *
 * Recognised paths (any of the v2, memory, cpuacct or blkio hierarchies):
 *   docker-<id>.scope, /docker/<id>           docker
 *   libpod-<id>.scope, /libpod_parent/libpod-<id>, machine.slice/libpod-<id>
 *                                             podman (systemd or cgroupfs)
 *   cri-containerd-<id>.scope, kubepods*\/<id> containerd (CRI)
 *   crio-<id>.scope                           cri-o
 *   /ecs/<task>/<id>                          ecs (AWS Batch, ECS)
 * where <id> is 64 hex digits.  Apptainer and Singularity make no cgroup:
 * they are recognised by their starter (container_apptainer.h).  conmon's own libpod-conmon-<id> cgroup is
 * not the container.
 */
#ifndef TRACER_CONTAINER_H
#define TRACER_CONTAINER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"

#define CONTAINER_ID_LEN 64
#define CONTAINER_SHORT_ID 12
#define CONTAINER_MAX 8 /* containers listed per job; more are counted */

struct container_info {
	char runtime[16];               /* "docker", "podman", "containerd", ... */
	char id[CONTAINER_ID_LEN + 1];  /* full id, lower-case hex */
	char name[128];                 /* "" when unknown */
	char image[256];                /* "" when unknown */
	char image_id[CONTAINER_ID_LEN + 1]; /* "" when unknown */
	char cgroup[512];               /* the cgroup path it was found in */
	struct cgroup_ref ref;          /* its cgroup directories (counters) */
	bool have_stats;
	struct cgroup_stats stats;      /* latest reading (memory: the peak) */
	bool tag_tried;                 /* tracerd: its v2 cgroup tagged once */
	bool meta_tried;                /* name and image looked up once */
	bool by_descent;                /* no cgroup of its own (apptainer,
					   singularity): its processes are the
					   starter's descendants */
	uint32_t pidns;                 /* its pid namespace's inode (0: unknown) */
	uint32_t nlive;                 /* tracerd: live job processes known in it */
	uint64_t tagged_cgroup_id;      /* tracerd: v2 cgroup tagged for the job, or 0 */
};

/* containers started through dockerd by the job's docker commands
 * (tracerd, dockerwatch.h): what became of each command */
struct container_joins {
	uint64_t watched;   /* docker run/create/start commands of the job */
	uint64_t joined;    /* ... whose container joined the job */
	uint64_t ambiguous; /* ... that another container or job could claim: none joined */
	uint64_t unmatched; /* ... whose container was not found running in time */
	uint64_t refused;   /* ... whose container was found but could not join */
	uint64_t failed;    /* ... that no dockerd of docker_sockets answered for */
};

struct container_set {
	size_t n;
	struct container_joins docker;
	uint64_t not_listed;            /* containers beyond CONTAINER_MAX */
	struct container_info c[CONTAINER_MAX];
};

/* Runtime and id from one cgroup path.  0 when it is a container's, -1 not. */
int container_parse_cgroup(const char *path, struct container_info *out);

/* The container pid runs in (by /proc/PID/cgroup).  0 found, -1 not. */
int container_of_pid(pid_t pid, struct container_info *out);

/*
 * Note the container of pid in s.  Returns its 1-based index in s (0:
 * not in a container, or not listed).  Reads /proc/PID/cgroup once.
 */
int container_note_pid(struct container_set *s, pid_t pid);

/*
 * Add c to s unless a container of its id is there.  Its 1-based index
 * in s (0: not listed, s is full; counted in not_listed).
 */
int container_set_add(struct container_set *s, const struct container_info *c);
/* The docker container id by its cgroup (/docker/<id> or
 * system.slice/docker-<id>.scope, in whichever hierarchy has it now):
 * 0 and out, -1 when it has none (not started, gone). */
int container_find_docker(const char *id, struct container_info *out);

/* Read the counters of every listed container's cgroup (memory: peak kept). */
void container_sample(struct container_set *s);

/* The same for one container (its last process exited: before the
 * runtime removes the cgroup).  0 read, -1 gone or none. */
int container_sample_one(struct container_info *c);

/* Inode of pid's pid namespace (pid 0: this process's), 0 when unknown. */
uint32_t container_pidns(pid_t pid);

#endif
