/*
 * gpu_nvml.c - the NVML thread (gpu_nvml.h).
 *
 * The thread opens libnvidia-ml.so.1 (or TRACERD_TEST_NVML_LIB, a test
 * double), lists the devices, then every sample_interval_ms lists the
 * processes running on each GPU with their memory and utilisation, and
 * answers the loop's questions: a process's accounting record at its exit
 * (the driver keeps it when accounting mode is on), the energy counters
 * at a job's start and end.  The shared state is under one mutex that the
 * thread never holds across an NVML call, so the loop takes it only for
 * a copy.  Each call is named in `in_call` while it runs: one that does
 * not return is reported as hung by `tracer status`.
 */
#include "gpu_nvml.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "defaults.h"
#include "jsonutil.h"
#include "log.h"
#include "nvml_abi.h"
#include "threads.h"

#define ASK_MAX 2048          /* questions queued */
#define ANSWER_MAX 256        /* answers not yet taken */
#define BATCH_MAX 128         /* questions per round */
#define ACCT_PIDS_MAX 4096    /* the driver's accounting buffer holds 4000 */
#define RECENT_MAX 512        /* pids seen running lately: worth a retry */
#define RETRIES 3
#define RETRY_MS 200
#define STOP_WAIT_MS 1000

enum state { ST_STARTING, ST_NO_LIBRARY, ST_FAILED, ST_READY };

static struct {
	nvml_init_fn init;
	nvml_error_string_fn error_string;
	nvml_driver_version_fn driver_version;
	nvml_count_fn count;
	nvml_handle_fn handle;
	nvml_str_fn uuid, name;
	nvml_memory_fn memory;
	nvml_uint_fn minor, gi_id, ci_id, mig_count;
	nvml_get_mode_fn get_acct;
	nvml_set_mode_fn set_acct;
	nvml_acct_pids_fn acct_pids;
	nvml_acct_stats_fn acct_stats;
	nvml_procs_fn procs;
	nvml_proc_util_fn proc_util;
	nvml_energy_fn energy;
	nvml_mig_mode_fn mig_mode;
	nvml_mig_handle_fn mig_handle;
} fn;

