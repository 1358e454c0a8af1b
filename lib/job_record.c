/*
 * job_record.c - the running record of one job (see job_record.h): live processes by
 * pid, finished ones folded into per-tool aggregates and a bounded
 * min-heap of the heaviest processes kept for the process tree.
 */
#include "job_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "netpeers.h"
#include "redact.h"
#include "rules.h"
#include "timeseries.h"

#define LIVE_BUCKETS 256
#define CMDLINE_MAX 4096

struct job *job_new(const char *uid, const struct tracer_identity *id,
		    size_t keep_procs)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	snprintf(j->uid, sizeof(j->uid), "%s", uid);
	if (id)
		j->id = *id;
	else
		identity_init(&j->id);
	j->exit_status = -1;
	j->live_buckets = LIVE_BUCKETS;
	j->live = calloc(j->live_buckets, sizeof(*j->live));
	j->keep_max = keep_procs ? keep_procs : 1;
	j->kept = calloc(j->keep_max, sizeof(*j->kept));
	if (!j->live || !j->kept) {
		job_free(j);
		return NULL;
	}
	return j;
}

static void proc_free(struct job_proc *p)
{
	if (!p)
		return;
	free(p->exe);
	free(p->cmdline);
	free(p->argv);
	free(p->tool);
	free(p->interpreter);
	free(p);
}

void job_free(struct job *j)
{
	if (!j)
		return;
	if (j->live) {
		for (size_t b = 0; b < j->live_buckets; b++) {
			struct job_proc *p = j->live[b], *next;
			for (; p; p = next) {
				next = p->next;
				proc_free(p);
			}
		}
		free(j->live);
	}
	if (j->kept) {
		for (size_t i = 0; i < j->nkept; i++)
			proc_free(j->kept[i]);
		free(j->kept);
	}
	free(j->cpu_busy);
	gpu_job_free(j->gpu);
	timeseries_free(j->series);
	netpeers_free(j->peers);
	for (struct tool_agg *t = j->tools, *next; t; t = next) {
		next = t->next;
		free(t->tool);
		free(t->interpreter);
		free(t->exe);
		free(t);
	}
	free(j);
}

static size_t bucket_of(const struct job *j, pid_t pid)
{
	return (size_t)(unsigned)pid % j->live_buckets;
}

