/*
 * test_job_record.c - the job model and the summary: folding processes into
 * tools, the bounded process tree, outliving processes, CPU split, a
 * summary that is valid JSON whatever the bytes of argv, the registrant
 * kept out of the job's figures, cgroup readings, and the per-process
 * flags of the process tree.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "job_record.h"
#include "rules.h"
#include "summary.h"
#include "unit.h"

static struct rules *rules;

static void exec_proc(struct job *j, struct job_proc *p, const char *exe, const char *argv,
		      size_t len)
{
	job_proc_exec(j, p, exe, argv, len, rules, false);
}

/* Exact integers are raw JSON numbers: read them as a consumer would. */
static cJSON *reparse(cJSON *s)
{
	char *text = cJSON_PrintUnformatted(s);
	cJSON *back = text ? cJSON_Parse(text) : NULL;

	free(text);
	cJSON_Delete(s);
	return back;
}

static const cJSON *find_tool(const cJSON *s, const char *name)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(s, "tools"))
		if (!strcmp(cJSON_GetObjectItem(t, "tool")->valuestring, name))
			return t;
	return NULL;
}

static void test_fold_tools(void)
{
	struct tracer_identity id;
	struct host_info host = {.cpus = 4};
	struct summary_opts so = {.source = "test", .sample_interval_ms = 1000};
	struct job *j;

	identity_init(&id);
	snprintf(id.task_name, sizeof(id.task_name), "t");
	id.alloc.cpus = 2;
	j = job_new("job-1", &id, 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	j->start_ns = 1000000000ull;
	for (int i = 0; i < 10; i++) {
		struct job_proc *p = job_proc_add(j, 100 + i, 1, 1000000000ull + i, "samtools");
		struct proc_totals t = {0};
		static const char argv[] = "samtools\0sort\0-o\0x.bam\0";
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		exec_proc(j, p, "/usr/bin/samtools", argv, sizeof(argv) - 1);
		job_record_split_cpu(&t, 1000000000ull * (uint64_t)(i + 1), 3, 1);
		t.maxrss_bytes = (uint64_t)(i + 1) << 20;
		t.rchar = 10;
		job_proc_exit(j, p, i == 9 ? (3 << 8) : 0, 3000000000ull, &t, 0);
	}
	CU_ASSERT_EQUAL(j->nlive, 0);
	CU_ASSERT_EQUAL(j->nkept, 3);
	CU_ASSERT_EQUAL(j->procs_not_kept, 7);
	/* the kept ones are the heaviest: 8, 9, 10 s */
	for (size_t i = 0; i < j->nkept; i++)
		CU_ASSERT(j->kept[i]->totals.cpu_ns >= 8000000000ull);
	j->end_ns = 0;
	job_close(j, 5000000000ull);
	cJSON *s = reparse(summary_build(j, &host, &so));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	const cJSON *t = find_tool(s, "samtools sort");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(cJSON_GetObjectItem(t, "processes")->valueint, 10);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(t, "cpu_s")->valuedouble, 55.0, 1e-6);
	CU_ASSERT_EQUAL(cJSON_GetObjectItem(t, "rchar")->valueint, 100);
	CU_ASSERT_EQUAL((uint64_t)cJSON_GetObjectItem(t, "peak_rss_bytes")->valuedouble, 10u << 20);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(t, "exit_codes")), 2);
	/* efficiency against the allocation: 55 s over 4 s x 2 CPUs */
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(s, "cpu_efficiency")->valuedouble, 55.0 / 8.0, 1e-6);
	/* per tool: the same basis (its share of it), and its own span (1 s to 3 s) */
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(t, "cpu_efficiency")->valuedouble, 55.0 / 8.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(t, "cpu_efficiency_span")->valuedouble,
			       55.0 / 2.0, 1e-6);
	/* nanosecond times as exact strings */
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(s, "start_ns")->valuestring, "1000000000");
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(s, "end_ns")->valuestring, "5000000000");
	/* a process: exit as code/signal, argv as an array beside cmdline */
	const cJSON *p0 = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "process_tree"), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p0);
	CU_ASSERT_EQUAL(cJSON_GetObjectItem(p0, "code")->valueint, 0);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(p0, "exit_code"));
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(p0, "cmdline")->valuestring, "samtools sort -o x.bam");
	const cJSON *av = cJSON_GetObjectItem(p0, "argv");
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(av), 4);
	CU_ASSERT_STRING_EQUAL(cJSON_GetArrayItem(av, 1)->valuestring, "sort");
	CU_ASSERT_STRING_EQUAL(cJSON_GetArrayItem(av, 3)->valuestring, "x.bam");
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(s, "schema")->valuestring, "tracer.job/2");
	cJSON_Delete(s);
	job_free(j);
}

