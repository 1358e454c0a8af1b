/* test_tune.c - `tracer tune`'s statistics (lib/tune.c, lib/tune_fit.c,
 * lib/tune_read.c): percentiles, the least squares fit and when it is
 * used, the request's floors after OOM kills and timeouts and over a
 * succeeded run's peak, grouping by owner (another user's runs never move
 * a step's request), the saving, a run read from a summary and from a
 * datalake row, and the datalake query's columns and quoting. */
#include <math.h>
#include <string.h>

#include "config.h"
#include "defaults.h"
#include "growbuf.h"
#include "proto.h"
#include "tune.h"
#include "tune_fit.h"
#include "tune_read.h"
#include "unit.h"

#define MiB (1024.0 * 1024.0)
#define GiB (1024.0 * MiB)

static struct tune_run run(const char *task, const char *user, double peak_mib,
			   double input_mib, enum tune_end end)
{
	struct tune_run r = {0};

	snprintf(r.task, sizeof(r.task), "%s", task);
	snprintf(r.pipeline, sizeof(r.pipeline), "P");
	snprintf(r.user, sizeof(r.user), "%s", user);
	r.uid = user[0];
	r.end = end;
	r.alloc_cpus = 4;
	r.alloc_mem = (uint64_t)(4 * GiB);
	r.time_limit_s = 3600;
	r.cpus_needed = 2;
	r.peak = (uint64_t)(peak_mib * MiB);
	r.input_bytes = (uint64_t)(input_mib * MiB);
	r.wall_s = 600;
	r.cpu_s = 1000;
	return r;
}

static void test_percentile(void)
{
	double v[20], one[1] = {7};

	for (int i = 0; i < 20; i++)
		v[i] = 20 - i; /* 20 .. 1, unsorted */
	CU_ASSERT_DOUBLE_EQUAL(tune_percentile(v, 20, 95), 19, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tune_percentile(v, 20, 50), 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tune_percentile(v, 20, 100), 20, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tune_percentile(one, 1, 95), 7, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tune_percentile(NULL, 0, 95), 0, 1e-9);
}

