/*
 * journal.c - the journal of open jobs (journal.h): what a restarted
 * tracerd needs to resume them.  One JSON object, rewritten whole (a
 * temporary file renamed over the old one, so a reader sees the old or
 * the new journal, never a torn one) when a job opens or closes and once a
 * second.  A closed job stays in it ("finished") until the spool has
 * its summary: a crash between the close and the spool's fsync would
 * lose the summary otherwise; the next tracerd finishes such a job again
 * from the journal, with the same summary_id.  The summary reaches
 * delivery only once a journal that says "finished" was written: were
 * the journal on disk still to list the job as open, a crash after the
 * spool took its summary would have the next tracerd resume it and close
 * it again, a second summary under a new id (journal_flush, at most every
 * JOURNAL_FLUSH_NS after closes, and every tick).  No fsync: the journal must survive tracerd, not the machine;
 * after a reboot the jobs' processes and the pinned maps are gone too.
 *
 * 64-bit numbers are written as strings: a JSON number holds 53 bits.
 */
#include "journal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_loader.h"
#include "clock.h"
#include "closing.h"
#include "jobcontainers.h"
#include "jobs.h"
#include "json.h"
#include "log.h"
#include "procfs.h"

#define JOURNAL_SCHEMA "tracer.journal/1"
#define JOURNAL_MAX_BYTES (64u << 20)
#define JOURNAL_PERIOD_NS 1000000000ull
/* closed jobs' summaries wait at most this long for the journal that
 * lets them go (a write grows with the open jobs: not one per close) */
#define JOURNAL_FLUSH_NS 100000000ull

struct journal_done {
	cJSON *entry;  /* job_json() at the close, with summary_id and end_ns */
	uint64_t seq;  /* delivery_submit()'s number; 0 while summary waits */
	cJSON *summary; /* for delivery once the journal says "finished" */
};

/* struct proc_totals is only uint64_t: written as one array */
#define NTOTALS (sizeof(struct proc_totals) / sizeof(uint64_t))

static void add_u64s(cJSON *o, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	cJSON_AddStringToObject(o, key, buf);
}

static uint64_t get_u64s(const cJSON *o, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(it) ? strtoull(it->valuestring, NULL, 10) : 0;
}

static cJSON *u64_array(const uint64_t *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	char buf[24];

	for (size_t i = 0; a && i < n; i++) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v[i]);
		cJSON_AddItemToArray(a, cJSON_CreateString(buf));
	}
	return a;
}

static void read_u64_array(const cJSON *a, uint64_t *v, size_t n)
{
	const cJSON *it;
	size_t i = 0;

	cJSON_ArrayForEach(it, a) {
		if (i < n && cJSON_IsString(it))
			v[i] = strtoull(it->valuestring, NULL, 10);
		i++;
	}
}

/* The job's device table: one array of numbers per device, in the
 * order of struct netio_dev (dev first, then NDEV_U64S counters). */
#define NDEV_U64S (4 + NETIO_LAT_BUCKETS)

static void dev_u64s(const struct netio_dev *d, uint64_t *v)
{
	v[0] = d->dev;
	v[1] = d->read_bytes;
	v[2] = d->write_bytes;
	v[3] = d->requests;
	v[4] = d->lat_max_ns;
	memcpy(v + 5, d->lat_hist, sizeof(d->lat_hist));
}

static cJSON *blkdevs_json(const struct netio_devs *ds)
{
	cJSON *a = cJSON_CreateArray();
	uint64_t v[1 + NDEV_U64S];

	/* the slots in use, then "other devices" (the last slot) if used */
	for (int i = 0; a && i <= NETIO_MAX_DEVS; i++) {
		const struct netio_dev *d = &ds->dev[i];
		if (i < ds->ndevs || (i == NETIO_MAX_DEVS && d->requests)) {
			dev_u64s(d, v);
			v[0] = i == NETIO_MAX_DEVS ? 0 : d->dev;
			cJSON_AddItemToArray(a, u64_array(v, 1 + NDEV_U64S));
		}
	}
	return a;
}

static void blkdevs_from_json(const cJSON *a, struct netio_devs *ds)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, a) {
		uint64_t v[1 + NDEV_U64S] = {0};
		struct netio_dev *d;

		read_u64_array(it, v, 1 + NDEV_U64S);
		if (v[0] == 0)
			d = &ds->dev[NETIO_MAX_DEVS];
		else if (ds->ndevs < NETIO_MAX_DEVS)
			d = &ds->dev[ds->ndevs++];
		else
			continue;
		d->dev = (uint32_t)v[0];
		d->read_bytes = v[1];
		d->write_bytes = v[2];
		d->requests = v[3];
		d->lat_max_ns = v[4];
		memcpy(d->lat_hist, v + 5, sizeof(d->lat_hist));
	}
}

