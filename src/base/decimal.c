/*
 * decimal: exact sums in scaled integers.
 *
 * A value written "2.50" is the integer 250 at scale 2, "6.02e23" the
 * integer 602 at scale -21. A sum keeps one integer at the largest scale
 * it has seen; adding a value of another scale multiplies the
 * smaller-scale side by a power of ten first. The integer is 320 bits
 * wide: plain values have at most 38 digits and 38 places, so each term,
 * rescaled, is below 10^76 < 2^253, and fewer than 2^64 of them, in any
 * order, never reach 2^317: a sum of plain decimals always fits.
 * Values with exponents far apart may not; then the add or merge says
 * so, changing nothing, and bigsum.c carries the sum in GMP's integers.
 * Either way the sum is exact, so its bytes follow from its values
 * alone: never from the order in which slices were merged.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/decimal.h"
#include "base/num.h"

typedef unsigned __int128 u128;

#define P19	10000000000000000000ULL	/* 10^19, the largest in 64 bits */

/*
 * Significant digits of the quotient dec_sum_avg() hands to strtod(3).
 * The mean is q = M / D with D = 10^scale * n < 10^38 * 2^64 and
 * |M| < 2^320. If q is halfway between two doubles, q = odd * 2^e with
 * 2^-e dividing D, so -e <= 38 + 64 and q's expansion ends within 102
 * places: about 88 significant digits, fewer than this, and the text is
 * exact. Otherwise q is away from every halfway point h by at least
 * |M - h * D| / D: at least 1 / D when h is an integer (a part of q no
 * smaller than 1 / M), else 2^(e - 53) / D (no smaller than 2^-54 / D,
 * 10^-74, of q). M < 10^97: the text, truncated at 110 digits, is
 * within 10^-109 of q, so on the same side of every halfway point, and
 * strtod(3), correctly rounded, gives q's double.
 */
#define AVG_DIGITS	110

