/* peer.c - see peer.h. */
#include "peer.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

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
