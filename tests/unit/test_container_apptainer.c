/* test_container_apptainer.c - Apptainer/Singularity containers from the
 * starter's path and the CLI's command line. */
#include <stdio.h>
#include <string.h>

#include "container_apptainer.h"
#include "unit.h"

/* argv as the kernel gives it: arguments each ended by a NUL */
#define CLI(s) s, sizeof(s) - 1

static void starters(void)
{
	CU_ASSERT_STRING_EQUAL(container_apptainer_starter("/usr/libexec/apptainer/bin/starter"),
			       "apptainer");
	CU_ASSERT_STRING_EQUAL(container_apptainer_starter("/usr/local/libexec/apptainer/bin/starter-suid"),
			       "apptainer");
	CU_ASSERT_STRING_EQUAL(container_apptainer_starter("/usr/libexec/singularity/bin/starter"),
			       "singularity");
	CU_ASSERT_STRING_EQUAL(container_apptainer_starter("/opt/sing/3.8/libexec/singularity/bin/starter-suid"),
			       "singularity");
	CU_ASSERT_STRING_EQUAL(container_apptainer_starter("/tmp/t.1/libexec/apptainer/bin/starter"),
			       "apptainer");
	CU_ASSERT_PTR_NULL(container_apptainer_starter(NULL));
	CU_ASSERT_PTR_NULL(container_apptainer_starter(""));
	CU_ASSERT_PTR_NULL(container_apptainer_starter("/usr/bin/apptainer"));
	CU_ASSERT_PTR_NULL(container_apptainer_starter("/usr/libexec/apptainer/bin/starter.old"));
	CU_ASSERT_PTR_NULL(container_apptainer_starter("/usr/libexec/apptainer/bin/xstarter"));
	CU_ASSERT_PTR_NULL(container_apptainer_starter("/home/u/bin/starter"));
	CU_ASSERT_PTR_NULL(container_apptainer_starter("libexec/apptainer/bin/starter"));
}

static void cli_is(const char *argv, size_t len, const char *runtime, const char *action,
		   const char *image, const char *instance)
{
	struct apptainer_cli c;
	int rc = container_apptainer_cli(argv, len, &c);

	CU_ASSERT_EQUAL(rc, 0);
	if (rc != 0) {
		fprintf(stderr, "\n  not a CLI: %s ...\n", argv);
		return;
	}
	CU_ASSERT_STRING_EQUAL(c.runtime, runtime);
	CU_ASSERT_STRING_EQUAL(c.action, action);
	CU_ASSERT_STRING_EQUAL(c.image, image);
	CU_ASSERT_STRING_EQUAL(c.instance, instance);
	if (strcmp(c.image, image) != 0)
		fprintf(stderr, "\n  image %s, want %s\n", c.image, image);
}

static void cli_not(const char *argv, size_t len)
{
	struct apptainer_cli c;

	CU_ASSERT_EQUAL(container_apptainer_cli(argv, len, &c), -1);
	CU_ASSERT_STRING_EQUAL(c.image, "");
	CU_ASSERT_STRING_EQUAL(c.runtime, "");
}

static void cli_lines(void)
{
	cli_is(CLI("apptainer\0exec\0image.sif\0sh\0-c\0gzip x\0"), "apptainer", "exec",
	       "image.sif", "");
	cli_is(CLI("/usr/bin/singularity\0run\0/data/img/tool.sif\0"), "singularity", "run",
	       "/data/img/tool.sif", "");
	/* options, their values, attached values, combined flags */
	cli_is(CLI("apptainer\0exec\0--bind\0/a:/b\0-B\0/c\0--env=X=1\0-Cp\0--nv\0--home\0/h\0"
		   "docker://debian:12\0ls\0"),
	       "apptainer", "exec", "docker://debian:12", "");
	cli_is(CLI("apptainer\0exec\0-B/a\0-cW\0/w\0library://alpine\0true\0"), "apptainer",
	       "exec", "library://alpine", "");
	/* global options before the action; its -c takes a file */
	cli_is(CLI("apptainer\0--debug\0-c\0/etc/a.conf\0-q\0shell\0oras://r/x:1\0"),
	       "apptainer", "shell", "oras://r/x:1", "");
	cli_is(CLI("singularity\0test\0--\0sandbox/\0"), "singularity", "test", "sandbox/", "");
	cli_is(CLI("apptainer\0instance\0start\0--pid\0web.sif\0web1\0--port\0"), "apptainer",
	       "instance start", "web.sif", "web1");
	cli_is(CLI("apptainer\0instance\0run\0a.sif\0"), "apptainer", "instance run", "a.sif", "");
	/* the interpreter of a CLI script, then the script */
	cli_is(CLI("/bin/sh\0/tmp/t/bin/apptainer\0exec\0--pid\0image.sif\0sh\0"), "apptainer",
	       "exec", "image.sif", "");
	/* the last NUL cut off */
	cli_is(CLI("apptainer\0exec\0i.sif"), "apptainer", "exec", "i.sif", "");
}

