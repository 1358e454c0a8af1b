/* notify.c - see notify.h.  Without libsystemd: the protocol is one
 * datagram, and the path may be abstract ('@' first). */
#include "notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"

int notify_send(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	size_t n;
	socklen_t alen;
	int fd, rc = 0;

	if (!path || !*path)
		return 0;
	n = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || n >= sizeof(addr.sun_path)) {
		log_warn("NOTIFY_SOCKET %s: not a unix socket path", path);
		return -1;
	}
	memcpy(addr.sun_path, path, n);
	if (path[0] == '@')
		addr.sun_path[0] = '\0'; /* abstract namespace */
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		log_warn("notify socket: %s", strerror(errno));
		return -1;
	}
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL,
		   (struct sockaddr *)&addr, alen) < 0) {
		log_warn("notify %s to %s: %s", state, path, strerror(errno));
		rc = -1;
	}
	close(fd);
	return rc;
}
