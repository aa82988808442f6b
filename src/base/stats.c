/*
 * stats: variance from exact sums, and exact percentiles.
 *
 * Variance: the count n and the exact sums of the values and of their
 * squares (decimal.h's sums, GMP's integers past them), so that no order
 * of additions, grouping or restore changes a bit. The result is
 * (n * sum(x^2) - sum(x)^2) / (n(n - 1)): its numerator exact, so a large
 * mean (1e9 + small noise) costs no precision, as it would in doubles;
 * numerator and denominator each taken to 64 bits, divided (a square root
 * after, for a deviation) and rounded once to a double, as one function
 * of the exact quotient whichever way the integers were held. Values are
 * read as sums read them: a decimal (plain, or with an exponent in range)
 * exactly, any other as its double, exactly.
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

#include "base/num.h"
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

void
stats_var_add_any(struct arena *a, aoff slot, const struct dec *v, double d)
{
	struct stats_var *s = arena_ptr(a, slot);
	aoff xx = slot + offsetof(struct stats_var, xx);
	struct dec sq;

	if (v == NULL) {
		bigsum_add(a, slot, NULL, d);
		bigsum_add_square(a, xx, NULL, d);
		return;
	}
	if (dec_sum_add(&s->x, v) != 0)
		bigsum_add(a, slot, v, 0);
	if (v->m > -STATS_SQUARE_FAST && v->m < STATS_SQUARE_FAST) {
		sq.m = v->m * v->m;	/* < 2^126 < 10^38: a struct dec */
		sq.scale = 2 * v->scale;
		sq.exp = 1;
		s = arena_ptr(a, slot);	/* (bigsum_add may move the arena) */
		if (dec_sum_add(&s->xx, &sq) != 0)
			bigsum_add(a, xx, &sq, 0);
	} else
		bigsum_add_square(a, xx, v, 0);
}

void
stats_var_merge(struct arena *a, aoff dst, aoff src)
{
	aoff xx = offsetof(struct stats_var, xx);

	bigsum_merge(a, dst, src);
	bigsum_merge(a, dst + xx, src + xx);
}

void
stats_var_fold(struct bigsum_fold f[2], const struct arena *a,
    struct stats_var *dst, const struct stats_var *src)
{
	bigsum_fold(&f[0], a, &dst->x, &src->x);
	bigsum_fold(&f[1], a, &dst->xx, &src->xx);
}

const char *
stats_var_check(const struct arena *a, const struct stats_var *v,
    struct arena_claims *m)
{
	const char *why;

	if ((why = bigsum_check(a, &v->x, m, 0)) != NULL ||
	    (why = bigsum_check(a, &v->xx, m, 1)) != NULL)
		return why;
	return v->x.n != v->xx.n ? "bad variance in an accumulator" : NULL;
}

void
stats_var_release(struct arena *a, aoff slot)
{
	bigsum_release(a, slot);
	bigsum_release(a, slot + offsetof(struct stats_var, xx));
}

/*
 * A positive integer as m * 2^e, m its top 64 bits, the bits below them
 * folded into the lowest (a sticky bit): exact in a long double, within
 * 2^-63 of the integer. The fixed-width words and GMP's integers both
 * come here through their top bits, so they give the same m to the bit.
 */
struct rounded {
	long double m;
	long e;
};

static struct rounded
rounded(uint64_t top, int sticky, long e)
{
	struct rounded r;

	r.m = (long double)(top | (uint64_t)(sticky != 0));
	r.e = e;
	return r;
}

/* w[0..nw), lowest first, not all zero. */
static struct rounded
round_words(const uint64_t *w, int nw)
{
	int k = nw - 1, s, sticky = 0, j;
	uint64_t top;

	while (k > 0 && w[k] == 0)
		k--;
	s = __builtin_clzll(w[k]);
	top = w[k] << s;
	if (k > 0) {
		if (s > 0) {
			top |= w[k - 1] >> (64 - s);
			sticky = (w[k - 1] << s) != 0;
		} else
			sticky = w[k - 1] != 0;
		for (j = 0; j < k - 1; j++)
			sticky |= w[j] != 0;
	}
	return rounded(top, sticky, 64L * k - s);
}

/* z > 0. */
static struct rounded
round_mpz(const mpz_t z)
{
	long bits = (long)mpz_sizeinbase(z, 2);
	uint64_t top;
	int sticky;
	mpz_t t;

	if (bits <= 64)
		return rounded(mpz_get_ui(z) << (64 - bits), 0, bits - 64);
	mpz_init(t);
	mpz_tdiv_q_2exp(t, z, (mp_bitcnt_t)(bits - 64));
	top = mpz_get_ui(t);
	sticky = mpz_scan1(z, 0) < (mp_bitcnt_t)(bits - 64);
	mpz_clear(t);
	return rounded(top, sticky, bits - 64);
}

/* Whether the 320-bit two's complement w fits an int64_t. */
static int
fits64(const uint64_t w[DEC_WORDS])
{
	uint64_t ext = w[0] >> 63 ? UINT64_MAX : 0;
	int i;

	for (i = 1; i < DEC_WORDS; i++)
		if (w[i] != ext)
			return 0;
	return 1;
}

/* w[0..3) /= 10 when it divides; returns whether it did. */
static int
div10_words(uint64_t w[3])
{
	unsigned __int128 r = 0, cur;
	uint64_t q[3];
	int j;

	for (j = 2; j >= 0; j--) {
		cur = r << 64 | w[j];
		q[j] = (uint64_t)(cur / 10);
		r = cur % 10;
	}
	if (r != 0)
		return 0;
	memcpy(w, q, sizeof(q));
	return 1;
}