static cJSON *job_json(const struct open_job *oj)
{
	const struct job *j = oj->job;
	cJSON *o = cJSON_CreateObject(), *gaps;
	uint64_t counts[] = {j->procs_total, j->procs_exited, j->procs_moved_out,
			     j->oom_kills, j->mem_peak_bytes, j->samples, j->exits_lost};

	if (!o)
		return NULL;
	json_add_str(o, "job", j->uid);
	add_u64s(o, "tag", j->tag);
	add_u64s(o, "start_ns", j->start_ns);
	json_add_i64(o, "owner_uid", oj->owner_uid);
	add_u64s(o, "owner_scope", oj->owner_scope);
	json_add_i64(o, "ntasks", j->ntasks);
	json_add_i64(o, "ntasks_exited", j->ntasks_exited);
	json_add_i64(o, "task_failed_status", j->task_failed_status);
	json_add_i64(o, "exit_status", j->exit_status);
	json_add_i64(o, "registrant_pid", j->registrant_pid);
	add_u64s(o, "cgroup_id", oj->cgroup_id);
	cJSON_AddBoolToObject(o, "closing", closing_active(oj));
	cJSON_AddItemToObject(o, "identity", identity_to_json(&j->id));
	cJSON_AddItemToObject(o, "totals", u64_array((const uint64_t *)&j->totals, NTOTALS));
	cJSON_AddItemToObject(o, "registrant", u64_array((const uint64_t *)&j->registrant, NTOTALS));
	cJSON_AddItemToObject(o, "counts", u64_array(counts, sizeof(counts) / sizeof(counts[0])));
	/* endpoints seen: the table itself is not kept (netpeers.c) */
	cJSON_AddBoolToObject(o, "tcp_peers_seen", j->peers != NULL || j->peers_partial);
	cJSON_AddItemToObject(o, "containers", jobcontainers_to_json(&j->containers));
	cJSON_AddItemToObject(o, "blkdevs", blkdevs_json(&j->blkdevs));
	gaps = cJSON_AddArrayToObject(o, "gaps");
	for (int i = 0; gaps && i < j->ngaps && i < JOB_MAX_GAPS; i++) {
		uint64_t g[2] = {j->gap_start_ns[i], j->gap_end_ns[i]};
		cJSON_AddItemToArray(gaps, u64_array(g, 2));
	}
	return o;
}

int journal_write(struct jobs *js)
{
	char tmp[PATH_MAX];
	cJSON *o, *arr;
	char *text;
	FILE *f;
	int rc = -1;

	if (!js->journal.path)
		return 0;
	js->journal.dirty = false;
	js->journal.at_ns = clock_mono_ns();
	o = cJSON_CreateObject();
	if (!o)
		return -1;
	json_add_str(o, "schema", JOURNAL_SCHEMA);
	json_add_str(o, "pin_dir", js->cfg->pin_dir);
	add_u64s(o, "written_ns", clock_real_ns());
	add_u64s(o, "next_tag", js->next_tag);
	arr = cJSON_AddArrayToObject(o, "jobs");
	for (size_t i = 0; arr && i < jobs_count(js); i++)
		if (jobs_at(js, i) != js->host_job && strcmp(jobs_at(js, i)->job->id.scheduler, "host"))
			cJSON_AddItemToArray(arr, job_json(jobs_at(js, i)));
	arr = cJSON_AddArrayToObject(o, "finished");
	for (size_t i = 0; arr && i < js->journal.ndone; i++)
		cJSON_AddItemReferenceToArray(arr, js->journal.done[i].entry);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", js->journal.path);
	f = fopen(tmp, "we");
	if (f && fputs(text, f) >= 0 && fputc('\n', f) != EOF && fclose(f) == 0) {
		f = NULL;
		rc = rename(tmp, js->journal.path);
	}
	if (f)
		fclose(f);
	if (rc != 0 && !js->journal.warned) {
		log_warn("journal %s: %s: open jobs will not survive a restart",
			 js->journal.path, strerror(errno));
		js->journal.warned = true;
	} else if (rc == 0) {
		js->journal.warned = false;
	}
	free(text);
	return rc;
}

static void prune_done(struct jobs *js);
static void submit_waiting(struct jobs *js);

