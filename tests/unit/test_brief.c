/* test_brief.c - the few-line verdict of a job (lib/brief.c): the first
 * line's state, wall, CPU and memory against the allocation; the flags,
 * the job's and the most severe first; the request for next time kept
 * when lines are few; a short job's single line; long and hostile text
 * cut and made safe; a small buffer cut at a line's end. */
#include <string.h>

#include "brief.h"
#include "unit.h"

/* A 20-minute Slurm job on 8 CPUs using 23% of them, 1.2 of 16 GiB. */
static const char *LONG_JOB =
	"{\"state\": \"COMPLETED\", \"wall_s\": 1203, \"cpu_efficiency\": 0.23,"
	" \"cpu_efficiency_basis\": \"allocation\","
	" \"exit\": {\"status\": 0, \"code\": 0, \"signal\": null},"
	" \"identity\": {\"allocation\": {\"cpus\": 8, \"mem_bytes\": 17179869184}},"
	" \"memory\": {\"peak_bytes\": 1288490189, \"allocated_bytes\": 17179869184},"
	" \"flags\": ["
	"  {\"id\": \"cpu_bound\", \"severity\": \"info\", \"tool\": \"bwa\","
	"   \"message\": \"bwa kept a CPU busy 99% of its run\"},"
	"  {\"id\": \"time_overrequested\", \"severity\": \"info\","
	"   \"message\": \"ran 1203 s of the 36000 s requested\"},"
	"  {\"id\": \"memory_overallocated\", \"severity\": \"warning\","
	"   \"message\": \"peak memory 7% of the 16.0 GiB requested\"}],"
	" \"recommendation\": {\"cpus\": 2, \"syntax\": {\"slurm\":"
	"  \"--cpus-per-task=2 --mem=2G --time=00:25:00\"}}}";

static cJSON *parse(const char *text)
{
	cJSON *s = cJSON_Parse(text);

	CU_ASSERT_FATAL(s != NULL);
	return s;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_full(void)
{
	cJSON *s = parse(LONG_JOB);
	char out[2048];
	size_t n = brief_lines(s, 10, out, sizeof(out));

	CU_ASSERT_EQUAL(n, strlen(out));
	CU_ASSERT_STRING_EQUAL(out,
		"COMPLETED after 20 min 3 s: CPU 23% of 8 CPUs, memory 1.2 GiB of 16.0 GiB\n"
		"Peak memory 7% of the 16.0 GiB requested.\n"
		"Ran 1203 s of the 36000 s requested.\n"
		"bwa kept a CPU busy 99% of its run.\n"
		"Next time: #SBATCH --cpus-per-task=2 --mem=2G --time=00:25:00\n");
	CU_ASSERT_TRUE(brief_has_advice(s));
	cJSON_Delete(s);
}

/* Three lines: the verdict, the most severe flag, the request. */
static void test_three_lines(void)
{
	cJSON *s = parse(LONG_JOB);
	char out[2048];

	brief_lines(s, 3, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out,
		"COMPLETED after 20 min 3 s: CPU 23% of 8 CPUs, memory 1.2 GiB of 16.0 GiB\n"
		"Peak memory 7% of the 16.0 GiB requested.\n"
		"Next time: #SBATCH --cpus-per-task=2 --mem=2G --time=00:25:00\n");
	brief_lines(s, 1, out, sizeof(out));
	CU_ASSERT_EQUAL(count_lines(out), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "COMPLETED"));
	CU_ASSERT_EQUAL(brief_lines(s, 0, out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "");
	cJSON_Delete(s);
}

/* Under advice_min_runtime_s: no recommendation, only the failed flag;
 * no allocation: the host's CPUs and the peak alone. */
static void test_short_failed(void)
{
	cJSON *s = parse("{\"state\": \"FAILED\", \"wall_s\": 2.5, \"cpu_efficiency\": 0.5,"
			 " \"cpu_efficiency_basis\": \"host\", \"host\": {\"cpus\": 4},"
			 " \"exit\": {\"code\": 3, \"signal\": null},"
			 " \"memory\": {\"peak_bytes\": 5242880},"
			 " \"flags\": [{\"id\": \"failed\", \"severity\": \"error\","
			 "  \"message\": \"the job failed with exit code 3\"}]}");
	char out[1024];

	brief_lines(s, 3, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out,
		"FAILED (exit 3) after 2.5 s: CPU 50% of the host's 4 CPUs, memory peak 5 MiB\n"
		"The job failed with exit code 3.\n");
	CU_ASSERT_FALSE(brief_has_advice(s));
	cJSON_Delete(s);
}

/* A message of the user's text: control characters become '?', a long
 * line is cut to BRIEF_LINE_MAX columns (UTF-8 characters count once). */
static void test_cut_and_safe(void)
{
	char msg[600], json[1024], out[2048];
	cJSON *s;
	const char *l2;
	size_t cols = 0;

	memset(msg, 'x', 10);
	strcpy(msg + 10, "\\u001b[31m");
	for (int i = 0; i < 150; i++)
		strcat(msg, "\xc3\xa9");
	snprintf(json, sizeof(json),
		 "{\"state\": \"TIMEOUT\", \"wall_s\": 7300, \"flags\": [{\"severity\": \"warning\","
		 " \"message\": \"%s\"}]}", msg);
	s = parse(json);
	brief_lines(s, 3, out, sizeof(out));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "TIMEOUT after 2 h 1 min: CPU use unknown, memory unknown\n"));
	l2 = strchr(out, '\n') + 1;
	CU_ASSERT_PTR_NULL(strchr(out, '\x1b'));
	CU_ASSERT_EQUAL(strncmp(l2, "Xxxxxxxxxx?[31m", 15), 0);
	for (const char *p = l2; *p && *p != '\n'; p++)
		cols += ((unsigned char)*p & 0xc0) != 0x80;
	CU_ASSERT_EQUAL(cols, BRIEF_LINE_MAX);
	CU_ASSERT_PTR_NOT_NULL(strstr(l2, "\xc3\xa9...\n"));
	cJSON_Delete(s);
}

