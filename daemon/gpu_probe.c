/*
 * gpu_probe.c - opening NVML on the NVML thread (gpu_nvml_priv.h): dlopen
 * of libnvidia-ml.so.1 (or TRACERD_TEST_NVML_LIB), its entry points,
 * nvmlInit, and the list of devices with their MIG instances, accounting
 * mode turned on first when gpu_accounting = enable.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu_nvml_priv.h"
#include "log.h"

const char *gpu_probe_errstr(nvmlReturn_t r)
{
	const char *s = gpu_nvml_fn.error_string ? gpu_nvml_fn.error_string(r) : NULL;

	return s ? s : "unknown NVML error";
}

void gpu_probe_set_state(enum state st, const char *fmt, const char *arg)
{
	pthread_mutex_lock(&gpu_nvml_st.lock);
	gpu_nvml_st.state = st;
	snprintf(gpu_nvml_st.error, sizeof(gpu_nvml_st.error), fmt, arg ? arg : "");
	pthread_mutex_unlock(&gpu_nvml_st.lock);
}

/* dlopen and dlsym: 0, or -1 with the state set */
static int load(void)
{
	void *h = dlopen(gpu_nvml_st.lib, RTLD_NOW | RTLD_LOCAL);
	struct { const char *name; void **slot; } syms[] = {
		{"nvmlInit_v2", (void **)&gpu_nvml_fn.init},
		{"nvmlErrorString", (void **)&gpu_nvml_fn.error_string},
		{"nvmlSystemGetDriverVersion", (void **)&gpu_nvml_fn.driver_version},
		{"nvmlDeviceGetCount_v2", (void **)&gpu_nvml_fn.count},
		{"nvmlDeviceGetHandleByIndex_v2", (void **)&gpu_nvml_fn.handle},
		{"nvmlDeviceGetUUID", (void **)&gpu_nvml_fn.uuid},
		{"nvmlDeviceGetName", (void **)&gpu_nvml_fn.name},
		{"nvmlDeviceGetMemoryInfo", (void **)&gpu_nvml_fn.memory},
		{"nvmlDeviceGetMinorNumber", (void **)&gpu_nvml_fn.minor},
		{"nvmlDeviceGetAccountingMode", (void **)&gpu_nvml_fn.get_acct},
		{"nvmlDeviceSetAccountingMode", (void **)&gpu_nvml_fn.set_acct},
		{"nvmlDeviceGetAccountingPids", (void **)&gpu_nvml_fn.acct_pids},
		{"nvmlDeviceGetAccountingStats", (void **)&gpu_nvml_fn.acct_stats},
		{"nvmlDeviceGetComputeRunningProcesses_v3", (void **)&gpu_nvml_fn.procs},
		{"nvmlDeviceGetProcessUtilization", (void **)&gpu_nvml_fn.proc_util},
		{"nvmlDeviceGetTotalEnergyConsumption", (void **)&gpu_nvml_fn.energy},
	};

	if (!h) {
		const char *e = dlerror();
		gpu_probe_set_state(ST_NO_LIBRARY, "%s", e ? e : gpu_nvml_st.lib);
		return -1;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		*syms[i].slot = dlsym(h, syms[i].name);
		if (!*syms[i].slot) {
			gpu_probe_set_state(ST_FAILED, "NVML has no %s (driver older than 450?)", syms[i].name);
			return -1;
		}
	}
	/* MIG: optional (drivers before 450.80, GPUs without MIG) */
	gpu_nvml_fn.mig_mode = (nvml_mig_mode_fn)dlsym(h, "nvmlDeviceGetMigMode");
	gpu_nvml_fn.mig_count = (nvml_uint_fn)dlsym(h, "nvmlDeviceGetMaxMigDeviceCount");
	gpu_nvml_fn.mig_handle = (nvml_mig_handle_fn)dlsym(h, "nvmlDeviceGetMigDeviceHandleByIndex");
	gpu_nvml_fn.gi_id = (nvml_uint_fn)dlsym(h, "nvmlDeviceGetGpuInstanceId");
	gpu_nvml_fn.ci_id = (nvml_uint_fn)dlsym(h, "nvmlDeviceGetComputeInstanceId");
	return 0;
}

