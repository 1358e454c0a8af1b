/* test_cost.c - the cost of a job and its tools (lib/cost.c): no prices,
 * no cost; the allocation's cost by resources and by instance; spot and
 * on-demand from the AWS lifecycle label; a Fargate task at Fargate's
 * prices; tools sum to the used part. */
#include <math.h>
#include <string.h>

#include "config.h"
#include "cost.h"
#include "identity.h"
#include "job_record.h"
#include "unit.h"

#define GiB 1073741824.0

/* A summary of a 2-hour job using 3 CPU-hours and a 2 GiB peak, two tools. */
static cJSON *summary(void)
{
	cJSON *s = cJSON_Parse("{\"wall_s\": 7200, \"totals\": {\"cpu_s\": 10800},"
			       " \"memory\": {\"peak_bytes\": 2147483648},"
			       " \"tools\": [{\"tool\": \"a\", \"cpu_s\": 7200, \"wall_s\": 7200,"
			       "   \"peak_rss_bytes\": 1073741824},"
			       "  {\"tool\": \"b\", \"cpu_s\": 3600, \"wall_s\": 3600,"
			       "   \"peak_rss_bytes\": 1073741824}]}");

	CU_ASSERT_FATAL(s != NULL);
	return s;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	CU_ASSERT(cJSON_IsNumber(v));
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double tools_sum(const cJSON *s)
{
	const cJSON *t;
	double sum = 0;

	cJSON_ArrayForEach(t, cJSON_GetObjectItem(s, "tools"))
		sum += num(t, "cost");
	return sum;
}

static struct job *job(const char *lifecycle)
{
	struct tracer_identity id;
	struct job *j;

	identity_init(&id);
	id.alloc.cpus = 4;
	id.alloc.mem_bytes = 8ull << 30;
	if (lifecycle)
		identity_set_label(&id, "aws.lifecycle", lifecycle);
	j = job_new("t", &id, 4);
	CU_ASSERT_FATAL(j != NULL);
	return j;
}

static void test_no_price(void)
{
	struct tracer_config cfg = {0};
	struct job *j = job("spot");
	cJSON *s = summary();

	cost_add(s, j, 4, &cfg);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(s, "cost"));
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(s, "tools"), 0), "cost"));
	/* a spot price alone on an instance that is not spot: no price applies */
	cfg.price_spot_instance_hour = 1;
	cJSON_Delete(s);
	job_free(j);
	j = job("on-demand");
	s = summary();
	cost_add(s, j, 4, &cfg);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(s, "cost"));
	cJSON_Delete(s);
	job_free(j);
}

static void test_resources(void)
{
	struct tracer_config cfg = {.price_cpu_hour = 0.05, .price_gb_hour = 0.01};
	struct job *j = job(NULL);
	cJSON *s = summary(), *c;
	const cJSON *a;

	cost_add(s, j, 4, &cfg);
	c = cJSON_GetObjectItem(s, "cost");
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_STRING_EQUAL(str(c, "basis"), "resources");
	CU_ASSERT_PTR_NULL(str(c, "pricing")); /* lifecycle unknown */
	/* 2 h x (4 x 0.05 + 8 x 0.01) */
	CU_ASSERT_DOUBLE_EQUAL(num(c, "total"), 2 * (4 * 0.05 + 8 * 0.01), 1e-9);
	/* 3 CPU-h x 0.05 + 2 h x 2 GiB x 0.01 */
	CU_ASSERT_DOUBLE_EQUAL(num(c, "used"), 3 * 0.05 + 2 * 2 * 0.01, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(num(c, "used") + num(c, "unused"), num(c, "total"), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tools_sum(s), num(c, "used"), 1e-9);
	/* a: 2/3 of the CPU part, 2/3 of the GiB-hours (1 GiB x 2 h of 3) */
	a = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "tools"), 0);
	CU_ASSERT_DOUBLE_EQUAL(num(a, "cost"), 2.0 / 3 * 0.15 + 2.0 / 3 * 0.04, 1e-9);
	cJSON_Delete(s);
	job_free(j);
}

static void test_instance_spot(void)
{
	struct tracer_config cfg = {.price_instance_hour = 0.34, .price_spot_instance_hour = 0.1,
				    .price_cpu_hour = 5};
	struct job *j = job("spot");
	cJSON *s = summary(), *c;

	cost_add(s, j, 4, &cfg);
	c = cJSON_GetObjectItem(s, "cost");
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_STRING_EQUAL(str(c, "basis"), "instance");
	CU_ASSERT_STRING_EQUAL(str(c, "pricing"), "spot");
	CU_ASSERT_STRING_EQUAL(str(c, "instance_life_cycle"), "spot");
	CU_ASSERT_DOUBLE_EQUAL(num(c, "total"), 2 * 0.1, 1e-9);
	/* used: 3 CPU-h of 8 allocated */
	CU_ASSERT_DOUBLE_EQUAL(num(c, "used"), 0.2 * 3 / 8, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tools_sum(s), num(c, "used"), 1e-9);
	cJSON_Delete(s);
	job_free(j);

	j = job("on-demand");
	s = summary();
	cost_add(s, j, 4, &cfg);
	c = cJSON_GetObjectItem(s, "cost");
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_STRING_EQUAL(str(c, "pricing"), "on-demand");
	CU_ASSERT_DOUBLE_EQUAL(num(c, "total"), 2 * 0.34, 1e-9);
	cJSON_Delete(s);
	job_free(j);
}

