/* test_rules.c - tool attribution on real-world and hostile command lines. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules.h"
#include "unit.h"

/* variadic list terminator (a typed null pointer, not a bare NULL) */
#define END ((const char *)NULL)

static struct rules *R;
static char warned[4096];
static int nwarn;

static void collect_warn(const char *msg)
{
	nwarn++;
	snprintf(warned + strlen(warned), sizeof(warned) - strlen(warned),
		 "%s\n", msg);
}

/* Build NUL-separated argv bytes from a NULL-terminated list. */
static size_t build_argv(char *buf, size_t cap, va_list ap)
{
	size_t len = 0;
	const char *s;

	while ((s = va_arg(ap, const char *)) != NULL) {
		size_t n = strlen(s) + 1;

		if (len + n > cap)
			break;
		memcpy(buf + len, s, n);
		len += n;
	}
	return len;
}

static int same(const char *what, const char *got, const char *want,
		const char *ctx)
{
	if (strcmp(got, want) == 0)
		return 1;
	fprintf(stderr, "\n  [%s] %s: got \"%s\", want \"%s\"\n", ctx, what,
		got, want);
	return 0;
}

/*
 * Resolve exe + argv (NULL-terminated) with R; check tool, path and
 * interpreter (NULL: not checked).
 */
static void check(const char *exe, const char *tool, const char *path,
		  const char *interp, ...)
{
	char argv[16384];
	struct tool_id t;
	size_t len;
	va_list ap;

	va_start(ap, interp);
	len = build_argv(argv, sizeof(argv), ap);
	va_end(ap);
	rules_resolve(R, exe, argv, len, &t);
	CU_ASSERT(same("tool", t.tool, tool, argv));
	if (path)
		CU_ASSERT(same("path", t.path, path, argv));
	if (interp)
		CU_ASSERT(same("interpreter", t.interpreter, interp, argv));
}

static void test_plain_and_subcommands(void)
{
	check("/usr/bin/samtools", "samtools sort", "/usr/bin/samtools", "",
	      "samtools", "sort", "-@", "4", "-o", "out.bam", "in.bam", END);
	check("/usr/bin/bwa", "bwa mem", "/usr/bin/bwa", "", "bwa", "mem", "-t",
	      "8", "ref.fa", "r1.fq", END);
	check("/opt/bin/bwa-mem2.avx2", "bwa-mem2.avx2 mem", NULL, "",
	      "bwa-mem2.avx2", "mem", "ref", END);
	check("/usr/bin/samtools", "samtools", NULL, "", "samtools",
	      "--version", END);
	check("/usr/bin/samtools", "samtools", NULL, "", "samtools", END);
	check("/usr/bin/bcftools", "bcftools call", NULL, "", "bcftools",
	      "call", "-mv", "x.vcf", END);
	check("/usr/bin/bedtools", "bedtools intersect", NULL, "", "bedtools",
	      "intersect", "-a", "a.bed", "-b", "b.bed", END);
	check("/usr/bin/git", "git status", NULL, "", "git", "-C", "/tmp",
	      "status", END);
	check("/usr/bin/git", "git log", NULL, "", "git", "--no-pager", "log",
	      END);
	check("/usr/bin/aws", "aws s3 cp", NULL, "", "aws", "--region",
	      "us-east-1", "s3", "cp", "a", "s3://b/", END);
	/* not multi-command tools: no subcommand */
	check("/usr/bin/minimap2", "minimap2", NULL, "", "minimap2", "-ax",
	      "sr", "ref.fa", "r.fq", END);
	check("/usr/local/bin/STAR", "STAR", NULL, "", "STAR", "--runThreadN",
	      "4", END);
	check("/usr/bin/gzip", "gzip", "/usr/bin/gzip", "", "gzip", "-9", "x",
	      END);
	/* env is its own tool for its short life */
	check("/usr/bin/env", "env", NULL, "", "/usr/bin/env", "python3",
	      "x.py", END);
}