struct job_proc *job_proc_find(struct job *j, pid_t pid)
{
	for (struct job_proc *p = j->live[bucket_of(j, pid)]; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct job_proc *job_proc_add(struct job *j, pid_t pid, pid_t ppid,
			      uint64_t start_ns, const char *comm)
{
	struct job_proc *p = job_proc_find(j, pid);
	size_t b;

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->ppid = ppid;
	p->start_ns = start_ns;
	p->exit_status = -1;
	if (comm)
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	/* A process that never execs runs its parent's program; the
	 * registrant's child is the job's command, until its exec fails. */
	struct job_proc *parent = job_proc_find(j, ppid);
	if (parent && (parent->flags & PROC_F_REGISTRANT)) {
		p->tool = strdup(JOB_NOT_STARTED);
	} else if (parent) {
		p->exe = dup_or_null(parent->exe);
		p->tool = dup_or_null(parent->tool);
		p->interpreter = dup_or_null(parent->interpreter);
		p->cmdline = dup_or_null(parent->cmdline);
		if (parent->argv && (p->argv = malloc(parent->argv_len)) != NULL) {
			memcpy(p->argv, parent->argv, parent->argv_len);
			p->argv_len = parent->argv_len;
		}
	}
	b = bucket_of(j, pid);
	p->next = j->live[b];
	j->live[b] = p;
	j->nlive++;
	j->procs_total++;
	return p;
}

static void replace_str(char **dst, const char *src)
{
	free(*dst);
	*dst = (src && *src) ? strdup(src) : NULL;
}

void job_proc_exec(struct job *j, struct job_proc *p, const char *exe,
		   const char *argv, size_t argv_len, const struct rules *rules,
		   bool argv_truncated)
{
	struct tool_id *tid = malloc(sizeof(*tid));
	size_t rlen = 0, keep;
	int cut = 0;
	/* redacted once: the tool, the command line and the arguments all
	 * come from this one result (a cut record's last piece is hidden) */
	char *rargv = redact_record(argv, argv ? argv_len : 0, argv_truncated,
				    &rlen);

	(void)j;
	if (!tid || !rargv) {
		free(tid);
		free(rargv);
		return;
	}
	rules_resolve(rules, exe ? exe : "", rargv, rlen, tid);
	redact_arg(tid->path, sizeof(tid->path), NULL);
	redact_arg(tid->tool, sizeof(tid->tool), NULL);
	replace_str(&p->exe, tid->path[0] ? tid->path : exe);
	replace_str(&p->tool, tid->tool);
	replace_str(&p->interpreter, tid->interpreter);
	free(tid);
	free(p->cmdline);
	p->cmdline = redact_join(rargv, rlen, CMDLINE_MAX);
	free(p->argv);
	keep = redact_fit(rargv, rlen, CMDLINE_MAX, &cut);
	p->argv = realloc(rargv, keep ? keep : 1);
	if (!p->argv)
		free(rargv);
	p->argv_len = p->argv ? keep : 0;
	if (argv_truncated || cut)
		p->flags |= PROC_F_ARGV_TRUNCATED;
}

void job_record_split_cpu(struct proc_totals *t, uint64_t cpu_ns,
			   uint64_t utime_ns, uint64_t stime_ns)
{
	/* kernel/sched/cputime.c cputime_adjust(): scale the precise
	 * runtime by the tick-sampled user/system ratio. */
	t->cpu_ns = cpu_ns;
	if (stime_ns == 0) {
		t->user_ns = cpu_ns;
		t->sys_ns = 0;
	} else if (utime_ns == 0) {
		t->user_ns = 0;
		t->sys_ns = cpu_ns;
	} else {
		long double s = (long double)cpu_ns * stime_ns / (stime_ns + utime_ns);
		t->sys_ns = (uint64_t)s;
		t->user_ns = cpu_ns - t->sys_ns;
	}
}

static void totals_add(struct proc_totals *sum, const struct proc_totals *t)
{
	sum->cpu_ns += t->cpu_ns;
	sum->user_ns += t->user_ns;
	sum->sys_ns += t->sys_ns;
	if (t->maxrss_bytes > sum->maxrss_bytes)
		sum->maxrss_bytes = t->maxrss_bytes;
	sum->rchar += t->rchar;
	sum->wchar += t->wchar;
	sum->syscr += t->syscr;
	sum->syscw += t->syscw;
	sum->read_bytes += t->read_bytes;
	sum->write_bytes += t->write_bytes;
	sum->cancelled_write_bytes += t->cancelled_write_bytes;
	sum->nvcsw += t->nvcsw;
	sum->nivcsw += t->nivcsw;
	sum->min_flt += t->min_flt;
	sum->maj_flt += t->maj_flt;
	netio_totals_add(&sum->net, &t->net);
	sum->run_delay_ns += t->run_delay_ns;
	sum->blkio_delay_ns += t->blkio_delay_ns;
	if (proc_peak_bytes(t) > sum->own_peak_bytes)
		sum->own_peak_bytes = proc_peak_bytes(t);
}

static int str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

static struct tool_agg *tool_get(struct job *j, const struct job_proc *p)
{
	const char *name = p->tool ? p->tool : (p->comm[0] ? p->comm : "?");
	const char *exe = p->exe, *interp = p->interpreter;

	for (struct tool_agg *t = j->tools; t; t = t->next)
		if (strcmp(t->tool, name) == 0 && str_eq(t->exe, exe))
			return t;
	/* Bounded: a workflow with a script path per task (.command.sh)
	 * would otherwise grow the list with every task. */
	if (j->ntools >= JOB_MAX_TOOLS) {
		name = JOB_OTHER_TOOLS;
		exe = interp = NULL;
		for (struct tool_agg *t = j->tools; t; t = t->next)
			if (strcmp(t->tool, name) == 0 && !t->exe)
				return t;
	}
	struct tool_agg *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tool = strdup(name);
	t->exe = dup_or_null(exe);
	t->interpreter = dup_or_null(interp);
	if (!t->tool) {
		free(t->exe);
		free(t->interpreter);
		free(t);
		return NULL;
	}
	t->next = j->tools;
	j->tools = t;
	j->ntools++;
	return t;
}

static void tool_count_exit(struct tool_agg *t, int status)
{
	for (int i = 0; i < t->nexits; i++) {
		if (t->exits[i].status == status) {
			t->exits[i].count++;
			return;
		}
	}
	if (t->nexits < JOB_MAX_EXIT_CODES) {
		t->exits[t->nexits].status = status;
		t->exits[t->nexits].count = 1;
		t->nexits++;
	} else {
		t->other_exits++;
	}
}

static void tool_fold(struct job *j, const struct job_proc *p)
{
	struct tool_agg *t = tool_get(j, p);

	if (!t)
		return;
	t->procs++;
	totals_add(&t->sum, &p->totals);
	if (!t->first_start_ns || (p->start_ns && p->start_ns < t->first_start_ns))
		t->first_start_ns = p->start_ns;
	if (p->end_ns > t->last_end_ns)
		t->last_end_ns = p->end_ns;
	if (p->flags & PROC_F_OOM_KILLED)
		t->oom_kills++;
	if (!(p->flags & PROC_F_OUTLIVED))
		tool_count_exit(t, p->exit_status);
}

/* The kept set must always hold roots, OOM victims and outliving
 * processes: they weigh more than any CPU figure. */
static uint64_t proc_weight(const struct job_proc *p)
{
	if (p->flags & (PROC_F_ROOT | PROC_F_OOM_KILLED | PROC_F_OUTLIVED))
		return UINT64_MAX;
	return p->totals.cpu_ns;
}

static void heap_swap(struct job_proc **h, size_t a, size_t b)
{
	struct job_proc *t = h[a];
	h[a] = h[b];
	h[b] = t;
}

static void heap_sift_up(struct job_proc **h, size_t i)
{
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (proc_weight(h[parent]) <= proc_weight(h[i]))
			break;
		heap_swap(h, parent, i);
		i = parent;
	}
}

static void heap_sift_down(struct job_proc **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && proc_weight(h[l]) < proc_weight(h[m]))
			m = l;
		if (r < n && proc_weight(h[r]) < proc_weight(h[m]))
			m = r;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

/* Keep p if it is among the heaviest; frees whatever is not kept. */
static void keep_or_free(struct job *j, struct job_proc *p)
{
	p->next = NULL;
	if (j->nkept < j->keep_max) {
		j->kept[j->nkept] = p;
		heap_sift_up(j->kept, j->nkept);
		j->nkept++;
		return;
	}
	j->procs_not_kept++;
	if (proc_weight(p) <= proc_weight(j->kept[0])) {
		proc_free(p);
		return;
	}
	proc_free(j->kept[0]);
	j->kept[0] = p;
	heap_sift_down(j->kept, j->nkept, 0);
}

static void live_unlink(struct job *j, struct job_proc *p)
{
	struct job_proc **pp = &j->live[bucket_of(j, p->pid)];

	for (; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			j->nlive--;
			return;
		}
	}
}

