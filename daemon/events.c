/*
 * events.c - apply ring buffer records to jobs (events.h).  Records of
 * jobs already closed (processes that outlived their job and were not
 * untagged in time) are counted and ignored.
 */
#include "events.h"

#include <linux/types.h>
#include <stddef.h>
#include <string.h>

#include "bpf_loader.h"
#include "jobcontainers.h"
#include "jobdocker.h"
#include "jobgpu.h"
#include "jobs.h"
#include "job_state.h"
#include "log.h"
#include "netio_kernel.h"
#include "netio_peer.h"
#include "netpeers.h"
#include "procfs.h"
#include "tracer.h"

/* live processes whose RSS is read at an OOM kill (the rest: last sample) */
#define OOM_RSS_READS_MAX 256

/* A record shorter than its type's fixed part is a bug or a mismatch
 * between the BPF object and this build: count it, never read past it. */
static int too_short(struct jobs *js, size_t size, size_t need)
{
	if (size >= need)
		return 0;
	js->stats.bad_records++;
	return 1;
}

/* The process, or a new record for it when its fork was not seen
 * (registered root, or a lost event). */
static struct job_proc *proc_of(struct jobs *js, struct open_job *oj, __u32 pid,
				__u32 ppid, __u64 start_mono, const char *comm)
{
	struct job_proc *p = job_proc_find(oj->job, (pid_t)pid);

	if (p)
		return p;
	js->stats.unknown_procs++;
	oj->empty_since_ns = 0;
	p = job_proc_add(oj->job, (pid_t)pid, (pid_t)ppid, jobs_real_ns(js, start_mono), comm);
	if (p)
		p->start_mono_ns = start_mono;
	return p;
}

static void on_fork(struct jobs *js, struct open_job *oj, const struct tracer_fork_event *e)
{
	char comm[TRACER_COMM_LEN + 1];
	struct job_proc *p;

	memcpy(comm, e->comm, TRACER_COMM_LEN);
	comm[TRACER_COMM_LEN] = '\0';
	oj->empty_since_ns = 0;
	p = job_proc_add(oj->job, (pid_t)e->hdr.pid, (pid_t)e->ppid, jobs_real_ns(js, e->start_ns),
			 comm);
	if (p)
		p->start_mono_ns = e->start_ns;
	jobcontainers_fork(oj, p);
}

static void on_exec(struct jobs *js, struct open_job *oj, const struct tracer_exec_event *e,
		    size_t size)
{
	char comm[TRACER_COMM_LEN + 1];
	char path[TRACER_PATH_MAX + 1];
	size_t argv_len = e->argv_len, path_len = e->path_len;
	size_t argv_off = offsetof(struct tracer_exec_event, argv);
	const char *src = e->path;
	struct job_proc *p;

	memcpy(comm, e->comm, TRACER_COMM_LEN);
	comm[TRACER_COMM_LEN] = '\0';
	if (e->flags & TRACER_F_PATH_FROM_FILENAME) {
		src = e->filename;
		path_len = e->filename_len;
	}
	if (path_len > TRACER_PATH_MAX)
		path_len = TRACER_PATH_MAX;
	memcpy(path, src, path_len);
	path[path_len] = '\0';
	/* variable-length record: argv is cut to what arrived */
	if (argv_len > TRACER_ARGV_MAX)
		argv_len = TRACER_ARGV_MAX;
	if (argv_off + argv_len > size)
		argv_len = size > argv_off ? size - argv_off : 0;
	p = proc_of(js, oj, e->hdr.pid, e->ppid, e->start_ns, comm);
	if (!p)
		return;
	memcpy(p->comm, comm, sizeof(p->comm) - 1);
	/* a registrant stays the job's parent and never execs: one that does
	 * is the job's work from now on, whatever it said (counted, a tool) */
	job_proc_clear_registrant(oj->job, p);
	jobcontainers_exec_starter(js, oj, p, path); /* before argv becomes the starter's */
	job_proc_exec(oj->job, p, path, e->argv, argv_len, js->rules,
		      !!(e->flags & TRACER_F_ARGV_TRUNCATED));
	if (e->flags & TRACER_F_PATH_TRUNCATED)
		p->flags |= PROC_F_PATH_TRUNCATED;
	jobcontainers_exec(js, oj, p, e->pidns);
	jobdocker_exec(js, oj, p, jobs_real_ns(js, e->hdr.ts_ns));
}

/* A block request of the job ended: its bytes and latency in the job's
 * device table (the issuer's bytes are in its kernel counters). */
static void on_blkio(struct open_job *oj, const struct tracer_blkio_event *e)
{
	netio_note_block(NULL, &oj->job->blkdevs, e->dev, e->op, e->bytes, e->latency_ns);
}

/* A connect or accept of the job: its remote endpoint, counted once per
 * process, tool and job (netpeers.c). */
static void on_tcp_peer(struct open_job *oj, const struct tracer_tcp_peer_event *e)
{
	struct job_proc *p = job_proc_find(oj->job, (pid_t)e->hdr.pid);

	netpeers_note(oj->job, p, e->family, e->addr, e->port);
}