static void test_subcommand_must_be_a_word(void)
{
	check("/usr/bin/samtools", "samtools", NULL, "", "samtools",
	      "/data/x.bam", END);
	check("/usr/bin/samtools", "samtools", NULL, "", "samtools", "so rt",
	      END);
	check("/usr/bin/samtools", "samtools", NULL, "", "samtools",
	      "s\xff\xfe", END);
	{
		char w65[66], want[80];

		memset(w65, 'a', 65);
		w65[65] = '\0';
		check("/usr/bin/samtools", "samtools", NULL, "", "samtools",
		      w65, END);
		w65[64] = '\0';
		snprintf(want, sizeof(want), "samtools %s", w65);
		check("/usr/bin/samtools", want, NULL, "", "samtools", w65,
		      END);
	}
}

static void test_python(void)
{
	check("/usr/bin/python3.11", "script.py", "script.py",
	      "/usr/bin/python3.11", "python3", "-u", "script.py", "a", END);
	check("/usr/bin/python3", "script.py", "/home/u/script.py",
	      "/usr/bin/python3", "/usr/bin/python3", "/home/u/script.py",
	      END);
	check("/usr/bin/python3", "pkg.mod", NULL, "/usr/bin/python3",
	      "python3", "-m", "pkg.mod", "--flag", END);
	/* "-upkg" is a cluster of flags: no program named */
	check("/usr/bin/python3", "python3", NULL, "", "python3", "-upkg",
	      END);
	check("/usr/bin/python3", "mod", NULL, "/usr/bin/python3", "python3",
	      "-um", "mod", END);
	check("/usr/bin/python3", "mod", "/usr/bin/python3", "/usr/bin/python3",
	      "python", "-u", "-m", "mod", "x.py", END);
	check("/usr/bin/python3", "mod", NULL, NULL, "python3", "-mmod", END);
	check("/usr/bin/python3", "python3", "/usr/bin/python3", "", "python3",
	      "-c", "import sys; print(1)", END);
	check("/usr/bin/python3", "x.py", NULL, NULL, "python3", "-W",
	      "ignore", "-X", "dev", "x.py", END);
	check("/usr/bin/python3", "x.py", NULL, NULL, "python3", "-Wignore",
	      "-OO", "-B", "x.py", END);
	check("/usr/bin/python3", "python3", NULL, "", "python3", END);
	check("/usr/bin/python3", "python3", NULL, "", "python3", "-", END);
	check("/usr/bin/python3", "-x.py", NULL, NULL, "python3", "--",
	      "-x.py", END);
	check("/usr/bin/python3", "pip install", NULL, "/usr/bin/python3",
	      "python3", "-m", "pip", "install", "numpy", END);
	/* a python entry-point script with subcommands (#! re-exec form) */
	check("/usr/bin/python3.11", "gatk HaplotypeCaller", "/opt/gatk/gatk",
	      "/usr/bin/python3.11", "/usr/bin/python3", "/opt/gatk/gatk",
	      "--java-options", "-Xmx4g", "HaplotypeCaller", "-R", "ref.fa",
	      END);
	check("/usr/bin/pypy3", "a.py", NULL, NULL, "pypy3", "a.py", END);
}

static void test_gatk_direct(void)
{
	/* when gatk is an executable of its own (a compiled launcher) */
	check("/opt/gatk/gatk", "gatk HaplotypeCaller", NULL, "", "gatk",
	      "--java-options", "-Xmx4g", "HaplotypeCaller", "-I", "x.bam",
	      END);
	check("/opt/gatk/gatk", "gatk Mutect2", NULL, "", "gatk",
	      "--java-options", "-Xmx4g -XX:+UseParallelGC", "Mutect2", END);
}

static void test_r(void)
{
	check("/usr/lib/R/bin/Rscript", "x.R", "x.R", "/usr/lib/R/bin/Rscript",
	      "Rscript", "x.R", "arg", END);
	check("/usr/bin/Rscript", "analysis.R", NULL, NULL, "Rscript",
	      "--vanilla", "--default-packages=stats", "analysis.R", END);
	check("/usr/bin/Rscript", "Rscript", NULL, "", "Rscript", "-e",
	      "print(1)", END);
	check("/usr/lib/R/bin/exec/R", "x.R", "x.R", "/usr/lib/R/bin/exec/R",
	      "/usr/lib/R/bin/exec/R", "--no-echo", "--no-restore",
	      "--file=x.R", "--args", "a", END);
	check("/usr/lib/R/bin/exec/R", "y.R", "y.R", NULL, "R", "-f", "y.R",
	      END);
	check("/usr/lib/R/bin/exec/R", "R", NULL, "", "R", "--vanilla", END);
	check("/usr/lib/R/bin/exec/R", "R", NULL, "", "R", "--args", "-f",
	      "z.R", END);
	/* R's start-up shell script run by sh: followed to the R script */
	check("/usr/bin/dash", "x.R", "x.R", "/usr/lib/R/bin/R", "/bin/sh",
	      "/usr/lib/R/bin/R", "--no-echo", "--no-restore", "--file=x.R",
	      END);
}

