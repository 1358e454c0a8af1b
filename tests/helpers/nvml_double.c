/*
 * nvml_double.c - a stand-in for libnvidia-ml.so.1 for the tests on
 * machines without an NVIDIA GPU: it exports the NVML entry points tracerd
 * uses (lib/nvml_abi.h) and answers from a script file, read again at
 * every call so a test can change the truth while tracerd runs.
 *
 * NVML_DOUBLE_SCRIPT=FILE, lines (# comments):
 *   device INDEX UUID MEMORY_BYTES MINOR ACCOUNTING(0|1) NAME...
 *   mig PARENT GI CI UUID MEMORY_BYTES   a MIG device of GPU PARENT
 *   energy INDEX MILLIJOULES             the device's energy counter
 *   proc INDEX PID MEMORY_BYTES SM_UTIL  a process running on the GPU
 *   acct INDEX PID GPU_UTIL MEM_UTIL MAX_MEMORY_BYTES TIME_MS
 *                                        the driver's record of a process
 *   hang FUNCTION [INDEX]                that call (on device INDEX) blocks
 *                                        while the line is there
 *   fail_init                            nvmlInit_v2 fails
 * NVML_DOUBLE_LOG=FILE: one line per energy, accounting-stats and
 * set-accounting call ("FUNCTION INDEX [PID]"), and "hanging FUNCTION"
 * when a call begins to hang, for a test to see when tracerd asked.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvml_abi.h"

#define MAXLINES 256
#define MIG_BASE 0x1000

static unsigned forced_acct; /* bit per device: SetAccountingMode(ENABLED) */

struct script {
	int nlines;
	char line[MAXLINES][256];
};

static void read_script(struct script *s)
{
	const char *path = getenv("NVML_DOUBLE_SCRIPT");
	FILE *f = path ? fopen(path, "r") : NULL;

	s->nlines = 0;
	if (!f)
		return;
	while (s->nlines < MAXLINES && fgets(s->line[s->nlines], sizeof(s->line[0]), f)) {
		char *l = s->line[s->nlines];
		l[strcspn(l, "\n")] = '\0';
		if (l[0] && l[0] != '#')
			s->nlines++;
	}
	fclose(f);
}

