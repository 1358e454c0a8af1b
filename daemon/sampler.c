/*
 * sampler.c - /proc readings of live processes (sampler.h).  Kernel exit
 * records are the exact numbers; these readings only give what exit
 * records cannot: memory held at the same time by several processes,
 * and the totals so far of processes still running when a job ends.
 */
#include "sampler.h"

#include "procfs.h"

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
	if (procfs_read_io(p->pid, &io) == 0) {
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