static void test_java(void)
{
	check("/usr/lib/jvm/java-17/bin/java", "picard.jar SortSam",
	      "/opt/picard.jar", "/usr/lib/jvm/java-17/bin/java", "java",
	      "-Xmx4g", "-jar", "/opt/picard.jar", "SortSam", "I=a.bam",
	      "O=b.bam", END);
	check("/usr/bin/java", "org.Main", "/usr/bin/java", "/usr/bin/java",
	      "java", "-cp", "a.jar", "org.Main", "x", END);
	check("/usr/bin/java", "org.Main", NULL, NULL, "java", "-classpath",
	      "a.jar:b.jar", "-Dx=y", "-XX:+UseG1GC", "org.Main", END);
	check("/usr/bin/java", "app.jar", "app.jar", "/usr/bin/java", "java",
	      "-jar", "app.jar", "/data/in", END);
	check("/usr/bin/java", "gatk-package-4.4.0.0-local.jar HaplotypeCaller",
	      NULL, NULL, "java", "-Xmx8g", "-jar",
	      "/gatk/gatk-package-4.4.0.0-local.jar", "HaplotypeCaller", END);
	check("/usr/bin/java", "org.x.Main", NULL, NULL, "java", "-m",
	      "my.mod/org.x.Main", END);
	check("/usr/bin/java", "Hello.java", "Hello.java", NULL, "java",
	      "--source", "17", "Hello.java", END);
	check("/usr/bin/java", "java", "/usr/bin/java", "", "java", "-version",
	      END);
	check("/usr/bin/java", "java", NULL, "", "java", "-jar", END);
	check("/usr/bin/java",
	      "picard.cmdline.PicardCommandLine MarkDuplicates", NULL, NULL,
	      "java", "-cp", "picard.jar", "picard.cmdline.PicardCommandLine",
	      "MarkDuplicates", END);
}

static void test_shells(void)
{
	check("/usr/bin/bash", "script.sh", "script.sh", "/usr/bin/bash",
	      "bash", "script.sh", "a", END);
	check("/usr/bin/bash", "bash", "/usr/bin/bash", "", "bash", "-c",
	      "echo hi; ls", END);
	check("/usr/bin/bash", "bash", NULL, "", "bash", "-ec", "x", END);
	check("/usr/bin/bash", "run.sh", NULL, NULL, "bash", "-e", "-o",
	      "pipefail", "+O", "extglob", "--rcfile", "rc", "run.sh", END);
	check("/usr/bin/dash", "job.sh", "/tmp/job.sh", "/usr/bin/dash", "sh",
	      "/tmp/job.sh", END);
	check("/usr/bin/zsh", "a.zsh", NULL, NULL, "zsh", "a.zsh", END);
	check("/usr/bin/bash", "bash", NULL, "", "bash", "-s", "arg", END);
	check("/usr/bin/bash", "bash", NULL, "", "bash", END);
	/* a shell-script wrapper with subcommands (nextflow, conda picard) */
	check("/usr/bin/bash", "nextflow run", "/usr/local/bin/nextflow", NULL,
	      "bash", "/usr/local/bin/nextflow", "run", "main.nf", END);
	check("/usr/bin/bash", "picard SortSam", NULL, NULL, "bash",
	      "/opt/conda/bin/picard", "SortSam", "-I", "x", END);
	/* busybox: matched by argv[0] */
	check("/bin/busybox", "s.sh", "s.sh", "/bin/busybox", "sh", "s.sh",
	      END);
}

