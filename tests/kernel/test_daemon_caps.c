/*
 * test_daemon_caps.c - tracerd's securebits (daemon/caps.c), as root: once
 * caps_secure_exec has run, a program executed by uid 0 gets no
 * capability (SECBIT_NOROOT), the bits cannot be cleared (locked), and a
 * thread that dropped its capabilities keeps none across an exec.
 */
#include <errno.h>
#include <linux/securebits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "../unit/unit.h"

/* In a child: optionally caps_secure_exec, then exec grep for CapEff of
 * the new program; its line into buf.  0, or -1. */
static int cap_eff_after_exec(bool secure, char *buf, size_t len)
{
	int fds[2];
	pid_t pid;
	ssize_t n;
	int status;

	if (pipe(fds) != 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char err[256];

		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		if (secure && caps_secure_exec(err, sizeof(err)) != 0) {
			fprintf(stderr, "caps_secure_exec: %s\n", err);
			_exit(2);
		}
		execl("/bin/grep", "grep", "^CapEff:", "/proc/self/status", (char *)NULL);
		_exit(3);
	}
	close(fds[1]);
	n = read(fds[0], buf, len - 1);
	close(fds[0]);
	buf[n > 0 ? n : 0] = '\0';
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return 0;
}

static void test_noroot_exec(void)
{
	char line[128];

	/* the control: root's exec has capabilities */
	CU_ASSERT_EQUAL_FATAL(cap_eff_after_exec(false, line, sizeof(line)), 0);
	CU_ASSERT_PTR_NULL(strstr(line, "0000000000000000"));
	CU_ASSERT_EQUAL_FATAL(cap_eff_after_exec(true, line, sizeof(line)), 0);
	if (!strstr(line, "0000000000000000"))
		fprintf(stderr, "\n  after caps_secure_exec: %s", line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "0000000000000000"));
}

static void test_locked(void)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		char err[256];
		int bits;

		if (caps_secure_exec(err, sizeof(err)) != 0)
			_exit(2);
		bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
		if (!(bits & SECBIT_NOROOT) || !(bits & SECBIT_NOROOT_LOCKED))
			_exit(3);
		/* clearing a locked bit fails, even with CAP_SETPCAP */
		if (prctl(PR_SET_SECUREBITS, 0UL, 0, 0, 0) == 0)
			_exit(4);
		/* a second call is a no-op, not an error */
		_exit(caps_secure_exec(err, sizeof(err)) == 0 ? 0 : 5);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"SECBIT_NOROOT: uid 0's exec gets no capability", test_noroot_exec},
		{"the bits are locked", test_locked},
	};

	if (geteuid() != 0) {
		fprintf(stderr, "daemon caps: FAIL: needs root (capabilities of uid 0)\n");
		return 1;
	}
	return UNIT_RUN("daemon caps", tests);
}
