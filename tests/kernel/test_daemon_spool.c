/*
 * test_daemon_spool.c - tracerd's spool (daemon/spool.c) on a real
 * directory: records written, read back and checked, positions per sink,
 * removal once every sink has a record, the size cap dropping the oldest
 * (counted per sink), each user's share (the largest share loses its
 * oldest first, also after a reopen), corrupt records set aside,
 * leftovers of interrupted writes removed, and a reopened spool going on
 * where it stopped.
 * Here rather than in tests/unit because it links tracerd's objects; it
 * needs no root.
 */
#include <CUnit/Basic.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spool.h"
#include "share.h"

static char dir[64];
static const enum sink_kind two[] = {SINK_FILE, SINK_HTTP};

static struct spool *open_two(uint64_t cap)
{
	char err[256];
	struct spool *sp = spool_open(dir, cap, two, 2, err, sizeof(err));

	if (!sp)
		fprintf(stderr, "spool_open: %s\n", err);
	return sp;
}

static int count_files(const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name), s = strlen(suffix);
		if (l > s && !strcmp(e->d_name + l - s, suffix))
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

static void put_share(struct spool *sp, const char *text, uint64_t share)
{
	char err[256];
	CU_ASSERT_EQUAL(spool_write(sp, text, strlen(text), share, err, sizeof(err)), 0);
}

static void put(struct spool *sp, const char *text)
{
	put_share(sp, text, 1000);
}

