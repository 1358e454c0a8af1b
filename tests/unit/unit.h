/*
 * unit.h - what every CUnit test binary does around its tests: register
 * one suite, run it verbosely, turn failures into the exit status, and
 * make and remove a scratch directory.  Each test_*.c is its own program,
 * so everything here is static inline.
 */
#ifndef TRACER_TESTS_UNIT_H
#define TRACER_TESTS_UNIT_H

#include <CUnit/Basic.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

/* Run one suite of n tests.  Returns the exit status: 0 when all passed. */
static inline int unit_run(const char *suite, const struct unit_test *tests,
			   size_t n)
{
	unsigned failed = 1;
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "%s: cannot set up CUnit: %s\n", suite,
			CU_get_error_msg());
		return 1;
	}
	s = CU_add_suite(suite, NULL, NULL);
	for (size_t i = 0; s && i < n; i++)
		if (!CU_add_test(s, tests[i].name, tests[i].fn))
			s = NULL;
	if (!s) {
		fprintf(stderr, "%s: cannot register tests: %s\n", suite,
			CU_get_error_msg());
		goto out;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_tests_failed() + CU_get_number_of_failures();
out:
	CU_cleanup_registry();
	return failed ? 1 : 0;
}

/* tests is an array, not a pointer: its length is known here. */
#define UNIT_RUN(suite, tests) \
	unit_run((suite), (tests), sizeof(tests) / sizeof((tests)[0]))

/* mkdtemp on a "...XXXXXX" template.  Returns 0, or -1 with a message. */
static inline int unit_make_dir(char *tmpl)
{
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "mkdtemp %s: %s\n", tmpl, strerror(errno));
		return -1;
	}
	return 0;
}

/* Write text to dir/rel (a fixture in a scratch directory); a test
 * that cannot fails there. */
static inline void unit_write_file(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* Remove a scratch directory and all it holds; a failure is reported. */
static inline void unit_remove_dir(const char *dir)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/*
 * A file of the source tree: from the current directory, or from the
 * binary's (BUILD/tests/test_X is two levels down).
 */
static inline const char *source_file(const char *rel)
{
	char exe[4000];
	ssize_t n;

	if (access(rel, R_OK) == 0)
		return rel;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			static char path[4096];

			*slash = '\0';
			snprintf(path, sizeof(path), "%s/../../%s", exe, rel);
			if (access(path, R_OK) == 0)
				return path;
		}
	}
	fprintf(stderr, "\n  cannot find %s (run from the source tree)\n", rel);
	return rel;
}

/* ns this thread has waited for a CPU so far (run_delay of
 * /proc/thread-self/schedstat; 0 where the kernel does not say): what a
 * bound on a call's own time subtracts on a loaded machine */
static inline unsigned long long unit_queued_ns(void)
{
	unsigned long long run, queued = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu %llu", &run, &queued) != 2)
			queued = 0;
		fclose(f);
	}
	return queued;
}

#endif
