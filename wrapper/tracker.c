/*
 * tracker.c - standalone mode: follow the wrapper's process tree through
 * /proc and wait4, and fold what is seen into the job (see tracker.h).
 *
 * CPU time is kept "inclusive" the way the kernel keeps it: a process's
 * own time (utime/stime) plus its reaped children's (cutime/cstime), and
 * wait4 reports own + children's.  When a child vanishes between two
 * samples, its parent's children time grows by the child's final
 * inclusive time; that growth, less what the vanished children had at
 * their last sample, is shared among them by their recent CPU rates.
 */
#include "tracker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "procfs.h"
#include "proctree.h"

#define NBUCKETS 1024

struct sproc {
	pid_t pid, ppid;
	uint64_t start_ticks;      /* 0: not known yet */
	struct job_proc *jp;
	/* last sample; CPU in ns */
	uint64_t utime, stime, cutime, cstime;
	uint64_t minflt, majflt, hwm_bytes, nvcsw, nivcsw;
	struct procfs_io io;
	uint64_t last_ms;          /* monotonic ms of the last sample, 0 never */
	double rate;               /* own CPU ns per ms lately */
	/* children time already shared out (cutime/cstime at that point) */
	uint64_t rec_cutime, rec_cstime;
	/* CPU of children never seen by name, counted as ours */
	uint64_t extra_user, extra_sys;
	struct procfs_io child_io; /* I/O of folded children (in ours) */
	bool vanished, folded;
	uint64_t vanish_ms, vanish_ns; /* estimated end */
	uint64_t gone_ms;             /* when we saw it gone */
	uint32_t gen;
	struct sproc *next;
};

struct tracker {
	struct job *job;
	const struct rules *rules;
	int argv_max;
	pid_t self;
	bool proc_ok;              /* /proc shows our pid namespace */
	struct sproc *buckets[NBUCKETS];
	uint32_t gen;
	long page_size;
	struct proctree tree;
	uint64_t samples, cost_ns;
};

static struct sproc *sp_find(struct tracker *s, pid_t pid)
{
	for (struct sproc *sp = s->buckets[(unsigned)pid % NBUCKETS]; sp;
	     sp = sp->next)
		if (sp->pid == pid && !sp->folded)
			return sp;
	return NULL;
}

static struct sproc *sp_new(struct tracker *s, pid_t pid)
{
	struct sproc *sp = calloc(1, sizeof(*sp));

	if (!sp) {
		log_error("tracker: out of memory: process %d not followed",
			  (int)pid);
		return NULL;
	}
	sp->pid = pid;
	sp->next = s->buckets[(unsigned)pid % NBUCKETS];
	s->buckets[(unsigned)pid % NBUCKETS] = sp;
	return sp;
}

/* Free folded entries (kept until now so no pointer dangles mid-walk). */
static void sp_sweep(struct tracker *s)
{
	for (size_t b = 0; b < NBUCKETS; b++) {
		struct sproc **pp = &s->buckets[b];

		while (*pp) {
			struct sproc *sp = *pp;

			if (sp->folded) {
				*pp = sp->next;
				free(sp);
			} else {
				pp = &sp->next;
			}
		}
	}
}

/* The executable and argv of pid into the job (an exec happened). */
static void sp_exec(struct tracker *s, struct sproc *sp, const char *comm)
{
	char exe[TRACER_PATH_MAX];
	char *argv = malloc((size_t)s->argv_max + 1);
	ssize_t len = -1;

	if (procfs_read_exe(sp->pid, exe, sizeof(exe)) < 0)
		snprintf(exe, sizeof(exe), "%s", comm); /* gone or not ours */
	if (argv)
		len = procfs_read_cmdline(sp->pid, argv, (size_t)s->argv_max + 1);
	if (len < 0)
		len = 0;
	job_proc_exec(s->job, sp->jp, exe, argv ? argv : "", (size_t)len >
		      (size_t)s->argv_max ? (size_t)s->argv_max : (size_t)len,
		      s->rules, len > s->argv_max);
	free(argv);
}

