/*
 * gpu_nvml.h - NVIDIA GPUs through NVML, on a thread of their own: the
 * driver's library is opened on that thread (never a build or run-time
 * dependency), every NVML call is made there, and tracerd's loop only
 * hands it questions and takes its answers through bounded queues and a
 * snapshot, never waiting for it.  A call that hangs in the driver stops
 * the thread, not the loop, and `tracer status` says so.
 */
#ifndef TRACERD_GPU_NVML_H
#define TRACERD_GPU_NVML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#include "config.h"
#include "gpu.h"

#define GPU_SEEN_MAX 256     /* running (process, GPU) pairs per sample */
#define GPU_ANSWER_DEVS 8    /* GPUs per process in one accounting answer */

enum gpu_ask_kind { GPU_ASK_EXIT, GPU_ASK_ENERGY_START, GPU_ASK_ENERGY_END };

/* A question of the loop: a process's accounting at its exit, or the
 * energy counters at a job's start or end. */
struct gpu_ask {
	enum gpu_ask_kind kind;
	uint64_t tag;             /* the job's */
	pid_t pid;
	uint64_t start_us;        /* the process's start, epoch us */
	char tool[GPU_TOOL_LEN];
};

struct gpu_answer {
	struct gpu_ask ask;
	int n;                    /* accounting records found */
	struct gpu_acct {
		int dev;
		uint64_t max_mem, time_ms;
		unsigned util, mem_util;
	} acct[GPU_ANSWER_DEVS];
	uint64_t energy_mj[GPU_MAX_DEVICES];
	uint32_t energy_ok;       /* bit per device */
};

/* The processes running on the GPUs at one sample. */
struct gpu_snapshot {
	uint64_t seq;             /* 0: none yet */
	uint64_t interval_ms;     /* since the previous sample */
	uint64_t taken_ns;        /* CLOCK_MONOTONIC when the sample began */
	size_t n;
	struct gpu_seen {
		pid_t pid;
		int dev;
		uint64_t mem;
		unsigned sm_util;
	} seen[GPU_SEEN_MAX];
};

/* Start the thread (it opens NVML by itself): 0, or -1 (logged). */
int gpu_nvml_start(const struct tracer_config *cfg);
/* Stop it, waiting a bounded time: a thread hung in the driver is left. */
void gpu_nvml_stop(void);

/* The devices once NVML answered: their count (0: none, or not yet) and
 * whether every one counts exactly (accounting mode on). */
int gpu_nvml_devices(struct gpu_device *out, int max);
bool gpu_nvml_ready(void);
bool gpu_nvml_accounting(void);

/* Queue a question: false when the queue is full (counted) or NVML has
 * no device. */
bool gpu_nvml_ask(const struct gpu_ask *a);
/* Take up to max answers. */
size_t gpu_nvml_answers(struct gpu_answer *out, size_t max);
/* The latest sample when newer than seq: true. */
bool gpu_nvml_snapshot(struct gpu_snapshot *out, uint64_t seq);

/* For `tracer status`: found or not, devices, accounting, a hung call. */
cJSON *gpu_nvml_status_json(void);

#endif
