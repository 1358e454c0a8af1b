/* test_redact.c - secrets in argv never reach a summary. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_record.h"
#include "redact.h"
#include "redact_table.h"
#include "rules.h"
#include "unit.h"

/* variadic list terminator (a typed null pointer, not a bare NULL) */
#define END ((const char *)NULL)

/* Join a NULL-terminated list as argv bytes and redact it. */
static char *join(size_t max_out, ...)
{
	char buf[8192];
	size_t len = 0;
	const char *s;
	va_list ap;

	va_start(ap, max_out);
	while ((s = va_arg(ap, const char *)) != NULL) {
		size_t n = strlen(s) + 1;

		if (len + n > sizeof(buf))
			break;
		memcpy(buf + len, s, n);
		len += n;
	}
	va_end(ap);
	return redact_join_argv(buf, len, max_out);
}

static int same(const char *got, const char *want)
{
	if (got && strcmp(got, want) == 0)
		return 1;
	fprintf(stderr, "\n  got \"%s\"\n want \"%s\"\n", got ? got : "(null)",
		want);
	return 0;
}

#define JOIN_IS(want, ...)                                   \
	do {                                                 \
		char *_s = join(100000, __VA_ARGS__, END);  \
		CU_ASSERT(same(_s, want));                   \
		free(_s);                                    \
	} while (0)

static void test_options(void)
{
	JOIN_IS("tool --password=*** x", "tool", "--password=hunter2", "x");
	JOIN_IS("tool --password *** x", "tool", "--password", "hunter2", "x");
	JOIN_IS("tool --passwd=*** --pass=***", "tool", "--passwd=a",
		"--pass=b");
	JOIN_IS("tool --token *** --secret=***", "tool", "--token", "t0k",
		"--secret=s");
	JOIN_IS("aws --api-key *** --apikey=*** --access-key=*** --secret-key ***",
		"aws", "--api-key", "K", "--apikey=K", "--access-key=K",
		"--secret-key", "S");
	JOIN_IS("x --auth *** --credentials=*** --private-key ***", "x",
		"--auth", "user:pw", "--credentials=c", "--private-key", "pk");
	JOIN_IS("x --db-password *** --github-token=*** --client_secret ***",
		"x", "--db-password", "p", "--github-token=g",
		"--client_secret", "c");
	JOIN_IS("keytool -storepass *** -keypass ***", "keytool", "-storepass",
		"changeit", "-keypass", "k");
	JOIN_IS("x --Password=*** --TOKEN ***", "x", "--Password=a", "--TOKEN",
		"b");
	/* -p is too broad (ports, paths, threads): kept */
	JOIN_IS("mysql -p secretless -P 3306", "mysql", "-p", "secretless",
		"-P", "3306");
	/* look-alikes that are not secrets */
	JOIN_IS("hf --tokenizer bert --passes 3 -o out", "hf", "--tokenizer",
		"bert", "--passes", "3", "-o", "out");
}

static void test_env_style(void)
{
	/* the key id is not secret, but hiding it too costs little */
	JOIN_IS("env AWS_SECRET_ACCESS_KEY=*** AWS_ACCESS_KEY_ID=*** x", "env",
		"AWS_SECRET_ACCESS_KEY=abc/def", "AWS_ACCESS_KEY_ID=AKIA", "x");
	JOIN_IS("env API_KEY=*** GITHUB_TOKEN=*** MY_SECRET=*** DB_PASSWORD=***",
		"env", "API_KEY=k", "GITHUB_TOKEN=t", "MY_SECRET=s",
		"DB_PASSWORD=p");
	JOIN_IS("env STRIPE_KEY=*** PATH=/usr/bin", "env", "STRIPE_KEY=sk_live",
		"PATH=/usr/bin");
	JOIN_IS("docker run -e MYSQL_ROOT_PASSWORD=*** img", "docker", "run",
		"-e", "MYSQL_ROOT_PASSWORD=pw", "img");
	JOIN_IS("x --env=SERVICE_TOKEN=***", "x", "--env=SERVICE_TOKEN=abc");
	JOIN_IS("java -Djavax.net.ssl.trustStorePassword=*** -jar a.jar",
		"java", "-Djavax.net.ssl.trustStorePassword=changeit", "-jar",
		"a.jar");
	/* picard style I=/O= is data, kept */
	JOIN_IS("picard SortSam I=in.bam O=out.bam SORT_ORDER=coordinate",
		"picard", "SortSam", "I=in.bam", "O=out.bam",
		"SORT_ORDER=coordinate");
}

