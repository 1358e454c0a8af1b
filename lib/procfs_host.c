/*
 * procfs_host.c - host-wide /proc readers (procfs_host.h).  /proc/stat's
 * first line only: its length grows with the CPUs, so a short read that
 * holds that line is enough.
 */
#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int procfs_parse_cpu_ticks(const char *buf, size_t len, struct procfs_cpu_ticks *out)
{
	/* user nice system idle iowait irq softirq steal (guest is in user) */
	uint64_t v[8] = {0};
	const char *p, *end;
	int n = 0;

	memset(out, 0, sizeof(*out));
	if (!buf || len < 4 || strncmp(buf, "cpu ", 4) != 0)
		return -1;
	p = buf + 4;
	end = buf + len;
	while (n < 8 && p < end && *p != '\n') {
		char num[24];
		size_t k = 0;

		while (p < end && *p == ' ')
			p++;
		while (p < end && *p >= '0' && *p <= '9' && k < sizeof(num) - 1)
			num[k++] = *p++;
		if (k == 0)
			break;
		num[k] = '\0';
		v[n++] = strtoull(num, NULL, 10);
	}
	if (n < 4) /* the first four exist since Linux 2.6 */
		return -1;
	out->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	out->total = out->busy + v[3] + v[4];
	return 0;
}

int procfs_read_cpu_ticks(struct procfs_cpu_ticks *out)
{
	char buf[512];
	ssize_t n;
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return procfs_parse_cpu_ticks(buf, (size_t)n, out);
}
