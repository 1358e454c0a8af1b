/*
 * livestats.c - /proc and cgroup readings of live processes (livestats.h).
 */
#include "livestats.h"

#include <string.h>

#include "clock.h"
#include "procfs.h"
#include "allocation.h"
#include "job_state.h"
#include "timeseries.h"

/* threads of one process read per sample: a process with more is seen
 * through its first ones (its concurrency then is a lower bound) */
#define THREADS_READ_MAX 128

/* Runnable threads of a multi-threaded process, each on its CPU; the
 * reads it took.  Falls back to the leader's state when the task
 * directory cannot be read. */
static size_t sample_threads(struct job *j, struct job_proc *p,
			     const struct procfs_stat *st, const struct host_info *host,
			     size_t left, int *running)
{
	struct procfs_threads th;
	int max = left < THREADS_READ_MAX ? (int)left : THREADS_READ_MAX;

	if (st->num_threads > 1 && max > 1 && procfs_read_threads(p->pid, max, &th) == 0) {
		int ncpus = (int)(sizeof(th.cpus) / sizeof(th.cpus[0]));
		*running += th.running;
		for (int i = 0; i < th.running && i < ncpus; i++)
			allocation_note_cpu_busy(j, th.cpus[i], host->cpus);
		p->totals.blkio_delay_ns +=
			job_blocked_note_blkio(&j->blocked, &p->blkio_ticks_seen, th.blkio_ticks);
		return (size_t)th.read;
	}
	/* field 42 of a process's stat is its leader thread's only */
	p->totals.blkio_delay_ns +=
		job_blocked_note_blkio(&j->blocked, &p->blkio_ticks_seen, st->blkio_ticks);
	if (st->state == 'R') {
		(*running)++;
		allocation_note_cpu_busy(j, st->processor, host->cpus);
	}
	return 0;
}

/* Path components that only cgroups made for one job or container have. */
static const char *const job_cgroup_marks[] = {
	"/job_",       /* Slurm task/cgroup: .../job_<id>/step_<id> */
	"/docker/", "/docker-", "/libpod-", "/crio-", "/cri-containerd-",
	"/ecs/",       /* ECS agent: /ecs/<task>/<container> */
	"/kubepods",
	"/tracer-job", /* made by hand for a job */
};

static bool is_job_cgroup(const char *path)
{
	if (!path[0])
		return false;
	for (size_t i = 0; i < sizeof(job_cgroup_marks) / sizeof(job_cgroup_marks[0]); i++)
		if (strstr(path, job_cgroup_marks[i]))
			return true;
	return false;
}

bool livestats_job_cgroup(pid_t pid, struct cgroup_ref *ref)
{
	if (cgroup_ref_for_pid(pid, ref) != 0)
		return false;
	/* keep only the directories that are the job's own */
	if (!is_job_cgroup(ref->v2))
		ref->v2[0] = '\0';
	if (!is_job_cgroup(ref->mem_v1))
		ref->mem_v1[0] = '\0';
	if (!is_job_cgroup(ref->cpu_v1))
		ref->cpu_v1[0] = '\0';
	if (!is_job_cgroup(ref->cpuctl_v1))
		ref->cpuctl_v1[0] = '\0';
	if (!is_job_cgroup(ref->blkio_v1))
		ref->blkio_v1[0] = '\0';
	return ref->v2[0] || ref->mem_v1[0] || ref->cpu_v1[0] || ref->cpuctl_v1[0];
}

