/*
 * test_wrapper_tracker.c - standalone mode's process tracker fed with
 * synthetic /proc snapshots (tracker_observe): children that vanish
 * between two samples get their last sample plus a share of their
 * parent's children-time growth, shared by recent CPU rate; growth with
 * no vanished child is the parent's own; wait4 totals of what the
 * wrapper reaps; pid reuse; and what tracker_finish leaves to job_close.
 *
 * Synthetic pids are above PID_MAX_LIMIT (4194304), so the tracker's own
 * /proc reads of them fail as they do for processes that are gone.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "job_record.h"
#include "proctree.h"
#include "rules.h"
#include "tracker.h"
#include "unit.h"

#define PID0 4200000 /* never a live pid */

static struct rules *rules;
static uint64_t ns_per_tick;
static long page_size;

/* Clock ticks (USER_HZ) in ns, the tracker's way. */
static uint64_t tk(uint64_t ticks)
{
	return ticks * ns_per_tick;
}

/* got is want, give or take tol ns (shares are computed in double). */
static int near(uint64_t got, uint64_t want, uint64_t tol)
{
	if (got + tol < want || got > want + tol) {
		fprintf(stderr, "\n  got %llu, want %llu (+-%llu)\n",
			(unsigned long long)got, (unsigned long long)want,
			(unsigned long long)tol);
		return 0;
	}
	return 1;
}

struct world {
	struct job *j;
	struct tracker *s;
	uint64_t t0_ns;  /* the job's start, CLOCK_REALTIME */
};

static void world_open(struct world *w)
{
	w->j = job_new("tracker-test", NULL, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w->j);
	/* every synthetic start (boot + a few ticks) is before this one */
	w->t0_ns = clock_real_ns();
	w->j->start_ns = w->t0_ns;
	w->s = tracker_new(w->j, rules, 256);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w->s);
}

static void world_close(struct world *w)
{
	tracker_free(w->s);
	job_free(w->j);
}

/* One /proc stat record; times in clock ticks. */
static struct procfs_stat rec(pid_t pid, pid_t ppid, const char *comm,
			      uint64_t start, uint64_t ut, uint64_t st,
			      uint64_t cut, uint64_t cst)
{
	struct procfs_stat r;

	memset(&r, 0, sizeof(r));
	r.pid = pid;
	r.ppid = ppid;
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	r.state = 'S';
	r.start_ticks = start;
	r.utime_ticks = ut;
	r.stime_ticks = st;
	r.cutime_ticks = cut;
	r.cstime_ticks = cst;
	r.num_threads = 1;
	r.rss_pages = 10;
	return r;
}

/* Sample number k (records sorted by pid), one second after sample k-1. */
static void observe(struct world *w, struct procfs_stat *v, size_t n, int k)
{
	struct proctree t = {.v = v, .n = n};

	tracker_observe(w->s, &t, 1000000 + (uint64_t)k * 1000,
			w->t0_ns + (uint64_t)k * NS_PER_SEC);
}

static const struct tool_agg *tool_of(const struct job *j, const char *name)
{
	for (const struct tool_agg *t = j->tools; t; t = t->next)
		if (strcmp(t->tool, name) == 0)
			return t;
	return NULL;
}

/* A finished process kept for the process tree, by pid and comm. */
static const struct job_proc *kept(const struct job *j, pid_t pid,
				   const char *comm)
{
	for (size_t i = 0; i < j->nkept; i++)
		if (j->kept[i]->pid == pid && strcmp(j->kept[i]->comm, comm) == 0)
			return j->kept[i];
	return NULL;
}

static struct rusage usage(uint64_t user_ns, uint64_t sys_ns)
{
	struct rusage ru;

	memset(&ru, 0, sizeof(ru));
	ru.ru_utime.tv_sec = (time_t)(user_ns / NS_PER_SEC);
	ru.ru_utime.tv_usec = (suseconds_t)(user_ns % NS_PER_SEC / 1000);
	ru.ru_stime.tv_sec = (time_t)(sys_ns / NS_PER_SEC);
	ru.ru_stime.tv_usec = (suseconds_t)(sys_ns % NS_PER_SEC / 1000);
	return ru;
}

