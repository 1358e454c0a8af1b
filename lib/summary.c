/*
 * summary.c - turn a closed job (job_record.h) into the summary object of
 * docs/schema.md.  The one place where the schema is written.
 */
#include "summary.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "job_state.h"
#include "json.h"
#include "summary_container.h"
#include "summary_id.h"
#include "timeseries.h"

/* {code_key: exit code or null, "signal": signal or null} from a wait status */
static void add_exit_as(cJSON *obj, const char *code_key, int status)
{
	if (status < 0) {
		cJSON_AddNullToObject(obj, code_key);
		cJSON_AddNullToObject(obj, "signal");
	} else if (WIFSIGNALED(status)) {
		cJSON_AddNullToObject(obj, code_key);
		cJSON_AddNumberToObject(obj, "signal", WTERMSIG(status));
	} else {
		cJSON_AddNumberToObject(obj, code_key, WEXITSTATUS(status));
		cJSON_AddNullToObject(obj, "signal");
	}
}

static void add_exit(cJSON *obj, int status)
{
	add_exit_as(obj, "code", status);
}

static void add_cpu(cJSON *o, const struct proc_totals *t)
{
	json_add_secs(o, "cpu_s", t->cpu_ns);
	json_add_secs(o, "user_s", t->user_ns);
	json_add_secs(o, "sys_s", t->sys_ns);
}

static void add_io(cJSON *o, const struct proc_totals *t)
{
	json_add_u64(o, "rchar", t->rchar);
	json_add_u64(o, "wchar", t->wchar);
	json_add_u64(o, "read_bytes", t->read_bytes);
	json_add_u64(o, "write_bytes", t->write_bytes);
	netio_add_json(o, &t->net);
}

/* Run-queue delay and the peak of the images themselves (job_record.h). */
static void add_exit_time_fields(cJSON *o, const struct proc_totals *t)
{
	json_add_secs(o, "run_delay_s", t->run_delay_ns);
	json_add_u64(o, "peak_rss_bytes", t->own_peak_bytes);
	if (t->blkio_delay_ns) /* delay accounting on (job_blocked.h) */
		json_add_secs(o, "blkio_delay_s", t->blkio_delay_ns);
}

static cJSON *totals_json(const struct proc_totals *t)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	add_cpu(o, t);
	add_io(o, t);
	json_add_u64(o, "syscr", t->syscr);
	json_add_u64(o, "syscw", t->syscw);
	json_add_u64(o, "cancelled_write_bytes", t->cancelled_write_bytes);
	json_add_u64(o, "nvcsw", t->nvcsw);
	json_add_u64(o, "nivcsw", t->nivcsw);
	json_add_u64(o, "min_flt", t->min_flt);
	json_add_u64(o, "maj_flt", t->maj_flt);
	json_add_u64(o, "max_rss_bytes", t->maxrss_bytes);
	add_exit_time_fields(o, t);
	return o;
}

static uint64_t span_ns(uint64_t start, uint64_t end)
{
	return end > start ? end - start : 0;
}

static cJSON *exit_codes_json(const struct tool_agg *t)
{
	cJSON *arr = cJSON_CreateArray();

	if (!arr)
		return NULL;
	for (int i = 0; i < t->nexits; i++) {
		cJSON *e = cJSON_CreateObject();
		if (!e)
			break;
		add_exit_as(e, "code", t->exits[i].status);
		json_add_u64(e, "count", t->exits[i].count);
		cJSON_AddItemToArray(arr, e);
	}
	if (t->other_exits) {
		cJSON *e = cJSON_CreateObject();
		if (e) {
			json_add_str(e, "other", "more distinct exit statuses");
			json_add_u64(e, "count", t->other_exits);
			cJSON_AddItemToArray(arr, e);
		}
	}
	return arr;
}

/* CPU seconds over core seconds, null when the basis is unknown */
static void add_ratio(cJSON *o, const char *key, uint64_t cpu_ns, double core_ns)
{
	if (core_ns > 0)
		cJSON_AddNumberToObject(o, key, (double)cpu_ns / core_ns);
	else
		cJSON_AddNullToObject(o, key);
}