static void test_fit_exact_line(void)
{
	double x[] = {100, 200, 400, 800}, y[4];
	struct tune_fit f;

	for (int i = 0; i < 4; i++)
		y[i] = 50 + 2 * x[i];
	CU_ASSERT_TRUE(tune_fit_line(x, y, 4, &f));
	CU_ASSERT_DOUBLE_EQUAL(f.a, 50, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(f.b, 2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f.r2, 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f.rmse, 0, 1e-6);
	CU_ASSERT_EQUAL(f.distinct, 4);
	CU_ASSERT_TRUE(tune_fit_usable(&f));
}

static void test_fit_known_values(void)
{
	/* x 1..5, y 2,4,5,4,5: b 0.6, a 2.2, R² 0.6 (a textbook example) */
	double x[] = {1, 2, 3, 4, 5}, y[] = {2, 4, 5, 4, 5};
	struct tune_fit f;

	CU_ASSERT_TRUE(tune_fit_line(x, y, 5, &f));
	CU_ASSERT_DOUBLE_EQUAL(f.b, 0.6, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f.a, 2.2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f.r2, 0.6, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f.rmse, sqrt(2.4 / 5), 1e-9);
	CU_ASSERT_FALSE(tune_fit_usable(&f)); /* R² under 0.8 */
}

static void test_fit_needs_sizes(void)
{
	double x[] = {100, 100, 200}, y[] = {10, 11, 30}, same[] = {5, 5, 5};
	struct tune_fit f;

	/* 3 runs of 2 sizes: a line, but not enough sizes to trust it */
	CU_ASSERT_TRUE(tune_fit_line(x, y, 3, &f));
	CU_ASSERT_EQUAL(f.distinct, 2);
	CU_ASSERT_FALSE(tune_fit_usable(&f));
	CU_ASSERT_FALSE(tune_fit_line(same, y, 3, &f));
	CU_ASSERT_FALSE(tune_fit_usable(&f));
}

static void params(struct tune_params *p)
{
	tune_params_init(p, NULL);
}

static void test_request_p95_and_floor(void)
{
	struct tune_run r[20];
	struct tune_params p;
	struct tune_step s;

	params(&p);
	for (int i = 0; i < 20; i++)
		r[i] = run("t", "alice", 100 + i, 0, TUNE_OK); /* peaks 100..119 MiB */
	tune_step_compute(&s, r, 20, &p);
	CU_ASSERT_EQUAL(s.runs, 20);
	CU_ASSERT_EQUAL(s.ok, 20);
	CU_ASSERT_EQUAL(s.cpus, 2);
	/* never below a succeeded run's peak: 119 MiB x 1.2 = 142.8 -> 192 MiB */
	CU_ASSERT_EQUAL(s.peak_p95, (uint64_t)(118 * MiB));
	CU_ASSERT_EQUAL(s.mem_bytes, (uint64_t)(192 * MiB));
	/* wall 600 s x 1.2 = 720 s = 12 min */
	CU_ASSERT_DOUBLE_EQUAL(s.time_s, 720, 1e-9);
	CU_ASSERT_FALSE(s.retry_on_oom);
	/* saving: (4 - 2) CPUs x 600 s x 20 runs = 6.667 core-h */
	CU_ASSERT_DOUBLE_EQUAL(s.core_h_saved, 2 * 600.0 / 3600 * 20, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.gb_h_saved, (4 - 192.0 / 1024) * 600.0 / 3600 * 20, 1e-9);
	CU_ASSERT_FALSE(s.has_cost);
	CU_ASSERT_STRING_EQUAL(s.confidence, "high");
}

static void test_request_after_oom(void)
{
	struct tune_run r[3];
	struct tune_params p;
	struct tune_step s;

	params(&p);
	r[0] = run("t", "alice", 500, 0, TUNE_OK);
	r[1] = run("t", "alice", 600, 0, TUNE_OK);
	r[2] = run("t", "alice", 900, 0, TUNE_OOM);
	r[2].alloc_mem = (uint64_t)(1 * GiB);
	tune_step_compute(&s, r, 3, &p);
	CU_ASSERT_EQUAL(s.oom, 1);
	CU_ASSERT_TRUE(s.retry_on_oom);
	/* the OOM'd run needed at least 1 GiB x 1.5; x 1.2 = 1843.2 MiB -> 1856 */
	CU_ASSERT_EQUAL(s.mem_bytes, (uint64_t)(1856 * MiB));
}

static void test_request_after_timeout(void)
{
	struct tune_run r[2];
	struct tune_params p;
	struct tune_step s;

	params(&p);
	r[0] = run("t", "alice", 100, 0, TUNE_OK);
	r[1] = run("t", "alice", 100, 0, TUNE_TIMEOUT);
	r[1].time_limit_s = 1000;
	r[1].wall_s = 1000;
	tune_step_compute(&s, r, 2, &p);
	CU_ASSERT_EQUAL(s.timeout, 1);
	/* 1000 s x 1.5 = 1500 s, x 1.2 = 1800 s */
	CU_ASSERT_DOUBLE_EQUAL(s.time_s, 1800, 1e-9);
}

static void test_request_by_fit(void)
{
	struct tune_run r[4];
	struct tune_params p;
	struct tune_step s;
	double in[] = {100, 200, 400, 800};

	params(&p);
	for (int i = 0; i < 4; i++)
		r[i] = run("t", "alice", 50 + 0.5 * in[i], in[i], TUNE_OK);
	tune_step_compute(&s, r, 4, &p);
	CU_ASSERT_TRUE(s.fit_used);
	CU_ASSERT_DOUBLE_EQUAL(s.fit.r2, 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.fit.b, 0.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.fit.a, 50 * MiB, 1);
	/* largest input 800 MiB: 450 MiB x 1.2 = 540 -> 576 MiB */
	CU_ASSERT_EQUAL(s.mem_bytes, (uint64_t)(576 * MiB));
}

static void test_owner_scope(void)
{
	struct tune_run r[6], alone[3];
	struct tune_params p;
	struct tune_step *st = NULL, *st2 = NULL;
	size_t n = 0, n2 = 0;

	params(&p);
	for (int i = 0; i < 3; i++) {
		r[i] = alone[i] = run("align", "alice", 100 + i, 0, TUNE_OK);
		r[3 + i] = run("align", "bob", 5000, 0, TUNE_OOM); /* same name, another user */
	}
	CU_ASSERT_EQUAL_FATAL(tune_steps(r, 6, &p, &st, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_STRING_EQUAL(st[0].user, "alice");
	CU_ASSERT_STRING_EQUAL(st[1].user, "bob");
	CU_ASSERT_EQUAL_FATAL(tune_steps(alone, 3, &p, &st2, &n2), 0);
	CU_ASSERT_EQUAL_FATAL(n2, 1);
	/* alice's request is the same with and without bob's runs */
	CU_ASSERT_EQUAL(st[0].mem_bytes, st2[0].mem_bytes);
	CU_ASSERT_EQUAL(st[0].cpus, st2[0].cpus);
	CU_ASSERT_DOUBLE_EQUAL(st[0].time_s, st2[0].time_s, 1e-9);
	CU_ASSERT_EQUAL(st[0].runs, 3);
	free(st);
	/* shared: one step of the pipeline, every owner's runs */
	p.shared = true;
	CU_ASSERT_EQUAL_FATAL(tune_steps(r, 6, &p, &st, &n), 0);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(st[0].runs, 6);
	CU_ASSERT_STRING_EQUAL(st[0].user, "");
	free(st);
	/* --min-runs */
	p.shared = false;
	p.min_runs = 4;
	CU_ASSERT_EQUAL_FATAL(tune_steps(r, 6, &p, &st, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	free(st);
	free(st2);
}

static void test_cost(void)
{
	struct tune_run r[1];
	struct tune_params p;
	struct tune_step s;

	params(&p);
	p.price_cpu_hour = 0.5;
	p.price_gb_hour = 0.1;
	r[0] = run("t", "alice", 100, 0, TUNE_OK);
	r[0].wall_s = 3600;
	tune_step_compute(&s, r, 1, &p);
	CU_ASSERT_TRUE(s.has_cost);
	CU_ASSERT_DOUBLE_EQUAL(s.core_h_saved, 2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.cost_saved, 2 * 0.5 + s.gb_h_saved * 0.1, 1e-9);
	CU_ASSERT_STRING_EQUAL(s.confidence, "low");
}

static void test_run_from_summary(void)
{
	cJSON *s = cJSON_Parse(
		"{\"state\":\"OUT_OF_MEMORY\",\"end_ns\":\"1700000000000000000\",\"wall_s\":100,"
		"\"identity\":{\"task_name\":\"bwa\",\"pipeline\":\"P\",\"user\":\"alice\","
		"\"uid\":1001,\"allocation\":{\"cpus\":4,\"mem_bytes\":1073741824,"
		"\"time_limit_s\":600}},\"memory\":{\"peak_bytes\":1000},"
		"\"totals\":{\"cpu_s\":250,\"rchar\":5000},"
		"\"allocation_use\":{\"concurrency\":{\"p95\":2}}}");
	struct tune_run r;

	CU_ASSERT_TRUE_FATAL(tune_run_from_summary(s, &r));
	CU_ASSERT_STRING_EQUAL(r.task, "bwa");
	CU_ASSERT_EQUAL(r.uid, 1001);
	CU_ASSERT_EQUAL(r.end, TUNE_OOM);
	CU_ASSERT_EQUAL(r.end_ns, 1700000000000000000LL);
	CU_ASSERT_DOUBLE_EQUAL(r.alloc_cpus, 4, 1e-9);
	CU_ASSERT_EQUAL(r.alloc_mem, 1073741824u);
	CU_ASSERT_EQUAL(r.input_bytes, 5000u);
	/* the mean use (2.5 -> 3) is above the concurrency p95 (2) */
	CU_ASSERT_DOUBLE_EQUAL(r.cpus_needed, 3, 1e-9);
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(s, "identity"), "task_name");
	CU_ASSERT_FALSE(tune_run_from_summary(s, &r));
	cJSON_Delete(s);
}

static void test_datalake_row_and_sql(void)
{
	const char *row = "{\"t_task\":\"sort\",\"t_pipeline\":\"P\",\"t_user\":\"bob\","
			  "\"t_uid\":1002,\"t_end\":\"2000000000000\",\"t_start\":\"1000000000000\","
			  "\"t_worst\":4,\"t_alloc_cpus\":8,\"t_alloc_mem\":\"2147483648\","
			  "\"t_limit\":\"900\",\"t_peak\":\"1048576\",\"t_cpu_s\":2000,"
			  "\"t_input\":\"42\",\"t_nodes\":\"2\"}";
	struct tracer_config cfg;
	struct job_filter f;
	struct growbuf sql = {0};
	struct tune_run r;
	char err[256];

	CU_ASSERT_TRUE_FATAL(tune_read_row(row, strlen(row), &r));
	CU_ASSERT_STRING_EQUAL(r.task, "sort");
	CU_ASSERT_EQUAL(r.end, TUNE_TIMEOUT);
	CU_ASSERT_DOUBLE_EQUAL(r.wall_s, 1000, 1e-9);
	CU_ASSERT_EQUAL(r.alloc_mem, 2147483648u);
	CU_ASSERT_EQUAL(r.input_bytes, 42u);
	/* 2000 CPU-s over 1000 s on 2 nodes, no concurrency (a row before
	 * schema v4): 1 CPU per node */
	CU_ASSERT_DOUBLE_EQUAL(r.cpus_needed, 1, 1e-9);
	/* one summary: its concurrency p95 when above the mean use */
	CU_ASSERT_DOUBLE_EQUAL(tune_read_cpus(6, 1, 100, 100, 1), 6, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tune_read_cpus(2, 1, 250, 100, 1), 3, 1e-9); /* mean 2.5 -> 3 */
	CU_ASSERT_DOUBLE_EQUAL(tune_read_cpus(0, 1, 0, 100, 1), 1, 1e-9);
	/* 3 summaries on 2 nodes, nodes' concurrency summed 8: 4 per node,
	 * as the archive's roll-up (recommendation 8, per node) */
	CU_ASSERT_DOUBLE_EQUAL(tune_read_cpus(8, 3, 200, 100, 2), 4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tune_read_cpus(1, 3, 500, 100, 2), 3, 1e-9); /* mean 5 -> 2.5 -> 3 */

	config_defaults(&cfg);
	job_filter_init(&f);
	f.owner_uid = 1002;
	f.since_ns = 5;
	CU_ASSERT_EQUAL_FATAL(tune_read_sql(&cfg, &f, "it's", 100, &sql, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(sql.p, "uid = 1002"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql.p, "end_ns >= 5"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql.p, "pipeline = 'it\\'s'"));
	CU_ASSERT_PTR_NULL(strstr(sql.p, "summary,")); /* never the whole summary */
	CU_ASSERT_PTR_NOT_NULL(strstr(sql.p, "max(conc_p95) AS n_conc"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql.p, "sum(n_conc) AS t_conc"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sql.p, "LIMIT 100 FORMAT JSONEachRow"));
	/* no alias is a column's name (ClickHouse would substitute it) */
	CU_ASSERT_PTR_NULL(strstr(sql.p, "AS end_ns"));
	CU_ASSERT_PTR_NULL(strstr(sql.p, "AS cpu_s"));
	growbuf_free(&sql);
	CU_ASSERT_EQUAL(tune_read_sql(&cfg, &f, "a\nb", 100, &sql, err, sizeof(err)), -1);
	growbuf_free(&sql);
}

static void test_tune_request(void)
{
	struct proto_query q = {.limit = 0, .since_ns = 42, .until_ns = INT64_MAX};
	struct proto_request req;
	cJSON *o;
	char *line, err[256];

	snprintf(q.pipeline, sizeof(q.pipeline), "rna seq");
	snprintf(q.runs, sizeof(q.runs), "R1");
	o = proto_tune_request(&q);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	line = cJSON_PrintUnformatted(o);
	CU_ASSERT_EQUAL_FATAL(proto_parse_request(line, strlen(line), &req, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(req.op, PROTO_OP_TUNE_RUNS);
	CU_ASSERT_STRING_EQUAL(req.query.pipeline, "rna seq");
	CU_ASSERT_STRING_EQUAL(req.query.runs, "R1");
	CU_ASSERT_EQUAL(req.query.since_ns, 42);
	free(line);
	cJSON_Delete(o);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"percentile: nearest rank", test_percentile},
		{"fit: an exact line", test_fit_exact_line},
		{"fit: known slope, intercept, R² and error", test_fit_known_values},
		{"fit: needs 3 runs of 3 sizes", test_fit_needs_sizes},
		{"request: p95, never below a succeeded peak, saving", test_request_p95_and_floor},
		{"request: more memory after an OOM kill", test_request_after_oom},
		{"request: more time after a timeout", test_request_after_timeout},
		{"request: memory by input size", test_request_by_fit},
		{"steps: one per owner; shared; --min-runs", test_owner_scope},
		{"saving: cost with prices", test_cost},
		{"run from a summary", test_run_from_summary},
		{"run from a datalake row; the query", test_datalake_row_and_sql},
		{"the tune_runs request to tracerd", test_tune_request},
	};

	return UNIT_RUN("tune", tests);
}
