/*
 * rules.c - tool attribution rules: loading (built-in text plus the
 * user's tools.rules) and resolving an exec into a tool name.
 *
 * The built-in rules are written in the file syntax and parsed by the
 * same code as the file, so the shipped contrib/rules/tools.rules and
 * the defaults cannot drift apart in meaning.  Rules from the file come
 * after the built-ins; for subcommand rules the last match wins.
 */
#include "rules.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "rules_argv.h"

#define RULE_LINE_MAX 1024
#define RULE_GLOB_MAX 128
#define RULE_MAX_VALOPTS 16
#define RULE_MAX_DEPTH 4
#define SUBCMD_MAX 64
/* Only the start of argv decides the tool: bounded work per exec. */
#define SCAN_BYTES 8192

struct sub_rule {
	char *glob;
	int depth;
	int nval;
	char *valopts[RULE_MAX_VALOPTS]; /* options taking the next argument */
};

struct rules {
	char **interp, **java, **multi;
	size_t ninterp, njava, nmulti;
	struct sub_rule *subs;
	size_t nsubs;
};

/* The same rules as contrib/rules/tools.rules (see there for the why). */
static const char builtin_rules[] =
	"interpreter python python2* python3* pypy*\n"
	"interpreter Rscript R\n"
	"interpreter perl perl5*\n"
	"interpreter ruby ruby[0-9]*\n"
	"interpreter node nodejs\n"
	"interpreter sh bash dash zsh zsh-* ksh ksh93 mksh ash\n"
	"java java\n"
	"subcommand samtools\n"
	"subcommand bcftools\n"
	"subcommand bwa\n"
	"subcommand bwa-mem2*\n"
	"subcommand bedtools\n"
	"subcommand sambamba\n"
	"subcommand seqkit\n"
	"subcommand salmon\n"
	"subcommand kallisto\n"
	"subcommand umi_tools\n"
	"subcommand cellranger\n"
	"subcommand gatk 1 --java-options --spark-runner --spark-master\n"
	"subcommand gatk-package-*\n"
	"subcommand picard\n"
	"subcommand picard-*\n"
	"subcommand picard.cmdline.PicardCommandLine\n"
	"subcommand git 1 -C -c --git-dir --work-tree --namespace\n"
	"subcommand conda\n"
	"subcommand mamba\n"
	"subcommand micromamba 1 -r --root-prefix\n"
	"subcommand pip\n"
	"subcommand pip3*\n"
	"subcommand nextflow 1 -c -C -config -log -syslog\n"
	"subcommand docker 1 -H --host --config -c --context -l --log-level\n"
	"subcommand podman\n"
	"subcommand singularity\n"
	"subcommand apptainer\n"
	"subcommand aws 2 --profile --region --output --endpoint-url\n"
	"multicall busybox busybox.* toybox coreutils xtables-nft-multi xtables-legacy-multi\n";

void rules_free(struct rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ninterp; i++)
		free(r->interp[i]);
	for (size_t i = 0; i < r->njava; i++)
		free(r->java[i]);
	for (size_t i = 0; i < r->nmulti; i++)
		free(r->multi[i]);
	for (size_t i = 0; i < r->nsubs; i++) {
		free(r->subs[i].glob);
		for (int k = 0; k < r->subs[i].nval; k++)
			free(r->subs[i].valopts[k]);
	}
	free(r->interp);
	free(r->java);
	free(r->multi);
	free(r->subs);
	free(r);
}

static int add_glob(char ***list, size_t *n, const char *glob)
{
	char **nl = realloc(*list, (*n + 1) * sizeof(**list));

	if (!nl)
		return -1;
	*list = nl;
	nl[*n] = strdup(glob);
	if (!nl[*n])
		return -1;
	(*n)++;
	return 0;
}

/* "subcommand <glob> [depth] [-opt-with-value...]" (tokens after the keyword). */
static int add_sub(struct rules *r, char **tok, int ntok, const char *where,
		   rules_warn_fn warn)
{
	struct sub_rule s = {.depth = 1}, *ns;
	int t = 1;

	if (ntok > 1 && isdigit((unsigned char)tok[1][0])) {
		char *end;
		long d = strtol(tok[1], &end, 10);

		if (*end || d < 1 || d > RULE_MAX_DEPTH) {
			errmsg_warn(warn, "%s: depth \"%s\" must be 1..%d, rule skipped",
			      where, tok[1], RULE_MAX_DEPTH);
			return 0;
		}
		s.depth = (int)d;
		t = 2;
	}
	for (; t < ntok; t++) {
		if (tok[t][0] != '-' || s.nval == RULE_MAX_VALOPTS) {
			errmsg_warn(warn, "%s: \"%s\" is not an option (or more than %d), rule skipped",
			      where, tok[t], RULE_MAX_VALOPTS);
			goto skip;
		}
		s.valopts[s.nval] = strdup(tok[t]);
		if (!s.valopts[s.nval])
			goto oom;
		s.nval++;
	}
	s.glob = strdup(tok[0]);
	ns = s.glob ? realloc(r->subs, (r->nsubs + 1) * sizeof(*ns)) : NULL;
	if (!ns)
		goto oom;
	r->subs = ns;
	r->subs[r->nsubs++] = s;
	return 0;
oom:
	free(s.glob);
	for (int k = 0; k < s.nval; k++)
		free(s.valopts[k]);
	return -1;
skip:
	for (int k = 0; k < s.nval; k++)
		free(s.valopts[k]);
	return 0;
}