void journal_tick(struct jobs *js)
{
	prune_done(js);
	if (js->journal.dirty || clock_mono_ns() - js->journal.at_ns >= JOURNAL_PERIOD_NS)
		journal_write(js);
	submit_waiting(js);
}

void journal_flush(struct jobs *js)
{
	if (js->journal.ndone && js->journal.done[js->journal.ndone - 1].summary &&
	    clock_mono_ns() - js->journal.at_ns >= JOURNAL_FLUSH_NS)
		journal_tick(js);
}

/* ---- resume ---- */

struct adopt_ctx {
	struct jobs *js;
	uint64_t written_ns; /* when the journal was written (CLOCK_REALTIME) */
	uint64_t lost;
};

/* A process of the kernel's table: the live process of an adopted job. */
static void adopt_proc(void *ctx, pid_t pid, const struct tracer_proc *kp)
{
	struct adopt_ctx *a = ctx;
	struct open_job *oj = jobs_find_tag(a->js, kp->job);
	struct procfs_stat st;
	struct job_proc *p;

	if (!oj || strcmp(oj->job->id.scheduler, "host") == 0)
		return;
	if (procfs_read_stat(pid, &st) != 0) {
		/* gone, its entry left behind: its record will not come */
		bpf_loader_untag_pid(a->js->bpf, pid);
		oj->job->exits_lost++;
		a->lost++;
		return;
	}
	p = jobs_proc_from_proc(a->js, oj, pid);
	if (!p)
		return;
	/* The journal's count has the processes started before it was
	 * written (the registrant never is counted); one started after it,
	 * before the restart, is counted now, once.  Start times have the
	 * clock tick's resolution: one started in the tick before the write
	 * may be taken as counted (the summary never shows a negative
	 * outlived count, lib/summary.c). */
	if (pid == oj->job->registrant_pid)
		job_proc_set_registrant(oj->job, p);
	else if (p->start_ns < a->written_ns && oj->job->procs_total > 0)
		oj->job->procs_total--;
}

/* A job of the journal, re-opened with what the journal kept of it. */
static struct open_job *job_from_json(struct jobs *js, const cJSON *e)
{
	struct tracer_identity id;
	char err[256];
	const char *uid = json_get_str(e, "job", "");
	uint64_t counts[7] = {0};
	struct open_job *oj;
	struct job *j;
	const cJSON *g;

	if (!uid[0] || identity_from_json(cJSON_GetObjectItemCaseSensitive(e, "identity"),
					  &id, err, sizeof(err)) != 0) {
		log_warn("journal: a job not resumed: %s", uid[0] ? err : "no uid");
		return NULL;
	}
	oj = jobs_adopt(js, &id, uid, get_u64s(e, "tag"));
	if (!oj)
		return NULL;
	j = oj->job;
	j->start_ns = get_u64s(e, "start_ns");
	oj->owner_uid = (uid_t)json_get_i64(e, "owner_uid", 0);
	oj->owner_scope = get_u64s(e, "owner_scope");
	j->ntasks = (int)json_get_i64(e, "ntasks", 1);
	j->ntasks_exited = (int)json_get_i64(e, "ntasks_exited", 0);
	j->task_failed_status = (int)json_get_i64(e, "task_failed_status", 0);
	j->exit_status = (int)json_get_i64(e, "exit_status", -1);
	j->registrant_pid = (pid_t)json_get_i64(e, "registrant_pid", 0);
	read_u64_array(cJSON_GetObjectItemCaseSensitive(e, "totals"), (uint64_t *)&j->totals, NTOTALS);
	read_u64_array(cJSON_GetObjectItemCaseSensitive(e, "registrant"),
		       (uint64_t *)&j->registrant, NTOTALS);
	read_u64_array(cJSON_GetObjectItemCaseSensitive(e, "counts"), counts, 7);
	j->procs_total = counts[0];
	j->procs_exited = counts[1];
	j->procs_moved_out = counts[2];
	j->oom_kills = counts[3];
	j->mem_peak_bytes = counts[4];
	j->samples = counts[5];
	j->exits_lost = counts[6];
	j->peers_partial = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "tcp_peers_seen"));
	jobcontainers_from_json(&j->containers, cJSON_GetObjectItemCaseSensitive(e, "containers"));
	blkdevs_from_json(cJSON_GetObjectItemCaseSensitive(e, "blkdevs"), &j->blkdevs);
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(e, "gaps")) {
		uint64_t v[2] = {0, 0};
		read_u64_array(g, v, 2);
		if (j->ngaps < JOB_MAX_GAPS) {
			j->gap_start_ns[j->ngaps] = v[0];
			j->gap_end_ns[j->ngaps++] = v[1];
		}
	}
	return oj;
}

