/* Unit tests of stats: variance (empty cases, large means, the same bits
 * in any order or grouping, against a two-pass reference in long
 * double), exact percentiles
 * (expected values derived by hand or, where rounding matters, with
 * numpy.percentile()'s arithmetic in Python floats, as stated at each
 * case), and the percentile list. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/decimal.h"
#include "base/num.h"
#include "base/stats.h"
#include "unit.h"

#define NEL(a)	(sizeof(a) / sizeof((a)[0]))

static struct arena A;
static struct bigsum_fold F[2];

/* A new, empty accumulator in A. */
static aoff
var_new(void)
{
	aoff v = arena_alloc(&A, sizeof(struct stats_var));

	memset(arena_ptr(&A, v), 0, sizeof(struct stats_var));
	return v;
}

/* Adds text t to the accumulator at v as --var does (agg.c:
 * aggs_extract(), then var_add()): exactly when it reads so, else its
 * double. */
static void
vadd(aoff v, const char *t)
{
	size_t n = strlen(t);
	struct num x;
	struct dec d;

	if (dec_parse(t, n, &d) == 0 || (dec_read_exp(t, n, &d) == 0 &&
	    d.scale >= DEC_SAFESCALE)) {
		stats_var_add(&A, v, &d, 0);
		return;
	}
	if (num_parse(t, n, &x) != 0) {
		fprintf(stderr, "test bug: %s is no number\n", t);
		abort();
	}
	stats_var_add(&A, v, NULL, x.d);
}

static aoff
var_of(const char *const *t, size_t n)
{
	aoff v = var_new();
	size_t i;

	for (i = 0; i < n; i++)
		vadd(v, t[i]);
	return v;
}

/* The result of the fold of v[0..n) (pop, root: as stats_var_result). */
static int
res(const aoff *v, size_t n, int pop, int root, double *d)
{
	struct stats_var fold;
	size_t i;

	memset(&fold, 0, sizeof(fold));
	for (i = 0; i < n; i++)
		stats_var_fold(F, &A, &fold, arena_ptr(&A, v[i]));
	return stats_var_result(&fold, F, pop, root, d);
}

/* The four results of one accumulator. */
#define VAR_S(v, d)	res(&(v), 1, 0, 0, d)
#define SD_S(v, d)	res(&(v), 1, 0, 1, d)
#define VAR_P(v, d)	res(&(v), 1, 1, 0, d)
#define SD_P(v, d)	res(&(v), 1, 1, 1, d)

/* Two-pass variance in long double, of the values as strtold(3) reads
 * them: the reference. */
static long double
ref_var(const long double *x, size_t n, int sample)
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
	static const char *const one[] = { "5" }, *const two[] = { "1", "3" };
	static const char *const big[] = { "1000000004", "1000000007",
	    "1000000013", "1000000016" };
	static const char *const same[] = { "0.1", "0.1", "0.1", "0.1" };
	static const char *const wide[] = { "12345678901234567890.5",
	    "12345678901234567891.5" };
	aoff v;
	double d = -1;
	char buf[NUM_BUFSZ];

	/* n = 0: every form empty */
	v = var_new();
	CHECK(VAR_S(v, &d) == -1 && SD_S(v, &d) == -1);
	CHECK(VAR_P(v, &d) == -1 && SD_P(v, &d) == -1);

	/* n = 1: sample empty, population 0 */
	v = var_of(one, 1);
	CHECK(VAR_S(v, &d) == -1 && SD_S(v, &d) == -1);
	CHECK(VAR_P(v, &d) == 0 && d == 0 && !signbit(d));
	CHECK(SD_P(v, &d) == 0 && d == 0 && !signbit(d));

	/* n = 2: 1 and 3, mean 2, squares 1 + 1 */
	v = var_of(two, 2);
	CHECK(VAR_S(v, &d) == 0 && d == 2);
	CHECK(SD_S(v, &d) == 0 && d == sqrt(2.0));
	CHECK(VAR_P(v, &d) == 0 && d == 1);
	CHECK(SD_P(v, &d) == 0 && d == 1);

	/* 1e9 + {4, 7, 13, 16}: deviations -6 -3 3 6, squares 90: sample
	 * 30, population 22.5, exactly: the numerator is exact */
	v = var_of(big, 4);
	CHECK(VAR_S(v, &d) == 0 && d == 30);
	CHECK(VAR_P(v, &d) == 0 && d == 22.5);
	CHECK(SD_S(v, &d) == 0 && d == sqrt(30.0));

	/* equal values: exactly 0, never -0 */
	v = var_of(same, NEL(same));
	CHECK(VAR_S(v, &d) == 0);
	num_format_double(buf, d);
	CHECK_STR(buf, "0");

	/* 21 digits, squares past the fixed width's quick way: still
	 * exact, 0.5 and 0.25 */
	v = var_of(wide, 2);
	CHECK(VAR_S(v, &d) == 0 && d == 0.5);
	CHECK(VAR_P(v, &d) == 0 && d == 0.25);
	CHECK(SD_S(v, &d) == 0 && d == sqrt(0.5));
}

static int
close_to(double got, long double want, double rel)
{
	return fabsl((long double)got - want) <= rel * fabsl(want);
}

