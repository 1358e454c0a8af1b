/*
 * sampler.c - /proc readings of live processes (sampler.h).  Kernel exit
 * records are the exact numbers; these readings only give what exit
 * records cannot: memory held at the same time by several processes,
 * and the totals so far of processes still running when a job ends.
 */
#include "sampler.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

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

bool sampler_job_cgroup(pid_t pid, struct cgroup_ref *ref)
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
	if (!is_job_cgroup(ref->blkio_v1))
		ref->blkio_v1[0] = '\0';
	return ref->v2[0] || ref->mem_v1[0] || ref->cpu_v1[0];
}

void sampler_sample_cgroup(struct job *j, const struct cgroup_ref *ref)
{
	struct cgroup_stats st;

	if (cgroup_read_stats(ref, &st) != 0)
		return;
	if (st.have_mem) {
		uint64_t peak = st.mem_peak_bytes > st.mem_current_bytes ? st.mem_peak_bytes
									  : st.mem_current_bytes;
		if (peak > j->cgroup_mem_peak_bytes)
			j->cgroup_mem_peak_bytes = peak;
	}
	if (st.have_cpu)
		j->cgroup_cpu_ns = st.cpu_ns;
}

void sampler_sample_job(struct job *j, const struct host_info *host)
{
	uint64_t sum = 0;

	JOB_FOREACH_LIVE(j, p) {
		struct procfs_stat st;
		if (procfs_read_stat(p->pid, &st) != 0)
			continue; /* exited since: its exit record has its peak */
		p->rss_bytes = st.rss_pages * (uint64_t)host->page_size;
		sum += p->rss_bytes;
	}
	j->samples++;
	if (sum > j->mem_peak_bytes)
		j->mem_peak_bytes = sum;
}

/*
 * I/O of the process's own live threads.  /proc/<pid>/io is no good
 * here: the kernel adds the I/O of every child the process reaped to it
 * (wait_task_zombie), and those children have their own records.
 */
static int read_threads_io(pid_t pid, struct procfs_io *sum)
{
	char path[64], buf[1024];
	struct dirent *de;
	DIR *dir;
	int n = 0;

	memset(sum, 0, sizeof(*sum));
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		struct procfs_io io;
		ssize_t len;
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/io", (int)pid, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* the thread exited */
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0 || procfs_parse_io(buf, (size_t)len, &io) != 0)
			continue;
		procfs_io_add(sum, &io);
		n++;
	}
	closedir(dir);
	return n > 0 ? 0 : -1;
}

int sampler_read_totals(struct job_proc *p, const struct host_info *host)
{
	struct procfs_stat st;
	struct procfs_io io;
	struct procfs_status status;
	uint64_t tick_ns = host->clk_tck > 0 ? 1000000000ull / (uint64_t)host->clk_tck : 10000000ull;

	if (procfs_read_stat(p->pid, &st) != 0)
		return -1;
	proc_totals_split_cpu(&p->totals, (st.utime_ticks + st.stime_ticks) * tick_ns,
			      st.utime_ticks, st.stime_ticks);
	p->totals.min_flt = st.minflt;
	p->totals.maj_flt = st.majflt;
	if (read_threads_io(p->pid, &io) == 0) {
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