/* One rule line.  Returns -1 only when out of memory. */
static int parse_line(struct rules *r, char *line, const char *where,
		      rules_warn_fn warn)
{
	char *tok[2 + RULE_MAX_VALOPTS + 1], *save = NULL, *p;
	int ntok = 0;

	p = strchr(line, '#');
	if (p)
		*p = '\0';
	for (p = strtok_r(line, " \t\r\n", &save); p;
	     p = strtok_r(NULL, " \t\r\n", &save)) {
		if (ntok == (int)(sizeof(tok) / sizeof(tok[0]))) {
			errmsg_warn(warn, "%s: too many words, rule skipped", where);
			return 0;
		}
		if (strlen(p) > RULE_GLOB_MAX) {
			errmsg_warn(warn, "%s: word longer than %d bytes, rule skipped",
			      where, RULE_GLOB_MAX);
			return 0;
		}
		tok[ntok++] = p;
	}
	if (ntok == 0)
		return 0;
	if (ntok == 1) {
		errmsg_warn(warn, "%s: \"%s\" needs at least one name, rule skipped",
		      where, tok[0]);
		return 0;
	}
	if (strcmp(tok[0], "interpreter") == 0 || strcmp(tok[0], "java") == 0) {
		bool java = tok[0][0] == 'j';

		for (int i = 1; i < ntok; i++)
			if (add_glob(java ? &r->java : &r->interp,
				     java ? &r->njava : &r->ninterp, tok[i]) < 0)
				return -1;
		return 0;
	}
	if (strcmp(tok[0], "multicall") == 0) {
		for (int i = 1; i < ntok; i++)
			if (add_glob(&r->multi, &r->nmulti, tok[i]) < 0)
				return -1;
		return 0;
	}
	if (strcmp(tok[0], "subcommand") == 0)
		return add_sub(r, tok + 1, ntok - 1, where, warn);
	errmsg_warn(warn, "%s: unknown rule \"%.40s\" (interpreter, java, subcommand, multicall), skipped",
	      where, tok[0]);
	return 0;
}

static int parse_text(struct rules *r, const char *text, const char *name,
		      rules_warn_fn warn)
{
	char line[RULE_LINE_MAX + 1], where[600];
	int lineno = 0;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		lineno++;
		snprintf(where, sizeof(where), "%s:%d", name, lineno);
		if (n > RULE_LINE_MAX) {
			errmsg_warn(warn, "%s: line longer than %d bytes, skipped", where,
			      RULE_LINE_MAX);
		} else {
			memcpy(line, p, n);
			line[n] = '\0';
			if (parse_line(r, line, where, warn) < 0)
				return -1;
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	return 0;
}

struct rules *rules_default(void)
{
	struct rules *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (parse_text(r, builtin_rules, "built-in", NULL) < 0) {
		rules_free(r);
		return NULL;
	}
	return r;
}

/* The whole file as a string (rules files are small: at most 1 MiB). */
static char *read_text(const char *path, rules_warn_fn warn)
{
	size_t cap = 1 << 20, len;
	char *buf = NULL;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		errmsg_warn(warn, "cannot open rules %s: %s; using the built-in rules",
		      path, strerror(errno));
		return NULL;
	}
	buf = malloc(cap + 1);
	if (!buf)
		goto out;
	len = fread(buf, 1, cap, f);
	if (ferror(f)) {
		errmsg_warn(warn, "reading rules %s: %s; using the built-in rules",
		      path, strerror(errno));
		free(buf);
		buf = NULL;
		goto out;
	}
	if (len == cap && fgetc(f) != EOF)
		errmsg_warn(warn, "rules %s: larger than %zu bytes, the rest ignored",
		      path, cap);
	buf[len] = '\0';
	if (strlen(buf) != len)
		errmsg_warn(warn, "rules %s: NUL byte, the rest ignored", path);
out:
	fclose(f);
	return buf;
}

struct rules *rules_load(const char *path, rules_warn_fn warn)
{
	struct rules *r = rules_default();
	char *text;