static void log_call(const char *fn, int index, long pid)
{
	const char *path = getenv("NVML_DOUBLE_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;

	if (!f)
		return;
	if (pid >= 0)
		fprintf(f, "%s %d %ld\n", fn, index, pid);
	else
		fprintf(f, "%s %d\n", fn, index);
	fclose(f);
}

/* "hang FN" (or "hang FN INDEX", on device INDEX only; dev -1: none):
 * block while the line stays in the script (logged once as "hanging FN
 * INDEX", for a test to know the call is held) */
static void maybe_hang(const char *fn, int dev)
{
	for (bool said = false;; said = true) {
		struct script s;
		int hang = 0;
		char want[128], on_dev[140];

		snprintf(want, sizeof(want), "hang %s", fn);
		snprintf(on_dev, sizeof(on_dev), "hang %s %d", fn, dev);
		read_script(&s);
		for (int i = 0; i < s.nlines; i++)
			hang |= !strcmp(s.line[i], want) || (dev >= 0 && !strcmp(s.line[i], on_dev));
		if (!hang)
			return;
		if (!said) {
			snprintf(want, sizeof(want), "hanging %s", fn);
			log_call(want, dev, -1);
		}
		usleep(50000);
	}
}

/* the n-th "device" line (by INDEX) */
static const char *device_line(const struct script *s, unsigned index)
{
	for (int i = 0; i < s->nlines; i++) {
		unsigned idx;
		if (sscanf(s->line[i], "device %u", &idx) == 1 && idx == index)
			return s->line[i];
	}
	return NULL;
}

/* the MIG line number k of GPU parent */
static const char *mig_line(const struct script *s, unsigned parent, unsigned k)
{
	unsigned n = 0;

	for (int i = 0; i < s->nlines; i++) {
		unsigned p;
		if (sscanf(s->line[i], "mig %u", &p) == 1 && p == parent && n++ == k)
			return s->line[i];
	}
	return NULL;
}

static uintptr_t hv(nvmlDevice_t d) { return (uintptr_t)d; }
static int is_mig(nvmlDevice_t d) { return hv(d) >= MIG_BASE; }
static unsigned dev_index(nvmlDevice_t d)
{
	return is_mig(d) ? (unsigned)((hv(d) - MIG_BASE) / 64) : (unsigned)(hv(d) - 1);
}
static unsigned mig_k(nvmlDevice_t d) { return (unsigned)((hv(d) - MIG_BASE) % 64 - 1); }

nvmlReturn_t nvmlInit_v2(void)
{
	struct script s;

	maybe_hang("nvmlInit_v2", -1);
	read_script(&s);
	for (int i = 0; i < s.nlines; i++)
		if (!strcmp(s.line[i], "fail_init"))
			return NVML_ERROR_UNKNOWN;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) { return NVML_SUCCESS; }

const char *nvmlErrorString(nvmlReturn_t r)
{
	return r == NVML_SUCCESS ? "Success" : r == NVML_ERROR_NOT_FOUND ? "Not Found" : "Unknown Error";
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned int len)
{
	snprintf(v, len, "999.0-double");
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n)
{
	struct script s;
	unsigned c = 0;

	read_script(&s);
	for (int i = 0; i < s.nlines; i++)
		c += !strncmp(s.line[i], "device ", 7);
	*n = c;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
	struct script s;

	read_script(&s);
	if (!device_line(&s, i))
		return NVML_ERROR_INVALID_ARGUMENT;
	*d = (nvmlDevice_t)(uintptr_t)(i + 1);
	return NVML_SUCCESS;
}

/* fields of a device's (or MIG device's) line */
static int fields(nvmlDevice_t d, char *uuid, unsigned long long *mem, unsigned *minor,
		  unsigned *acct, char *name)
{
	struct script s;
	const char *l;
	unsigned idx, gi, ci, p;
	int off = 0;

	read_script(&s);
	l = device_line(&s, dev_index(d));
	if (!l)
		return -1;
	if (sscanf(l, "device %u %95s %llu %u %u %n", &idx, uuid, mem, minor, acct, &off) < 5)
		return -1;
	snprintf(name, 96, "%s", l + off);
	if (!is_mig(d))
		return 0;
	l = mig_line(&s, dev_index(d), mig_k(d));
	if (!l || sscanf(l, "mig %u %u %u %95s %llu", &p, &gi, &ci, uuid, mem) != 5)
		return -1;
	return 0;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *out, unsigned int len)
{
	char uuid[96], name[96];
	unsigned long long mem;
	unsigned minor, acct;

	if (fields(d, uuid, &mem, &minor, &acct, name) < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	snprintf(out, len, "%s", uuid);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *out, unsigned int len)
{
	char uuid[96], name[96];
	unsigned long long mem;
	unsigned minor, acct;

	if (fields(d, uuid, &mem, &minor, &acct, name) < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	snprintf(out, len, "%s", name);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
	char uuid[96], name[96];
	unsigned long long mem;
	unsigned minor, acct;

	if (fields(d, uuid, &mem, &minor, &acct, name) < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	m->total = mem;
	m->used = 0;
	m->free = mem;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int *out)
{
	char uuid[96], name[96];
	unsigned long long mem;
	unsigned acct;

	return fields(d, uuid, &mem, out, &acct, name) < 0 ? NVML_ERROR_INVALID_ARGUMENT : NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetAccountingMode(nvmlDevice_t d, nvmlEnableState_t *mode)
{
	char uuid[96], name[96];
	unsigned long long mem;
	unsigned minor, acct;

	if (fields(d, uuid, &mem, &minor, &acct, name) < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	*mode = (acct || (forced_acct & (1u << dev_index(d)))) ? NVML_FEATURE_ENABLED
							       : NVML_FEATURE_DISABLED;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceSetAccountingMode(nvmlDevice_t d, nvmlEnableState_t mode)
{
	log_call("nvmlDeviceSetAccountingMode", (int)dev_index(d), -1);
	if (mode == NVML_FEATURE_ENABLED)
		forced_acct |= 1u << dev_index(d);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend)
{
	struct script s;

	read_script(&s);
	*cur = *pend = !is_mig(d) && mig_line(&s, dev_index(d), 0) ? 1 : 0;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *n)
{
	struct script s;
	unsigned k = 0;

	read_script(&s);
	while (mig_line(&s, dev_index(d), k))
		k++;
	*n = k;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int k, nvmlDevice_t *m)
{
	struct script s;

	read_script(&s);
	if (!mig_line(&s, dev_index(d), k))
		return NVML_ERROR_NOT_FOUND;
	*m = (nvmlDevice_t)(uintptr_t)(MIG_BASE + dev_index(d) * 64 + k + 1);
	return NVML_SUCCESS;
}

static nvmlReturn_t mig_id(nvmlDevice_t d, unsigned int *out, int which)
{
	struct script s;
	unsigned p, gi, ci;
	const char *l;

	read_script(&s);
	if (!is_mig(d) || !(l = mig_line(&s, dev_index(d), mig_k(d))) ||
	    sscanf(l, "mig %u %u %u", &p, &gi, &ci) != 3)
		return NVML_ERROR_INVALID_ARGUMENT;
	*out = which ? ci : gi;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id) { return mig_id(d, id, 0); }
nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id) { return mig_id(d, id, 1); }

/* "proc" lines of this device: a MIG device is named by its UUID index
 * in the proc line as 100*(k+1)+PARENT */
static unsigned proc_dev(nvmlDevice_t d)
{
	return is_mig(d) ? 100 * (mig_k(d) + 1) + dev_index(d) : dev_index(d);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *count,
						     nvmlProcessInfo_t *infos)
{
	struct script s;
	unsigned n = 0;

	maybe_hang("nvmlDeviceGetComputeRunningProcesses_v3", (int)proc_dev(d));
	read_script(&s);
	for (int i = 0; i < s.nlines; i++) {
		unsigned idx, pid, util;
		unsigned long long mem;
		if (sscanf(s.line[i], "proc %u %u %llu %u", &idx, &pid, &mem, &util) != 4 ||
		    idx != proc_dev(d))
			continue;
		if (n < *count && infos) {
			infos[n].pid = pid;
			infos[n].usedGpuMemory = mem;
			infos[n].gpuInstanceId = 0xFFFFFFFFu;
			infos[n].computeInstanceId = 0xFFFFFFFFu;
		}
		n++;
	}
	if (n > *count) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = n;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t d, nvmlProcessUtilizationSample_t *u,
					     unsigned int *count, unsigned long long last)
{
	struct script s;
	struct timespec ts;
	unsigned n = 0;

	(void)last;
	maybe_hang("nvmlDeviceGetProcessUtilization", (int)proc_dev(d));
	clock_gettime(CLOCK_REALTIME, &ts);
	read_script(&s);
	for (int i = 0; i < s.nlines; i++) {
		unsigned idx, pid, util;
		unsigned long long mem;
		if (sscanf(s.line[i], "proc %u %u %llu %u", &idx, &pid, &mem, &util) != 4 ||
		    idx != proc_dev(d))
			continue;
		if (u && n < *count) {
			memset(&u[n], 0, sizeof(u[n]));
			u[n].pid = pid;
			u[n].timeStamp = (unsigned long long)ts.tv_sec * 1000000ull +
					 (unsigned long long)ts.tv_nsec / 1000;
			u[n].smUtil = util;
		}
		n++;
	}
	if (!u || n > *count) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = n;
	return n ? NVML_SUCCESS : NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetAccountingPids(nvmlDevice_t d, unsigned int *count, unsigned int *pids)
{
	struct script s;
	unsigned n = 0;

	maybe_hang("nvmlDeviceGetAccountingPids", (int)dev_index(d));
	read_script(&s);
	for (int i = 0; i < s.nlines; i++) {
		unsigned idx, pid;
		if (sscanf(s.line[i], "acct %u %u", &idx, &pid) == 2 && idx == dev_index(d)) {
			if (n < *count)
				pids[n] = pid;
			n++;
		}
	}
	if (n > *count) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = n;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetAccountingStats(nvmlDevice_t d, unsigned int pid, nvmlAccountingStats_t *st)
{
	struct script s;

	log_call("nvmlDeviceGetAccountingStats", (int)dev_index(d), (long)pid);
	read_script(&s);
	for (int i = 0; i < s.nlines; i++) {
		unsigned idx, p, gu, mu;
		unsigned long long mem, ms;
		if (sscanf(s.line[i], "acct %u %u %u %u %llu %llu", &idx, &p, &gu, &mu, &mem, &ms) == 6 &&
		    idx == dev_index(d) && p == pid) {
			memset(st, 0, sizeof(*st));
			st->gpuUtilization = gu;
			st->memoryUtilization = mu;
			st->maxMemoryUsage = mem;
			st->time = ms;
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj)
{
	struct script s;

	log_call("nvmlDeviceGetTotalEnergyConsumption", (int)dev_index(d), -1);
	read_script(&s);
	for (int i = 0; i < s.nlines; i++) {
		unsigned idx;
		unsigned long long v;
		if (sscanf(s.line[i], "energy %u %llu", &idx, &v) == 2 && idx == dev_index(d)) {
			*mj = v;
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_SUPPORTED;
}
