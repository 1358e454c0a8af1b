/*
 * redact_exec.c - what one exec record costs tracerd in redaction:
 * job_proc_exec (redaction, tool resolution, the kept command line) on
 * argv vectors a user can choose, nanoseconds per exec.  Built and run by
 * bench/run.sh (part "redact") against BUILD/libtracer.a (and against
 * REDACT_BASE, another build's libtracer.a, to compare).  Each case runs
 * for at least SECONDS (default 0.5) and at least once.
 *
 *   redact_exec [SECONDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job.h"
#include "rules.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* "tool" then one argument of n bytes repeating pat. */
static size_t one_arg(char *buf, size_t n, const char *pat)
{
	size_t p = strlen(pat), len = 5;

	memcpy(buf, "tool", 5);
	for (size_t i = 0; i < n; i++)
		buf[len++] = pat[i % p];
	buf[len++] = '\0';
	return len;
}

/* A benign command line of about n bytes: options and file names. */
static size_t benign(char *buf, size_t n)
{
	static const char *const words[] = {
		"bwa", "mem", "-t", "8", "-R", "@RG\\tID:s1\\tSM:s1",
		"/data/ref/GRCh38.fa", "/data/reads/sample_R1.fastq.gz",
		"/data/reads/sample_R2.fastq.gz", "--verbose", "key=value",
	};
	size_t len = 0;

	for (size_t i = 0; len + 64 < n; i++) {
		const char *w = words[i % (sizeof(words) / sizeof(words[0]))];
		size_t k = strlen(w) + 1;

		memcpy(buf + len, w, k);
		len += k;
	}
	return len;
}

static void run(const char *name, const char *argv, size_t len,
		double secs, struct rules *r)
{
	struct tracer_identity id;
	struct job *j;
	struct job_proc *p;
	double t0, t1;
	long reps = 0;

	memset(&id, 0, sizeof(id));
	j = job_new("bench", &id, 8);
	p = j ? job_proc_add(j, 100, 1, 1, "tool") : NULL;
	if (!p) {
		fprintf(stderr, "redact_exec: out of memory\n");
		exit(1);
	}
	t0 = now_ns();
	do {
		job_proc_exec(j, p, "/usr/bin/tool", argv, len, r, false);
		reps++;
		t1 = now_ns();
	} while (t1 - t0 < secs * 1e9);
	printf("%s|%zu|%.0f\n", name, len, (t1 - t0) / reps);
	job_free(j);
}

int main(int argc, char **argv)
{
	static char buf[8192];
	double secs = argc > 1 ? atof(argv[1]) : 0.5;
	struct rules *r = rules_default();
	size_t len;

	if (!r || secs < 0) {
		fprintf(stderr, "usage: redact_exec [SECONDS]\n");
		return 2;
	}
	len = benign(buf, 1024);
	run("benign argv, 1 KiB", buf, len, secs, r);
	len = one_arg(buf, 1024, "=:");
	run("one argument of '=:', 1 KiB", buf, len, secs, r);
	len = one_arg(buf, 4090, "=:");
	run("one argument of '=:', 4 KiB", buf, len, secs, r);
	rules_free(r);
	return 0;
}