static void not_cli(void)
{
	cli_not(NULL, 0);
	cli_not("", 0);
	cli_not(CLI("\0"));
	cli_not(CLI("apptainer\0"));
	cli_not(CLI("apptainer\0build\0x.sif\0def\0"));
	cli_not(CLI("apptainer\0pull\0docker://x\0"));
	cli_not(CLI("apptainer\0instance\0list\0"));
	cli_not(CLI("apptainer\0exec\0"));
	cli_not(CLI("apptainer\0exec\0--bind\0/a:/b\0"));
	cli_not(CLI("apptainer\0--version\0"));
	cli_not(CLI("gzip\0apptainer\0exec\0x.sif\0"));
	cli_not(CLI("/bin/sh\0-c\0apptainer exec x.sif\0"));
	cli_not(CLI("apptainerx\0exec\0x.sif\0"));
}

static void ids(void)
{
	char a[CONTAINER_ID_LEN + 1], b[CONTAINER_ID_LEN + 1], c[CONTAINER_ID_LEN + 1];

	container_apptainer_id(1234, 1700000000123456789ULL, a);
	container_apptainer_id(1234, 1700000000123456789ULL, b);
	container_apptainer_id(1235, 1700000000123456789ULL, c);
	CU_ASSERT_EQUAL(strlen(a), CONTAINER_ID_LEN);
	CU_ASSERT_EQUAL(strspn(a, "0123456789abcdef"), CONTAINER_ID_LEN);
	CU_ASSERT_STRING_EQUAL(a, b); /* stable */
	CU_ASSERT(strncmp(a, c, CONTAINER_SHORT_ID) != 0);
	container_apptainer_id(1234, 1700000000123456790ULL, c);
	CU_ASSERT(strncmp(a, c, CONTAINER_SHORT_ID) != 0);
}

static void info(void)
{
	struct container_info c;
	static const char cli[] = "apptainer\0instance\0start\0a.sif\0db\0";

	CU_ASSERT_EQUAL(container_apptainer_info("/usr/bin/sh", 1, 2, cli, sizeof(cli) - 1, &c), -1);
	CU_ASSERT_STRING_EQUAL(c.runtime, "");
	CU_ASSERT_EQUAL(container_apptainer_info("/usr/libexec/singularity/bin/starter-suid", 7,
						 9, cli, sizeof(cli) - 1, &c), 0);
	CU_ASSERT_STRING_EQUAL(c.runtime, "singularity");
	CU_ASSERT_STRING_EQUAL(c.image, "a.sif");
	CU_ASSERT_STRING_EQUAL(c.name, "db");
	CU_ASSERT_EQUAL(strlen(c.id), CONTAINER_ID_LEN);
	CU_ASSERT(c.by_descent);
	CU_ASSERT_STRING_EQUAL(c.ref.v2, "");
	/* not launched by the CLI: a container with no image */
	CU_ASSERT_EQUAL(container_apptainer_info("/usr/libexec/apptainer/bin/starter", 7, 9,
						 "bash\0", 5, &c), 0);
	CU_ASSERT_STRING_EQUAL(c.runtime, "apptainer");
	CU_ASSERT_STRING_EQUAL(c.image, "");
	CU_ASSERT_EQUAL(container_apptainer_info("/usr/libexec/apptainer/bin/starter", 7, 9,
						 NULL, 0, &c), 0);
}

static void set_add(void)
{
	struct container_set s;
	struct container_info c;

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < CONTAINER_MAX; i++) {
		container_apptainer_info("/usr/libexec/apptainer/bin/starter", 100 + i, 5, NULL, 0, &c);
		CU_ASSERT_EQUAL(container_set_add(&s, &c), i + 1);
		CU_ASSERT_EQUAL(container_set_add(&s, &c), i + 1); /* the same id once */
	}
	container_apptainer_info("/usr/libexec/apptainer/bin/starter", 99, 5, NULL, 0, &c);
	CU_ASSERT_EQUAL(container_set_add(&s, &c), 0);
	CU_ASSERT_EQUAL(s.not_listed, 1);
	CU_ASSERT_EQUAL(s.n, CONTAINER_MAX);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"starter paths", starters},
		{"CLI command lines", cli_lines},
		{"not a CLI starting a container", not_cli},
		{"container ids", ids},
		{"container objects", info},
		{"container set", set_add},
	};

	return unit_run("container_apptainer", tests, sizeof(tests) / sizeof(tests[0]));
}