	if (!r || !path)
		return r;
	text = read_text(path, warn);
	if (text && parse_text(r, text, path, warn) < 0) {
		errmsg_warn(warn, "rules %s: out of memory", path);
		rules_free(r);
		r = NULL;
	}
	free(text);
	return r;
}

static bool match_any(char *const *globs, size_t n, const char *name)
{
	if (!name || !*name)
		return false;
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return true;
	return false;
}

/* The last subcommand rule for name (or name without ".jar"). */
static const struct sub_rule *find_sub(const struct rules *r, const char *name)
{
	char stem[RULE_LINE_MAX];
	size_t n = strlen(name);

	stem[0] = '\0';
	if (n > 4 && n < sizeof(stem) && strcmp(name + n - 4, ".jar") == 0) {
		memcpy(stem, name, n - 4);
		stem[n - 4] = '\0';
	}
	for (size_t i = r->nsubs; i-- > 0;)
		if (fnmatch(r->subs[i].glob, name, 0) == 0 ||
		    (stem[0] && fnmatch(r->subs[i].glob, stem, 0) == 0))
			return &r->subs[i];
	return NULL;
}

/* A subcommand must look like a word: "sort", "HaplotypeCaller", "mem2". */
static bool is_word(const char *s)
{
	size_t n = 0;

	if (!isalnum((unsigned char)s[0]) && s[0] != '_')
		return false;
	for (; s[n]; n++)
		if (!isalnum((unsigned char)s[n]) && s[n] != '-' &&
		    s[n] != '_' && s[n] != '.')
			return false;
	return n <= SUBCMD_MAX;
}

static bool takes_value(const struct sub_rule *s, const char *opt)
{
	for (int i = 0; i < s->nval; i++)
		if (strcmp(s->valopts[i], opt) == 0)
			return true;
	return false;
}

