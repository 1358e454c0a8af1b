/*
 * redact_exec.c - what one exec record costs tracerd in redaction:
 * job_proc_exec (redaction, tool resolution, the kept command line) on
 * argv vectors a user can choose, nanoseconds per exec.  Built and run by
 * bench/run.sh (part "redact") against BUILD/libtracer.a.
 *
 *   redact_exec [REPS]
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

static void run(const char *name, const char *argv, size_t len, long reps,
		struct rules *r)
{
	struct tracer_identity id;
	struct job *j;
	struct job_proc *p;
	double t0, t1;

	memset(&id, 0, sizeof(id));
	j = job_new("bench", &id, 8);
	p = j ? job_proc_add(j, 100, 1, 1, "tool") : NULL;
	if (!p) {
		fprintf(stderr, "redact_exec: out of memory\n");
		exit(1);
	}
	t0 = now_ns();
	for (long i = 0; i < reps; i++)
		job_proc_exec(j, p, "/usr/bin/tool", argv, len, r, false);
	t1 = now_ns();
	printf("%-34s %6zu bytes %12.0f ns/exec\n", name, len, (t1 - t0) / reps);
	job_free(j);
}

int main(int argc, char **argv)
{
	static char buf[8192];
	long reps = argc > 1 ? atol(argv[1]) : 200;
	struct rules *r = rules_default();
	size_t len;

	if (!r || reps <= 0) {
		fprintf(stderr, "usage: redact_exec [REPS]\n");
		return 2;
	}
	len = benign(buf, 1024);
	run("benign argv, 1 KiB", buf, len, reps * 10, r);
	len = one_arg(buf, 1024, "=:");
	run("'=:' x 1 KiB", buf, len, reps, r);
	len = one_arg(buf, 4090, "=:");
	run("'=:' x 4 KiB (argv_max ceiling)", buf, len, reps, r);
	len = one_arg(buf, 4090, "=");
	run("'=' x 4 KiB", buf, len, reps, r);
	rules_free(r);
	return 0;
}