static void test_vanished_child_share(void)
{
	enum { P = PID0, C = PID0 + 1 };
	pid_t self = getpid();
	struct world w;
	struct procfs_stat s1[] = {
		rec(P, self, "pipeline", 1, 100, 0, 0, 0),
		rec(C, P, "aligner", 2, 50, 10, 0, 0),
	};
	struct procfs_stat s2[] = {
		rec(P, self, "pipeline", 1, 100, 0, 0, 0),
		rec(C, P, "aligner", 2, 150, 10, 0, 0),
	};
	/* C ended with 200 + 20 ticks; P reaped it: its children time grew */
	struct procfs_stat s3[] = {rec(P, self, "pipeline", 1, 100, 0, 200, 20)};
	const struct tool_agg *t;
	const struct job_proc *c, *p;
	struct rusage ru;

	world_open(&w);
	s1[0].rss_pages = 100;
	s1[1].rss_pages = 50;
	observe(&w, s1, 2, 1);
	CU_ASSERT_EQUAL(w.j->mem_peak_bytes, 150 * (uint64_t)page_size);
	CU_ASSERT_EQUAL(w.j->procs_total, 2);
	/* both started before the job did (boot + a tick): clamped to it */
	CU_ASSERT_EQUAL(job_proc_find(w.j, C)->start_ns, w.t0_ns);
	observe(&w, s2, 2, 2);
	observe(&w, s3, 1, 3);
	CU_ASSERT_EQUAL(tracker_samples(w.s), 3);
	CU_ASSERT_EQUAL(w.j->samples, 3);

	/*
	 * P's children time grew by 2.2 s (200 + 20 ticks); C had 1.6 s
	 * (150 + 10 ticks) at its last sample, so 0.6 s (0.5 s user, 0.1 s
	 * system) is left to share and C is the only vanished child.
	 */
	CU_ASSERT_EQUAL(w.j->procs_exited, 1);
	t = tool_of(w.j, "aligner");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->procs, 1);
	CU_ASSERT(near(t->sum.user_ns, tk(200), 1));
	CU_ASSERT(near(t->sum.sys_ns, tk(20), 1));
	CU_ASSERT(near(t->sum.cpu_ns, tk(220), 2));
	CU_ASSERT_EQUAL(w.j->totals.cpu_ns, t->sum.cpu_ns);
	c = kept(w.j, C, "aligner");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->ppid, P);
	CU_ASSERT_EQUAL(c->exit_status, -1);
	CU_ASSERT(c->flags & PROC_F_TOTALS_PARTIAL);
	/* it ended somewhere between its last sample and the one without it */
	CU_ASSERT(c->end_ns >= w.t0_ns + 2 * NS_PER_SEC &&
		  c->end_ns <= w.t0_ns + 3 * NS_PER_SEC);
	CU_ASSERT_PTR_NULL(tool_of(w.j, "pipeline"));

	/*
	 * The wrapper reaps P: wait4 says own + reaped children (1 s + 2 s
	 * user, 0.2 s system).  What C took is C's: P keeps its own 1 s.
	 */
	ru = usage(tk(100) + tk(200), tk(20));
	ru.ru_maxrss = 1024;
	tracker_reaped(w.s, P, 0, &ru);
	p = kept(w.j, P, "pipeline");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(p->totals.user_ns, tk(100));
	CU_ASSERT_EQUAL(p->totals.sys_ns, 0);
	CU_ASSERT_EQUAL(p->totals.cpu_ns, tk(100));
	CU_ASSERT_EQUAL(p->exit_status, 0);
	/* its wait4 figures include C's: not exact for P alone */
	CU_ASSERT(p->flags & PROC_F_TOTALS_PARTIAL);
	CU_ASSERT(near(w.j->totals.cpu_ns, tk(100) + tk(220), 2));
	CU_ASSERT_EQUAL(w.j->procs_exited, 2);
	CU_ASSERT_EQUAL(w.j->nlive, 0);
	world_close(&w);
}

