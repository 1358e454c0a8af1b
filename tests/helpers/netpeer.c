/*
 * netpeer.c - moves an exact number of bytes over loopback for the network
 * tests and the benchmark (127.0.0.1 and Unix sockets only).  Copied under
 * other names by the tests, so that sender and receiver are distinct tools.
 *
 *   netpeer tcp-recv PORT READYFILE [CONNS]  accept CONNS (1) connections one
 *                                        after the other, read each to EOF
 *   netpeer tcp-send PORT BYTES READYFILE [CHUNK PAUSE_MS]  with CHUNK and
 *                                        PAUSE_MS: a pause after each CHUNK bytes
 *   netpeer tcp-fanout PORT,PORT,... BYTES READYPREFIX  connect to each port in
 *                                        turn (READYPREFIX.PORT), send BYTES, close
 *   netpeer udp-recv PORT BYTES READYFILE  datagrams of 8 KiB; a 1-byte ack
 *   netpeer udp-send PORT BYTES READYFILE  every 8 (no loss on loopback)
 *   netpeer unix-recv PATH READYFILE / unix-send PATH BYTES READYFILE
 *
 * Receivers create READYFILE once listening; senders wait for it (30 s).
 * The receiver prints the bytes it got.  Exit 0 only when all went.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define DGRAM 8192
#define WINDOW 8

static char buf[1 << 17];

static void die(const char *what)
{
	fprintf(stderr, "netpeer: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void ready(const char *file)
{
	FILE *f = fopen(file, "w");
	if (!f || fclose(f))
		die("create ready file");
}

static void wait_ready(const char *file)
{
	struct stat st;
	for (int i = 0; i < 3000; i++) {
		if (stat(file, &st) == 0)
			return;
		usleep(10000);
	}
	errno = ETIMEDOUT;
	die("wait for the receiver");
}

static struct sockaddr_in lo(const char *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((unsigned short)atoi(port));
	return a;
}

/* chunk 0: no pauses */
static void send_paced(int fd, unsigned long long total, unsigned long long chunk,
		       unsigned pause_ms)
{
	unsigned long long since = 0;

	while (total) {
		size_t n = total < sizeof(buf) ? total : sizeof(buf);
		if (chunk && n > chunk - since)
			n = chunk - since;
		ssize_t w = write(fd, buf, n);
		if (w <= 0)
			die("write");
		total -= (unsigned long long)w;
		since += (unsigned long long)w;
		if (chunk && since >= chunk) {
			since = 0;
			usleep(pause_ms * 1000u);
		}
	}
}

static void send_all(int fd, unsigned long long total)
{
	send_paced(fd, total, 0, 0);
}

static int tcp_fanout(char *ports, unsigned long long bytes, const char *prefix)
{
	char file[4096];

	for (char *port = strtok(ports, ","); port; port = strtok(NULL, ",")) {
		struct sockaddr_in a = lo(port);
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket");
		snprintf(file, sizeof(file), "%s.%s", prefix, port);
		wait_ready(file);
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
			die("connect");
		send_all(fd, bytes);
		if (close(fd))
			die("close");
	}
	return 0;
}

static unsigned long long read_all(int fd)
{
	unsigned long long got = 0;
	ssize_t r;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		got += (unsigned long long)r;
	if (r < 0)
		die("read");
	return got;
}

static int stream_recv(int l, const char *readyfile, int conns)
{
	unsigned long long got = 0;
	int s;
	if (listen(l, conns))
		die("listen");
	ready(readyfile);
	for (int i = 0; i < conns; i++) {
		s = accept(l, NULL, NULL);
		if (s < 0)
			die("accept");
		got += read_all(s);
		if (close(s))
			die("close");
	}
	printf("%llu\n", got);
	return 0;
}

int main(int argc, char **argv)
{
	int one = 1, fd;

	if (argc < 4)
		return 2;
	memset(buf, 'n', sizeof(buf));
	if (!strcmp(argv[1], "tcp-fanout"))
		return argc < 5 ? 2 : tcp_fanout(argv[2], strtoull(argv[3], NULL, 10), argv[4]);
	if (!strcmp(argv[1], "tcp-recv") || !strcmp(argv[1], "tcp-send")) {
		struct sockaddr_in a = lo(argv[2]);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket");
		if (argv[1][4] == 'r') {
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
				die("bind");
			return stream_recv(fd, argv[3], argc > 4 ? atoi(argv[4]) : 1);
		}
		if (argc < 5)
			return 2;
		wait_ready(argv[4]);
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
			die("connect");
		send_paced(fd, strtoull(argv[3], NULL, 10),
			   argc > 6 ? strtoull(argv[5], NULL, 10) : 0,
			   argc > 6 ? (unsigned)atoi(argv[6]) : 0);
		return close(fd) ? 1 : 0;
	}
	if (!strcmp(argv[1], "unix-recv") || !strcmp(argv[1], "unix-send")) {
		struct sockaddr_un u = {.sun_family = AF_UNIX};
		snprintf(u.sun_path, sizeof(u.sun_path), "%s", argv[2]);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket");
		if (argv[1][5] == 'r') {
			unlink(argv[2]);
			if (bind(fd, (struct sockaddr *)&u, sizeof(u)))
				die("bind");
			return stream_recv(fd, argv[3], 1);
		}
		if (argc < 5)
			return 2;
		wait_ready(argv[4]);
		if (connect(fd, (struct sockaddr *)&u, sizeof(u)))
			die("connect");
		send_all(fd, strtoull(argv[3], NULL, 10));
		return close(fd) ? 1 : 0;
	}
	if (!strcmp(argv[1], "udp-recv") || !strcmp(argv[1], "udp-send")) {
		struct sockaddr_in a = lo(argv[2]), from;
		socklen_t flen;
		unsigned long long total, got = 0;
		if (argc < 5)
			return 2;
		total = strtoull(argv[3], NULL, 10);
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0)
			die("socket");
		if (argv[1][4] == 'r') {
			if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
				die("bind");
			ready(argv[4]);
			for (unsigned long long n = 1; got < total; n++) {
				flen = sizeof(from);
				ssize_t r = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);
				if (r < 0)
					die("recvfrom");
				got += (unsigned long long)r;
				if ((n % WINDOW == 0 || got >= total) &&
				    sendto(fd, buf, 1, 0, (struct sockaddr *)&from, flen) != 1)
					die("sendto ack");
			}
			printf("%llu\n", got);
			return 0;
		}
		wait_ready(argv[4]);
		for (unsigned long long n = 1; got < total; n++) {
			size_t len = total - got < DGRAM ? total - got : DGRAM;
			if (sendto(fd, buf, len, 0, (struct sockaddr *)&a, sizeof(a)) != (ssize_t)len)
				die("sendto");
			got += len;
			if ((n % WINDOW == 0 || got >= total) && recv(fd, buf, 1, 0) != 1)
				die("recv ack");
		}
		return 0;
	}
	return 2;
}