void job_proc_set_registrant(struct job *j, struct job_proc *p)
{
	if (p->flags & PROC_F_REGISTRANT)
		return;
	p->flags |= PROC_F_REGISTRANT;
	j->procs_total--;
}

void job_proc_clear_registrant(struct job *j, struct job_proc *p)
{
	if (!(p->flags & PROC_F_REGISTRANT))
		return;
	p->flags &= ~PROC_F_REGISTRANT;
	j->procs_total++;
}

void job_proc_forget(struct job *j, struct job_proc *p)
{
	live_unlink(j, p);
	/* the registrant was never counted */
	if (!(p->flags & PROC_F_REGISTRANT))
		j->procs_total--;
	j->procs_moved_out++;
	proc_free(p);
}

static void fold_proc(struct job *j, struct job_proc *p)
{
	live_unlink(j, p);
	if (p->flags & PROC_F_REGISTRANT) {
		/* in the tree and in its own totals, never the job's */
		j->registrant = p->totals;
		j->registrant_pid = p->pid;
		keep_or_free(j, p);
		return;
	}
	tool_fold(j, p);
	totals_add(&j->totals, &p->totals);
	if (p->flags & PROC_F_OOM_KILLED)
		j->oom_kills++;
	keep_or_free(j, p);
}

void job_proc_exit(struct job *j, struct job_proc *p, int exit_status,
		   uint64_t end_ns, const struct proc_totals *t, uint32_t flags)
{
	p->exit_status = exit_status;
	p->end_ns = end_ns;
	if (t)
		p->totals = *t;
	p->flags |= flags;
	if (!(p->flags & PROC_F_REGISTRANT))
		j->procs_exited++;
	fold_proc(j, p);
}

void job_close(struct job *j, uint64_t end_ns)
{
	j->end_ns = end_ns;
	j->ended = true;
	for (size_t b = 0; b < j->live_buckets; b++) {
		while (j->live[b]) {
			struct job_proc *p = j->live[b];
			/* the registrant ends with its job: it does not outlive it */
			if (!(p->flags & PROC_F_REGISTRANT))
				p->flags |= PROC_F_OUTLIVED;
			p->end_ns = end_ns;
			fold_proc(j, p);
		}
	}
}

void job_note_cgroup(struct job *j, const struct cgroup_stats *st)
{
	j->cgroup_stats = true;
	if (st->have_mem) {
		uint64_t peak = st->mem_peak_bytes > st->mem_current_bytes ?
					st->mem_peak_bytes : st->mem_current_bytes;

		if (peak > j->cgroup_mem_peak_bytes)
			j->cgroup_mem_peak_bytes = peak;
	}
	if (st->have_cpu)
		j->cgroup_cpu_ns = st->cpu_ns;
	if (st->have_io) {
		j->cgroup_io = true;
		j->cgroup_io_read_bytes = st->io_read_bytes;
		j->cgroup_io_write_bytes = st->io_write_bytes;
	}
}