/* Start ticks have 10 ms steps: never before the job's own start. */
static uint64_t start_real_ns(const struct tracker *s,
			      const struct procfs_stat *st)
{
	uint64_t t = procfs_start_ns(st, CLOCK_REALTIME);

	return t < s->job->start_ns ? s->job->start_ns : t;
}

struct tracker *tracker_new(struct job *j, const struct rules *rules,
			    int argv_max)
{
	struct tracker *s = calloc(1, sizeof(*s));
	char self[32];
	ssize_t n;

	if (!s) {
		log_error("tracker: out of memory");
		return NULL;
	}
	s->job = j;
	s->rules = rules;
	s->argv_max = argv_max > 0 ? argv_max : TRACER_DEFAULT_ARGV_MAX;
	s->self = getpid();
	s->page_size = sysconf(_SC_PAGESIZE);
	/* a /proc of another pid namespace would name other processes */
	n = readlink("/proc/self", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		s->proc_ok = atoi(self) == (int)s->self;
	}
	if (!s->proc_ok)
		log_warn("/proc does not show this pid namespace: only the "
			 "processes the wrapper reaps are recorded");
	return s;
}

void tracker_free(struct tracker *s)
{
	if (!s)
		return;
	for (size_t b = 0; b < NBUCKETS; b++)
		while (s->buckets[b]) {
			struct sproc *sp = s->buckets[b];

			s->buckets[b] = sp->next;
			free(sp);
		}
	proctree_free(&s->tree);
	free(s);
}

/* Store one sample of sp; the rate is its own CPU per ms since the last. */
static void sp_update(struct tracker *s, struct sproc *sp,
		      const struct procfs_stat *st, uint64_t now_ms)
{
	uint64_t self_old = sp->utime + sp->stime, self_new, age_ms;
	struct procfs_status pst;

	sp->ppid = st->ppid;
	sp->jp->ppid = st->ppid;
	sp->utime = clock_ticks_ns(st->utime_ticks);
	sp->stime = clock_ticks_ns(st->stime_ticks);
	sp->cutime = clock_ticks_ns(st->cutime_ticks);
	sp->cstime = clock_ticks_ns(st->cstime_ticks);
	sp->minflt = st->minflt;
	sp->majflt = st->majflt;
	self_new = sp->utime + sp->stime;
	if (sp->last_ms && now_ms > sp->last_ms) {
		sp->rate = self_new > self_old ?
			(double)(self_new - self_old) / (double)(now_ms - sp->last_ms) : 0;
	} else {
		age_ms = (clock_real_ns() - sp->jp->start_ns) / 1000000;
		sp->rate = (double)self_new / (double)(age_ms ? age_ms : 1);
	}
	sp->last_ms = now_ms;
	/* a zombie has no memory or I/O left to read: keep the last */
	if (st->state != 'Z') {
		procfs_read_io(sp->pid, &sp->io);
		if (procfs_read_status(sp->pid, &pst) == 0) {
			if (pst.vm_hwm_kb * 1024 > sp->hwm_bytes)
				sp->hwm_bytes = pst.vm_hwm_kb * 1024;
			sp->nvcsw = pst.voluntary_ctxt_switches;
			sp->nivcsw = pst.nonvoluntary_ctxt_switches;
		}
		sp->jp->rss_bytes = st->rss_pages * (uint64_t)s->page_size;
	} else {
		sp->jp->rss_bytes = 0;
	}
}