/*
 * The numerator N = n * sum(x^2) - sum(x)^2 and the denominator
 * D = c * 10^t (c: n(n - 1), or n^2 for the population), both exact,
 * the common scale t made the least that holds N exactly (t >= 0, N not
 * a multiple of 10 while t > 0): a form of the exact quotient alone, so
 * that sums kept at other scales (zero takes any) give the same bits.
 * The quick way: small integers and decimals in the fixed width. Returns
 * 0, or -1 for the way of GMP's integers.
 */
static int
var_words(const struct stats_var *v, int pop, struct rounded *num,
    struct rounded *den)
{
	const struct dec_sum *x = &v->x, *xx = &v->xx;
	unsigned __int128 lo, hi, sq, d;
	uint64_t n = x->n, w[3], s1, borrow, c = pop ? n * n : n * (n - 1);
	int t = 2 * x->scale;

	if (x->big != 0 || xx->big != 0 || n >= (uint64_t)1 << 32 ||
	    x->scale < 0 || x->scale > 9 || xx->scale != t ||
	    !fits64(x->w) || xx->w[4] != 0 || xx->w[3] != 0 ||
	    xx->w[2] != 0 || xx->w[1] >> 63 != 0)
		return -1;
	/* n * W2 (< 2^159) - W1^2 (< 2^126), in three words */
	lo = (unsigned __int128)n * xx->w[0];
	hi = (unsigned __int128)n * xx->w[1] + (uint64_t)(lo >> 64);
	s1 = (int64_t)x->w[0] < 0 ? -x->w[0] : x->w[0];
	sq = (unsigned __int128)s1 * s1;
	w[0] = (uint64_t)lo - (uint64_t)sq;
	borrow = (uint64_t)lo < (uint64_t)sq;
	d = (unsigned __int128)(uint64_t)hi - (uint64_t)(sq >> 64) - borrow;
	w[1] = (uint64_t)d;
	w[2] = (uint64_t)(hi >> 64) - (uint64_t)(d >> 127);
	if ((w[0] | w[1] | w[2]) == 0) {
		num->m = 0;
		return 0;
	}
	while (t > 0 && div10_words(w))
		t--;
	*num = round_words(w, 3);
	d = (unsigned __int128)c * num_pow10[t];
	w[0] = (uint64_t)d;
	w[1] = (uint64_t)(d >> 64);
	w[2] = 0;
	*den = round_words(w, 3);
	return 0;
}

/* var_words() with GMP's integers: any sums, any count. */
static void
var_mpz(const struct stats_var *v, const struct bigsum_fold f[2], int pop,
    struct rounded *num, struct rounded *den)
{
	int32_t a = v->x.scale, b = v->xx.scale;
	long t = b > 2L * a ? b : 2L * a;
	uint64_t n = v->x.n;
	mpz_t s1, s2, p;

	mpz_inits(s1, s2, p, NULL);
	bigsum_get(NULL, &v->x, &f[0], s1);
	bigsum_get(NULL, &v->xx, &f[1], s2);
	mpz_mul(s1, s1, s1);
	mpz_ui_pow_ui(p, 10, (unsigned long)(t - 2L * a));
	mpz_mul(s1, s1, p);
	mpz_mul_ui(s2, s2, v->x.n);
	mpz_ui_pow_ui(p, 10, (unsigned long)(t - b));
	mpz_mul(s2, s2, p);
	mpz_sub(s2, s2, s1);		/* N, >= 0 */
	if (t < 0) {
		mpz_ui_pow_ui(p, 10, (unsigned long)-t);
		mpz_mul(s2, s2, p);
		t = 0;
	}
	if (mpz_sgn(s2) == 0)
		num->m = 0;
	else {
		while (t > 0 && mpz_divisible_ui_p(s2, 10)) {
			mpz_divexact_ui(s2, s2, 10);
			t--;
		}
		*num = round_mpz(s2);
		mpz_ui_pow_ui(p, 10, (unsigned long)t);
		mpz_mul_ui(p, p, n);
		mpz_mul_ui(p, p, pop ? n : n - 1);
		*den = round_mpz(p);
	}
	mpz_clears(s1, s2, p, NULL);
}

int
stats_var_result(const struct stats_var *v, const struct bigsum_fold f[2],
    int pop, int root, double *out)
{
	uint64_t n = v->x.n;
	struct rounded num = { 0, 0 }, den = { 1, 0 };
	long double q;
	long e;

	if (n < (pop ? 1u : 2u))
		return -1;
	if (var_words(v, pop, &num, &den) != 0)
		var_mpz(v, f, pop, &num, &den);
	if (num.m == 0) {
		*out = 0;
		return 0;
	}
	/* 64 bits each way (where long double has them), rounded to 53
	 * once at the end: the correctly rounded result, but where it lies
	 * within 2^-62 of a halfway point */
	q = num.m / den.m;
	e = num.e - den.e;
	if (root) {
		if (e & 1) {
			q *= 2;
			e--;
		}
		q = sqrtl(q);
		e /= 2;
	}
	*out = (double)ldexpl(q, e > 40000 ? 40000 : e < -40000 ? -40000 :
	    (int)e);
	return isfinite(*out) ? 0 : STATS_HUGE;
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
