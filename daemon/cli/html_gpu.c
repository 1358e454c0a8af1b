/*
 * html_gpu.c - the GPU lane of a job's page: the utilisation and memory
 * of its GPU processes over time against what it was allocated, and its
 * GPUs, each allocated or not, used or idle (docs/gpu.md).  Nothing for
 * a job without a "gpu" part.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html.h"

#define POINTS 720 /* the summary's most (lib/gpu.h) */

static void gpu_charts(FILE *f, const cJSON *g, double wall, double alloc_n, double alloc_mem)
{
	const cJSON *ts = cJSON_GetObjectItem(g, "timeseries");
	const cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItem(ts, "t_s"), 0);
	const cJSON *u = cJSON_GetArrayItem(cJSON_GetObjectItem(ts, "utilization_pct"), 0);
	const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(ts, "memory_bytes"), 0);
	static double t[POINTS], util[POINTS], mem[POINTS];
	char label[64], b[32];
	int n = 0;

	for (; x && n < POINTS; x = x->next, n++) {
		t[n] = cJSON_IsNumber(x) ? x->valuedouble : NAN;
		util[n] = cJSON_IsNumber(u) ? u->valuedouble : NAN;
		mem[n] = cJSON_IsNumber(m) ? m->valuedouble : NAN;
		u = u ? u->next : NULL;
		m = m ? m->next : NULL;
	}
	if (!n) {
		fputs("<p class=\"muted\">No GPU samples over time in this summary.</p>\n", f);
		return;
	}
	snprintf(label, sizeof(label), "allocation %.0f GPUs (%.0f%%)", alloc_n, 100 * alloc_n);
	svg_chart(f, &(struct chart){.id = "chart-gpu-util", .title = "GPU utilisation (%, summed)",
		      .limit_label = label, .t = t, .v = util, .n = n, .t_end = wall,
		      .limit = alloc_n > 0 ? 100 * alloc_n : NAN, .colour = "#b07aa1"});
	snprintf(label, sizeof(label), "allocated GPUs' memory %s",
		 svg_value(alloc_mem, true, b, sizeof(b)));
	svg_chart(f, &(struct chart){.id = "chart-gpu-mem", .title = "GPU memory in use",
		      .limit_label = label, .t = t, .v = mem, .n = n, .t_end = wall,
		      .limit = alloc_mem > 0 ? alloc_mem : NAN, .bytes = true, .colour = "#ff9da7"});
}

static void gpu_table(FILE *f, const cJSON *g)
{
	const cJSON *d;
	char a[32], c[32], b[32];

	fputs("<table class=\"data\" id=\"gpus\"><thead><tr><th>GPU</th><th>Model</th><th>UUID</th>"
	      "<th>Allocated</th><th>Used</th><th>Processes</th><th>Memory peak</th>"
	      "<th>Busy</th><th>Utilisation</th><th>Energy</th></tr></thead><tbody>\n", f);
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(g, "devices")) {
		bool alloc = cJSON_IsTrue(cJSON_GetObjectItem(d, "allocated"));
		bool used = cJSON_IsTrue(cJSON_GetObjectItem(d, "used"));
		const cJSON *e = cJSON_GetObjectItem(d, "energy_j");

		fprintf(f, "<tr class=\"%s\"><td>%.0f</td><td>", alloc && !used ? "idle" : "",
			cli_jnum(d, "index"));
		h_cut(f, cli_jstr(d, "name") ? cli_jstr(d, "name") : "-", 96);
		fputs("</td><td>", f);
		h_cut(f, cli_jstr(d, "uuid") ? cli_jstr(d, "uuid") : "-", 96);
		fprintf(f, "</td><td>%s</td><td>%s</td><td>%.0f</td><td>%s of %s</td><td>%s</td>"
			"<td>%.1f%%</td>", alloc ? "yes" : "no", used ? "yes" : "idle",
			cli_jnum(d, "processes"), fmt_bytes((uint64_t)fmax(cli_jnum(d, "memory_peak_bytes"), 0), a, sizeof(a)),
			fmt_bytes((uint64_t)fmax(cli_jnum(d, "memory_bytes"), 0), c, sizeof(c)),
			fmt_secs(fmax(cli_jnum(d, "busy_s"), 0), b, sizeof(b)), fmax(cli_jnum(d, "utilization_pct"), 0));
		if (cJSON_IsNumber(e))
			fprintf(f, "<td>%.1f kJ</td></tr>\n", e->valuedouble / 1000);
		else
			fputs("<td>-</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

void html_gpu_section(FILE *f, const cJSON *s)
{
	const cJSON *g = cJSON_GetObjectItem(s, "gpu"), *d;
	double alloc_n = 0, alloc_mem = 0;

	if (!cJSON_IsObject(g))
		return;
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(g, "devices"))
		if (cJSON_IsTrue(cJSON_GetObjectItem(d, "allocated"))) {
			alloc_n++;
			alloc_mem += fmax(cli_jnum(d, "memory_bytes"), 0);
		}
	fputs("<section id=\"gpu-section\"><h2>GPUs</h2>\n<p>Counting: ", f);
	h_cut(f, cli_jstr(g, "counting") ? cli_jstr(g, "counting") : "-", 20);
	fputs(" (accounting: exact, from the driver at each exit; sampled: at each sample)</p>\n", f);
	gpu_charts(f, g, cli_jnum(s, "wall_s"), alloc_n, alloc_mem);
	gpu_table(f, g);
	fputs("</section>\n", f);
}