static void test_busy_and_idle_share(void)
{
	enum { P = PID0 + 10, B = PID0 + 11, I = PID0 + 12 };
	pid_t self = getpid();
	struct world w;
	struct procfs_stat s1[] = {
		rec(P, self, "driver", 1, 10, 0, 0, 0),
		rec(B, P, "busy", 2, 100, 10, 0, 0),
		rec(I, P, "idle", 3, 20, 5, 0, 0),
	};
	struct procfs_stat s2[] = {
		rec(P, self, "driver", 1, 10, 0, 0, 0),
		rec(B, P, "busy", 2, 200, 10, 0, 0),
		rec(I, P, "idle", 3, 20, 5, 0, 0),
	};
	/* B ended with 300 + 30 ticks, I with 20 + 5: both reaped by P */
	struct procfs_stat s3[] = {rec(P, self, "driver", 1, 10, 0, 320, 35)};
	const struct tool_agg *b, *i;

	world_open(&w);
	observe(&w, s1, 3, 1);
	observe(&w, s2, 3, 2);
	observe(&w, s3, 1, 3);

	/*
	 * P's growth is 3.2 s user and 0.35 s system; B and I had 2.0 + 0.1 s
	 * and 0.2 + 0.05 s at their last sample, so 1.0 s user and 0.2 s
	 * system are left.  Each child's weight is its CPU rate over the last
	 * interval (B: 1 s in 1000 ms = 1e6 ns/ms, I: 0) times the time from
	 * its last sample to its estimated end (the midpoint, 500 ms): B
	 * 5e8, I 0.  B takes it all (to 1 ns: doubles, truncated); I keeps
	 * exactly its last sample.
	 */
	CU_ASSERT_EQUAL(w.j->procs_exited, 2);
	b = tool_of(w.j, "busy");
	i = tool_of(w.j, "idle");
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(i);
	CU_ASSERT(near(b->sum.user_ns, tk(300), 1));
	CU_ASSERT(near(b->sum.sys_ns, tk(30), 1));
	CU_ASSERT_EQUAL(i->sum.user_ns, tk(20));
	CU_ASSERT_EQUAL(i->sum.sys_ns, tk(5));
	/* together, exactly what P's children time says they took */
	CU_ASSERT(near(b->sum.cpu_ns + i->sum.cpu_ns, tk(320 + 35), 2));
	world_close(&w);
}

static void test_share_by_rate(void)
{
	enum { P = PID0 + 30, X = PID0 + 31, Y = PID0 + 32 };
	pid_t self = getpid();
	struct world w;
	struct procfs_stat s1[] = {
		rec(P, self, "driver", 1, 0, 0, 0, 0),
		rec(X, P, "fast", 2, 10, 0, 0, 0),
		rec(Y, P, "slow", 3, 10, 0, 0, 0),
	};
	struct procfs_stat s2[] = {
		rec(P, self, "driver", 1, 0, 0, 0, 0),
		rec(X, P, "fast", 2, 40, 0, 0, 0),
		rec(Y, P, "slow", 3, 20, 0, 0, 0),
	};
	struct procfs_stat s3[] = {rec(P, self, "driver", 1, 0, 0, 100, 0)};
	const struct tool_agg *x, *y;

	world_open(&w);
	observe(&w, s1, 3, 1);
	observe(&w, s2, 3, 2);
	observe(&w, s3, 1, 3);

	/*
	 * Rates over the last interval: X 0.3 s, Y 0.1 s in 1000 ms; both
	 * weights use the same 500 ms, so they are 3:1.  Growth 1.0 s less
	 * the 0.4 + 0.2 s of their last samples leaves 0.4 s: X gets 0.3 s
	 * (0.7 s in all), Y 0.1 s (0.3 s in all), each to 1 ns.
	 */
	x = tool_of(w.j, "fast");
	y = tool_of(w.j, "slow");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(y);
	CU_ASSERT(near(x->sum.cpu_ns, tk(70), 1));
	CU_ASSERT(near(y->sum.cpu_ns, tk(30), 1));
	CU_ASSERT_EQUAL(x->sum.sys_ns, 0);
	world_close(&w);
}

