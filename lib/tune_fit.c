/*
 * tune_fit.c - least squares of memory peak on input size (tune_fit.h).
 * Sums are taken about the means, which keeps the arithmetic exact
 * enough for byte counts in the tens of GiB.
 */
#include <math.h>
#include <string.h>

#include "defaults.h"
#include "tune_fit.h"

/* Input sizes within TUNE_FIT_SAME of each other are one size: two
 * runs of the same file differ by a few bytes read, and must not count
 * as a spread of sizes the line could be fitted on. */
#define TUNE_FIT_SAME 0.05

static bool same_size(double a, double b)
{
	return fabs(a - b) <= TUNE_FIT_SAME * fmax(fabs(a), fabs(b));
}

static size_t count_distinct(const double *x, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < i && !same_size(x[j], x[i]))
			j++;
		if (j == i)
			d++;
	}
	return d;
}

bool tune_fit_line(const double *x, const double *y, size_t n, struct tune_fit *f)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0, sse = 0;

	memset(f, 0, sizeof(*f));
	f->n = n;
	/* the distinct count is quadratic: bounded by the caller's cap on runs */
	f->distinct = count_distinct(x, n);
	if (f->distinct < 2)
		return false;
	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	f->b = sxy / sxx;
	f->a = my - f->b * mx;
	for (size_t i = 0; i < n; i++) {
		double e = y[i] - (f->a + f->b * x[i]);

		sse += e * e;
	}
	f->rmse = sqrt(sse / (double)n);
	/* every peak the same: the line explains nothing, but misses nothing */
	f->r2 = syy > 0 ? 1.0 - sse / syy : 0.0;
	return true;
}

bool tune_fit_usable(const struct tune_fit *f)
{
	return f->n >= TRACER_TUNE_FIT_MIN_RUNS && f->distinct >= TRACER_TUNE_FIT_MIN_RUNS &&
	       f->r2 >= TRACER_TUNE_FIT_MIN_R2 && f->b > 0;
}