/* Every form of the fold of a[0..na) is b[0..nb)'s, to the bit. */
static int
same_bits(const aoff *a, size_t na, const aoff *b, size_t nb)
{
	double x, y;
	int pop, root, rc;

	for (pop = 0; pop < 2; pop++)
		for (root = 0; root < 2; root++)
			if ((rc = res(a, na, pop, root, &x)) != res(b, nb,
			    pop, root, &y) || (rc == 0 &&
			    memcmp(&x, &y, sizeof(x)) != 0))
				return 0;
	return 1;
}

/* The same values in any order or grouping give the same bits: one
 * accumulator, slices folded forward and backward, slices merged in the
 * arena; and the result is the two-pass reference's, rounded. */
static void
test_var_order(void)
{
	enum { N = 10000, NS = 16 };
	static long double x[N];
	static char text[N][32];
	aoff seq, rev, part[NS], merged;
	long double want;
	double d;
	size_t i;
	int k, pass;

	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < N; i++) {
			uint64_t r = unit_rnd();

			if (pass == 0)	/* a large mean, cents of noise */
				snprintf(text[i], sizeof(text[i]), "%llu.%02u",
				    1000000000ULL + r % 100, (unsigned)(r >> 40)
				    % 100);
			else if (pass == 1)	/* signed, spread, mixed */
				snprintf(text[i], sizeof(text[i]), "%s%llu%s",
				    r & 1 ? "-" : "", (unsigned long long)(r >>
				    20) % 1000000, r & 2 ? ".5" : "");
			else	/* exponents and doubles */
				snprintf(text[i], sizeof(text[i]), "%.17g",
				    ldexp((double)(r >> 11), -40 + (int)(i % 5)));
			x[i] = strtold(text[i], NULL);
		}
		seq = var_new();
		rev = var_new();
		merged = var_new();
		for (k = 0; k < NS; k++)
			part[k] = var_new();
		for (i = 0; i < N; i++) {
			vadd(seq, text[i]);
			vadd(rev, text[N - 1 - i]);
			vadd(part[(i * i) % NS], text[i]);
		}
		CHECK(same_bits(&seq, 1, &rev, 1));
		CHECK(same_bits(&seq, 1, part, NS));
		for (k = NS - 1; k >= 0; k--) {
			stats_var_merge(&A, merged, part[k]);
			stats_var_release(&A, part[k]);
		}
		CHECK(same_bits(&seq, 1, &merged, 1));
		want = ref_var(x, N, 1);
		CHECK(VAR_S(seq, &d) == 0 && close_to(d, want, 1e-12));
		want = ref_var(x, N, 0);
		CHECK(VAR_P(seq, &d) == 0 && close_to(d, want, 1e-12));
		stats_var_release(&A, seq);
		stats_var_release(&A, rev);
		stats_var_release(&A, merged);
	}

	/* a sum that passes zero keeps the scale it had, a fold's takes
	 * the other's: the result is the exact quotient's all the same
	 * (Python's fractions: 43/12 and 43/18) */
	{
		static const char *const t[] = { "1.5", "-1.5", "2" };
		aoff one = var_of(t, 3), halves[2];

		halves[0] = var_of(t, 2);
		halves[1] = var_of(t + 2, 1);
		CHECK(same_bits(&one, 1, halves, 2));
		CHECK(VAR_S(one, &d) == 0 && d == 3.5833333333333335);
		CHECK(VAR_P(one, &d) == 0 && d == 2.388888888888889);
	}
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

/* Values near the largest double: their squares are exact in GMP's
 * integers, so the deviations that fit print (expected values: the exact
 * result, correctly rounded, by Python's decimal module), and a variance
 * past the largest double is STATS_HUGE, never inf. */
static void
test_var_huge(void)
{
	static const char *const a[] = { "1e308", "1" };
	static const char *const b[] = { "1.7e308", "-1.7e308" };
	static const char *const c[] = { "1e300", "2e300", "4e300" };
	aoff v, w[2];
	double d;

	v = var_of(a, 2);
	CHECK(SD_S(v, &d) == 0 && d == 7.071067811865476e+307);
	CHECK(SD_P(v, &d) == 0 && d == 5e+307);
	CHECK(VAR_S(v, &d) == STATS_HUGE);
	CHECK(VAR_P(v, &d) == STATS_HUGE);
	/* the same from two accumulators */
	w[0] = var_of(a, 1);
	w[1] = var_of(a + 1, 1);
	CHECK(same_bits(&v, 1, w, 2));
	v = var_of(b, 2);
	CHECK(SD_S(v, &d) == STATS_HUGE);
	CHECK(SD_P(v, &d) == 0 && d == 1.7e308);
	/* 1e300 * {1, 2, 4}: the sample variance (7e600 / 3) is past the
	 * largest double, the deviation is not */
	v = var_of(c, 3);
	CHECK(VAR_S(v, &d) == STATS_HUGE);
	CHECK(SD_S(v, &d) == 0 && d == 1.5275252316519467e300);
}

int
main(void)
{
	unit_rstate = 0x2545F4914F6CDD1DULL;
	if (arena_init(&A) != 0)
		return 1;
	test_var_small();
	test_var_order();
	test_var_huge();
	test_percentile();
	test_pct_list();
	bigsum_fold_free(&F[0]);
	bigsum_fold_free(&F[1]);
	arena_fini(&A);
	return unit_done("test_stats");
}
