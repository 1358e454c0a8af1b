/*
 * gpu_nvml.c - the NVML thread (gpu_nvml.h).
 *
 * The thread opens libnvidia-ml.so.1 (or TRACERD_TEST_NVML_LIB, a test
 * double) and lists the devices (gpu_probe.c), then every sample_interval_ms lists the
 * processes running on each GPU with their memory and utilisation, and
 * answers the loop's questions: a process's accounting record at its exit
 * (the driver keeps it when accounting mode is on), the energy counters
 * at a job's start and end.  The shared state is under one mutex that the
 * thread never holds across an NVML call, so the loop takes it only for
 * a copy.  Each call is named in `in_call` while it runs: one that does
 * not return is reported as hung by `tracer status`.
 */
#include "gpu_nvml.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "defaults.h"
#include "json.h"
#include "log.h"
#include "gpu_nvml_priv.h"
#include "threads.h"

#define BATCH_MAX 128         /* questions per round */
#define ACCT_PIDS_MAX 4096    /* the driver's accounting buffer holds 4000 */
#define RECENT_MAX 512        /* pids seen running lately: worth a retry */
#define RETRIES 3
#define RETRY_MS 200
#define STOP_WAIT_MS 1000

struct gpu_nvml_fns gpu_nvml_fn;
struct gpu_nvml_state gpu_nvml_st = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.ended = PTHREAD_COND_INITIALIZER,
};

/* the thread's own */
static unsigned acct_pids[GPU_MAX_DEVICES][ACCT_PIDS_MAX];
static unsigned nacct_pids[GPU_MAX_DEVICES];
static pid_t recent[RECENT_MAX];
static size_t recent_pos;
static struct gpu_snapshot work_snap;
static nvmlProcessInfo_t infos[GPU_SEEN_MAX];
static nvmlProcessUtilizationSample_t usamples[GPU_SEEN_MAX];
static unsigned long long last_util_us[GPU_MAX_DEVICES];

static bool was_running(pid_t pid)
{
	for (size_t i = 0; i < RECENT_MAX; i++)
		if (recent[i] == pid)
			return true;
	return false;
}

static void note_running(pid_t pid)
{
	if (!was_running(pid))
		recent[recent_pos++ % RECENT_MAX] = pid;
}

/* Running processes of every device, their memory and utilisation. */
static void sample(uint64_t interval_ms)
{
	work_snap.n = 0;
	work_snap.interval_ms = interval_ms;
	work_snap.taken_ns = clock_mono_ns();
	for (int d = 0; d < gpu_nvml_st.ndev; d++) {
		unsigned n = GPU_SEEN_MAX, nu = GPU_SEEN_MAX;
		unsigned long long since = last_util_us[d];

		if (CALL("nvmlDeviceGetComputeRunningProcesses", gpu_nvml_fn.procs(gpu_nvml_st.handle[d], &n, infos)) !=
		    NVML_SUCCESS) {
			gpu_nvml_st.sample_errors++;
			continue;
		}
		if (CALL("nvmlDeviceGetProcessUtilization",
			 gpu_nvml_fn.proc_util(gpu_nvml_st.handle[d], usamples, &nu, since)) != NVML_SUCCESS)
			nu = 0; /* none since the last call, or not supported */
		for (unsigned i = 0; i < n && work_snap.n < GPU_SEEN_MAX; i++) {
			struct gpu_seen *s = &work_snap.seen[work_snap.n++];

			s->pid = (pid_t)infos[i].pid;
			s->dev = d;
			s->mem = infos[i].usedGpuMemory == ~0ull ? 0 : infos[i].usedGpuMemory;
			s->sm_util = 0;
			for (unsigned k = 0; k < nu && k < GPU_SEEN_MAX; k++)
				if (usamples[k].pid == infos[i].pid && usamples[k].smUtil > s->sm_util)
					s->sm_util = usamples[k].smUtil;
			note_running(s->pid);
		}
		for (unsigned k = 0; k < nu && k < GPU_SEEN_MAX; k++)
			if (usamples[k].timeStamp > last_util_us[d])
				last_util_us[d] = usamples[k].timeStamp;
	}
	pthread_mutex_lock(&gpu_nvml_st.lock);
	work_snap.seq = gpu_nvml_st.snap.seq + 1;
	gpu_nvml_st.snap = work_snap;
	gpu_nvml_st.samples++;
	pthread_mutex_unlock(&gpu_nvml_st.lock);
}

