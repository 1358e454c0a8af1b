/*
 * test_wrapper_awsmeta.c - tracer-wrap's AWS identity parsers: AWS Batch
 * variables (array children, multi-node, bad numbers), ECS task metadata
 * v4 container and task documents, the IMDSv2 identity document and
 * life cycle, EC2 detection, the Nextflow work directory, and garbage of
 * every kind.  Also the runner's exit-code convention.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "awsmeta.h"
#include "runner.h"
#include "unit.h"

/* A NULL-terminated list of "NAME=value" strings as the environment. */
static const char *table_env(void *arg, const char *name)
{
	const char *const *env = arg;
	size_t n = strlen(name);

	for (; *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

static int from_env(struct tracer_identity *id, const char *const *env,
		    char *err, size_t errlen)
{
	identity_init(id);
	return awsmeta_from_env(id, table_env, (void *)env, err, errlen);
}

static void test_env_array_child(void)
{
	const char *env[] = {
		"AWS_BATCH_JOB_ID=5e6b1d7c-aaaa-bbbb-cccc-0123456789ab:17",
		"AWS_BATCH_JOB_ATTEMPT=2", "AWS_BATCH_JQ_NAME=genomics-spot",
		"AWS_BATCH_CE_NAME=spot-ce", "AWS_BATCH_JOB_ARRAY_INDEX=17",
		"AWS_BATCH_JOB_ARRAY_SIZE=100", NULL,
	};
	struct tracer_identity id;
	char err[128] = "";

	CU_ASSERT_EQUAL(from_env(&id, env, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(id.scheduler, "aws-batch");
	CU_ASSERT_STRING_EQUAL(id.job_id, "5e6b1d7c-aaaa-bbbb-cccc-0123456789ab:17");
	CU_ASSERT_STRING_EQUAL(id.array_job_id, "5e6b1d7c-aaaa-bbbb-cccc-0123456789ab");
	CU_ASSERT_STRING_EQUAL(id.run_id, "5e6b1d7c-aaaa-bbbb-cccc-0123456789ab");
	CU_ASSERT_EQUAL(id.array_index, 17);
	CU_ASSERT_EQUAL(id.attempt, 2);
	CU_ASSERT_STRING_EQUAL(id.queue, "genomics-spot");
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "aws.ce_name"), "spot-ce");
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "aws.array_size"), "100");
}

