/* stats: variance and standard deviation from exact sums, and exact
 * percentiles of a sorted array (man/fwin.1, AGGREGATES). */
#ifndef FWIN_STATS_H
#define FWIN_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/bigsum.h"
#include "base/decimal.h"

/*
 * A variance accumulator: the exact sum of the values (its n is the
 * count) and of their squares (always DS_EXP: its scale is twice the
 * values'). Flat but for the sums' blocks (bigsum.h), for the arena;
 * all zeros is the empty accumulator. Any order of adds and merges gives
 * the same result to the bit.
 */
struct stats_var {
	struct dec_sum x;
	struct dec_sum xx;
};

/* Adds the value v, read exactly (NULL: the double d), to the
 * accumulator at slot. */
void stats_var_add_any(struct arena *a, aoff slot, const struct dec *v,
    double d);

/* Values whose squares the fixed width takes inline: |m| < 2^63. */
#define STATS_SQUARE_FAST	((__int128)1 << 63)

/* stats_var_add_any(), inline where it runs per record: a decimal whose
 * sum adds in the fixed width, and whose square can. */
static inline void
stats_var_add(struct arena *a, aoff slot, const struct dec *v, double d)
{
	struct stats_var *s = arena_ptr(a, slot);
	struct dec sq;

	if (v == NULL || v->m <= -STATS_SQUARE_FAST ||
	    v->m >= STATS_SQUARE_FAST || dec_sum_add(&s->x, v) != 0) {
		stats_var_add_any(a, slot, v, d);
		return;
	}
	sq.m = v->m * v->m;	/* < 2^126 < 10^38: a struct dec */
	sq.scale = 2 * v->scale;
	sq.exp = 1;
	if (dec_sum_add(&s->xx, &sq) != 0)
		bigsum_add(a, slot + offsetof(struct stats_var, xx), &sq, 0);
}

/* Merges the accumulator at src into dst; src's blocks are freed. */
void stats_var_merge(struct arena *a, aoff dst, aoff src);

/* Adds src, in arena a, into the fold dst, whose big sums f holds. */
void stats_var_fold(struct bigsum_fold f[2], const struct arena *a,
    struct stats_var *dst, const struct stats_var *src);

/* Checks a restored accumulator, claiming its blocks in m. */
const char *stats_var_check(const struct arena *a,
    const struct stats_var *v, struct arena_claims *m);

/* Frees the accumulator's blocks. */
void stats_var_release(struct arena *a, aoff slot);

/* The variance of the fold v (f: its big sums): sample (n - 1), or
 * population (n) when pop; its square root, the standard deviation,
 * when root. 0 and *out, or -1 (an empty cell) below 2 values (1 for
 * the population), or STATS_HUGE when the result is past the largest
 * double (an empty cell too, and a warning). Never -0. */
#define STATS_HUGE	(-2)
int stats_var_result(const struct stats_var *v, const struct bigsum_fold f[2],
    int pop, int root, double *out);

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
