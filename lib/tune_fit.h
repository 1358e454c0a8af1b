/*
 * tune_fit.h - a step's memory peak against its input size: the least
 * squares line peak = a + b x input over its runs, with R² and the fit's
 * error, and whether it is good enough to size memory by (tune.c).
 */
#ifndef TRACER_TUNE_FIT_H
#define TRACER_TUNE_FIT_H

#include <stdbool.h>
#include <stddef.h>

struct tune_fit {
	size_t n;          /* points */
	size_t distinct;   /* distinct input sizes among them */
	double a, b;       /* peak = a + b x input (bytes, bytes per byte) */
	double r2;         /* coefficient of determination (0 when undefined) */
	double rmse;       /* root mean square error of the fit, bytes */
};

/* Fit y = a + b x over n points.  False (fit zeroed but n, distinct set)
 * when there are fewer than 2 distinct x. */
bool tune_fit_line(const double *x, const double *y, size_t n, struct tune_fit *f);

/* Is the fit usable: at least TRACER_TUNE_FIT_MIN_RUNS points of as many
 * distinct sizes, R² at least TRACER_TUNE_FIT_MIN_R2, growing (b > 0)? */
bool tune_fit_usable(const struct tune_fit *f);

#endif
