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

#include "base/num.h"

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
		return -1;
	out->d = d;
	out->i = 0;
	out->is_int = 0;
	return 0;
}

/*
 * Printing a double: the fewest significant digits that read back as it.
 *
 * The digits come from Ryu (Ulf Adams, "Ryu: fast float-to-string
 * conversion", PLDI 2018), its general case, written afresh here. A
 * finite double is d = m * 2^e. It reads back from any decimal in the
 * interval around it that rounds to it: halfway to each neighbour, the
 * ends included when m is even (strtod(3) rounds ties to even), and the
 * half-gap below only half as wide when d is a power of two whose
 * neighbour below is in the binade below. With mv = 4m, mp = 4m + 2 and
 * mm = 4m - 2 (4m - 1 at such a power of two), d, the top and the bottom
 * of that interval are mv, mp and mm times 2^e2, e2 = e - 2. One 64 x 128
 * bit multiplication by a table entry gives each of them divided by a
 * power of ten 10^e10 and rounded down, exactly (the paper's theorem, for
 * its table precisions and its choice of e10): vr, vp and vm, integers of
 * 17 to 19 digits (fewer for subnormals), whose unit is at least five
 * times finer than either half-gap (ten unless vr is exact). Whether each
 * division was exact is a question of divisibility by 5^q or 2^q.
 *
 * Rounding vr at any position then gives d correctly rounded to that many
 * significant digits, ties to even, as printf(3)'s %.*e does, and
 * comparing multiples of a unit with vp and vm says exactly whether they
 * read back. fwin prints the fewest digits that read back as d and, where
 * several such strings do, the one nearest d (ties to even; Python's
 * repr() digits, from David Gay's dtoa, are these too). With a symmetric
 * interval the nearest p digits, d correctly rounded, read back whenever
 * any p digits do, so digits are dropped while some multiple of the next
 * unit lies between the ends, then vr is rounded. At a power of two the
 * interval is narrower below, and the nearest p digits can fall below it
 * where the next ones above read back (2^-44 is 5.684341886080802e-14:
 * 5.684341886080801e-14 is nearer but does not read back, and the
 * correctly rounded 17 digits are 5.6843418860808015e-14); there, and
 * where an end is exact, Ryu's general loop says which.
 */

/* Bits of every table entry: 5^i or 2^k / 5^q scaled to [2^124, 2^125]
 * (Ryu's B0 and B1 for doubles; the paper shows they suffice). */
#define POW5_BITS	125
/* For e2 >= 0, e10 = q <= 290; for e2 < 0, 5^i with i <= 325. */
#define POW5_INV_N	291
#define POW5_N		326

/*
 * pow5_inv[q] = floor(2^(bits(5^q) - 1 + 125) / 5^q) + 1 and
 * pow5_tab[i] = floor(5^i / 2^(bits(5^i) - 125)) (shifted left when 5^i
 * is shorter), as { low 64 bits, high 64 bits }. They are computed once,
 * at the first double printed, with a small big number of 32-bit words:
 * 5^i by repeated multiplication by 5, and floor(2^M / 5^q) by repeated
 * exact division of 2^M by 5 (floor(floor(x / a) / b) = floor(x / ab)),
 * then the 128 bits wanted shifted out. About 20,000 word operations.
 */
static uint64_t pow5_inv[POW5_INV_N][2], pow5_tab[POW5_N][2];
/* (rows are formatted on two threads: the tables are made once) */
static pthread_once_t pow5_once = PTHREAD_ONCE_INIT;

#define BIG_WORDS	32	/* 1024 bits: 5^325 * 2^128 < 2^883 */
#define BIG_INV_M	1000	/* 2^1000 > 2^(bits(5^290) + 124) = 2^798 */

/* bits(5^e), the bit length, for 0 <= e <= 3528: 1 + floor(e log2 5). */
static int
pow5bits(int e)
{
	return (int)(((uint32_t)e * 1217359) >> 19) + 1;
}

