/*
 * test_growbuf.c - the growing buffer: bytes and formatted text appended
 * across many growths, always NUL-terminated; its bound refuses what
 * would pass it (as a curl write callback: 0, so curl stops).
 */
#include "unit.h"

#include "growbuf.h"

static void test_add_and_printf(void)
{
	struct growbuf b = {0};
	char want[16];

	for (int i = 0; i < 10000; i++) {
		CU_ASSERT_EQUAL_FATAL(growbuf_add(&b, "ab", 2), 0);
		CU_ASSERT_EQUAL_FATAL(growbuf_printf(&b, "%05d", i), 0);
	}
	CU_ASSERT_EQUAL(b.len, 10000u * 7);
	CU_ASSERT_EQUAL(b.p[b.len], '\0');
	CU_ASSERT_EQUAL(memcmp(b.p, "ab00000ab00001", 14), 0);
	snprintf(want, sizeof(want), "ab%05d", 9999);
	CU_ASSERT_STRING_EQUAL(b.p + b.len - 7, want);
	CU_ASSERT_FALSE(b.oom || b.over);
	growbuf_free(&b);
	CU_ASSERT_PTR_NULL(b.p);
	CU_ASSERT_EQUAL(b.len, 0);
}

static void test_bound(void)
{
	struct growbuf b = {.max = 10};

	CU_ASSERT_EQUAL(growbuf_add(&b, "12345678", 8), 0);
	CU_ASSERT_EQUAL(growbuf_printf(&b, "%s", "abc"), -1);
	CU_ASSERT_TRUE(b.over);
	/* refused whole, and the text before it is intact */
	CU_ASSERT_STRING_EQUAL(b.p, "12345678");
	/* once over, nothing more, even what would fit */
	CU_ASSERT_EQUAL(growbuf_add(&b, "9", 1), -1);
	CU_ASSERT_EQUAL(b.len, 8);
	growbuf_free(&b);
	CU_ASSERT_EQUAL(b.max, 10); /* the bound stays for the next use */
	CU_ASSERT_FALSE(b.over);
	CU_ASSERT_EQUAL(growbuf_add(&b, "0123456789", 10), 0);
	growbuf_free(&b);
}

static void test_curl_write(void)
{
	struct growbuf b = {.max = 6};
	char data[] = "abcd";

	CU_ASSERT_EQUAL(growbuf_curl_write(data, 1, 4, &b), 4);
	/* past the bound: 0, which makes curl end the transfer */
	CU_ASSERT_EQUAL(growbuf_curl_write(data, 1, 4, &b), 0);
	CU_ASSERT_TRUE(b.over);
	CU_ASSERT_STRING_EQUAL(b.p, "abcd");
	growbuf_free(&b);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"bytes and text over many growths", test_add_and_printf},
		{"the bound refuses what would pass it", test_bound},
		{"as a curl write callback", test_curl_write},
	};

	return UNIT_RUN("growbuf", tests);
}
