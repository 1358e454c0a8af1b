/*
 * rules.h - tool attribution: which executable, script or subcommand a
 * process is.  The rules file (contrib/rules/tools.rules, installed as
 * /etc/tracer/tools.rules) lets users add interpreters and multi-command
 * tools without recompiling; built-in defaults apply when it is missing.
 *
 * File format (one rule per line, '#' comments, fields split by spaces):
 *   interpreter <name-glob>...       e.g. "interpreter python python3* Rscript perl bash sh"
 *   java <name-glob>...              java-style: tool is "-jar X.jar" or the main class
 *   subcommand <tool-name> [depth] [option...]
 *                                    e.g. "subcommand samtools", "subcommand gatk"
 *       depth: how many words make the subcommand (default 1);
 *       options: the tool's options that take the next argument as their
 *       value, skipped when looking for the subcommand
 *       ("subcommand git 1 -C -c" makes "git -C dir log" "git log").
 *   multicall <name-glob>...         e.g. "multicall busybox toybox coreutils":
 *       the tool is the applet (argv[0]'s basename, or the first argument
 *       for "busybox gzip ..."), then the other rules apply to its name.
 * Tool names are the basename of the executable, script or jar, plus
 * " <subcommand>" when a subcommand rule matches that name (or the jar's
 * name without ".jar").
 */
#ifndef TRACER_RULES_H
#define TRACER_RULES_H

#include <stddef.h>

#include "defaults.h"

struct rules;

typedef void (*rules_warn_fn)(const char *msg);

/* Built-in rules only. */
struct rules *rules_default(void);
/* Built-in rules plus the file's (missing file: just the built-ins, reported via warn). */
struct rules *rules_load(const char *path, rules_warn_fn warn);
void rules_free(struct rules *r);

struct tool_id {
	char tool[512];        /* display and aggregation name: "samtools sort", "align.py" */
	char path[TRACER_PATH_MAX]; /* the tool's file: executable, script or jar */
	char interpreter[TRACER_PATH_MAX]; /* interpreter executable when a script; "" otherwise */
};

/*
 * Resolve the tool of an exec.  exe is the executable path, argv the
 * NUL-separated argument bytes (argv_len bytes).  Never fails: an unknown
 * executable is its own tool (basename of exe).
 */
void rules_resolve(const struct rules *r, const char *exe, const char *argv,
		   size_t argv_len, struct tool_id *out);

#endif
