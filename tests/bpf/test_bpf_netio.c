/*
 * test_bpf_netio.c - socket and block I/O counters of the BPF programs
 * (bpf/netio.bpf.h) on the running kernel: a tagged child moves known
 * amounts over loopback TCP and UDP and a Unix socket pair, and writes a
 * known amount with O_DIRECT to a file on a block device; its exit record
 * and block records must say exactly that.  An untagged child's traffic
 * must leave no trace, nor a tagged child's while the programs are not the
 * counting generation (netio_gen: a restart's hand-over).  Loopback only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <bpf/bpf.h>

#include "bpf_test.h"

#define TCP_BYTES (1u << 20)
#define UDP_DGRAMS 10
#define UDP_LEN 1000
#define UNIX_BYTES 100000
#define DIRECT_BYTES (4u << 20)
#define DIRECT_DIR "/var/tmp" /* on a block device here (not tmpfs) */

static char buf[1 << 16];

static void xfer(int from, int to, size_t total)
{
	size_t sent = 0, got = 0;

	while (got < total) {
		if (sent < total) {
			size_t n = total - sent < sizeof(buf) ? total - sent : sizeof(buf);
			ssize_t w = send(from, buf, n, MSG_DONTWAIT);
			if (w > 0)
				sent += (size_t)w;
			else if (w < 0 && errno != EAGAIN)
				_exit(10);
		}
		ssize_t r = recv(to, buf, sizeof(buf), MSG_DONTWAIT);
		if (r > 0)
			got += (size_t)r;
		else if (r == 0 || (r < 0 && errno != EAGAIN))
			_exit(11);
	}
}