/* Append " sub [sub2...]" to tool when a rule applies to base. */
static void add_subcommand(const struct rules *r, const char *base,
			   const struct rules_args *a, int from, char *tool,
			   size_t cap)
{
	const struct sub_rule *s = find_sub(r, base);
	int i = from, taken = 0;

	if (!s)
		return;
	for (; i < a->n; i++) {
		const char *v = a->v[i];

		if (strcmp(v, "--") == 0)
			return;
		if (v[0] != '-' || v[1] == '\0')
			break;
		if (takes_value(s, v))
			i++;
	}
	for (; i < a->n && taken < s->depth && is_word(a->v[i]); i++, taken++) {
		size_t len = strlen(tool);

		if (len + 1 + strlen(a->v[i]) >= cap)
			return;
		tool[len] = ' ';
		memcpy(tool + len + 1, a->v[i], strlen(a->v[i]) + 1);
	}
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void set_str(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

/* Split the first SCAN_BYTES of argv into buf/a. */
static void split_args(const char *argv, size_t len, char *buf,
		       struct rules_args *a)
{
	size_t n = len;

	a->n = 0;
	if (!argv || len == 0)
		return;
	if (n > SCAN_BYTES)
		n = SCAN_BYTES;
	memcpy(buf, argv, n);
	buf[n] = '\0'; /* argv without a final NUL still ends here */
	for (size_t i = 0; i < n && a->n < RULES_MAX_ARGS;) {
		a->v[a->n++] = buf + i;
		i += strlen(buf + i) + 1;
	}
}

/* The executable's name for display: basename without " (deleted)". */
static void exe_name(const char *path, char *out, size_t cap)
{
	const char *b = base_name(path);
	size_t n = strlen(b);

	if (n > 10 && strcmp(b + n - 10, " (deleted)") == 0)
		n -= 10;
	if (n >= cap)
		n = cap - 1;
	memcpy(out, b, n);
	out[n] = '\0';
}

/*
 * The tool of an interpreter run (a->v[0] is the interpreter, iname its
 * matched name, ipath its path).  A script that is itself an interpreter
 * wrapper (R's start-up shell script, a conda python wrapper) is followed
 * once more.
 */
static void resolve_interp(const struct rules *r, const char *iname,
			   const char *ipath, const struct rules_args *a,
			   bool java, int level, struct tool_id *out)
{
	struct rules_target t;
	char sname[256];

	t = java ? rules_parse_java(a, 1)
		 : rules_parse_interp(rules_family_of(iname), a, 1);
	if (t.kind == RK_NONE || t.kind == RK_COMMAND) {
		set_str(out->tool, sizeof(out->tool), iname);
		set_str(out->path, sizeof(out->path), ipath);
		out->interpreter[0] = '\0';
		return;
	}
	exe_name(t.name, sname, sizeof(sname));
	if (t.kind == RK_SCRIPT && !java && level == 0 && t.next >= 1 &&
	    t.next <= a->n && a->v[t.next - 1] == t.name &&
	    match_any(r->interp, r->ninterp, sname)) {
		struct rules_args inner;

		inner.n = a->n - (t.next - 1);
		memcpy(inner.v, a->v + t.next - 1, sizeof(inner.v[0]) * inner.n);
		resolve_interp(r, sname, t.name, &inner, false, 1, out);
		if (out->interpreter[0])
			return;
		/* the wrapper ran nothing: it is the script */
	}
	set_str(out->tool, sizeof(out->tool), sname[0] ? sname : t.name);
	set_str(out->path, sizeof(out->path),
		t.kind == RK_SCRIPT ? t.name : ipath);
	set_str(out->interpreter, sizeof(out->interpreter), ipath);
	add_subcommand(r, out->tool, a, t.next, out->tool, sizeof(out->tool));
}

/*
 * A multi-call binary (busybox, toybox, coreutils) is the applet it runs:
 * argv[0]'s basename ("gzip" through a symlink), or the first argument
 * when argv[0] names the binary itself ("busybox gzip -9",
 * "coreutils --coreutils-prog=ls").  The applet becomes argv[0] (a->v
 * shifted when it came from an argument) and its name is written to
 * name; false when exe is not a multi-call binary or names no applet.
 */
static bool multicall_applet(const struct rules *r, const char *ename,
			     const char *aname, struct rules_args *a,
			     char *name, size_t cap)
{
	static const char prog_opt[] = "--coreutils-prog=";
	const char *v;

	if (!match_any(r->multi, r->nmulti, ename))
		return false;
	if (aname[0] && !match_any(r->multi, r->nmulti, aname)) {
		set_str(name, cap, aname);
		return true;
	}
	if (a->n < 2)
		return false;
	v = a->v[1];
	if (strncmp(v, prog_opt, sizeof(prog_opt) - 1) == 0)
		v += sizeof(prog_opt) - 1;
	else if (v[0] == '-')
		return false; /* "busybox --list": the binary itself */
	exe_name(v, name, cap);
	if (!is_word(name))
		return false;
	a->n--;
	memmove(a->v, a->v + 1, sizeof(a->v[0]) * a->n);
	return true;
}

/*
 * An image exec'd through a file descriptor (fexecve, execveat; runc
 * runs its own copy from a memfd as /proc/self/fd/N): the path names a
 * descriptor, not a program, so argv[0] names the tool.
 */
static bool is_fd_path(const char *p)
{
	const char *d;

	if (strncmp(p, "/dev/fd/", 8) == 0)
		d = p + 8;
	else if (strncmp(p, "/proc/self/fd/", 14) == 0)
		d = p + 14;
	else if (strncmp(p, "/proc/", 6) == 0 && (d = strstr(p + 6, "/fd/")) != NULL &&
		 d > p + 6 && strspn(p + 6, "0123456789") == (size_t)(d - p - 6))
		d += 4;
	else
		return false;
	return *d && strspn(d, "0123456789") == strlen(d);
}

void rules_resolve(const struct rules *r, const char *exe, const char *argv,
		   size_t argv_len, struct tool_id *out)
{
	char buf[SCAN_BYTES + 1], ename[256], aname[256], applet[256];
	struct rules_args a;
	const char *path;

	memset(out, 0, sizeof(*out));
	split_args(argv, argv_len, buf, &a);
	path = exe && *exe && !(is_fd_path(exe) && a.n && a.v[0][0]) ? exe : (a.n ? a.v[0] : "");
	exe_name(path, ename, sizeof(ename));
	exe_name(a.n ? a.v[0] : "", aname, sizeof(aname));
	if (!ename[0])
		set_str(ename, sizeof(ename), aname[0] ? aname : "(unknown)");
	set_str(out->tool, sizeof(out->tool), ename);
	set_str(out->path, sizeof(out->path), path);
	if (!r)
		return;
	if (a.n == 0) {
		/* no arguments at all: the executable is the tool */
		a.n = 1;
		a.v[0] = "";
	}
	if (multicall_applet(r, ename, aname, &a, applet, sizeof(applet))) {
		/* the applet is the program: rules apply to its name */
		memcpy(ename, applet, sizeof(ename));
		memcpy(aname, applet, sizeof(aname));
		set_str(out->tool, sizeof(out->tool), ename);
	}
	/* the executable's own name first, then argv[0] (busybox, wrappers) */
	if (match_any(r->java, r->njava, ename))
		resolve_interp(r, ename, path, &a, true, 0, out);
	else if (match_any(r->interp, r->ninterp, ename))
		resolve_interp(r, ename, path, &a, false, 0, out);
	else if (match_any(r->java, r->njava, aname))
		resolve_interp(r, aname, path, &a, true, 0, out);
	else if (match_any(r->interp, r->ninterp, aname))
		resolve_interp(r, aname, path, &a, false, 0, out);
	else
		add_subcommand(r, ename, &a, 1, out->tool, sizeof(out->tool));
}
