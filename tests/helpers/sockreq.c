/*
 * sockreq SOCKET LINE - send one request line to tracerd's socket and
 * print what comes back until the daemon closes the connection.  Static:
 * it runs inside the test's busybox containers, which have no python.
 * Exits 0 when an answer came (whatever it says), 1 otherwise.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 10};
	char buf[65536];
	size_t len, off = 0;
	ssize_t n;
	int fd, got = 0;

	if (argc != 3 || strlen(argv[1]) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "usage: sockreq SOCKET LINE\n");
		return 2;
	}
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0)
		perror("SO_RCVTIMEO");
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		perror(argv[1]);
		return 1;
	}
	len = strlen(argv[2]);
	while (off <= len) { /* the line, then its newline */
		const char *p = off < len ? argv[2] + off : "\n";
		size_t want = off < len ? len - off : 1;

		n = write(fd, p, want);
		if (n <= 0) {
			perror("write");
			return 1;
		}
		off += (size_t)n;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		fwrite(buf, 1, (size_t)n, stdout);
		got = 1;
	}
	if (n < 0)
		perror("read");
	close(fd);
	return got ? 0 : 1;
}