static void test_multicall(void)
{
	/* an applet through a symlink: argv[0] names it */
	check("/bin/busybox", "gzip", "/bin/busybox", "", "gzip", "-9", "f",
	      END);
	check("/usr/bin/busybox", "sort", NULL, "", "/bin/sort", "-n", END);
	/* "busybox APPLET ...": the first argument */
	check("/bin/busybox", "gzip", "/bin/busybox", "", "busybox", "gzip",
	      "-c", "f", END);
	check("/bin/busybox", "seq", NULL, "", "/bin/busybox", "seq", "10",
	      END);
	check("/bin/toybox", "sort", "/bin/toybox", "", "toybox", "sort", END);
	check("/usr/bin/coreutils", "ls", NULL, "", "coreutils",
	      "--coreutils-prog=ls", "-l", END);
	check("/usr/bin/coreutils", "cat", NULL, "", "cat", "x", END);
	/* the other rules apply to the applet */
	check("/bin/busybox", "run.sh", "run.sh", "/bin/busybox", "busybox",
	      "sh", "run.sh", END);
	check("/bin/busybox", "sh", "/bin/busybox", "", "busybox", "sh", "-c",
	      "x", END);
	/* no applet named: the binary itself */
	check("/bin/busybox", "busybox", NULL, "", "busybox", END);
	check("/bin/busybox", "busybox", NULL, "", "busybox", "--list", END);
	check("/bin/busybox", "busybox", NULL, "", "busybox", "../x y", END);
	/* xtables: iptables and ip6tables of container networking */
	check("/usr/sbin/xtables-nft-multi", "iptables", "/usr/sbin/xtables-nft-multi", "",
	      "/usr/sbin/iptables", "-t", "nat", "-N", "CNI-x", "--wait", END);
	check("/usr/sbin/xtables-legacy-multi", "ip6tables", NULL, "", "ip6tables", "--version",
	      END);
	/* a plain program named like an applet is untouched */
	check("/usr/bin/gzip", "gzip", "/usr/bin/gzip", "", "busybox", "x",
	      END);
}

/* exec'd through a descriptor (runc's own copy in a memfd): argv[0] */
static void test_fd_exec(void)
{
	check("/dev/fd/6", "runc", "/usr/bin/runc", "", "/usr/bin/runc", "init", END);
	check("/proc/self/fd/3", "runc", "/usr/bin/runc", "", "/usr/bin/runc", "init", END);
	check("/proc/1234/fd/17", "prog", "prog", "", "prog", END);
	/* no argv[0]: the path it has */
	check("/dev/fd/6", "6", "/dev/fd/6", "", "", END);
	/* names that only look like one */
	check("/opt/6", "6", "/opt/6", "", "6", END);
	check("/dev/fd/6x", "6x", "/dev/fd/6x", "", "runc", END);
	check("/proc/self/fd/", "runc", NULL, "", "runc", END);
}

static void test_perl_ruby_node(void)
{
	check("/usr/bin/perl", "x.pl", "x.pl", "/usr/bin/perl", "perl", "-w",
	      "x.pl", END);
	check("/usr/bin/perl", "x.pl", NULL, NULL, "perl", "-I", "lib",
	      "-MData::Dumper", "-T", "x.pl", END);
	check("/usr/bin/perl", "perl", NULL, "", "perl", "-wle", "print 1",
	      END);
	check("/usr/bin/perl", "perl", NULL, "", "perl", "-i.bak", "-pe",
	      "s/a/b/", "f", END);
	check("/usr/bin/perl", "y.pl", NULL, NULL, "perl", "-l0", "-Ilib",
	      "y.pl", END);
	check("/usr/bin/ruby3.1", "app.rb", NULL, "/usr/bin/ruby3.1", "ruby",
	      "-r", "json", "-W0", "app.rb", END);
	check("/usr/bin/ruby", "ruby", NULL, "", "ruby", "-e", "puts 1", END);
	check("/usr/bin/node", "server.js", "server.js", "/usr/bin/node",
	      "node", "--max-old-space-size=4096", "-r", "dotenv/config",
	      "server.js", END);
	check("/usr/bin/node", "node", NULL, "", "node", "--eval", "1+1",
	      END);
	check("/usr/bin/node", "node", NULL, "", "node", "-p", "1", END);
}

/* Resolve raw bytes (not built from strings). */
static void check_raw(const char *exe, const char *argv, size_t len,
		      const char *tool)
{
	struct tool_id t;

	rules_resolve(R, exe, argv, len, &t);
	CU_ASSERT(same("tool", t.tool, tool, "raw"));
	CU_ASSERT(memchr(t.tool, '\0', sizeof(t.tool)) != NULL);
	CU_ASSERT(memchr(t.path, '\0', sizeof(t.path)) != NULL);
	CU_ASSERT(memchr(t.interpreter, '\0', sizeof(t.interpreter)) != NULL);
}