static void test_env_run_id_wins(void)
{
	const char *env[] = {
		"AWS_BATCH_JOB_ID=parent:3", "TRACER_RUN_ID=run-42",
		"TRACER_RUN_NAME=nightly", "TRACER_PIPELINE=rnaseq", NULL,
	};
	struct tracer_identity id;
	char err[128] = "";

	CU_ASSERT_EQUAL(from_env(&id, env, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(id.run_id, "run-42");
	CU_ASSERT_STRING_EQUAL(id.run_name, "nightly");
	CU_ASSERT_STRING_EQUAL(id.pipeline, "rnaseq");
	CU_ASSERT_STRING_EQUAL(id.array_job_id, "parent");
	/* no AWS_BATCH_JOB_ARRAY_INDEX: the id's suffix gives it */
	CU_ASSERT_EQUAL(id.array_index, 3);
}

static void test_env_single_and_multinode(void)
{
	const char *single[] = {"AWS_BATCH_JOB_ID=abc-def", NULL};
	const char *mnp[] = {
		"AWS_BATCH_JOB_ID=abc#2", "AWS_BATCH_JOB_NODE_INDEX=2",
		"AWS_BATCH_JOB_MAIN_NODE_INDEX=0", "AWS_BATCH_JOB_NUM_NODES=4", NULL,
	};
	const char *none[] = {"HOME=/root", NULL};
	struct tracer_identity id;
	char err[128] = "";

	CU_ASSERT_EQUAL(from_env(&id, single, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(id.job_id, "abc-def");
	CU_ASSERT_STRING_EQUAL(id.array_job_id, "");
	CU_ASSERT_EQUAL(id.array_index, -1);
	CU_ASSERT_STRING_EQUAL(id.run_id, "");

	CU_ASSERT_EQUAL(from_env(&id, mnp, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(id.node_id, 2);
	CU_ASSERT_EQUAL(id.node_count, 4);
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "aws.main_node_index"), "0");

	CU_ASSERT_EQUAL(from_env(&id, none, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(id.scheduler, "");
	CU_ASSERT_STRING_EQUAL(id.job_id, "");
}

static void test_env_bad_values(void)
{
	static char longid[400];
	const char *bad[] = {
		"AWS_BATCH_JOB_ID=j1", "AWS_BATCH_JOB_ATTEMPT=two",
		"AWS_BATCH_JOB_ARRAY_INDEX=-1", "AWS_BATCH_JOB_NUM_NODES=4x",
		"AWS_BATCH_JQ_NAME=q", NULL,
	};
	const char *toolong[] = {longid, NULL};
	struct tracer_identity id;
	char err[128] = "";

	CU_ASSERT_EQUAL(from_env(&id, bad, err, sizeof(err)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "is not a number"));
	CU_ASSERT_EQUAL(id.attempt, -1);
	CU_ASSERT_EQUAL(id.array_index, -1);
	CU_ASSERT_EQUAL(id.node_count, -1);
	/* the good values are still taken */
	CU_ASSERT_STRING_EQUAL(id.job_id, "j1");
	CU_ASSERT_STRING_EQUAL(id.queue, "q");

	memcpy(longid, "AWS_BATCH_JOB_ID=", 17);
	memset(longid + 17, 'x', sizeof(longid) - 18);
	err[0] = '\0';
	CU_ASSERT_EQUAL(from_env(&id, toolong, err, sizeof(err)), 1);
	CU_ASSERT_STRING_EQUAL(id.job_id, "");
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "too long"));
}

/* Shapes as documented for task metadata v4 (container and /task). */
static const char ecs_container[] =
	"{\"DockerId\":\"ea32192c8553fbff06c9340478a2ff089b2bb5646fb718b4ee206641c9086d66\","
	"\"Name\":\"default\",\"DockerName\":\"ecs-job-1-default-9e8c\","
	"\"Image\":\"123456789012.dkr.ecr.us-east-1.amazonaws.com/bwa:0.7.17\","
	"\"ImageID\":\"sha256:d691691e\",\"Labels\":{\"com.amazonaws.ecs.cluster\":\"arn:aws:ecs:us-east-1:123456789012:cluster/AWSBatch-ce\","
	"\"com.amazonaws.ecs.task-definition-family\":\"bwa-jobdef\",\"tracer.pipeline\":\"rnaseq\"},\"DesiredStatus\":\"RUNNING\",\"KnownStatus\":\"RUNNING\","
	"\"Limits\":{\"CPU\":3072,\"Memory\":6144},\"Type\":\"NORMAL\"}";
static const char ecs_task[] =
	"{\"Cluster\":\"arn:aws:ecs:us-east-1:123456789012:cluster/AWSBatch-ce-abc\","
	"\"TaskARN\":\"arn:aws:ecs:us-east-1:123456789012:task/AWSBatch-ce-abc/158d1c\","
	"\"Family\":\"bwa-jobdef\",\"Revision\":\"7\",\"DesiredStatus\":\"RUNNING\","
	"\"KnownStatus\":\"RUNNING\",\"AvailabilityZone\":\"us-east-1b\",\"LaunchType\":\"EC2\","
	"\"Containers\":[],\"TaskTags\":{\"tracer.task\":\"ALIGN\",\"tracer.run_name\":\"nightly\"}}";

static void test_ecs_documents(void)
{
	struct tracer_identity id;
	char err[128] = "";

	identity_init(&id);
	CU_ASSERT_EQUAL(awsmeta_parse_ecs_container(ecs_container, strlen(ecs_container),
						    &id, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(id.alloc.cpus, 3);
	CU_ASSERT_EQUAL(id.alloc.mem_bytes, 6144ull << 20);
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "container.name"), "default");
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "container.image"),
			       "123456789012.dkr.ecr.us-east-1.amazonaws.com/bwa:0.7.17");
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "ecs.cpu_units"), "3072");
	/* the ECS agent's label names the task definition's family */
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "ecs.task_family"), "bwa-jobdef");
	CU_ASSERT_STRING_EQUAL(id.pipeline, "rnaseq");

	CU_ASSERT_EQUAL(awsmeta_parse_ecs_task(ecs_task, strlen(ecs_task), &id, err,
					       sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(id.cluster, "AWSBatch-ce-abc");
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "ecs.task_family"), "bwa-jobdef");
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "ecs.task_revision"), "7");
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "aws.availability_zone"), "us-east-1b");
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "ecs.launch_type"), "EC2");
	CU_ASSERT_STRING_EQUAL(id.task_name, "ALIGN");
	CU_ASSERT_STRING_EQUAL(id.run_name, "nightly");
}