/* alloc_core_ns: the job's wall time times its CPUs (cpu_efficiency_basis) */
static cJSON *tool_json(const struct tool_agg *t, double alloc_core_ns)
{
	cJSON *o = cJSON_CreateObject();
	uint64_t span = span_ns(t->first_start_ns, t->last_end_ns);

	if (!o)
		return NULL;
	json_add_str(o, "tool", t->tool);
	json_add_str(o, "path", t->exe);
	if (t->interpreter)
		json_add_str(o, "interpreter", t->interpreter);
	json_add_u64(o, "processes", t->procs);
	add_cpu(o, &t->sum);
	add_exit_time_fields(o, &t->sum);
	json_add_u64(o, "maxrss_bytes", t->sum.maxrss_bytes);
	add_io(o, &t->sum);
	json_add_time(o, "first_start", t->first_start_ns);
	json_add_time(o, "last_end", t->last_end_ns);
	json_add_secs(o, "wall_s", span);
	add_ratio(o, "cpu_efficiency", t->sum.cpu_ns, alloc_core_ns);
	add_ratio(o, "cpu_efficiency_span", t->sum.cpu_ns, (double)span);
	json_add_u64(o, "oom_kills", t->oom_kills);
	cJSON_AddItemToObject(o, "exit_codes", exit_codes_json(t));
	return o;
}

static int cmp_tool_cpu(const void *a, const void *b)
{
	const struct tool_agg *x = *(struct tool_agg *const *)a;
	const struct tool_agg *y = *(struct tool_agg *const *)b;

	if (x->sum.cpu_ns != y->sum.cpu_ns)
		return x->sum.cpu_ns < y->sum.cpu_ns ? 1 : -1;
	return strcmp(x->tool, y->tool);
}

static cJSON *tools_json(const struct job *j, double alloc_core_ns)
{
	cJSON *arr = cJSON_CreateArray();
	struct tool_agg **v;
	size_t n = 0;

	if (!arr || j->ntools == 0)
		return arr;
	v = calloc(j->ntools, sizeof(*v));
	if (!v)
		return arr;
	for (struct tool_agg *t = j->tools; t && n < j->ntools; t = t->next)
		v[n++] = t;
	qsort(v, n, sizeof(*v), cmp_tool_cpu);
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, tool_json(v[i], alloc_core_ns));
	free(v);
	return arr;
}

/* the redacted arguments, one string each */
static cJSON *argv_json(const struct job_proc *p)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && p->argv && i < p->argv_len;) {
		const char *a = p->argv + i;
		size_t n = strnlen(a, p->argv_len - i);
		char *v = json_utf8_sanitize(a, n);

		if (!v || !cJSON_AddItemToArray(arr, cJSON_CreateString(v))) {
			free(v);
			break;
		}
		free(v);
		i += n + 1;
	}
	return arr;
}

static cJSON *proc_json(const struct job_proc *p)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "pid", p->pid);
	cJSON_AddNumberToObject(o, "ppid", p->ppid);
	json_add_str(o, "tool", p->tool ? p->tool : p->comm);
	json_add_str(o, "comm", p->comm);
	json_add_str(o, "exe", p->exe);
	if (p->interpreter)
		json_add_str(o, "interpreter", p->interpreter);
	json_add_str(o, "cmdline", p->cmdline);
	cJSON_AddItemToObject(o, "argv", argv_json(p));
	if (p->flags & PROC_F_ARGV_TRUNCATED)
		cJSON_AddTrueToObject(o, "argv_truncated");
	if (p->flags & PROC_F_PATH_TRUNCATED)
		cJSON_AddTrueToObject(o, "exe_truncated");
	if (p->threads)
		json_add_u64(o, "threads", p->threads);
	json_add_time(o, "start", p->start_ns);
	json_add_time(o, "end", p->end_ns);
	json_add_secs(o, "wall_s", span_ns(p->start_ns, p->end_ns));
	add_cpu(o, &p->totals);
	json_add_u64(o, "peak_rss_bytes", proc_peak_bytes(&p->totals));
	json_add_u64(o, "maxrss_bytes", p->totals.maxrss_bytes);
	json_add_str(o, "peak_rss_source", p->totals.own_peak_bytes ? "image" : "maxrss");
	json_add_secs(o, "run_delay_s", p->totals.run_delay_ns);
	if (p->totals.blkio_delay_ns)
		json_add_secs(o, "blkio_delay_s", p->totals.blkio_delay_ns);
	add_io(o, &p->totals);
	json_add_u64(o, "min_flt", p->totals.min_flt);
	json_add_u64(o, "maj_flt", p->totals.maj_flt);
	json_add_u64(o, "nvcsw", p->totals.nvcsw);
	json_add_u64(o, "nivcsw", p->totals.nivcsw);
	add_exit(o, (p->flags & PROC_F_OUTLIVED) ? -1 : p->exit_status);
	cJSON_AddBoolToObject(o, "oom_killed", !!(p->flags & PROC_F_OOM_KILLED));
	cJSON_AddBoolToObject(o, "outlived", !!(p->flags & PROC_F_OUTLIVED));
	if (p->flags & PROC_F_ROOT)
		cJSON_AddTrueToObject(o, "root");
	if (p->flags & PROC_F_REGISTRANT)
		cJSON_AddTrueToObject(o, "registrant");
	return o;
}