static void test_unseen_children_are_parents(void)
{
	enum { P = PID0 + 40 };
	pid_t self = getpid();
	struct world w;
	/* 0.1 s of children reaped before the first sample, 0.5 s + 0.05 s after */
	struct procfs_stat s1[] = {rec(P, self, "runner", 1, 20, 0, 10, 0)};
	struct procfs_stat s2[] = {rec(P, self, "runner", 1, 20, 0, 60, 5)};
	const struct tool_agg *t;
	const struct job_proc *p;
	struct rusage ru;

	world_open(&w);
	observe(&w, s1, 1, 1);
	observe(&w, s2, 1, 2);
	CU_ASSERT_EQUAL(w.j->procs_exited, 0);
	/* wait4: own 0.2 s + children 0.6 s user, children 0.05 s system */
	ru = usage(tk(20) + tk(60), tk(5));
	tracker_reaped(w.s, P, 0, &ru);
	/* no child was ever seen by name: their time is the parent's */
	CU_ASSERT_EQUAL(w.j->procs_total, 1);
	CU_ASSERT_EQUAL(w.j->ntools, 1);
	t = tool_of(w.j, "runner");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->sum.user_ns, tk(80));
	CU_ASSERT_EQUAL(t->sum.sys_ns, tk(5));
	CU_ASSERT_EQUAL(t->sum.cpu_ns, tk(85));
	p = kept(w.j, P, "runner");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT(p->flags & PROC_F_TOTALS_PARTIAL);
	world_close(&w);
}

