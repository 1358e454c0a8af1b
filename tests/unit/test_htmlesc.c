/* test_htmlesc.c - the HTML escaper (htmlesc_escape): markup, quotes,
 * controls and invalid UTF-8 become text; cuts fall between characters. */
#include <stdio.h>
#include <stdlib.h>

#include "htmlesc.h"
#include "unit.h"

static void is(const char *in, size_t max, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	htmlesc_escape(f, in, max);
	fclose(f);
	if (strcmp(buf, want))
		fprintf(stderr, "\n  got  %s\n  want %s\n", buf, want);
	CU_ASSERT_STRING_EQUAL(buf, want);
	free(buf);
}

static void test_markup(void)
{
	is("<script>document.title='pwned'</script>", 0,
	   "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;");
	is("\"><img src=x onerror=alert(1)>", 0, "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
	is("a&b", 0, "a&amp;b");
	is("", 0, "");
	is(NULL, 0, "");
	is("tab\tand\nnewline", 0, "tab\tand\nnewline");
}

static void test_bytes(void)
{
	is("\xff\xfe", 0, "\\xff\\xfe");                  /* not UTF-8 */
	is("\xc0\xaf", 0, "\\xc0\\xaf");                  /* overlong '/' */
	is("\xed\xa0\x80", 0, "\\xed\\xa0\\x80");         /* a surrogate */
	is("esc\x1b[31m", 0, "esc\\x1b[31m");             /* a terminal escape */
	is("c1\xc2\x9b", 0, "c1\\xc2\\x9b");              /* C1 CSI as UTF-8 */
	is("r\xc3\xa9sum\xc3\xa9 \xe2\x9c\x93", 0, "r\xc3\xa9sum\xc3\xa9 \xe2\x9c\x93");
	is("x\xf0\x9f\x98\x80", 0, "x\xf0\x9f\x98\x80"); /* 4 bytes */
}

static void test_cut(void)
{
	is("abcdef", 3, "abc\xe2\x80\xa6");
	is("abc", 3, "abc");
	/* never inside a character: "é" is two bytes */
	is("a\xc3\xa9z", 2, "a\xe2\x80\xa6");
	is("<<<<", 2, "&lt;&lt;\xe2\x80\xa6");
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"markup and quotes become references", test_markup},
		{"controls and invalid UTF-8 become \\xNN", test_bytes},
		{"cuts between characters, marked", test_cut},
	};

	return UNIT_RUN("htmlesc", tests);
}
