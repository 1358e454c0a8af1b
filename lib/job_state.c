/*
 * job_state.c - the job's final state word and OOM details (job_state.h).
 */
#include "job_state.h"

#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "json.h"

static const char *proc_name(const struct job_proc *p)
{
	return p->tool ? p->tool : p->comm;
}

void job_note_oom(struct job *j, pid_t victim, uint64_t victim_rss_bytes,
		  uint64_t limit_pages, uint64_t usage_pages, uint64_t host_mem_bytes,
		  long page_size)
{
	struct job_oom *o = &j->oom;
	const struct job_proc *v = job_proc_find(j, victim);
	uint64_t page = page_size > 0 ? (uint64_t)page_size : 4096;

	o->count++;
	if (o->count > 1) /* the first one is described */
		return;
	o->victim_pid = victim;
	snprintf(o->victim_tool, sizeof(o->victim_tool), "%s", v ? proc_name(v) : "?");
	if (!victim_rss_bytes && v)
		victim_rss_bytes = v->rss_bytes;
	o->victim_rss_bytes = victim_rss_bytes;
	o->largest_pid = victim;
	snprintf(o->largest_tool, sizeof(o->largest_tool), "%s", o->victim_tool);
	o->largest_rss_bytes = victim_rss_bytes;
	/* bounded by the job's live processes, memory only */
	JOB_FOREACH_LIVE(j, p) {
		if (p->pid != victim && !(p->flags & PROC_F_REGISTRANT) &&
		    p->rss_bytes > o->largest_rss_bytes) {
			o->largest_pid = p->pid;
			o->largest_rss_bytes = p->rss_bytes;
			snprintf(o->largest_tool, sizeof(o->largest_tool), "%s", proc_name(p));
		}
	}
	/* a limit at or above the machine's memory is no limit */
	if (limit_pages && (!host_mem_bytes || limit_pages * page < host_mem_bytes)) {
		o->cgroup = true;
		o->limit_bytes = limit_pages * page;
		o->usage_bytes = usage_pages * page;
	}
}

int job_note_progress(struct job *j, bool moved, uint64_t now_ns,
		      uint64_t threshold_ns)
{
	uint64_t idle;

	if (!j->progress_at_ns || moved) {
		int was = j->stalled;

		j->progress_at_ns = now_ns;
		j->stalled = false;
		return was ? -1 : 0;
	}
	idle = now_ns - j->progress_at_ns;
	if (idle > j->stalled_max_ns)
		j->stalled_max_ns = idle;
	if (!j->stalled && threshold_ns && idle >= threshold_ns) {
		j->stalled = true;
		return 1;
	}
	return 0;
}

/* Signals a job dies of when it is stopped from outside (scancel, kill,
 * Ctrl-C, a hang-up), not of its own fault. */
static int outside_signal(int sig)
{
	return sig == SIGTERM || sig == SIGKILL || sig == SIGINT || sig == SIGHUP ||
	       sig == SIGQUIT || sig == SIGUSR1 || sig == SIGUSR2;
}

const char *job_state(const struct job *j, int status, uint64_t wall_ns)
{
	if (j->oom_kills > 0 || j->oom.count > 0)
		return "OUT_OF_MEMORY";
	if (status < 0)
		return "UNKNOWN";
	if (status == 0)
		return "COMPLETED";
	if (j->id.alloc.time_limit_s && wall_ns >= j->id.alloc.time_limit_s * 1000000000ull)
		return "TIMEOUT";
	/* a step starts after its job and is stopped at the job's end: the
	 * scheduler's deadline, not the step's own wall, tells a timeout (the
	 * scheduler checks limits periodically, so it is never early; 1 s for
	 * the clocks of two daemons) */
	if (j->id.alloc.deadline_s && WIFSIGNALED(status) && outside_signal(WTERMSIG(status)) &&
	    j->end_ns / 1000000000ull + 1 >= j->id.alloc.deadline_s)
		return "TIMEOUT";
	if (WIFSIGNALED(status) && outside_signal(WTERMSIG(status)))
		return "CANCELLED";
	return "FAILED";
}

static void add_proc(cJSON *o, const char *key, pid_t pid, const char *tool,
		     uint64_t rss)
{
	cJSON *p = cJSON_AddObjectToObject(o, key);

	if (!p)
		return;
	cJSON_AddNumberToObject(p, "pid", pid);
	json_add_str(p, "tool", tool);
	if (rss)
		json_add_u64(p, "rss_bytes", rss);
}

cJSON *job_oom_json(const struct job *j)
{
	const struct job_oom *o = &j->oom;
	cJSON *obj;

	if (o->count == 0)
		return NULL;
	obj = cJSON_CreateObject();
	if (!obj)
		return NULL;
	json_add_str(obj, "kind", o->cgroup ? "cgroup" : "host");
	add_proc(obj, "victim", o->victim_pid, o->victim_tool, o->victim_rss_bytes);
	add_proc(obj, "largest", o->largest_pid, o->largest_tool, o->largest_rss_bytes);
	if (o->cgroup) {
		json_add_u64(obj, "limit_bytes", o->limit_bytes);
		json_add_u64(obj, "usage_bytes", o->usage_bytes);
	}
	json_add_u64(obj, "kills", (uint64_t)o->count);
	return obj;
}
