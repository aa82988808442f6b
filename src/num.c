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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"

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
num_parse(const char *p, size_t n, struct num *out)
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
 * The fewest significant digits (1..17) that read back as d, found by
 * trying each precision; 17 always does for an IEEE double. The notation
 * is Python's repr() (and close to JavaScript's): plain decimal when the
 * decimal exponent is in [-4, 16), so 100 is "100" and 0.0001 is
 * "0.0001"; exponent form outside it, "1e+16", "1e-05". A shortest digit
 * string never ends in 0, so neither form has trailing zeros.
 */
size_t
num_format_double(char *buf, double d)
{
	char e[NUM_BUFSZ];
	const char *x;
	int prec, exp, saved, len, lo, hi;

	if (isnan(d))
		return strlen(strcpy(buf, "nan"));
	if (isinf(d))
		return strlen(strcpy(buf, d < 0 ? "-inf" : "inf"));

	/* The fewest digits that read back to d: more digits of a correct
	 * rounding are never farther from d, so reading back is monotonic
	 * in the precision, and a binary search over 1..17 finds it (17
	 * always reads back) in five tries instead of up to seventeen. */
	saved = errno;
	for (lo = 1, hi = 17; lo < hi;) {
		prec = (lo + hi) / 2;
		snprintf(e, sizeof(e), "%.*e", prec - 1, d);
		if (strtod(e, NULL) == d)
			hi = prec;
		else
			lo = prec + 1;
	}
	prec = lo;
	snprintf(e, sizeof(e), "%.*e", prec - 1, d);
	errno = saved;

	x = strchr(e, 'e');
	exp = (int)strtol(x + 1, NULL, 10);	/* snprintf's own exponent */
	if (exp >= -4 && exp < 16) {
		/* The same rounding position as the %e text, so the same
		 * digits. */
		len = snprintf(buf, NUM_BUFSZ, "%.*f",
		    prec - 1 - exp > 0 ? prec - 1 - exp : 0, d);
	} else
		len = snprintf(buf, NUM_BUFSZ, "%s", e);
	return len;
}

/* Two digits at a time from a table: output is on the hot path (window
 * bounds are 13 to 19 digits), and a division by 100 halves the work. */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

char *
num_put_uint(char *p, uint64_t v, int width)
{
	char tmp[20], *e = tmp + sizeof(tmp), *q = e;

	while (v >= 100) {
		q -= 2;
		memcpy(q, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, digit_pairs + 2 * v, 2);
	} else
		*--q = (char)('0' + v);
	while (e - q < width)
		*--q = '0';
	memcpy(p, q, (size_t)(e - q));
	return p + (e - q);
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