/* Fill d from handle h; false when the device does not answer. */
static bool describe(nvmlDevice_t h, int index, struct gpu_device *d)
{
	nvmlMemory_t mem = {0}; /* a driver may answer without filling it all */
	nvmlEnableState_t acct = NVML_FEATURE_DISABLED;

	memset(d, 0, sizeof(*d));
	d->index = index;
	d->mig_gi = d->mig_ci = -1;
	if (CALL("nvmlDeviceGetUUID", gpu_nvml_fn.uuid(h, d->uuid, sizeof(d->uuid))) != NVML_SUCCESS)
		return false;
	if (CALL("nvmlDeviceGetName", gpu_nvml_fn.name(h, d->name, sizeof(d->name))) != NVML_SUCCESS)
		snprintf(d->name, sizeof(d->name), "NVIDIA GPU");
	if (CALL("nvmlDeviceGetMemoryInfo", gpu_nvml_fn.memory(h, &mem)) == NVML_SUCCESS)
		d->memory_bytes = mem.total;
	if (CALL("nvmlDeviceGetMinorNumber", gpu_nvml_fn.minor(h, &d->minor)) != NVML_SUCCESS)
		d->minor = (unsigned)index;
	if (CALL("nvmlDeviceGetAccountingMode", gpu_nvml_fn.get_acct(h, &acct)) == NVML_SUCCESS)
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
	gpu_nvml_st.handle[nfound] = h;
	found[nfound++] = *d;
}

/* The MIG devices of GPU h when MIG is on: true when it has some. */
static bool add_mig(nvmlDevice_t h, const struct gpu_device *parent)
{
	unsigned cur = 0, pend = 0, max = 0;
	bool any = false;

	if (!gpu_nvml_fn.mig_mode || !gpu_nvml_fn.mig_count || !gpu_nvml_fn.mig_handle ||
	    CALL("nvmlDeviceGetMigMode", gpu_nvml_fn.mig_mode(h, &cur, &pend)) != NVML_SUCCESS || cur != 1 ||
	    CALL("nvmlDeviceGetMaxMigDeviceCount", gpu_nvml_fn.mig_count(h, &max)) != NVML_SUCCESS)
		return false;
	for (unsigned i = 0; i < max; i++) {
		nvmlDevice_t m = NULL; /* set only when the call succeeds */
		struct gpu_device d;
		unsigned gi = 0, ci = 0;

		if (CALL("nvmlDeviceGetMigDeviceHandleByIndex", gpu_nvml_fn.mig_handle(h, i, &m)) != NVML_SUCCESS ||
		    !describe(m, parent->index, &d))
			continue;
		if (gpu_nvml_fn.gi_id && CALL("nvmlDeviceGetGpuInstanceId", gpu_nvml_fn.gi_id(m, &gi)) == NVML_SUCCESS)
			d.mig_gi = (int)gi;
		if (gpu_nvml_fn.ci_id && CALL("nvmlDeviceGetComputeInstanceId", gpu_nvml_fn.ci_id(m, &ci)) == NVML_SUCCESS)
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
	nvmlReturn_t r = CALL("nvmlInit_v2", gpu_nvml_fn.init());

	if (r != NVML_SUCCESS) {
		gpu_probe_set_state(ST_FAILED, "nvmlInit: %s", gpu_probe_errstr(r));
		return -1;
	}
	CALL("nvmlSystemGetDriverVersion", gpu_nvml_fn.driver_version(gpu_nvml_st.driver, sizeof(gpu_nvml_st.driver)));
	if ((r = CALL("nvmlDeviceGetCount", gpu_nvml_fn.count(&n))) != NVML_SUCCESS) {
		gpu_probe_set_state(ST_FAILED, "nvmlDeviceGetCount: %s", gpu_probe_errstr(r));
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		nvmlDevice_t h = NULL; /* set only when the call succeeds */
		struct gpu_device d;

		if (CALL("nvmlDeviceGetHandleByIndex", gpu_nvml_fn.handle(i, &h)) != NVML_SUCCESS ||
		    !describe(h, (int)i, &d))
			continue;
		if (gpu_nvml_st.enable_accounting && !d.accounting) {
			r = CALL("nvmlDeviceSetAccountingMode", gpu_nvml_fn.set_acct(h, NVML_FEATURE_ENABLED));
			if (r == NVML_SUCCESS)
				describe(h, (int)i, &d);
			else
				log_warn("gpu %u: cannot turn accounting on: %s", i, gpu_probe_errstr(r));
		}
		if (!add_mig(h, &d))
			add_device(h, &d);
	}
	pthread_mutex_lock(&gpu_nvml_st.lock);
	memcpy(gpu_nvml_st.dev, found, sizeof(found));
	gpu_nvml_st.ndev = nfound;
	gpu_nvml_st.state = ST_READY;
	pthread_mutex_unlock(&gpu_nvml_st.lock);
	log_info("gpu: NVML %s, %d device(s)", gpu_nvml_st.driver, gpu_nvml_st.ndev);
	return 0;
}

int gpu_probe_open(void)
{
	return load() == 0 && discover() == 0 ? 0 : -1;
}
