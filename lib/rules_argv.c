/*
 * rules_argv.c - which argument of an interpreter's command line is the
 * program it runs.  Each family of interpreters has its own options that
 * take a value ("python -W ignore x.py", "bash -o pipefail x.sh", "java
 * -cp a.jar Main"): skipping them correctly is what makes the script,
 * not an option value, the tool.
 */
#include "rules_argv.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

struct opt_spec {
	const char *cmd;       /* letters after which program text follows: -c, -e */
	const char *module;    /* letters naming a module: python -m */
	const char *file;      /* letters naming the script file: R -f */
	const char *stdin_fl;  /* letters meaning "program from stdin": sh -s */
	const char *val_next;  /* value is the rest of the cluster, else the next arg */
	const char *val_rest;  /* value is the rest of the cluster only (may be empty) */
	const char *digits;    /* optional digits follow: perl -l0, -00 */
	const char *plus_val;  /* +X options taking the next arg: bash +o opt */
	const char *const *long_val; /* long options taking the next argument */
	const char *const *long_cmd; /* long options followed by program text */
	const char *file_long; /* long option naming the script: R --file */
	const char *stop;      /* long option after which nothing is ours: R --args */
	bool positional;       /* the first non-option argument is the script */
};

static const char *const py_long[] = {"--check-hash-based-pycs", NULL};
static const char *const sh_long[] = {"--rcfile", "--init-file", NULL};
static const char *const rb_long[] = {"--encoding", "--external-encoding",
				      "--internal-encoding", NULL};
static const char *const node_long[] = {
	"--require", "--import", "--loader", "--experimental-loader",
	"--conditions", "--input-type", "--inspect-port", "--title",
	"--env-file", "--stack-size", NULL};
static const char *const node_cmd[] = {"--eval", "--print", NULL};
static const char *const r_cmd[] = {"--expr", NULL};

static const struct opt_spec specs[] = {
	[FAM_GENERIC] = {.cmd = "ce", .positional = true},
	[FAM_PYTHON] = {.cmd = "c", .module = "m", .val_next = "WX",
			.long_val = py_long, .positional = true},
	[FAM_SHELL] = {.cmd = "c", .stdin_fl = "s", .val_next = "oO",
		       .plus_val = "oO", .long_val = sh_long, .positional = true},
	[FAM_PERL] = {.cmd = "eE", .val_next = "I", .val_rest = "MmxiDFV",
		      .digits = "l0C", .positional = true},
	[FAM_RUBY] = {.cmd = "e", .val_next = "IrCE", .val_rest = "xFiKTW0",
		      .long_val = rb_long, .positional = true},
	[FAM_NODE] = {.cmd = "ep", .val_next = "rC", .long_val = node_long,
		      .long_cmd = node_cmd, .positional = true},
	[FAM_RSCRIPT] = {.cmd = "e", .positional = true},
	[FAM_R] = {.cmd = "e", .file = "f", .val_next = "gd", .long_cmd = r_cmd,
		   .file_long = "--file", .stop = "--args", .positional = false},
};

/* Does name (without version digits) end in "sh"?  bash, dash, zsh5, ksh93. */
static bool shell_name(const char *name)
{
	size_t n = strlen(name);

	while (n > 0 && (isdigit((unsigned char)name[n - 1]) ||
			 name[n - 1] == '.' || name[n - 1] == '-'))
		n--;
	return n >= 2 && name[n - 2] == 's' && name[n - 1] == 'h';
}

enum rules_family rules_family_of(const char *name)
{
	if (strncmp(name, "python", 6) == 0 || strncmp(name, "pypy", 4) == 0)
		return FAM_PYTHON;
	if (strcmp(name, "Rscript") == 0)
		return FAM_RSCRIPT;
	if (strcmp(name, "R") == 0)
		return FAM_R;
	if (strncmp(name, "perl", 4) == 0)
		return FAM_PERL;
	if (strncmp(name, "ruby", 4) == 0)
		return FAM_RUBY;
	if (strncmp(name, "node", 4) == 0)
		return FAM_NODE;
	if (shell_name(name))
		return FAM_SHELL;
	return FAM_GENERIC;
}

static bool has(const char *set, char c)
{
	return set && c && strchr(set, c);
}

static bool in_list(const char *const *list, const char *s, size_t n)
{
	for (; list && *list; list++)
		if (strlen(*list) == n && strncmp(*list, s, n) == 0)
			return true;
	return false;
}

static struct rules_target target(enum rules_kind kind, const char *name,
				  int next)
{
	struct rules_target t = {kind, name, next};

	if ((kind == RK_SCRIPT || kind == RK_MODULE) && (!name || !*name))
		t.kind = RK_NONE;
	return t;
}

/* The value of a cluster letter at p: the rest, or the next argument. */
static const char *cluster_value(const char *p, const struct rules_args *a,
				 int *i)
{
	if (p[1])
		return p + 1;
	if (*i + 1 < a->n)
		return a->v[++*i];
	return NULL;
}

