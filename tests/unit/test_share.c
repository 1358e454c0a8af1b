/*
 * test_share.c - whose share a summary counts against (lib/share.c): the
 * job's uid, a scheduler's jobs apart, a summary being built (raw
 * integers) the same as one read back; and the tally of bytes per share.
 */
#include <string.h>

#include "json.h"
#include "share.h"
#include "unit.h"

static void test_share_of(void)
{
	const char *local = "{\"identity\":{\"scheduler\":\"local\",\"uid\":1001}}";
	const char *slurm = "{\"identity\":{\"scheduler\":\"slurm\",\"uid\":1001}}";
	cJSON *built = cJSON_CreateObject(), *id;

	CU_ASSERT_EQUAL(share_of_text(local, strlen(local)), 1001u);
	CU_ASSERT_EQUAL(share_of_text(slurm, strlen(slurm)), 1001u | SHARE_SCHEDULED);
	CU_ASSERT_EQUAL(share_of_text("{}", 2), SHARE_UNKNOWN);
	CU_ASSERT_EQUAL(share_of_text("not json", 8), SHARE_UNKNOWN);
	/* as tracerd builds it: json_add_i64 */
	CU_ASSERT_PTR_NOT_NULL_FATAL(built);
	id = cJSON_AddObjectToObject(built, "identity");
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	json_add_i64(id, "uid", 65534);
	CU_ASSERT_EQUAL(share_of_summary(built), 65534u);
	cJSON_Delete(built);
}

static void test_tally(void)
{
	struct share_tally t = {0};
	uint64_t share = 0;

	CU_ASSERT_EQUAL(share_tally_largest(&t, &share), -1);
	CU_ASSERT_EQUAL(share_tally_add(&t, 1, 100), 0);
	CU_ASSERT_EQUAL(share_tally_add(&t, 2, 300), 0);
	CU_ASSERT_EQUAL(share_tally_add(&t, 1, 250), 0);
	CU_ASSERT_EQUAL(share_tally_largest(&t, &share), 0);
	CU_ASSERT_EQUAL(share, 1u);
	CU_ASSERT_EQUAL(share_tally_add(&t, 1, -350), 0);
	CU_ASSERT_EQUAL(t.n, 1); /* an emptied share leaves the array */
	CU_ASSERT_EQUAL(share_tally_largest(&t, &share), 0);
	CU_ASSERT_EQUAL(share, 2u);
	share_tally_free(&t);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"the share of a summary", test_share_of},
		{"bytes per share", test_tally},
	};

	return UNIT_RUN("share", tests);
}
