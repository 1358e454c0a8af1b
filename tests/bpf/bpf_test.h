/*
 * bpf_test.h - what the BPF test files share: the loader under test, the
 * records it delivered (copied, reset per test) and helpers that start and
 * reap children by pid.
 */
#ifndef TRACER_TEST_BPF_H
#define TRACER_TEST_BPF_H

#include <limits.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>

#include <CUnit/Basic.h>

#include "bpf_loader.h"
#include "netio_peer.h"

#define JOB 42
#define CG_JOB 77
#define MIB (1024 * 1024)

extern struct bpf_loader *L;
extern char tmpdir[PATH_MAX];
/* This run's pin directory, /sys/fs/bpf/tracer-test-PID (two runs, or a
 * run beside a test tracerd, never share one); removed at the end. */
extern char pin_dir[64];
/* pin_dir/name, in a buffer of the caller's */
const char *test_pin_path(char *buf, size_t len, const char *name);
extern char true_path[PATH_MAX]; /* realpath of /bin/true */
extern char self_exe[PATH_MAX];  /* this program, for the I/O child */

struct rec {
	size_t size;
	union {
		struct tracer_event_hdr hdr;
		struct tracer_fork_event fork;
		struct tracer_exec_event exec;
		struct tracer_exit_event exit;
		struct tracer_oom_event oom;
		struct tracer_blkio_event blkio;
		struct tracer_tcp_peer_event peer;
	} u;
};

extern struct rec *recs;
extern size_t nrecs, bad_recs; /* records; malformed records seen */

int on_event(void *ctx, void *data, size_t size);
void reset(void);
int count_recs(pid_t pid, __u32 type);
struct rec *find(pid_t pid, __u32 type);
struct rec *wait_rec(pid_t pid, __u32 type);

pid_t spawn(void (*fn)(void *), void *arg);
pid_t spawn_untagged(void (*fn)(void *), void *arg);
int reap_quiet(pid_t pid, struct rusage *ru);
int reap(pid_t pid, struct rusage *ru); /* and wait for its exit record */

double ns_of(const struct timeval *tv);
int near(double got, double want, double tol);
void burn_ms(long ms);
void exec_true(void *arg);

/* test_bpf.c: accounting */
int io_child(const char *path, int report_fd);
int add_accounting_tests(CU_pSuite s);
/* test_bpf_scope.c: what is traced, paths, OOM, the loader itself */
int add_scope_tests(CU_pSuite s);
int add_netio_tests(CU_pSuite s);
/* test_bpf_switch.c: the per-switch program's untracked path */
int add_switch_tests(CU_pSuite s);
void test_loader(void);

#endif
