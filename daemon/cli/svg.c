/*
 * svg.c - the report's drawings as inline SVG: a chart of a quantity
 * over time against a limit (cores against the allocation, memory
 * against the request), and the small bars of table cells.  Only
 * numbers and fixed words are written here; labels from a summary are
 * escaped by the caller.
 */
#include <math.h>
#include <stdio.h>

#include "html.h"

#define CW 1000 /* chart width and height, in SVG units */
#define CH 220
#define ML 72   /* margins: left (y labels), right, top, bottom (x labels) */
#define MR 16
#define MT 14
#define MB 26
#define STEP_MAX 500 /* up to this many points: steps; beyond: a line */

const char *svg_value(double v, bool bytes, char *buf, size_t len)
{
	if (bytes)
		return fmt_bytes(v > 0 ? (uint64_t)v : 0, buf, len);
	snprintf(buf, len, "%.3g", v);
	return buf;
}

/* 1, 2 or 5 times a power of ten (of 1024 for bytes), about max/4 */
static double nice_step(double max, bool bytes)
{
	double raw = max / 4, base = 1;

	if (!(raw > 0))
		return 1;
	if (bytes && raw >= 1024) {
		while (base * 1024 <= raw)
			base *= 1024;
		raw /= base;
		for (double s = 1; s <= 1024; s *= 2)
			if (s >= raw)
				return s * base;
		return 1024 * base;
	}
	base = pow(10, floor(log10(raw)));
	raw /= base;
	return (raw <= 1 ? 1 : raw <= 2 ? 2 : raw <= 5 ? 5 : 10) * base;
}

static const char *time_label(double s, char *buf, size_t len)
{
	if (s < 120)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.0f min", s / 60);
	else
		snprintf(buf, len, "%.1f h", s / 3600);
	return buf;
}

static double time_step(double end)
{
	static const double steps[] = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
				       3600, 7200, 10800, 21600, 43200, 86400, 172800};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (end / steps[i] <= 8)
			return steps[i];
	return ceil(end / 8 / 86400) * 86400;
}

static void axes(FILE *f, double ymax, double ystep, double t_end, bool bytes)
{
	char b[32];
	double tstep = time_step(t_end);

	for (double y = 0; y <= ymax * 1.0001 && ystep > 0; y += ystep) {
		double py = CH - MB - y / ymax * (CH - MT - MB);
		fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			ML, CW - MR, py, py, ML - 6, py + 4, svg_value(y, bytes, b, sizeof(b)));
	}
	for (double t = 0; t <= t_end * 1.0001; t += tstep) {
		double px = ML + t / t_end * (CW - ML - MR);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>\n", px,
			CH - 8, px > CW - MR - 30 ? "end" : "middle", time_label(t, b, sizeof(b)));
	}
}

void svg_chart(FILE *f, const struct chart *c)
{
	double vmax = 0, ymax, ystep, sum = 0, peak_t = 0, t_end = c->t_end;
	char a[32], b[32];
	int n = c->n;

	for (int i = 0; i < n; i++) {
		if (isfinite(c->v[i]) && c->v[i] > vmax) {
			vmax = c->v[i];
			peak_t = c->t[i];
		}
		if (isfinite(c->t[i]) && c->t[i] > t_end)
			t_end = c->t[i];
	}
	if (!(t_end > 0))
		t_end = 1;
	ymax = vmax;
	for (int i = 0; c->limit_v && i < n; i++)
		if (isfinite(c->limit_v[i]) && c->limit_v[i] > ymax)
			ymax = c->limit_v[i];
	if (isfinite(c->limit) && c->limit > ymax)
		ymax = c->limit;
	ystep = nice_step(ymax > 0 ? ymax * 1.05 : 1, c->bytes);
	ymax = ceil((ymax > 0 ? ymax * 1.05 : 1) / ystep) * ystep;

	fprintf(f, "<figure id=\"%s\"><svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		   "role=\"img\" xmlns=\"http://www.w3.org/2000/svg\"><title>", c->id, CW, CH, CW, CH);
	h_text(f, c->title);
	fputs("</title>\n", f);
	axes(f, ymax, ystep, t_end, c->bytes);
#define PX(t) (ML + (t) / t_end * (CW - ML - MR))
#define PY(v) (CH - MB - (isfinite(v) && (v) > 0 ? (v) : 0) / ymax * (CH - MT - MB))
	if (n > 0) {
		double prev_t = 0;
		fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.25\" stroke=\"%s\" stroke-width=\"1.5\" d=\"M%.1f %.1f",
			c->colour, c->colour, PX(0.0), PY(0.0));
		for (int i = 0; i < n; i++) {
			double t = isfinite(c->t[i]) ? c->t[i] : prev_t;
			if (n <= STEP_MAX)
				fprintf(f, "L%.1f %.1f", PX(prev_t), PY(c->v[i]));
			fprintf(f, "L%.1f %.1f", PX(t), PY(c->v[i]));
			sum += (isfinite(c->v[i]) ? c->v[i] : 0) * (t - prev_t);
			prev_t = t;
		}
		fprintf(f, "L%.1f %.1fZ\"/>\n", PX(prev_t), PY(0.0));
	}
	if (c->limit_v && n > 0) {
		double prev_t = 0;
		fprintf(f, "<path class=\"lim\" fill=\"none\" d=\"M%.1f %.1f", PX(0.0), PY(c->limit_v[0]));
		for (int i = 0; i < n; i++) {
			double t = isfinite(c->t[i]) ? c->t[i] : prev_t;
			fprintf(f, "L%.1f %.1fL%.1f %.1f", PX(prev_t), PY(c->limit_v[i]), PX(t), PY(c->limit_v[i]));
			prev_t = t;
		}
		fputs("\"/>\n", f);
	}
	if (isfinite(c->limit) && c->limit > 0) {
		fprintf(f, "<line class=\"lim\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" style=\"fill:#c62828\">",
			ML, CW - MR, PY(c->limit), PY(c->limit), CW - MR - 4, PY(c->limit) - 4);
		h_text(f, c->limit_label);
		fputs("</text>\n", f);
	}
#undef PX
#undef PY
	fprintf(f, "</svg><figcaption class=\"small\">");
	h_text(f, c->title);
	if (n > 0)
		fprintf(f, ": %d points; peak %s at %.0f s, mean %s", n,
			svg_value(vmax, c->bytes, a, sizeof(a)), peak_t,
			svg_value(c->t[n - 1] > 0 ? sum / c->t[n - 1] : 0, c->bytes, b, sizeof(b)));
	else
		fputs(": no samples", f);
	if ((isfinite(c->limit) && c->limit > 0) || c->limit_v) {
		fputs("; dashed line: ", f);
		h_text(f, c->limit_label);
	}
	fputs("</figcaption></figure>\n", f);
}

void svg_cell_bar(FILE *f, double v, double max, const char *text, const char *colour)
{
	double w = isfinite(v) && max > 0 && v > 0 ? v / max * 100 : 0;

	fprintf(f, "<td class=\"n\" data-v=\"%.9g\">", isfinite(v) ? v : -1.0);
	h_text(f, text);
	if (w > 100)
		w = 100;
	fprintf(f, "<span class=\"bar\" style=\"width:%.0fpx;background:%s\"></span></td>", w,
		colour ? colour : "#4e79a7");
}