static void test_anywhere(void)
{
	JOIN_IS("x password:***", "x", "password:hunter2");
	JOIN_IS("x my_secret_value=***", "x", "my_secret_value=1");
	JOIN_IS("curl https://h/x?token=***", "curl",
		"https://h/x?token=abc&b=1");
	JOIN_IS("x chr1:100-200 a=b", "x", "chr1:100-200", "a=b");
}

static void test_urls(void)
{
	JOIN_IS("git clone https://user:***@github.com/o/r.git", "git",
		"clone", "https://user:ghp_abc@github.com/o/r.git");
	JOIN_IS("psql postgres://app:***@db:5432/x", "psql",
		"postgres://app:pw@db:5432/x");
	JOIN_IS("x --url=mongodb://u:***@h1,h2/db", "x",
		"--url=mongodb://u:p@ss@h1,h2/db");
	JOIN_IS("x a=ftp://u:***@h,b=s3://k:***@bucket", "x",
		"a=ftp://u:p1@h,b=s3://k:s2@bucket");
	JOIN_IS("git clone https://***@github.com/o/r", "git", "clone",
		"https://ghp_0123456789abcdefghij@github.com/o/r");
	/* no credentials: unchanged */
	JOIN_IS("wget https://example.org/a:b@c ssh://git@host/x", "wget",
		"https://example.org/a:b@c", "ssh://git@host/x");
}

static void test_headers(void)
{
	JOIN_IS("curl -H Authorization: Bearer ***", "curl", "-H",
		"Authorization: Bearer eyJhbGciOi");
	JOIN_IS("curl --header=authorization: Basic ***", "curl",
		"--header=authorization: Basic dXNlcjpwYXNz");
	JOIN_IS("curl -H X-Api-Key: ***", "curl", "-H", "X-Api-Key: abc");
	JOIN_IS("curl -H Cookie: ***", "curl", "-H", "Cookie: session=1");
	JOIN_IS("curl -H Authorization:***", "curl", "-H", "Authorization:tok");
}

static void test_redact_arg_direct(void)
{
	char small[16], tiny[12];

	/* the mask never overflows the buffer: it shrinks instead */
	strcpy(tiny, "--token=ab");
	CU_ASSERT_EQUAL(redact_arg(tiny, sizeof(tiny), NULL), 1);
	CU_ASSERT_STRING_EQUAL(tiny, "--token=***");
	strcpy(tiny, "--token=a");
	CU_ASSERT_EQUAL(redact_arg(tiny, 10, NULL), 1);
	CU_ASSERT_STRING_EQUAL(tiny, "--token=*");
	strcpy(small, "plain");
	CU_ASSERT_EQUAL(redact_arg(small, sizeof(small), NULL), 0);
	CU_ASSERT_STRING_EQUAL(small, "plain");
	strcpy(small, "hunter2");
	CU_ASSERT_EQUAL(redact_arg(small, sizeof(small), "--password"), 1);
	CU_ASSERT_STRING_EQUAL(small, "***");
	strcpy(small, "");
	CU_ASSERT_EQUAL(redact_arg(small, sizeof(small), "--password"), 0);
	CU_ASSERT_EQUAL(redact_arg(NULL, 10, NULL), 0);
	/* not NUL-terminated within size: left alone */
	memset(small, 'a', sizeof(small));
	CU_ASSERT_EQUAL(redact_arg(small, sizeof(small), "--token"), 0);
}

