/*
 * brief.c - the verdict on a finished job in a few lines (brief.h): what
 * a user reads in the end-of-job mail or under srun's output, so each
 * line says one thing and fits a terminal.  Reads only the summary's
 * fields (docs/schema.md), so a job view renders as a summary does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brief.h"

#define GiB 1073741824.0

/* where the lines go: never past len, always NUL-terminated */
struct brief_out {
	char *buf;
	size_t len, used;
	int lines, max;
	bool full;
};

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

/* A UTF-8 continuation byte (not a column of its own). */
static bool continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/*
 * One line into out: control characters (the summary's text is the
 * user's: names, messages) as '?', cut to BRIEF_LINE_MAX columns with
 * "..." at the end.  A line that does not fit whole is not written.
 */
/*
 * Bytes of the UTF-8 control at p that a mail or a terminal must not get
 * from a user's job name: C1 controls (U+0080-U+009F, CSI among them) and
 * the bidi overrides and isolates (U+202A-U+202E, U+2066-U+2069), which
 * reorder what a reader sees; 0 for anything else.
 */
static size_t hidden_control(const unsigned char *p)
{
	if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
		return 2;
	if (p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae)
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)
		return 3;
	return 0;
}

static void put_line(struct brief_out *o, const char *text)
{
	char line[4 * BRIEF_LINE_MAX + 8];
	size_t n = 0, cols = 0, total = 0;
	const unsigned char *p;

	if (o->full || o->lines >= o->max)
		return;
	for (p = (const unsigned char *)text; *p; p++)
		total += !continuation(*p);
	for (p = (const unsigned char *)text; *p && n < sizeof(line) - 8; p++) {
		if (!continuation(*p) && total > BRIEF_LINE_MAX && ++cols > BRIEF_LINE_MAX - 3) {
			memcpy(line + n, "...", 3);
			n += 3;
			break;
		}
		size_t hidden = hidden_control(p);

		if (hidden) { /* a C1 control or a bidi override: one '?' */
			line[n++] = '?';
			p += hidden - 1;
			continue;
		}
		line[n++] = *p < 0x20 || *p == 0x7f ? '?' : (char)*p;
	}
	line[n++] = '\n';
	if (o->used + n + 1 > o->len) {
		o->full = true;
		return;
	}
	memcpy(o->buf + o->used, line, n);
	o->used += n;
	o->buf[o->used] = '\0';
	o->lines++;
}

static void fmt_wall(double s, char *buf, size_t len)
{
	if (isnan(s) || s < 0)
		snprintf(buf, len, "?");
	else if (s < 60)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 3600)
		snprintf(buf, len, "%d min %d s", (int)(s / 60), (int)fmod(s, 60));
	else
		snprintf(buf, len, "%d h %d min", (int)(s / 3600), (int)fmod(s / 60, 60));
}

static void fmt_gib(double bytes, char *buf, size_t len)
{
	if (bytes >= GiB / 10)
		snprintf(buf, len, "%.1f GiB", bytes / GiB);
	else
		snprintf(buf, len, "%.0f MiB", ceil(bytes / 1048576.0));
}

/* " (exit 3)", " (signal 9)" for a job that did not complete, else "". */
static void fmt_exit(const cJSON *s, const char *state, char *buf, size_t len)
{
	const cJSON *e = cJSON_GetObjectItem(s, "exit");
	double code = num(e, "code"), sig = num(e, "signal");

	buf[0] = '\0';
	if (!strcmp(state, "COMPLETED"))
		return;
	if (!isnan(sig))
		snprintf(buf, len, " (signal %.0f)", sig);
	else if (!isnan(code) && code != 0)
		snprintf(buf, len, " (exit %.0f)", code);
}

/* "CPU 23% of 8 CPUs" against the allocation (or the host's CPUs). */
static void fmt_cpu(const cJSON *s, char *buf, size_t len)
{
	double eff = num(s, "cpu_efficiency");
	const char *basis = str(s, "cpu_efficiency_basis");
	bool host = basis && !strcmp(basis, "host");
	double cpus = host ? num(cJSON_GetObjectItem(s, "host"), "cpus")
			   : num(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "identity"), "allocation"),
				 "cpus");

	if (isnan(eff))
		snprintf(buf, len, "CPU use unknown");
	else if (isnan(cpus))
		snprintf(buf, len, "CPU %.0f%%", 100 * eff);
	else
		snprintf(buf, len, "CPU %.0f%% of %s%.0f CPU%s", 100 * eff, host ? "the host's " : "",
			 cpus, cpus == 1 ? "" : "s");
}

