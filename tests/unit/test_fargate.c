/*
 * test_fargate.c - the Fargate size that holds a request: the fewest
 * vCPUs first, then the least memory of that vCPU's values; none past
 * 16 vCPU or 120 GiB; every size it gives is one Fargate runs.
 */
#include "unit.h"

#include "fargate.h"

static void expect(double cpus, uint64_t mib, const char *vcpu, uint64_t want_mib)
{
	struct fargate_size fs;

	CU_ASSERT_EQUAL_FATAL(fargate_fit(cpus, mib, &fs), 0);
	CU_ASSERT_STRING_EQUAL(fs.vcpu, vcpu);
	CU_ASSERT_EQUAL(fs.mem_mib, want_mib);
}

static void test_fit(void)
{
	expect(0.1, 64, "0.25", 512);      /* the smallest size */
	expect(0.25, 600, "0.25", 1024);
	expect(0.25, 1500, "0.25", 2048);  /* 0.25 vCPU has no 1536 */
	expect(0.5, 2100, "0.5", 3072);
	expect(1, 192, "1", 2048);         /* 1 vCPU: 2 GiB at least */
	expect(1, 8192, "1", 8192);
	expect(1, 9000, "2", 9216);        /* more memory than 1 vCPU has */
	expect(3, 100, "4", 8192);         /* no 3 vCPU size */
	expect(4, 30720, "4", 30720);
	expect(8, 17000, "8", 20480);      /* 8 vCPU: 4 GiB steps */
	expect(4, 40000, "8", 40960);
	expect(16, 70000, "16", 73728);    /* 16 vCPU: 8 GiB steps */
}

static void test_too_large(void)
{
	struct fargate_size fs;

	CU_ASSERT_EQUAL(fargate_fit(17, 1024, &fs), -1);
	CU_ASSERT_EQUAL(fargate_fit(16, 122881, &fs), -1);
	CU_ASSERT_EQUAL(fargate_fit(1, 122880, &fs), 0);
	CU_ASSERT_STRING_EQUAL(fs.vcpu, "16");
}

/* every size answered for every request up to the largest lies on one
 * of the vCPU's memory steps, within its range */
static void test_every_answer_is_a_size(void)
{
	static const struct {
		const char *vcpu;
		uint64_t lo, hi, step;
	} ok[] = {{"0.5", 1024, 4096, 1024}, {"1", 2048, 8192, 1024}, {"2", 4096, 16384, 1024},
		  {"4", 8192, 30720, 1024}, {"8", 16384, 61440, 4096}, {"16", 32768, 122880, 8192}};
	struct fargate_size fs;
	int bad = 0;

	for (int c = 1; c <= 16; c++)
		for (uint64_t m = 1; m <= 122880; m += 97) {
			bool found = false;

			if (fargate_fit(c, m, &fs) != 0)
				continue;
			for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
				if (!strcmp(fs.vcpu, ok[i].vcpu) && fs.mem_mib >= ok[i].lo &&
				    fs.mem_mib <= ok[i].hi && (fs.mem_mib - ok[i].lo) % ok[i].step == 0)
					found = true;
			if (!found || fs.vcpus < c || fs.mem_mib < m)
				bad++;
		}
	CU_ASSERT_EQUAL(bad, 0);
}

static void test_launch_type(void)
{
	struct tracer_identity id;

	identity_init(&id);
	CU_ASSERT_FALSE(fargate_job(&id));
	CU_ASSERT_EQUAL_FATAL(identity_set_label(&id, "ecs.launch_type", "FARGATE"), 0);
	CU_ASSERT_TRUE(fargate_job(&id));
	CU_ASSERT_EQUAL_FATAL(identity_set_label(&id, "ecs.launch_type", "EC2"), 0);
	CU_ASSERT_FALSE(fargate_job(&id));
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"the smallest size that holds a request", test_fit},
		{"none past 16 vCPU and 120 GiB", test_too_large},
		{"every answer is a Fargate size", test_every_answer_is_a_size},
		{"the launch type label", test_launch_type},
	};

	return UNIT_RUN("fargate", tests);
}
