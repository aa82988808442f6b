/* stats: mergeable variance and standard deviation, and exact
 * percentiles of a sorted array (man/fwin.1, AGGREGATES). */
#ifndef FWIN_STATS_H
#define FWIN_STATS_H

#include <stddef.h>
#include <stdint.h>

/*
 * A variance accumulator: Welford's running mean and sum of squared
 * deviations, merged by Chan, Golub and LeVeque's pairwise formula. Flat,
 * for the arena; all zeros is the empty accumulator. Floating: the same
 * values added or merged in another order may give other last bits, so
 * callers fold in a fixed order (arrival within a slice, slices by time).
 * Values are kept scaled by 2^-e, e = 0 until one passes 2^450, so that
 * no square of a finite value overflows (1e308 squared would).
 */
struct stats_var {
	uint64_t n;
	double mean;	/* times 2^-e */
	double m2;	/* sum of squared deviations from mean, times 2^-2e */
	int64_t e;
};

void stats_var_add(struct stats_var *v, double x);
void stats_var_merge(struct stats_var *dst, const struct stats_var *src);

/* Sample (n - 1) variance and standard deviation: 0 and *out, or -1
 * (an empty cell) below 2 values, or STATS_HUGE when the result is past
 * the largest double (an empty cell too, and a warning). */
#define STATS_HUGE	(-2)
int stats_var_samp(const struct stats_var *v, double *out);
int stats_stddev_samp(const struct stats_var *v, double *out);

/* Population (n) variance and standard deviation: 0 and *out, or -1
 * below 1 value, or STATS_HUGE. */
int stats_var_pop(const struct stats_var *v, double *out);
int stats_stddev_pop(const struct stats_var *v, double *out);

/* Sorts x[0..n) ascending (values are finite). */
void stats_sort(double *x, size_t n);

/* The p-th percentile (0 <= p <= 100) of x[0..n), sorted, n >= 1, by
 * linear interpolation between the closest ranks (Hyndman and Fan's type
 * 7), rounded as numpy.percentile() does; never -0. NaN when n == 0. */
double stats_percentile(const double *x, size_t n, double p);

/* Room for a column name fragment, "p99.9" or "median", with its NUL. */
#define STATS_PNAMESZ	32

/* One requested percentile. */
struct stats_pct {
	double p;			/* 0..100 */
	char name[STATS_PNAMESZ];	/* "p95", "p99.9", "p0", "median" */
};

/*
 * Parses the list s ("50,95,99.9", NUL-terminated) into out[0..*np),
 * at most max. Each P is an unsigned decimal (an optional '+', no
 * exponent) from 0 to 100; its name is 'p' and P as written without the
 * '+', leading zeros and trailing zeros after the point, and a bare
 * point ("+07.50" is "p7.5", "100.0" is "p100", ".5" is "p0.5"), so
 * the value is the name's, read exactly. Returns NULL, or what is wrong.
 */
const char *stats_pct_list(const char *s, struct stats_pct *out,
    size_t max, size_t *np);

/* Sets *out to --median's: the 50th percentile, named "median". */
void stats_pct_median(struct stats_pct *out);

#endif