/* "memory 1.2 GiB of 16.0 GiB", or the peak alone without a request. */
static void fmt_mem(const cJSON *s, char *buf, size_t len)
{
	const cJSON *m = cJSON_GetObjectItem(s, "memory");
	double peak = num(m, "peak_bytes"), alloc = num(m, "allocated_bytes");
	char a[32], b[32];

	if (isnan(peak)) {
		snprintf(buf, len, "memory unknown");
		return;
	}
	fmt_gib(peak, a, sizeof(a));
	if (isnan(alloc) || alloc <= 0) {
		snprintf(buf, len, "memory peak %s", a);
		return;
	}
	fmt_gib(alloc, b, sizeof(b));
	snprintf(buf, len, "memory %s of %s", a, b);
}

static void first_line(struct brief_out *o, const cJSON *s)
{
	const char *state = str(s, "state") ? str(s, "state") : "ENDED";
	char wall[32], ex[32], cpu[64], mem[64], line[256];

	fmt_wall(num(s, "wall_s"), wall, sizeof(wall));
	fmt_exit(s, state, ex, sizeof(ex));
	fmt_cpu(s, cpu, sizeof(cpu));
	fmt_mem(s, mem, sizeof(mem));
	snprintf(line, sizeof(line), "%s%s after %s: %s, %s", state, ex, wall, cpu, mem);
	put_line(o, line);
}

static int severity_rank(const cJSON *f)
{
	const char *sev = str(f, "severity");

	if (sev && !strcmp(sev, "error"))
		return 0;
	if (sev && !strcmp(sev, "warning"))
		return 1;
	return 2;
}

/* The job's own flags before the tools', then by severity. */
static int flag_rank(const cJSON *f)
{
	return (str(f, "tool") ? 3 : 0) + severity_rank(f);
}

/* One flag as a sentence: capital first letter unless it starts with a
 * tool's name, and a full stop. */
static void flag_line(struct brief_out *o, const cJSON *f)
{
	const char *msg = str(f, "message");
	char line[4 * BRIEF_LINE_MAX];

	if (!msg)
		return;
	snprintf(line, sizeof(line), "%s.", msg);
	if (!str(f, "tool") && line[0] >= 'a' && line[0] <= 'z')
		line[0] = (char)(line[0] - 'a' + 'A');
	put_line(o, line);
}

/* The flags, most telling first, into the lines left (keep: lines kept
 * for what comes after). */
static void flag_lines(struct brief_out *o, const cJSON *flags, int keep)
{
	int left = o->max - o->lines - keep;

	for (int rank = 0; rank < 6 && left > 0; rank++) {
		const cJSON *f;

		cJSON_ArrayForEach(f, flags) {
			if (!cJSON_IsObject(f) || flag_rank(f) != rank || !str(f, "message"))
				continue;
			flag_line(o, f);
			if (--left <= 0)
				break;
		}
	}
}

bool brief_has_advice(const cJSON *s)
{
	return cJSON_IsObject(cJSON_GetObjectItem(s, "recommendation"));
}

size_t brief_lines(const cJSON *s, int max_lines, char *out, size_t outlen)
{
	struct brief_out o = {.buf = out, .len = outlen, .max = max_lines};
	const char *slurm = str(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "recommendation"), "syntax"),
				"slurm");
	char next[4 * BRIEF_LINE_MAX];

	if (!out || !outlen)
		return 0;
	out[0] = '\0';
	if (!cJSON_IsObject(s) || max_lines < 1)
		return 0;
	first_line(&o, s);
	flag_lines(&o, cJSON_GetObjectItem(s, "flags"), slurm ? 1 : 0);
	if (slurm) {
		snprintf(next, sizeof(next), "Next time: #SBATCH %s", slurm);
		put_line(&o, next);
	}
	return o.used;
}
