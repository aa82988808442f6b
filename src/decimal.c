/*
 * decimal: exact sums in scaled integers.
 *
 * A value written "2.50" is the integer 250 at scale 2. A sum keeps one
 * integer at the largest scale it has seen; adding a value of another
 * scale multiplies the smaller-scale side by a power of ten first. The
 * integer is 256 bits wide although a result is exact only within 38
 * digits: values have at most 38 digits and 38 places, so each term,
 * rescaled, is below 10^76 < 2^255. Partial sums, in any order, are
 * bounded by the sum of the magnitudes; while that, at the final scale,
 * is below 2^255 (absolute values adding up to less than 5.7 * 10^38 at
 * 38 places, 5.7 * 10^76 without places), nothing overflows on the way,
 * and whether a sum is exact, and its bytes, follow from its values
 * alone: never from the order in which slices were merged.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "num.h"

typedef unsigned __int128 u128;

#define P19	10000000000000000000ULL	/* 10^19, the largest in 64 bits */

/*
 * Significant digits of the quotient dec_sum_avg() hands to strtod(3).
 * The mean is q = M / D with D = 10^scale * n < 10^38 * 2^64. If q is
 * halfway between two doubles, q = odd * 2^e with 2^-e dividing D, so
 * -e <= 38 + 64 and q's expansion ends within 102 places: about 88
 * significant digits, fewer than this, and the text is exact. Otherwise
 * q is at least 1 / (D * 2^max(0, -e)) away from every halfway point,
 * more than 10^-96 of q; the text, truncated at 110 digits, is within
 * 10^-109 of q, so on the same side of every halfway point, and
 * strtod(3), correctly rounded, gives q's double.
 */
#define AVG_DIGITS	110

static const uint64_t pow10_64[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL, P19,
};

