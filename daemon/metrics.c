/*
 * metrics.c - render tracerd's state as Prometheus text exposition
 * (metrics.h).  Runs in the event loop, at the sampling interval: work
 * is proportional to the open jobs' tools and live processes, which the
 * sampling walks anyway.  Names follow Prometheus conventions: tracer_
 * prefix, base units (seconds, bytes), _total on counters.
 *
 * A running job's CPU is the exact total of its exited processes plus
 * its live processes' CPU at the last sample (clock-tick precision);
 * its read/written bytes are those of exited processes.  A finished
 * job's series are gone from the next exposition.
 */
#include "metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "growbuf.h"
#include "json.h"
#include "summary.h"
#include "bpf_loader.h" /* the kernel counters (tracer.h) */

char *metrics_label_escape(const char *s)
{
	char *v = json_utf8_sanitize(s ? s : "", s ? strlen(s) : 0), *out;
	size_t o = 0;

	if (!v)
		return NULL;
	out = malloc(strlen(v) * 2 + 1);
	for (const char *c = v; out && *c; c++) {
		if (*c == '\\' || *c == '"' || *c == '\n')
			out[o++] = '\\';
		out[o++] = *c == '\n' ? 'n' : *c;
	}
	if (out)
		out[o] = '\0';
	free(v);
	return out;
}

static void metrics_label_value(struct growbuf *b, const char *s)
{
	char *v = metrics_label_escape(s);

	if (!v) {
		b->oom = true;
		return;
	}
	growbuf_printf(b, "%s", v);
	free(v);
}

static void head(struct growbuf *b, const char *name, const char *type, const char *help)
{
	growbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample_u64(struct growbuf *b, const char *name, uint64_t v)
{
	growbuf_printf(b, "%s %llu\n", name, (unsigned long long)v);
}

/* ---- per job ---- */

struct tool_row {
	const char *tool;
	uint64_t cpu_ns, rss, rchar, wchar;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct tool_row *)a)->tool, ((const struct tool_row *)b)->tool);
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct tool_row *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns < y->cpu_ns ? 1 : -1;
	return strcmp(x->tool, y->tool);
}