static struct open_job *adopt_job(struct jobs *js, const cJSON *e, uint64_t down_ns,
				  bool maps)
{
	struct open_job *oj = job_from_json(js, e);
	struct job *j;

	if (!oj)
		return NULL;
	j = oj->job;
	/* the interval no tracerd followed it: from the last journal on */
	if (j->ngaps < JOB_MAX_GAPS) {
		j->gap_start_ns[j->ngaps] = down_ns;
		j->gap_end_ns[j->ngaps++] = clock_real_ns();
	}
	oj->cgroup_id = maps ? get_u64s(e, "cgroup_id") : 0;
	if (maps) {
		struct tracer_job_stats ks;
		oj->job_stats = bpf_loader_job_stats(js->bpf, j->tag, &ks) == 0;
	}
	if (!oj->job_stats)
		oj->job_stats = bpf_loader_job_open(js->bpf, j->tag,
						    bpf_loader_user_key(oj->owner_uid, oj->owner_scope)) == 0;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "closing")))
		oj->journaled.resume_closing = true;
	return oj;
}

/* ---- closed jobs, kept until their summary is spooled ---- */

bool journal_rebuilt(const struct open_job *oj)
{
	return oj->journaled.recovered;
}

uint64_t journal_end_ns(const struct open_job *oj)
{
	return oj->journaled.recovered_end_ns;
}

void journal_submit(struct jobs *js, struct open_job *oj, cJSON *summary)
{
	const struct job *j = oj->job;
	cJSON *e = NULL;

	if (oj->journaled.recovered && oj->journaled.summary_id[0]) {
		/* the same id as the lost one: a copy that did reach a sink
		 * after all is a harmless duplicate */
		cJSON_ReplaceItemInObjectCaseSensitive(summary, "summary_id",
						       cJSON_CreateString(oj->journaled.summary_id));
		cJSON_ReplaceItemInObjectCaseSensitive(summary, "incomplete", cJSON_CreateTrue());
		cJSON_AddTrueToObject(summary, "recovered");
	}
	if (js->journal.path && oj != js->host_job && strcmp(j->id.scheduler, "host") &&
	    (e = job_json(oj))) {
		json_add_str(e, "summary_id", json_get_str(summary, "summary_id", ""));
		add_u64s(e, "end_ns", j->end_ns);
		add_u64s(e, "events_dropped", j->events_dropped);
		add_u64s(e, "procs_over_cap", j->procs_over_cap);
	}
	if (e && js->journal.ndone == js->journal.done_cap) {
		size_t cap = js->journal.done_cap ? js->journal.done_cap * 2 : 16;
		struct journal_done *d = realloc(js->journal.done, cap * sizeof(*d));
		if (d) {
			js->journal.done = d;
			js->journal.done_cap = cap;
		}
	}
	if (!e || js->journal.ndone == js->journal.done_cap) { /* no journal, or no memory */
		cJSON_Delete(e);
		delivery_submit(js->delivery, summary); /* summary is not ours now */
		return;
	}
	/* to delivery after the next journal write (journal_flush) */
	js->journal.done[js->journal.ndone++] = (struct journal_done){e, 0, summary};
	js->journal.dirty = true;
}

/* The summaries of the jobs a written journal says are finished, to
 * delivery; a summary delivery dropped (logged there) leaves no entry */
static void submit_waiting(struct jobs *js)
{
	size_t k = 0;

	for (size_t i = 0; i < js->journal.ndone; i++) {
		struct journal_done *d = &js->journal.done[i];

		if (d->summary) {
			d->seq = delivery_submit(js->delivery, d->summary); /* not ours now */
			d->summary = NULL;
			if (!d->seq) {
				cJSON_Delete(d->entry);
				js->journal.dirty = true;
				continue;
			}
		}
		js->journal.done[k++] = *d;
	}
	js->journal.ndone = k;
}

/* Forget the closed jobs whose summaries the spool has now. */
static void prune_done(struct jobs *js)
{
	uint64_t upto;
	size_t k = 0;

	if (!js->journal.ndone)
		return;
	upto = delivery_spooled(js->delivery);
	while (k < js->journal.ndone && !js->journal.done[k].summary && js->journal.done[k].seq <= upto)
		cJSON_Delete(js->journal.done[k++].entry);
	if (!k)
		return;
	memmove(js->journal.done, js->journal.done + k, (js->journal.ndone - k) * sizeof(*js->journal.done));
	js->journal.ndone -= k;
	js->journal.dirty = true;
}

