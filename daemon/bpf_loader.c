/*
 * bpf_loader.c - loads bpf/tracer.bpf.c through its skeleton, attaches it,
 * pins its maps for inspection (bpftool, `tracer status`) and wraps the map
 * operations tracerd needs.  Everything kernel-facing that tracerd does with
 * BPF goes through here.
 */
#include "bpf_loader.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "netio_attach.h"
#include "procfs.h"
#include "tracer.skel.h"

#define BPFFS_DIR "/sys/fs/bpf"
#define TRACEFS_DIR "/sys/kernel/tracing"

#include "bpf_loader_priv.h"


/*
 * Programs that end a process's entry are attached before those that
 * create entries, so that no entry is made whose end we could miss.
 */
static int attach_all(struct bpf_loader *l, char *err, size_t errlen)
{
	struct tracer_bpf *skel = l->skel;
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} t[] = {
		{skel->progs.tracer_exit, &skel->links.tracer_exit},
		{skel->progs.tracer_switch, &skel->links.tracer_switch},
		{skel->progs.tracer_exec, &skel->links.tracer_exec},
		{skel->progs.tracer_fork, &skel->links.tracer_fork},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bpf_pins_unpin_link_of(l, t[i].link);
		*t[i].link = bpf_program__attach(t[i].prog);
		if (!*t[i].link) {
			snprintf(err, errlen, "attach %s (%s): %s", bpf_program__name(t[i].prog),
				 bpf_program__section_name(t[i].prog), strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * oom:mark_victim is a classic tracepoint and needs tracefs.  Without it
 * tracing still works, only OOM kills are not flagged: say so loudly (and
 * bpf_loader_programs() will not list it) rather than trace nothing.
 */
static void attach_oom(struct tracer_bpf *skel)
{
	char err[256];

	if (bpf_setup_mount(TRACEFS_DIR, TRACEFS_MAGIC, "tracefs", NULL, err, sizeof(err)) != 0) {
		log_warn("%s: OOM kills will not be flagged", err);
		return;
	}
	skel->links.tracer_oom = bpf_program__attach(skel->progs.tracer_oom);
	if (!skel->links.tracer_oom)
		log_warn("attach tracer_oom (tp/oom/mark_victim): %s: OOM kills will not be flagged",
			 strerror(errno));
}

/* Attach the netio programs and make them the counting generation. */
static int netio_take_over(struct bpf_loader *l)
{
	int fd = bpf_map__fd(l->skel->maps.netio_gen);
	__u32 k = 0;
	__u64 gen = 0;

	if (bpf_map_lookup_elem(fd, &k, &gen) != 0)
		return -1;
	l->skel->bss->netio_my_gen = ++gen;
	netio_attach(l->skel);
	return bpf_map_update_elem(fd, &k, &gen, BPF_ANY);
}

/* One record to the consumer; -EAGAIN once a batch is full (libbpf has
 * consumed the record and stops there: bpf_loader_consume_batch). */
static int on_sample(void *ctx, void *data, size_t size)
{
	struct bpf_loader *l = ctx;
	int rc = l->fn(l->fn_ctx, data, size);

	if (rc < 0)
		return rc;
	if (l->batch_left > 0 && --l->batch_left == 0)
		return -EAGAIN;
	return 0;
}

struct bpf_loader *bpf_loader_open(const struct bpf_loader_opts *o, bpf_event_fn fn,
				   void *ctx, char *err, size_t errlen)
{
	struct bpf_loader *l = calloc(1, sizeof(*l));
	int rc;

	if (!l) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (o->pin_dir && snprintf(l->pin_dir, sizeof(l->pin_dir), "%s", o->pin_dir) >=
				  (int)sizeof(l->pin_dir)) {
		snprintf(err, errlen, "pin directory name too long");
		goto fail;
	}
	l->resume = o->resume && l->pin_dir[0];
	l->keep_pins = l->resume;
	libbpf_set_print(bpf_setup_log);
	bpf_setup_memlock();
	if (bpf_setup_mount(BPFFS_DIR, BPF_FS_MAGIC, "bpf", "mode=0700", err, errlen) != 0)
		goto fail;
	l->ncpus = libbpf_num_possible_cpus();
	if (l->ncpus <= 0) {
		snprintf(err, errlen, "count possible CPUs: %s", strerror(-l->ncpus));
		goto fail;
	}
	l->skel = tracer_bpf__open();
	if (!l->skel) {
		snprintf(err, errlen, "open BPF object: %s", strerror(errno));
		goto fail;
	}
	if (bpf_setup_configure(l->skel, o, err, errlen) != 0)
		goto fail;
	netio_prepare(l->skel, o->no_sock_length);
	if (l->resume && bpf_pins_set_paths(l, err, errlen) != 0)
		goto fail;
	rc = tracer_bpf__load(l->skel);
	if (rc != 0 && l->resumed) {
		/* the pinned maps do not fit this build or configuration */
		log_warn("maps pinned under %s are not compatible (%s): not resumed, starting afresh",
			 l->pin_dir, strerror(-rc));
		tracer_bpf__destroy(l->skel);
		l->skel = tracer_bpf__open();
		l->resumed = false;
		if (!l->skel) {
			snprintf(err, errlen, "open BPF object: %s", strerror(errno));
			goto fail;
		}
		bpf_pins_remove(l);
		if (bpf_setup_configure(l->skel, o, err, errlen) != 0 || bpf_pins_set_paths(l, err, errlen) != 0)
			goto fail;
		netio_prepare(l->skel, o->no_sock_length);
		l->resumed = false;
		rc = tracer_bpf__load(l->skel);
	}
	if (rc != 0) {
		snprintf(err, errlen, "load BPF programs (verifier log above): %s", strerror(-rc));
		goto fail;
	}
	if (l->pin_dir[0] && bpf_pins_maps(l, err, errlen) != 0)
		goto fail;
	/* the share of all users together (a previous tracerd's kept) */
	if (!l->resumed && bpf_loader_users_reset(l) != 0) {
		snprintf(err, errlen, "user_procs map: %s", strerror(errno));
		goto fail;
	}
	/* a previous tracerd's programs: ours replace them one by one */
	if (attach_all(l, err, errlen) != 0)
		goto fail;
	if (l->pin_dir[0])
		bpf_pins_unpin_link_of(l, &l->skel->links.tracer_oom);
	attach_oom(l->skel);
	/* the socket and block programs: ours beside the previous ones, then
	 * ours made the counting ones, then those detached (netio.bpf.h) */
	if (netio_take_over(l) != 0) {
		snprintf(err, errlen, "netio_gen map: %s", strerror(errno));
		goto fail;
	}
	if (l->pin_dir[0])
		bpf_pins_unpin_links(l); /* the previous tracerd's that are left */
	if (l->resume)
		bpf_pins_links(l);
	if (l->resumed)
		bpf_pins_count_tagged_cgroups(l);
	l->fn = fn;
	l->fn_ctx = ctx;
	l->rb = ring_buffer__new(bpf_map__fd(l->skel->maps.events), on_sample, l, NULL);
	if (!l->rb) {
		snprintf(err, errlen, "ring buffer reader: %s", strerror(errno));
		goto fail;
	}
	return l;
fail:
	bpf_loader_close(l);
	return NULL;
}

int bpf_loader_ringbuf_fd(struct bpf_loader *l)
{
	return ring_buffer__epoll_fd(l->rb);
}

int bpf_loader_consume(struct bpf_loader *l)
{
	l->batch_left = 0;
	return ring_buffer__consume(l->rb);
}

int bpf_loader_consume_batch(struct bpf_loader *l, int max, bool *more)
{
	int rc;

	l->batch_left = max > 0 ? max : 1;
	rc = ring_buffer__consume(l->rb);
	l->batch_left = 0;
	*more = rc == -EAGAIN;
	return *more ? max : rc;
}

/* ---- tagging ---- */

/*
 * What the procs map needs of a running process: its live threads and its
 * start time as task->start_time has it (CLOCK_MONOTONIC).  -errno.
 */
static int read_proc_entry(pid_t pid, struct tracer_proc *p)
{
	struct procfs_status status;
	struct procfs_stat st;

	if (procfs_read_status(pid, &status) != 0 || procfs_read_stat(pid, &st) != 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (status.tgid != pid)
		return -EINVAL; /* a thread id, not a process */
	if (status.threads <= 0)
		return -EIO;
	p->threads = status.threads;
	p->start_ns = procfs_start_ns(&st, CLOCK_MONOTONIC);
	return 0;
}

/*
 * n processes leave user's count, from user space: not atomic with the
 * kernel's counting (a count may drift by a few while the user's jobs
 * run, never the table); the entry goes with the user's last open job.
 */
static void user_uncount(struct bpf_loader *l, __u64 user, __s64 n)
{
	int fd = bpf_map__fd(l->skel->maps.user_procs);
	struct tracer_user_stats us;

	if (!user || bpf_map_lookup_elem(fd, &user, &us) != 0)
		return;
	us.live = us.live > n ? us.live - n : 0;
	if (bpf_map_update_elem(fd, &user, &us, BPF_EXIST) != 0)
		log_debug("user share %llu: count not updated: %s", (unsigned long long)user,
			  strerror(errno));
	if (user != TRACER_USERS_ALL)
		user_uncount(l, TRACER_USERS_ALL, n);
}

int bpf_loader_tag_pid(struct bpf_loader *l, pid_t tgid, __u64 job)
{
	int fd = bpf_map__fd(l->skel->maps.procs);
	__u32 key = (__u32)tgid;
	struct tracer_proc p;
	int rc;

	if (tgid <= 0)
		return -EINVAL;
	/*
	 * Already tagged (inherited from a parent job): only the job moves.
	 * Writing back the whole value could lose a thread exit that races
	 * with us; the registrant is blocked on our reply, so it does not.
	 */
	if (bpf_map_lookup_elem(fd, &key, &p) == 0) {
		/* it leaves the old job's count (not atomic with the kernel's
		 * counting: a count may drift by one, never the table) */
		if (p.flags & TRACER_F_COUNTED) {
			struct tracer_job_stats st;
			int sfd = bpf_map__fd(l->skel->maps.job_stats);
			if (bpf_map_lookup_elem(sfd, &p.job, &st) == 0 && st.live > 0) {
				st.live--;
				bpf_map_update_elem(sfd, &p.job, &st, BPF_EXIST);
				user_uncount(l, st.user, 1);
			}
			p.flags &= ~TRACER_F_COUNTED;
		}
		p.job = job;
		rc = bpf_map_update_elem(fd, &key, &p, BPF_EXIST);
		return rc == 0 ? 0 : -errno;
	}
	memset(&p, 0, sizeof(p));
	rc = read_proc_entry(tgid, &p);
	if (rc != 0)
		return rc;
	p.job = job;
	if (bpf_map_update_elem(fd, &key, &p, BPF_ANY) != 0)
		return errno == E2BIG ? -ENOSPC : -errno;
	return 0;
}

int bpf_loader_untag_pid(struct bpf_loader *l, pid_t tgid)
{
	__u32 key = (__u32)tgid;

	if (bpf_map_delete_elem(bpf_map__fd(l->skel->maps.procs), &key) != 0)
		return -errno;
	return 0;
}

int bpf_loader_tag_cgroup(struct bpf_loader *l, __u64 cgroup_id, __u64 job)
{
	int fd = bpf_map__fd(l->skel->maps.tagged_cgroups);

	if (bpf_map_update_elem(fd, &cgroup_id, &job, BPF_NOEXIST) == 0) {
		__atomic_add_fetch(&l->skel->bss->nr_tagged_cgroups, 1, __ATOMIC_SEQ_CST);
		return 0;
	}
	if (errno != EEXIST)
		return errno == E2BIG ? -ENOSPC : -errno;
	return bpf_map_update_elem(fd, &cgroup_id, &job, BPF_EXIST) == 0 ? 0 : -errno;
}

int bpf_loader_untag_cgroup(struct bpf_loader *l, __u64 cgroup_id)
{
	int fd = bpf_map__fd(l->skel->maps.tagged_cgroups);

	if (bpf_map_delete_elem(fd, &cgroup_id) != 0)
		return -errno;
	__atomic_sub_fetch(&l->skel->bss->nr_tagged_cgroups, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int bpf_loader_job_open(struct bpf_loader *l, __u64 job, __u64 user)
{
	struct tracer_job_stats st;
	struct tracer_user_stats us;

	memset(&st, 0, sizeof(st));
	memset(&us, 0, sizeof(us));
	st.user = user;
	/* the user's share: made by their first open job, kept by the next */
	if (user && bpf_map_update_elem(bpf_map__fd(l->skel->maps.user_procs), &user, &us,
					BPF_NOEXIST) != 0 && errno != EEXIST)
		return errno == E2BIG ? -ENOSPC : -errno;
	if (bpf_map_update_elem(bpf_map__fd(l->skel->maps.job_stats), &job, &st, BPF_ANY) != 0)
		return errno == E2BIG ? -ENOSPC : -errno;
	return 0;
}

int bpf_loader_user_stats(struct bpf_loader *l, __u64 user, struct tracer_user_stats *out)
{
	if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.user_procs), &user, out) != 0)
		return -errno;
	return 0;
}

int bpf_loader_users_reset(struct bpf_loader *l)
{
	__u64 all = TRACER_USERS_ALL;
	struct tracer_user_stats us;

	memset(&us, 0, sizeof(us));
	if (bpf_map_update_elem(bpf_map__fd(l->skel->maps.user_procs), &all, &us, BPF_ANY) != 0)
		return -errno;
	return 0;
}

int bpf_loader_user_close(struct bpf_loader *l, __u64 user)
{
	if (bpf_map_delete_elem(bpf_map__fd(l->skel->maps.user_procs), &user) != 0)
		return -errno;
	return 0;
}

int bpf_loader_job_stats(struct bpf_loader *l, __u64 job, struct tracer_job_stats *out)
{
	if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.job_stats), &job, out) != 0)
		return -errno;
	return 0;
}