static void test_hostile(void)
{
	static const char no_nul[] = {'s', 'a', 'm', 't', 'o', 'o', 'l', 's',
				      0, 's', 'o', 'r', 't'};
	static const char py_no_nul[] = {'p', 'y', 0, 'x', '.', 'p', 'y'};
	char *big;
	size_t n = 1 << 20;

	check_raw("/usr/bin/samtools", "", 0, "samtools");
	check_raw("/usr/bin/samtools", NULL, 0, "samtools");
	check_raw("/usr/bin/samtools", no_nul, sizeof(no_nul), "samtools sort");
	check_raw("/usr/bin/python3", py_no_nul, sizeof(py_no_nul), "x.py");
	check_raw("/usr/bin/python3", "python3\0-m", 10, "python3");
	check_raw("/usr/bin/java", "java\0-cp", 8, "java");
	check_raw("", "", 0, "(unknown)");
	check_raw(NULL, "ls\0-l\0", 6, "ls");
	check_raw("/usr/bin/", "", 0, "(unknown)");
	check_raw("/usr/bin/foo (deleted)", "foo\0", 4, "foo");
	check_raw("/usr/bin/python3", "\0\0\0\0", 4, "python3");
	check_raw("/usr/bin/python3", "python3\0\xff\xfe.py\0", 14,
		  "\xff\xfe.py");

	/* a 1 MiB argument and 100k arguments: bounded work, no overflow */
	big = malloc(n);
	CU_ASSERT_FATAL(big != NULL);
	memset(big, 0, n);
	for (size_t i = 0; i + 2 <= n; i += 2)
		big[i] = '-';
	memcpy(big, "bash\0", 5);
	check_raw("/usr/bin/bash", big, n, "bash");
	memset(big, 'x', n);
	check_raw("/usr/bin/samtools", big, n, "samtools");
	free(big);
	/* a script name longer than the tool field is cut, never overflows */
	{
		char arg[3000];
		struct tool_id t;

		memcpy(arg, "bash\0", 5);
		memset(arg + 5, 'y', sizeof(arg) - 6);
		arg[sizeof(arg) - 1] = '\0';
		rules_resolve(R, "/bin/bash", arg, sizeof(arg), &t);
		CU_ASSERT(strlen(t.tool) < sizeof(t.tool));
		CU_ASSERT(t.tool[0] == 'y');
	}
}

static void test_long_script_arg(void)
{
	/* the long-argument case above resolves to the (cut) script name */
	char *big = malloc(20000);
	struct tool_id t;

	CU_ASSERT_FATAL(big != NULL);
	memcpy(big, "python3\0", 8);
	memset(big + 8, 'a', 20000 - 8);
	rules_resolve(R, "/usr/bin/python3", big, 20000, &t);
	CU_ASSERT(t.tool[0] == 'a');
	CU_ASSERT(strlen(t.tool) < sizeof(t.tool));
	free(big);
}

static void test_default_without_rules(void)
{
	struct tool_id t;

	rules_resolve(NULL, "/usr/bin/python3", "python3\0x.py\0", 13, &t);
	CU_ASSERT_STRING_EQUAL(t.tool, "python3");
}