static void test_reaped_exact_and_unseen(void)
{
	enum { P = PID0 + 50, U = PID0 + 51 };
	pid_t self = getpid();
	struct world w;
	struct procfs_stat s1[] = {rec(P, self, "worker", 1, 40, 10, 0, 0)};
	const struct job_proc *p, *u;
	const struct tool_agg *t;
	struct rusage ru;

	world_open(&w);
	observe(&w, s1, 1, 1);
	/* gone from the next sample: it waits for the wrapper's wait4 */
	observe(&w, NULL, 0, 2);
	CU_ASSERT_EQUAL(w.j->procs_exited, 0);
	CU_ASSERT_PTR_NOT_NULL(job_proc_find(w.j, P));

	ru = usage(1250000000, 500000000);
	ru.ru_maxrss = 4096; /* KiB */
	ru.ru_minflt = 1000;
	ru.ru_majflt = 7;
	ru.ru_nvcsw = 40;
	ru.ru_nivcsw = 9;
	ru.ru_inblock = 8;
	ru.ru_oublock = 16;
	tracker_reaped(w.s, P, 3 << 8, &ru);
	/* no children: everything wait4 says is this process's, exactly */
	p = kept(w.j, P, "worker");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(p->totals.user_ns, 1250000000);
	CU_ASSERT_EQUAL(p->totals.sys_ns, 500000000);
	CU_ASSERT_EQUAL(p->totals.cpu_ns, 1750000000);
	CU_ASSERT_EQUAL(p->totals.maxrss_bytes, 4096 * 1024);
	CU_ASSERT_EQUAL(p->totals.min_flt, 1000);
	CU_ASSERT_EQUAL(p->totals.maj_flt, 7);
	CU_ASSERT_EQUAL(p->totals.nvcsw, 40);
	CU_ASSERT_EQUAL(p->totals.nivcsw, 9);
	/* sampled: block I/O is /proc's (none), not wait4's */
	CU_ASSERT_EQUAL(p->totals.read_bytes, 0);
	CU_ASSERT_EQUAL(p->exit_status, 3 << 8);
	CU_ASSERT_EQUAL(p->flags & PROC_F_TOTALS_PARTIAL, 0);
	t = tool_of(w.j, "worker");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->sum.cpu_ns, 1750000000);
	CU_ASSERT_EQUAL(t->nexits, 1);
	CU_ASSERT_EQUAL(t->exits[0].status, 3 << 8);

	/* an orphan that lived and died between two samples */
	ru = usage(300000000, 100000000);
	ru.ru_maxrss = 2048;
	ru.ru_minflt = 5;
	ru.ru_nvcsw = 2;
	ru.ru_inblock = 8;
	ru.ru_oublock = 16;
	tracker_reaped(w.s, U, SIGKILL, &ru);
	u = kept(w.j, U, "(unseen)");
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	CU_ASSERT_EQUAL(u->ppid, self);
	CU_ASSERT_EQUAL(u->exit_status, SIGKILL);
	CU_ASSERT_EQUAL(u->totals.cpu_ns, 400000000);
	CU_ASSERT_EQUAL(u->totals.user_ns, 300000000);
	CU_ASSERT_EQUAL(u->totals.maxrss_bytes, 2048 * 1024);
	CU_ASSERT_EQUAL(u->totals.min_flt, 5);
	CU_ASSERT_EQUAL(u->totals.nvcsw, 2);
	CU_ASSERT_EQUAL(u->totals.read_bytes, 8 * 512);
	CU_ASSERT_EQUAL(u->totals.write_bytes, 16 * 512);
	CU_ASSERT_EQUAL(u->flags & PROC_F_TOTALS_PARTIAL, 0);
	t = tool_of(w.j, "(unseen)");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->procs, 1);
	CU_ASSERT_EQUAL(w.j->procs_total, 2);
	CU_ASSERT_EQUAL(w.j->procs_exited, 2);
	CU_ASSERT_EQUAL(w.j->totals.cpu_ns, 1750000000ull + 400000000ull);
	world_close(&w);
}

static void test_pid_reuse(void)
{
	enum { R = PID0 + 60 };
	pid_t self = getpid();
	struct world w;
	struct procfs_stat s1[] = {rec(R, self, "first", 100, 30, 4, 0, 0)};
	/* same pid, another start time: another process */
	struct procfs_stat s2[] = {rec(R, self, "second", 200, 5, 0, 0, 0)};
	const struct tool_agg *t;
	const struct job_proc *old, *live;

	world_open(&w);
	observe(&w, s1, 1, 1);
	observe(&w, s2, 1, 2);
	CU_ASSERT_EQUAL(w.j->procs_total, 2);
	CU_ASSERT_EQUAL(w.j->procs_exited, 1);
	/* the old one ended unseen: folded with its last sample */
	t = tool_of(w.j, "first");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->procs, 1);
	CU_ASSERT_EQUAL(t->sum.user_ns, tk(30));
	CU_ASSERT_EQUAL(t->sum.sys_ns, tk(4));
	old = kept(w.j, R, "first");
	CU_ASSERT_PTR_NOT_NULL_FATAL(old);
	CU_ASSERT(old->flags & PROC_F_TOTALS_PARTIAL);
	CU_ASSERT_EQUAL(old->exit_status, -1);
	live = job_proc_find(w.j, R);
	CU_ASSERT_PTR_NOT_NULL_FATAL(live);
	CU_ASSERT_STRING_EQUAL(live->comm, "second");
	CU_ASSERT_STRING_EQUAL(live->tool, "second");
	CU_ASSERT_PTR_NULL(tool_of(w.j, "second"));
	/* the job ends with the new one alive */
	job_close(w.j, w.t0_ns + 3 * NS_PER_SEC);
	CU_ASSERT_PTR_NOT_NULL(tool_of(w.j, "second"));
	live = kept(w.j, R, "second");
	CU_ASSERT_PTR_NOT_NULL_FATAL(live);
	CU_ASSERT(live->flags & PROC_F_OUTLIVED);
	CU_ASSERT_EQUAL(w.j->procs_exited, 1);
	world_close(&w);
}

