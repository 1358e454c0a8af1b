/*
 * gpu_flags.h - the GPU flags of a job (gpu_idle_allocation,
 * gpu_memory_overallocated, gpu_underused) and the GPU count of its
 * right-sized request, read from the summary's "gpu" part (gpu.h) and its
 * tools.  Called by analysis_add (analysis.h).
 */
#ifndef TRACER_GPU_FLAGS_H
#define TRACER_GPU_FLAGS_H

#include <cjson/cJSON.h>

#include "config.h"

/* Add the GPU flags of the summary root to flags. */
void gpu_flags_add(cJSON *flags, const cJSON *root, const struct tracer_config *cfg);

/* GPUs to request next time: those the job kept busier than
 * flag_gpu_idle_share; -1 when the job had no GPU known (no request). */
int gpu_flags_request(const cJSON *root, const struct tracer_config *cfg);

#endif
