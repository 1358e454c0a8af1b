/* fuzz_procfs.c - the /proc and cgroup file parsers on arbitrary bytes
 * (a process controls its comm, which sits inside /proc/PID/stat). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "cgroup_limits.h"
#include "procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct procfs_stat st;
	struct procfs_io io;
	struct procfs_status ss;
	struct procfs_cgroup *cg = malloc(sizeof(*cg));
	char *text = malloc(size + 1);
	uint64_t a, b;
	struct procfs_cpu_ticks ct;
	double cpus;

	if (!text || !cg)
		goto out;
	procfs_parse_stat((const char *)data, size, &st);
	procfs_parse_io((const char *)data, size, &io);
	procfs_parse_status((const char *)data, size, &ss);
	procfs_parse_cgroup((const char *)data, size, cg);
	memcpy(text, data, size);
	text[size] = '\0';
	cgroup_parse_cpu_stat(text, &a);
	cgroup_parse_io_stat(text, &a, &b);
	cgroup_parse_blkio_v1(text, &a, &b);
	cgroup_parse_pressure(text, &a, &b);
	cgroup_parse_cpu_max(text, &cpus);
	procfs_parse_cpu_ticks((const char *)data, size, &ct);
out:
	free(cg);
	free(text);
	return 0;
}
