/*
 * num: parse and print the numbers of aggregates.
 *
 * The syntax is checked by hand, strictly, before any libc conversion, so
 * that strtod(3)'s extras (leading blanks, hex, inf, nan) never get in.
 * Integers are read exactly here; anything else goes to strtod(3) for a
 * correctly rounded double. fwin runs in the C locale, so '.' is the
 * radix character strtod expects.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>

#include "base/num.h"
#include "base/util.h"

/*
 * Longest non-integer text num_parse() reads. strtod(3) wants a
 * NUL-terminated string and the text is a slice of the read buffer, so it
 * is copied to the stack; 4096 bytes is far beyond any real number (the
 * longest exact double has 767 significant digits) and keeps the copy
 * bounded. Longer text is refused as not a number.
 */
#define NUM_MAXLEN	4096

static int
isdig(char c)
{
	return c >= '0' && c <= '9';
}

/* The integer [+-]digits in p[0..n) if it fits in int64; else -1. */
static int
parse_int(const char *p, size_t n, int64_t *v)
{
	uint64_t x = 0, max = INT64_MAX;
	size_t i = 0;
	unsigned dg;
	int neg = 0;

	if (p[0] == '-' || p[0] == '+') {
		neg = p[0] == '-';
		i = 1;
	}
	if (neg)
		max = (uint64_t)INT64_MAX + 1;
	for (; i < n; i++) {
		dg = p[i] - '0';
		if (x > (max - dg) / 10)
			return -1;
		x = x * 10 + dg;
	}
	/* Negate as unsigned magnitude: -(2^63) has no positive twin. */
	if (neg && x != 0)
		*v = -(int64_t)(x - 1) - 1;
	else
		*v = (int64_t)x;
	return 0;
}

int
num_parse_any(const char *p, size_t n, struct num *out)
{
	char buf[NUM_MAXLEN + 1];
	size_t i = 0, ndig = 0;
	int64_t v;
	double d;
	int digits_only, saved;
	uint64_t u;

	/* The common case, a short integer, in one pass (18 digits fit). */
	if (n > 0 && n <= 18) {
		i = p[0] == '-' || p[0] == '+';
		i += num_digits(p + i, n - i, &u);
		if (i == n && n > (size_t)(p[0] == '-' || p[0] == '+')) {
			out->i = p[0] == '-' ? -(int64_t)u : (int64_t)u;
			out->d = (double)out->i;
			out->is_int = 1;
			return 0;
		}
		i = 0;
	}
	if (i < n && (p[i] == '-' || p[i] == '+'))
		i++;
	for (; i < n && isdig(p[i]); i++)
		ndig++;
	digits_only = i == n && ndig > 0;
	if (i < n && p[i] == '.')
		for (i++; i < n && isdig(p[i]); i++)
			ndig++;
	if (ndig == 0)
		return -1;
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '-' || p[i] == '+'))
			i++;
		if (i == n || !isdig(p[i]))
			return -1;
		while (i < n && isdig(p[i]))
			i++;
	}
	if (i != n)
		return -1;

	if (digits_only && parse_int(p, n, &v) == 0) {
		out->d = (double)v;
		out->i = v;
		out->is_int = 1;
		return 0;
	}

	if (n > NUM_MAXLEN)
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	/* strtod sets ERANGE on overflow and on mere underflow; the caller's
	 * errno is none of its business. Underflow gives the correctly
	 * rounded tiny value or 0, which is the number; overflow is not. */
	saved = errno;
	d = strtod(buf, NULL);
	errno = saved;
	if (isinf(d))
		return NUM_RANGE;
	out->d = d;
	out->i = 0;
	out->is_int = 0;
	return 0;
}

/*
 * Comparing numbers exactly: a number's text as digits d1 d2 ... (the
 * integer's then the fraction's, past the leading zeros) and the power
 * of ten of the first, so that its magnitude is 0.d1 d2 ... 10^pos. Two
 * numbers of the same sign compare by pos, then digit by digit, the
 * shorter taken with zeros after it. Linear in the text, and nothing is
 * allocated: it runs on ties of doubles, which may come per record.
 */

#define EXP_CAP	INT64_C(100000000000000000)	/* 10^17 */