static void test_finish(void)
{
	enum { P = PID0 + 70, C = PID0 + 71 };
	pid_t self = getpid();
	char *const argv[] = {"sleeper", NULL};
	struct world w;
	struct procfs_stat s1[] = {
		rec(P, self, "stage", 1, 30, 3, 0, 0),
		rec(C, P, "substage", 2, 12, 1, 0, 0),
	};
	const struct job_proc *p, *c, *r;
	int fd[2], status;
	pid_t child;
	char b;

	/* a real child, alive until we close the pipe: it outlives the job */
	CU_ASSERT_FATAL(pipe(fd) == 0);
	child = fork();
	CU_ASSERT_FATAL(child >= 0);
	if (child == 0) {
		close(fd[1]);
		_exit(read(fd[0], &b, 1) < 0 ? 1 : 0);
	}
	close(fd[0]);

	world_open(&w);
	tracker_add_root(w.s, child, argv);
	observe(&w, s1, 2, 1);
	/*
	 * Both synthetic ones vanish: P waits for the wrapper's wait4 (it is
	 * the wrapper's child), C for its parent's figures.  The real child
	 * is not in this snapshot but /proc still shows it: not gone.
	 */
	observe(&w, NULL, 0, 2);
	CU_ASSERT_EQUAL(w.j->procs_exited, 0);
	CU_ASSERT_EQUAL(w.j->nlive, 3);

	tracker_finish(w.s);
	/* the vanished ones are folded with what is known: their last sample */
	CU_ASSERT_EQUAL(w.j->procs_exited, 2);
	p = kept(w.j, P, "stage");
	c = kept(w.j, C, "substage");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(p->totals.cpu_ns, tk(33));
	CU_ASSERT_EQUAL(c->totals.cpu_ns, tk(13));
	CU_ASSERT(p->flags & PROC_F_TOTALS_PARTIAL);
	CU_ASSERT(c->flags & PROC_F_TOTALS_PARTIAL);
	/* the live one has its totals so far, marked partial */
	CU_ASSERT_EQUAL(w.j->nlive, 1);
	r = job_proc_find(w.j, child);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT(r->flags & PROC_F_TOTALS_PARTIAL);
	CU_ASSERT(r->flags & PROC_F_ROOT);

	job_close(w.j, clock_real_ns());
	r = kept(w.j, child, "sleeper");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT(r->flags & PROC_F_OUTLIVED);
	CU_ASSERT(r->flags & PROC_F_TOTALS_PARTIAL);
	CU_ASSERT_EQUAL(w.j->procs_total, 3);
	CU_ASSERT_EQUAL(w.j->procs_exited, 2);
	world_close(&w);

	close(fd[1]);
	CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void warn_cb(const char *msg)
{
	fprintf(stderr, "rules: %s\n", msg);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"vanished child: last sample plus its share", test_vanished_child_share},
		{"busy and idle children share by rate", test_busy_and_idle_share},
		{"shares proportional to recent rates", test_share_by_rate},
		{"children never seen are the parent's", test_unseen_children_are_parents},
		{"wait4 totals: exact, and unseen orphans", test_reaped_exact_and_unseen},
		{"pid reuse is a new process", test_pid_reuse},
		{"finish: vanished folded, live partial", test_finish},
	};
	long hz = sysconf(_SC_CLK_TCK);
	int rc;

	ns_per_tick = NS_PER_SEC / (uint64_t)(hz > 0 ? hz : 100);
	page_size = sysconf(_SC_PAGESIZE);
	rules = rules_load(NULL, warn_cb);
	if (!rules)
		return 1;
	rc = UNIT_RUN("wrapper tracker", tests);
	rules_free(rules);
	return rc;
}