/* CPU beyond the allocation (no cgroup to stop it) is not billed twice. */
static void test_over_allocation(void)
{
	struct tracer_config cfg = {.price_cpu_hour = 1};
	struct job *j = job(NULL);
	cJSON *s = summary(), *c;

	cost_add(s, j, 1, &cfg); /* 3 CPU-h used in a 1-CPU, 2-hour allocation */
	c = cJSON_GetObjectItem(s, "cost");
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_DOUBLE_EQUAL(num(c, "total"), 2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(num(c, "used"), 2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(num(c, "unused"), 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tools_sum(s), 2, 1e-9);
	cJSON_Delete(s);
	job_free(j);
}

/* cost_add on a job whose ECS launch type is launch_type, with cfg */
static cJSON *cost_on(const char *launch_type, const struct tracer_config *cfg)
{
	struct job *j = job(NULL);
	cJSON *s = summary();

	identity_set_label(&j->id, "ecs.launch_type", launch_type);
	cost_add(s, j, 4, cfg);
	job_free(j);
	return s;
}

static void test_fargate(void)
{
	struct tracer_config cfg = {.price_fargate_vcpu_hour = 0.04, .price_fargate_gb_hour = 0.004,
				    .price_cpu_hour = 1, .price_instance_hour = 10};
	cJSON *s = cost_on("FARGATE", &cfg), *c = cJSON_GetObjectItem(s, "cost");

	/* Fargate's prices, not the site's nor an instance's */
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_STRING_EQUAL(str(c, "basis"), "fargate");
	CU_ASSERT_DOUBLE_EQUAL(num(c, "price_fargate_vcpu_hour"), 0.04, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(num(c, "price_fargate_gb_hour"), 0.004, 1e-12);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(c, "price_cpu_hour"));
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(c, "price_instance_hour"));
	/* 2 h x (4 vCPUs x 0.04 + 8 GiB x 0.004); used: 3 CPU-h, 2 h x 2 GiB */
	CU_ASSERT_DOUBLE_EQUAL(num(c, "total"), 2 * (4 * 0.04 + 8 * 0.004), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(num(c, "used"), 3 * 0.04 + 2 * 2 * 0.004, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tools_sum(s), num(c, "used"), 1e-9);
	cJSON_Delete(s);

	/* a quarter vCPU is billed as such, not as the whole CPU allocated */
	{
		struct job *j = job(NULL);

		identity_set_label(&j->id, "ecs.launch_type", "FARGATE");
		identity_set_label(&j->id, "ecs.task_vcpus", "0.25");
		s = summary();
		cost_add(s, j, 1, &cfg);
		c = cJSON_GetObjectItem(s, "cost");
		CU_ASSERT_FATAL(c != NULL);
		/* 2 h x (0.25 x 0.04 + 8 x 0.004); CPU used at most 2 h x 0.25 */
		CU_ASSERT_DOUBLE_EQUAL(num(c, "total"), 2 * (0.25 * 0.04 + 8 * 0.004), 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(num(c, "used"), 2 * 0.25 * 0.04 + 2 * 2 * 0.004, 1e-9);
		cJSON_Delete(s);
		job_free(j);
	}

	/* on EC2 the Fargate prices do not apply: the instance's does */
	s = cost_on("EC2", &cfg);
	CU_ASSERT_STRING_EQUAL(str(cJSON_GetObjectItem(s, "cost"), "basis"), "instance");
	cJSON_Delete(s);

	/* on Fargate without Fargate prices: the site's per-resource prices,
	 * never an instance's */
	cfg.price_fargate_vcpu_hour = cfg.price_fargate_gb_hour = 0;
	s = cost_on("FARGATE", &cfg);
	CU_ASSERT_STRING_EQUAL(str(cJSON_GetObjectItem(s, "cost"), "basis"), "resources");
	cJSON_Delete(s);
	cfg.price_cpu_hour = 0;
	s = cost_on("FARGATE", &cfg);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(s, "cost"));
	cJSON_Delete(s);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"no price, no cost", test_no_price},
		{"resources: allocation, used, unused, tools sum", test_resources},
		{"instance: spot and on-demand prices", test_instance_spot},
		{"CPU over the allocation", test_over_allocation},
		{"fargate: the task's vCPUs and GiB at Fargate's prices", test_fargate},
	};

	return UNIT_RUN("cost", tests);
}