int bpf_loader_job_close(struct bpf_loader *l, __u64 job)
{
	struct tracer_job_stats st;

	/* its processes still counted were untagged while it closed: they
	 * leave its user's count with it */
	if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.job_stats), &job, &st) == 0 &&
	    st.live > 0)
		user_uncount(l, st.user, st.live);
	if (bpf_map_delete_elem(bpf_map__fd(l->skel->maps.job_stats), &job) != 0)
		return -errno;
	return 0;
}

int bpf_loader_lookup_proc(struct bpf_loader *l, pid_t tgid, struct tracer_proc *out)
{
	__u32 key = (__u32)tgid;

	if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.procs), &key, out) != 0)
		return -ENOENT;
	return 0;
}

void bpf_loader_counters(struct bpf_loader *l, __u64 out[TRACER_CNT__MAX])
{
	int fd = bpf_map__fd(l->skel->maps.counters);
	__u64 *percpu = calloc((size_t)l->ncpus, sizeof(*percpu));

	memset(out, 0, sizeof(__u64) * TRACER_CNT__MAX);
	if (!percpu) {
		log_error("counters: out of memory");
		return;
	}
	for (__u32 k = 0; k < TRACER_CNT__MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, percpu) != 0) {
			log_error("read counter %u: %s", k, strerror(errno));
			continue;
		}
		for (int c = 0; c < l->ncpus; c++)
			out[k] += percpu[c];
	}
	free(percpu);
}