size_t livestats_sample_rss(struct job *j, const struct host_info *host,
			    size_t *bucket, size_t budget, uint64_t *pid_reused)
{
	uint64_t sum = 0, ticks = 0;
	size_t read = 0, b = *bucket;
	int running = 0;

	/* refresh up to budget processes, from where the last call stopped */
	for (size_t k = 0; k < j->live_buckets && read < budget; k++, b++) {
		if (b >= j->live_buckets)
			b = 0;
		for (struct job_proc *p = j->live[b]; p; p = p->next) {
			struct procfs_stat st;
			/* each process's container once: a docker exec, a container
			 * started by a job's process (podman run), a sidecar */
			if (p->container == 0) {
				p->container = container_note_pid(&j->containers, p->pid) ?: -1;
				if (p->container > 0)
					j->containers.c[p->container - 1].nlive++;
				read++;
			}
			if (p->flags & PROC_F_REGISTRANT)
				continue; /* its memory is not the job's */
			read++;
			if (procfs_read_stat(p->pid, &st) != 0) {
				p->rss_bytes = 0; /* exited since: its exit record has its peak */
			} else if (!procfs_same_start(&st, p->start_mono_ns)) {
				/* another process has its pid: nothing of it is the job's */
				p->rss_bytes = 0;
				(*pid_reused)++;
			} else {
				p->rss_bytes = st.rss_pages * (uint64_t)host->page_size;
				p->cpu_sampled_ns = clock_ticks_ns(st.utime_ticks + st.stime_ticks);
				/* where the job's threads run now (allocation.c) */
				read += sample_threads(j, p, &st, host,
						       budget > read ? budget - read : 0, &running);
			}
		}
	}
	*bucket = b;
	/* the sum of the latest readings of every live process */
	JOB_FOREACH_LIVE(j, p)
		if (!(p->flags & PROC_F_REGISTRANT)) {
			sum += p->rss_bytes;
			ticks += p->cpu_sampled_ns;
		}
	/* concurrency among the threads read this time (all of them
	 * unless the job has more than the sampling budget) */
	allocation_note_concurrency(j, running);
	j->running = running > 0;
	j->stall_moved = j->running || ticks != j->ticks;
	j->ticks = ticks;
	container_sample(&j->containers);
	j->samples++;
	if (sum > j->mem_peak_bytes)
		j->mem_peak_bytes = sum;
	/* over time: finished processes exact, live ones as last read */
	timeseries_note(&j->series, j->start_ns, clock_real_ns(), j->totals.cpu_ns + ticks, sum);
	return read;
}

/* processes whose I/O counters are read for the stall check */
#define STALL_IO_READS_MAX 64

int livestats_check_stall(struct job *j, uint64_t threshold_ns)
{
	bool moved = j->stall_moved;

	/* CPU did not move: the I/O counters (a process blocked on I/O gets
	 * no ticks); only then, so that a busy job costs no extra reads */
	if (!moved) {
		uint64_t io = 0;
		size_t n = 0;

		/* bounded: the loop never waits on a job's size */
		JOB_FOREACH_LIVE(j, p) {
			struct procfs_io pio;
			if (n >= STALL_IO_READS_MAX || (p->flags & PROC_F_REGISTRANT))
				continue;
			n++;
			if (procfs_read_io(p->pid, &pio) == 0)
				io += pio.rchar + pio.wchar + pio.syscr + pio.syscw;
		}
		moved = io != j->io;
		j->io = io;
	}
	return job_note_progress(j, moved, clock_mono_ns(), threshold_ns);
}

int livestats_read_totals(struct job_proc *p)
{
	struct procfs_status status;
	struct procfs_stat st;
	struct procfs_io io;

	if (procfs_read_stat(p->pid, &st) != 0 || !procfs_same_start(&st, p->start_mono_ns))
		return -1;
	job_record_split_cpu(&p->totals,
			      clock_ticks_ns(st.utime_ticks + st.stime_ticks),
			      st.utime_ticks, st.stime_ticks);
	p->totals.min_flt = st.minflt;
	p->totals.maj_flt = st.majflt;
	if (procfs_read_threads_io(p->pid, &io) == 0) {
		p->totals.rchar = io.rchar;
		p->totals.wchar = io.wchar;
		p->totals.syscr = io.syscr;
		p->totals.syscw = io.syscw;
		p->totals.read_bytes = io.read_bytes;
		p->totals.write_bytes = io.write_bytes;
		p->totals.cancelled_write_bytes = io.cancelled_write_bytes;
	}
	if (procfs_read_status(p->pid, &status) == 0) {
		p->totals.maxrss_bytes = status.vm_hwm_kb * 1024;
		p->totals.nvcsw = status.voluntary_ctxt_switches;
		p->totals.nivcsw = status.nonvoluntary_ctxt_switches;
	}
	p->flags |= PROC_F_TOTALS_PARTIAL;
	return 0;
}
