/*
 * test_daemon_metrics.c - tracerd's Prometheus exposition (daemon/
 * metrics.c) from a hand-made table of jobs: label values escaped, one
 * series per job and per tool, the tool cap counted, CPU of live
 * processes included, the registrant left out, nothing of a closed job.
 * (Among the kernel tests only because it links the daemon's objects;
 * it needs no root.)
 */
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "metrics.h"
#include "../unit/unit.h"

static void test_escape(void)
{
	char *s = metrics_label_escape("a\"b\\c\nd\xff");

	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_STRING_EQUAL(s, "a\\\"b\\\\c\\nd\\\\xff");
	free(s);
	s = metrics_label_escape(NULL);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_STRING_EQUAL(s, "");
	free(s);
}

static int count_lines(const char *text, const char *prefix)
{
	int n = 0;
	size_t len = strlen(prefix);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, prefix, len))
			n++;
	return n;
}

static void add_exited(struct job *j, pid_t pid, const char *exe, uint64_t cpu_ns)
{
	struct job_proc *p = job_proc_add(j, pid, 1, 1, "t");
	struct proc_totals t = {.cpu_ns = cpu_ns, .rchar = 100, .wchar = 10};

	job_proc_exec(j, p, exe, NULL, 0, NULL, false);
	job_proc_exit(j, p, 0, 2, &t, 0);
}

static void test_render(void)
{
	uint64_t kernel[8] = {42, 1, 2};
	struct server_stats ss = {.requests = 3};
	struct metrics_daemon md = {.kernel = kernel, .socket = &ss, .start_time_s = 100};
	struct jobs js = {0};
	struct open_job oj = {0}, *open[1] = {&oj};
	struct job *j = job_new("node-1 \"x\"", NULL, 10);
	char exe[64], *text;
	size_t len;

	CU_ASSERT_FATAL(j != NULL);
	j->start_ns = 5000000000ull;
	for (int i = 0; i < METRICS_MAX_TOOLS_PER_JOB + 5; i++) {
		snprintf(exe, sizeof(exe), "/bin/tool%02d", i);
		add_exited(j, 100 + i, exe, 1000000ull * (uint64_t)(i + 1));
	}
	/* a live process of tool07, and the registrant, also live */
	struct job_proc *live = job_proc_add(j, 500, 1, 1, "t");
	job_proc_exec(j, live, "/bin/tool07", NULL, 0, NULL, false);
	live->cpu_sampled_ns = 2000000000ull;
	live->rss_bytes = 4096;
	struct job_proc *reg = job_proc_add(j, 501, 1, 1, "tracer");
	job_proc_set_registrant(j, reg);
	reg->cpu_sampled_ns = 7000000000ull;
	reg->rss_bytes = 1 << 20;
	oj.job = j;
	js.open = open;
	js.nopen = 1;
	js.stats.registered = 1;

	text = metrics_render(&js, &md, &len);
	CU_ASSERT_FATAL(text != NULL);
	CU_ASSERT_EQUAL(strlen(text), len);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "tracer_kernel_events_total 42\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "tracer_events_dropped_total{cause=\"ringbuf_full\"} 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "tracer_events_dropped_total{cause=\"procs_table_full\"} 2\n"));
	/* exited CPU 1+...+25 ms = 325 ms, live 2 s; the registrant's 7 s left out */
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"tracer_job_cpu_seconds_total{job_uid=\"node-1 \\\"x\\\"\"} 2.325000\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "tracer_job_memory_bytes{job_uid=\"node-1 \\\"x\\\"\"} 4096\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "tracer_job_processes{job_uid=\"node-1 \\\"x\\\"\"} 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "tracer_job_start_time_seconds{job_uid=\"node-1 \\\"x\\\"\"} 5\n"));
	CU_ASSERT_EQUAL(count_lines(text, "tracer_tool_cpu_seconds_total{"), METRICS_MAX_TOOLS_PER_JOB);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "tracer_job_tools_omitted{job_uid=\"node-1 \\\"x\\\"\"} 5\n"));
	/* tool07: its exited process (8 ms) and the live one (2 s), the heaviest */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "tracer_tool_cpu_seconds_total{job_uid=\"node-1 \\\"x\\\"\","
					     "tool=\"tool07\"} 2.008000\n"));
	/* the lightest tools are the ones left out */
	CU_ASSERT_PTR_NULL(strstr(text, "tool=\"tool00\""));
	free(text);

	/* the job closed: no series of it */
	js.nopen = 0;
	text = metrics_render(&js, &md, &len);
	CU_ASSERT_FATAL(text != NULL);
	CU_ASSERT_PTR_NULL(strstr(text, "job_uid="));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# TYPE tracer_job_cpu_seconds_total counter\n"));
	free(text);
	job_free(j);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"label values escaped", test_escape},
		{"exposition of a job", test_render},
	};
	return UNIT_RUN("daemon_metrics", tests);
}