static int cmp_proc_start(const void *a, const void *b)
{
	const struct job_proc *x = *(struct job_proc *const *)a;
	const struct job_proc *y = *(struct job_proc *const *)b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->pid - y->pid;
}

static cJSON *tree_json(const struct job *j)
{
	cJSON *arr = cJSON_CreateArray();
	struct job_proc **v;

	if (!arr || j->nkept == 0)
		return arr;
	v = malloc(j->nkept * sizeof(*v));
	if (!v)
		return arr;
	memcpy(v, j->kept, j->nkept * sizeof(*v));
	qsort(v, j->nkept, sizeof(*v), cmp_proc_start);
	for (size_t i = 0; i < j->nkept; i++) {
		cJSON *po = proc_json(v[i]);

		summary_proc_container(po, j, v[i]);
		cJSON_AddItemToArray(arr, po);
	}
	free(v);
	return arr;
}

/* The job's core seconds (wall x allocated CPUs, or the host's): the
 * basis of the job's and every tool's cpu_efficiency, as seff. */
static double alloc_core_ns(const struct job *j, const struct host_info *host,
			    uint64_t wall_ns, const char **basis)
{
	int cpus = j->id.alloc.cpus;

	*basis = "allocation";
	if (cpus <= 0) {
		cpus = host->cpus;
		*basis = "host";
	}
	return cpus > 0 ? (double)wall_ns * cpus : 0;
}

static void add_efficiency(cJSON *root, const struct job *j, double core_ns,
			   const char *basis)
{
	add_ratio(root, "cpu_efficiency", j->totals.cpu_ns, core_ns);
	json_add_str(root, "cpu_efficiency_basis", basis);
}

static cJSON *memory_json(const struct job *j)
{
	cJSON *m = cJSON_CreateObject();
	uint64_t peak = j->mem_peak_bytes;

	if (!m)
		return NULL;
	/* A process that lived between two samples still counts. */
	if (j->totals.own_peak_bytes > peak)
		peak = j->totals.own_peak_bytes;
	json_add_u64(m, "peak_bytes", peak);
	json_add_u64(m, "samples", j->samples);
	if (j->id.alloc.mem_bytes) {
		json_add_u64(m, "allocated_bytes", j->id.alloc.mem_bytes);
		cJSON_AddNumberToObject(m, "efficiency",
					(double)peak / (double)j->id.alloc.mem_bytes);
	}
	if (j->cgroup_stats) {
		json_add_str(m, "cgroup", j->cgroup_path);
		json_add_u64(m, "cgroup_peak_bytes", j->cgroup_mem_peak_bytes);
		json_add_secs(m, "cgroup_cpu_s", j->cgroup_cpu_ns);
	}
	return m;
}