static void put_answer(const struct gpu_answer *a)
{
	pthread_mutex_lock(&gpu_nvml_st.lock);
	if (gpu_nvml_st.nanswers < ANSWER_MAX) {
		gpu_nvml_st.answers[(gpu_nvml_st.answer_head + gpu_nvml_st.nanswers) % ANSWER_MAX] = *a;
		gpu_nvml_st.nanswers++;
		gpu_nvml_st.answered++;
	}
	pthread_mutex_unlock(&gpu_nvml_st.lock);
}

static void answer_energy(const struct gpu_ask *q)
{
	static struct gpu_answer a;

	memset(&a, 0, sizeof(a));
	a.ask = *q;
	for (int d = 0; d < gpu_nvml_st.ndev; d++) {
		unsigned long long mj = 0;

		if (CALL("nvmlDeviceGetTotalEnergyConsumption", gpu_nvml_fn.energy(gpu_nvml_st.handle[d], &mj)) ==
		    NVML_SUCCESS) {
			a.energy_mj[d] = mj;
			a.energy_ok |= 1u << d;
		}
	}
	put_answer(&a);
}

static void read_acct_pids(void)
{
	for (int d = 0; d < gpu_nvml_st.ndev; d++) {
		unsigned n = ACCT_PIDS_MAX;

		nacct_pids[d] = 0;
		if (gpu_nvml_st.dev[d].accounting &&
		    CALL("nvmlDeviceGetAccountingPids", gpu_nvml_fn.acct_pids(gpu_nvml_st.handle[d], &n, acct_pids[d])) ==
			    NVML_SUCCESS)
			nacct_pids[d] = n < ACCT_PIDS_MAX ? n : ACCT_PIDS_MAX;
	}
}

/* The accounting records of q's process: true when answered (found, or
 * never on a GPU), false to ask again later. */
static bool answer_exit(const struct gpu_ask *q, int tries)
{
	static struct gpu_answer a;

	memset(&a, 0, sizeof(a));
	a.ask = *q;
	for (int d = 0; d < gpu_nvml_st.ndev && a.n < GPU_ANSWER_DEVS; d++) {
		/* zeroed: a driver (or an older one) may leave fields unset */
		nvmlAccountingStats_t st = {0};
		bool listed = false;

		for (unsigned i = 0; i < nacct_pids[d] && !listed; i++)
			listed = acct_pids[d][i] == (unsigned)q->pid;
		if (!listed ||
		    CALL("nvmlDeviceGetAccountingStats", gpu_nvml_fn.acct_stats(gpu_nvml_st.handle[d], (unsigned)q->pid, &st)) !=
			    NVML_SUCCESS)
			continue;
		/* a record of an earlier process with the same pid */
		if (q->start_us && st.startTime && st.startTime + 1000000ull < q->start_us)
			continue;
		a.acct[a.n++] = (struct gpu_acct){d, st.maxMemoryUsage, st.time, st.gpuUtilization,
						 st.memoryUtilization};
	}
	/* seen on a GPU but no record yet: the driver may still be writing it */
	if (!a.n && tries < RETRIES && was_running(q->pid))
		return false;
	put_answer(&a);
	return true;
}