static void test_ecs_fargate_limits(void)
{
	/* Fargate: container without limits, task limits in vCPUs */
	const char c[] = "{\"DockerId\":\"x\",\"Limits\":{\"CPU\":0}}";
	const char t[] = "{\"LaunchType\":\"FARGATE\",\"Limits\":{\"CPU\":0.25,\"Memory\":512}}";
	const char small[] = "{\"Limits\":{\"CPU\":\"512\",\"Memory\":\"1024\"}}";
	struct tracer_identity id;
	char err[128] = "";

	identity_init(&id);
	CU_ASSERT_EQUAL(awsmeta_parse_ecs_container(c, strlen(c), &id, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(id.alloc.cpus, 0);
	CU_ASSERT_EQUAL(awsmeta_parse_ecs_task(t, strlen(t), &id, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(id.alloc.cpus, 1);
	CU_ASSERT_EQUAL(id.alloc.mem_bytes, 512ull << 20);
	/* the exact size, which Fargate bills */
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "ecs.task_vcpus"), "0.25");

	/* numbers as strings are read; half a vCPU rounds up to one */
	identity_init(&id);
	CU_ASSERT_EQUAL(awsmeta_parse_ecs_container(small, strlen(small), &id, err,
						    sizeof(err)), 0);
	CU_ASSERT_EQUAL(id.alloc.cpus, 1);
	CU_ASSERT_EQUAL(id.alloc.mem_bytes, 1024ull << 20);
}

static void test_garbage_documents(void)
{
	const char *garbage[] = {
		"", "{", "not json", "[1,2,3]", "\"string\"", "null", "{\"Limits\":",
		"{\"DockerId\":12,\"Limits\":{\"CPU\":-5,\"Memory\":1e400}}",
		"{\"Limits\":[1],\"Labels\":\"x\",\"TaskTags\":7}",
	};
	struct tracer_identity id;
	char err[128];

	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		const char *g = garbage[i];
		int rc;

		identity_init(&id);
		err[0] = '\0';
		rc = awsmeta_parse_ecs_container(g, strlen(g), &id, err, sizeof(err));
		CU_ASSERT(rc == -1 || rc == 0);
		if (rc == -1)
			CU_ASSERT(err[0] != '\0');
		CU_ASSERT(awsmeta_parse_ecs_task(g, strlen(g), &id, err, sizeof(err)) <= 0);
		CU_ASSERT(awsmeta_parse_imds_document(g, strlen(g), &id, err,
						      sizeof(err)) <= 0);
		CU_ASSERT_EQUAL(id.alloc.cpus, 0);
		CU_ASSERT_EQUAL(id.alloc.mem_bytes, 0);
		CU_ASSERT_PTR_NULL(identity_label(&id, "container.id"));
	}
	/* not NUL-terminated: only len bytes are read */
	char buf[8];
	memcpy(buf, "{\"a\":1}X", 8);
	identity_init(&id);
	CU_ASSERT_EQUAL(awsmeta_parse_ecs_task(buf, 7, &id, err, sizeof(err)), 0);
}

static void test_imds(void)
{
	const char doc[] =
		"{\n  \"accountId\" : \"123456789012\",\n  \"architecture\" : \"x86_64\",\n"
		"  \"availabilityZone\" : \"us-west-2b\",\n  \"billingProducts\" : null,\n"
		"  \"imageId\" : \"ami-5fb8c835\",\n  \"instanceId\" : \"i-1234567890abcdef0\",\n"
		"  \"instanceType\" : \"c5.4xlarge\",\n  \"kernelId\" : null,\n"
		"  \"pendingTime\" : \"2016-11-19T16:32:11Z\",\n  \"privateIp\" : \"10.158.112.84\",\n"
		"  \"region\" : \"us-west-2\",\n  \"version\" : \"2017-09-30\"\n}";
	struct tracer_identity id;
	char err[128] = "";

	identity_init(&id);
	CU_ASSERT_EQUAL(awsmeta_parse_imds_document(doc, strlen(doc), &id, err,
						    sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "aws.instance_id"), "i-1234567890abcdef0");
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "aws.instance_type"), "c5.4xlarge");
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "aws.region"), "us-west-2");
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "aws.availability_zone"), "us-west-2b");

	CU_ASSERT_EQUAL(awsmeta_parse_lifecycle("spot", 4, &id, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "aws.lifecycle"), "spot");
	identity_init(&id);
	CU_ASSERT_EQUAL(awsmeta_parse_lifecycle("on-demand\n", 10, &id, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "aws.lifecycle"), "on-demand");
	identity_init(&id);
	CU_ASSERT_EQUAL(awsmeta_parse_lifecycle("<html>", 6, &id, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(awsmeta_parse_lifecycle("", 0, &id, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NULL(identity_label(&id, "aws.lifecycle"));
}

static void test_priority_kept(void)
{
	struct tracer_identity id;
	char err[128] = "";

	/* what a higher-priority source set is never overwritten */
	identity_init(&id);
	strcpy(id.task_name, "from-option");
	id.alloc.cpus = 8;
	identity_set_label(&id, "container.name", "mine");
	awsmeta_parse_ecs_container(ecs_container, strlen(ecs_container), &id, err,
				    sizeof(err));
	awsmeta_parse_ecs_task(ecs_task, strlen(ecs_task), &id, err, sizeof(err));
	CU_ASSERT_STRING_EQUAL(id.task_name, "from-option");
	CU_ASSERT_EQUAL(id.alloc.cpus, 8);
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "container.name"), "mine");
}

static void test_is_ec2(void)
{
	CU_ASSERT_TRUE(awsmeta_is_ec2("Amazon EC2", NULL, NULL));
	CU_ASSERT_TRUE(awsmeta_is_ec2(NULL, "EC2E1916-9099-7CAF-FD21-012345ABCDEF", NULL));
	CU_ASSERT_TRUE(awsmeta_is_ec2(NULL, "ec2e1916-9099-7caf-fd21-012345abcdef", NULL));
	CU_ASSERT_TRUE(awsmeta_is_ec2("Xen", NULL, "ec2475b2-c1b7-4fa8-ae3c-9f1ca1ec3ae0"));
	CU_ASSERT_FALSE(awsmeta_is_ec2(NULL, NULL, NULL));
	CU_ASSERT_FALSE(awsmeta_is_ec2("QEMU", "4c4c4544-0042-3610", ""));
	CU_ASSERT_FALSE(awsmeta_is_ec2("Amazon", "e", "ec"));
}

static void test_nextflow(void)
{
	const char argv[] = "bash\0-o\0pipefail\0-c\0trap \"{ ret=$?; aws s3 cp .command.log "
		"s3://bkt/work/3f/9a1b2c3d4e5f60718293a4b5c6d7e8/.command.log||true; exit $ret; }\" "
		"EXIT; aws s3 cp s3://bkt/work/3f/9a1b2c3d4e5f60718293a4b5c6d7e8/.command.run - | "
		"bash 2>&1 | tee .command.log";
	const char plain[] = "bash\0-c\0echo .command.run";
	struct tracer_identity id;

	identity_init(&id);
	CU_ASSERT_TRUE(awsmeta_nextflow_task(argv, sizeof(argv), &id));
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "nextflow.hash"), "3f/9a1b2c");
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "nextflow.work_dir"),
			       "s3://bkt/work/3f/9a1b2c3d4e5f60718293a4b5c6d7e8");
	identity_init(&id);
	CU_ASSERT_FALSE(awsmeta_nextflow_task(plain, sizeof(plain), &id));
	CU_ASSERT_FALSE(awsmeta_nextflow_task("/.command.run", 13, &id));
	CU_ASSERT_FALSE(awsmeta_nextflow_task("", 0, &id));
	CU_ASSERT_PTR_NULL(identity_label(&id, "nextflow.hash"));
}

static void test_exit_code(void)
{
	CU_ASSERT_EQUAL(runner_exit_code(0), 0);
	CU_ASSERT_EQUAL(runner_exit_code(3 << 8), 3);
	CU_ASSERT_EQUAL(runner_exit_code(SIGKILL), 137);
	CU_ASSERT_EQUAL(runner_exit_code(SIGTERM), 143);
	CU_ASSERT_EQUAL(runner_exit_code(-1), 255);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"AWS Batch array child", test_env_array_child},
		{"TRACER_RUN_ID wins", test_env_run_id_wins},
		{"single and multi-node jobs", test_env_single_and_multinode},
		{"bad variable values", test_env_bad_values},
		{"ECS container and task documents", test_ecs_documents},
		{"Fargate task limits", test_ecs_fargate_limits},
		{"garbage documents", test_garbage_documents},
		{"IMDS document and life cycle", test_imds},
		{"higher-priority values kept", test_priority_kept},
		{"EC2 detection", test_is_ec2},
		{"Nextflow work directory", test_nextflow},
		{"exit codes", test_exit_code},
	};

	return UNIT_RUN("wrapper awsmeta", tests);
}