static struct nvml_state {
	pthread_mutex_t lock;
	pthread_cond_t work, ended;
	pthread_t thread;
	bool running, stopping, thread_done;
	bool enable_accounting;
	uint64_t interval_ms;
	char lib[256];
	/* published by the thread */
	enum state state;
	char error[256], driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	int ndev;
	struct gpu_device dev[GPU_MAX_DEVICES];
	nvmlDevice_t handle[GPU_MAX_DEVICES];
	struct gpu_snapshot snap;
	uint64_t samples, asks, asks_dropped, answered, sample_errors;
	/* the loop's questions and the thread's answers: rings */
	struct gpu_ask asks_q[ASK_MAX];
	size_t ask_head, nasks;
	struct gpu_answer answers[ANSWER_MAX];
	size_t answer_head, nanswers;
	/* the call in progress (status reads it without the lock) */
	_Atomic(const char *) in_call;
	_Atomic uint64_t call_since_ns;
} S = {
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

/* Every NVML call goes through here: named while it runs. */
#define CALL(name, expr)                                                     \
	({                                                                   \
		atomic_store(&S.call_since_ns, clock_mono_ns());             \
		atomic_store(&S.in_call, name);                              \
		nvmlReturn_t _r = (expr);                                    \
		atomic_store(&S.in_call, (const char *)NULL);                \
		_r;                                                          \
	})

static const char *errstr(nvmlReturn_t r)
{
	const char *s = fn.error_string ? fn.error_string(r) : NULL;

	return s ? s : "unknown NVML error";
}

static void set_state(enum state st, const char *fmt, const char *arg)
{
	pthread_mutex_lock(&S.lock);
	S.state = st;
	snprintf(S.error, sizeof(S.error), fmt, arg ? arg : "");
	pthread_mutex_unlock(&S.lock);
}

/* dlopen and dlsym: 0, or -1 with the state set */
static int load(void)
{
	void *h = dlopen(S.lib, RTLD_NOW | RTLD_LOCAL);
	struct { const char *name; void **slot; } syms[] = {
		{"nvmlInit_v2", (void **)&fn.init},
		{"nvmlErrorString", (void **)&fn.error_string},
		{"nvmlSystemGetDriverVersion", (void **)&fn.driver_version},
		{"nvmlDeviceGetCount_v2", (void **)&fn.count},
		{"nvmlDeviceGetHandleByIndex_v2", (void **)&fn.handle},
		{"nvmlDeviceGetUUID", (void **)&fn.uuid},
		{"nvmlDeviceGetName", (void **)&fn.name},
		{"nvmlDeviceGetMemoryInfo", (void **)&fn.memory},
		{"nvmlDeviceGetMinorNumber", (void **)&fn.minor},
		{"nvmlDeviceGetAccountingMode", (void **)&fn.get_acct},
		{"nvmlDeviceSetAccountingMode", (void **)&fn.set_acct},
		{"nvmlDeviceGetAccountingPids", (void **)&fn.acct_pids},
		{"nvmlDeviceGetAccountingStats", (void **)&fn.acct_stats},
		{"nvmlDeviceGetComputeRunningProcesses_v3", (void **)&fn.procs},
		{"nvmlDeviceGetProcessUtilization", (void **)&fn.proc_util},
		{"nvmlDeviceGetTotalEnergyConsumption", (void **)&fn.energy},
	};

	if (!h) {
		const char *e = dlerror();
		set_state(ST_NO_LIBRARY, "%s", e ? e : S.lib);
		return -1;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		*syms[i].slot = dlsym(h, syms[i].name);
		if (!*syms[i].slot) {
			set_state(ST_FAILED, "NVML has no %s (driver older than 450?)", syms[i].name);
			return -1;
		}
	}
	/* MIG: optional (drivers before 450.80, GPUs without MIG) */
	fn.mig_mode = (nvml_mig_mode_fn)dlsym(h, "nvmlDeviceGetMigMode");
	fn.mig_count = (nvml_uint_fn)dlsym(h, "nvmlDeviceGetMaxMigDeviceCount");
	fn.mig_handle = (nvml_mig_handle_fn)dlsym(h, "nvmlDeviceGetMigDeviceHandleByIndex");
	fn.gi_id = (nvml_uint_fn)dlsym(h, "nvmlDeviceGetGpuInstanceId");
	fn.ci_id = (nvml_uint_fn)dlsym(h, "nvmlDeviceGetComputeInstanceId");
	return 0;
}

/* Fill d from handle h; false when the device does not answer. */
static bool describe(nvmlDevice_t h, int index, struct gpu_device *d)
{
	nvmlMemory_t mem;
	nvmlEnableState_t acct = NVML_FEATURE_DISABLED;

	memset(d, 0, sizeof(*d));
	d->index = index;
	d->mig_gi = d->mig_ci = -1;
	if (CALL("nvmlDeviceGetUUID", fn.uuid(h, d->uuid, sizeof(d->uuid))) != NVML_SUCCESS)
		return false;
	if (CALL("nvmlDeviceGetName", fn.name(h, d->name, sizeof(d->name))) != NVML_SUCCESS)
		snprintf(d->name, sizeof(d->name), "NVIDIA GPU");
	if (CALL("nvmlDeviceGetMemoryInfo", fn.memory(h, &mem)) == NVML_SUCCESS)
		d->memory_bytes = mem.total;
	if (CALL("nvmlDeviceGetMinorNumber", fn.minor(h, &d->minor)) != NVML_SUCCESS)
		d->minor = (unsigned)index;
	if (CALL("nvmlDeviceGetAccountingMode", fn.get_acct(h, &acct)) == NVML_SUCCESS)
		d->accounting = acct == NVML_FEATURE_ENABLED;
	return true;
}

/* the list being made, published once complete */
static struct gpu_device found[GPU_MAX_DEVICES];
static int nfound;

static void add_device(nvmlDevice_t h, const struct gpu_device *d)
{
	if (nfound >= GPU_MAX_DEVICES)
		return;
	S.handle[nfound] = h;
	found[nfound++] = *d;
}

/* The MIG devices of GPU h when MIG is on: true when it has some. */
static bool add_mig(nvmlDevice_t h, const struct gpu_device *parent)
{
	unsigned cur = 0, pend = 0, max = 0;
	bool any = false;

	if (!fn.mig_mode || !fn.mig_count || !fn.mig_handle ||
	    CALL("nvmlDeviceGetMigMode", fn.mig_mode(h, &cur, &pend)) != NVML_SUCCESS || cur != 1 ||
	    CALL("nvmlDeviceGetMaxMigDeviceCount", fn.mig_count(h, &max)) != NVML_SUCCESS)
		return false;
	for (unsigned i = 0; i < max; i++) {
		nvmlDevice_t m;
		struct gpu_device d;
		unsigned gi = 0, ci = 0;

		if (CALL("nvmlDeviceGetMigDeviceHandleByIndex", fn.mig_handle(h, i, &m)) != NVML_SUCCESS ||
		    !describe(m, parent->index, &d))
			continue;
		if (fn.gi_id && CALL("nvmlDeviceGetGpuInstanceId", fn.gi_id(m, &gi)) == NVML_SUCCESS)
			d.mig_gi = (int)gi;
		if (fn.ci_id && CALL("nvmlDeviceGetComputeInstanceId", fn.ci_id(m, &ci)) == NVML_SUCCESS)
			d.mig_ci = (int)ci;
		if (d.mig_gi < 0)
			d.mig_gi = (int)i;
		d.minor = parent->minor;
		d.accounting = false; /* the driver keeps no records per MIG instance */
		add_device(m, &d);
		any = true;
	}
	return any;
}

/* nvmlInit and the device list: 0, or -1 with the state set */
static int discover(void)
{
	unsigned n = 0;
	nvmlReturn_t r = CALL("nvmlInit_v2", fn.init());

	if (r != NVML_SUCCESS) {
		set_state(ST_FAILED, "nvmlInit: %s", errstr(r));
		return -1;
	}
	CALL("nvmlSystemGetDriverVersion", fn.driver_version(S.driver, sizeof(S.driver)));
	if ((r = CALL("nvmlDeviceGetCount", fn.count(&n))) != NVML_SUCCESS) {
		set_state(ST_FAILED, "nvmlDeviceGetCount: %s", errstr(r));
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		nvmlDevice_t h;
		struct gpu_device d;

		if (CALL("nvmlDeviceGetHandleByIndex", fn.handle(i, &h)) != NVML_SUCCESS ||
		    !describe(h, (int)i, &d))
			continue;
		if (S.enable_accounting && !d.accounting) {
			r = CALL("nvmlDeviceSetAccountingMode", fn.set_acct(h, NVML_FEATURE_ENABLED));
			if (r == NVML_SUCCESS)
				describe(h, (int)i, &d);
			else
				log_warn("gpu %u: cannot turn accounting on: %s", i, errstr(r));
		}
		if (!add_mig(h, &d))
			add_device(h, &d);
	}
	pthread_mutex_lock(&S.lock);
	memcpy(S.dev, found, sizeof(found));
	S.ndev = nfound;
	S.state = ST_READY;
	pthread_mutex_unlock(&S.lock);
	log_info("gpu: NVML %s, %d device(s)", S.driver, S.ndev);
	return 0;
}

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
	for (int d = 0; d < S.ndev; d++) {
		unsigned n = GPU_SEEN_MAX, nu = GPU_SEEN_MAX;
		unsigned long long since = last_util_us[d];

		if (CALL("nvmlDeviceGetComputeRunningProcesses", fn.procs(S.handle[d], &n, infos)) !=
		    NVML_SUCCESS) {
			S.sample_errors++;
			continue;
		}
		if (CALL("nvmlDeviceGetProcessUtilization",
			 fn.proc_util(S.handle[d], usamples, &nu, since)) != NVML_SUCCESS)
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
	pthread_mutex_lock(&S.lock);
	work_snap.seq = S.snap.seq + 1;
	S.snap = work_snap;
	S.samples++;
	pthread_mutex_unlock(&S.lock);
}

static void put_answer(const struct gpu_answer *a)
{
	pthread_mutex_lock(&S.lock);
	if (S.nanswers < ANSWER_MAX) {
		S.answers[(S.answer_head + S.nanswers) % ANSWER_MAX] = *a;
		S.nanswers++;
		S.answered++;
	}
	pthread_mutex_unlock(&S.lock);
}

static void answer_energy(const struct gpu_ask *q)
{
	static struct gpu_answer a;

	memset(&a, 0, sizeof(a));
	a.ask = *q;
	for (int d = 0; d < S.ndev; d++) {
		unsigned long long mj = 0;

		if (CALL("nvmlDeviceGetTotalEnergyConsumption", fn.energy(S.handle[d], &mj)) ==
		    NVML_SUCCESS) {
			a.energy_mj[d] = mj;
			a.energy_ok |= 1u << d;
		}
	}
	put_answer(&a);
}

static void read_acct_pids(void)
{
	for (int d = 0; d < S.ndev; d++) {
		unsigned n = ACCT_PIDS_MAX;

		nacct_pids[d] = 0;
		if (S.dev[d].accounting &&
		    CALL("nvmlDeviceGetAccountingPids", fn.acct_pids(S.handle[d], &n, acct_pids[d])) ==
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
	for (int d = 0; d < S.ndev && a.n < GPU_ANSWER_DEVS; d++) {
		nvmlAccountingStats_t st;
		bool listed = false;

		for (unsigned i = 0; i < nacct_pids[d] && !listed; i++)
			listed = acct_pids[d][i] == (unsigned)q->pid;
		if (!listed ||
		    CALL("nvmlDeviceGetAccountingStats", fn.acct_stats(S.handle[d], (unsigned)q->pid, &st)) !=
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
	pthread_mutex_lock(&S.lock);
	while (S.nasks && n < BATCH_MAX && S.nanswers + n < ANSWER_MAX) {
		batch[n] = S.asks_q[S.ask_head];
		tries[n++] = 0;
		S.ask_head = (S.ask_head + 1) % ASK_MAX;
		S.nasks--;
	}
	pthread_mutex_unlock(&S.lock);
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
	if (load() == 0 && discover() == 0) {
		pthread_mutex_lock(&S.lock);
		while (!S.stopping) {
			uint64_t now = clock_mono_ns(), due = last_sample + S.interval_ms * 1000000ull;
			struct timespec ts;

			if (!S.nasks && now < due) {
				uint64_t wait = nretry ? RETRY_MS * 1000000ull : due - now;
				clock_gettime(CLOCK_MONOTONIC, &ts);
				ts.tv_sec += (time_t)(wait / 1000000000ull);
				ts.tv_nsec += (long)(wait % 1000000000ull);
				if (ts.tv_nsec >= 1000000000L) {
					ts.tv_sec++;
					ts.tv_nsec -= 1000000000L;
				}
				pthread_cond_timedwait(&S.work, &S.lock, &ts);
				if (S.stopping)
					break;
			}
			pthread_mutex_unlock(&S.lock);
			answer_questions(retry, retry_tries, &nretry);
			now = clock_mono_ns();
			if (now >= last_sample + S.interval_ms * 1000000ull) {
				sample(last_sample ? (now - last_sample) / 1000000ull : S.interval_ms);
				last_sample = now;
			}
			pthread_mutex_lock(&S.lock);
		}
		pthread_mutex_unlock(&S.lock);
	}
	pthread_mutex_lock(&S.lock);
	S.thread_done = true;
	pthread_cond_broadcast(&S.ended);
	pthread_mutex_unlock(&S.lock);
	return NULL;
}

int gpu_nvml_start(const struct tracer_config *cfg)
{
	const char *lib = getenv("TRACERD_TEST_NVML_LIB");
	int rc;

	snprintf(S.lib, sizeof(S.lib), "%s", lib && lib[0] ? lib : TRACER_NVML_LIB);
	S.enable_accounting = !strcmp(cfg->gpu_accounting, "enable");
	S.interval_ms = (uint64_t)cfg->sample_interval_ms;
	S.state = ST_STARTING;
	/* as root: turning accounting on needs it, and so may the records
	 * of other users' processes */
	rc = thread_start(&S.thread, nvml_thread, NULL);
	if (rc != 0) {
		log_warn("gpu thread: %s: GPUs not followed", strerror(rc));
		set_state(ST_FAILED, "thread: %s", strerror(rc));
		return -1;
	}
	S.running = true;
	return 0;
}

void gpu_nvml_stop(void)
{
	struct timespec ts;
	bool done;

	if (!S.running)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += STOP_WAIT_MS / 1000;
	pthread_mutex_lock(&S.lock);
	S.stopping = true;
	pthread_cond_signal(&S.work);
	while (!S.thread_done && pthread_cond_timedwait(&S.ended, &S.lock, &ts) == 0)
		;
	done = S.thread_done;
	pthread_mutex_unlock(&S.lock);
	if (done)
		pthread_join(S.thread, NULL);
	else /* in the driver: it ends with the process */
		log_warn("gpu thread: NVML call %s does not return; left behind",
			 atomic_load(&S.in_call) ? atomic_load(&S.in_call) : "?");
	S.running = false;
}

int gpu_nvml_devices(struct gpu_device *out, int max)
{
	int n;

	pthread_mutex_lock(&S.lock);
	n = S.state == ST_READY ? (S.ndev < max ? S.ndev : max) : 0;
	if (n)
		memcpy(out, S.dev, (size_t)n * sizeof(*out));
	pthread_mutex_unlock(&S.lock);
	return n;
}

bool gpu_nvml_ready(void)
{
	bool r;

	pthread_mutex_lock(&S.lock);
	r = S.state == ST_READY && S.ndev > 0;
	pthread_mutex_unlock(&S.lock);
	return r;
}

bool gpu_nvml_accounting(void)
{
	bool all;

	pthread_mutex_lock(&S.lock);
	all = S.state == ST_READY && S.ndev > 0;
	for (int d = 0; d < S.ndev; d++)
		all = all && S.dev[d].accounting;
	pthread_mutex_unlock(&S.lock);
	return all;
}

bool gpu_nvml_ask(const struct gpu_ask *a)
{
	bool ok;

	pthread_mutex_lock(&S.lock);
	ok = S.state == ST_READY && S.ndev > 0 && S.nasks < ASK_MAX;
	if (ok) {
		S.asks_q[(S.ask_head + S.nasks) % ASK_MAX] = *a;
		S.nasks++;
		S.asks++;
		pthread_cond_signal(&S.work);
	} else if (S.state == ST_READY) {
		S.asks_dropped++;
	}
	pthread_mutex_unlock(&S.lock);
	return ok;
}

size_t gpu_nvml_answers(struct gpu_answer *out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&S.lock);
	while (S.nanswers && n < max) {
		out[n++] = S.answers[S.answer_head];
		S.answer_head = (S.answer_head + 1) % ANSWER_MAX;
		S.nanswers--;
	}
	if (n)
		pthread_cond_signal(&S.work); /* room for the questions waiting */
	pthread_mutex_unlock(&S.lock);
	return n;
}

bool gpu_nvml_snapshot(struct gpu_snapshot *out, uint64_t seq)
{
	bool newer;

	pthread_mutex_lock(&S.lock);
	newer = S.snap.seq > seq;
	if (newer) {
		out->seq = S.snap.seq;
		out->interval_ms = S.snap.interval_ms;
		out->n = S.snap.n;
		memcpy(out->seen, S.snap.seen, S.snap.n * sizeof(out->seen[0]));
	}
	pthread_mutex_unlock(&S.lock);
	return newer;
}

cJSON *gpu_nvml_status_json(void)
{
	static const char *const states[] = {"starting", "no_library", "failed", "ready"};
	cJSON *o = cJSON_CreateObject(), *arr;
	const char *call = atomic_load(&S.in_call);
	uint64_t since = atomic_load(&S.call_since_ns), now = clock_mono_ns();
	int accounting = 0;

	if (!o)
		return NULL;
	pthread_mutex_lock(&S.lock);
	json_add_str(o, "state", states[S.state]);
	json_add_str(o, "library", S.lib);
	if (S.error[0])
		json_add_str(o, "error", S.error);
	if (S.driver[0])
		json_add_str(o, "driver", S.driver);
	arr = cJSON_AddArrayToObject(o, "devices");
	for (int d = 0; arr && d < S.ndev; d++) {
		cJSON *e = cJSON_CreateObject();

		if (!e)
			break;
		cJSON_AddNumberToObject(e, "index", S.dev[d].index);
		json_add_str(e, "uuid", S.dev[d].uuid);
		json_add_str(e, "name", S.dev[d].name);
		json_add_u64(e, "memory_bytes", S.dev[d].memory_bytes);
		cJSON_AddBoolToObject(e, "accounting", S.dev[d].accounting);
		if (S.dev[d].mig_gi >= 0)
			cJSON_AddNumberToObject(e, "mig_gpu_instance", S.dev[d].mig_gi);
		cJSON_AddItemToArray(arr, e);
		accounting += S.dev[d].accounting;
	}
	json_add_str(o, "counting", S.state != ST_READY || !S.ndev ? "none"
				    : accounting == S.ndev ? "accounting" : "sampled");
	cJSON_AddBoolToObject(o, "accounting_enable", S.enable_accounting);
	json_add_u64(o, "samples", S.samples);
	json_add_u64(o, "sample_errors", S.sample_errors);
	json_add_u64(o, "questions", S.asks);
	json_add_u64(o, "questions_dropped", S.asks_dropped);
	json_add_u64(o, "answers", S.answered);
	json_add_u64(o, "sample_interval_ms", S.interval_ms);
	pthread_mutex_unlock(&S.lock);
	if (call && now - since >= TRACER_GPU_HUNG_MS * 1000000ull) {
		json_add_str(o, "hung_call", call);
		json_add_secs(o, "hung_s", now - since);
	}
	return o;
}
