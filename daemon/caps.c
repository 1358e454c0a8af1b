/*
 * caps.c - dropping capabilities at run time (caps.h).  Without libcap:
 * capget/capset and prctl are enough for one thread's sets.
 *
 * What the loop keeps, and why (measured: the suites pass with exactly
 * this set on Linux 6.18; /proc/PID/status CapEff is checked by
 * tests/privacy):
 *   CAP_SYS_PTRACE       the /proc files the kernel guards with a ptrace
 *                        access check, of every user's processes
 *   CAP_DAC_READ_SEARCH  /proc/PID/io is mode 0400 of the process's owner
 *   CAP_BPF              only on kernels 5.8 to 6.4: every bpf() command
 *                        (map lookups and updates: tagging a registered
 *                        process, counters) needs it there when
 *                        kernel.unprivileged_bpf_disabled is set; from
 *                        6.5 only creating maps and loading programs does
 *                        (1d28635abcf1 "bpf: move unprivileged checks into
 *                        map_create() and bpf_prog_load()"), all done by now
 *   CAP_SYS_ADMIN        only before 5.8, which has no CAP_BPF
 *
 * The /proc files of another user's process, read as uid 0 (measured on
 * Linux 6.18 with setpriv --bounding-set):
 *   stat, status, cmdline, cgroup, task/, task/N/stat   no capability
 *   exe, ns/pid (readlink), smaps_rollup                CAP_SYS_PTRACE
 *   io, task/N/io                                       CAP_SYS_PTRACE and
 *                                                       CAP_DAC_READ_SEARCH
 * exe is read at registration and at resume (the exec came before the
 * job), ns/pid to find a process's container, io for the stall check
 * and the totals of a process that outlives its job: all on the loop,
 * so it keeps both.  Together they are close to root: ptrace(2), and
 * open_by_handle_at(2) past ProtectSystem=, which tracerd never calls,
 * are refused by the unit's SystemCallFilter=, but /proc/PID/mem of a
 * process of uid 0 opens read-write with CAP_SYS_PTRACE alone (uid 0 is
 * its owner): only a dedicated user for tracerd would close that (see
 * contrib/systemd/tracerd.service).
 *
 * Dropped: CAP_PERFMON (attaching), CAP_SYS_RESOURCE (RLIMIT_MEMLOCK at
 * start), CAP_SETPCAP, and every other.  CAP_CHOWN (the archive's group)
 * is the file sink's, on the delivery threads, not the loop's: they keep
 * only it (caps_drop_for_delivery).  Capabilities are per thread, so each
 * thread started before the loop's drop drops its own; the metrics
 * server's thread is started from a thread that has dropped them all.
 * Securebits are per thread too: caps_secure_exec runs first in main,
 * before any thread, so that every thread has them.
 */
#include "caps.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/securebits.h>
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

int caps_secure_exec(char *err, size_t errlen)
{
	/* uid 0 gains no capability at exec, and none can be raised ambient */
	const int want = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
			 SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	int bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);

	if (bits < 0) {
		snprintf(err, errlen, "PR_GET_SECUREBITS: %s", strerror(errno));
		return -1;
	}
	if ((bits & want) == want)
		return 0; /* set by whoever started us (systemd's SecureBits=) */
	if (prctl(PR_SET_SECUREBITS, (unsigned long)(bits | want), 0, 0, 0) != 0) {
		snprintf(err, errlen, "PR_SET_SECUREBITS: %s%s", strerror(errno),
			 errno == EPERM ? " (needs CAP_SETPCAP)" : "");
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
