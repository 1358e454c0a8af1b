/*
 * nvml_abi.h - the few NVML types and entry points tracer uses, declared
 * after NVIDIA's documented ABI (nvml.h of driver 450 and later), so that
 * nothing of the driver is needed to build: tracerd opens
 * libnvidia-ml.so.1 at run time (daemon/gpu_nvml.c) and the tests build
 * a double of it (tests/helpers/nvml_double.c) against this header.
 * Layouts must stay byte for byte those of nvml.h.
 */
#ifndef TRACER_NVML_ABI_H
#define TRACER_NVML_ABI_H

typedef int nvmlReturn_t;           /* enum nvmlReturn_enum */
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_UNKNOWN 999

typedef int nvmlEnableState_t;      /* enum nvmlEnableState_enum */
#define NVML_FEATURE_DISABLED 0
#define NVML_FEATURE_ENABLED 1

typedef struct nvmlDevice_st *nvmlDevice_t;

#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80

typedef struct nvmlMemory_st {
	unsigned long long total, free, used; /* bytes */
} nvmlMemory_t;

/* nvmlProcessInfo_t of nvmlDeviceGetComputeRunningProcesses_v3 (the
 * same layout as nvmlProcessInfo_v2_t) */
typedef struct nvmlProcessInfo_st {
	unsigned int pid;
	unsigned long long usedGpuMemory; /* bytes */
	unsigned int gpuInstanceId;       /* MIG: 0xFFFFFFFF when not */
	unsigned int computeInstanceId;
} nvmlProcessInfo_t;

/* per process, kept by the driver after the process exits when the
 * device's accounting mode is on */
typedef struct nvmlAccountingStats_st {
	unsigned int gpuUtilization;      /* % of the context's time a kernel ran */
	unsigned int memoryUtilization;   /* % of the time memory was read or written */
	unsigned long long maxMemoryUsage; /* bytes */
	unsigned long long time;          /* ms the context was alive (0 while running) */
	unsigned long long startTime;     /* us since the epoch */
	unsigned int isRunning;
	unsigned int reserved[5];
} nvmlAccountingStats_t;

typedef struct nvmlProcessUtilizationSample_st {
	unsigned int pid;
	unsigned long long timeStamp;     /* us, CPU clock */
	unsigned int smUtil, memUtil, encUtil, decUtil; /* % */
} nvmlProcessUtilizationSample_t;

typedef struct nvmlUtilization_st {
	unsigned int gpu, memory;         /* % over the last sample period */
} nvmlUtilization_t;

/* the entry points, as function pointer types (dlsym) */
typedef nvmlReturn_t (*nvml_init_fn)(void);
typedef nvmlReturn_t (*nvml_shutdown_fn)(void);
typedef const char *(*nvml_error_string_fn)(nvmlReturn_t);
typedef nvmlReturn_t (*nvml_driver_version_fn)(char *, unsigned int);
typedef nvmlReturn_t (*nvml_count_fn)(unsigned int *);
typedef nvmlReturn_t (*nvml_handle_fn)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*nvml_str_fn)(nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*nvml_memory_fn)(nvmlDevice_t, nvmlMemory_t *);
typedef nvmlReturn_t (*nvml_uint_fn)(nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*nvml_get_mode_fn)(nvmlDevice_t, nvmlEnableState_t *);
typedef nvmlReturn_t (*nvml_set_mode_fn)(nvmlDevice_t, nvmlEnableState_t);
typedef nvmlReturn_t (*nvml_acct_pids_fn)(nvmlDevice_t, unsigned int *, unsigned int *);
typedef nvmlReturn_t (*nvml_acct_stats_fn)(nvmlDevice_t, unsigned int, nvmlAccountingStats_t *);
typedef nvmlReturn_t (*nvml_procs_fn)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *);
typedef nvmlReturn_t (*nvml_proc_util_fn)(nvmlDevice_t, nvmlProcessUtilizationSample_t *,
					   unsigned int *, unsigned long long);
typedef nvmlReturn_t (*nvml_energy_fn)(nvmlDevice_t, unsigned long long *);
typedef nvmlReturn_t (*nvml_mig_mode_fn)(nvmlDevice_t, unsigned int *, unsigned int *);
typedef nvmlReturn_t (*nvml_mig_handle_fn)(nvmlDevice_t, unsigned int, nvmlDevice_t *);

#endif
