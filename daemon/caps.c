/*
 * caps.c - dropping capabilities at run time (caps.h).  Without libcap:
 * capget/capset and prctl are enough for one thread's sets.
 *
 * What the loop keeps, and why (measured: the suites pass with exactly
 * this set on Linux 6.18; /proc/PID/status CapEff is checked by
 * tests/privacy):
 *   CAP_SYS_PTRACE       /proc/PID/exe, smaps_rollup and the other files
 *                        the kernel guards with a ptrace access check, of
 *                        every user's processes (and /proc with hidepid=2)
 *   CAP_DAC_READ_SEARCH  /proc/PID/io is mode 0400 of the process's owner;
 *                        cgroup directories of other users' jobs
 *   CAP_BPF              only on kernels 5.8 to 6.4: every bpf() command
 *                        (map lookups and updates: tagging a registered
 *                        process, counters) needs it there when
 *                        kernel.unprivileged_bpf_disabled is set; from
 *                        6.5 only creating maps and loading programs does
 *                        (1d28635abcf1 "bpf: move unprivileged checks into
 *                        map_create() and bpf_prog_load()"), all done by now
 *   CAP_SYS_ADMIN        only before 5.8, which has no CAP_BPF
 * Dropped: CAP_PERFMON (attaching), CAP_SYS_RESOURCE (RLIMIT_MEMLOCK at
 * start), CAP_SETPCAP, and every other.  CAP_CHOWN (the archive's group)
 * is the file sink's, on the delivery threads, not the loop's: they keep
 * only it (caps_drop_for_delivery).  Capabilities are per thread, so each
 * thread started before the loop's drop drops its own.
 */
#include "caps.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef CAP_BPF
#define CAP_BPF 39 /* Linux 5.8 */
#endif
#define BIT(c) (1ull << (c))

/* Kernel release >= major.minor? */
static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false; /* unknown: keep more rather than less */
	return ma > major || (ma == major && mi >= minor);
}

static int caps_keep(uint64_t keep, char *err, size_t errlen)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];
	uint64_t permitted;

	if (syscall(SYS_capget, &h, d) != 0) {
		snprintf(err, errlen, "capget: %s", strerror(errno));
		return -1;
	}
	permitted = d[0].permitted | ((uint64_t)d[1].permitted << 32);
	keep &= permitted; /* capset cannot add */
	/* the bounding set first: dropping needs CAP_SETPCAP, still ours */
	for (int c = 0; c < 64; c++) {
		int in = prctl(PR_CAPBSET_READ, c, 0, 0, 0);

		if (in < 0)
			break; /* past the kernel's last capability */
		if (in == 0 || (keep & BIT(c)))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0 && errno != EPERM) {
			snprintf(err, errlen, "PR_CAPBSET_DROP %d: %s", c, strerror(errno));
			return -1;
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
		snprintf(err, errlen, "PR_CAP_AMBIENT_CLEAR_ALL: %s", strerror(errno));
		return -1;
	}
	memset(d, 0, sizeof(d));
	d[0].effective = d[0].permitted = (uint32_t)keep;
	d[1].effective = d[1].permitted = (uint32_t)(keep >> 32);
	if (syscall(SYS_capset, &h, d) != 0) {
		snprintf(err, errlen, "capset: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int caps_drop_for_loop(char *err, size_t errlen)
{
	uint64_t keep = BIT(CAP_SYS_PTRACE) | BIT(CAP_DAC_READ_SEARCH);

	if (!kernel_at_least(5, 8))
		keep |= BIT(CAP_SYS_ADMIN);
	else if (!kernel_at_least(6, 5))
		keep |= BIT(CAP_BPF);
	return caps_keep(keep, err, errlen);
}

int caps_drop_for_delivery(char *err, size_t errlen)
{
	return caps_keep(BIT(CAP_CHOWN), err, errlen);
}

int caps_drop_all(char *err, size_t errlen)
{
	return caps_keep(0, err, errlen);
}
