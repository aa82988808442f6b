/* Unit tests of stats: variance (empty cases, large means, merging
 * against a two-pass reference in long double), exact percentiles
 * (expected values derived by hand or, where rounding matters, with
 * numpy.percentile()'s arithmetic in Python floats, as stated at each
 * case), and the percentile list. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "base/stats.h"
#include "unit.h"

#define NEL(a)	(sizeof(a) / sizeof((a)[0]))

static struct stats_var
var_of(const double *x, size_t n)
{
	struct stats_var v;
	size_t i;

	memset(&v, 0, sizeof(v));
	for (i = 0; i < n; i++)
		stats_var_add(&v, x[i]);
	return v;
}

/* Two-pass sample variance in long double: the reference. */
static long double
ref_var(const double *x, size_t n, int sample)
{
	long double mean = 0, m2 = 0, d;
	size_t i;

	for (i = 0; i < n; i++)
		mean += x[i];
	mean /= n;
	for (i = 0; i < n; i++) {
		d = x[i] - mean;
		m2 += d * d;
	}
	return m2 / (sample ? n - 1 : n);
}

static void
test_var_small(void)
{
	static const double one[] = { 5 }, two[] = { 1, 3 };
	static const double big[] = { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 };
	struct stats_var v;
	double d = -1;

	/* n = 0: every form empty */
	memset(&v, 0, sizeof(v));
	CHECK(stats_var_samp(&v, &d) == -1);
	CHECK(stats_stddev_samp(&v, &d) == -1);
	CHECK(stats_var_pop(&v, &d) == -1);
	CHECK(stats_stddev_pop(&v, &d) == -1);

	/* n = 1: sample empty, population 0 */
	v = var_of(one, 1);
	CHECK(stats_var_samp(&v, &d) == -1);
	CHECK(stats_stddev_samp(&v, &d) == -1);
	CHECK(stats_var_pop(&v, &d) == 0 && d == 0 && !signbit(d));
	CHECK(stats_stddev_pop(&v, &d) == 0 && d == 0 && !signbit(d));

	/* n = 2: 1 and 3, mean 2, squares 1 + 1 */
	v = var_of(two, 2);
	CHECK(stats_var_samp(&v, &d) == 0 && d == 2);
	CHECK(stats_stddev_samp(&v, &d) == 0 && d == sqrt(2.0));
	CHECK(stats_var_pop(&v, &d) == 0 && d == 1);
	CHECK(stats_stddev_pop(&v, &d) == 0 && d == 1);

	/* 1e9 + {4, 7, 13, 16}: mean 1e9 + 10, deviations -6 -3 3 6,
	 * squares 90: sample 30, population 22.5, exactly. A one-pass
	 * sum of squares would lose it: x^2 ~ 1e18 leaves ulps of 128. */
	v = var_of(big, 4);
	CHECK(stats_var_samp(&v, &d) == 0 && d == 30);
	CHECK(stats_var_pop(&v, &d) == 0 && d == 22.5);
	CHECK(stats_stddev_samp(&v, &d) == 0 && d == sqrt(30.0));
	CHECK(v.mean == 1e9 + 10);

	/* equal values: exactly 0, never -0 */
	{
		static const double same[] = { 0.1, 0.1, 0.1, 0.1, 0.1 };
		char buf[NUM_BUFSZ];

		v = var_of(same, NEL(same));
		CHECK(stats_var_samp(&v, &d) == 0);
		num_format_double(buf, d);
		CHECK_STR(buf, "0");
	}
}