/* The job's tools, exited and live merged, heaviest first; count in *n. */
static struct tool_row *tool_rows(const struct job *j, size_t *n)
{
	size_t cap = j->ntools + j->nlive, k = 0, out = 0;
	struct tool_row *v = calloc(cap ? cap : 1, sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (const struct tool_agg *t = j->tools; t && k < cap; t = t->next)
		v[k++] = (struct tool_row){t->tool, t->sum.cpu_ns, 0, t->sum.rchar, t->sum.wchar};
	JOB_FOREACH_LIVE(j, p) {
		if (k >= cap || (p->flags & PROC_F_REGISTRANT))
			continue;
		v[k++] = (struct tool_row){p->tool ? p->tool : p->comm, p->cpu_sampled_ns,
					   p->rss_bytes, 0, 0};
	}
	qsort(v, k, sizeof(*v), cmp_name);
	for (size_t i = 0; i < k; i++) {
		if (out && !strcmp(v[out - 1].tool, v[i].tool)) {
			v[out - 1].cpu_ns += v[i].cpu_ns;
			v[out - 1].rss += v[i].rss;
			v[out - 1].rchar += v[i].rchar;
			v[out - 1].wchar += v[i].wchar;
		} else {
			v[out++] = v[i];
		}
	}
	qsort(v, out, sizeof(*v), cmp_cpu);
	*n = out;
	return v;
}

static void job_label(struct growbuf *b, const struct job *j)
{
	/* not "job": Prometheus gives every target a job label of its own */
	growbuf_printf(b, "job_uid=\"");
	metrics_label_value(b, j->uid);
	growbuf_printf(b, "\"");
}

enum job_metric { JM_CPU, JM_MEM, JM_PEAK, JM_READ, JM_WRITE, JM_PROCS, JM_START, JM_OMITTED, JM__N };

static const struct {
	const char *name, *type, *help;
} job_metrics[JM__N] = {
	[JM_CPU] = {"tracer_job_cpu_seconds_total", "counter",
		    "CPU time of a running job: exact for exited processes, sampled for live ones."},
	[JM_MEM] = {"tracer_job_memory_bytes", "gauge",
		    "Resident memory of a running job's live processes at the last sample."},
	[JM_PEAK] = {"tracer_job_memory_peak_bytes", "gauge",
		     "Peak of a running job's resident memory so far."},
	[JM_READ] = {"tracer_job_read_bytes_total", "counter",
		     "Bytes read (rchar) by a running job's exited processes."},
	[JM_WRITE] = {"tracer_job_written_bytes_total", "counter",
		      "Bytes written (wchar) by a running job's exited processes."},
	[JM_PROCS] = {"tracer_job_processes", "gauge", "Live processes of a running job."},
	[JM_START] = {"tracer_job_start_time_seconds", "gauge",
		      "When a running job registered, seconds since the epoch."},
	[JM_OMITTED] = {"tracer_job_tools_omitted", "gauge",
			"Tools of a running job left out of the tracer_tool_* series by the cap."},
};

static uint64_t job_value(const struct job *j, enum job_metric m, size_t ntools)
{
	uint64_t v = 0;

	switch (m) {
	case JM_CPU:
		v = j->totals.cpu_ns;
		JOB_FOREACH_LIVE(j, p)
			if (!(p->flags & PROC_F_REGISTRANT))
				v += p->cpu_sampled_ns;
		return v;
	case JM_MEM:
		JOB_FOREACH_LIVE(j, p)
			if (!(p->flags & PROC_F_REGISTRANT))
				v += p->rss_bytes;
		return v;
	case JM_PEAK:
		return j->mem_peak_bytes;
	case JM_READ:
		return j->totals.rchar;
	case JM_WRITE:
		return j->totals.wchar;
	case JM_PROCS:
		JOB_FOREACH_LIVE(j, p)
			if (!(p->flags & PROC_F_REGISTRANT))
				v++;
		return v;
	case JM_START:
		return j->start_ns / 1000000000ull;
	case JM_OMITTED:
		return ntools > METRICS_MAX_TOOLS_PER_JOB ? ntools - METRICS_MAX_TOOLS_PER_JOB : 0;
	default:
		return 0;
	}
}

static void render_jobs(struct growbuf *b, const struct jobs *js)
{
	struct tool_row **rows = calloc(jobs_count(js) ? jobs_count(js) : 1, sizeof(*rows));
	size_t *nrows = calloc(jobs_count(js) ? jobs_count(js) : 1, sizeof(*nrows));

	if (!rows || !nrows) {
		b->oom = true;
		goto out;
	}
	for (size_t i = 0; i < jobs_count(js); i++)
		rows[i] = tool_rows(jobs_at(js, i)->job, &nrows[i]);
	for (int m = 0; m < JM__N; m++) {
		head(b, job_metrics[m].name, job_metrics[m].type, job_metrics[m].help);
		for (size_t i = 0; i < jobs_count(js); i++) {
			const struct job *j = jobs_at(js, i)->job;
			uint64_t v = job_value(j, (enum job_metric)m, nrows[i]);

			growbuf_printf(b, "%s{", job_metrics[m].name);
			job_label(b, j);
			if (m == JM_CPU)
				growbuf_printf(b, "} %.6f\n", (double)v / 1e9);
			else
				growbuf_printf(b, "} %llu\n", (unsigned long long)v);
		}
	}
	static const char *const tool_names[4] = {
		"tracer_tool_cpu_seconds_total", "tracer_tool_memory_bytes",
		"tracer_tool_read_bytes_total", "tracer_tool_written_bytes_total"};
	static const char *const tool_help[4] = {
		"CPU time of a tool in a running job (exited processes exact, live ones sampled).",
		"Resident memory of a tool's live processes in a running job.",
		"Bytes read (rchar) by a tool's exited processes in a running job.",
		"Bytes written (wchar) by a tool's exited processes in a running job."};
	for (int m = 0; m < 4; m++) {
		head(b, tool_names[m], m == 1 ? "gauge" : "counter", tool_help[m]);
		for (size_t i = 0; i < jobs_count(js); i++) {
			for (size_t t = 0; rows[i] && t < nrows[i] && t < METRICS_MAX_TOOLS_PER_JOB; t++) {
				const struct tool_row *r = &rows[i][t];
				growbuf_printf(b, "%s{", tool_names[m]);
				job_label(b, jobs_at(js, i)->job);
				growbuf_printf(b, ",tool=\"");
				metrics_label_value(b, r->tool);
				if (m == 0)
					growbuf_printf(b, "\"} %.6f\n", (double)r->cpu_ns / 1e9);
				else
					growbuf_printf(b, "\"} %llu\n", (unsigned long long)(m == 1 ? r->rss
						: m == 2 ? r->rchar : r->wchar));
			}
		}
	}
out:
	for (size_t i = 0; rows && i < jobs_count(js); i++)
		free(rows[i]);
	free(rows);
	free(nrows);
}

/* ---- GPUs of running jobs (jobgpu.c), the allocated and the used ---- */

static void gpu_labels(struct growbuf *b, const char *name, const struct job *j, int d)
{
	growbuf_printf(b, "%s{", name);
	job_label(b, j);
	growbuf_printf(b, ",gpu=\"%d\",uuid=\"", j->gpu->dev[d].index);
	metrics_label_value(b, j->gpu->dev[d].uuid);
	growbuf_printf(b, "\"} ");
}

static void render_gpus(struct growbuf *b, const struct jobs *js)
{
	static const char *const names[4] = {
		"tracer_job_gpu_allocated", "tracer_job_gpu_memory_bytes",
		"tracer_job_gpu_memory_peak_bytes", "tracer_job_gpu_utilization_percent"};
	static const char *const help[4] = {
		"1 for a GPU the scheduler gave a running job, 0 for one it uses unallocated.",
		"GPU memory of a running job's processes on a GPU at the last sample.",
		"Highest GPU memory of a running job's processes on a GPU so far (sampled).",
		"GPU utilisation of a running job's processes on a GPU at the last sample "
		"(percent, summed over them)."};

	for (int m = 0; m < 4; m++) {
		head(b, names[m], "gauge", help[m]);
		for (size_t i = 0; i < jobs_count(js); i++) {
			const struct job *j = jobs_at(js, i)->job;
			bool alloc[GPU_MAX_DEVICES];

			if (!j->gpu)
				continue;
			gpu_alloc_match(j->gpu, j->id.alloc.gpus, !strcmp(j->id.scheduler, "slurm"),
					alloc);
			for (int d = 0; d < j->gpu->ndev; d++) {
				if (!alloc[d] && !j->gpu->sampled_mem_peak[d])
					continue;
				gpu_labels(b, names[m], j, d);
				growbuf_printf(b, "%llu\n", (unsigned long long)(m == 0 ? alloc[d]
					: m == 1 ? j->gpu->last_mem[d]
					: m == 2 ? j->gpu->sampled_mem_peak[d] : j->gpu->last_util[d]));
			}
		}
	}
}

/* ---- the daemon ---- */

static void render_daemon(struct growbuf *b, const struct jobs *js, const struct metrics_daemon *d)
{
	head(b, "tracer_build_info", "gauge", "tracerd's version and summary schema.");
	growbuf_printf(b, "tracer_build_info{version=\"%s\",schema=\"%s\"} 1\n", TRACER_VERSION, SUMMARY_SCHEMA);
	head(b, "tracer_start_time_seconds", "gauge", "When tracerd started, seconds since the epoch.");
	sample_u64(b, "tracer_start_time_seconds", d->start_time_s);
	head(b, "tracer_kernel_events_total", "counter", "Records the BPF programs submitted.");
	sample_u64(b, "tracer_kernel_events_total", d->kernel[TRACER_CNT_EVENTS]);
	head(b, "tracer_events_dropped_total", "counter", "Events lost, by cause.");
	growbuf_printf(b, "tracer_events_dropped_total{cause=\"ringbuf_full\"} %llu\n",
	    (unsigned long long)d->kernel[TRACER_CNT_DROP_RINGBUF]);
	growbuf_printf(b, "tracer_events_dropped_total{cause=\"procs_table_full\"} %llu\n",
	    (unsigned long long)d->kernel[TRACER_CNT_DROP_PROCS_FULL]);
	growbuf_printf(b, "tracer_events_dropped_total{cause=\"bad_record\"} %llu\n",
	    (unsigned long long)js->stats.bad_records);
	head(b, "tracer_host_idle", "gauge",
	     "1 while the node is idle: no job and CPU under idle_host_cpu_share for idle_host_after_s.");
	sample_u64(b, "tracer_host_idle", d->host_idle ? 1 : 0);
	head(b, "tracer_jobs_open", "gauge", "Jobs being recorded.");
	sample_u64(b, "tracer_jobs_open", jobs_count(js));
	head(b, "tracer_jobs_registered_total", "counter", "Jobs registered.");
	sample_u64(b, "tracer_jobs_registered_total", js->stats.registered);
	head(b, "tracer_jobs_closed_total", "counter", "Jobs ended and summarised.");
	sample_u64(b, "tracer_jobs_closed_total", js->stats.closed);
	head(b, "tracer_socket_requests_total", "counter", "Requests on the registration socket.");
	sample_u64(b, "tracer_socket_requests_total", d->socket ? d->socket->requests : 0);
	head(b, "tracer_metrics_scrapes_total", "counter", "Scrapes of this endpoint.");
	sample_u64(b, "tracer_metrics_scrapes_total", d->scrapes);
}

/*
 * Delivery of summaries (daemon/delivery.h): spool depth and bytes,
 * per-sink deliveries, failures, drops and the last successful delivery.
 */
static void sink_sample(struct growbuf *b, const char *name, const struct sink_stats *s,
			uint64_t v)
{
	growbuf_printf(b, "%s{sink=\"%s\"} %llu\n", name, sink_kind_name(s->kind), (unsigned long long)v);
}

static void render_delivery(struct growbuf *b, const struct delivery_stats *st)
{
	head(b, "tracer_spool_summaries", "gauge", "Summaries in the spool.");
	sample_u64(b, "tracer_spool_summaries", st->spool.records);
	head(b, "tracer_spool_bytes", "gauge", "Bytes of summaries in the spool.");
	sample_u64(b, "tracer_spool_bytes", st->spool.bytes);
	head(b, "tracer_spool_write_errors_total", "counter", "Spool writes that failed.");
	sample_u64(b, "tracer_spool_write_errors_total", st->spool.write_errors);
	head(b, "tracer_spool_dropped_total", "counter",
	     "Summaries removed from the spool by its size cap.");
	sample_u64(b, "tracer_spool_dropped_total", st->spool.dropped);
	head(b, "tracer_delivery_queue_dropped_total", "counter",
	     "Summaries lost because the hand-over queue was full.");
	sample_u64(b, "tracer_delivery_queue_dropped_total", st->queue_dropped);
	head(b, "tracer_sink_deliveries_total", "counter", "Summaries delivered, per sink.");
	for (int i = 0; i < st->nsinks; i++)
		sink_sample(b, "tracer_sink_deliveries_total", &st->sinks[i], st->sinks[i].delivered);
	head(b, "tracer_sink_failures_total", "counter", "Failed delivery attempts, per sink.");
	for (int i = 0; i < st->nsinks; i++)
		sink_sample(b, "tracer_sink_failures_total", &st->sinks[i], st->sinks[i].failures);
	head(b, "tracer_sink_dropped_total", "counter",
	     "Summaries a sink never got (spool cap), per sink.");
	for (int i = 0; i < st->nsinks; i++)
		sink_sample(b, "tracer_sink_dropped_total", &st->sinks[i], st->sinks[i].dropped);
	head(b, "tracer_sink_pending", "gauge", "Summaries waiting for a sink.");
	for (int i = 0; i < st->nsinks; i++)
		sink_sample(b, "tracer_sink_pending", &st->sinks[i], st->sinks[i].pending);
	head(b, "tracer_sink_last_success_time_seconds", "gauge",
	     "Time of a sink's last successful delivery (0: never).");
	for (int i = 0; i < st->nsinks; i++)
		sink_sample(b, "tracer_sink_last_success_time_seconds", &st->sinks[i],
			    st->sinks[i].last_success_ns / 1000000000ull);
}

/* The per-user shares (jobs_shares): each limit and what it refused. */
static void render_shares(struct growbuf *b, const struct metrics_daemon *d)
{
	const struct jobs_shares *sh = d->shares;

	head(b, "tracer_user_limit", "gauge", "Per-user limits of a shared node, by limit.");
	growbuf_printf(b, "tracer_user_limit{limit=\"jobs\"} %u\n", sh->max_jobs_per_user);
	growbuf_printf(b, "tracer_user_limit{limit=\"processes\"} %u\n", sh->max_procs_per_user);
	growbuf_printf(b, "tracer_user_limit{limit=\"processes_all_users\"} %u\n", sh->max_procs_all_users);
	head(b, "tracer_registrations_refused_total", "counter",
	     "Registrations of users refused, by limit.");
	growbuf_printf(b, "tracer_registrations_refused_total{limit=\"user_jobs\"} %llu\n",
	    (unsigned long long)sh->refused_user_jobs);
	growbuf_printf(b, "tracer_registrations_refused_total{limit=\"node_jobs\"} %llu\n",
	    (unsigned long long)sh->refused_node_jobs);
	growbuf_printf(b, "tracer_registrations_refused_total{limit=\"rate\"} %llu\n",
	    (unsigned long long)sh->refused_rate);
	head(b, "tracer_registrations_rated_together_total", "counter",
	     "Registrations of uids beyond the table of rate buckets, rated by one shared bucket.");
	sample_u64(b, "tracer_registrations_rated_together_total", sh->rated_together);
	head(b, "tracer_forks_over_cap_total", "counter",
	     "Processes not followed: their job or their user was at its cap.");
	growbuf_printf(b, "tracer_forks_over_cap_total{cap=\"job\"} %llu\n",
	    (unsigned long long)d->kernel[TRACER_CNT_OVER_CAP]);
	growbuf_printf(b, "tracer_forks_over_cap_total{cap=\"user\"} %llu\n",
	    (unsigned long long)sh->forks_over_user_cap);
	growbuf_printf(b, "tracer_forks_over_cap_total{cap=\"all_users\"} %llu\n",
	    (unsigned long long)sh->forks_over_users_cap);
	head(b, "tracer_archive_requests_held_total", "counter",
	     "Archive requests that waited because their user already had a worker.");
	sample_u64(b, "tracer_archive_requests_held_total", sh->archive_held);
	head(b, "tracer_archive_requests_refused_total", "counter",
	     "Archive requests refused as busy (all workers' queue, or the user's, full).");
	sample_u64(b, "tracer_archive_requests_refused_total", sh->archive_refused);
	head(b, "tracer_spool_share_spared_total", "counter",
	     "Spool drops that took the largest share's oldest summary, sparing an older one of a smaller share.");
	sample_u64(b, "tracer_spool_share_spared_total", sh->spool_spared);
	head(b, "tracer_archive_share_dropped_total", "counter",
	     "Summaries the file sink's rotation dropped from the archive, the oldest of the largest user share.");
	sample_u64(b, "tracer_archive_share_dropped_total", sh->archive_dropped);
}

char *metrics_render(const struct jobs *js, const struct metrics_daemon *d, size_t *len)
{
	struct growbuf b = {0};

	render_daemon(&b, js, d);
	if (d->shares)
		render_shares(&b, d);
	if (d->delivery)
		render_delivery(&b, d->delivery);
	render_jobs(&b, js);
	render_gpus(&b, js);
	if (b.oom || !b.p) {
		free(b.p);
		return NULL;
	}
	*len = b.len;
	return b.p;
}
