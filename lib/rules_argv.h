/*
 * rules_argv.h - internal to rules.c: reading interpreter command lines
 * (which argument is the script, module, jar or main class).
 */
#ifndef TRACER_RULES_ARGV_H
#define TRACER_RULES_ARGV_H

#define RULES_MAX_ARGS 256

/* Option syntax families: how an interpreter's own options look. */
enum rules_family {
	FAM_GENERIC = 0, /* options are flags; first other argument is the script */
	FAM_PYTHON,
	FAM_SHELL,
	FAM_PERL,
	FAM_RUBY,
	FAM_NODE,
	FAM_RSCRIPT,
	FAM_R,           /* R itself: the script only comes with -f / --file */
};

struct rules_args {
	int n;
	const char *v[RULES_MAX_ARGS];
};

enum rules_kind {
	RK_NONE = 0, /* no program named: interactive, stdin, --version */
	RK_SCRIPT,   /* name is a file: script, jar, .java source */
	RK_MODULE,   /* name is a module or main class, not a file */
	RK_COMMAND,  /* program text on the command line (-c, -e) */
};

struct rules_target {
	enum rules_kind kind;
	const char *name; /* script path, module or class (points into the args) */
	int next;         /* index of the first argument after it */
};

enum rules_family rules_family_of(const char *name);
struct rules_target rules_parse_interp(enum rules_family f,
				       const struct rules_args *a, int start);
struct rules_target rules_parse_java(const struct rules_args *a, int start);

#endif