/* A small deterministic generator (xorshift64*). */
static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t
next(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

/* Uniform in [0, 1). */
static double
unif(void)
{
	return (double)(next() >> 11) / 9007199254740992.0;
}

static int
close_to(double got, long double want, double rel)
{
	return fabsl((long double)got - want) <= rel * fabsl(want);
}

static void
test_var_large(void)
{
	enum { N = 10000, NS = 16 };
	static double x[N];
	struct stats_var seq, part[NS], fwd, fwd2, rev, e;
	long double want_s, want_p;
	double d;
	size_t i;
	int k;

	/* a large mean and noise in the last few digits */
	for (i = 0; i < N; i++)
		x[i] = 1e9 + unif() * 100 - 50;
	want_s = ref_var(x, N, 1);
	want_p = ref_var(x, N, 0);

	seq = var_of(x, N);
	CHECK(stats_var_samp(&seq, &d) == 0 && close_to(d, want_s, 1e-9));
	CHECK(stats_var_pop(&seq, &d) == 0 && close_to(d, want_p, 1e-9));

	/* slices of unequal sizes, merged forward and backward */
	memset(part, 0, sizeof(part));
	for (i = 0; i < N; i++)
		stats_var_add(&part[(i * i) % NS], x[i]);
	memset(&fwd, 0, sizeof(fwd));
	memset(&fwd2, 0, sizeof(fwd2));
	memset(&rev, 0, sizeof(rev));
	for (k = 0; k < NS; k++) {
		stats_var_merge(&fwd, &part[k]);
		stats_var_merge(&fwd2, &part[k]);
		stats_var_merge(&rev, &part[NS - 1 - k]);
	}
	CHECK(fwd.n == N && rev.n == N);
	CHECK(stats_var_samp(&fwd, &d) == 0 && close_to(d, want_s, 1e-9));
	CHECK(stats_var_samp(&rev, &d) == 0 && close_to(d, want_s, 1e-9));
	CHECK(stats_var_pop(&rev, &d) == 0 && close_to(d, want_p, 1e-9));
	/* the same order, the same bits (another order may differ) */
	CHECK(memcmp(&fwd, &fwd2, sizeof(fwd)) == 0);

	/* an empty accumulator merges as nothing, either way */
	memset(&e, 0, sizeof(e));
	fwd2 = fwd;
	stats_var_merge(&fwd2, &e);
	CHECK(memcmp(&fwd2, &fwd, sizeof(fwd)) == 0);
	stats_var_merge(&e, &fwd);
	CHECK(memcmp(&e, &fwd, sizeof(fwd)) == 0);

	/* merging singletons is adding */
	{
		static const double big[] = { 1e9 + 4, 1e9 + 7, 1e9 + 13,
		    1e9 + 16 };
		struct stats_var m, one;

		memset(&m, 0, sizeof(m));
		for (i = 0; i < NEL(big); i++) {
			memset(&one, 0, sizeof(one));
			stats_var_add(&one, big[i]);
			stats_var_merge(&m, &one);
		}
		CHECK(stats_var_samp(&m, &d) == 0 && d == 30);
	}

	/* widely spread values, and negatives */
	for (i = 0; i < N; i++)
		x[i] = (unif() - 0.5) * 1e6 * (double)(i % 7 + 1);
	want_s = ref_var(x, N, 1);
	seq = var_of(x, N);
	CHECK(stats_var_samp(&seq, &d) == 0 && close_to(d, want_s, 1e-12));
}

static void
test_percentile(void)
{
	static const double one[] = { 5 };
	static const double four[] = { 1, 2, 3, 4 };
	static const double ties[] = { 1, 2, 2, 2, 5 };
	static const double neg[] = { -5, -1, 0, 3 };
	static const double ten[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	static const double tenths[] = { 0.1, 0.2, 0.3 };
	static const double zeros[] = { -0.0, 0.0 };
	static const double huge[] = { -1.5e308, 1.5e308 };
	static const struct {
		const double *x;
		size_t n;
		double p;
		const char *want;
	} t[] = {
		/* a single value is every percentile */
		{ one, 1, 0, "5" },
		{ one, 1, 50, "5" },
		{ one, 1, 99.9, "5" },
		{ one, 1, 100, "5" },
		/* h = 3p/100: 0 -> 1, 1.5 -> 2.5, 0.75 -> 1.75, 2.25 -> 3.25 */
		{ four, 4, 0, "1" },
		{ four, 4, 50, "2.5" },
		{ four, 4, 25, "1.75" },
		{ four, 4, 75, "3.25" },
		{ four, 4, 100, "4" },
		/* ties: h = 2 -> x[2]; 2.4 and 2.8 between 2 and 2 -> 2;
		 * 3.2 -> 2 + 3 * 0.2: Python, numpy's way, 2.6000000000000005;
		 * 3.6 -> 5 - 3 * 0.4: 3.8000000000000003 */
		{ ties, 5, 50, "2" },
		{ ties, 5, 60, "2" },
		{ ties, 5, 70, "2" },
		{ ties, 5, 80, "2.6000000000000005" },
		{ ties, 5, 90, "3.8000000000000003" },
		{ ties, 5, 0, "1" },
		{ ties, 5, 100, "5" },
		/* negatives: h = 1.5 -> 0 - 1 * 0.5; h = 0.3 -> -5 + 4 * 0.3
		 * (Python: -3.8) */
		{ neg, 4, 50, "-0.5" },
		{ neg, 4, 10, "-3.8" },
		{ neg, 4, 0, "-5" },
		{ neg, 4, 100, "3" },
		/* numpy.percentile(range(1, 11), 95) is 9.549999999999999:
		 * h = 9 * 0.95 = 8.549999999999999, 10 - 1 * (1 - t) */
		{ ten, 10, 95, "9.549999999999999" },
		{ ten, 10, 50, "5.5" },
		/* Python, numpy's way: 0.166 and 0.2332 */
		{ tenths, 3, 33, "0.166" },
		{ tenths, 3, 66.6, "0.2332" },
		/* -0 and 0 are the same value; the result is never -0 */
		{ zeros, 2, 0, "0" },
		{ zeros, 2, 50, "0" },
		{ zeros, 1, 100, "0" },
		/* b - a overflows: interpolated without it */
		{ huge, 2, 50, "0" },
		{ huge, 2, 0, "-1.5e+308" },
		{ huge, 2, 100, "1.5e+308" },
	};
	static double thousand[1000];
	char buf[NUM_BUFSZ];
	size_t i;

	for (i = 0; i < NEL(t); i++) {
		num_format_double(buf, stats_percentile(t[i].x, t[i].n, t[i].p));
		CHECK_STR(buf, t[i].want);
		if (strcmp(buf, t[i].want) != 0)
			fprintf(stderr, "  case %zu: p%g of %zu\n", i, t[i].p,
			    t[i].n);
	}
	CHECK(isnan(stats_percentile(one, 0, 50)));

	/* 1..1000, p99.9: h = 999 * 0.999 = 998.001, 999 + 1 * t; Python,
	 * numpy's way: 999.0010000000001 */
	for (i = 0; i < 1000; i++)
		thousand[i] = (double)(1000 - i);
	stats_sort(thousand, 1000);
	CHECK(thousand[0] == 1 && thousand[999] == 1000);
	num_format_double(buf, stats_percentile(thousand, 1000, 99.9));
	CHECK_STR(buf, "999.0010000000001");
	num_format_double(buf, stats_percentile(thousand, 1000, 50));
	CHECK_STR(buf, "500.5");

	/* every p from 0 to 100 in steps of 0.1 stays between its
	 * neighbours, and equal neighbours give their value exactly */
	for (i = 0; i <= 1000; i++) {
		double p = (double)i / 10, r = stats_percentile(ties, 5, p);
		double h = 4 * (p / 100);
		size_t lo = (size_t)h, hi = lo < 4 ? lo + 1 : 4;

		CHECK(r >= ties[lo] && r <= ties[hi]);
		if (ties[lo] == ties[hi])
			CHECK(r == ties[lo]);
	}
}

static void
test_pct_list(void)
{
	static const struct {
		const char *in;
		const char *names;	/* joined by ' '; NULL: refused */
		double p[4];
	} t[] = {
		{ "50,95,99.9", "p50 p95 p99.9", { 50, 95, 99.9 } },
		{ "0,100", "p0 p100", { 0, 100 } },
		{ "12.5", "p12.5", { 12.5 } },
		{ "+07.50", "p7.5", { 7.5 } },
		{ "100.000", "p100", { 100 } },
		{ ".5", "p0.5", { 0.5 } },
		{ "0.0", "p0", { 0 } },
		{ "000", "p0", { 0 } },
		{ "5.", "p5", { 5 } },
		{ "99.99", "p99.99", { 99.99 } },
		{ "50,50", "p50 p50", { 50, 50 } },
		{ "0.000000000000000000000000001", "p0.000000000000000000000000001",
		    { 1e-27 } },
		{ "", NULL, { 0 } },
		{ "50,", NULL, { 0 } },
		{ ",50", NULL, { 0 } },
		{ "50,,95", NULL, { 0 } },
		{ "101", NULL, { 0 } },
		{ "100.01", NULL, { 0 } },
		{ "100.0000000000000000000001", NULL, { 0 } },
		{ "1000", NULL, { 0 } },
		{ "-1", NULL, { 0 } },
		{ "-0", NULL, { 0 } },
		{ "1e2", NULL, { 0 } },
		{ "abc", NULL, { 0 } },
		{ "50 ", NULL, { 0 } },
		{ " 50", NULL, { 0 } },
		{ ".", NULL, { 0 } },
		{ "+", NULL, { 0 } },
		{ "50,95,99,99.9,1", NULL, { 0 } },	/* more than 4 */
		/* names have at most 31 bytes: 29 places do not fit */
		{ "0.0000000000000000000000000001", "p0.0000000000000000000000000001",
		    { 1e-28 } },
		{ "0.00000000000000000000000000001", NULL, { 0 } },
	};
	struct stats_pct out[4];
	char joined[256];
	const char *why;
	size_t i, j, np;

	for (i = 0; i < NEL(t); i++) {
		np = 99;
		why = stats_pct_list(t[i].in, out, 4, &np);
		if (t[i].names == NULL) {
			CHECK(why != NULL);
			if (why == NULL)
				fprintf(stderr, "  \"%s\" taken\n", t[i].in);
			continue;
		}
		CHECK(why == NULL);
		if (why != NULL) {
			fprintf(stderr, "  \"%s\": %s\n", t[i].in, why);
			continue;
		}
		joined[0] = '\0';
		for (j = 0; j < np; j++) {
			if (j > 0)
				strcat(joined, " ");
			strcat(joined, out[j].name);
			CHECK(out[j].p == t[i].p[j]);
		}
		CHECK_STR(joined, t[i].names);
	}

	stats_pct_median(&out[0]);
	CHECK_STR(out[0].name, "median");
	CHECK(out[0].p == 50);
}

/* Values near the largest double: squared, they would overflow; scaled
 * before squaring, the deviations that fit print (expected values: the
 * exact result, correctly rounded, by Python's decimal module), and a
 * variance past the largest double is STATS_HUGE, never inf. */
static void
test_var_huge(void)
{
	static const double a[] = { 1e308, 1 }, b[] = { 1.7e308, -1.7e308 };
	static const double c[] = { 1e300, 2e300, 4e300 };
	struct stats_var v, w;
	double d;

	v = var_of(a, 2);
	CHECK(stats_stddev_samp(&v, &d) == 0 && d == 7.071067811865476e+307);
	CHECK(stats_stddev_pop(&v, &d) == 0 && d == 5e+307);
	CHECK(stats_var_samp(&v, &d) == STATS_HUGE);
	CHECK(stats_var_pop(&v, &d) == STATS_HUGE);
	/* the same merged from two accumulators, one scaled, one not */
	v = var_of(a, 1);
	w = var_of(a + 1, 1);
	stats_var_merge(&w, &v);
	CHECK(stats_stddev_samp(&w, &d) == 0 && d == 7.071067811865476e+307);
	v = var_of(b, 2);
	CHECK(stats_stddev_samp(&v, &d) == STATS_HUGE);
	CHECK(stats_stddev_pop(&v, &d) == 0 && d == 1.7e308);
	/* 1e300 * {1, 2, 4}: the sample variance (7e600 / 3) is past the
	 * largest double, the deviation is not */
	v = var_of(c, 3);
	CHECK(stats_var_samp(&v, &d) == STATS_HUGE);
	CHECK(stats_stddev_samp(&v, &d) == 0 &&
	    fabs(d - 1.5275252316519467e300) <= 1e285);
	CHECK(v.e > 0);
	/* below 2^450 (2.9e135) nothing is scaled: the bytes of before */
	{
		static const double e[] = { 1e135, -2e135, 5 };

		v = var_of(e, 3);
		CHECK(v.e == 0);
	}
}

int
main(void)
{
	test_var_small();
	test_var_large();
	test_var_huge();
	test_percentile();
	test_pct_list();
	return unit_done("test_stats");
}