static int
isdig(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * 256-bit two's complement words, w[0] lowest. Magnitudes (mag_*) are
 * the same words taken as unsigned.
 */

static int
w_isneg(const uint64_t w[4])
{
	return (int)(w[3] >> 63);
}

static void
w_neg(uint64_t w[4])
{
	uint64_t c = 1;
	int i;

	for (i = 0; i < 4; i++) {
		w[i] = ~w[i] + c;
		c = c && w[i] == 0;
	}
}

static void
w_set(uint64_t w[4], __int128 v)
{
	w[0] = (uint64_t)v;
	w[1] = (uint64_t)((u128)v >> 64);
	w[2] = w[3] = v < 0 ? UINT64_MAX : 0;
}

/* w += x; returns -1 when the sum does not fit (w is then garbage). */
static int
w_add(uint64_t w[4], const uint64_t x[4])
{
	int sw = w_isneg(w), sx = w_isneg(x), i;
	u128 c = 0;

	for (i = 0; i < 4; i++) {
		c += (u128)w[i] + x[i];
		w[i] = (uint64_t)c;
		c >>= 64;
	}
	return sw == sx && w_isneg(w) != sw ? -1 : 0;
}

static int
mag_zero(const uint64_t w[4])
{
	return (w[0] | w[1] | w[2] | w[3]) == 0;
}

/* w *= f; returns the carry out of the top word (nonzero: overflow). */
static uint64_t
mag_mul(uint64_t w[4], uint64_t f)
{
	u128 c = 0;
	int i;

	for (i = 0; i < 4; i++) {
		c += (u128)w[i] * f;
		w[i] = (uint64_t)c;
		c >>= 64;
	}
	return (uint64_t)c;
}

/* w /= d, d > 0; returns the remainder. */
static uint64_t
mag_div(uint64_t w[4], uint64_t d)
{
	u128 r = 0;
	int i;

	for (i = 3; i >= 0; i--) {
		r = r << 64 | w[i];
		w[i] = (uint64_t)(r / d);
		r %= d;
	}
	return (uint64_t)r;
}

/* Writes w (which it consumes) in decimal without leading zeros, nothing
 * for 0; returns the count, at most 78 (2^256 < 10^78). */
static size_t
mag_digits(uint64_t w[4], char *buf)
{
	uint64_t chunk[5];
	char *p = buf;
	int nc = 0;

	while (!mag_zero(w)) {
		if (w[1] == 0 && w[2] == 0 && w[3] == 0) {
			/* the common case, in 64 bits without a 128-bit
			 * division per word */
			chunk[nc++] = w[0] % P19;
			w[0] /= P19;
		} else
			chunk[nc++] = mag_div(w, P19);
	}
	if (nc == 0)
		return 0;
	p = num_put_uint(p, chunk[--nc], 0);
	while (nc > 0)
		p = num_put_uint(p, chunk[--nc], 19);
	return (size_t)(p - buf);
}

/* w *= 10^k, signed; returns -1 on overflow. */
static int
w_scale(uint64_t w[4], uint32_t k)
{
	int neg = w_isneg(w);
	uint32_t e;

	if (neg) {
		w_neg(w);
		if (w_isneg(w))		/* -2^255 has no positive twin */
			return -1;
	}
	for (; k > 0; k -= e) {
		e = k > 19 ? 19 : k;
		if (mag_mul(w, pow10_64[e]) != 0 || w_isneg(w))
			return -1;
	}
	if (neg)
		w_neg(w);
	return 0;
}

/* Brings s->w and x (at scale xs) to the larger of the two scales;
 * returns -1 on overflow. */
static int
align(struct dec_sum *s, uint64_t x[4], uint32_t xs)
{
	if (xs > s->scale) {
		if (w_scale(s->w, xs - s->scale) != 0)
			return -1;
		s->scale = xs;
	} else if (xs < s->scale)
		return w_scale(x, s->scale - xs);
	return 0;
}

/* Anything dec_parse()'s one-pass common case does not take: long
 * mantissas, leading or trailing zeros past 19 digits, and every text
 * that is not plain decimal at all. */
static int
parse_slow(const char *p, size_t n, struct dec *out)
{
	size_t i = 0, ib, ie, fb, fe, first, sig, j;
	u128 m = 0;
	int neg = 0;

	if (i < n && (p[i] == '-' || p[i] == '+')) {
		neg = p[i] == '-';
		i++;
	}
	for (ib = i; i < n && isdig(p[i]); i++)
		;
	ie = fb = fe = i;
	if (i < n && p[i] == '.') {
		for (fb = ++i; i < n && isdig(p[i]); i++)
			;
		fe = i;
	}
	if (i != n || (ie - ib) + (fe - fb) == 0)
		return -1;	/* an exponent, or not a number */

	for (first = ib; first < ie && p[first] == '0'; first++)
		;
	if (first == ie)
		for (first = fb; first < fe && p[first] == '0'; first++)
			;
	/* Trailing zeros after the point change nothing but the scale:
	 * drop them where the value would not fit otherwise. */
	for (;;) {
		if (first < ie)
			sig = (ie - first) + (fe - fb);
		else
			sig = fe > first ? fe - first : 0;
		if ((fe - fb <= DEC_DIGITS && sig <= DEC_DIGITS) ||
		    fe == fb || p[fe - 1] != '0')
			break;
		fe--;
	}
	if (fe - fb > DEC_DIGITS || sig > DEC_DIGITS)
		return -1;
	for (j = first; j < fe; j++)
		if (p[j] != '.')
			m = m * 10 + (unsigned)(p[j] - '0');
	out->m = neg ? -(__int128)m : (__int128)m;
	out->scale = (uint32_t)(fe - fb);
	return 0;
}

int
dec_parse(const char *p, size_t n, struct dec *out)
{
	size_t i = 0, k, f, r;
	uint64_t u, v;
	int neg = 0;

	/* The common case, up to 19 digits in all, in one pass and eight
	 * digits at a time: this runs per record. */
	if (n > 0 && (p[0] == '-' || p[0] == '+')) {
		neg = p[0] == '-';
		i = 1;
	}
	k = num_digits(p + i, n - i < 19 ? n - i : 19, &u);
	if (i + k == n && k > 0) {
		out->m = neg ? -(__int128)u : (__int128)u;
		out->scale = 0;
		return 0;
	}
	if (i + k < n && p[i + k] == '.') {
		r = n - (i + k + 1);
		f = num_digits(p + i + k + 1, r < 19 - k ? r : 19 - k, &v);
		if (f == r && k + f > 0) {
			u = u * pow10_64[f] + v;	/* < 10^19 */
			out->m = neg ? -(__int128)u : (__int128)u;
			out->scale = (uint32_t)f;
			return 0;
		}
	}
	return parse_slow(p, n, out);
}

double
dec_to_double(const struct dec *v)
{
	/* Powers of ten that are exact doubles. */
	static const double p10[23] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
		1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
		1e21, 1e22,
	};
	u128 u = v->m < 0 ? -(u128)v->m : (u128)v->m;
	char buf[64], *p = buf;
	double d;
	int saved;

	/* Clinger's fast path: both operands exact, so the one IEEE
	 * division is correctly rounded, as strtod(3) would be. */
	if (u < (u128)1 << 53 && v->scale <= 22) {
		d = (double)(uint64_t)u / p10[v->scale];
		return v->m < 0 ? -d : d;
	}
	if (v->m < 0)
		*p++ = '-';
	if (u >= P19) {		/* u < 10^38: two words of 19 digits */
		p = num_put_uint(p, (uint64_t)(u / P19), 0);
		p = num_put_uint(p, (uint64_t)(u % P19), 19);
	} else
		p = num_put_uint(p, (uint64_t)u, 0);
	*p++ = 'e';
	*p++ = '-';
	p = num_put_uint(p, v->scale, 0);
	*p = '\0';
	saved = errno;
	d = strtod(buf, NULL);
	errno = saved;
	return d;
}

