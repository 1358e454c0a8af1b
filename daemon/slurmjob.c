/*
 * slurmjob.c - facts about a Slurm job asked of slurmctld, off tracerd's
 * loop (slurmjob.h).
 *
 * Why here and not in the SPANK plugin: Slurm 22.05 has no SPANK item for
 * the time limit, account, QOS or submit time and sets no
 * SLURM_JOB_END_TIME in the job's environment (that variable comes with
 * later releases); the only source is slurmctld, and an RPC from the
 * plugin would hold up the task's launch for as long as slurmctld takes to
 * answer.  tracerd's thread runs `squeue` instead: one query per Slurm job
 * id (steps share the answer; a job answered is not asked again), at most
 * one at a time, each bounded by QUERY_TIMEOUT_MS, so a slow or absent
 * slurmctld costs only the missing fields.  A job that ended before the
 * question stays in squeue for MinJobAge (300 s by default).
 */
#include "slurmjob.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "asker.h"
#include "clock.h"
#include "json.h"

#define QUERY_TIMEOUT_MS 10000
#define JOBID_LEN 32
#define ANSWER_LEN 1024 /* a longer line loses its node list */
/* the id of an array answers for all its tasks, a line each: read this
 * much of it at most, and look for the job's own line */
#define REPLY_LEN 16384
#define NFIELDS 13

extern char **environ;

/* Counted for tracer status: calls per job stay at one. */
static atomic_ullong n_calls, n_failed, n_steps;

/* "[D-]HH:MM:SS", "MM:SS", "M" as squeue prints a limit; "UNLIMITED". */
static int parse_duration(const char *s, uint64_t *out)
{
	unsigned long long part[3] = {0, 0, 0}, days = 0;
	int n = 0;
	char *end;

	if (!strncmp(s, "UNLIMITED", 9) || !strncmp(s, "INFINITE", 8)) {
		*out = 0;
		return 0;
	}
	if (strchr(s, '-')) {
		days = strtoull(s, &end, 10);
		if (end == s || *end != '-')
			return -1;
		s = end + 1;
	}
	for (;;) {
		if (n == 3)
			return -1;
		part[n++] = strtoull(s, &end, 10);
		if (end == s)
			return -1;
		if (*end != ':')
			break;
		s = end + 1;
	}
	if (*end && *end != '|')
		return -1;
	if (n == 1) /* minutes */
		*out = days * 86400 + part[0] * 60;
	else if (n == 2) /* minutes:seconds */
		*out = days * 86400 + part[0] * 60 + part[1];
	else
		*out = days * 86400 + part[0] * 3600 + part[1] * 60 + part[2];
	return 0;
}

/* Epoch seconds, or 0 for "N/A", "Unknown", "NONE". */
static uint64_t epoch(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	return (end != s && !*end && isdigit((unsigned char)*s)) ? v : 0;
}

/* A count, or 0 for "N/A". */
static long count(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (end != s && !*end && v >= 0 && v <= max) ? v : 0;
}

/* "400M" as Slurm prints memory (MB when bare; K, M, G, T: 1024s). */
static uint64_t mem_bytes(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = 20;

	if (end == s)
		return 0;
	switch (*end) {
	case 'K': shift = 10; break;
	case 'M': case '\0': shift = 20; break;
	case 'G': shift = 30; break;
	case 'T': shift = 40; break;
	default: return 0;
	}
	return v < (1ULL << (63 - shift)) ? (uint64_t)v << shift : 0;
}

/* "cpu=2,mem=400M,node=2,billing=2,gres/gpu=1": memory and GPUs. */
static void parse_tres(char *s, struct slurmjob_facts *f)
{
	char *save = NULL;

	for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strncmp(t, "mem=", 4))
			f->mem_bytes = mem_bytes(t + 4);
		else if (!strncmp(t, "gres/gpu=", 9))
			f->gpus = (int)count(t + 9, 1 << 24);
	}
}

