/*
 * test_sink_file.c - the file sink: each summary one whole line, and a
 * summary already at the end of the file (or of FILE.1) when the sink
 * starts is not written again (a batch written, then tracerd killed
 * before the spool's position moved); rotation keeps the archive by user
 * share (one user's flood rotates out only that user's summaries).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "sink.h"
#include "unit.h"

static char dir[64];
static char path[128];

static char *summary(const char *id, const char *job)
{
	char *t = malloc(256);

	snprintf(t, 256, "{\"schema\":\"tracer.job/2\",\"job\":\"%s\",\"summary_id\":\"%s\"}", job, id);
	return t;
}

static const char *ID_A = "11111111-1111-4111-8111-111111111111";
static const char *ID_B = "22222222-2222-4222-8222-222222222222";
static const char *ID_C = "33333333-3333-4333-8333-333333333333";
static const char *ID_D = "44444444-4444-4444-8444-444444444444";

/* how many lines of the file hold this id */
static int count_id(const char *file, const char *id)
{
	char line[512];
	int n = 0;
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, id))
			n++;
	fclose(f);
	return n;
}

static int deliver(struct tracer_config *cfg, const char *const *ids, size_t n)
{
	char err[256];
	char *texts[8];
	size_t lens[8];
	struct sink *s = sink_open(SINK_FILE, cfg, err, sizeof(err));
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	for (size_t i = 0; i < n; i++) {
		texts[i] = summary(ids[i], "job");
		lens[i] = strlen(texts[i]);
	}
	rc = sink_deliver(s, texts, lens, n, 1000, NULL, err, sizeof(err));
	for (size_t i = 0; i < n; i++)
		free(texts[i]);
	sink_close(s);
	return rc;
}

static void test_no_duplicate_after_restart(void)
{
	struct tracer_config cfg;
	const char *first[] = {ID_A, ID_B};
	const char *again[] = {ID_A, ID_B, ID_C};

	config_defaults(&cfg);
	snprintf(cfg.file_path, sizeof(cfg.file_path), "%s", path);
	CU_ASSERT_EQUAL(deliver(&cfg, first, 2), 0);
	/* a new sink (a restart) gets the same batch again, and one more */
	CU_ASSERT_EQUAL(deliver(&cfg, again, 3), 0);
	CU_ASSERT_EQUAL(count_id(path, ID_A), 1);
	CU_ASSERT_EQUAL(count_id(path, ID_B), 1);
	CU_ASSERT_EQUAL(count_id(path, ID_C), 1);
	struct stat st;
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0640);
}

static void test_rotated_file_checked(void)
{
	struct tracer_config cfg;
	char rotated[160];
	const char *again[] = {ID_C, ID_D};

	/* the batch before the crash ended in what is FILE.1 now */
	config_defaults(&cfg);
	snprintf(cfg.file_path, sizeof(cfg.file_path), "%s", path);
	snprintf(rotated, sizeof(rotated), "%s.1", path);
	CU_ASSERT_EQUAL(rename(path, rotated), 0);
	CU_ASSERT_EQUAL(deliver(&cfg, again, 2), 0);
	CU_ASSERT_EQUAL(count_id(path, ID_C), 0);
	CU_ASSERT_EQUAL(count_id(rotated, ID_C), 1);
	CU_ASSERT_EQUAL(count_id(path, ID_D), 1);
}

static void test_lookalike_not_taken(void)
{
	struct tracer_config cfg;
	const char *ids[] = {ID_A};
	char line[512];
	FILE *f;

	/* a job whose argv holds the text of a summary_id field: escaped in
	 * the JSON, it must not count as that summary */
	snprintf(path, sizeof(path), "%s/other.ndjson", dir);
	config_defaults(&cfg);
	snprintf(cfg.file_path, sizeof(cfg.file_path), "%s", path);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	snprintf(line, sizeof(line),
		 "{\"job\":\"x\",\"cmdline\":\"echo \\\"summary_id\\\":\\\"%s\\\"\",\"summary_id\":\"%s\"}\n",
		 ID_A, ID_B);
	fputs(line, f);
	fclose(f);
	CU_ASSERT_EQUAL(deliver(&cfg, ids, 1), 0);
	CU_ASSERT_EQUAL(count_id(path, "\"summary_id\":\"11111111"), 1);
}

/* n summaries of uid, one delivery each (a sink per delivery, as tracerd
 * after restarts); each ~300 bytes */
static void deliver_uid(struct tracer_config *cfg, long uid, const char *tag, int n)
{
	char err[256];

	for (int i = 0; i < n; i++) {
		struct sink *s = sink_open(SINK_FILE, cfg, err, sizeof(err));
		char *t = malloc(512);
		size_t len;

		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		len = (size_t)snprintf(t, 512,
				       "{\"job\":\"%s-%d\",\"identity\":{\"uid\":%ld},\"pad\":\"%0200d\"}",
				       tag, i, uid, 0);
		CU_ASSERT_EQUAL(sink_deliver(s, &t, &len, 1, 1000, NULL, err, sizeof(err)), 0);
		free(t);
		sink_close(s);
	}
}

static long file_size(const char *f)
{
	struct stat st;

	return stat(f, &st) == 0 ? (long)st.st_size : 0;
}

static void test_rotation_by_share(void)
{
	struct tracer_config cfg;
	char rotated[160];
	int victims = 0, floods = 0;

	snprintf(path, sizeof(path), "%s/share.ndjson", dir);
	snprintf(rotated, sizeof(rotated), "%s.1", path);
	config_defaults(&cfg);
	snprintf(cfg.file_path, sizeof(cfg.file_path), "%s", path);
	cfg.file_max_bytes = 3000;
	cfg.file_keep = 1;
	deliver_uid(&cfg, 2001, "victim", 2);
	/* another user's flood: many times what the archive holds */
	deliver_uid(&cfg, 3001, "flood", 100);
	victims = count_id(path, "victim-") + count_id(rotated, "victim-");
	floods = count_id(path, "flood-") + count_id(rotated, "flood-");
	CU_ASSERT_EQUAL(victims, 2);
	CU_ASSERT(floods > 0 && floods < 100);
	/* still bounded: FILE and FILE.1, each about file_max_bytes */
	CU_ASSERT(file_size(path) <= 3000);
	CU_ASSERT(file_size(rotated) <= 3000);
	/* the flood's newest summary is there, its oldest went first */
	CU_ASSERT_EQUAL(count_id(path, "flood-99\""), 1);
	CU_ASSERT_EQUAL(count_id(path, "flood-0\"") + count_id(rotated, "flood-0\""), 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"a summary already at the file's end is not written again", test_no_duplicate_after_restart},
		{"the end of FILE.1 is checked after a rotation", test_rotated_file_checked},
		{"a summary_id inside a string is not taken for one", test_lookalike_not_taken},
		{"rotation keeps the archive by user share", test_rotation_by_share},
	};
	int rc;

	snprintf(dir, sizeof(dir), "/tmp/tracer-sinkfile.XXXXXX");
	if (unit_make_dir(dir) != 0)
		return 1;
	snprintf(path, sizeof(path), "%s/jobs.ndjson", dir);
	rc = UNIT_RUN("sink_file", tests);
	unit_remove_dir(dir);
	return rc;
}
