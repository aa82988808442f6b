/*
 * stats: variance that merges, and exact percentiles.
 *
 * Variance: B. P. Welford, "Note on a method for calculating corrected
 * sums of squares and products" (Technometrics, 1962) for one value at a
 * time, and T. F. Chan, G. H. Golub, R. J. LeVeque, "Updating formulae
 * and a pairwise algorithm for computing sample variances" (1979) to
 * merge two accumulators. Both work with deviations from the running
 * mean, never with sums of squares, so a large mean (1e9 + small noise)
 * costs no precision the way sum(x^2) - sum(x)^2 / n would.
 *
 * Percentiles: R. J. Hyndman, Y. Fan, "Sample quantiles in statistical
 * packages" (The American Statistician, 1996), definition 7, with
 * numpy.percentile()'s arithmetic so that results agree to the bit.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"

/* Keep a * b + c two roundings, as numpy's, even where the target has
 * fused multiply-add. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#define NO_FMA
#elif defined(__GNUC__)
#define NO_FMA	__attribute__((optimize("fp-contract=off")))
#else
#define NO_FMA
#endif

/* Past this magnitude (scaled), values are scaled down: a deviation is
 * then below 2^451, its square below 2^902, and a sum of 2^64 of them
 * still a finite double. */
#define VAR_BIG	0x1p450

/* Makes v's scale 2^-e (e > v->e): exact powers of two, so nothing but
 * what underflows changes. */
static void
var_rescale(struct stats_var *v, int64_t e)
{
	v->mean = ldexp(v->mean, (int)(v->e - e));
	v->m2 = ldexp(v->m2, (int)(2 * (v->e - e)));
	v->e = e;
}

void
stats_var_add(struct stats_var *v, double x)
{
	double delta;
	int k;

	if (v->e != 0)
		x = ldexp(x, (int)-v->e);
	if (fabs(x) >= VAR_BIG) {
		k = ilogb(x) - 448;	/* x * 2^-k below 2^449 */
		var_rescale(v, v->e + k);
		x = ldexp(x, -k);
	}
	delta = x - v->mean;

	v->n++;
	v->mean += delta / (double)v->n;
	v->m2 += delta * (x - v->mean);
}

void
stats_var_merge(struct stats_var *dst, const struct stats_var *from)
{
	struct stats_var b = *from, *src = &b;
	double na, nb, n, delta;

	if (src->n == 0)
		return;
	if (dst->n == 0) {
		*dst = *src;
		return;
	}
	if (src->e > dst->e)	/* both on the larger scale */
		var_rescale(dst, src->e);
	else if (src->e < dst->e)
		var_rescale(src, dst->e);
	/* Counts as doubles: their product may pass 2^64, not 2^1023. */
	na = (double)dst->n;
	nb = (double)src->n;
	n = na + nb;
	delta = src->mean - dst->mean;
	dst->mean += delta * (nb / n);
	dst->m2 += src->m2 + delta * delta * (na * nb / n);
	dst->n += src->n;
}

/* m2 is a sum of non-negative terms; rounding cannot make it negative,
 * but a -0 or a tiny negative would print as "-0" or make sqrt NaN. */
static double
m2_of(const struct stats_var *v)
{
	return v->m2 > 0 ? v->m2 : 0;
}

/* A result d * 2^(k * e) of v (k: 2 for a variance, 1 for a deviation):
 * 0 and *out, or STATS_HUGE when it is past the largest double. */
static int
unscaled(const struct stats_var *v, double d, int k, double *out)
{
	*out = v->e != 0 ? ldexp(d, (int)(k * v->e)) : d;
	return isfinite(*out) ? 0 : STATS_HUGE;
}

int
stats_var_samp(const struct stats_var *v, double *out)
{
	if (v->n < 2)
		return -1;
	return unscaled(v, m2_of(v) / (double)(v->n - 1), 2, out);
}

int
stats_stddev_samp(const struct stats_var *v, double *out)
{
	if (v->n < 2)
		return -1;
	return unscaled(v, sqrt(m2_of(v) / (double)(v->n - 1)), 1, out);
}

int
stats_var_pop(const struct stats_var *v, double *out)
{
	if (v->n < 1)
		return -1;
	return unscaled(v, m2_of(v) / (double)v->n, 2, out);
}

