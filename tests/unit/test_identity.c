/* test_identity.c - the job identity, its key and its JSON form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identity.h"
#include "unit.h"

static void fill(struct tracer_identity *id)
{
	identity_init(id);
	strcpy(id->run_id, "run-1");
	strcpy(id->run_name, "nightly");
	strcpy(id->pipeline, "rnaseq");
	strcpy(id->task_name, "align");
	strcpy(id->scheduler, "slurm");
	strcpy(id->cluster, "hpc1");
	strcpy(id->job_id, "4242");
	strcpy(id->step_id, "batch");
	strcpy(id->array_job_id, "4240");
	id->array_index = 2;
	id->attempt = 1;
	strcpy(id->user, "alice");
	id->uid = 1000;
	strcpy(id->queue, "short");
	id->node_id = 0;
	id->node_count = 4;
	id->local_task_id = 0;
	id->global_task_id = 7;
	id->alloc.cpus = 8;
	strcpy(id->alloc.cpuset, "0-3,8-11");
	id->alloc.mem_bytes = 17179869184ull * 1024; /* 16 TiB: beyond 2^32 */
	identity_set_label(id, "container.image", "ubuntu:22.04");
}

static void test_init_and_labels(void)
{
	struct tracer_identity id;
	char key[80];

	identity_init(&id);
	CU_ASSERT_EQUAL(id.array_index, -1);
	CU_ASSERT_EQUAL(id.attempt, -1);
	CU_ASSERT_EQUAL(id.uid, -1);
	CU_ASSERT_EQUAL(id.node_id, -1);
	CU_ASSERT_EQUAL(id.node_count, -1);
	CU_ASSERT_EQUAL(id.local_task_id, -1);
	CU_ASSERT_EQUAL(id.global_task_id, -1);
	CU_ASSERT_EQUAL(id.nlabels, 0);
	CU_ASSERT_STRING_EQUAL(id.run_id, "");

	CU_ASSERT_EQUAL(identity_set_label(&id, "a", "1"), 0);
	CU_ASSERT_EQUAL(identity_set_label(&id, "a", "2"), 0);
	CU_ASSERT_EQUAL(id.nlabels, 1);
	CU_ASSERT_STRING_EQUAL(identity_label(&id, "a"), "2");
	CU_ASSERT_PTR_NULL(identity_label(&id, "b"));
	for (int i = 1; i < ID_MAX_LABELS; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		CU_ASSERT_EQUAL(identity_set_label(&id, key, "v"), 0);
	}
	CU_ASSERT_EQUAL(id.nlabels, ID_MAX_LABELS);
	CU_ASSERT_EQUAL(identity_set_label(&id, "full", "v"), -1);
	CU_ASSERT_EQUAL(identity_set_label(&id, "a", "replace ok"), 0);
	/* a key or value that does not fit is refused, not cut */
	identity_init(&id);
	memset(key, 'x', 64);
	key[64] = '\0';
	CU_ASSERT_EQUAL(identity_set_label(&id, key, "v"), -1);
	CU_ASSERT_EQUAL(identity_set_label(&id, "", "v"), -1);
	CU_ASSERT_EQUAL(identity_set_label(&id, NULL, "v"), -1);
	CU_ASSERT_EQUAL(id.nlabels, 0);
}

static void test_job_key(void)
{
	struct tracer_identity id;
	char key[128];

	fill(&id);
	identity_join_key(&id, key, sizeof(key));
	CU_ASSERT_STRING_EQUAL(key, "slurm:4242.batch");
	strcpy(id.step_id, "0");
	identity_join_key(&id, key, sizeof(key));
	CU_ASSERT_STRING_EQUAL(key, "slurm:4242.0");
	/* two slurmds on one host: each node's part of the step apart */
	id.node_id = 1;
	identity_join_key(&id, key, sizeof(key));
	CU_ASSERT_STRING_EQUAL(key, "slurm:4242.0@1");
	id.node_id = 0;
	identity_join_key(&id, key, sizeof(key));
	CU_ASSERT_STRING_EQUAL(key, "slurm:4242.0");

	identity_init(&id);
	strcpy(id.scheduler, "aws-batch");
	strcpy(id.job_id, "b2f1-uuid:3");
	id.attempt = 2;
	identity_join_key(&id, key, sizeof(key));
	CU_ASSERT_STRING_EQUAL(key, "aws-batch:b2f1-uuid:3#2");

	/* local, unknown scheduler, or no job id: a new job each time */
	identity_init(&id);
	strcpy(id.scheduler, "local");
	strcpy(id.job_id, "1");
	identity_join_key(&id, key, sizeof(key));
	CU_ASSERT_STRING_EQUAL(key, "");
	strcpy(id.scheduler, "pbs");
	identity_join_key(&id, key, sizeof(key));
	CU_ASSERT_STRING_EQUAL(key, "");
	strcpy(id.scheduler, "slurm");
	id.job_id[0] = '\0';
	identity_join_key(&id, key, sizeof(key));
	CU_ASSERT_STRING_EQUAL(key, "");

	/* a small buffer is cut and terminated */
	fill(&id);
	identity_join_key(&id, key, 8);
	CU_ASSERT_STRING_EQUAL(key, "slurm:4");
}

