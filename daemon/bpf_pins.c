/*
 * bpf_pins.c - what tracerd keeps in bpffs under pin_dir (bpf_loader.h):
 * its maps, for inspection and, with resume, for the next tracerd, which
 * reuses them; and, with resume, its programs as pinned links, so that
 * they go on following the jobs' processes while no tracerd runs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <bpf/bpf.h>

#include "bpf_loader.h"
#include "bpf_loader_priv.h"
#include "mkdirs.h"
#include "log.h"

/* Programs pinned with resume (as links), under pin_dir/link_<name>. */
struct bpf_link **bpf_pins_link(struct tracer_bpf *skel, int i, const char **name)
{
	struct {
		struct bpf_link **link;
		const char *name;
	} t[] = {
		{&skel->links.tracer_exit, "link_tracer_exit"},
		{&skel->links.tracer_switch, "link_tracer_switch"},
		{&skel->links.tracer_exec, "link_tracer_exec"},
		{&skel->links.tracer_fork, "link_tracer_fork"},
		{&skel->links.tracer_oom, "link_tracer_oom"},
		/* socket and block I/O (netio.bpf.h): the counters in `procs`
		 * go on while no tracerd runs (those not attached: no pin) */
		{&skel->links.tracer_sock_send, "link_tracer_sock_send"},
		{&skel->links.tracer_sock_recv, "link_tracer_sock_recv"},
		{&skel->links.tracer_sock_state, "link_tracer_sock_state"},
		{&skel->links.tracer_blk_start, "link_tracer_blk_start"},
		{&skel->links.tracer_blk_complete, "link_tracer_blk_complete"},
		{&skel->links.tracer_blk_done, "link_tracer_blk_done"},
		{&skel->links.tracer_blk_backmerge, "link_tracer_blk_backmerge"},
		{&skel->links.tracer_blk_frontmerge, "link_tracer_blk_frontmerge"},
	};

	if (i >= (int)(sizeof(t) / sizeof(t[0])))
		return NULL;
	*name = t[i].name;
	return t[i].link;
}

/* The maps worth pinning: the state and counters `tracer status` reads,
 * and the socket and block I/O state (the TCP sockets' owners and what
 * was credited, listening sockets, the requests in flight, which
 * programs count: netio.bpf.h), so that a restart loses none. */
struct bpf_map *bpf_pins_map(struct tracer_bpf *skel, int i)
{
	struct bpf_map *maps[] = {skel->maps.procs, skel->maps.tagged_cgroups,
				  skel->maps.counters, skel->maps.events,
				  skel->maps.job_stats, skel->maps.user_procs,
				  skel->maps.net_socks,
				  skel->maps.blk_reqs, skel->maps.net_listen,
				  skel->maps.netio_gen};

	return i < (int)(sizeof(maps) / sizeof(maps[0])) ? maps[i] : NULL;
}