int
stats_stddev_pop(const struct stats_var *v, double *out)
{
	if (v->n < 1)
		return -1;
	return unscaled(v, sqrt(m2_of(v) / (double)v->n), 1, out);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
stats_sort(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_double);
}

/*
 * numpy: h = (n - 1) * (p / 100); at or past the last rank, the last
 * value; else a = x[floor h], b = the next, t = h - floor h, and
 * a + (b - a) * t below t = 1/2, b - (b - a) * (1 - t) from it (so that
 * t near 1 lands on b exactly). Equal neighbours give their value
 * exactly. Two departures where numpy's arithmetic breaks down: t = 0
 * gives a even when b - a overflows (numpy: NaN), and an overflowing
 * b - a interpolates as a * (1 - t) + b * t. Adding 0.0 turns -0 into 0,
 * as numpy's a + 0 does, so the sign of a zero never depends on whether
 * a sort put -0 or 0 first.
 */
NO_FMA double
stats_percentile(const double *x, size_t n, double p)
{
	double h, t, a, b, diff, r;
	size_t lo;

	if (n == 0)
		return NAN;
	h = (double)(n - 1) * (p / 100);
	if (!(h < (double)(n - 1)))
		return x[n - 1] + 0.0;
	if (h <= 0)
		return x[0] + 0.0;
	lo = (size_t)h;		/* floor: h > 0 */
	t = h - (double)lo;
	a = x[lo];
	b = x[lo + 1];
	if (t == 0)
		return a + 0.0;
	diff = b - a;
	if (isinf(diff))
		r = a * (1 - t) + b * t;
	else if (t >= 0.5)
		r = b - diff * (1 - t);
	else
		r = a + diff * t;
	return r + 0.0;
}

static int
isdig(char c)
{
	return c >= '0' && c <= '9';
}

static const char *
pct_one(const char *s, size_t n, struct stats_pct *out)
{
	static const char range[] = "a percentile must be a number from 0 to 100";
	size_t i = 0, ib, ie, fb, fe, len;
	char *q;
	int saved;

	if (n == 0)
		return "a percentile is empty";
	if (s[0] == '+')
		i = 1;
	for (ib = i; i < n && isdig(s[i]); i++)
		;
	ie = fb = fe = i;
	if (i < n && s[i] == '.') {
		for (fb = ++i; i < n && isdig(s[i]); i++)
			;
		fe = i;
	}
	if (i != n || (ie - ib) + (fe - fb) == 0)
		return range;
	while (ib < ie && s[ib] == '0')
		ib++;
	while (fe > fb && s[fe - 1] == '0')
		fe--;
	/* Checked on the text, exactly: 100.0000000000000001 is no
	 * percentile even though it reads as the double 100. */
	if (ie - ib > 3 || (ie - ib == 3 &&
	    (memcmp(s + ib, "100", 3) != 0 || fe > fb)))
		return range;
	len = 1 + (ie > ib ? ie - ib : 1) + (fe > fb ? 1 + fe - fb : 0);
	if (len >= STATS_PNAMESZ)
		return "a percentile has too many digits";
	q = out->name;
	*q++ = 'p';
	if (ie > ib) {
		memcpy(q, s + ib, ie - ib);
		q += ie - ib;
	} else
		*q++ = '0';
	if (fe > fb) {
		*q++ = '.';
		memcpy(q, s + fb, fe - fb);
		q += fe - fb;
	}
	*q = '\0';
	saved = errno;
	out->p = strtod(out->name + 1, NULL);
	errno = saved;
	return NULL;
}

const char *
stats_pct_list(const char *s, struct stats_pct *out, size_t max,
    size_t *np)
{
	const char *e, *why;
	size_t k = 0;

	for (;;) {
		e = strchr(s, ',');
		if (e == NULL)
			e = s + strlen(s);
		if (k == max)
			return "too many percentiles";
		if ((why = pct_one(s, (size_t)(e - s), &out[k])) != NULL)
			return why;
		k++;
		if (*e == '\0')
			break;
		s = e + 1;
	}
	*np = k;
	return NULL;
}

void
stats_pct_median(struct stats_pct *out)
{
	out->p = 50;
	strcpy(out->name, "median");
}