cJSON *summary_build(const struct job *j, const struct host_info *host,
		     const struct summary_opts *opts)
{
	cJSON *root = cJSON_CreateObject(), *o;
	uint64_t wall = span_ns(j->start_ns, j->end_ns);
	int status = j->exit_status;
	const char *basis;
	double core_ns = alloc_core_ns(j, host, wall, &basis);

	if (!root)
		return NULL;
	json_add_str(root, "schema", SUMMARY_SCHEMA);
	json_add_str(root, "job", j->uid);
	/* the same id on every retry: sinks drop duplicates by it */
	char sid[SUMMARY_ID_LEN];
	summary_id_new(sid);
	json_add_str(root, "summary_id", sid);
	cJSON_AddItemToObject(root, "identity", identity_to_json(&j->id));
	cJSON_AddItemToObject(root, "host", host_info_to_json(host));
	json_add_time(root, "start", j->start_ns);
	json_add_time(root, "end", j->end_ns);
	/* beyond 2^53: strings, exact in every JSON reader */
	json_add_u64_text(root, "start_ns", j->start_ns);
	json_add_u64_text(root, "end_ns", j->end_ns);
	json_add_secs(root, "wall_s", wall);

	/* A Slurm step is as good as its first failing task. */
	if ((status < 0 || status == 0) && j->task_failed_status)
		status = j->task_failed_status;
	else if (status < 0 && j->ntasks_exited > 0)
		status = 0;
	o = cJSON_AddObjectToObject(root, "exit");
	if (o) {
		if (status >= 0)
			cJSON_AddNumberToObject(o, "status", status);
		else
			cJSON_AddNullToObject(o, "status");
		add_exit_as(o, "code", status);
	}

	json_add_str(root, "state", job_state(j, status, wall));
	if (j->oom.count)
		cJSON_AddItemToObject(root, "oom", job_oom_json(j));
	cJSON_AddItemToObject(root, "totals", totals_json(&j->totals));
	cJSON_AddItemToObject(root, "block_devices", netio_devs_json(&j->blkdevs));
	if (j->cgroup_io && (o = cJSON_AddObjectToObject(root, "cgroup_io"))) {
		json_add_u64(o, "read_bytes", j->cgroup_io_read_bytes);
		json_add_u64(o, "write_bytes", j->cgroup_io_write_bytes);
	}
	add_efficiency(root, j, core_ns, basis);
	cJSON_AddItemToObject(root, "memory", memory_json(j));
	summary_add_containers(root, j);
	cJSON *tree = tree_json(j);
	o = cJSON_AddObjectToObject(root, "processes");
	if (o) {
		json_add_u64(o, "total", j->procs_total);
		json_add_u64(o, "exited", j->procs_exited);
		/* after a restart the counts can disagree by the processes
		 * of the last journal interval: never a wrapped-around count */
		json_add_u64(o, "outlived", j->procs_total > j->procs_exited
						    ? j->procs_total - j->procs_exited : 0);
		json_add_u64(o, "oom_killed", j->oom_kills);
		json_add_u64(o, "kept", j->nkept);
		json_add_u64(o, "not_kept", j->procs_not_kept);
		json_add_u64(o, "moved_out", j->procs_moved_out);
		json_add_u64(o, "over_cap", j->procs_over_cap);
	}
	if (j->registrant_pid) {
		o = totals_json(&j->registrant);
		if (o) {
			cJSON_AddNumberToObject(o, "pid", j->registrant_pid);
			cJSON_AddItemToObject(root, "registrant", o);
		}
	}
	json_add_u64(root, "oom_kills", j->oom_kills);
	cJSON_AddItemToObject(root, "tools", tools_json(j, core_ns));
	/* Slurm names a step's GPUs by their device files (gres.conf) */
	if (j->gpu)
		gpu_summary_add(root, j->gpu, wall, j->id.alloc.gpus,
				!strcmp(j->id.scheduler, "slurm"));
	cJSON_AddItemToObject(root, "process_tree", tree);
	o = cJSON_AddObjectToObject(root, "drops");
	if (o) {
		json_add_u64(o, "events", j->events_dropped);
		json_add_u64(o, "exit_records_lost", j->exits_lost);
	}
	/* totals that are known to miss something */
	cJSON_AddBoolToObject(root, "incomplete", j->procs_over_cap || j->events_dropped ||
						  j->exits_lost || j->ngaps);
	o = cJSON_AddArrayToObject(root, "gaps");
	for (int i = 0; o && i < j->ngaps && i < JOB_MAX_GAPS; i++) {
		cJSON *g = cJSON_CreateObject();
		if (!g)
			break;
		json_add_time(g, "start", j->gap_start_ns[i]);
		json_add_time(g, "end", j->gap_end_ns[i]);
		json_add_u64_text(g, "start_ns", j->gap_start_ns[i]);
		json_add_u64_text(g, "end_ns", j->gap_end_ns[i]);
		cJSON_AddItemToArray(o, g);
	}
	o = timeseries_json(j->series, opts ? opts->sample_interval_ms : 0);
	if (o)
		cJSON_AddItemToObject(root, "timeseries", o);
	o = cJSON_AddObjectToObject(root, "tracer");
	if (o) {
		json_add_str(o, "version", TRACER_VERSION);
		json_add_str(o, "source", opts && opts->source ? opts->source : "tracerd");
		cJSON_AddNumberToObject(o, "sample_interval_ms",
					opts ? opts->sample_interval_ms : 0);
	}
	return root;
}