static void on_exit_event(struct jobs *js, struct open_job *oj, const struct tracer_exit_event *e)
{
	char comm[TRACER_COMM_LEN + 1];
	struct proc_totals t;
	const struct tracer_totals *k = &e->totals;
	struct job_proc *p;

	memcpy(comm, e->comm, TRACER_COMM_LEN);
	comm[TRACER_COMM_LEN] = '\0';
	p = proc_of(js, oj, e->hdr.pid, e->ppid, e->start_ns, comm);
	if (!p)
		return;
	memset(&t, 0, sizeof(t));
	job_record_split_cpu(&t, k->cpu_ns, k->utime_ns, k->stime_ns);
	t.maxrss_bytes = k->maxrss_kb * 1024;
	t.rchar = k->rchar;
	t.wchar = k->wchar;
	t.syscr = k->syscr;
	t.syscw = k->syscw;
	t.read_bytes = k->read_bytes;
	t.write_bytes = k->write_bytes;
	t.cancelled_write_bytes = k->cancelled_write_bytes;
	t.nvcsw = k->nvcsw;
	t.nivcsw = k->nivcsw;
	t.min_flt = k->min_flt;
	t.maj_flt = k->maj_flt;
	t.net = p->totals.net; /* the endpoints counted so far (netpeers.c) */
	netio_kernel_to_totals(&t.net, &e->net);
	t.run_delay_ns = e->run_delay_ns;
	t.own_peak_bytes = e->own_peak_kb * 1024;
	t.blkio_delay_ns = p->totals.blkio_delay_ns; /* sampled (livestats.c) */
	p->threads = e->nr_threads;
	jobcontainers_exit(js, oj, p);
	jobgpu_exit(js, oj, p);
	/* a re-parented process (daemonizer) keeps the parent it had in the job */
	job_proc_exit(oj->job, p, e->exit_status, jobs_real_ns(js, e->hdr.ts_ns), &t,
		      (e->flags & TRACER_F_OOM_KILLED) ? PROC_F_OOM_KILLED : 0);
	jobs_note_exit(js, oj);
}

/* Victim, largest holder, cgroup or host (job_state.c). */
static void on_oom_detail(struct jobs *js, struct open_job *oj,
			  const struct tracer_oom_event *e)
{
	size_t n = 0;

	/* the RSS of the job's processes now, not at the last sample; an
	 * OOM kill is rare, and the reads are bounded */
	JOB_FOREACH_LIVE(oj->job, p) {
		struct procfs_stat st;

		if (n++ >= OOM_RSS_READS_MAX)
			break;
		if (procfs_read_stat(p->pid, &st) == 0)
			p->rss_bytes = st.rss_pages * (uint64_t)js->host->page_size;
	}
	job_note_oom(oj->job, (pid_t)e->hdr.pid, e->victim_rss_kb * 1024,
		     e->memcg_limit_pages, e->memcg_usage_pages, js->host->mem_bytes,
		     js->host->page_size);
}

int events_handle(void *ctx, void *data, size_t size)
{
	struct jobs *js = ctx;
	const struct tracer_event_hdr *h = data;
	struct open_job *oj;

	if (too_short(js, size, sizeof(*h)))
		return 0;
	js->stats.events++;
	oj = jobs_find_tag(js, h->job);
	if (!oj) {
		/* A process of a closed job (forked while it closed): stop
		 * following it, unless it has moved to a job since. */
		struct tracer_proc kp;
		js->stats.late_events++;
		if (h->type != TRACER_EV_EXIT &&
		    bpf_loader_lookup_proc(js->bpf, (pid_t)h->pid, &kp) == 0 && kp.job == h->job)
			bpf_loader_untag_pid(js->bpf, (pid_t)h->pid);
		return 0;
	}
	switch (h->type) {
	case TRACER_EV_FORK:
		if (!too_short(js, size, sizeof(struct tracer_fork_event)))
			on_fork(js, oj, data);
		break;
	case TRACER_EV_EXEC:
		if (!too_short(js, size, offsetof(struct tracer_exec_event, argv)))
			on_exec(js, oj, data, size);
		break;
	case TRACER_EV_EXIT:
		if (!too_short(js, size, sizeof(struct tracer_exit_event)))
			on_exit_event(js, oj, data);
		break;
	case TRACER_EV_BLKIO:
		if (!too_short(js, size, sizeof(struct tracer_blkio_event)))
			on_blkio(oj, data);
		break;
	case TRACER_EV_TCP_PEER:
		if (!too_short(js, size, sizeof(struct tracer_tcp_peer_event)))
			on_tcp_peer(oj, data);
		break;
	case TRACER_EV_OOM: {
		struct job_proc *p = job_proc_find(oj->job, (pid_t)h->pid);
		if (p)
			p->flags |= PROC_F_OOM_KILLED;
		if (size >= sizeof(struct tracer_oom_event))
			on_oom_detail(js, oj, data);
		break;
	}
	default:
		js->stats.bad_records++;
		log_debug("unknown event type %u", h->type);
		break;
	}
	return 0;
}