void
dec_sum_add(struct dec_sum *s, const struct dec *v, double d)
{
	uint64_t x[4];

	s->n++;
	s->fsum += d;
	if (s->inexact)
		return;
	if (v->scale < s->scale && s->scale - v->scale <= 19 &&
	    v->m < (__int128)1 << 63 && v->m > -((__int128)1 << 63)) {
		/* The common rescale, "17" into a sum of cents, in 128
		 * bits: 2^63 * 10^19 < 2^127. */
		w_set(x, v->m * (__int128)pow10_64[s->scale - v->scale]);
	} else {
		w_set(x, v->m);
		if (v->scale != s->scale && align(s, x, v->scale) != 0) {
			s->inexact = 1;
			return;
		}
	}
	if (w_add(s->w, x) != 0)
		s->inexact = 1;
}

void
dec_sum_add_double(struct dec_sum *s, double d)
{
	s->n++;
	s->fsum += d;
	s->inexact = 1;
}

void
dec_sum_merge(struct dec_sum *dst, const struct dec_sum *src)
{
	uint64_t x[4];

	dst->n += src->n;
	dst->fsum += src->fsum;
	if (dst->inexact || src->inexact) {
		dst->inexact = 1;
		return;
	}
	memcpy(x, src->w, sizeof(x));
	if (align(dst, x, src->scale) != 0 || w_add(dst->w, x) != 0)
		dst->inexact = 1;
}

/*
 * The exact sum as its digits without leading zeros (none for 0, no
 * NUL; dig has 80 bytes), its sign and its places, trailing zeros after
 * the point dropped. Returns -1 when the sum is not exact.
 */
static int
sum_digits(const struct dec_sum *s, char *dig, size_t *nd, int *neg,
    uint32_t *scale)
{
	uint64_t w[4];
	uint32_t sc = s->scale;
	size_t k;

	if (s->inexact)
		return -1;
	memcpy(w, s->w, sizeof(w));
	*neg = w_isneg(w);
	if (*neg) {
		w_neg(w);
		if (w_isneg(w))
			return -1;
	}
	k = mag_digits(w, dig);
	while (sc > 0 && k > 0 && dig[k - 1] == '0') {
		k--;
		sc--;
	}
	if (k > DEC_DIGITS)
		return -1;
	if (k == 0) {
		*neg = 0;
		sc = 0;
	}
	*nd = k;
	*scale = sc;
	return 0;
}

