/* peer.c - see peer.h. */
#include "peer.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "container.h"
#include "log.h"
#include "procfs.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* include/uapi/asm-generic/socket.h, Linux 6.5 */
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/*
 * TRACERD_TEST_NO_PEERPIDFD=1 in tracerd's environment (tests only,
 * tracerd(8)): do as on a kernel before 6.5, so that the owner and
 * start-time check is tested on kernels that have SO_PEERPIDFD.
 */
static bool pidfd_off(void)
{
	static int off = -1;

	if (off < 0) {
		const char *v = getenv("TRACERD_TEST_NO_PEERPIDFD");

		off = v && !strcmp(v, "1");
		if (off)
			log_warn("TRACERD_TEST_NO_PEERPIDFD=1: peers checked by owner and "
				 "start time, not SO_PEERPIDFD (a test setting)");
	}
	return off;
}

/* The pid's owner and start time, from /proc. */
static int pid_facts(pid_t pid, uid_t *uid, uint64_t *start)
{
	struct procfs_stat st;
	struct procfs_status ss;

	if (procfs_read_stat(pid, &st) != 0 || procfs_read_status(pid, &ss) != 0)
		return -1;
	if (st.state == 'Z' || st.state == 'X')
		return -1; /* exited: its pid is about to be free */
	*uid = ss.uid;
	*start = st.start_ticks;
	return 0;
}

int peer_proof_take(int fd, const struct ucred *peer, struct peer_proof *pp)
{
	socklen_t len = sizeof(pp->pidfd);
	uid_t uid;

	pp->pidfd = -1;
	pp->start_ticks = 0;
	if (pidfd_off() ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pp->pidfd, &len) != 0)
		pp->pidfd = -1; /* ENOPROTOOPT before 6.5 */
	if (pp->pidfd >= 0)
		return peer_proof_holds(peer, pp) ? 0 : -1;
	if (peer->pid <= 0)
		return 0; /* not visible from here: registration refuses it */
	if (pid_facts(peer->pid, &uid, &pp->start_ticks) != 0 || uid != peer->uid)
		return -1;
	return 0;
}

int peer_proof_holds(const struct ucred *peer, const struct peer_proof *pp)
{
	uint64_t start;
	uid_t uid;

	if (pp->pidfd >= 0) {
		/* signal 0 through the pidfd: ESRCH once that process exited,
		 * whatever now has its number */
		if (syscall(SYS_pidfd_send_signal, pp->pidfd, 0, NULL, 0) == 0)
			return 1;
		return errno == EPERM; /* alive, not ours to signal: still it */
	}
	if (peer->pid <= 0)
		return 1;
	return pid_facts(peer->pid, &uid, &start) == 0 && uid == peer->uid &&
	       start == pp->start_ticks;
}

void peer_proof_drop(struct peer_proof *pp)
{
	if (pp->pidfd >= 0)
		close(pp->pidfd);
	pp->pidfd = -1;
}

/* The container whose cgroup holds pid ("" when none): the cgroup paths
 * of /proc/PID/cgroup only, as lib/container.c recognises them. */
static void container_id_of(pid_t pid, char id[CONTAINER_ID_LEN + 1])
{
	struct procfs_cgroup cg;
	struct container_info ci;

	id[0] = '\0';
	if (procfs_read_cgroup(pid, &cg) < 0)
		return;
	const char *paths[] = {cg.v2, cg.memory, cg.cpuacct, cg.blkio};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (container_parse_cgroup(paths[i], &ci) == 0) {
			memcpy(id, ci.id, CONTAINER_ID_LEN + 1);
			return;
		}
}

/* A container id's first 15 hex digits, with the top bit set: never a
 * pid namespace's inode (32 bits), never PEER_SCOPE_UNSEEN. */
static uint64_t scope_of_id(const char *id)
{
	uint64_t v = 0;

	for (int i = 0; i < 15 && id[i]; i++)
		v = v << 4 | (uint64_t)(id[i] <= '9' ? id[i] - '0' : id[i] - 'a' + 10);
	return v | 1ull << 62;
}

void peer_classify(struct peer *p, bool admin_in_containers)
{
	/* tracerd's own: read once (it does not move) */
	static uint32_t own_ns;
	static char own_ct[CONTAINER_ID_LEN + 1];
	static bool own_read;
	char ct[CONTAINER_ID_LEN + 1];
	uint32_t ns;

	if (!own_read) {
		own_ns = container_pidns(0);
		container_id_of(getpid(), own_ct);
		own_read = true;
		if (!own_ns)
			log_warn("/proc/self/ns/pid: %s: every peer counts as in a container",
				 strerror(errno));
	}
	p->contained = false;
	p->scope = 0;
	ns = p->pid > 0 ? container_pidns(p->pid) : 0;
	if (!ns || !own_ns) {
		/* not visible from here, or gone: nothing to tell it apart by */
		p->contained = true;
		p->scope = PEER_SCOPE_UNSEEN;
	} else if (ns != own_ns) {
		p->contained = true;
		p->scope = ns;
	} else {
		container_id_of(p->pid, ct);
		if (ct[0] && strcmp(ct, own_ct) != 0) {
			p->contained = true;
			p->scope = scope_of_id(ct);
		}
	}
	p->trusted = !p->contained || admin_in_containers;
}

bool peer_is_admin(const struct peer *p)
{
	return p->uid == 0 && p->trusted;
}

bool peer_in_container(const struct peer *p)
{
	return p->contained;
}

bool peer_owns(const struct peer *p, uid_t owner_uid, uint64_t owner_scope)
{
	return p->uid == owner_uid && p->scope == owner_scope;
}
