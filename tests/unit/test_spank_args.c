/*
 * test_spank_args.c - the SPANK plugin's plain-text inputs: plugstack.conf
 * arguments (bad ones reported, defaults kept), the notes switch
 * between the site's notes= and the user's --tracer-notes, and Slurm CPU
 * lists.
 */
#include <string.h>

#include "unit.h"

/* The plugin is a .so of its own: compile its parser into the test. */
#include "../../spank/spank_args.c"

static void defaults(struct spank_settings *s)
{
	snprintf(s->socket_path, sizeof(s->socket_path), "%s",
		 TRACER_DEFAULT_SOCKET);
	s->timeout_ms = TRACER_DEFAULT_TIMEOUT_MS;
	s->notes = SPANK_NOTES_ASKED;
}

static void test_args_good(void)
{
	struct spank_settings s = {.timeout_ms = 0};
	char *av[] = {"socket=/tmp/x.sock", "timeout_ms=50"};
	char err[256];

	defaults(&s);
	CU_ASSERT_EQUAL(plugin_parse_args(2, av, &s, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(s.socket_path, "/tmp/x.sock");
	CU_ASSERT_EQUAL(s.timeout_ms, 50);
	CU_ASSERT_STRING_EQUAL(err, "");
}

static void test_args_none(void)
{
	struct spank_settings s = {.timeout_ms = 0};
	char err[256];

	defaults(&s);
	CU_ASSERT_EQUAL(plugin_parse_args(0, NULL, &s, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(s.socket_path, TRACER_DEFAULT_SOCKET);
	CU_ASSERT_EQUAL(s.timeout_ms, TRACER_DEFAULT_TIMEOUT_MS);
}

static void test_args_bad(void)
{
	struct spank_settings s = {.timeout_ms = 0};
	char long_path[200];
	char *av[] = {"timeout_ms=0", "timeout_ms=1001", "timeout_ms=12x",
		      "timeout_ms=", "socket=relative.sock", "frob=1",
		      long_path, "", "timeout_ms=99999999999999999999"};
	char err[256];

	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[sizeof(long_path) - 1] = '\0';
	memcpy(long_path, "socket=/", 8);
	defaults(&s);
	CU_ASSERT_EQUAL(plugin_parse_args(9, av, &s, err, sizeof(err)), 8);
	CU_ASSERT_STRING_EQUAL(s.socket_path, TRACER_DEFAULT_SOCKET);
	CU_ASSERT_EQUAL(s.timeout_ms, TRACER_DEFAULT_TIMEOUT_MS);
	/* one line, bounded, naming the first offender */
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	CU_ASSERT(strlen(err) < sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "timeout_ms=0"));
}

static void test_args_mixed(void)
{
	struct spank_settings s = {.timeout_ms = 0};
	char *av[] = {"timeout_ms=banana", "socket=/run/t.sock", "x"};
	char err[256];

	defaults(&s);
	CU_ASSERT_EQUAL(plugin_parse_args(3, av, &s, err, sizeof(err)), 2);
	CU_ASSERT_STRING_EQUAL(s.socket_path, "/run/t.sock");
	CU_ASSERT_EQUAL(s.timeout_ms, TRACER_DEFAULT_TIMEOUT_MS);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "banana"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "'x'"));
}

/* notes=yes / notes=no; a bad value keeps the default */
static void test_args_notes(void)
{
	struct spank_settings s;
	char *yes[] = {"notes=yes"}, *no[] = {"notes=off"}, *bad[] = {"notes=maybe"};
	char err[256];

	defaults(&s);
	CU_ASSERT_EQUAL(s.notes, SPANK_NOTES_ASKED);
	CU_ASSERT_EQUAL(plugin_parse_args(1, yes, &s, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(s.notes, SPANK_NOTES_ON);
	CU_ASSERT_EQUAL(plugin_parse_args(1, no, &s, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(s.notes, SPANK_NOTES_FORBIDDEN);
	defaults(&s);
	CU_ASSERT_EQUAL(plugin_parse_args(1, bad, &s, err, sizeof(err)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "notes must be yes or no"));
	CU_ASSERT_EQUAL(s.notes, SPANK_NOTES_ASKED);
}

/* The site's default, the user's word over it, the site's "no" over all;
 * --tracer=off: no notes either. */
static void test_notes_wanted(void)
{
	struct spank_settings s;
	struct spank_user_opts u = {.notes = -1};

	defaults(&s);
	CU_ASSERT_FALSE(plugin_notes_wanted(&s, &u));
	u.notes = 1;
	CU_ASSERT_TRUE(plugin_notes_wanted(&s, &u));
	s.notes = SPANK_NOTES_FORBIDDEN;
	CU_ASSERT_FALSE(plugin_notes_wanted(&s, &u));
	s.notes = SPANK_NOTES_ON;
	u.notes = -1;
	CU_ASSERT_TRUE(plugin_notes_wanted(&s, &u));
	u.notes = 0;
	CU_ASSERT_FALSE(plugin_notes_wanted(&s, &u));
	u.notes = 1;
	u.off = true;
	CU_ASSERT_FALSE(plugin_notes_wanted(&s, &u));
	CU_ASSERT_EQUAL(plugin_parse_switch("Yes"), 1);
	CU_ASSERT_EQUAL(plugin_parse_switch("0"), 0);
	CU_ASSERT_EQUAL(plugin_parse_switch(""), -1);
}

static void test_cpuset_count(void)
{
	CU_ASSERT_EQUAL(plugin_cpuset_count("0"), 1);
	CU_ASSERT_EQUAL(plugin_cpuset_count("0-1"), 2);
	CU_ASSERT_EQUAL(plugin_cpuset_count("0-3,8"), 5);
	CU_ASSERT_EQUAL(plugin_cpuset_count("2,4,6-7,10-15"), 10);
	CU_ASSERT_EQUAL(plugin_cpuset_count(""), -1);
	CU_ASSERT_EQUAL(plugin_cpuset_count(NULL), -1);
	CU_ASSERT_EQUAL(plugin_cpuset_count("3-1"), -1);
	CU_ASSERT_EQUAL(plugin_cpuset_count("1-"), -1);
	CU_ASSERT_EQUAL(plugin_cpuset_count("a"), -1);
	CU_ASSERT_EQUAL(plugin_cpuset_count("1,,2"), -1);
	CU_ASSERT_EQUAL(plugin_cpuset_count("0-99999999999"), -1);
	CU_ASSERT_EQUAL(plugin_cpuset_count("-1"), -1);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"plugstack arguments", test_args_good},
		{"no arguments", test_args_none},
		{"bad arguments keep the defaults", test_args_bad},
		{"good and bad arguments", test_args_mixed},
		{"notes=yes|no", test_args_notes},
		{"site's notes and the user's --tracer-notes", test_notes_wanted},
		{"CPU lists", test_cpuset_count},
	};

	return UNIT_RUN("spank_args", tests);
}