static char tmpdir[] = "/tmp/test_rules.XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_rules_file(void)
{
	struct rules *r;
	struct tool_id t;
	const char *p;

	p = write_file("a.rules",
		       "# my tools\n"
		       "interpreter julia*   # comment after rule\n"
		       "subcommand mytool 2 --cfg\n"
		       "subcommand samtools 2\n"
		       "frobnicate x\n"
		       "subcommand bad 9\n"
		       "subcommand bad2 1 notanoption\n"
		       "interpreter\n"
		       "multicall mybox\n");
	nwarn = 0;
	warned[0] = '\0';
	r = rules_load(p, collect_warn);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(nwarn, 4);
	CU_ASSERT(strstr(warned, ":5: unknown rule") != NULL);
	CU_ASSERT(strstr(warned, ":6: depth") != NULL);
	CU_ASSERT(strstr(warned, ":7:") != NULL);
	CU_ASSERT(strstr(warned, ":8:") != NULL);
	rules_resolve(r, "/opt/julia-1.9/bin/julia-1.9", "julia\0run.jl\0", 13,
		      &t);
	CU_ASSERT_STRING_EQUAL(t.tool, "run.jl");
	rules_resolve(r, "/bin/mytool", "mytool\0--cfg\0x\0db\0init\0", 23, &t);
	CU_ASSERT_STRING_EQUAL(t.tool, "mytool db init");
	/* the file's rule overrides the built-in one */
	rules_resolve(r, "/bin/samtools", "samtools\0view\0x.bam\0", 20, &t);
	CU_ASSERT_STRING_EQUAL(t.tool, "samtools view x.bam");
	/* built-ins still apply */
	rules_resolve(r, "/bin/bwa", "bwa\0mem\0", 8, &t);
	CU_ASSERT_STRING_EQUAL(t.tool, "bwa mem");
	/* a site's own multi-call binary */
	rules_resolve(r, "/opt/mybox", "mybox\0frob\0-x\0", 14, &t);
	CU_ASSERT_STRING_EQUAL(t.tool, "frob");
	CU_ASSERT_STRING_EQUAL(t.path, "/opt/mybox");
	rules_resolve(r, "/opt/mybox", "frob\0", 5, &t);
	CU_ASSERT_STRING_EQUAL(t.tool, "frob");
	rules_free(r);

	/* missing file: built-ins, one warning */
	nwarn = 0;
	r = rules_load("/nonexistent/tools.rules", collect_warn);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(nwarn, 1);
	rules_resolve(r, "/bin/bwa", "bwa\0mem\0", 8, &t);
	CU_ASSERT_STRING_EQUAL(t.tool, "bwa mem");
	rules_free(r);

	/* a very long line and a binary file */
	{
		char line[3000];

		memset(line, 'a', sizeof(line) - 2);
		line[sizeof(line) - 2] = '\n';
		line[sizeof(line) - 1] = '\0';
		p = write_file("long.rules", line);
		nwarn = 0;
		r = rules_load(p, collect_warn);
		CU_ASSERT_FATAL(r != NULL);
		CU_ASSERT_EQUAL(nwarn, 1);
		rules_free(r);
	}
}

static void test_shipped_file(void)
{
	/* contrib/rules/tools.rules loads without a warning and agrees */
	struct rules *r;
	struct tool_id t;

	nwarn = 0;
	warned[0] = '\0';
	r = rules_load(source_file("contrib/rules/tools.rules"), collect_warn);
	CU_ASSERT_FATAL(r != NULL);
	if (nwarn)
		fprintf(stderr, "\n%s", warned);
	CU_ASSERT_EQUAL(nwarn, 0);
	rules_resolve(r, "/usr/bin/python3", "python3\0-u\0s.py\0", 16, &t);
	CU_ASSERT_STRING_EQUAL(t.tool, "s.py");
	rules_resolve(r, "/usr/bin/gatk", "gatk\0--java-options\0-Xmx4g\0HaplotypeCaller\0",
		      43, &t);
	CU_ASSERT_STRING_EQUAL(t.tool, "gatk HaplotypeCaller");
	rules_resolve(r, "/bin/busybox", "/bin/gzip\0-c\0", 13, &t);
	CU_ASSERT_STRING_EQUAL(t.tool, "gzip");
	rules_free(r);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"plain tools and subcommands", test_plain_and_subcommands},
		{"subcommand must look like a word", test_subcommand_must_be_a_word},
		{"python", test_python},
		{"gatk launcher", test_gatk_direct},
		{"R and Rscript", test_r},
		{"java", test_java},
		{"shells", test_shells},
		{"perl ruby node", test_perl_ruby_node},
		{"multi-call binaries", test_multicall},
		{"images exec'd through a descriptor", test_fd_exec},
		{"hostile argv", test_hostile},
		{"long script argument", test_long_script_arg},
		{"no rules", test_default_without_rules},
		{"rules file", test_rules_file},
		{"shipped rules file", test_shipped_file},
	};
	int rc = 1;

	if (unit_make_dir(tmpdir) < 0)
		return 1;
	R = rules_default();
	if (!R)
		fprintf(stderr, "test_rules: setup failed\n");
	else
		rc = UNIT_RUN("rules", tests);
	rules_free(R);
	unit_remove_dir(tmpdir);
	return rc;
}