void journal_settle(struct jobs *js, unsigned timeout_ms)
{
	journal_tick(js); /* the summaries still waiting for it, to delivery */
	if (js->journal.ndone && !delivery_wait_spooled(js->delivery, js->journal.done[js->journal.ndone - 1].seq,
						timeout_ms))
		log_warn("journal: %zu closed jobs not spooled in time: kept for the next start",
			 js->journal.ndone);
	prune_done(js);
	journal_write(js);
}

void journal_free(struct jobs *js)
{
	for (size_t k = 0; k < js->journal.ndone; k++) {
		cJSON_Delete(js->journal.done[k].entry);
		cJSON_Delete(js->journal.done[k].summary);
	}
	free(js->journal.done);
	js->journal.done = NULL;
	js->journal.ndone = js->journal.done_cap = 0;
}

/* A closed job whose summary the spool never got: finished again from
 * what the journal kept at its close.  0 done or not needed, -1 failed. */
static int refinish_job(struct jobs *js, const cJSON *e)
{
	const char *sid = json_get_str(e, "summary_id", "");
	struct open_job *oj;

	if (js->delivery && sid[0] && delivery_has_summary(js->delivery, sid))
		return 0; /* spooled after the journal's last write */
	oj = job_from_json(js, e);
	if (!oj)
		return -1;
	oj->journaled.recovered = true;
	oj->journaled.recovered_end_ns = get_u64s(e, "end_ns");
	snprintf(oj->journaled.summary_id, sizeof(oj->journaled.summary_id), "%s", sid);
	oj->job->events_dropped = get_u64s(e, "events_dropped");
	oj->job->procs_over_cap = get_u64s(e, "procs_over_cap");
	log_warn("job %s: its summary was not spooled before tracerd stopped: "
		 "rebuilt from the journal (totals kept, process detail lost)", oj->job->uid);
	closing_finish_now(js, oj, "closed before a crash; summary rebuilt from the journal");
	return 0;
}

int journal_resume(struct jobs *js, bool maps)
{
	struct adopt_ctx a = {.js = js};
	const cJSON *e;
	cJSON *o = NULL;
	char *text = NULL;
	uint64_t down_ns;
	long size;
	int n = 0;
	FILE *f;

	if (!js->journal.path)
		return 0;
	f = fopen(js->journal.path, "re");
	if (!f) {
		if (errno != ENOENT)
			log_warn("journal %s: %s: nothing resumed", js->journal.path, strerror(errno));
		return 0;
	}
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 &&
	    (unsigned long)size < JOURNAL_MAX_BYTES && fseek(f, 0, SEEK_SET) == 0 &&
	    (text = calloc(1, (size_t)size + 1)) && fread(text, 1, (size_t)size, f) == (size_t)size)
		o = cJSON_Parse(text);
	fclose(f);
	free(text);
	if (!o || strcmp(json_get_str(o, "schema", ""), JOURNAL_SCHEMA) != 0 ||
	    strcmp(json_get_str(o, "pin_dir", ""), js->cfg->pin_dir) != 0) {
		log_error("journal %s: unreadable, or of another version or pin_dir: nothing resumed",
			  js->journal.path);
		cJSON_Delete(o);
		return -1;
	}
	down_ns = get_u64s(o, "written_ns");
	a.written_ns = down_ns;
	if (get_u64s(o, "next_tag") > js->next_tag)
		js->next_tag = get_u64s(o, "next_tag");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "finished"))
		refinish_job(js, e);
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "jobs"))
		if (adopt_job(js, e, down_ns, maps))
			n++;
	cJSON_Delete(o);
	/* their live processes, from the kernel's table */
	if (maps && n)
		bpf_loader_each_proc(js->bpf, adopt_proc, &a);
	for (size_t i = 0; i < jobs_count(js); i++) {
		struct open_job *oj = jobs_at(js, i);
		if (oj->journaled.resume_closing)
			closing_start(js, oj, "end (before the restart)");
		else
			jobs_note_exit(js, oj); /* none left: it closes */
	}
	if (n)
		log_info("resumed %d open jobs from %s (%s; %llu processes gone without record)",
			 n, js->journal.path,
			 maps ? "kernel state kept" : "kernel state lost: no process followed",
			 (unsigned long long)a.lost);
	js->journal.dirty = true;
	return n;
}
