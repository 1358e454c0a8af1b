/* test_slurmmail.c - the job and event of a Slurm mail subject
 * (lib/slurmmail.c), as slurmctld 22.05 writes them: a job's end and
 * failure, an array task's own id, an array's summary, a begin mail, a
 * job name that holds an event word, and subjects of no known form; the
 * environment's form too. */
#include <string.h>

#include "slurmmail.h"
#include "unit.h"

static void test_job(void)
{
	struct slurmmail m;

	CU_ASSERT_EQUAL(slurmmail_parse("Slurm Job_id=1234 Name=x Ended, Run time 00:00:05, "
					"COMPLETED, ExitCode 0", &m), 0);
	CU_ASSERT_STRING_EQUAL(m.job_id, "1234");
	CU_ASSERT_EQUAL(m.event, SLURMMAIL_ENDED);
	CU_ASSERT_TRUE(slurmmail_wants_verdict(&m));
	CU_ASSERT_EQUAL(slurmmail_parse("Slurm Job_id=7 Name=align Failed, Run time 00:01:00, "
					"FAILED, ExitCode 3", &m), 0);
	CU_ASSERT_EQUAL(m.event, SLURMMAIL_FAILED);
	CU_ASSERT_EQUAL(slurmmail_parse("Slurm Job_id=7 Name=align Requeued, Run time 00:01:00, "
					"NODE_FAIL, ExitCode 0", &m), 0);
	CU_ASSERT_EQUAL(m.event, SLURMMAIL_REQUEUED);
	CU_ASSERT_EQUAL(slurmmail_parse("Slurm Job_id=8 Name=x Began, Queued time 00:00:01", &m), 0);
	CU_ASSERT_EQUAL(m.event, SLURMMAIL_OTHER);
	CU_ASSERT_FALSE(slurmmail_wants_verdict(&m));
}

static void test_arrays(void)
{
	struct slurmmail m;

	CU_ASSERT_EQUAL(slurmmail_parse("Slurm Array Task Job_id=1234_5 (1240) Name=a Ended, "
					"Run time 00:00:02, COMPLETED, ExitCode 0", &m), 0);
	CU_ASSERT_STRING_EQUAL(m.job_id, "1240");
	CU_ASSERT_TRUE(slurmmail_wants_verdict(&m));
	CU_ASSERT_EQUAL(slurmmail_parse("Slurm Array Summary Job_id=1234_* (1234) Name=a Ended, "
					"Mixed, MaxSignal [9]", &m), 0);
	CU_ASSERT_TRUE(m.array_summary);
	CU_ASSERT_FALSE(slurmmail_wants_verdict(&m));
}

/* The name is the user's: only the last event word counts, and the
 * job id is read before the name. */
static void test_hostile_names(void)
{
	struct slurmmail m;

	CU_ASSERT_EQUAL(slurmmail_parse("Slurm Job_id=55 Name=x Ended, Job_id=66 Began, Queued time "
					"00:00:01", &m), 0);
	CU_ASSERT_STRING_EQUAL(m.job_id, "55");
	CU_ASSERT_EQUAL(m.event, SLURMMAIL_OTHER);
	CU_ASSERT_EQUAL(slurmmail_parse("Slurm Job_id=55 Name=Began Failed, Run time 00:00:01, "
					"FAILED, ExitCode 1", &m), 0);
	CU_ASSERT_EQUAL(m.event, SLURMMAIL_FAILED);
	CU_ASSERT_EQUAL(slurmmail_parse("Slurm Job_id= Name=x Ended", &m), -1);
	CU_ASSERT_EQUAL(slurmmail_parse("Slurm Job_id=123456789012345678901234567890 Name=x Ended",
					&m), -1);
	CU_ASSERT_EQUAL(slurmmail_parse("hello", &m), -1);
	CU_ASSERT_EQUAL(slurmmail_parse(NULL, &m), -1);
	CU_ASSERT_FALSE(slurmmail_wants_verdict(&m));
}

static void test_env(void)
{
	struct slurmmail m;

	CU_ASSERT_EQUAL(slurmmail_from_env("99", "Ended", &m), 0);
	CU_ASSERT_STRING_EQUAL(m.job_id, "99");
	CU_ASSERT_TRUE(slurmmail_wants_verdict(&m));
	CU_ASSERT_EQUAL(slurmmail_from_env("99", "Began", &m), 0);
	CU_ASSERT_FALSE(slurmmail_wants_verdict(&m));
	CU_ASSERT_EQUAL(slurmmail_from_env("99x", "Ended", &m), -1);
	CU_ASSERT_EQUAL(slurmmail_from_env(NULL, NULL, &m), -1);
}

/* SLURM_JOB_MAIL_TYPE comes before the subject's event word */
static void test_mail_type_first(void)
{
	struct slurmmail m;

	CU_ASSERT_EQUAL(slurmmail_parse("Slurm Job_id=7 Name=x Began, Queued time 00:00:01", &m), 0);
	CU_ASSERT_FALSE(slurmmail_wants_verdict(&m));
	CU_ASSERT_EQUAL(slurmmail_type("Ended", &m.event), 0);
	CU_ASSERT_TRUE(slurmmail_wants_verdict(&m));
	CU_ASSERT_EQUAL(slurmmail_type("Began", &m.event), 0);
	CU_ASSERT_FALSE(slurmmail_wants_verdict(&m));
	CU_ASSERT_EQUAL(slurmmail_type("Failed", &m.event), 0);
	CU_ASSERT_EQUAL(m.event, SLURMMAIL_FAILED);
	/* not given: the subject's stays */
	CU_ASSERT_EQUAL(slurmmail_type(NULL, &m.event), -1);
	CU_ASSERT_EQUAL(slurmmail_type("", &m.event), -1);
	CU_ASSERT_EQUAL(m.event, SLURMMAIL_FAILED);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"end, failure, requeue, begin", test_job},
		{"array task's own id; array summary", test_arrays},
		{"job names holding event words; bad subjects", test_hostile_names},
		{"environment", test_env},
		{"SLURM_JOB_MAIL_TYPE before the subject", test_mail_type_first},
	};

	return UNIT_RUN("slurmmail", tests);
}
