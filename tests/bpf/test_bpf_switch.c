/*
 * test_bpf_switch.c - the program that every context switch on the host
 * runs (tracer_switch) does, for a switch away from a thread that is not
 * dying, only what it must: read the task's state, compare, return.
 * Checked on the program as the kernel verified it (its translated
 * instructions): the part before its first subprogram, all that such a
 * switch executes, has no helper call, no map, at most two loads, and
 * calls the dead thread's subprogram once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "bpf_test.h"

/* the instructions of the untracked path: ctx load, state load (and a
 * constant CO-RE leaves behind), compare, return value, exit, the call
 * and the jump back to the return */
#define SWITCH_MAIN_MAX_INSNS 10

/* the id of the map this run pinned as pin_dir/procs */
static __u32 procs_map_id(void)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	char p[PATH_MAX];
	int fd = bpf_obj_get(test_pin_path(p, sizeof(p), "procs"));

	if (fd < 0) {
		fprintf(stderr, "bpf_obj_get %s: %s\n", p, strerror(errno));
		return 0;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) != 0) {
		fprintf(stderr, "map info of %s: %s\n", p, strerror(errno));
		info.id = 0;
	}
	close(fd);
	return info.id;
}

/* does program fd use map `map_id`? */
static int uses_map(int fd, __u32 map_id)
{
	__u32 ids[64] = {0}, len;
	struct bpf_prog_info info;

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len) != 0)
		return 0;
	for (__u32 i = 0; i < info.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]); i++)
		if (ids[i] == map_id)
			return 1;
	return 0;
}

/* an fd of this run's tracer_switch (another tracerd may have its own) */
static int our_switch_prog(__u32 map_id)
{
	__u32 id = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, "tracer_switch") &&
		    uses_map(fd, map_id))
			return fd;
		close(fd);
	}
	return -1;
}

struct main_counts {
	__u32 insns, helpers, subprog_calls, imm64, loads;
};

/* what the instructions before the first subprogram do */
static void count_main(const struct bpf_insn *insn, __u32 n, struct main_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->insns = n;
	for (__u32 i = 0; i < n; i++) {
		__u8 code = insn[i].code;

		if (code == (BPF_JMP | BPF_CALL)) {
			if (insn[i].src_reg == BPF_PSEUDO_CALL)
				c->subprog_calls++;
			else
				c->helpers++; /* helper or kfunc */
		} else if (code == (BPF_LD | BPF_IMM | BPF_DW)) {
			c->imm64++; /* a map, or any 64-bit constant */
			i++;
		} else if (BPF_CLASS(code) == BPF_LDX) {
			c->loads++;
		}
	}
}

static void test_switch_untracked_path(void)
{
	struct bpf_prog_info info;
	struct bpf_func_info *fi = NULL;
	struct bpf_insn *insns = NULL;
	struct main_counts c;
	__u32 len = sizeof(info), n, nfunc, main_len;
	__u32 map_id = procs_map_id();
	int fd;

	CU_ASSERT_FATAL(map_id != 0);
	fd = our_switch_prog(map_id);
	CU_ASSERT_FATAL(fd >= 0);
	memset(&info, 0, sizeof(info));
	CU_ASSERT_FATAL(bpf_obj_get_info_by_fd(fd, &info, &len) == 0);
	if (info.xlated_prog_len == 0)
		fprintf(stderr, "tracer_switch: the kernel shows no translated instructions "
				"(kernel.kptr_restrict?)\n");
	CU_ASSERT_FATAL(info.xlated_prog_len > 0);
	n = info.xlated_prog_len / sizeof(struct bpf_insn);
	nfunc = info.nr_func_info;
	insns = calloc(n, sizeof(*insns));
	fi = calloc(nfunc ? nfunc : 1, sizeof(*fi));
	CU_ASSERT_FATAL(insns && fi);
	memset(&info, 0, sizeof(info));
	info.xlated_prog_len = n * sizeof(struct bpf_insn);
	info.xlated_prog_insns = (__u64)(unsigned long)insns;
	info.nr_func_info = nfunc;
	info.func_info_rec_size = sizeof(*fi);
	info.func_info = (__u64)(unsigned long)fi;
	len = sizeof(info);
	CU_ASSERT_FATAL(bpf_obj_get_info_by_fd(fd, &info, &len) == 0);
	close(fd);

	/* the dead thread's work is a subprogram of its own */
	CU_ASSERT(nfunc >= 2);
	main_len = nfunc >= 2 && fi[1].insn_off <= n ? fi[1].insn_off : n;
	count_main(insns, main_len, &c);
	if (c.insns > SWITCH_MAIN_MAX_INSNS || c.helpers || c.imm64 || c.loads > 2 ||
	    c.subprog_calls != 1)
		fprintf(stderr, "tracer_switch before its first subprogram: %u instructions, "
				"%u helper calls, %u 64-bit constants (maps), %u loads, %u subprogram calls\n",
			c.insns, c.helpers, c.imm64, c.loads, c.subprog_calls);
	CU_ASSERT(c.insns <= SWITCH_MAIN_MAX_INSNS);
	CU_ASSERT_EQUAL(c.helpers, 0);
	CU_ASSERT_EQUAL(c.imm64, 0);
	CU_ASSERT(c.loads <= 2);
	CU_ASSERT_EQUAL(c.subprog_calls, 1);
	free(insns);
	free(fi);
}

int add_switch_tests(CU_pSuite s)
{
	return !CU_add_test(s, "per-switch program: untracked path has no helper, no map",
			    test_switch_untracked_path) ? -1 : 0;
}