/* One round of questions; the ones to ask again stay in retry. */
static void answer_questions(struct gpu_ask *retry, int *retry_tries, size_t *nretry)
{
	static struct gpu_ask batch[BATCH_MAX];
	static int tries[BATCH_MAX];
	size_t n = 0, keep = 0;

	for (size_t i = 0; i < *nretry; i++) {
		batch[n] = retry[i];
		tries[n++] = retry_tries[i];
	}
	pthread_mutex_lock(&gpu_nvml_st.lock);
	while (gpu_nvml_st.nasks && n < BATCH_MAX && gpu_nvml_st.nanswers + n < ANSWER_MAX) {
		batch[n] = gpu_nvml_st.asks_q[gpu_nvml_st.ask_head];
		tries[n++] = 0;
		gpu_nvml_st.ask_head = (gpu_nvml_st.ask_head + 1) % ASK_MAX;
		gpu_nvml_st.nasks--;
	}
	pthread_mutex_unlock(&gpu_nvml_st.lock);
	if (!n) {
		*nretry = 0;
		return;
	}
	read_acct_pids();
	for (size_t i = 0; i < n; i++) {
		if (batch[i].kind != GPU_ASK_EXIT)
			answer_energy(&batch[i]);
		else if (!answer_exit(&batch[i], tries[i])) {
			retry[keep] = batch[i];
			retry_tries[keep++] = tries[i] + 1;
		}
	}
	*nretry = keep;
}

static void *nvml_thread(void *arg)
{
	static struct gpu_ask retry[BATCH_MAX];
	static int retry_tries[BATCH_MAX];
	size_t nretry = 0;
	uint64_t last_sample = 0;

	(void)arg;
	if (gpu_probe_open() == 0) {
		pthread_mutex_lock(&gpu_nvml_st.lock);
		while (!gpu_nvml_st.stopping) {
			uint64_t now = clock_mono_ns(), due = last_sample + gpu_nvml_st.interval_ms * 1000000ull;
			struct timespec ts;

			if (!gpu_nvml_st.nasks && now < due) {
				uint64_t wait = nretry ? RETRY_MS * 1000000ull : due - now;
				clock_gettime(CLOCK_MONOTONIC, &ts);
				ts.tv_sec += (time_t)(wait / 1000000000ull);
				ts.tv_nsec += (long)(wait % 1000000000ull);
				if (ts.tv_nsec >= 1000000000L) {
					ts.tv_sec++;
					ts.tv_nsec -= 1000000000L;
				}
				pthread_cond_timedwait(&gpu_nvml_st.work, &gpu_nvml_st.lock, &ts);
				if (gpu_nvml_st.stopping)
					break;
			}
			pthread_mutex_unlock(&gpu_nvml_st.lock);
			answer_questions(retry, retry_tries, &nretry);
			now = clock_mono_ns();
			if (now >= last_sample + gpu_nvml_st.interval_ms * 1000000ull) {
				sample(last_sample ? (now - last_sample) / 1000000ull : gpu_nvml_st.interval_ms);
				last_sample = now;
			}
			pthread_mutex_lock(&gpu_nvml_st.lock);
		}
		pthread_mutex_unlock(&gpu_nvml_st.lock);
	}
	pthread_mutex_lock(&gpu_nvml_st.lock);
	gpu_nvml_st.thread_done = true;
	pthread_cond_broadcast(&gpu_nvml_st.ended);
	pthread_mutex_unlock(&gpu_nvml_st.lock);
	return NULL;
}

int gpu_nvml_start(const struct tracer_config *cfg)
{
	const char *lib = getenv("TRACERD_TEST_NVML_LIB");
	pthread_condattr_t ca;
	int rc;

	snprintf(gpu_nvml_st.lib, sizeof(gpu_nvml_st.lib), "%s", lib && lib[0] ? lib : TRACER_NVML_LIB);
	gpu_nvml_st.enable_accounting = !strcmp(cfg->gpu_accounting, "enable");
	gpu_nvml_st.interval_ms = (uint64_t)cfg->sample_interval_ms;
	gpu_nvml_st.state = ST_STARTING;
	/* the thread's waits are on the monotonic clock (a clock step must
	 * neither spin it nor stop it) */
	if ((rc = pthread_condattr_init(&ca)) != 0 ||
	    (rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC)) != 0 ||
	    (rc = pthread_cond_init(&gpu_nvml_st.work, &ca)) != 0) {
		log_warn("gpu thread: condition variable: %s: GPUs not followed", strerror(rc));
		gpu_probe_set_state(ST_FAILED, "condition variable: %s", strerror(rc));
		return -1;
	}
	pthread_condattr_destroy(&ca);
	/* as root: turning accounting on needs it, and so may the records
	 * of other users' processes */
	rc = threads_start(&gpu_nvml_st.thread, nvml_thread, NULL);
	if (rc != 0) {
		log_warn("gpu thread: %s: GPUs not followed", strerror(rc));
		gpu_probe_set_state(ST_FAILED, "thread: %s", strerror(rc));
		return -1;
	}
	gpu_nvml_st.running = true;
	return 0;
}

