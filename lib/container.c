/*
 * container.c - containers recognised by their cgroup names (see
 * container.h for the patterns).  Only cgroup paths are read: a
 * container's environment and configuration files stay unread.
 */
#include "container.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "procfs.h"

static bool is_hex_id(const char *s, size_t n)
{
	if (n != CONTAINER_ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* comp (len n) is PREFIX<id>[.scope]: copy id and return true. */
static bool prefixed_id(const char *comp, size_t n, const char *prefix, char *id)
{
	size_t p = strlen(prefix);

	if (n > 6 && memcmp(comp + n - 6, ".scope", 6) == 0)
		n -= 6;
	if (n < p || memcmp(comp, prefix, p) != 0 || !is_hex_id(comp + p, n - p))
		return false;
	memcpy(id, comp + p, CONTAINER_ID_LEN);
	id[CONTAINER_ID_LEN] = '\0';
	return true;
}

#define MAX_COMPS 32

static bool comp_is(const char *c, size_t n, const char *word)
{
	return n == strlen(word) && memcmp(c, word, n) == 0;
}

int container_parse_cgroup(const char *path, struct container_info *out)
{
	static const struct {
		const char *prefix, *runtime;
	} named[] = {
		{"docker-", "docker"},
		{"libpod-", "podman"},
		{"cri-containerd-", "containerd"},
		{"crio-", "cri-o"},
	};
	const char *comp[MAX_COMPS];
	size_t len[MAX_COMPS], n = 0;
	const char *runtime = NULL;

	memset(out, 0, sizeof(*out));
	if (!path)
		return -1;
	for (const char *p = path; *p && n < MAX_COMPS;) {
		size_t l = strcspn(p, "/");

		if (l) {
			comp[n] = p;
			len[n++] = l;
		}
		p += l;
		if (*p == '/')
			p++;
	}
	/* the innermost recognised component names the container */
	for (size_t i = n; i-- > 0 && !runtime;) {
		for (size_t k = 0; k < sizeof(named) / sizeof(named[0]); k++)
			if (prefixed_id(comp[i], len[i], named[k].prefix, out->id)) {
				runtime = named[k].runtime;
				break;
			}
		if (runtime || !is_hex_id(comp[i], len[i]))
			continue;
		if (i >= 1 && comp_is(comp[i - 1], len[i - 1], "docker"))
			runtime = "docker";
		else if (i >= 2 && comp_is(comp[i - 2], len[i - 2], "ecs"))
			runtime = "ecs";
		else if (strstr(path, "kubepods"))
			runtime = "containerd";
		if (runtime) {
			memcpy(out->id, comp[i], CONTAINER_ID_LEN);
			out->id[CONTAINER_ID_LEN] = '\0';
		}
	}
	if (!runtime) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	snprintf(out->runtime, sizeof(out->runtime), "%s", runtime);
	snprintf(out->cgroup, sizeof(out->cgroup), "%s", path);
	return 0;
}

/* Keep only the cgroup directories that are the container's own. */
static void own_dirs(struct container_info *c)
{
	char *dirs[] = {c->ref.v2, c->ref.mem_v1, c->ref.cpu_v1, c->ref.cpuctl_v1, c->ref.blkio_v1};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (!strstr(dirs[i], c->id))
			dirs[i][0] = '\0';
}

int container_of_pid(pid_t pid, struct container_info *out)
{
	struct procfs_cgroup cg;
	const char *paths[4];

	memset(out, 0, sizeof(*out));
	if (procfs_read_cgroup(pid, &cg) < 0)
		return -1;
	paths[0] = cg.v2;
	paths[1] = cg.memory;
	paths[2] = cg.cpuacct;
	paths[3] = cg.blkio;
	for (size_t i = 0; i < 4; i++) {
		if (container_parse_cgroup(paths[i], out) < 0)
			continue;
		if (cgroup_ref_for_pid(pid, &out->ref) == 0)
			own_dirs(out);
		else
			memset(&out->ref, 0, sizeof(out->ref));
		return 0;
	}
	return -1;
}

int container_set_add(struct container_set *s, const struct container_info *c)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->c[i].id, c->id) == 0)
			return (int)i + 1;
	if (s->n == CONTAINER_MAX) {
		s->not_listed++;
		return 0;
	}
	s->c[s->n] = *c;
	return (int)++s->n;
}

int container_note_pid(struct container_set *s, pid_t pid)
{
	struct container_info c;

	if (container_of_pid(pid, &c) < 0)
		return 0;
	return container_set_add(s, &c);
}

int container_sample_one(struct container_info *c)
{
	struct cgroup_stats st;
	uint64_t peak;

	if (!c->ref.v2[0] && !c->ref.mem_v1[0] && !c->ref.cpu_v1[0] && !c->ref.blkio_v1[0])
		return -1;
	if (cgroup_read_stats(&c->ref, &st) < 0)
		return -1; /* gone: the last reading stays */
	peak = c->stats.mem_peak_bytes;
	if (st.mem_peak_bytes < peak)
		st.mem_peak_bytes = peak;
	if (st.mem_current_bytes > st.mem_peak_bytes)
		st.mem_peak_bytes = st.mem_current_bytes;
	c->stats = st;
	c->have_stats = true;
	return 0;
}

void container_sample(struct container_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		container_sample_one(&s->c[i]);
}

uint32_t container_pidns(pid_t pid)
{
	char path[64];
	struct stat st;

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/pid");
	if (stat(path, &st) != 0)
		return 0;
	return (uint32_t)st.st_ino;
}

int container_find_docker(const char *id, struct container_info *out)
{
	/* dockerd's cgroupfs driver (v1, and the unified tree of hybrid
	 * hosts), then its systemd driver (pure v2 hosts by default) */
	static const char *const forms[] = {"/docker/%s", "/system.slice/docker-%s.scope"};
	char path[160];

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		snprintf(path, sizeof(path), forms[i], id);
		if (container_parse_cgroup(path, out) < 0)
			return -1; /* not a 64-hex id */
		if (cgroup_ref_for_path(path, &out->ref) == 0)
			return 0;
	}
	memset(out, 0, sizeof(*out));
	return -1;
}
