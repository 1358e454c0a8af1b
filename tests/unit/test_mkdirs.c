/* test_mkdirs.c - mkdir -p (mkdirs): parents made with the mode, existing
 * directories left alone, a file in the way reported. */
#include <stdio.h>
#include <sys/stat.h>

#include "mkdirs.h"
#include "unit.h"

static void test_parents(void)
{
	char dir[] = "/tmp/tracer-mkdirs.XXXXXX", path[256], err[256] = "";
	struct stat st;

	umask(022);
	CU_ASSERT_EQUAL_FATAL(unit_make_dir(dir), 0);
	CU_ASSERT_EQUAL(chmod(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/a/b/c", dir);
	CU_ASSERT_EQUAL(mkdirs(path, 0700, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0700);
	snprintf(path, sizeof(path), "%s/a", dir);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT(S_ISDIR(st.st_mode));
	/* again: all there, nothing changes */
	snprintf(path, sizeof(path), "%s/a/b/c/", dir);
	CU_ASSERT_EQUAL(mkdirs(path, 0755, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(stat(dir, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0755); /* an existing level is left alone */
	unit_remove_dir(dir);
}

static void test_errors(void)
{
	char dir[] = "/tmp/tracer-mkdirs.XXXXXX", path[256], err[256] = "";
	FILE *f;

	CU_ASSERT_EQUAL_FATAL(unit_make_dir(dir), 0);
	snprintf(path, sizeof(path), "%s/file", dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/file/below", dir);
	CU_ASSERT_EQUAL(mkdirs(path, 0700, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "mkdir "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/file/below: Not a directory"));
	CU_ASSERT_EQUAL(mkdirs("", 0700, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad length"));
	unit_remove_dir(dir);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"parents made, existing levels left alone", test_parents},
		{"a file in the way, an empty path", test_errors},
	};

	return UNIT_RUN("mkdirs", tests);
}