int bpf_loader_programs(struct bpf_loader *l, char names[][32], int max)
{
	struct bpf_link *links[] = {l->skel->links.tracer_fork, l->skel->links.tracer_exec,
				    l->skel->links.tracer_exit, l->skel->links.tracer_switch,
				    l->skel->links.tracer_oom};
	struct bpf_program *progs[] = {l->skel->progs.tracer_fork, l->skel->progs.tracer_exec,
				       l->skel->progs.tracer_exit, l->skel->progs.tracer_switch,
				       l->skel->progs.tracer_oom};
	int n = 0;

	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]) && n < max; i++) {
		if (!links[i])
			continue;
		snprintf(names[n], 32, "%s", bpf_program__name(progs[i]));
		n++;
	}
	struct bpf_program *prog;
	struct bpf_link **link;
	for (int i = 0; (prog = netio_program(l->skel, i, &link)) && n < max; i++)
		if (*link)
			snprintf(names[n++], 32, "%s", bpf_program__name(prog));
	return n;
}

const char *bpf_loader_net_mode(struct bpf_loader *l)
{
	return l && l->skel ? netio_net_mode(l->skel) : "none";
}

void bpf_loader_close(struct bpf_loader *l)
{
	const char *name;
	struct bpf_link **link;

	if (!l)
		return;
	ring_buffer__free(l->rb);
	if (l->skel) {
		if (!l->keep_pins) {
			bpf_pins_unpin_maps(l);
		} else {
			/* pinned links stay attached when we let go of them */
			for (int i = 0; (link = bpf_pins_link(l->skel, i, &name)); i++)
				if (*link)
					bpf_link__disconnect(*link);
		}
		tracer_bpf__destroy(l->skel); /* detaches the links not kept */
	}
	free(l);
}

bool bpf_loader_resumed(const struct bpf_loader *l)
{
	return l->resumed;
}

void bpf_loader_discard(struct bpf_loader *l)
{
	l->keep_pins = false;
}

void bpf_loader_each_proc(struct bpf_loader *l,
			  void (*fn)(void *ctx, pid_t tgid, const struct tracer_proc *p),
			  void *ctx)
{
	int fd = bpf_map__fd(l->skel->maps.procs);
	__u32 key, next, *prev = NULL;
	struct tracer_proc p;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &p) == 0)
			fn(ctx, (pid_t)key, &p);
	}
}