/* Cut line at '|' into at most NFIELDS trimmed fields; their number. */
static int split(char *line, char *field[NFIELDS])
{
	int n = 0;
	char *p = line;

	while (n < NFIELDS) {
		char *bar = n < NFIELDS - 1 ? strchr(p, '|') : NULL;
		char *e = bar ? bar : p + strlen(p);

		field[n++] = p;
		while (e > p && isspace((unsigned char)e[-1]))
			e--;
		*e = '\0';
		if (!bar)
			break;
		p = bar + 1;
		while (*p == ' ')
			p++;
	}
	return n;
}

static void copy(char *dst, size_t len, const char *src)
{
	if (strlen(src) < len && strcmp(src, "N/A") && strcmp(src, "(null)"))
		memcpy(dst, src, strlen(src) + 1);
}

int slurmjob_parse(const char *line, struct slurmjob_facts *f)
{
	char buf[ANSWER_LEN], *fl[NFIELDS];
	size_t n = strlen(line);
	bool whole = n && line[n - 1] == '\n';

	memset(f, 0, sizeof(*f));
	f->array_task = -1;
	if (n >= sizeof(buf) || strchr(line, '\n') != (whole ? line + n - 1 : NULL))
		return -1; /* one job, one line */
	memcpy(buf, line, n + 1);
	if (split(buf, fl) != NFIELDS || parse_duration(fl[0], &f->limit_s) < 0)
		return -1;
	/* without a limit Slurm still prints an end a year ahead: no deadline */
	f->end_s = f->limit_s ? epoch(fl[1]) : 0;
	copy(f->account, sizeof(f->account), fl[2]);
	copy(f->qos, sizeof(f->qos), fl[3]);
	copy(f->partition, sizeof(f->partition), fl[4]);
	f->submit_s = epoch(fl[5]);
	f->start_s = epoch(fl[6]);
	if (count(fl[8], 1L << 30) || !strcmp(fl[8], "0")) { /* "N/A": not an array */
		copy(f->array_job_id, sizeof(f->array_job_id), fl[7]);
		f->array_task = count(fl[8], 1L << 30);
	}
	f->cpus = (int)count(fl[9], 1 << 24);
	f->nodes = (int)count(fl[10], 1 << 24);
	parse_tres(fl[11], f);
	if (whole && f->start_s)
		copy(f->node_list, sizeof(f->node_list), fl[12]);
	return 0;
}

/* The environment for squeue: ours with SLURM_TIME_FORMAT=%s (epoch
 * seconds), so the answer does not depend on a time zone. */
static char **query_env(void)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "SLURM_TIME_FORMAT=", 18))
			env[k++] = environ[i];
	env[k++] = "SLURM_TIME_FORMAT=%s";
	env[k] = NULL;
	return env;
}