static int
isdig(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * 320-bit two's complement words, w[0] lowest. Magnitudes (mag_*) are
 * the same words taken as unsigned.
 */
#define W	DEC_WORDS

static int
w_isneg(const uint64_t w[W])
{
	return (int)(w[W - 1] >> 63);
}

static void
w_neg(uint64_t w[W])
{
	uint64_t c = 1;
	int i;

	for (i = 0; i < W; i++) {
		w[i] = ~w[i] + c;
		c = c && w[i] == 0;
	}
}

static void
w_set(uint64_t w[W], __int128 v)
{
	int i;

	w[0] = (uint64_t)v;
	w[1] = (uint64_t)((u128)v >> 64);
	for (i = 2; i < W; i++)
		w[i] = v < 0 ? UINT64_MAX : 0;
}

/* w += x, modulo 2^320; returns -1 when the true sum does not fit. */
static int
w_add(uint64_t w[W], const uint64_t x[W])
{
	int sw = w_isneg(w), sx = w_isneg(x), i;
	u128 c = 0;

	for (i = 0; i < W; i++) {
		c += (u128)w[i] + x[i];
		w[i] = (uint64_t)c;
		c >>= 64;
	}
	return sw == sx && w_isneg(w) != sw ? -1 : 0;
}

/* w -= x, modulo 2^320: undoes a w_add() that did not fit. */
static void
w_sub(uint64_t w[W], const uint64_t x[W])
{
	uint64_t y[W];

	memcpy(y, x, sizeof(y));
	w_neg(y);
	(void)w_add(w, y);
}

/* w += v, sign-extended: the common add, a plain value at the sum's
 * scale, without building a 320-bit operand. -1 as w_add(). */
static int
w_add128(uint64_t w[W], __int128 v)
{
	uint64_t ext = v < 0 ? UINT64_MAX : 0;
	int sw = w_isneg(w), i;
	u128 c;

	c = (u128)w[0] + (uint64_t)v;
	w[0] = (uint64_t)c;
	c = (c >> 64) + w[1] + (uint64_t)((u128)v >> 64);
	w[1] = (uint64_t)c;
	c >>= 64;
	for (i = 2; i < W; i++) {
		c += (u128)w[i] + ext;
		w[i] = (uint64_t)c;
		c >>= 64;
	}
	return sw == (v < 0) && w_isneg(w) != sw ? -1 : 0;
}

static int
mag_zero(const uint64_t w[W])
{
	uint64_t o = 0;
	int i;

	for (i = 0; i < W; i++)
		o |= w[i];
	return o == 0;
}

/* w *= f; returns the carry out of the top word (nonzero: overflow). */
static uint64_t
mag_mul(uint64_t w[W], uint64_t f)
{
	u128 c = 0;
	int i;

	for (i = 0; i < W; i++) {
		c += (u128)w[i] * f;
		w[i] = (uint64_t)c;
		c >>= 64;
	}
	return (uint64_t)c;
}

/* w /= d, d > 0; returns the remainder. */
static uint64_t
mag_div(uint64_t w[W], uint64_t d)
{
	u128 r = 0;
	int i;

	for (i = W - 1; i >= 0; i--) {
		r = r << 64 | w[i];
		w[i] = (uint64_t)(r / d);
		r %= d;
	}
	return (uint64_t)r;
}

/* Whether only w[0] is set. */
static int
mag_small(const uint64_t w[W])
{
	uint64_t o = 0;
	int i;

	for (i = 1; i < W; i++)
		o |= w[i];
	return o == 0;
}

/* Writes w (which it consumes) in decimal without leading zeros, nothing
 * for 0; returns the count, at most 97 (2^320 < 10^97). */
static size_t
mag_digits(uint64_t w[W], char *buf)
{
	uint64_t chunk[6];
	char *p = buf;
	int nc = 0;

	while (!mag_zero(w)) {
		if (mag_small(w)) {
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

/* w *= 10^k, signed; returns -1 on overflow (w is then garbage). */
static int
w_scale(uint64_t w[W], uint32_t k)
{
	int neg = w_isneg(w);
	uint32_t e;

	if (neg) {
		w_neg(w);
		if (w_isneg(w))		/* -2^319 has no positive twin */
			return -1;
	}
	for (; k > 0; k -= e) {
		e = k > 19 ? 19 : k;
		if (mag_mul(w, num_pow10[e]) != 0 || w_isneg(w))
			return -1;
	}
	if (neg)
		w_neg(w);
	return 0;
}

/* Brings w (at scale *ws) and x (at scale xs) to the larger of the two
 * scales; returns -1 on overflow (both are then garbage). */
static int
align(uint64_t w[W], int32_t *ws, uint64_t x[W], int32_t xs)
{
	if (xs > *ws) {
		if ((int64_t)xs - *ws > 400 || w_scale(w, (uint32_t)(xs -
		    *ws)) != 0)
			return -1;
		*ws = xs;
	} else if (xs < *ws)
		return (int64_t)*ws - xs > 400 ? -1 :
		    w_scale(x, (uint32_t)(*ws - xs));
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
	out->scale = (int32_t)(fe - fb);
	out->exp = 0;
	return 0;
}

int
dec_parse_any(const char *p, size_t n, struct dec *out)
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
		out->exp = 0;
		return 0;
	}
	if (i + k < n && p[i + k] == '.') {
		r = n - (i + k + 1);
		f = num_digits(p + i + k + 1, r < 19 - k ? r : 19 - k, &v);
		if (f == r && k + f > 0) {
			u = u * num_pow10[f] + v;	/* < 10^19 */
			out->m = neg ? -(__int128)u : (__int128)u;
			out->scale = (int32_t)f;
			out->exp = 0;
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
	if (u < (u128)1 << 53 && v->scale >= 0 && v->scale <= 22) {
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
	*p++ = v->scale > 0 ? '-' : '+';
	p = num_put_uint(p, (uint64_t)(v->scale > 0 ? (int64_t)v->scale :
	    -(int64_t)v->scale), 0);
	*p = '\0';
	saved = errno;
	d = strtod(buf, NULL);
	errno = saved;
	return d;
}

/*
 * A number with an exponent: digits with an optional point, 'e' or 'E',
 * a signed exponent. Its significant digits (leading zeros and trailing
 * zeros of the mantissa dropped, into the scale) must be at most 38.
 */
int
dec_read(const char *p, size_t n, struct dec *out)
{
	return dec_parse(p, n, out) == 0 ? 0 : dec_read_exp(p, n, out);
}

int64_t
dec_exponent(const char *p, size_t n, size_t *used)
{
	size_t i = 0, d;
	int64_t e = 0;
	int neg = 0;

	if (i < n && (p[i] == '-' || p[i] == '+'))
		neg = p[i++] == '-';
	for (d = i; i < n && isdig(p[i]); i++)
		if (e < 100000)
			e = e * 10 + (p[i] - '0');
	*used = i > d ? i : 0;
	return neg ? -e : e;
}

int
dec_read_exp(const char *p, size_t n, struct dec *out)
{
	size_t i = 0, ms, me, dot = (size_t)-1, first, last, j, used;
	int64_t e, scale;
	int neg = 0;
	u128 m = 0;

	if (n > 4096)
		return -1;	/* (num_parse() refuses longer text) */
	if (i < n && (p[i] == '-' || p[i] == '+'))
		neg = p[i++] == '-';
	for (ms = i; i < n && (isdig(p[i]) || (p[i] == '.' &&
	    dot == (size_t)-1)); i++)
		if (p[i] == '.')
			dot = i;
	me = i;
	if (i == n || (p[i] != 'e' && p[i] != 'E') ||
	    me - ms - (dot != (size_t)-1) == 0)
		return -1;
	e = dec_exponent(p + i + 1, n - i - 1, &used);
	if (used == 0 || i + 1 + used != n)
		return -1;
	if (dot == (size_t)-1)
		dot = me;
	for (first = ms; first < me && (p[first] == '0' || p[first] == '.');
	    first++)
		;
	for (last = me; last > first && (p[last - 1] == '0' ||
	    p[last - 1] == '.'); last--)
		;
	/* the value is digits [first, last) with places counted from dot */
	scale = (int64_t)(last > dot ? last - dot - 1 : 0) -
	    (int64_t)(last < dot ? dot - last : 0);
	scale -= e;
	if (first == last)
		scale = 0;		/* zero */
	if (last - first - (first < dot && dot < last) > DEC_DIGITS ||
	    scale > DEC_MAXSCALE || scale < DEC_MINSCALE)
		return -1;
	for (j = first; j < last; j++)
		if (p[j] != '.')
			m = m * 10 + (unsigned)(p[j] - '0');
	out->m = neg ? -(__int128)m : (__int128)m;
	out->scale = (int32_t)scale;
	out->exp = 1;
	return 0;
}

/* m * 10^k as a 320-bit integer, k <= 19 and |m| < 2^63 the quick way. */
static int
w_scaled(uint64_t x[W], __int128 m, uint32_t k)
{
	if (k <= 19 && m < (__int128)1 << 63 && m > -((__int128)1 << 63)) {
		w_set(x, m * (__int128)num_pow10[k]);	/* < 2^127 */
		return 0;
	}
	w_set(x, m);
	return w_scale(x, k);
}

int
dec_sum_add_any(struct dec_sum *s, const struct dec *v)
{
	uint64_t x[W], w[W];
	int32_t sc;

	if (s->big != 0)
		return -1;
	if (v->scale == s->scale) {
		/* the common case: a plain value at the sum's scale */
		if (w_add128(s->w, v->m) != 0) {
			w_set(x, v->m);
			w_sub(s->w, x);
			return -1;
		}
	} else if (v->scale < s->scale) {
		if ((int64_t)s->scale - v->scale > 400 ||
		    w_scaled(x, v->m, (uint32_t)(s->scale - v->scale)) != 0)
			return -1;
		if (w_add(s->w, x) != 0) {
			w_sub(s->w, x);
			return -1;
		}
	} else if (mag_zero(s->w)) {
		/* nothing to rescale: the sum takes the value's scale */
		w_set(s->w, v->m);
		s->scale = v->scale;
	} else {
		/* a larger scale: the sum is rescaled, in a copy, as it
		 * may not fit */
		memcpy(w, s->w, sizeof(w));
		sc = s->scale;
		w_set(x, v->m);
		if (align(w, &sc, x, v->scale) != 0 || w_add(w, x) != 0)
			return -1;
		memcpy(s->w, w, sizeof(w));
		s->scale = sc;
	}
	s->n++;
	s->flags |= v->exp ? DS_EXP : 0;
	return 0;
}

int
dec_sum_add_double(struct dec_sum *s, double d)
{
	uint64_t x[W], w[W];
	int32_t sc = s->scale;
	uint64_t mant;
	int e, neg = d < 0;

	if (s->big != 0 || !isfinite(d))
		return -1;
	if (d != 0) {
		/* d = mant * 2^e, mant odd: mant * 5^-e at scale -e when
		 * e < 0, else mant << e at scale 0 */
		d = frexp(fabs(d), &e);
		mant = (uint64_t)ldexp(d, 53);
		e -= 53;
		while ((mant & 1) == 0) {
			mant >>= 1;
			e++;
		}
		w_set(x, (__int128)mant);
		if (e >= 0) {
			if (e > 318 - 53)
				return -1;
			for (; e > 0; e--)
				if (mag_mul(x, 2) != 0 || w_isneg(x))
					return -1;
			e = 0;
		} else
			for (int k = 0; k < -e; k++)
				if (mag_mul(x, 5) != 0 || w_isneg(x))
					return -1;
		if (neg)
			w_neg(x);
		memcpy(w, s->w, sizeof(w));
		if (align(w, &sc, x, -e) != 0 || w_add(w, x) != 0)
			return -1;
		memcpy(s->w, w, sizeof(w));
		s->scale = sc;
	}
	s->n++;
	s->flags |= DS_EXP;
	return 0;
}

int
dec_sum_merge(struct dec_sum *dst, const struct dec_sum *src)
{
	uint64_t x[W], w[W];
	int32_t sc = dst->scale;

	if (dst->big != 0 || src->big != 0)
		return -1;
	if (mag_zero(src->w)) {
		/* (its scale is of no matter: zero is zero) */
	} else if (mag_zero(dst->w)) {
		memcpy(dst->w, src->w, sizeof(dst->w));
		dst->scale = src->scale;
	} else {
		memcpy(w, dst->w, sizeof(w));
		memcpy(x, src->w, sizeof(x));
		if (align(w, &sc, x, src->scale) != 0 || w_add(w, x) != 0)
			return -1;
		memcpy(dst->w, w, sizeof(w));
		dst->scale = sc;
	}
	dst->n += src->n;
	dst->flags |= src->flags;
	return 0;
}

int
dec_sum_unmerge(struct dec_sum *dst, const struct dec_sum *src)
{
	if (dst->flags != 0 || src->flags != 0)
		return -1;
	return dec_sum_sub(dst, src);
}

int
dec_sum_sub(struct dec_sum *dst, const struct dec_sum *src)
{
	uint64_t x[W], w[W];
	int32_t sc = dst->scale;

	if (dst->big != 0 || src->big != 0 || src->n > dst->n)
		return -1;
	if (!mag_zero(src->w)) {
		memcpy(w, dst->w, sizeof(w));
		memcpy(x, src->w, sizeof(x));
		w_neg(x);	/* (-2^319 has no negation: refused) */
		if (w_isneg(x) == w_isneg(src->w) ||
		    align(w, &sc, x, src->scale) != 0 || w_add(w, x) != 0)
			return -1;
		memcpy(dst->w, w, sizeof(w));
		dst->scale = sc;
	}
	dst->n -= src->n;
	return 0;
}

int
dec_sum_zero(const struct dec_sum *s)
{
	return mag_zero(s->w);
}

int
dec_sum_exact(const struct dec_sum *s)
{
	return !(s->flags & DS_EXP);
}

/*
 * The sum's integer as its digits without leading zeros (none for 0, no
 * NUL; dig has 100 bytes) and its sign.
 */
static size_t
sum_digits(const struct dec_sum *s, char *dig, int *neg)
{
	uint64_t w[W];

	memcpy(w, s->w, sizeof(w));
	*neg = w_isneg(w);
	if (*neg)
		w_neg(w);	/* (-2^319: its magnitude, taken unsigned) */
	return mag_digits(w, dig);
}

size_t
dec_layout(char *buf, const char *dig, size_t k, int neg, int32_t sc)
{
	char *p = buf;

	while (sc > 0 && k > 0 && dig[k - 1] == '0') {
		k--;
		sc--;
	}
	if (k == 0) {
		neg = 0;
		sc = 0;
	}
	if (neg)
		*p++ = '-';
	if (k == 0)
		*p++ = '0';
	else if (k <= (size_t)sc) {
		*p++ = '0';
		*p++ = '.';
		memset(p, '0', (size_t)sc - k);
		p += (size_t)sc - k;
		memcpy(p, dig, k);
		p += k;
	} else {
		memcpy(p, dig, k - (size_t)sc);
		p += k - (size_t)sc;
		if (sc > 0) {
			*p++ = '.';
			memcpy(p, dig + k - (size_t)sc, (size_t)sc);
			p += sc;
		}
	}
	*p = '\0';
	return (size_t)(p - buf);
}

int
dec_sum_int(const struct dec_sum *s, int64_t *v)
{
	uint64_t ext = (uint64_t)0 - (s->w[0] >> 63);	/* its sign, extended */
	size_t i;

	/* the upper words only its sign */
	for (i = 1; s->scale == 0 && i < W && s->w[i] == ext; i++)
		;
	*v = (int64_t)s->w[0];
	return i == W;
}

size_t
dec_sum_format(char *buf, const struct dec_sum *s)
{
	char dig[100];
	int64_t v;
	size_t k;
	int neg;

	if (dec_sum_int(s, &v))
		return num_format_int(buf, v);
	k = sum_digits(s, dig, &neg);
	return dec_layout(buf, dig, k, neg, s->scale);	/* scale 0 to 38 */
}

size_t
dec_sum_text(char *buf, const struct dec_sum *s)
{
	char *p = buf;
	size_t k;
	int neg;

	k = sum_digits(s, p + 1, &neg);
	if (neg)
		*p++ = '-';
	else
		memmove(p, p + 1, k);
	if (k == 0)
		p[k++] = '0';
	p += k;
	*p++ = 'e';
	p += sprintf(p, "%d", -(int)s->scale);
	return (size_t)(p - buf);
}

double
dec_text_double(const char *text)
{
	int saved = errno;
	double d = strtod(text, NULL);

	errno = saved;
	return d == 0 ? 0 : d;		/* never -0 */
}

/* Digits in v, 1 <= v < 10^19. */
static size_t
ndigits(uint64_t v)
{
	size_t k = 1;

	while (k < 19 && v >= num_pow10[k])
		k++;
	return k;
}

int
dec_sum_avg(const struct dec_sum *s, double *d)
{
	/* sign, 97 integer digits, point, 8 words of 19 places, exponent */
	char buf[1 + 97 + 1 + 8 * 19 + 8], *p = buf;
	uint64_t w[W], r, q;
	size_t sig;
	u128 x;

	if (s->big != 0 || s->scale < 0 || s->scale > DEC_DIGITS)
		return -1;
	memcpy(w, s->w, sizeof(w));
	if (mag_zero(w)) {
		*d = 0;
		return 0;
	}
	if (w_isneg(w)) {
		*p++ = '-';
		w_neg(w);
	}
	/* The common case, once per row: |sum| and 10^scale * n below
	 * 2^53 are exact doubles, and one IEEE division of exact operands
	 * is correctly rounded. */
	if (mag_small(w) && w[0] < (uint64_t)1 << 53 &&
	    s->scale < 20 && s->n < (uint64_t)1 << 53 &&
	    (u128)s->n * num_pow10[s->scale] < (u128)1 << 53) {
		*d = (double)w[0] / (double)(s->n * num_pow10[s->scale]);
		if (p != buf)		/* p passed a '-' */
			*d = -*d;
		return 0;
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
	p = num_put_uint(p, (uint64_t)s->scale, 0);
	*p = '\0';
	*d = dec_text_double(buf);
	return 0;
}