static void test_outlived_and_inherit(void)
{
	struct host_info host = {.cpus = 1};
	struct job *j = job_new("job-2", NULL, 10);
	struct job_proc *parent, *child;

	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	parent = job_proc_add(j, 10, 1, 1, "bash");
	static const char argv[] = "bash\0run.sh\0";
	exec_proc(j, parent, "/usr/bin/bash", argv, sizeof(argv) - 1);
	child = job_proc_add(j, 11, 10, 2, "bash");
	/* a fork that never execs runs its parent's program */
	CU_ASSERT_STRING_EQUAL(child->tool, parent->tool);
	job_close(j, 10);
	CU_ASSERT_EQUAL(j->nlive, 0);
	CU_ASSERT_EQUAL(j->procs_exited, 0);
	cJSON *s = reparse(summary_build(j, &host, NULL));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "processes"), "outlived")->valueint, 2);
	cJSON_Delete(s);
	job_free(j);
}

static void test_tools_bounded(void)
{
	struct job *j = job_new("job-3", NULL, 4);
	char exe[64];

	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	for (int i = 0; i < JOB_MAX_TOOLS + 100; i++) {
		struct job_proc *p = job_proc_add(j, 1000 + i, 1, 1, "t");
		snprintf(exe, sizeof(exe), "/work/%d/.command.sh", i);
		job_proc_exec(j, p, exe, "", 0, rules, false);
		job_proc_exit(j, p, 0, 2, NULL, 0);
	}
	CU_ASSERT_EQUAL(j->ntools, JOB_MAX_TOOLS + 1);
	uint64_t other = 0;
	for (struct tool_agg *t = j->tools; t; t = t->next)
		if (!strcmp(t->tool, JOB_OTHER_TOOLS))
			other = t->procs;
	CU_ASSERT_EQUAL(other, 100);
	job_free(j);
}

static void test_cpu_split(void)
{
	struct proc_totals t = {0};

	job_record_split_cpu(&t, 1000, 0, 0);
	CU_ASSERT_EQUAL(t.user_ns, 1000);
	job_record_split_cpu(&t, 1000, 0, 5);
	CU_ASSERT_EQUAL(t.sys_ns, 1000);
	job_record_split_cpu(&t, 1000, 3, 1);
	CU_ASSERT_EQUAL(t.sys_ns, 250);
	CU_ASSERT_EQUAL(t.user_ns, 750);
}

static void test_hostile_argv_json(void)
{
	struct host_info host = {.cpus = 1};
	struct job *j = job_new("job-\xff", NULL, 10);
	static const char argv[] = "/bin/x\xc3\0--password=hunter2\0\x01\x02\"\\\0";
	struct job_proc *p = job_proc_add(j, 5, 1, 1, "x\xff");

	exec_proc(j, p, "/bin/x\xc3", argv, sizeof(argv) - 1);
	job_close(j, 2);
	cJSON *s = summary_build(j, &host, NULL);
	char *text = cJSON_PrintUnformatted(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NULL(strstr(text, "hunter2"));
	cJSON *back = cJSON_Parse(text);
	CU_ASSERT_PTR_NOT_NULL(back);
	/* every byte is valid UTF-8 */
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		CU_ASSERT(*c < 0x80);
	cJSON_Delete(back);
	free(text);
	cJSON_Delete(s);
	job_free(j);
}

static const cJSON *find_proc(const cJSON *s, int pid)
{
	const cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(s, "process_tree"))
		if (cJSON_GetObjectItem(p, "pid")->valueint == pid)
			return p;
	return NULL;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	CU_ASSERT_PTR_NOT_NULL(v);
	return v ? v->valuedouble : -1;
}

