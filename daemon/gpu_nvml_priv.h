/*
 * gpu_nvml_priv.h - what the NVML thread (gpu_nvml.c) and its opening of
 * the library (gpu_probe.c) share: the entry points found by dlsym, the
 * state the loop reads under the lock, and the call wrapper that names
 * each NVML call while it runs.  Not for other files.
 */
#ifndef TRACERD_GPU_NVML_PRIV_H
#define TRACERD_GPU_NVML_PRIV_H

#include <pthread.h>
#include <stdatomic.h>

#include "clock.h"
#include "gpu_nvml.h"
#include "nvml_abi.h"

#define ASK_MAX 2048          /* questions queued */
#define ANSWER_MAX 256        /* answers not yet taken */

enum state { ST_STARTING, ST_NO_LIBRARY, ST_FAILED, ST_READY };

struct gpu_nvml_fns {
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
};

struct gpu_nvml_state {
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
};

extern struct gpu_nvml_fns gpu_nvml_fn;
extern struct gpu_nvml_state gpu_nvml_st;

/* Every NVML call goes through here: named while it runs. */
#define CALL(name, expr)                                                     \
	({                                                                   \
		atomic_store(&gpu_nvml_st.call_since_ns, clock_mono_ns());             \
		atomic_store(&gpu_nvml_st.in_call, name);                              \
		nvmlReturn_t _r = (expr);                                    \
		atomic_store(&gpu_nvml_st.in_call, (const char *)NULL);                \
		_r;                                                          \
	})

/* NVML's text for r */
const char *gpu_probe_errstr(nvmlReturn_t r);
/* Set the state and its reason (printf-like with one string). */
void gpu_probe_set_state(enum state st, const char *fmt, const char *arg);
/* Open the library, nvmlInit, list the devices into gpu_nvml_st and
 * their handles: 0 (ready), or -1 with the state set. */
int gpu_probe_open(void);

#endif