/* A long option ("--name" or "--name=value"). 1: keep going, 0: done (*t set). */
static int long_option(const struct opt_spec *sp, const struct rules_args *a,
		       int *i, struct rules_target *t)
{
	const char *s = a->v[*i], *eq = strchr(s, '=');
	size_t n = eq ? (size_t)(eq - s) : strlen(s);

	if (in_list(sp->long_cmd, s, n)) {
		*t = target(RK_COMMAND, NULL, *i + 1);
		return 0;
	}
	if (sp->stop && strcmp(s, sp->stop) == 0) {
		*t = target(RK_NONE, NULL, *i + 1);
		return 0;
	}
	if (sp->file_long && strlen(sp->file_long) == n &&
	    strncmp(s, sp->file_long, n) == 0) {
		if (eq)
			*t = target(RK_SCRIPT, eq + 1, a->n);
		else if (*i + 1 < a->n)
			*t = target(RK_SCRIPT, a->v[*i + 1], a->n);
		else
			*t = target(RK_NONE, NULL, a->n);
		return 0;
	}
	if (!eq && in_list(sp->long_val, s, n))
		(*i)++;
	return 1;
}

/* A cluster of short options "-uBc". 1: keep going, 0: done (*t set). */
static int short_options(const struct opt_spec *sp, const struct rules_args *a,
			 int *i, struct rules_target *t)
{
	const char *s = a->v[*i], *v;

	for (const char *p = s + 1; *p; p++) {
		if (has(sp->cmd, *p)) {
			*t = target(RK_COMMAND, NULL, *i + 1);
			return 0;
		}
		if (has(sp->stdin_fl, *p)) {
			*t = target(RK_NONE, NULL, *i + 1);
			return 0;
		}
		if (has(sp->module, *p) || has(sp->file, *p)) {
			enum rules_kind k = has(sp->module, *p) ? RK_MODULE
								: RK_SCRIPT;

			v = cluster_value(p, a, i);
			*t = target(k, v, k == RK_MODULE ? *i + 1 : a->n);
			return 0;
		}
		if (has(sp->val_next, *p)) {
			if (!p[1])
				(*i)++;
			return 1;
		}
		if (has(sp->val_rest, *p))
			return 1;
		if (has(sp->digits, *p))
			while (isdigit((unsigned char)p[1]))
				p++;
	}
	return 1;
}

struct rules_target rules_parse_interp(enum rules_family f,
				       const struct rules_args *a, int start)
{
	const struct opt_spec *sp = &specs[f];
	struct rules_target t = target(RK_NONE, NULL, a->n);

	for (int i = start; i < a->n; i++) {
		const char *s = a->v[i];

		if (strcmp(s, "--") == 0) {
			if (sp->positional && i + 1 < a->n)
				return target(RK_SCRIPT, a->v[i + 1], i + 2);
			return t;
		}
		if (strcmp(s, "-") == 0)
			return t; /* program from stdin */
		if (s[0] == '+' && has(sp->plus_val, s[1]) && !s[2]) {
			i++;
			continue;
		}
		if (s[0] != '-') {
			if (sp->positional)
				return target(RK_SCRIPT, s, i + 1);
			continue;
		}
		if (s[1] == '-') {
			if (!long_option(sp, a, &i, &t))
				return t;
			continue;
		}
		if (!short_options(sp, a, &i, &t))
			return t;
	}
	return t;
}

/* java options whose value is the next argument. */
static const char *const java_val[] = {
	"-cp", "-classpath", "--class-path", "-p", "--module-path",
	"--upgrade-module-path", "--add-modules", "--limit-modules",
	"--add-reads", "--add-exports", "--add-opens", "--patch-module",
	"--enable-native-access", "--source", "-d", "--describe-module", NULL};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), w = strlen(suffix);

	return n >= w && strcmp(s + n - w, suffix) == 0;
}

/*
 * java [options] -jar X.jar args | [options] Main args |
 * [options] -m module[/Main] args | [options] Source.java args
 */
struct rules_target rules_parse_java(const struct rules_args *a, int start)
{
	for (int i = start; i < a->n; i++) {
		const char *s = a->v[i];

		if (strcmp(s, "-jar") == 0)
			return i + 1 < a->n ? target(RK_SCRIPT, a->v[i + 1], i + 2)
					    : target(RK_NONE, NULL, a->n);
		if (strcmp(s, "-m") == 0 || strcmp(s, "--module") == 0 ||
		    strncmp(s, "--module=", 9) == 0) {
			const char *m = s[1] == '-' && s[8] == '=' ? s + 9 : NULL;
			const char *slash;
			int next = i + 1;

			if (!m && i + 1 < a->n) {
				m = a->v[i + 1];
				next = i + 2;
			}
			if (!m)
				return target(RK_NONE, NULL, a->n);
			slash = strrchr(m, '/');
			return target(RK_MODULE, slash ? slash + 1 : m, next);
		}
		if (s[0] == '-' || s[0] == '@') {
			if (in_list(java_val, s, strlen(s)))
				i++;
			continue;
		}
		if (ends_with(s, ".java"))
			return target(RK_SCRIPT, s, i + 1);
		return target(RK_MODULE, s, i + 1);
	}
	return target(RK_NONE, NULL, a->n);
}