static void test_registrant(void)
{
	struct host_info host = {.cpus = 1};
	static const char rargv[] = "tracer-wrap\0bwa\0mem\0ref.fa\0";
	static const char cargv[] = "bwa\0mem\0ref.fa\0";
	struct proc_totals t = {0};
	struct job *j = job_new("job-reg", NULL, 10);
	struct job_proc *reg, *child;
	const cJSON *procs, *r, *c;
	cJSON *s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	j->start_ns = 1000000000ull;
	reg = job_proc_add(j, 100, 1, 1000000000ull, "tracer-wrap");
	exec_proc(j, reg, "/usr/bin/tracer-wrap", rargv, sizeof(rargv) - 1);
	job_proc_set_registrant(j, reg);
	job_proc_set_registrant(j, reg); /* a second call changes nothing */
	CU_ASSERT_EQUAL(j->procs_total, 0);
	child = job_proc_add(j, 101, 100, 1100000000ull, "tracer-wrap");
	exec_proc(j, child, "/usr/bin/bwa", cargv, sizeof(cargv) - 1);
	job_record_split_cpu(&t, 2000000000ull, 1, 1);
	t.rchar = 300;
	job_proc_exit(j, child, 0, 3000000000ull, &t, 0);
	/* what the registrant knows of itself: its CPU is not the job's */
	job_record_split_cpu(&reg->totals, 5000000000ull, 1, 0);
	reg->totals.rchar = 1000;
	/* still running when the job ends: it ends with its job */
	job_close(j, 4000000000ull);
	CU_ASSERT_EQUAL(j->totals.cpu_ns, 2000000000ull);

	s = reparse(summary_build(j, &host, NULL));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	procs = cJSON_GetObjectItem(s, "processes");
	CU_ASSERT_EQUAL(num(procs, "total"), 1);
	CU_ASSERT_EQUAL(num(procs, "exited"), 1);
	CU_ASSERT_EQUAL(num(procs, "outlived"), 0);
	CU_ASSERT_DOUBLE_EQUAL(num(cJSON_GetObjectItem(s, "totals"), "cpu_s"), 2.0, 1e-6);
	CU_ASSERT_EQUAL(num(cJSON_GetObjectItem(s, "totals"), "rchar"), 300);
	/* one tool, the child's */
	CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(s, "tools")), 1);
	CU_ASSERT_PTR_NOT_NULL(find_tool(s, "bwa mem"));
	CU_ASSERT_PTR_NULL(find_tool(s, "tracer-wrap"));
	/* both in the process tree, only the registrant marked */
	r = find_proc(s, 100);
	c = find_proc(s, 101);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(r, "registrant")));
	CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(r, "outlived")));
	CU_ASSERT_DOUBLE_EQUAL(num(r, "cpu_s"), 5.0, 1e-6);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(c, "registrant"));
	CU_ASSERT_EQUAL(num(c, "ppid"), 100);
	cJSON_Delete(s);
	job_free(j);

	/* a registrant that exits before the job closes: still not counted */
	j = job_new("job-reg-2", NULL, 10);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	reg = job_proc_add(j, 200, 1, 1, "tracer");
	job_proc_set_registrant(j, reg);
	job_proc_exit(j, reg, 0, 2, &t, 0);
	CU_ASSERT_EQUAL(j->procs_total, 0);
	CU_ASSERT_EQUAL(j->procs_exited, 0);
	CU_ASSERT_EQUAL(j->ntools, 0);
	CU_ASSERT_EQUAL(j->totals.cpu_ns, 0);
	CU_ASSERT_EQUAL(j->nkept, 1);
	job_close(j, 3);
	CU_ASSERT_EQUAL(j->procs_total - j->procs_exited, 0);
	job_free(j);
}

