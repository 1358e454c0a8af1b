/*
 * advice.c - the analysis part of `tracer show`: the job's state word,
 * its OOM kill, its flags with their evidence, the recommended request
 * in each syntax, and the cost (fields of docs/schema.md).  The flags
 * are notes wrapped to the terminal's width; the request snippets are
 * cut like every line (--wide shows them whole, ready to copy).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "term.h"

/* One evidence value in the unit its name says. */
static void evidence_text(const cJSON *e, char *buf, size_t len)
{
	const char *k = e->string;
	size_t n = strlen(k);

	if (!cJSON_IsNumber(e))
		snprintf(buf, len, "%s ?", k);
	else if (n > 6 && !strcmp(k + n - 6, "_bytes"))
		snprintf(buf, len, "%s %s", k, fmt_bytes((uint64_t)e->valuedouble, (char[32]){0}, 32));
	else if (n > 2 && !strcmp(k + n - 2, "_s"))
		snprintf(buf, len, "%s %s", k, fmt_secs(e->valuedouble, (char[32]){0}, 32));
	else if (strstr(k, "efficiency") || strstr(k, "share"))
		snprintf(buf, len, "%s %s", k, fmt_pct(e->valuedouble, (char[32]){0}, 32));
	else
		snprintf(buf, len, "%s %g", k, e->valuedouble);
}

/* One flag as a note, as jobstats writes it: the sentence with its
 * numbers, then the flag's id, severity and evidence; wrapped to width. */
static void print_note(const cJSON *f, int width)
{
	char note[2048], one[128];
	const char *msg = cli_jstr(f, "message");
	const cJSON *e;
	size_t off;
	int k = 0;

	off = (size_t)snprintf(note, sizeof(note), "%s", msg ? msg : "-");
	/* a sentence: capital first letter unless it starts with a tool's name */
	if (!cli_jstr(f, "tool") && note[0] >= 'a' && note[0] <= 'z')
		note[0] = (char)(note[0] - 'a' + 'A');
	off += (size_t)snprintf(note + off, off < sizeof(note) ? sizeof(note) - off : 0,
				". [%s %s", fmt_or_dash(cli_jstr(f, "severity")), fmt_or_dash(cli_jstr(f, "id")));
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(f, "evidence")) {
		evidence_text(e, one, sizeof(one));
		off += (size_t)snprintf(note + off, off < sizeof(note) ? sizeof(note) - off : 0,
					"%s%s", k++ ? ", " : ": ", one);
	}
	if (off < sizeof(note))
		snprintf(note + off, sizeof(note) - off, "]");
	term_wrap("  * ", "    ", note, width);
}

/*
 * The flags as notes: the job's own first, then the tools' (the analysis
 * lists those on waste first, sleeping_tool, then the rest by the tools'
 * CPU).  Without all, at most tool_notes of the
 * tools' notes, and a line saying how many more there are: a job of many
 * tools on a busy node flags most of them, and the report is one screen.
 */
static void print_notes(const cJSON *flags, int width, bool all, int tool_notes)
{
	const cJSON *f;
	int shown = 0, left = 0;

	if (cJSON_GetArraySize(flags) == 0)
		return;
	printf("\nNOTES\n");
	cJSON_ArrayForEach(f, flags)
		if (!cli_jstr(f, "tool"))
			print_note(f, width);
	cJSON_ArrayForEach(f, flags) {
		if (!cli_jstr(f, "tool"))
			continue;
		if (all || shown < tool_notes) {
			print_note(f, width);
			shown++;
		} else {
			left++;
		}
	}
	if (left)
		printf("  %d more notes on tools (--tools shows them)\n", left);
}

/* Print a multi-line text indented.  The summary was made safe for the
 * terminal (textsafe), so its line breaks arrive as "\x0a"; the syntax
 * snippets are tracer's own text, numbers only. */
static void print_block(const char *label, const char *text)
{
	const char *p = text;

	if (!text)
		return;
	printf("  %-10s ", label);
	for (; *p; p++) {
		bool nl = *p == '\n' || !strncmp(p, "\\x0a", 4);

		if (nl) {
			p += *p == '\n' ? 0 : 3;
			printf("\n  %-10s ", "");
		} else {
			putchar(*p);
		}
	}
	putchar('\n');
}

void advice_print(const cJSON *s, int width, bool all_notes, int tool_notes)
{
	const cJSON *oom = cJSON_GetObjectItem(s, "oom");
	const cJSON *rec = cJSON_GetObjectItem(s, "recommendation");
	const cJSON *cost = cJSON_GetObjectItem(s, "cost");
	const cJSON *use = cJSON_GetObjectItem(s, "allocation_use");

	if (cli_jstr(s, "state"))
		printf("State    %s\n", cli_jstr(s, "state"));
	if (oom) {
		const cJSON *v = cJSON_GetObjectItem(oom, "victim");
		const cJSON *l = cJSON_GetObjectItem(oom, "largest");
		printf("OOM      %s OOM: killed %s (pid %.0f); largest holder %s (pid %.0f)\n",
		       cli_jstr(oom, "kind") ? cli_jstr(oom, "kind") : "-",
		       cli_jstr(v, "tool") ? cli_jstr(v, "tool") : "-", cli_jnum(v, "pid"),
		       cli_jstr(l, "tool") ? cli_jstr(l, "tool") : "-", cli_jnum(l, "pid"));
	}
	if (use) {
		const cJSON *c = cJSON_GetObjectItem(use, "concurrency");
		printf("CPUs     allocated %s, idle %s (cores %s); concurrency p50 %.0f, p95 %.0f, max %.0f\n",
		       cli_jstr(use, "allocated_cpus") ? cli_jstr(use, "allocated_cpus") : "-",
		       cli_jstr(use, "idle_cpus") && *cli_jstr(use, "idle_cpus") ? cli_jstr(use, "idle_cpus") : "none",
		       cli_jstr(use, "idle_cores") && *cli_jstr(use, "idle_cores") ? cli_jstr(use, "idle_cores") : "none",
		       cli_jnum(c, "p50"), cli_jnum(c, "p95"), cli_jnum(c, "max"));
	}
	if (cost) {
		printf("Cost     %.4f", cli_jnum(cost, "total"));
		if (!isnan(cli_jnum(cost, "unused")))
			printf(" (unused part of the allocation %.4f)", cli_jnum(cost, "unused"));
		putchar('\n');
	}
	print_notes(cJSON_GetObjectItem(s, "flags"), width, all_notes, tool_notes);
	if (rec) {
		const cJSON *sx = cJSON_GetObjectItem(rec, "syntax");
		printf("\nREQUEST NEXT TIME (%s)\n", cli_jstr(rec, "basis") ? cli_jstr(rec, "basis") : "-");
		print_block("Slurm", cli_jstr(sx, "slurm"));
		print_block("Nextflow", cli_jstr(sx, "nextflow"));
		print_block("Snakemake", cli_jstr(sx, "snakemake"));
		print_block("AWS Batch", cli_jstr(sx, "aws_batch"));
	}
}