struct numtext {
	const char *ip, *fp;	/* the integer's digits, the fraction's */
	size_t in, fn;
	size_t lead;		/* zeros before the first other digit */
	int64_t pos;
	int sign;		/* -1, 0 (the value is zero) or 1 */
};

static char
numtext_digit(const struct numtext *t, size_t k)
{
	return k < t->in ? t->ip[k] : t->fp[k - t->in];
}

static void
numtext_read(const char *p, size_t n, struct numtext *t)
{
	size_t i = 0;
	int64_t e = 0;
	int neg = 0, eneg = 0;

	if (i < n && (p[i] == '-' || p[i] == '+'))
		neg = p[i++] == '-';
	t->ip = p + i;
	for (; i < n && isdig(p[i]); i++)
		;
	t->in = (size_t)(p + i - t->ip);
	t->fp = p + i;
	t->fn = 0;
	if (i < n && p[i] == '.') {
		t->fp = p + ++i;
		for (; i < n && isdig(p[i]); i++)
			;
		t->fn = (size_t)(p + i - t->fp);
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		if (++i < n && (p[i] == '-' || p[i] == '+'))
			eneg = p[i++] == '-';
		for (; i < n && isdig(p[i]); i++)
			if (e < EXP_CAP)
				e = e * 10 + (p[i] - '0');
		if (e > EXP_CAP)
			e = EXP_CAP;
	}
	for (t->lead = 0; t->lead < t->in + t->fn &&
	    numtext_digit(t, t->lead) == '0'; t->lead++)
		;
	t->sign = t->lead == t->in + t->fn ? 0 : neg ? -1 : 1;
	t->pos = (int64_t)t->in - (int64_t)t->lead + (eneg ? -e : e);
}

int
num_cmp_exact(const char *p, size_t n, const char *q, size_t m)
{
	struct numtext a, b;
	size_t ka, kb, na, nb;
	char da, db;

	if (n == m && memcmp(p, q, n) == 0)	/* (the commonest tie) */
		return 0;
	numtext_read(p, n, &a);
	numtext_read(q, m, &b);
	if (a.sign != b.sign)
		return a.sign < b.sign ? -1 : 1;
	if (a.sign == 0)
		return 0;
	if (a.pos != b.pos)
		return a.pos < b.pos ? -a.sign : a.sign;
	na = a.in + a.fn;
	nb = b.in + b.fn;
	for (ka = a.lead, kb = b.lead; ka < na || kb < nb; ka++, kb++) {
		da = ka < na ? numtext_digit(&a, ka) : '0';
		db = kb < nb ? numtext_digit(&b, kb) : '0';
		if (da != db)
			return da < db ? -a.sign : a.sign;
	}
	return 0;
}

/*
 * Printing a double: the fewest significant digits that read back as it
 * and, where several such strings do, the one nearest it (ties to even):
 * Python's repr() digits.
 *
 * They come from Schubfach (Raffaello Giulietti, "The Schubfach way to
 * render doubles", 2020, which Java's Double.toString follows since JDK
 * 19), written afresh here. A finite d = c 2^q reads back from any
 * decimal in its rounding interval: halfway to each neighbour, the ends
 * included when c is even (strtod(3) rounds ties to even), the half below
 * only half as wide when d is a power of two whose neighbour below is in
 * the binade below. With 10^k the power of ten just below the interval's
 * width (k = floor(log10 2^q), or of 3/4 2^q at such a power of two), at
 * most one multiple of 10^(k+1) lies in the interval, so the candidates
 * are the multiples of 10^(k+1) just below and above d, then the
 * multiples s 10^k and (s + 1) 10^k around it: the first of those pairs
 * with exactly one member in the interval gives the digits, and when both
 * of the second pair are in it, the one nearer d. A shorter string in the
 * interval is a multiple of 10^(k+1), which these find with its trailing
 * zeros. Deciding needs 4d / 10^k and the interval's ends on the same
 * scale, each from one 64 x 126-bit multiplication by g(k), 10^-k scaled
 * to [2^125, 2^126) and rounded up, the product rounded to odd: the paper
 * shows that these decide every comparison as the exact values would. (Java
 * tries the multiples of 10^(k+1) only from s >= 100, as it prints two
 * digits at least; here from s >= 10, for the subnormals whose shortest
 * string has one, 5e-324.)
 */

/* The range of k for doubles, subnormals included. */
#define G_KMIN	(-324)
#define G_KMAX	292