static void test_cgroup_readings(void)
{
	struct host_info host = {.cpus = 1};
	const uint64_t mib = 1ull << 20;
	struct cgroup_stats a = {.have_mem = true, .have_cpu = true,
				 .mem_peak_bytes = 100 * mib,
				 .mem_current_bytes = 50 * mib, .cpu_ns = 10000000000ull};
	/* no memory.peak on this kernel: current is all there is */
	struct cgroup_stats b = {.have_mem = true, .have_cpu = true,
				 .mem_current_bytes = 300 * mib, .cpu_ns = 20000000000ull};
	struct cgroup_stats c = {.have_mem = true, .have_cpu = true,
				 .mem_peak_bytes = 200 * mib,
				 .mem_current_bytes = 150 * mib, .cpu_ns = 30000000000ull};
	/* CPU only; and the latest CPU reading is taken as it is */
	struct cgroup_stats d = {.have_cpu = true, .cpu_ns = 25000000000ull};
	/* memory only: the CPU stays */
	struct cgroup_stats e = {.have_mem = true, .mem_current_bytes = 10 * mib};
	struct job *j = job_new("job-cg", NULL, 4);
	const cJSON *mem;
	cJSON *s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_FALSE(j->cgroup_stats);
	job_note_cgroup(j, &a);
	CU_ASSERT(j->cgroup_stats);
	CU_ASSERT_EQUAL(j->cgroup_mem_peak_bytes, 100 * mib);
	CU_ASSERT_EQUAL(j->cgroup_cpu_ns, 10000000000ull);
	job_note_cgroup(j, &b);
	CU_ASSERT_EQUAL(j->cgroup_mem_peak_bytes, 300 * mib);
	CU_ASSERT_EQUAL(j->cgroup_cpu_ns, 20000000000ull);
	job_note_cgroup(j, &c);
	CU_ASSERT_EQUAL(j->cgroup_mem_peak_bytes, 300 * mib);
	CU_ASSERT_EQUAL(j->cgroup_cpu_ns, 30000000000ull);
	job_note_cgroup(j, &d);
	CU_ASSERT_EQUAL(j->cgroup_mem_peak_bytes, 300 * mib);
	CU_ASSERT_EQUAL(j->cgroup_cpu_ns, 25000000000ull);
	job_note_cgroup(j, &e);
	CU_ASSERT_EQUAL(j->cgroup_mem_peak_bytes, 300 * mib);
	CU_ASSERT_EQUAL(j->cgroup_cpu_ns, 25000000000ull);

	snprintf(j->cgroup_path, sizeof(j->cgroup_path), "/sys/fs/cgroup/job_7");
	job_close(j, 1);
	s = reparse(summary_build(j, &host, NULL));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	mem = cJSON_GetObjectItem(s, "memory");
	CU_ASSERT_EQUAL(num(mem, "cgroup_peak_bytes"), 300 * mib);
	CU_ASSERT_DOUBLE_EQUAL(num(mem, "cgroup_cpu_s"), 25.0, 1e-6);
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(mem, "cgroup")->valuestring,
			       "/sys/fs/cgroup/job_7");
	cJSON_Delete(s);
	job_free(j);

	/* a job without a cgroup of its own says nothing about one */
	j = job_new("job-nocg", NULL, 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	job_close(j, 1);
	s = reparse(summary_build(j, &host, NULL));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	mem = cJSON_GetObjectItem(s, "memory");
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(mem, "cgroup"));
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(mem, "cgroup_peak_bytes"));
	cJSON_Delete(s);
	job_free(j);
}

static void test_exe_truncated_threads(void)
{
	struct host_info host = {.cpus = 1};
	static const char argv[] = "tool\0";
	struct job *j = job_new("job-flags", NULL, 4);
	struct job_proc *p, *q;
	const cJSON *pj, *qj;
	cJSON *s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	p = job_proc_add(j, 300, 1, 1, "tool");
	exec_proc(j, p, "/deep/path/cut/here", argv, sizeof(argv) - 1);
	p->flags |= PROC_F_PATH_TRUNCATED;
	p->threads = 8;
	q = job_proc_add(j, 301, 1, 1, "tool");
	exec_proc(j, q, "/usr/bin/tool", argv, sizeof(argv) - 1);
	job_proc_exit(j, p, 0, 2, NULL, 0);
	job_proc_exit(j, q, 0, 2, NULL, 0);
	job_close(j, 3);
	s = reparse(summary_build(j, &host, NULL));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	pj = find_proc(s, 300);
	qj = find_proc(s, 301);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pj);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qj);
	CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(pj, "exe_truncated")));
	CU_ASSERT_EQUAL(num(pj, "threads"), 8);
	/* absent, not false or 0, when there is nothing to say */
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(qj, "exe_truncated"));
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(qj, "threads"));
	cJSON_Delete(s);
	job_free(j);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"fold processes into tools", test_fold_tools},
		{"outliving processes, inherited tool", test_outlived_and_inherit},
		{"cputime_adjust split", test_cpu_split},
		{"tool list bounded", test_tools_bounded},
		{"hostile argv gives valid JSON", test_hostile_argv_json},
		{"registrant: in the tree, not in tools or totals", test_registrant},
		{"cgroup readings", test_cgroup_readings},
		{"exe_truncated and threads", test_exe_truncated_threads},
	};
	int rc;

	rules = rules_default();
	rc = UNIT_RUN("job", tests);
	rules_free(rules);
	return rc;
}