int
dec_sum_exact(const struct dec_sum *s)
{
	/* 10^38: a magnitude below it has at most 38 digits */
	const unsigned __int128 lim = (unsigned __int128)0x4b3b4ca85a86c47aULL
	    << 64 | 0x098a224000000000ULL;
	unsigned __int128 v = (unsigned __int128)s->w[1] << 64 | s->w[0];
	char dig[80];
	size_t k;
	uint32_t sc;
	int neg;

	if (s->inexact)
		return 0;
	/* (the common case without writing the digits: per row fired) */
	if (s->w[3] == 0 && s->w[2] == 0 && v < lim)
		return 1;
	if (s->w[3] == UINT64_MAX && s->w[2] == UINT64_MAX && v >> 127 &&
	    -v < lim)
		return 1;
	return sum_digits(s, dig, &k, &neg, &sc) == 0;
}

size_t
dec_sum_format(char *buf, const struct dec_sum *s)
{
	char dig[80], *p = buf;
	size_t k;
	uint32_t sc;
	double d;
	int neg;

	if (sum_digits(s, dig, &k, &neg, &sc) != 0) {
		d = s->fsum;
		if (d == 0)
			d = 0;		/* -0 is written 0, as exact sums are */
		return num_format_double(buf, d);
	}
	if (neg)
		*p++ = '-';
	if (k == 0)
		*p++ = '0';
	else if (k <= sc) {
		*p++ = '0';
		*p++ = '.';
		memset(p, '0', sc - k);
		p += sc - k;
		memcpy(p, dig, k);
		p += k;
	} else {
		memcpy(p, dig, k - sc);
		p += k - sc;
		if (sc > 0) {
			*p++ = '.';
			memcpy(p, dig + k - sc, sc);
			p += sc;
		}
	}
	*p = '\0';
	return (size_t)(p - buf);
}

/* Digits in v, 1 <= v < 10^19. */
static size_t
ndigits(uint64_t v)
{
	size_t k = 1;

	while (k < 19 && v >= pow10_64[k])
		k++;
	return k;
}

double
dec_sum_avg(const struct dec_sum *s)
{
	/* sign, 78 integer digits, point, 8 words of 19 places, exponent */
	char buf[1 + 78 + 1 + 8 * 19 + 8], *p = buf;
	uint64_t w[4], r, q;
	size_t sig;
	double d;
	int saved;
	u128 x;

	if (!dec_sum_exact(s)) {
		d = s->fsum / (double)s->n;
		return d == 0 ? 0 : d;		/* never -0, as the sum */
	}
	memcpy(w, s->w, sizeof(w));
	if (mag_zero(w))
		return 0;
	if (w_isneg(w)) {
		*p++ = '-';
		w_neg(w);
	}
	/* The common case, once per row: |sum| and 10^scale * n below
	 * 2^53 are exact doubles, and one IEEE division of exact operands
	 * is correctly rounded. */
	if (w[1] == 0 && w[2] == 0 && w[3] == 0 && w[0] < (uint64_t)1 << 53 &&
	    s->scale < 20 && s->n < (uint64_t)1 << 53 &&
	    (u128)s->n * pow10_64[s->scale] < (u128)1 << 53) {
		d = (double)w[0] / (double)(s->n * pow10_64[s->scale]);
		return p != buf ? -d : d;	/* p passed a '-' */
	}
	r = mag_div(w, s->n);
	sig = mag_digits(w, p);
	p += sig;
	if (sig == 0)
		*p++ = '0';
	*p++ = '.';
	/* The quotient's places, 19 at a time, by long division: r < n, so
	 * r * 10^19 fits in 128 bits. A zero integer part leaves at most
	 * 19 zeros after the point (|w| >= 1, n < 2^64), so 8 words reach
	 * AVG_DIGITS. */
	while (r != 0 && sig < AVG_DIGITS) {
		x = (u128)r * P19;
		q = (uint64_t)(x / s->n);
		r = (uint64_t)(x % s->n);
		p = num_put_uint(p, q, 19);
		if (sig > 0)
			sig += 19;
		else if (q != 0)
			sig = ndigits(q);
	}
	*p++ = 'e';
	*p++ = '-';
	p = num_put_uint(p, s->scale, 0);
	*p = '\0';
	saved = errno;
	d = strtod(buf, NULL);
	errno = saved;
	return d;
}