/* mkdir -p, each created level mode 0700, the pin directory 0700. */
int bpf_pins_make_dirs(const char *path, char *err, size_t errlen)
{
	if (mkdirs(path, 0700, err, errlen) != 0)
		return -1;
	if (chmod(path, 0700) != 0) {
		snprintf(err, errlen, "chmod 0700 %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int bpf_pins_path(const struct bpf_loader *l, struct bpf_map *m, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", l->pin_dir, bpf_map__name(m));

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/*
 * resume, before load: each pinned map gets its pin path, so that libbpf
 * reuses a compatible map pinned there or creates and pins a new one.
 */
int bpf_pins_set_paths(struct bpf_loader *l, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct bpf_map *m;
	int rc;

	if (bpf_pins_make_dirs(l->pin_dir, err, errlen) != 0)
		return -1;
	for (int i = 0; (m = bpf_pins_map(l->skel, i)) != NULL; i++) {
		if (bpf_pins_path(l, m, path, sizeof(path)) != 0) {
			snprintf(err, errlen, "pin path under %s: too long", l->pin_dir);
			return -1;
		}
		if (i == 0 && access(path, F_OK) == 0)
			l->resumed = true;
		rc = bpf_map__set_pin_path(m, path);
		if (rc != 0) {
			snprintf(err, errlen, "pin path %s: %s", path, strerror(-rc));
			return -1;
		}
	}
	return 0;
}

/*
 * After load: the maps are pinned (by libbpf with resume; here without,
 * replacing the pins of a run that did not stop cleanly); only we may
 * read them.
 */
int bpf_pins_maps(struct bpf_loader *l, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct bpf_map *m;
	int rc;

	if (!l->resume && bpf_pins_make_dirs(l->pin_dir, err, errlen) != 0)
		return -1;
	for (int i = 0; (m = bpf_pins_map(l->skel, i)) != NULL; i++) {
		if (bpf_pins_path(l, m, path, sizeof(path)) != 0) {
			snprintf(err, errlen, "pin path under %s: too long", l->pin_dir);
			return -1;
		}
		if (!l->resume) {
			if (unlink(path) != 0 && errno != ENOENT) {
				snprintf(err, errlen, "unlink stale pin %s: %s", path, strerror(errno));
				return -1;
			}
			rc = bpf_map__pin(m, path);
			if (rc != 0) {
				snprintf(err, errlen, "pin map %s at %s: %s", bpf_map__name(m),
					 path, strerror(-rc));
				return -1;
			}
		} else if (!bpf_map__is_pinned(m)) {
			snprintf(err, errlen, "map %s not pinned at %s", bpf_map__name(m), path);
			return -1;
		}
		l->npinned = i + 1;
		if (chmod(path, 0600) != 0) {
			snprintf(err, errlen, "chmod 0600 %s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* The pins of a previous tracerd that cannot be reused: start afresh. */
void bpf_pins_remove(struct bpf_loader *l)
{
	char path[PATH_MAX];
	struct bpf_map *m;

	for (int i = 0; (m = bpf_pins_map(l->skel, i)) != NULL; i++)
		if (bpf_pins_path(l, m, path, sizeof(path)) == 0 && unlink(path) != 0 &&
		    errno != ENOENT)
			log_warn("unlink %s: %s", path, strerror(errno));
}

/*
 * Remove a link's pin, its program detached when this returns.  Removing
 * the pin alone drops the last reference from a kernel work item, later:
 * the old program would still run beside the one attached next, and count
 * twice.  Closing our own descriptor last detaches it at once.
 */
static void drop_link_pin(const char *path)
{
	int fd = bpf_obj_get(path);

	if (unlink(path) != 0 && errno != ENOENT)
		log_warn("unlink %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* Remove pins of links (a previous tracerd's: its programs detach). */
void bpf_pins_unpin_links(struct bpf_loader *l)
{
	char path[PATH_MAX];
	const char *name;

	for (int i = 0; bpf_pins_link(l->skel, i, &name); i++) {
		snprintf(path, sizeof(path), "%s/%s", l->pin_dir, name);
		if (access(path, F_OK) == 0)
			drop_link_pin(path);
	}
}

/*
 * Remove the pin of a previous tracerd's link in the slot ours is about to
 * take, right before ours is attached: its program detaches then, and the
 * moment when neither runs (events not counted) is one attach long; never
 * do both run (events counted twice).
 */
void bpf_pins_unpin_link_of(struct bpf_loader *l, struct bpf_link **slot)
{
	char path[PATH_MAX];
	const char *name;
	struct bpf_link **link;

	if (!l->pin_dir[0])
		return;
	for (int i = 0; (link = bpf_pins_link(l->skel, i, &name)); i++) {
		if (link != slot)
			continue;
		snprintf(path, sizeof(path), "%s/%s", l->pin_dir, name);
		if (access(path, F_OK) == 0)
			drop_link_pin(path);
		return;
	}
}

/* Pin our links: our programs go on following processes if we die. */
void bpf_pins_links(struct bpf_loader *l)
{
	char path[PATH_MAX];
	const char *name;
	struct bpf_link **link;

	for (int i = 0; (link = bpf_pins_link(l->skel, i, &name)); i++) {
		int rc;

		if (!*link)
			continue;
		snprintf(path, sizeof(path), "%s/%s", l->pin_dir, name);
		rc = bpf_link__pin(*link, path);
		if (rc != 0)
			log_warn("pin %s: %s: events while tracerd is down will be lost",
				 path, strerror(-rc));
	}
}

void bpf_pins_unpin_maps(struct bpf_loader *l)
{
	bpf_pins_unpin_links(l);
	for (int i = 0; i < l->npinned; i++) {
		struct bpf_map *m = bpf_pins_map(l->skel, i);
		int rc = bpf_map__unpin(m, NULL);

		if (rc != 0)
			log_warn("unpin map %s: %s", bpf_map__name(m), strerror(-rc));
	}
	if (l->npinned > 0 && rmdir(l->pin_dir) != 0 && errno != ENOENT)
		log_warn("rmdir %s: %s", l->pin_dir, strerror(errno));
	l->npinned = 0;
}

/* A resumed tagged_cgroups map: the programs skip it while the count is 0. */
void bpf_pins_count_tagged_cgroups(struct bpf_loader *l)
{
	int fd = bpf_map__fd(l->skel->maps.tagged_cgroups);
	__u64 key, next, *prev = NULL;
	__u32 n = 0;

	while (bpf_map_get_next_key(fd, prev, &next) == 0 && n < TRACER_MAX_TAGGED_CGROUPS) {
		key = next;
		prev = &key;
		n++;
	}
	l->skel->bss->nr_tagged_cgroups = n;
}