static void test_join_shape(void)
{
	char *s;

	/* empty, no final NUL, empty arguments, non-UTF-8 kept as bytes */
	s = redact_join_argv("", 0, 100);
	CU_ASSERT(same(s, ""));
	free(s);
	s = redact_join_argv(NULL, 0, 100);
	CU_ASSERT(same(s, ""));
	free(s);
	s = redact_join_argv("ls\0-l", 5, 100);
	CU_ASSERT(same(s, "ls -l"));
	free(s);
	s = redact_join_argv("a\0\0b\0", 5, 100);
	CU_ASSERT(same(s, "a  b"));
	free(s);
	s = redact_join_argv("x\0\xff\xfe\0", 5, 100);
	CU_ASSERT(same(s, "x \xff\xfe"));
	free(s);
	/* a wrapper with nothing after it */
	s = redact_join_argv("timeout", 7, 100);
	CU_ASSERT(same(s, "timeout"));
	free(s);
	/* empty arguments only: one NUL each */
	{
		char nuls[64] = {0};
		size_t n;
		char *r = redact_record(nuls, sizeof(nuls), false, &n);

		CU_ASSERT_FATAL(r != NULL);
		CU_ASSERT_EQUAL(n, sizeof(nuls));
		CU_ASSERT_EQUAL(memcmp(r, nuls, n), 0);
		free(r);
	}
	/* no final NUL after a secret option's value */
	s = redact_join_argv("x\0--token\0abc", 13, 100);
	CU_ASSERT(same(s, "x --token ***"));
	free(s);
}

static void test_join_bound(void)
{
	char *s, big[5000];

	s = join(10, "abcdef", "ghijkl", END);
	CU_ASSERT(same(s, "abcdef ..."));
	CU_ASSERT(strlen(s) <= 10);
	free(s);
	s = join(12, "abcdef", "ghijkl", END);
	CU_ASSERT(same(s, "abcdef gh..."));
	free(s);
	s = join(13, "abcdef", "ghijkl", END); /* exactly fits */
	CU_ASSERT(same(s, "abcdef ghijkl"));
	free(s);
	s = join(13, "abcdef", "ghijk", END);
	CU_ASSERT(same(s, "abcdef ghijk"));
	free(s);
	s = join(2, "abcdef", END);
	CU_ASSERT(same(s, ".."));
	free(s);
	s = join(0, "abcdef", END);
	CU_ASSERT(same(s, ""));
	free(s);
	/* a cut never splits a UTF-8 character */
	s = join(5, "\xc3\xa9\xc3\xa9\xc3\xa9", END);
	CU_ASSERT(same(s, "\xc3\xa9..."));
	free(s);
	s = join(4, "\xc3\xa9\xc3\xa9\xc3\xa9", END);
	CU_ASSERT(same(s, "..."));
	free(s);
	/* redaction happens before the cut: the secret is not shown cut */
	s = join(20, "run", "--password=abcdefghijklmnop", END);
	CU_ASSERT(same(s, "run --password=***"));
	free(s);
	/* many one-byte secrets: the output may grow, never overflows */
	memset(big, 0, sizeof(big));
	for (size_t i = 0; i + 10 <= sizeof(big); i += 10)
		memcpy(big + i, "--token\0a", 10);
	s = redact_join_argv(big, sizeof(big) - 5, 1 << 20);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT(strstr(s, "--token *** --token ***") != NULL);
	CU_ASSERT(strchr(s, 'a') == NULL);
	free(s);
}

/* Join a NULL-terminated array as argv bytes and redact it. */
static char *join_array(const char *const *argv)
{
	char buf[4096];
	size_t len = 0;

	for (size_t i = 0; i < 10 && argv[i]; i++) {
		size_t n = strlen(argv[i]) + 1;

		memcpy(buf + len, argv[i], n);
		len += n;
	}
	return redact_join_argv(buf, len, 100000);
}

static void test_forms_table(void)
{
	size_t n = sizeof(forms) / sizeof(forms[0]);

	CU_ASSERT(n >= 30);
	for (size_t i = 0; i < n; i++) {
		char *s = join_array(forms[i].argv);

		CU_ASSERT(same(s, forms[i].want));
		CU_ASSERT(s && strstr(s, "S3CR") == NULL);
		free(s);
	}
}

static void test_forms_kept_table(void)
{
	size_t n = sizeof(kept) / sizeof(kept[0]);
	size_t nforms = sizeof(forms) / sizeof(forms[0]);

	CU_ASSERT(nforms + n >= 100);
	for (size_t i = 0; i < n; i++) {
		char want[512] = "";
		char *s = join_array(kept[i].argv);

		for (size_t k = 0; k < 10 && kept[i].argv[k]; k++) {
			if (k)
				strcat(want, " ");
			strcat(want, kept[i].argv[k]);
		}
		CU_ASSERT(same(s, want));
		free(s);
	}
}