void gpu_nvml_stop(void)
{
	struct timespec ts;
	bool done;

	if (!gpu_nvml_st.running)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += STOP_WAIT_MS / 1000;
	pthread_mutex_lock(&gpu_nvml_st.lock);
	gpu_nvml_st.stopping = true;
	pthread_cond_signal(&gpu_nvml_st.work);
	while (!gpu_nvml_st.thread_done && pthread_cond_timedwait(&gpu_nvml_st.ended, &gpu_nvml_st.lock, &ts) == 0)
		;
	done = gpu_nvml_st.thread_done;
	pthread_mutex_unlock(&gpu_nvml_st.lock);
	if (done)
		pthread_join(gpu_nvml_st.thread, NULL);
	else /* in the driver: it ends with the process */
		log_warn("gpu thread: NVML call %s does not return; left behind",
			 atomic_load(&gpu_nvml_st.in_call) ? atomic_load(&gpu_nvml_st.in_call) : "?");
	gpu_nvml_st.running = false;
}

int gpu_nvml_devices(struct gpu_device *out, int max)
{
	int n;

	pthread_mutex_lock(&gpu_nvml_st.lock);
	n = gpu_nvml_st.state == ST_READY ? (gpu_nvml_st.ndev < max ? gpu_nvml_st.ndev : max) : 0;
	if (n)
		memcpy(out, gpu_nvml_st.dev, (size_t)n * sizeof(*out));
	pthread_mutex_unlock(&gpu_nvml_st.lock);
	return n;
}

bool gpu_nvml_ready(void)
{
	bool r;

	pthread_mutex_lock(&gpu_nvml_st.lock);
	r = gpu_nvml_st.state == ST_READY && gpu_nvml_st.ndev > 0;
	pthread_mutex_unlock(&gpu_nvml_st.lock);
	return r;
}

bool gpu_nvml_accounting(void)
{
	bool all;

	pthread_mutex_lock(&gpu_nvml_st.lock);
	all = gpu_nvml_st.state == ST_READY && gpu_nvml_st.ndev > 0;
	for (int d = 0; d < gpu_nvml_st.ndev; d++)
		all = all && gpu_nvml_st.dev[d].accounting;
	pthread_mutex_unlock(&gpu_nvml_st.lock);
	return all;
}

bool gpu_nvml_ask(const struct gpu_ask *a)
{
	bool ok;

	pthread_mutex_lock(&gpu_nvml_st.lock);
	ok = gpu_nvml_st.state == ST_READY && gpu_nvml_st.ndev > 0 && gpu_nvml_st.nasks < ASK_MAX;
	if (ok) {
		gpu_nvml_st.asks_q[(gpu_nvml_st.ask_head + gpu_nvml_st.nasks) % ASK_MAX] = *a;
		gpu_nvml_st.nasks++;
		gpu_nvml_st.asks++;
		pthread_cond_signal(&gpu_nvml_st.work);
	} else if (gpu_nvml_st.state == ST_READY) {
		gpu_nvml_st.asks_dropped++;
	}
	pthread_mutex_unlock(&gpu_nvml_st.lock);
	return ok;
}