static void test_to_json(void)
{
	struct tracer_identity id;
	cJSON *o;
	char *text;

	fill(&id);
	o = identity_to_json(&id);
	CU_ASSERT_FATAL(o != NULL);
	text = cJSON_PrintUnformatted(o);
	CU_ASSERT_FATAL(text != NULL);
	CU_ASSERT(strstr(text, "\"job_id\":\"4242\"") != NULL);
	CU_ASSERT(strstr(text, "\"node_id\":0") != NULL);
	CU_ASSERT(strstr(text, "\"uid\":1000") != NULL);
	CU_ASSERT(strstr(text, "\"allocation\":{\"cpus\":8,\"cpuset\":\"0-3,8-11\","
			       "\"mem_bytes\":17592186044416}") != NULL);
	CU_ASSERT(strstr(text, "\"labels\":{\"container.image\":\"ubuntu:22.04\"}") != NULL);
	free(text);
	cJSON_Delete(o);

	/* unknown values are omitted */
	identity_init(&id);
	strcpy(id.scheduler, "local");
	o = identity_to_json(&id);
	CU_ASSERT_FATAL(o != NULL);
	text = cJSON_PrintUnformatted(o);
	CU_ASSERT_STRING_EQUAL(text,
			       "{\"scheduler\":\"local\",\"allocation\":{},\"labels\":{}}");
	free(text);
	cJSON_Delete(o);

	/* invalid UTF-8 in a field still gives valid JSON */
	identity_init(&id);
	strcpy(id.task_name, "bad\xff\xfe");
	o = identity_to_json(&id);
	text = cJSON_PrintUnformatted(o);
	CU_ASSERT(strstr(text, "\"task_name\":\"bad\\\\xff\\\\xfe\"") != NULL);
	free(text);
	cJSON_Delete(o);
}