/* TCP to itself over 127.0.0.1, UDP to itself, a Unix socket pair */
static void net_child(void *arg)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);
	int l, c, s, u1, u2, sv[2];

	(void)arg;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &alen))
		_exit(2);
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)))
		_exit(3);
	s = accept(l, NULL, NULL);
	if (s < 0)
		_exit(4);
	xfer(c, s, TCP_BYTES);

	a.sin_port = 0;
	alen = sizeof(a);
	u1 = socket(AF_INET, SOCK_DGRAM, 0);
	if (u1 < 0 || bind(u1, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(u1, (struct sockaddr *)&a, &alen))
		_exit(5);
	u2 = socket(AF_INET, SOCK_DGRAM, 0);
	for (int i = 0; i < UDP_DGRAMS; i++) {
		if (sendto(u2, buf, UDP_LEN, 0, (struct sockaddr *)&a, sizeof(a)) != UDP_LEN ||
		    recv(u1, buf, sizeof(buf), 0) != UDP_LEN)
			_exit(6);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		_exit(7);
	xfer(sv[0], sv[1], UNIX_BYTES);
	_exit(0);
}

static void test_sockets(void)
{
	struct rec *x;
	pid_t pid;

	reset();
	pid = spawn(net_child, NULL);
	CU_ASSERT_EQUAL_FATAL(reap(pid, NULL), 0);
	x = find(pid, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT_EQUAL(x->u.exit.net.tcp_sent, TCP_BYTES);
	CU_ASSERT_EQUAL(x->u.exit.net.tcp_recv, TCP_BYTES);
	CU_ASSERT_EQUAL(x->u.exit.net.tcp_connects, 1);
	CU_ASSERT_EQUAL(x->u.exit.net.tcp_accepts, 1);
	CU_ASSERT_EQUAL(x->u.exit.net.udp_sent, UDP_DGRAMS * UDP_LEN);
	CU_ASSERT_EQUAL(x->u.exit.net.udp_recv, UDP_DGRAMS * UDP_LEN);
	CU_ASSERT_EQUAL(x->u.exit.net.unix_sent, UNIX_BYTES);
	CU_ASSERT_EQUAL(x->u.exit.net.unix_recv, UNIX_BYTES);
	CU_ASSERT_EQUAL(x->u.exit.net.other_sent, 0);
	CU_ASSERT_EQUAL(x->u.exit.net.other_recv, 0);
	/* the remote ends: its connect (to the listener's port) and the
	 * accepted connection (from the client's port), both 127.0.0.1 */
	CU_ASSERT_EQUAL(count_recs(pid, TRACER_EV_TCP_PEER), 2);
	__u16 ports[2] = {0, 0};
	for (size_t i = 0; i < nrecs; i++) {
		const struct tracer_tcp_peer_event *e = &recs[i].u.peer;
		__u32 lo = htonl(INADDR_LOOPBACK);
		if (e->hdr.pid != (__u32)pid || e->hdr.type != TRACER_EV_TCP_PEER)
			continue;
		CU_ASSERT_EQUAL(e->family, AF_INET);
		CU_ASSERT_EQUAL(memcmp(e->addr, &lo, 4), 0);
		if (e->kind <= TRACER_TCP_ACCEPTED)
			ports[e->kind] = e->port;
	}
	CU_ASSERT(ports[TRACER_TCP_CONNECTED] != 0 && ports[TRACER_TCP_ACCEPTED] != 0 &&
		  ports[TRACER_TCP_CONNECTED] != ports[TRACER_TCP_ACCEPTED]);
}

static void test_sockets_untagged(void)
{
	pid_t pid, marker;

	reset();
	pid = spawn_untagged(net_child, NULL);
	CU_ASSERT_EQUAL(reap_quiet(pid, NULL), 0);
	/* a tagged process started after it ended: once its exit record is
	 * in, a record of the untagged one would be too (one ring buffer,
	 * records in the order they were made) */
	marker = spawn(exec_true, NULL);
	CU_ASSERT_EQUAL(reap(marker, NULL), 0);
	CU_ASSERT_FATAL(find(marker, TRACER_EV_EXIT) != NULL);
	CU_ASSERT_EQUAL(count_recs(pid, TRACER_EV_EXIT), 0);
	CU_ASSERT_EQUAL(count_recs(pid, TRACER_EV_TCP_PEER), 0);
	CU_ASSERT_EQUAL(count_recs(pid, TRACER_EV_BLKIO), 0);
}

static void direct_child(void *arg)
{
	const char *path = arg;
	void *p;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0600);

	if (fd < 0 || posix_memalign(&p, 4096, 1 << 20))
		_exit(2);
	memset(p, 'x', 1 << 20);
	for (unsigned i = 0; i < DIRECT_BYTES >> 20; i++)
		if (write(fd, p, 1 << 20) != 1 << 20)
			_exit(3);
	close(fd);
	_exit(0);
}

static void test_block_direct(void)
{
	char path[] = DIRECT_DIR "/tracer-bpf-netio-XXXXXX";
	__u64 bytes = 0, dev = 0, lat_ok = 0, n = 0;
	int fd = mkstemp(path);
	pid_t pid;

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	reset();
	pid = spawn(direct_child, path);
	CU_ASSERT_EQUAL(reap(pid, NULL), 0);
	unlink(path);
	bpf_loader_consume(L);
	for (size_t i = 0; i < nrecs; i++) {
		const struct tracer_blkio_event *b = &recs[i].u.blkio;
		if (b->hdr.type != TRACER_EV_BLKIO || b->hdr.pid != (__u32)pid ||
		    b->op != TRACER_BLK_WRITE)
			continue;
		n++;
		bytes += b->bytes;
		dev = b->dev;
		lat_ok += b->latency_ns > 0 && b->latency_ns < 60ull * 1000000000;
		CU_ASSERT_EQUAL(b->hdr.job, JOB);
	}
	/* O_DIRECT: every byte goes to the device as the process's request
	 * (file system metadata may add a little) */
	CU_ASSERT(bytes >= DIRECT_BYTES && bytes <= DIRECT_BYTES + DIRECT_BYTES / 50);
	CU_ASSERT(n > 0 && lat_ok == n);
	CU_ASSERT(dev != 0);
	/* the process's own counters, taken at each request's start and at
	 * each bio merged into a started one: every byte, in its exit record */
	const struct rec *x = find(pid, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT(x->u.exit.net.blk_write_bytes >= DIRECT_BYTES &&
		  x->u.exit.net.blk_write_bytes <= DIRECT_BYTES + DIRECT_BYTES / 50);
	CU_ASSERT(x->u.exit.net.blk_requests >= DIRECT_BYTES >> 20);
}

/* Another generation in netio_gen (the previous tracerd's, during a
 * restart's hand-over): these programs count nothing. */
static void test_generation(void)
{
	char p[128], path[] = DIRECT_DIR "/tracer-bpf-netio-XXXXXX";
	int fd = bpf_obj_get(test_pin_path(p, sizeof(p), "netio_gen"));
	int tmp = mkstemp(path);
	__u32 k = 0;
	__u64 gen = 0, other;
	struct rec *x;
	pid_t pid;

	CU_ASSERT_FATAL(fd >= 0 && tmp >= 0);
	close(tmp);
	CU_ASSERT_FATAL(bpf_map_lookup_elem(fd, &k, &gen) == 0 && gen > 0);
	other = gen + 1;
	CU_ASSERT_FATAL(bpf_map_update_elem(fd, &k, &other, BPF_ANY) == 0);
	reset();
	pid = spawn(net_child, NULL);
	CU_ASSERT_EQUAL(reap(pid, NULL), 0);
	pid_t dpid = spawn(direct_child, path);
	CU_ASSERT_EQUAL(reap(dpid, NULL), 0);
	unlink(path);
	CU_ASSERT(bpf_map_update_elem(fd, &k, &gen, BPF_ANY) == 0);
	close(fd);
	bpf_loader_consume(L);
	x = find(pid, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT_EQUAL(x->u.exit.net.tcp_sent + x->u.exit.net.udp_sent + x->u.exit.net.unix_sent, 0);
	CU_ASSERT_EQUAL(x->u.exit.net.tcp_connects + x->u.exit.net.tcp_accepts, 0);
	CU_ASSERT_EQUAL(count_recs(pid, TRACER_EV_TCP_PEER), 0);
	x = find(dpid, TRACER_EV_EXIT);
	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT_EQUAL(x->u.exit.net.blk_write_bytes + x->u.exit.net.blk_requests, 0);
	CU_ASSERT_EQUAL(count_recs(dpid, TRACER_EV_BLKIO), 0);
}

int add_netio_tests(CU_pSuite s)
{
	return !CU_add_test(s, "sockets: TCP, UDP, Unix bytes and connections exact",
			    test_sockets) ||
	       !CU_add_test(s, "sockets: untagged traffic not recorded", test_sockets_untagged) ||
	       !CU_add_test(s, "block: O_DIRECT write bytes, device, latency",
			    test_block_direct) ||
	       !CU_add_test(s, "another generation's programs count nothing",
			    test_generation) ? -1 : 0;
}