/* Look-alikes that must stay as typed. */
static void test_forms_kept(void)
{
	JOIN_IS("docker run -u 1000:1000 -p 8080:80 img", "docker", "run",
		"-u", "1000:1000", "-p", "8080:80", "img");
	JOIN_IS("pip install scikit-learn sk-learn hf_hub", "pip", "install",
		"scikit-learn", "sk-learn", "hf_hub");
	JOIN_IS("git checkout 0123456789abcdef0123456789abcdef01234567", "git",
		"checkout", "0123456789abcdef0123456789abcdef01234567");
	JOIN_IS("ps -u alice", "ps", "-u", "alice");
	JOIN_IS("tar -pxf a.tar", "tar", "-pxf", "a.tar");
	JOIN_IS("mysql -p db", "mysql", "-p", "db");
	JOIN_IS("kubectl create secret generic name", "kubectl", "create",
		"secret", "generic", "name");
}

/* The tool and exe fields come from argv too: never a raw secret. */
static void test_tool_and_exe(void)
{
	static const char argv1[] =
		"python3\0/home/a/ghp_S3CR456789abcdefghijklmnop.py\0x";
	static const char argv2[] =
		"java\0-jar\0https://u:S3CRpw@h/app.jar\0run";
	struct rules *r = rules_default();
	struct tracer_identity id;
	struct job *j;
	struct job_proc *p;

	memset(&id, 0, sizeof(id));
	j = job_new("u1", &id, 8);
	CU_ASSERT_FATAL(r != NULL && j != NULL);
	p = job_proc_add(j, 100, 1, 1, "python3");
	job_proc_exec(j, p, "/usr/bin/python3.11", argv1, sizeof(argv1), r, false);
	CU_ASSERT(p->tool && strstr(p->tool, "S3CR") == NULL);
	CU_ASSERT(p->exe && strstr(p->exe, "S3CR") == NULL);
	CU_ASSERT(p->cmdline && strstr(p->cmdline, "S3CR") == NULL);
	p = job_proc_add(j, 101, 1, 1, "java");
	job_proc_exec(j, p, "/usr/bin/java", argv2, sizeof(argv2), r, false);
	CU_ASSERT(p->tool && strstr(p->tool, "S3CR") == NULL);
	CU_ASSERT(p->exe && strstr(p->exe, "S3CR") == NULL);
	job_free(j);
	rules_free(r);
}

/* the arguments kept apart: whole arguments, redacted, bounded */
static void test_argv_array(void)
{
	char *s, big[5000];
	size_t n;
	int cut;

	s = redact_argv("x\0--token\0abc\0a b\0", 18, 100, &n, &cut);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(n, 18);
	CU_ASSERT_EQUAL(memcmp(s, "x\0--token\0***\0a b\0", 18), 0);
	CU_ASSERT_EQUAL(cut, 0);
	free(s);
	/* no final NUL: one is added */
	s = redact_argv("ls\0-l", 5, 100, &n, &cut);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(n, 6);
	CU_ASSERT_EQUAL(memcmp(s, "ls\0-l\0", 6), 0);
	free(s);
	/* past the bound, whole arguments only */
	s = redact_argv("abcdef\0ghijkl\0", 14, 10, &n, &cut);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(n, 7);
	CU_ASSERT_EQUAL(cut, 1);
	free(s);
	s = redact_argv("", 0, 10, &n, &cut);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(n, 0);
	free(s);
	/* many one-byte secrets: grows, never overflows */
	memset(big, 0, sizeof(big));
	for (size_t i = 0; i + 10 <= sizeof(big); i += 10)
		memcpy(big + i, "--token\0a", 10);
	s = redact_argv(big, sizeof(big) - 5, 1 << 20, &n, &cut);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(cut, 0);
	CU_ASSERT(memchr(s, 'a', n) == NULL);
	free(s);
}

/* The work of one record of n bytes of pat (in an argument of tool,
 * or a shell's command string). */
static size_t work_of(const char *tool, const char *pat, size_t n)
{
	static char buf[16384];
	size_t len = 0, p = strlen(pat), w0, rlen;
	char *r;

	len = strlen(tool) + 1;
	memcpy(buf, tool, len);
	if (strcmp(tool, "sh") == 0) {
		memcpy(buf + len, "-c", 3);
		len += 3;
	}
	for (size_t i = 0; i < n; i++)
		buf[len++] = pat[i % p];
	buf[len++] = '\0';
	w0 = redact_work();
	r = redact_record(buf, len, false, &rlen);
	CU_ASSERT(r != NULL);
	free(r);
	return redact_work() - w0;
}