/* floor(e log10 2) for 0 <= e <= 1650. */
static int
log10_pow2(int e)
{
	return (int)(((uint32_t)e * 78913) >> 18);
}

/* floor(e log10 5) for 0 <= e <= 2620. */
static int
log10_pow5(int e)
{
	return (int)(((uint32_t)e * 732923) >> 20);
}

/* Bits [shift, shift + 128) of the number w[0..BIG_WORDS) into t. */
static void
big_bits(const uint32_t *w, int shift, uint64_t t[2])
{
	uint64_t x;
	int b, i, off;

	t[0] = t[1] = 0;
	for (b = 0; b < 4; b++) {
		i = (shift + 32 * b) / 32;
		off = (shift + 32 * b) % 32;
		x = i < BIG_WORDS ? w[i] >> off : 0;
		if (off != 0 && i + 1 < BIG_WORDS)
			x |= (uint64_t)w[i + 1] << (32 - off);
		t[b / 2] |= (x & 0xFFFFFFFF) << (32 * (b % 2));
	}
}

static void
pow5_init(void)
{
	uint32_t w[BIG_WORDS];
	uint64_t x;
	int i, j;

	/* 5^i * 2^128, so that no entry needs a left shift */
	memset(w, 0, sizeof(w));
	w[4] = 1;
	for (i = 0; i < POW5_N; i++) {
		big_bits(w, 128 + pow5bits(i) - POW5_BITS, pow5_tab[i]);
		for (x = 0, j = 0; j < BIG_WORDS; j++) {
			x += (uint64_t)w[j] * 5;
			w[j] = (uint32_t)x;
			x >>= 32;
		}
	}
	/* floor(2^M / 5^q) */
	memset(w, 0, sizeof(w));
	w[BIG_INV_M / 32] = 1u << (BIG_INV_M % 32);
	for (i = 0; i < POW5_INV_N; i++) {
		big_bits(w, BIG_INV_M - (pow5bits(i) - 1 + POW5_BITS),
		    pow5_inv[i]);
		if (++pow5_inv[i][0] == 0)
			pow5_inv[i][1]++;
		for (x = 0, j = BIG_WORDS - 1; j >= 0; j--) {
			x = x << 32 | w[j];
			w[j] = (uint32_t)(x / 5);
			x %= 5;
		}
	}
}