static void test_roundtrip(void)
{
	struct tracer_identity a, b;
	char err[256], *text;
	cJSON *o, *back;

	fill(&a);
	o = identity_to_json(&a);
	CU_ASSERT_FATAL(o != NULL);
	/* straight from the object (raw numbers) ... */
	CU_ASSERT_EQUAL(identity_from_json(o, &b, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(memcmp(&a, &b, sizeof(a)), 0);
	/* ... and through text */
	text = cJSON_PrintUnformatted(o);
	back = cJSON_Parse(text);
	CU_ASSERT_FATAL(back != NULL);
	memset(&b, 0x55, sizeof(b));
	CU_ASSERT_EQUAL(identity_from_json(back, &b, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(b.run_id, "run-1");
	CU_ASSERT_STRING_EQUAL(b.step_id, "batch");
	CU_ASSERT_EQUAL(b.global_task_id, 7);
	CU_ASSERT_EQUAL(b.node_id, 0);
	CU_ASSERT_EQUAL(b.alloc.mem_bytes, a.alloc.mem_bytes);
	CU_ASSERT_EQUAL(b.alloc.cpus, 8);
	CU_ASSERT_STRING_EQUAL(identity_label(&b, "container.image"),
			       "ubuntu:22.04");
	free(text);
	cJSON_Delete(back);
	cJSON_Delete(o);
}

/* Parse text; expect failure with a message containing want (or success). */
static void parse_expect(const char *json, const char *want)
{
	struct tracer_identity id;
	char err[256] = "";
	cJSON *o = cJSON_Parse(json);
	int r;

	CU_ASSERT_FATAL(o != NULL);
	r = identity_from_json(o, &id, err, sizeof(err));
	if (!want) {
		if (r != 0)
			fprintf(stderr, "\n  %s: unexpected error: %s\n", json, err);
		CU_ASSERT_EQUAL(r, 0);
	} else {
		if (r == 0 || !strstr(err, want))
			fprintf(stderr, "\n  %s: got %d \"%s\", want \"%s\"\n", json,
				r, err, want);
		CU_ASSERT_EQUAL(r, -1);
		CU_ASSERT(strstr(err, want) != NULL);
		/* a failed parse leaves a clean identity behind */
		CU_ASSERT_EQUAL(id.nlabels, 0);
		CU_ASSERT_STRING_EQUAL(id.job_id, "");
	}
	cJSON_Delete(o);
}

static void test_from_json_errors(void)
{
	char big[600], json[900];

	parse_expect("{}", NULL);
	parse_expect("{\"unknown\":[1,2,{}],\"job_id\":\"1\"}", NULL);
	parse_expect("{\"job_id\":null,\"uid\":null,\"allocation\":null}", NULL);
	parse_expect("[]", "expected an object");
	parse_expect("{\"job_id\":12}", "job_id: expected a string");
	parse_expect("{\"uid\":\"0\"}", "uid: expected a number");
	parse_expect("{\"uid\":1.5}", "uid: expected an integer");
	parse_expect("{\"uid\":-2}", "uid: out of range");
	parse_expect("{\"array_index\":1e300}", "array_index: out of range");
	parse_expect("{\"allocation\":5}", "allocation: expected an object");
	parse_expect("{\"allocation\":{\"cpus\":-1}}", "allocation.cpus: out of range");
	parse_expect("{\"allocation\":{\"mem_bytes\":-1}}",
		     "allocation.mem_bytes: out of range");
	parse_expect("{\"allocation\":{\"cpuset\":[]}}",
		     "allocation.cpuset: expected a string");
	parse_expect("{\"labels\":[]}", "labels: expected an object");
	parse_expect("{\"labels\":{\"a\":1}}", "labels.a: expected a string");
	parse_expect("{\"labels\":{\"\":\"x\"}}", "labels: key empty or too long");

	memset(big, 'a', 256);
	big[256] = '\0';
	snprintf(json, sizeof(json), "{\"run_id\":\"%s\"}", big);
	parse_expect(json, "run_id: too long (256 bytes, at most 255)");
	big[255] = '\0';
	snprintf(json, sizeof(json), "{\"run_id\":\"%s\"}", big);
	parse_expect(json, NULL);
	snprintf(json, sizeof(json), "{\"scheduler\":\"%.32s\"}", big);
	parse_expect(json, "scheduler: too long");
	/* look-alikes of a reserved scheduler name are refused, not trimmed */
	parse_expect("{\"scheduler\":\"slurm\\u200b\"}", "scheduler: byte 0xe2 at 5");
	parse_expect("{\"scheduler\":\"slurm\\u00a0\"}", "scheduler: byte 0xc2 at 5");
	parse_expect("{\"scheduler\":\"\\u0455lurm\"}", "scheduler: byte 0xd1 at 0");
	parse_expect("{\"scheduler\":\"slurm\\n\"}", "scheduler: byte 0x0a at 5");
	parse_expect("{\"scheduler\":\"\\ufeffslurm\"}", "scheduler: byte 0xef at 0");
	parse_expect("{\"scheduler\":\" slurm\"}", "scheduler: byte 0x20 at 0");
	parse_expect("{\"scheduler\":\"my-sched_2.0\"}", NULL);
	parse_expect("{\"scheduler\":\"\"}", NULL);
	memset(big, 'k', 64);
	big[64] = '\0';
	snprintf(json, sizeof(json), "{\"labels\":{\"%s\":\"v\"}}", big);
	parse_expect(json, "labels: key empty or too long");
	/* too many labels */
	{
		char many[4096];
		size_t n = 0;

		n += (size_t)snprintf(many + n, sizeof(many) - n, "{\"labels\":{");
		for (int i = 0; i <= ID_MAX_LABELS; i++)
			n += (size_t)snprintf(many + n, sizeof(many) - n,
					      "%s\"k%d\":\"v\"", i ? "," : "", i);
		snprintf(many + n, sizeof(many) - n, "}}");
		parse_expect(many, "labels: too many (at most 32)");
	}
	CU_ASSERT_EQUAL(identity_from_json(NULL, &(struct tracer_identity){0},
					   NULL, 0), -1);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"init and labels", test_init_and_labels},
		{"job key", test_job_key},
		{"to json", test_to_json},
		{"round trip", test_roundtrip},
		{"from json errors", test_from_json_errors},
	};

	return UNIT_RUN("identity", tests);
}