/*
 * A user chooses every byte of a command line and tracerd redacts it on
 * its event loop: the work must grow with the length, never with its
 * square (it rescanned the prefix at every '=' or ':').  4 times the
 * bytes: at most 4.5 times the work, and a bounded number of steps per
 * byte.
 */
static void test_work_linear(void)
{
	static const char *const pats[] = {
		"=:", "=", ":", "://", "a@", "eyJ-", "password=", "ghp_",
		"x-auth-key:", "'", "\"\\", "-c ", "identified by ",
		"PRIVATE KEY-----", "; sh -c ", "AKIAAAAAAAAAAAAAAAAA ",
	};
	static const char *const tools[] = {"tool", "sh", "curl", "docker"};

	for (size_t t = 0; t < sizeof(tools) / sizeof(tools[0]); t++)
		for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
			size_t w1 = work_of(tools[t], pats[i], 1024);
			size_t w4 = work_of(tools[t], pats[i], 4096);

			if (w4 * 2 > w1 * 9 || w4 > 64 * 4096)
				fprintf(stderr, "\n  %s '%s': work %zu for 1 KiB, %zu for 4 KiB\n",
					tools[t], pats[i], w1, w4);
			CU_ASSERT(w4 * 2 <= w1 * 9);
			CU_ASSERT(w4 <= 64 * 4096);
		}
}

/* A record cut at argv_max: its last piece is hidden unless harmless. */
static void test_cut_record(void)
{
	static const char url[] = "git\0clone\0https://bob:S3CRpw";
	static const char tok[] = "gh\0auth\0ghp_S3CR45";
	static const char path[] = "cat\0/data/reads/sample_R1.fa";
	static const char num[] = "seq\0" "100"; /* not the octal \010 */
	size_t n;
	int cut;
	char *r;

	r = redact_record(url, sizeof(url) - 1, true, &n);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(n, 14);
	CU_ASSERT_EQUAL(memcmp(r, "git\0clone\0***\0", 14), 0);
	free(r);
	r = redact_record(tok, sizeof(tok) - 1, true, &n);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT(memmem(r, n, "S3CR", 4) == NULL);
	free(r);
	r = redact_record(path, sizeof(path) - 1, true, &n);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(memcmp(r, path, sizeof(path)), 0);
	free(r);
	r = redact_record(num, sizeof(num) - 1, true, &n);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(memcmp(r, num, sizeof(num)), 0);
	free(r);
	/* cut just after a NUL: the last argument is whole, kept */
	r = redact_record("bwa\0mem\0", 8, true, &n);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(n, 8);
	CU_ASSERT_EQUAL(memcmp(r, "bwa\0mem\0", 8), 0);
	free(r);
	/* not cut: the piece is an argument of its own, kept */
	r = redact_record(tok, sizeof(tok) - 1, false, &n);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT(memmem(r, n, "ghp_S3CR45", 10) != NULL);
	free(r);
	/* the bound of whole arguments after redaction */
	r = redact_record("a\0bb\0ccc\0", 9, false, &n);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(redact_fit(r, n, 5, &cut), 5);
	CU_ASSERT_EQUAL(cut, 1);
	CU_ASSERT_EQUAL(redact_fit(r, n, 9, &cut), 9);
	CU_ASSERT_EQUAL(cut, 0);
	free(r);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"secret options", test_options},
		{"argv kept as an array", test_argv_array},
		{"NAME=value", test_env_style},
		{"secret words anywhere", test_anywhere},
		{"URL credentials", test_urls},
		{"authorization headers", test_headers},
		{"redact_arg", test_redact_arg_direct},
		{"join shape", test_join_shape},
		{"join bound", test_join_bound},
		{"secret forms table", test_forms_table},
		{"look-alikes kept", test_forms_kept},
		{"look-alikes table", test_forms_kept_table},
		{"work linear in the record", test_work_linear},
		{"cut records", test_cut_record},
		{"tool and exe", test_tool_and_exe},
	};

	return UNIT_RUN("redact", tests);
}
