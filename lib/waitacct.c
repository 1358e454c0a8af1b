/*
 * waitacct.c - probe the host's wait accounting (waitacct.h).  Each probe
 * is one small file read or an access(2); nothing is enabled or changed.
 */
#include "waitacct.h"

#include <stdio.h>
#include <unistd.h>

static int read_int_file(const char *path, int *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%d", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

void waitacct_probe(struct wait_accounting *w)
{
	static const char *const psi_cg[] = {
		"/sys/fs/cgroup/cpu.pressure",         /* pure v2 */
		"/sys/fs/cgroup/unified/cpu.pressure", /* hybrid */
		"/sys/fs/cgroup/cgroup.pressure",
		"/sys/fs/cgroup/unified/cgroup.pressure",
	};
	int v;

	w->run_delay = access("/proc/self/schedstat", R_OK) == 0;
	w->delayacct = read_int_file("/proc/sys/kernel/task_delayacct", &v) == 0 ? (v != 0) : -1;
	w->psi_host = access("/proc/pressure/cpu", R_OK) == 0;
	w->psi_cgroup = false;
	for (size_t i = 0; i < sizeof(psi_cg) / sizeof(psi_cg[0]); i++)
		if (access(psi_cg[i], R_OK) == 0)
			w->psi_cgroup = true;
}

cJSON *waitacct_json(const struct wait_accounting *w)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddBoolToObject(o, "run_delay", w->run_delay);
	cJSON_AddStringToObject(o, "delay_accounting",
				w->delayacct < 0 ? "absent" : w->delayacct ? "on" : "off");
	cJSON_AddBoolToObject(o, "psi_host", w->psi_host);
	cJSON_AddBoolToObject(o, "psi_cgroup", w->psi_cgroup);
	return o;
}