/* floor(m * t / 2^j), t a 128-bit table entry, 64 <= j < 192. */
static uint64_t
mulshift(uint64_t m, const uint64_t t[2], int j)
{
	unsigned __int128 lo = (unsigned __int128)m * t[0];
	unsigned __int128 hi = (unsigned __int128)m * t[1];

	return (uint64_t)(((lo >> 64) + hi) >> (j - 64));
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

/* x / 10^k, 1 <= k <= 19: a division by a constant is a multiplication,
 * where one by a variable is the slowest instruction there is. */
static uint64_t
div_pow10(uint64_t x, int k)
{
	switch (k) {
	case 1: return x / 10ULL;
	case 2: return x / 100ULL;
	case 3: return x / 1000ULL;
	case 4: return x / 10000ULL;
	case 5: return x / 100000ULL;
	case 6: return x / 1000000ULL;
	case 7: return x / 10000000ULL;
	case 8: return x / 100000000ULL;
	case 9: return x / 1000000000ULL;
	case 10: return x / 10000000000ULL;
	case 11: return x / 100000000000ULL;
	case 12: return x / 1000000000000ULL;
	case 13: return x / 10000000000000ULL;
	case 14: return x / 100000000000000ULL;
	case 15: return x / 1000000000000000ULL;
	case 16: return x / 10000000000000000ULL;
	case 17: return x / 100000000000000000ULL;
	case 18: return x / 1000000000000000000ULL;
	case 19: return x / 10000000000000000000ULL;
	}
	return 0;
}

/* Whether 5^q divides v (v > 0). */
static int
pow5_divides(uint64_t v, int q)
{
	for (; q > 0; q--, v /= 5)
		if (v % 5 != 0)
			return 0;
	return 1;
}

/* A positive finite double as decimals: floor(d / 10^e10) and the ends
 * of its interval likewise, whether each was exact, whether the ends
 * read back, and n, the digits of vr (so d's decimal exponent is
 * e10 + n - 1). */
struct dinterval {
	uint64_t vr, vp, vm;
	int e10, n;
	int vr_exact, vp_exact, vm_exact, accept;
	int narrow;	/* the half-gap below is half the one above */
};

static void
dinterval(double d, struct dinterval *iv)
{
	uint64_t bits, frac, m, mv, mp, mm;
	int bexp, e2, q, i, j;

	memcpy(&bits, &d, sizeof(bits));
	frac = bits & ((1ULL << 52) - 1);
	bexp = (int)(bits >> 52 & 0x7FF);
	if (bexp == 0) {			/* subnormal */
		m = frac;
		e2 = 1 - 1075 - 2;
	} else {
		m = frac | 1ULL << 52;
		e2 = bexp - 1075 - 2;
	}
	iv->accept = (m & 1) == 0;
	mv = 4 * m;
	mp = mv + 2;
	iv->narrow = frac == 0 && bexp > 1;
	mm = mv - 2 + iv->narrow;

	if (e2 >= 0) {
		/* 10^q at most 2^e2 / 10: a unit of vr is a tenth of the
		 * narrower half-gap, 2^e2, or less (but for e2 <= 3: q = 0,
		 * vr is d, an integer) */
		q = log10_pow2(e2) - (e2 > 3);
		iv->e10 = q;
		j = -e2 + q + pow5bits(q) - 1 + POW5_BITS;
		iv->vr = mulshift(mv, pow5_inv[q], j);
		iv->vp = mulshift(mp, pow5_inv[q], j);
		iv->vm = mulshift(mm, pow5_inv[q], j);
		/* x 2^e2 / 10^q is an integer when 5^q divides x (2^q
		 * divides 2^e2): never when q > 23, as 5^24 > 2^55 > x */
		iv->vr_exact = q <= 23 && pow5_divides(mv, q);
		iv->vp_exact = q <= 23 && pow5_divides(mp, q);
		iv->vm_exact = q <= 23 && pow5_divides(mm, q);
	} else {
		/* d / 10^(q + e2) = x 5^i / 2^q, i = -e2 - q: the narrower
		 * half-gap, 5^i / 2^q units of vr, is at least 10 (5 when
		 * e2 = -1: q = 0, vr is exact) */
		q = log10_pow5(-e2) - (-e2 > 1);
		iv->e10 = q + e2;
		i = -e2 - q;
		j = q - (pow5bits(i) - POW5_BITS);
		iv->vr = mulshift(mv, pow5_tab[i], j);
		iv->vp = mulshift(mp, pow5_tab[i], j);
		iv->vm = mulshift(mm, pow5_tab[i], j);
		/* exact when 2^q divides x */
		iv->vr_exact = q < 64 && __builtin_ctzll(mv) >= q;
		iv->vp_exact = q < 64 && __builtin_ctzll(mp) >= q;
		iv->vm_exact = q < 64 && __builtin_ctzll(mm) >= q;
	}
	iv->n = digits_of(iv->vr);	/* 18 or 19 but for subnormals */
}

/*
 * d correctly rounded (ties to even) to n - k significant digits, k >= 0,
 * as printf(3) would: vr without its last k digits, plus one if they are
 * above half, or exactly half (nothing cut off below vr) and the rest odd.
 * At k = 0 that is vr itself, only right when vr is exact; but it is
 * never the answer otherwise, as then n - 1 digits read back: rounding
 * to tens of units is off by at most five, and when vr is not exact
 * either half-gap is at least ten units.
 */
static uint64_t
dround(const struct dinterval *iv, int k)
{
	uint64_t pk, r, rem;

	if (k == 0)
		return iv->vr;
	pk = num_pow10[k];
	r = div_pow10(iv->vr, k);
	rem = iv->vr - r * pk;
	return r + (rem > pk / 2 ||
	    (rem == pk / 2 && (!iv->vr_exact || (r & 1))));
}

/*
 * The shortest digits that read back to the double iv describes: c's
 * digits times 10^(e10 + *k).
 */
static uint64_t
shortest_digits(const struct dinterval *iv, int *kp)
{
	uint64_t vp, vm;
	int k;

	if (!iv->narrow && !iv->vp_exact && !iv->vm_exact) {
		/* The usual case. With a symmetric interval d rounded to p
		 * digits reads back whenever any p digits do (it is the
		 * nearest), and whether any do is whether some multiple of
		 * the unit lies between the ends: strictly, as neither is
		 * exact. So drop digits from vr's while that holds for one
		 * digit fewer (two at a time first), as Ryu's loop does,
		 * then round. */
		vp = iv->vp;
		vm = iv->vm;
		for (k = 0; k + 2 < iv->n && vp / 100 > vm / 100; k += 2) {
			vp /= 100;
			vm /= 100;
		}
		for (; k + 1 < iv->n && vp / 10 > vm / 10; k++) {
			vp /= 10;
			vm /= 10;
		}
		*kp = k;
		return dround(iv, k);
	}
	/* A power of two, or an end of the interval exact: Ryu's general
	 * loop. Drop digits while a multiple of the next unit lies within
	 * the ends (the bottom included when it is exact and accepted, the
	 * top excluded when exact and not), then take the nearest of the
	 * multiples of the unit left that lie within: vr rounded by the
	 * digits dropped (ties to even), or one more when that is not
	 * above the bottom. The nearest never overshoots the top, as the
	 * half-gap above is never the narrower. */
	uint64_t vr = iv->vr;
	int vm_tz = iv->vm_exact && iv->accept, vr_tz = iv->vr_exact;
	int last = 0;

	vp = iv->vp - (iv->vp_exact && !iv->accept);
	vm = iv->vm;
	for (k = 0; vp / 10 > vm / 10; k++) {
		vm_tz &= vm % 10 == 0;
		vr_tz &= last == 0;
		last = (int)(vr % 10);
		vr /= 10;
		vp /= 10;
		vm /= 10;
	}
	if (vm_tz)
		for (; vm != 0 && vm % 10 == 0; k++) {
			vr_tz &= last == 0;
			last = (int)(vr % 10);
			vr /= 10;
			vp /= 10;
			vm /= 10;
		}
	if (vr_tz && last == 5 && vr % 2 == 0)
		last = 4;	/* exactly half: to even */
	*kp = k;
	return vr + ((vr == vm && !vm_tz) || last >= 5);
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

size_t
num_format_double(char *buf, double d)
{
	struct dinterval iv;
	char *p = buf;
	uint64_t c;
	int prec, k;

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
	 * writes them, without the interval's search */
	if (d < 1e16 && d == (double)(uint64_t)d) {
		p = num_put_uint(p, (uint64_t)d, 1);
		*p = '\0';
		return (size_t)(p - buf);
	}
	(void)pthread_once(&pow5_once, pow5_init);
	dinterval(d, &iv);
	c = shortest_digits(&iv, &k);
	/* none trailing but for a rounding up to a power of ten (9.99 to
	 * 10.0) */
	while (c != 0 && c % 10 == 0) {
		c /= 10;
		k++;
	}
	prec = digits_of(c);
	p = put_notation(p, c, prec, iv.e10 + k + prec - 1);
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
num_format_int(char *buf, int64_t v)
{
	char *p = buf;

	if (v < 0)
		*p++ = '-';
	p = num_put_uint(p, v < 0 ? -(uint64_t)v : (uint64_t)v, 0);
	*p = '\0';
	return (size_t)(p - buf);
}
