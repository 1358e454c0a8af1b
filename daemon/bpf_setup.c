/*
 * bpf_setup.c - what the BPF loader readies before loading (its part of
 * bpf_loader_priv.h): libbpf's messages into tracerd's log, the memlock
 * limit of older kernels, bpffs and tracefs mounted, and the skeleton's
 * constants and map sizes from the options.
 */
#include "bpf_loader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <bpf/libbpf.h>

#include "log.h"
#include "bpf_loader_priv.h"

/* libbpf's messages go through our logger, at the matching level. */
int bpf_setup_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char msg[1024];
	size_t n;

	if (level == LIBBPF_DEBUG && !log_enabled(LOG_DEBUG))
		return 0;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	log_msg(level == LIBBPF_WARN ? LOG_WARN : level == LIBBPF_INFO ? LOG_INFO : LOG_DEBUG,
		"libbpf: %s", msg);
	return 0;
}

void bpf_setup_memlock(void)
{
	struct rlimit rl;

	/* kernels before 5.11 charge BPF maps against RLIMIT_MEMLOCK */
	if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) {
		log_warn("getrlimit(RLIMIT_MEMLOCK): %s", strerror(errno));
		return;
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		return;
	rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
	if (setrlimit(RLIMIT_MEMLOCK, &rl) != 0)
		log_info("setrlimit(RLIMIT_MEMLOCK, unlimited): %s "
			 "(map creation may fail on kernels before 5.11)", strerror(errno));
}

int bpf_setup_mount(const char *dir, long magic, const char *type,
		    const char *opts, char *err, size_t errlen)
{
	struct statfs st;

	if (statfs(dir, &st) == 0 && st.f_type == magic)
		return 0;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "mkdir %s: %s", dir, strerror(errno));
		return -1;
	}
	if (mount(type, dir, type, 0, opts) != 0) {
		snprintf(err, errlen, "mount %s on %s: %s", type, dir, strerror(errno));
		return -1;
	}
	log_info("mounted %s on %s", type, dir);
	return 0;
}

static unsigned round_pow2(unsigned v, unsigned min)
{
	unsigned r = min;

	while (r < v && r < (1u << 31))
		r <<= 1;
	return r;
}

int bpf_setup_configure(struct tracer_bpf *skel, const struct bpf_loader_opts *o,
			char *err, size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned argv_max = o->argv_max ? o->argv_max : TRACER_DEFAULT_ARGV_MAX;
	unsigned rb = o->ringbuf_bytes ? o->ringbuf_bytes : TRACER_DEFAULT_RINGBUF_BYTES;
	unsigned procs = o->max_procs ? o->max_procs : TRACER_DEFAULT_MAX_PROCS;
	int rc;

	if (page <= 0) {
		snprintf(err, errlen, "sysconf(_SC_PAGESIZE): %s", strerror(errno));
		return -1;
	}
	if (argv_max > TRACER_ARGV_MAX) {
		snprintf(err, errlen, "argv_max %u is above the limit of %u bytes",
			 argv_max, TRACER_ARGV_MAX);
		return -1;
	}
	skel->rodata->trace_all = o->trace_all;
	skel->rodata->argv_max = argv_max;
	skel->rodata->self_tgid = (__u32)getpid();
	skel->rodata->page_kb = (__u32)(page / 1024);
	skel->rodata->wakeup_bytes = o->wakeup_bytes;
	skel->rodata->max_procs_per_job = o->max_procs_per_job;
	skel->rodata->max_procs_per_user = o->max_procs_per_user;
	skel->rodata->max_procs_all_users = o->max_procs_all_users;
	rc = bpf_map__set_max_entries(skel->maps.procs, procs);
	if (rc == 0)
		rc = bpf_map__set_max_entries(skel->maps.events, round_pow2(rb, (unsigned)page));
	if (rc != 0) {
		snprintf(err, errlen, "set map sizes: %s", strerror(-rc));
		return -1;
	}
	return 0;
}