/* g(k) as { its top bits, its low 63 bits }. Computed once, at the first
 * double printed, exactly (GMP): 2^(125 - floor(-k log2 10)) / 10^k,
 * rounded down, plus one. */
static uint64_t g_tab[G_KMAX - G_KMIN + 1][2];
/* (rows are formatted on two threads: the table is made once) */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* floor(q log10 2), floor(log10(3/4 2^q)) and floor(e log2 10), for the
 * exponents of doubles: multiplications by constants (Schubfach's). */
static int
flog10_pow2(int q)
{
	return (int)(((int64_t)q * 661971961083LL) >> 41);
}

static int
flog10_three_quarters_pow2(int q)
{
	return (int)(((int64_t)q * 661971961083LL - 274743187321LL) >> 41);
}

static int
flog2_pow10(int e)
{
	return (int)(((int64_t)e * 913124641741LL) >> 38);
}

_Static_assert(GMP_LIMB_BITS == 64, "g_init() reads g as two limbs");

static void
g_init(void)
{
	mpz_t num, den, g;
	uint64_t lo, hi;
	int k, e;

	mpz_inits(num, den, g, NULL);
	for (k = G_KMIN; k <= G_KMAX; k++) {
		e = 125 - flog2_pow10(-k);
		mpz_set_ui(num, 1);
		mpz_set_ui(den, 1);
		if (k < 0)
			mpz_ui_pow_ui(num, 10, (unsigned long)-k);
		else
			mpz_ui_pow_ui(den, 10, (unsigned long)k);
		if (e >= 0)
			mpz_mul_2exp(num, num, (mp_bitcnt_t)e);
		else
			mpz_mul_2exp(den, den, (mp_bitcnt_t)-e);
		mpz_fdiv_q(g, num, den);
		mpz_add_ui(g, g, 1);
		lo = mpz_getlimbn(g, 0);	/* (126 bits: two limbs) */
		hi = mpz_getlimbn(g, 1);
		g_tab[k - G_KMIN][0] = hi << 1 | lo >> 63;
		g_tab[k - G_KMIN][1] = lo & 0x7FFFFFFFFFFFFFFFULL;
	}
	mpz_clears(num, den, g, NULL);
}

/* The high 64 bits of a b. */
static inline uint64_t
mul_high(uint64_t a, uint64_t b)
{
	return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

/* g x / 2^127 for the g of t, rounded to odd: its integer part, its last
 * bit set when a fraction is left. */
static inline uint64_t
round_odd(const uint64_t t[2], uint64_t x)
{
	uint64_t x1 = mul_high(t[1], x), y0 = t[0] * x, y1 = mul_high(t[0], x);
	uint64_t z = (y0 >> 1) + x1;

	return (y1 + (z >> 63)) |
	    (((z & 0x7FFFFFFFFFFFFFFFULL) + 0x7FFFFFFFFFFFFFFFULL) >> 63);
}

/* The digits of c 2^q as f 10^*e, f with its trailing zeros, if any;
 * dk: -1 when c was scaled up by ten (the smallest subnormals). */
static uint64_t
to_decimal(int q, uint64_t c, int dk, int *e)
{
	/* out: c odd, the interval's ends are not in it; cb, cbl, cbr:
	 * d and the ends, times 4 2^q */
	uint64_t out = c & 1, cb = c << 2, cbr = cb + 2, cbl;
	uint64_t vb, vbl, vbr, s, t, sp10, tp10;
	const uint64_t *g;
	int k, h, up, wp;

	if (c != 1ULL << 52 || q == -1074) {
		cbl = cb - 2;
		k = flog10_pow2(q);
	} else {	/* a power of two, its neighbour below closer */
		cbl = cb - 1;
		k = flog10_three_quarters_pow2(q);
	}
	h = q + flog2_pow10(-k) + 2;
	g = g_tab[k - G_KMIN];
	vb = round_odd(g, cb << h);
	vbl = round_odd(g, cbl << h);
	vbr = round_odd(g, cbr << h);
	s = vb >> 2;
	*e = k + dk;
	if (s >= 10) {	/* the multiples of 10^(k+1) around d */
		/* (s / 10: the high word of s times a little over 2^64 / 10) */
		sp10 = 10 * mul_high(s, 115292150460684698ULL << 4);
		tp10 = sp10 + 10;
		up = vbl + out <= sp10 << 2;
		wp = (tp10 << 2) + out <= vbr;
		if (up != wp)
			return up ? sp10 : tp10;
	}
	t = s + 1;	/* then of 10^k */
	up = vbl + out <= s << 2;
	wp = (t << 2) + out <= vbr;
	if (up != wp)
		return up ? s : t;
	/* both: the nearer, ties to even */
	return vb < (s + t) << 1 || (vb == (s + t) << 1 && (s & 1) == 0) ?
	    s : t;
}

/* The shortest, nearest digits of the finite d > 0, f 10^*e. */
static uint64_t
shortest_digits(double d, int *e)
{
	uint64_t bits, frac;
	int bexp;

	memcpy(&bits, &d, sizeof(bits));
	frac = bits & ((1ULL << 52) - 1);
	bexp = (int)(bits >> 52);
	if (bexp != 0)
		return to_decimal(bexp - 1075, frac | 1ULL << 52, 0, e);
	/* subnormal: the two smallest with a digit more to work with */
	return frac < 3 ? to_decimal(-1074, 10 * frac, -1, e) :
	    to_decimal(-1074, frac, 0, e);
}

const uint64_t num_pow10[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL,
};

/* The decimal digits of v, 1 for 0: log10 from its bits (1233 / 4096 is
 * about log10 2), one less where v is below that power. */
static inline int
digits_of(uint64_t v)
{
	int t = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;
	int n = t + (v >= num_pow10[t]);

	return n > 0 ? n : 1;
}

/*
 * Writes c's prec digits at p with a point after the first ni of them (0
 * < ni < prec); returns the end. c goes as one number, and the point is
 * let in by moving the few digits before it back one place: two numbers,
 * the part before the point and the part after it, cost more.
 */
static char *
put_point(char *p, uint64_t c, int prec, int ni)
{
	num_put_uint(p + 1, c, prec);
	memmove(p, p + 1, (size_t)ni);
	p[ni] = '.';
	return p + prec + 1;
}

/*
 * Writes the prec digits of c times 10^(exp - prec + 1) at p in Python's
 * repr() notation, as %.*f and %.*e print these digits; returns the end.
 */
static char *
put_notation(char *p, uint64_t c, int prec, int exp)
{
	int i;

	if (exp >= 16 || exp < -4) {
		if (prec > 1)
			p = put_point(p, c, prec, 1);
		else
			*p++ = (char)('0' + c);
		*p++ = 'e';
		*p++ = exp < 0 ? '-' : '+';
		return num_put_uint(p, (uint64_t)(exp < 0 ? -exp : exp), 2);
	}
	if (exp < 0) {
		*p++ = '0';
		*p++ = '.';
		for (i = exp; i < -1; i++)
			*p++ = '0';
		return num_put_uint(p, c, prec);
	}
	/* the integer part: digits, then zeros where they run out (then d
	 * is that integer exactly, as %.0f prints it) */
	if (prec <= exp + 1) {
		p = num_put_uint(p, c, prec);
		memset(p, '0', (size_t)(exp + 1 - prec));
		return p + exp + 1 - prec;
	}
	return put_point(p, c, prec, exp + 1);
}

/* The quotient to 40 more digits than m has, truncated, then a digit 1
 * past them where it was inexact (a sticky digit), so that strtod(3),
 * rounding once, rounds as the exact quotient would: the 40 digits hold
 * any double's 17, and more, the quotient of a den below 10^19. */
double
num_quotient_double(const char *m, long e, int64_t den)
{
	enum { EXTRA = 40 };
	mpz_t q, r, d, t;
	char *text, *p, *end;
	size_t n;
	double v;
	int saved = errno;
	long long x, lim;

	/* both exact doubles (within 2^53): one division rounds once */
	errno = 0;
	x = strtoll(m, &end, 10);
	if (*end == '\0' && errno == 0 && e >= 0 && e < 16 &&
	    den <= (int64_t)1 << 53) {
		lim = (1LL << 53) / (long long)num_pow10[e];
		if (x <= lim && x >= -lim) {
			errno = saved;
			return (double)(x * (long long)num_pow10[e]) /
			    (double)den;
		}
	}
	mpz_inits(q, r, d, t, NULL);
	if (mpz_set_str(q, m, 10) != 0)
		mpz_set_ui(q, 0);
	mpz_ui_pow_ui(t, 10, EXTRA);
	mpz_mul(q, q, t);
	mpz_set_si(d, den);
	mpz_tdiv_qr(q, r, q, d);
	text = mpz_get_str(NULL, 10, q);
	n = strlen(text);
	p = xmalloc(n + 32);
	snprintf(p, n + 32, "%s%se%ld", text, mpz_sgn(r) != 0 ? "1" : "",
	    e - EXTRA - (mpz_sgn(r) != 0));
	v = strtod(p, NULL);
	errno = saved;
	free(p);
	free(text);
	mpz_clears(q, r, d, t, NULL);
	return v == 0 ? 0 : v;	/* never -0 */
}

size_t
num_format_double(char *buf, double d)
{
	char *p = buf;
	uint64_t c;
	int prec, e;

	if (isnan(d))
		return strlen(strcpy(buf, "nan"));
	if (isinf(d))
		return strlen(strcpy(buf, d < 0 ? "-inf" : "inf"));
	if (signbit(d)) {
		*p++ = '-';
		d = -d;
	}
	if (d == 0) {
		*p++ = '0';
		*p = '\0';
		return (size_t)(p - buf);
	}
	/* an integer below 10^16, as common as any value (a sketch's one
	 * value, a percentile of integers): its digits, as put_notation()
	 * writes them, without the multiplications */
	if (d < 1e16 && d == (double)(uint64_t)d) {
		p = num_put_uint(p, (uint64_t)d, 1);
		*p = '\0';
		return (size_t)(p - buf);
	}
	(void)pthread_once(&g_once, g_init);
	c = shortest_digits(d, &e);
	/* its trailing zeros dropped (a multiple of 10^(k+1) has one at
	 * least, 511.5's 5115 10^13 thirteen): eight at a time, then four,
	 * two and one (c > 0) */
	for (; c % 100000000 == 0; e += 8)
		c /= 100000000;
	if (c % 10000 == 0) {
		c /= 10000;
		e += 4;
	}
	if (c % 100 == 0) {
		c /= 100;
		e += 2;
	}
	if (c % 10 == 0) {
		c /= 10;
		e++;
	}
	prec = digits_of(c);
	p = put_notation(p, c, prec, e + prec - 1);
	*p = '\0';
	return (size_t)(p - buf);
}

/* Two digits at a time from a table: output is on the hot path (window
 * bounds are 13 to 19 digits), and a division by 100 halves the work. */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* v < 10^8 as exactly 8 digits at q: 32-bit arithmetic, two digits a
 * lookup. */
static void
put8(char *q, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	memcpy(q, digit_pairs + 2 * (hi / 100), 2);
	memcpy(q + 2, digit_pairs + 2 * (hi % 100), 2);
	memcpy(q + 4, digit_pairs + 2 * (lo / 100), 2);
	memcpy(q + 6, digit_pairs + 2 * (lo % 100), 2);
}

char *
num_put_uint(char *p, uint64_t v, int width)
{
	/* written in place from the last digit, no copy: eight digits at
	 * a time while they last (a time in milliseconds has 13, a double
	 * 17), then two */
	int n = digits_of(v);
	char *q, *e;
	uint32_t w;

	if (n < width) {
		memset(p, '0', (size_t)(width - n));
		p += width - n;
	}
	e = q = p + n;
	while (v >= 100000000) {
		q -= 8;
		put8(q, (uint32_t)(v % 100000000));
		v /= 100000000;
	}
	for (w = (uint32_t)v; w >= 100; w /= 100) {
		q -= 2;
		memcpy(q, digit_pairs + 2 * (w % 100), 2);
	}
	if (w >= 10) {
		q -= 2;
		memcpy(q, digit_pairs + 2 * w, 2);
	} else
		*--q = (char)('0' + w);
	return e;
}

size_t
num_format_result(char *buf, double d)
{
	return num_format_double(buf, d == 0 ? 0 : d);
}

size_t
num_format_int(char *buf, int64_t v)
{
	char *p = buf;

	if (v < 0)
		*p++ = '-';
	p = num_put_uint(p, v < 0 ? -(uint64_t)v : (uint64_t)v, 0);
	*p = '\0';
	return (size_t)(p - buf);
}