/* Read the child's answer into buf within the deadline: 0, or -1. */
static int read_answer(int fd, char *buf, size_t len, uint64_t deadline_ms)
{
	size_t got = 0;

	for (;;) {
		uint64_t now = clock_mono_ms();
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t r;

		if (now >= deadline_ms)
			return -1;
		if (poll(&p, 1, (int)(deadline_ms - now)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		if (got == len - 1)
			break;
	}
	buf[got] = '\0';
	return 0;
}

int slurmjob_pick(const char *reply, const char *job, struct slurmjob_facts *f)
{
	size_t jl = strlen(job);

	for (const char *l = reply; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t sp = strspn(l + jl, " ");

		if (!strncmp(l, job, jl) && l[jl + sp] == '|') {
			char line[ANSWER_LEN];
			size_t n = nl ? (size_t)(nl + 1 - (l + jl + sp + 1)) : strlen(l + jl + sp + 1);

			if (n >= sizeof(line))
				return -1;
			memcpy(line, l + jl + sp + 1, n);
			line[n] = '\0';
			return slurmjob_parse(line, f);
		}
		l = nl ? nl + 1 : NULL;
	}
	return -1;
}

/* Ask squeue about one job: 0 with the answer, or -1 with why in err. */
static int query(const char *job, struct slurmjob_facts *f, char *err, size_t errlen)
{
	char jobs[64], buf[REPLY_LEN];
	char *argv[] = {"squeue", "--noheader", "--states=all", jobs,
			"--Format=" SLURMJOB_FORMAT, NULL};
	char **env = query_env();
	posix_spawn_file_actions_t fa;
	int fds[2], rc, status = 0, res = -1;
	pid_t pid;

	if (!env || pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "%s", env ? strerror(errno) : "out of memory");
		free(env);
		return -1;
	}
	snprintf(jobs, sizeof(jobs), "--jobs=%s", job);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	rc = posix_spawnp(&pid, "squeue", &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(fds[1]);
	if (rc != 0) {
		snprintf(err, errlen, "cannot run squeue: %s", strerror(rc));
		close(fds[0]);
		return -1;
	}
	if (read_answer(fds[0], buf, sizeof(buf), clock_mono_ms() + QUERY_TIMEOUT_MS) < 0) {
		snprintf(err, errlen, "squeue gave no answer within %d ms", QUERY_TIMEOUT_MS);
		kill(pid, SIGKILL);
	} else if (slurmjob_pick(buf, job, f) < 0) {
		snprintf(err, errlen, "unexpected answer from squeue for job %s", job);
	} else {
		res = 0;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* a reply longer than buf: squeue ends on a closed pipe, our line read */
	if (res == 0 && strlen(buf) < sizeof(buf) - 1 &&
	    !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		snprintf(err, errlen, "squeue failed for job %s", job);
		res = -1;
	}
	return res;
}

/* The asker's question (asker.h): one job's facts. */
static int ask(const char *job, void *value, size_t len, char *err, size_t errlen)
{
	int rc;

	(void)len;
	atomic_fetch_add(&n_calls, 1);
	rc = query(job, value, err, errlen); /* slow: not on the loop */
	if (rc < 0)
		atomic_fetch_add(&n_failed, 1);
	return rc;
}

static struct asker facts = {
	.what = "facts of Slurm job",
	.ask = ask,
	.nslots = 128,
	.value_len = sizeof(struct slurmjob_facts),
};

int slurmjob_start(void)
{
	return asker_start(&facts);
}

void slurmjob_stop(void)
{
	asker_stop(&facts); /* a query in progress ends first: QUERY_TIMEOUT_MS */
}

cJSON *slurmjob_stats_json(void)
{
	cJSON *o = cJSON_CreateObject();

	if (o && (!json_add_u64(o, "squeue_calls", atomic_load(&n_calls)) ||
		  !json_add_u64(o, "squeue_failed", atomic_load(&n_failed)) ||
		  !json_add_u64(o, "steps", atomic_load(&n_steps)))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* In "lo[-hi]" ranges up to ']' (at r), the n-th number: 0 with it in
 * *num and its width (zero padding kept), or -1 with n counted down. */
static int nth_in_ranges(const char **r, long *n, unsigned long *num, int *width)
{
	while (**r != ']') {
		char *e;
		unsigned long lo, hi;

		if (!isdigit((unsigned char)**r))
			return -1;
		lo = hi = strtoul(*r, &e, 10);
		*width = (int)(e - *r);
		if (*e == '-') {
			const char *h = e + 1;

			if (!isdigit((unsigned char)*h))
				return -1;
			hi = strtoul(h, &e, 10);
		}
		if (hi < lo || (*e != ',' && *e != ']'))
			return -1;
		if ((unsigned long)*n <= hi - lo) {
			*num = lo + (unsigned long)*n;
			return 0;
		}
		*n -= (long)(hi - lo + 1);
		*r = e + (*e == ',');
	}
	return -1;
}

int slurmjob_nth_node(const char *list, long n, char *out, size_t len)
{
	const char *p = list;

	while (n >= 0 && *p) {
		size_t pre = strcspn(p, "[,"), suf = 0;
		const char *close = NULL, *r = p + pre + 1;
		unsigned long num = 0;
		int width = 0, w;

		if (p[pre] == '[') {
			if (!(close = strchr(r, ']')))
				return -1;
			suf = strcspn(close + 1, ",");
			if (memchr(close + 1, '[', suf)) /* several dimensions: not read */
				return -1;
			if (nth_in_ranges(&r, &n, &num, &width) == 0) {
				w = snprintf(out, len, "%.*s%0*lu%.*s", (int)pre, p, width, num,
					     (int)suf, close + 1);
				return w > 0 && (size_t)w < len ? 0 : -1;
			}
			if (n < 0 || *r != ']')
				return -1;
			p = close + 1 + suf;
		} else {
			if (n-- == 0) {
				w = snprintf(out, len, "%.*s", (int)pre, p);
				return pre && (size_t)w < len ? 0 : -1;
			}
			p += pre;
		}
		p += *p == ',';
	}
	return -1;
}

static bool is_slurm_job(const struct tracer_identity *id)
{
	return !strcmp(id->scheduler, "slurm") && id->job_id[0] &&
	       strlen(id->job_id) < JOBID_LEN &&
	       strspn(id->job_id, "0123456789") == strlen(id->job_id);
}

void slurmjob_want(const struct tracer_identity *id)
{
	struct slurmjob_facts f;

	if (!is_slurm_job(id))
		return;
	atomic_fetch_add(&n_steps, 1);
	/* one question per job: a later step reads the same answer (a time
	 * limit changed by `scontrol update` meanwhile is not seen) */
	if (!asker_get(&facts, id->job_id, &f))
		asker_want(&facts, id->job_id); /* no-op while queued or asked */
}

/*
 * This node's Slurm name, from Slurm's own S_JOB_NODEID (the node's index
 * in the step) and the job's node list: the batch step runs on the job's
 * first node, and a step over all of the job's nodes has them in the list's
 * order.  A step on part of them: not known (its node list is not asked).
 */
static void fill_node_name(struct tracer_identity *id, const struct slurmjob_facts *f)
{
	long idx = -1;

	if (id->node_name[0] || !f->node_list[0])
		return;
	if (!strcmp(id->step_id, "batch"))
		idx = 0;
	else if (id->node_id >= 0 && id->node_count == f->nodes)
		idx = id->node_id;
	if (idx >= 0 && slurmjob_nth_node(f->node_list, idx, id->node_name,
					  sizeof(id->node_name)) < 0)
		id->node_name[0] = '\0';
}

static void set_str(char *dst, size_t len, const char *src)
{
	if (!dst[0] && src[0])
		snprintf(dst, len, "%s", src);
}

void slurmjob_fill(struct tracer_identity *id)
{
	struct slurmjob_facts f;

	if (!is_slurm_job(id) || !asker_get(&facts, id->job_id, &f))
		return;
	if (!id->alloc.time_limit_s) {
		id->alloc.time_limit_s = f.limit_s;
		id->alloc.deadline_s = f.end_s;
	}
	set_str(id->account, sizeof(id->account), f.account);
	set_str(id->qos, sizeof(id->qos), f.qos);
	set_str(id->queue, sizeof(id->queue), f.partition);
	set_str(id->node_list, sizeof(id->node_list), f.node_list);
	fill_node_name(id, &f);
	if (id->array_index < 0 && f.array_task >= 0) {
		snprintf(id->array_job_id, sizeof(id->array_job_id), "%s", f.array_job_id);
		id->array_index = f.array_task;
	}
	if (!id->submit_ns && f.submit_s)
		id->submit_ns = f.submit_s * NS_PER_SEC;
	if (!id->job_start_ns && f.start_s)
		id->job_start_ns = f.start_s * NS_PER_SEC;
	if (!id->alloc.nodes && f.start_s)
		id->alloc.nodes = f.nodes;
	id->req = (struct client_request){.cpus = f.cpus, .mem_bytes = f.mem_bytes,
					  .gpus = f.gpus, .nodes = f.nodes,
					  .time_limit_s = f.limit_s};
}