static void test_write_read_ack(void)
{
	struct spool *sp = open_two(1 << 20);
	struct spool_stats st;
	uint64_t seqs[8];
	char *text;
	size_t len;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
	put(sp, "{\"a\":1}");
	put(sp, "{\"b\":2}");
	CU_ASSERT_EQUAL(spool_pending(sp, 0, seqs, 8, 1 << 20), 2);
	CU_ASSERT_EQUAL(spool_read(sp, seqs[0], &text, &len), 0);
	CU_ASSERT_STRING_EQUAL(text, "{\"a\":1}");
	CU_ASSERT_EQUAL(len, 7);
	free(text);
	/* the file sink has both, the http sink none: both stay */
	spool_ack(sp, 0, seqs[1]);
	CU_ASSERT_EQUAL(spool_pending(sp, 0, seqs, 8, 1 << 20), 0);
	CU_ASSERT_EQUAL(spool_pending(sp, 1, seqs, 8, 1 << 20), 2);
	CU_ASSERT_EQUAL(count_files(".rec"), 2);
	/* the http sink has the first: it leaves the spool */
	spool_ack(sp, 1, seqs[0]);
	CU_ASSERT_EQUAL(count_files(".rec"), 1);
	spool_get_stats(sp, &st);
	CU_ASSERT_EQUAL(st.records, 1);
	CU_ASSERT_EQUAL(st.pending[SINK_HTTP], 1);
	CU_ASSERT_EQUAL(st.pending[SINK_FILE], 0);
	CU_ASSERT_EQUAL(st.written, 2);
	spool_close(sp);

	/* reopened: positions kept, the http sink still lacks one */
	sp = open_two(1 << 20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
	CU_ASSERT_EQUAL(spool_pending(sp, 0, seqs, 8, 1 << 20), 0);
	CU_ASSERT_EQUAL(spool_pending(sp, 1, seqs, 8, 1 << 20), 1);
	spool_ack(sp, 1, seqs[0]);
	CU_ASSERT_EQUAL(count_files(".rec"), 0);
	spool_close(sp);

	/* empty spool, positions on disk: a new record is still new */
	sp = open_two(1 << 20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
	put(sp, "{\"c\":3}");
	CU_ASSERT_EQUAL(spool_pending(sp, 0, seqs, 8, 1 << 20), 1);
	CU_ASSERT_EQUAL(spool_pending(sp, 1, seqs, 8, 1 << 20), 1);
	spool_ack(sp, 0, seqs[0]);
	spool_ack(sp, 1, seqs[0]);
	spool_close(sp);
}

static void test_cap_drops_oldest(void)
{
	char big[2000];
	struct spool *sp = open_two(10000);
	struct spool_stats st;
	uint64_t seqs[16];
	char *text;
	size_t len;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
	memset(big, 'x', sizeof(big));
	big[0] = '"';
	big[sizeof(big) - 2] = '"';
	big[sizeof(big) - 1] = '\0';
	put(sp, big);
	CU_ASSERT_EQUAL(spool_pending(sp, 0, seqs, 16, 1 << 20), 1);
	uint64_t oldest = seqs[0];
	spool_ack(sp, 0, oldest); /* the file sink has the oldest, http not */
	for (int i = 0; i < 9; i++)
		put(sp, big);
	spool_get_stats(sp, &st);
	CU_ASSERT(st.bytes <= 10000);
	CU_ASSERT(st.dropped >= 5);
	CU_ASSERT_EQUAL(st.sink_dropped[SINK_HTTP], st.dropped);
	CU_ASSERT_EQUAL(st.sink_dropped[SINK_FILE], st.dropped - 1);
	CU_ASSERT_EQUAL(spool_read(sp, oldest, &text, &len), -ENOENT);
	/* what is left is the newest */
	size_t n = spool_pending(sp, 1, seqs, 16, 1 << 20);
	CU_ASSERT_EQUAL(n, st.records);
	CU_ASSERT_EQUAL(seqs[n - 1], oldest + 9);
	spool_ack(sp, 0, seqs[n - 1]);
	spool_ack(sp, 1, seqs[n - 1]);
	spool_close(sp);
}

/* one user floods: only their own records go, the other's stay */
static void test_cap_by_share(void)
{
	char big[2000];
	struct spool *sp = open_two(10000);
	struct spool_stats st;
	uint64_t seqs[16], victim, root_rec;
	char *text;
	size_t len, n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
	memset(big, 'x', sizeof(big));
	big[0] = '"';
	big[sizeof(big) - 2] = '"';
	big[sizeof(big) - 1] = '\0';
	put_share(sp, "{\"victim\":1}", 2001);
	put_share(sp, "{\"slurm\":1}", 2001 | SHARE_SCHEDULED);
	CU_ASSERT_EQUAL(spool_pending(sp, 1, seqs, 16, 1 << 20), 2);
	victim = seqs[0];
	root_rec = seqs[1];
	for (int i = 0; i < 12; i++)
		put_share(sp, big, 3001);
	spool_get_stats(sp, &st);
	CU_ASSERT(st.bytes <= 10000);
	CU_ASSERT(st.dropped >= 7);
	CU_ASSERT_EQUAL(st.share_spared, st.dropped);
	/* the two oldest, of the small shares, are still there and pending */
	CU_ASSERT_EQUAL(spool_read(sp, victim, &text, &len), 0);
	free(text);
	CU_ASSERT_EQUAL(spool_read(sp, root_rec, &text, &len), 0);
	free(text);
	n = spool_pending(sp, 1, seqs, 16, 1 << 20);
	CU_ASSERT_EQUAL(n, st.records);
	CU_ASSERT_EQUAL(seqs[0], victim);
	spool_close(sp);
	/* reopened: the shares come back from the headers */
	sp = open_two(10000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
	put_share(sp, big, 3001);
	CU_ASSERT_EQUAL(spool_read(sp, victim, &text, &len), 0);
	free(text);
	n = spool_pending(sp, 1, seqs, 16, 1 << 20);
	CU_ASSERT(n >= 3);
	spool_ack(sp, 0, seqs[n - 1]);
	spool_ack(sp, 1, seqs[n - 1]);
	CU_ASSERT_EQUAL(count_files(".rec"), 0);
	spool_get_stats(sp, &st);
	CU_ASSERT_EQUAL(st.records, 0);
	CU_ASSERT_EQUAL(st.bytes, 0);
	spool_close(sp);
}

static void test_corrupt_and_leftovers(void)
{
	char path[128];
	struct spool *sp;
	struct spool_stats st;
	uint64_t seqs[4];
	char *text;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/00000000000000f0.rec", dir);
	f = fopen(path, "w");
	fputs("tracer-spool 1 7 00000000\n{\"a\":1}", f); /* wrong CRC */
	fclose(f);
	snprintf(path, sizeof(path), "%s/00000000000000f1.rec", dir);
	f = fopen(path, "w");
	fputs("tracer-spool 1 70 00000000\n{\"a\":", f); /* cut short */
	fclose(f);
	snprintf(path, sizeof(path), "%s/.tmp-00000000000000f2", dir);
	f = fopen(path, "w");
	fputs("half", f);
	fclose(f);
	sp = open_two(1 << 20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
	CU_ASSERT_EQUAL(access(path, F_OK), -1); /* the leftover is gone */
	CU_ASSERT_EQUAL(spool_pending(sp, 0, seqs, 4, 1 << 20), 2);
	CU_ASSERT_EQUAL(spool_read(sp, seqs[0], &text, &len), -EBADMSG);
	CU_ASSERT_EQUAL(spool_read(sp, seqs[1], &text, &len), -EBADMSG);
	CU_ASSERT_EQUAL(count_files(".corrupt"), 2);
	spool_get_stats(sp, &st);
	CU_ASSERT_EQUAL(st.corrupt, 2);
	/* a new record comes after them */
	put(sp, "{}");
	CU_ASSERT_EQUAL(spool_pending(sp, 0, seqs, 4, 1 << 20), 3);
	CU_ASSERT_EQUAL(seqs[2], 0xf2);
	spool_close(sp);
}

int main(void)
{
	CU_pSuite s;
	char cmd[128];
	unsigned failed;

	snprintf(dir, sizeof(dir), "/tmp/test-spool.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("spool", NULL, NULL);
	CU_add_test(s, "write, read, ack per sink, reopen", test_write_read_ack);
	CU_add_test(s, "cap drops the oldest, counted per sink", test_cap_drops_oldest);
	CU_add_test(s, "cap by share: the largest loses its oldest", test_cap_by_share);
	CU_add_test(s, "corrupt records and leftovers", test_corrupt_and_leftovers);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return failed ? 1 : 0;
}
