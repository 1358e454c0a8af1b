/* test_history.c - the history of runs is kept per (user, task name): one
 * user's runs of a name are never another's, whatever the name. */
#include <string.h>

#include "history.h"
#include "unit.h"

static void test_per_user(void)
{
	struct history h;
	struct history_run fast = {.wall_s = 1, .peak_bytes = 1, .cpus = 1};
	struct history_run slow = {.wall_s = 100, .peak_bytes = 1 << 30, .cpus = 8};
	const struct history_task *t;

	CU_ASSERT_FATAL(history_init(&h) == 0);
	for (int i = 0; i < 5; i++)
		history_add(&h, 1001, "align", &slow);
	history_add(&h, 1000, "align", &fast);
	t = history_find(&h, 1000, "align");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->n, 1); /* 1001's five runs are not 1000's */
	CU_ASSERT_DOUBLE_EQUAL(history_wall_pct(t, 90), 1, 1e-9);
	t = history_find(&h, 1001, "align");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->n, 5);
	CU_ASSERT_PTR_NULL(history_find(&h, 1002, "align"));
	CU_ASSERT_PTR_NULL(history_find(&h, -1, "align")); /* unknown owner: its own key */
	history_free(&h);
}

static void test_uid_of_summary(void)
{
	cJSON *s = cJSON_Parse("{\"identity\":{\"task_name\":\"x\",\"uid\":1234},\"wall_s\":2}");
	cJSON *bare = cJSON_Parse("{\"identity\":{\"task_name\":\"x\"},\"wall_s\":2}");
	cJSON *raw = cJSON_Parse("{\"identity\":{\"task_name\":\"x\"},\"wall_s\":2}");
	/* tracerd writes counts raw (json.c) */
	cJSON_AddItemToObject(cJSON_GetObjectItem(raw, "identity"), "uid", cJSON_CreateRaw("1235"));
	struct history_run r;
	char name[HISTORY_NAME_LEN];
	long uid = 0;

	CU_ASSERT(history_run_of_summary(s, &uid, name, sizeof(name), &r) == 0);
	CU_ASSERT_EQUAL(uid, 1234);
	CU_ASSERT_STRING_EQUAL(name, "x");
	CU_ASSERT(history_run_of_summary(bare, &uid, name, sizeof(name), &r) == 0);
	CU_ASSERT_EQUAL(uid, -1);
	CU_ASSERT(history_run_of_summary(raw, &uid, name, sizeof(name), &r) == 0);
	CU_ASSERT_EQUAL(uid, 1235);
	cJSON_Delete(raw);
	cJSON_Delete(s);
	cJSON_Delete(bare);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"runs kept per user", test_per_user},
		{"the owner of a summary's run", test_uid_of_summary},
	};

	return UNIT_RUN("history", tests);
}
