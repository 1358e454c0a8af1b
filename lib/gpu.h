/*
 * gpu.h - what a job did on NVIDIA GPUs: the devices of the node, each
 * process's use of each GPU (exact from the driver's accounting at the
 * process's exit, else sampled), the job's energy where it had a GPU
 * alone, and the allocation it was given.  Pure bookkeeping: the NVML
 * calls are tracerd's (daemon/gpu_nvml.c), the flags gpu_flags.c's.
 */
#ifndef TRACER_GPU_H
#define TRACER_GPU_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#define GPU_MAX_DEVICES 16
#define GPU_UUID_LEN 96
#define GPU_NAME_LEN 96
#define GPU_TOOL_LEN 64
#define GPU_MAX_PROCS 256        /* (process, GPU) records per job */
#define GPU_LIST_PROCS 64        /* of them listed in the summary */
#define GPU_MAX_POINTS 720       /* utilisation and memory samples per job */

struct gpu_device {
	int index;                /* NVML index (a MIG device: its GPU's) */
	unsigned minor;           /* /dev/nvidiaN */
	char uuid[GPU_UUID_LEN];
	char name[GPU_NAME_LEN];
	uint64_t memory_bytes;
	int mig_gi, mig_ci;       /* MIG GPU and compute instance; -1: none */
	bool accounting;          /* the driver's accounting mode is on */
};

/* One process's use of one GPU. */
struct gpu_proc {
	pid_t pid;
	int dev;                  /* slot in the device table */
	char tool[GPU_TOOL_LEN];
	uint64_t mem_peak_bytes;
	uint64_t time_ms;         /* exact: the context's life; sampled: time seen */
	uint64_t busy_us;         /* time x GPU utilisation (us: exact for whole %) */
	unsigned util_pct, mem_util_pct;
	bool exact;               /* from the driver's accounting */
};

struct gpu_point {
	uint32_t t_ms;            /* since the job's start */
	uint16_t util_pct;        /* sum over the job's GPUs (may pass 100) */
	uint64_t mem_bytes;       /* sum over the job's GPUs */
};

struct job_gpu {
	bool nvml;                /* NVML answered on this node */
	bool accounting;          /* every device counts exactly */
	int ndev;
	struct gpu_device dev[GPU_MAX_DEVICES];
	struct gpu_proc *procs;
	size_t nprocs, procs_cap;
	uint64_t procs_dropped;   /* records beyond GPU_MAX_PROCS */
	uint64_t sampled_mem_peak[GPU_MAX_DEVICES]; /* the job's processes at once */
	uint64_t last_mem[GPU_MAX_DEVICES];  /* ... at the last sample */
	unsigned last_util[GPU_MAX_DEVICES]; /* their utilisation then, summed */
	uint64_t energy_start_mj[GPU_MAX_DEVICES], energy_end_mj[GPU_MAX_DEVICES];
	uint32_t energy_start_ok, energy_end_ok; /* bit per device */
	uint32_t shared;          /* bit per device: another's process used it meanwhile */
	unsigned outstanding;     /* accounting answers asked for, not come */
	uint64_t answers_missing; /* ... still missing when the summary was written */
	uint64_t asks_dropped;    /* exits not asked about (queue full) */
	struct gpu_point *points;
	size_t npoints;
	unsigned point_every, point_skip; /* a long job keeps every n-th sample */
};

/* A job's record on a node with these devices; NULL without memory. */
struct job_gpu *gpu_job_new(const struct gpu_device *dev, int ndev, bool nvml);
void gpu_job_free(struct job_gpu *g);

/* A sample saw pid on device slot dev using mem bytes at sm_util % over
 * interval_ms (a process already counted exactly is left alone). */
void gpu_job_note_sample(struct job_gpu *g, pid_t pid, const char *tool, int dev,
			 uint64_t mem, unsigned sm_util, uint64_t interval_ms);
/* The job's processes on device dev used mem bytes together at a sample. */
void gpu_job_note_device_mem(struct job_gpu *g, int dev, uint64_t mem);
/* One point of the job's utilisation and memory over time. */
void gpu_job_note_point(struct job_gpu *g, uint64_t t_ms, unsigned util_pct, uint64_t mem);
/* The driver's accounting of pid on device dev, at its exit (exact). */
void gpu_job_note_exact(struct job_gpu *g, pid_t pid, const char *tool, int dev,
			uint64_t max_mem, uint64_t time_ms, unsigned gpu_util,
			unsigned mem_util);

/*
 * The allocation list ("0,2", "GPU-<uuid>,...", "MIG-<uuid>") against the
 * devices: out[slot] set for each device named; numbers are NVML indices,
 * or minor numbers (/dev/nvidiaN) when by_minor (Slurm's SLURM_STEP_GPUS).
 * Returns the entries of the list that name no device of the node.
 */
int gpu_alloc_match(const struct job_gpu *g, const char *list, bool by_minor,
		    bool out[GPU_MAX_DEVICES]);

/*
 * Add "gpu_counting" and "gpu" to the summary, and "gpu" to each tool of
 * "tools" that used one.  wall_ns: the job's wall time; alloc: its GPU
 * allocation list ("" none); by_minor as gpu_alloc_match.
 */
void gpu_summary_add(cJSON *root, const struct job_gpu *g, uint64_t wall_ns,
		     const char *alloc, bool by_minor);

#endif