size_t gpu_nvml_answers(struct gpu_answer *out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&gpu_nvml_st.lock);
	while (gpu_nvml_st.nanswers && n < max) {
		out[n++] = gpu_nvml_st.answers[gpu_nvml_st.answer_head];
		gpu_nvml_st.answer_head = (gpu_nvml_st.answer_head + 1) % ANSWER_MAX;
		gpu_nvml_st.nanswers--;
	}
	if (n)
		pthread_cond_signal(&gpu_nvml_st.work); /* room for the questions waiting */
	pthread_mutex_unlock(&gpu_nvml_st.lock);
	return n;
}

bool gpu_nvml_snapshot(struct gpu_snapshot *out, uint64_t seq)
{
	bool newer;

	pthread_mutex_lock(&gpu_nvml_st.lock);
	newer = gpu_nvml_st.snap.seq > seq;
	if (newer) {
		out->seq = gpu_nvml_st.snap.seq;
		out->interval_ms = gpu_nvml_st.snap.interval_ms;
		out->taken_ns = gpu_nvml_st.snap.taken_ns;
		out->n = gpu_nvml_st.snap.n;
		memcpy(out->seen, gpu_nvml_st.snap.seen, gpu_nvml_st.snap.n * sizeof(out->seen[0]));
	}
	pthread_mutex_unlock(&gpu_nvml_st.lock);
	return newer;
}

cJSON *gpu_nvml_status_json(void)
{
	static const char *const states[] = {"starting", "no_library", "failed", "ready"};
	cJSON *o = cJSON_CreateObject(), *arr;
	const char *call = atomic_load(&gpu_nvml_st.in_call);
	uint64_t since = atomic_load(&gpu_nvml_st.call_since_ns), now = clock_mono_ns();
	int accounting = 0;

	if (!o)
		return NULL;
	pthread_mutex_lock(&gpu_nvml_st.lock);
	json_add_str(o, "state", states[gpu_nvml_st.state]);
	json_add_str(o, "library", gpu_nvml_st.lib);
	if (gpu_nvml_st.error[0])
		json_add_str(o, "error", gpu_nvml_st.error);
	if (gpu_nvml_st.driver[0])
		json_add_str(o, "driver", gpu_nvml_st.driver);
	arr = cJSON_AddArrayToObject(o, "devices");
	for (int d = 0; arr && d < gpu_nvml_st.ndev; d++) {
		cJSON *e = cJSON_CreateObject();

		if (!e)
			break;
		cJSON_AddNumberToObject(e, "index", gpu_nvml_st.dev[d].index);
		json_add_str(e, "uuid", gpu_nvml_st.dev[d].uuid);
		json_add_str(e, "name", gpu_nvml_st.dev[d].name);
		json_add_u64(e, "memory_bytes", gpu_nvml_st.dev[d].memory_bytes);
		cJSON_AddBoolToObject(e, "accounting", gpu_nvml_st.dev[d].accounting);
		if (gpu_nvml_st.dev[d].mig_gi >= 0)
			cJSON_AddNumberToObject(e, "mig_gpu_instance", gpu_nvml_st.dev[d].mig_gi);
		cJSON_AddItemToArray(arr, e);
		accounting += gpu_nvml_st.dev[d].accounting;
	}
	json_add_str(o, "counting", gpu_nvml_st.state != ST_READY || !gpu_nvml_st.ndev ? "none"
				    : accounting == gpu_nvml_st.ndev ? "accounting" : "sampled");
	cJSON_AddBoolToObject(o, "accounting_enable", gpu_nvml_st.enable_accounting);
	json_add_u64(o, "samples", gpu_nvml_st.samples);
	json_add_u64(o, "sample_errors", gpu_nvml_st.sample_errors);
	json_add_u64(o, "questions", gpu_nvml_st.asks);
	json_add_u64(o, "questions_dropped", gpu_nvml_st.asks_dropped);
	json_add_u64(o, "answers", gpu_nvml_st.answered);
	json_add_u64(o, "sample_interval_ms", gpu_nvml_st.interval_ms);
	pthread_mutex_unlock(&gpu_nvml_st.lock);
	if (call && now - since >= TRACER_GPU_HUNG_MS * 1000000ull) {
		json_add_str(o, "hung_call", call);
		json_add_secs(o, "hung_s", now - since);
	}
	return o;
}