/* A C1 control (CSI, U+009B) and a bidi override (U+202E) of a user's name
 * reach neither a mail nor a terminal; other UTF-8 is kept. */
static void test_unicode_controls(void)
{
	char out[1024];
	cJSON *s = parse("{\"state\": \"COMPLETED\", \"wall_s\": 5, \"flags\": [{"
			 "\"severity\": \"warning\", \"message\": \"a\\u009b31mb"
			 "\\u202ec\\u2066d\\u00e9\"}]}");

	brief_lines(s, 3, out, sizeof(out));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "A?31mb?c?d\xc3\xa9.\n"));
	CU_ASSERT_PTR_NULL(strstr(out, "\xc2\x9b"));
	CU_ASSERT_PTR_NULL(strstr(out, "\xe2\x80\xae"));
	CU_ASSERT_PTR_NULL(strstr(out, "\xe2\x81\xa6"));
	cJSON_Delete(s);
}

/* A buffer too small for everything ends at a whole line; not an object: nothing. */
static void test_small_buffer(void)
{
	cJSON *s = parse(LONG_JOB);
	char out[100];
	size_t n = brief_lines(s, 5, out, sizeof(out));

	CU_ASSERT_EQUAL(n, strlen(out));
	CU_ASSERT_EQUAL(count_lines(out), 1);
	CU_ASSERT_EQUAL(out[n - 1], '\n');
	cJSON_Delete(s);
	s = parse("[1, 2]");
	CU_ASSERT_EQUAL(brief_lines(s, 3, out, sizeof(out)), 0);
	cJSON_Delete(s);
	CU_ASSERT_EQUAL(brief_lines(NULL, 3, out, sizeof(out)), 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"verdict, flags by severity, request", test_full},
		{"three lines keep the request; one line; none", test_three_lines},
		{"short failed job: one flag, no request; host basis", test_short_failed},
		{"long and hostile text cut and made safe", test_cut_and_safe},
		{"C1 controls and bidi overrides", test_unicode_controls},
		{"small buffer ends at a line; not a summary", test_small_buffer},
	};

	return UNIT_RUN("brief", tests);
}