static uint64_t sub0(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

/* Totals of a process from its last sample (own share, not its children's). */
static void sp_totals(const struct sproc *sp, uint64_t user, uint64_t sys,
		      struct proc_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->user_ns = user;
	t->sys_ns = sys;
	t->cpu_ns = user + sys;
	t->maxrss_bytes = sp->hwm_bytes;
	t->rchar = sub0(sp->io.rchar, sp->child_io.rchar);
	t->wchar = sub0(sp->io.wchar, sp->child_io.wchar);
	t->syscr = sub0(sp->io.syscr, sp->child_io.syscr);
	t->syscw = sub0(sp->io.syscw, sp->child_io.syscw);
	t->read_bytes = sub0(sp->io.read_bytes, sp->child_io.read_bytes);
	t->write_bytes = sub0(sp->io.write_bytes, sp->child_io.write_bytes);
	t->cancelled_write_bytes = sub0(sp->io.cancelled_write_bytes,
					sp->child_io.cancelled_write_bytes);
	t->min_flt = sp->minflt;
	t->maj_flt = sp->majflt;
	t->nvcsw = sp->nvcsw;
	t->nivcsw = sp->nivcsw;
}

/* Vanished children of parent not folded yet, into out (at most max). */
static size_t pending_children(struct tracker *s, pid_t parent,
			       struct sproc **out, size_t max)
{
	size_t n = 0;

	for (size_t b = 0; b < NBUCKETS; b++)
		for (struct sproc *sp = s->buckets[b]; sp; sp = sp->next)
			if (sp->vanished && !sp->folded && sp->ppid == parent &&
			    n < max)
				out[n++] = sp;
	return n;
}

#define MAX_SHARE 256

static void sp_fold(struct tracker *s, struct sproc *sp, uint64_t incl_user,
		    uint64_t incl_sys, int status, uint64_t end_ns,
		    uint64_t end_ms, const struct rusage *ru);

/*
 * A busy process ended about when its last CPU share was spent at its
 * recent rate; an idle one somewhere in the interval (the midpoint).
 */
static void refine_end(struct sproc *k, uint64_t share_ns)
{
	uint64_t end_ms;

	if (k->rate <= 0 || !k->last_ms)
		return;
	end_ms = k->last_ms + (uint64_t)((double)share_ns / k->rate);
	if (end_ms > k->gone_ms)
		end_ms = k->gone_ms;
	k->vanish_ns = (uint64_t)((int64_t)k->vanish_ns +
				  ((int64_t)end_ms - (int64_t)k->vanish_ms) * 1000000);
	k->vanish_ms = end_ms;
}

/*
 * Share extra CPU (user, sys) among kids by weight; when self_w > 0 the
 * parent's own growth takes a share too, returned in *self_user/sys.
 */
static void share_out(struct tracker *s, struct sproc **kids, size_t n,
		      uint64_t extra_user, uint64_t extra_sys, double self_w,
		      uint64_t *self_user, uint64_t *self_sys)
{
	double w[MAX_SHARE], total = self_w;

	for (size_t i = 0; i < n; i++) {
		w[i] = kids[i]->rate * (double)sub0(kids[i]->vanish_ms,
						    kids[i]->last_ms);
		total += w[i];
	}
	if (total <= 0) { /* nothing to go by: equal shares among the kids */
		for (size_t i = 0; i < n; i++)
			w[i] = 1;
		total = n ? (double)n : 1;
		self_w = n ? 0 : 1;
	}
	if (self_user) {
		*self_user = (uint64_t)((double)extra_user * self_w / total);
		*self_sys = (uint64_t)((double)extra_sys * self_w / total);
	}
	for (size_t i = 0; i < n; i++) {
		struct sproc *k = kids[i];
		uint64_t su = (uint64_t)((double)extra_user * w[i] / total);
		uint64_t ss = (uint64_t)((double)extra_sys * w[i] / total);

		refine_end(k, su + ss);
		sp_fold(s, k, k->utime + k->rec_cutime + su,
			k->stime + k->rec_cstime + ss, -1, k->vanish_ns,
			k->vanish_ms, NULL);
	}
}

/*
 * sp ended with these inclusive CPU times (own + reaped children's).
 * What its last sample does not explain is shared between its own last
 * moments and its vanished children; then it is folded into the job.
 */
static void sp_fold(struct tracker *s, struct sproc *sp, uint64_t incl_user,
		    uint64_t incl_sys, int status, uint64_t end_ns,
		    uint64_t end_ms, const struct rusage *ru)
{
	struct sproc *kids[MAX_SHARE];
	uint64_t known_u = sp->utime + sp->rec_cutime;
	uint64_t known_s = sp->stime + sp->rec_cstime;
	uint64_t own_u = 0, own_s = 0;
	struct proc_totals t;
	uint32_t flags = PROC_F_TOTALS_PARTIAL;
	bool exact;
	size_t n;

	sp->folded = true; /* before recursing: a kid never folds its parent */
	n = pending_children(s, sp->pid, kids, MAX_SHARE);
	for (size_t i = 0; i < n; i++) {
		known_u += kids[i]->utime + kids[i]->rec_cutime;
		known_s += kids[i]->stime + kids[i]->rec_cstime;
	}
	share_out(s, kids, n, sub0(incl_user, known_u), sub0(incl_sys, known_s),
		  sp->rate * (double)sub0(end_ms, sp->last_ms), &own_u, &own_s);
	for (size_t i = 0; i < n; i++) {
		procfs_io_add(&sp->child_io, &kids[i]->io);
		/* a parent does not end before the children it waited for */
		if (kids[i]->vanish_ns > end_ns && !ru)
			end_ns = kids[i]->vanish_ns;
	}

	sp_totals(sp, sp->utime + own_u + sp->extra_user,
		  sp->stime + own_s + sp->extra_sys, &t);
	/* wait4 of a process without children is exact for all it reports */
	exact = ru && n == 0 && sp->cutime == 0 && sp->cstime == 0 &&
		sp->extra_user == 0 && sp->extra_sys == 0;
	if (exact) {
		t.user_ns = incl_user;
		t.sys_ns = incl_sys;
		t.cpu_ns = incl_user + incl_sys;
		if ((uint64_t)ru->ru_maxrss * 1024 > t.maxrss_bytes)
			t.maxrss_bytes = (uint64_t)ru->ru_maxrss * 1024;
		t.min_flt = (uint64_t)ru->ru_minflt;
		t.maj_flt = (uint64_t)ru->ru_majflt;
		t.nvcsw = (uint64_t)ru->ru_nvcsw;
		t.nivcsw = (uint64_t)ru->ru_nivcsw;
		if (!sp->last_ms) { /* never sampled: block I/O from wait4 */
			t.read_bytes = (uint64_t)ru->ru_inblock * 512;
			t.write_bytes = (uint64_t)ru->ru_oublock * 512;
		}
		flags = 0;
	} else if (ru && t.maxrss_bytes == 0) {
		/* never sampled: wait4's peak covers its children too */
		t.maxrss_bytes = (uint64_t)ru->ru_maxrss * 1024;
	}
	job_proc_exit(s->job, sp->jp, status, end_ns, &t, flags);
	sp->jp = NULL;
}

void tracker_add_root(struct tracker *s, pid_t pid, char *const argv[])
{
	const char *base = strrchr(argv[0], '/');
	struct procfs_stat st;
	struct sproc *sp = sp_new(s, pid);

	if (!sp)
		return;
	sp->ppid = s->self;
	sp->jp = job_proc_add(s->job, pid, s->self, clock_real_ns(),
			      base ? base + 1 : argv[0]);
	if (!sp->jp) {
		sp->folded = true;
		return;
	}
	sp->jp->flags |= PROC_F_ROOT;
	if (procfs_read_stat(pid, &st) == 0)
		sp->start_ticks = st.start_ticks;
	sp_exec(s, sp, base ? base + 1 : argv[0]);
}

/* Track one descendant seen in this scan. */
static void see_process(struct tracker *s, const struct procfs_stat *st,
			uint64_t now_ms)
{
	struct sproc *sp = sp_find(s, st->pid);
	char exe[TRACER_PATH_MAX];

	if (sp && sp->start_ticks && sp->start_ticks != st->start_ticks) {
		/* the pid was reused: the old process ended unseen */
		sp_fold(s, sp, sp->utime + sp->rec_cutime,
			sp->stime + sp->rec_cstime, -1,
			clock_real_ns(), now_ms, NULL);
		sp = NULL;
	}
	if (!sp) {
		sp = sp_new(s, st->pid);
		if (!sp)
			return;
		sp->start_ticks = st->start_ticks;
		sp->jp = job_proc_add(s->job, st->pid, st->ppid,
				      start_real_ns(s, st), st->comm);
		if (!sp->jp) {
			sp->folded = true;
			return;
		}
		/*
		 * rec_cutime stays 0: children it reaped before we saw it were
		 * never seen by name, their time is counted as its own.
		 */
		sp_exec(s, sp, st->comm);
	} else {
		if (!sp->start_ticks)
			sp->start_ticks = st->start_ticks;
		if (st->state != 'Z' &&
		    procfs_read_exe(st->pid, exe, sizeof(exe)) == 0 &&
		    (!sp->jp->exe || strcmp(exe, sp->jp->exe) != 0))
			sp_exec(s, sp, st->comm);
	}
	sp->vanished = false; /* a broken ppid chain made it look gone */
	sp_update(s, sp, st, now_ms);
	sp->gen = s->gen;
}

/*
 * Share the growth of a live parent's children time among its children
 * that vanished; with none, it belongs to children never seen by name.
 */
static void reconcile_parent(struct tracker *s, struct sproc *a)
{
	struct sproc *kids[MAX_SHARE];
	uint64_t cu = a->cutime, cs = a->cstime, du, ds, ku = 0, ks = 0;
	struct procfs_stat fresh;
	size_t n = pending_children(s, a->pid, kids, MAX_SHARE);

	/* re-read after the kids are gone: their reaping is in cutime now */
	if (n && procfs_read_stat(a->pid, &fresh) == 0 && fresh.start_ticks == a->start_ticks) {
		cu = clock_ticks_ns(fresh.cutime_ticks);
		cs = clock_ticks_ns(fresh.cstime_ticks);
	}
	du = sub0(cu, a->rec_cutime);
	ds = sub0(cs, a->rec_cstime);
	a->rec_cutime = cu > a->rec_cutime ? cu : a->rec_cutime;
	a->rec_cstime = cs > a->rec_cstime ? cs : a->rec_cstime;
	if (!n) {
		a->extra_user += du;
		a->extra_sys += ds;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		ku += kids[i]->utime + kids[i]->rec_cutime;
		ks += kids[i]->stime + kids[i]->rec_cstime;
		procfs_io_add(&a->child_io, &kids[i]->io);
	}
	share_out(s, kids, n, sub0(du, ku), sub0(ds, ks), 0, NULL, NULL);
}

void tracker_sample(struct tracker *s)
{
	uint64_t t0 = clock_now_ns(CLOCK_THREAD_CPUTIME_ID);

	if (!s || !s->proc_ok)
		return;
	proctree_scan(&s->tree);
	tracker_observe(s, &s->tree, clock_mono_ms(), clock_real_ns());
	s->cost_ns += clock_now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
}

void tracker_observe(struct tracker *s, const struct proctree *snap,
		     uint64_t now_ms, uint64_t now_ns)
{
	uint64_t rss_sum = 0;
	struct procfs_stat st;

	s->gen++;
	for (size_t i = 0; i < snap->n; i++)
		if (snap->v[i].pid != s->self &&
		    proctree_descends(snap, &snap->v[i], s->self))
			see_process(s, &snap->v[i], now_ms);

	/* not seen: gone, or moving to us as an orphan during the scan */
	for (size_t b = 0; b < NBUCKETS; b++)
		for (struct sproc *sp = s->buckets[b]; sp; sp = sp->next) {
			if (sp->folded || sp->vanished || sp->gen == s->gen)
				continue;
			if (procfs_read_stat(sp->pid, &st) == 0 &&
			    st.start_ticks == sp->start_ticks)
				continue;
			sp->vanished = true;
			/* it ended somewhere since its last sample */
			sp->gone_ms = now_ms;
			/* never sampled: all we know is that it is gone now */
			sp->vanish_ms = sp->last_ms ? (sp->last_ms + now_ms) / 2 : now_ms;
			sp->vanish_ns = now_ns - (now_ms - sp->vanish_ms) * 1000000;
			sp->jp->rss_bytes = 0;
		}

	for (size_t b = 0; b < NBUCKETS; b++)
		for (struct sproc *sp = s->buckets[b]; sp; sp = sp->next) {
			struct sproc *parent;

			if (sp->folded)
				continue;
			if (!sp->vanished) {
				reconcile_parent(s, sp);
				rss_sum += sp->jp->rss_bytes;
				continue;
			}
			parent = sp_find(s, sp->ppid);
			if (!parent && sp->ppid != s->self) /* reaper unknown */
				sp_fold(s, sp, sp->utime + sp->rec_cutime,
					sp->stime + sp->rec_cstime, -1,
					sp->vanish_ns, sp->vanish_ms, NULL);
		}
	sp_sweep(s);

	if (rss_sum > s->job->mem_peak_bytes)
		s->job->mem_peak_bytes = rss_sum;
	s->job->samples++;
	s->samples++;
}

void tracker_reaped(struct tracker *s, pid_t pid, int status,
		    const struct rusage *ru)
{
	uint64_t now_ns = clock_real_ns();
	struct proc_totals t;
	struct job_proc *jp;
	struct sproc *sp;

	if (!s)
		return;
	sp = sp_find(s, pid);
	if (sp) {
		sp_fold(s, sp, clock_timeval_ns(&ru->ru_utime), clock_timeval_ns(&ru->ru_stime),
			status, now_ns, clock_mono_ms(), ru);
		sp_sweep(s);
		return;
	}
	/* an orphan that lived and died between two samples: no name left */
	jp = job_proc_add(s->job, pid, s->self, now_ns, "(unseen)");
	if (!jp)
		return;
	memset(&t, 0, sizeof(t));
	t.user_ns = clock_timeval_ns(&ru->ru_utime);
	t.sys_ns = clock_timeval_ns(&ru->ru_stime);
	t.cpu_ns = t.user_ns + t.sys_ns;
	t.maxrss_bytes = (uint64_t)ru->ru_maxrss * 1024;
	t.read_bytes = (uint64_t)ru->ru_inblock * 512;
	t.write_bytes = (uint64_t)ru->ru_oublock * 512;
	t.min_flt = (uint64_t)ru->ru_minflt;
	t.maj_flt = (uint64_t)ru->ru_majflt;
	t.nvcsw = (uint64_t)ru->ru_nvcsw;
	t.nivcsw = (uint64_t)ru->ru_nivcsw;
	job_proc_exit(s->job, jp, status, now_ns, &t, 0);
}

void tracker_finish(struct tracker *s)
{
	if (!s)
		return;
	tracker_sample(s);
	/* vanished ones whose parent is still alive: fold what we know */
	for (size_t b = 0; b < NBUCKETS; b++)
		for (struct sproc *sp = s->buckets[b]; sp; sp = sp->next)
			if (!sp->folded && sp->vanished)
				sp_fold(s, sp, sp->utime + sp->rec_cutime,
					sp->stime + sp->rec_cstime, -1,
					sp->vanish_ns, sp->vanish_ms, NULL);
	/* live ones outlive the job: their totals so far */
	for (size_t b = 0; b < NBUCKETS; b++)
		for (struct sproc *sp = s->buckets[b]; sp; sp = sp->next)
			if (!sp->folded && sp->jp) {
				sp_totals(sp, sp->utime + sp->extra_user,
					  sp->stime + sp->extra_sys,
					  &sp->jp->totals);
				sp->jp->flags |= PROC_F_TOTALS_PARTIAL;
			}
}

uint64_t tracker_samples(const struct tracker *s) { return s ? s->samples : 0; }
uint64_t tracker_cost_ns(const struct tracker *s) { return s ? s->cost_ns : 0; }
