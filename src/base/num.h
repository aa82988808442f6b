/* num: parse and print the numbers of aggregates. */
#ifndef FWIN_NUM_H
#define FWIN_NUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Room for any number num_format_*() writes, with its NUL. */
#define NUM_BUFSZ 32

struct num {
	double d;	/* the value */
	int64_t i;	/* the value, when is_int */
	int is_int;	/* written as a decimal integer that fits in int64 */
};

#define NUM_RANGE	(-2)

/* num_parse() without its inline first step: any text. */
int num_parse_any(const char *p, size_t n, struct num *out);

/* Parses p[0..n) (not NUL-terminated) as a decimal number: an optional
 * sign, digits with an optional fraction, an optional exponent ("-3",
 * "2.50", "1e3", ".5"). No spaces, hex, inf or nan. Returns 0, -1 when
 * the text is not such a number, or NUM_RANGE when it is one beyond the
 * range of doubles (about 1.8e308, "1e400"). Inline, as
 * it runs per record: a short integer without a sign, the commonest
 * value, is read digit by digit here; num_parse_any() reads the rest. */
static inline int
num_parse(const char *p, size_t n, struct num *out)
{
	uint64_t u = 0;
	size_t i;

	if (n - 1 < 8) {
		for (i = 0; i < n && (unsigned)(p[i] - '0') < 10; i++)
			u = u * 10 + (unsigned)(p[i] - '0');
		if (i == n) {
			out->i = (int64_t)u;
			out->d = (double)u;
			out->is_int = 1;
			return 0;
		}
	}
	return num_parse_any(p, n, out);
}

/* Compares two numbers num_parse() reads, p[0..n) and q[0..m), by the
 * exact values written, not their doubles: -1, 0 or 1. "0.10" equals
 * "1e-1"; "1700000000000000001" is less than "1700000000000000100",
 * whose doubles are the same. (An exponent past +-10^17 counts as
 * +-10^17: a number of such an exponent is 0 as a double, or beyond the
 * doubles.) */
int num_cmp_exact(const char *p, size_t n, const char *q, size_t m);

/* The double nearest (m * 10^e) / den, rounded once, for den > 0 and m
 * an integer's decimal text ("-123"): what dividing doubles would round
 * twice (0.7 is no double). Past the doubles' range, +-inf or 0. */
double num_quotient_double(const char *m, long e, int64_t den);

/* Writes d in the shortest form that reads back as the same double
 * ("2.5", "0.1", "1e+21"); inf and nan as "inf", "-inf", "nan". Returns
 * the length; buf has NUM_BUFSZ bytes. */
size_t num_format_double(char *buf, double d);

/* Writes d as fwin prints a result, an aggregate's or an expression's:
 * num_format_double() of it, but a zero as "0" whatever its sign (-0 is
 * 0 to every comparison, and to the exact sums). */
size_t num_format_result(char *buf, double d);

/* Writes v in decimal; returns the length; buf has NUM_BUFSZ bytes. */
size_t num_format_int(char *buf, int64_t v);

/* 10^0 .. 10^19: the powers of ten a uint64_t holds. */
extern const uint64_t num_pow10[20];

/* Writes v in decimal, zero-padded to at least width digits (width <=
 * 20), not NUL-terminated; returns the end. */
char *num_put_uint(char *p, uint64_t v, int width);

/* Whether the 8 bytes of w (p[0] lowest) are all decimal digits; their
 * value into *v. SWAR: pairs, then quads, then the eight. */
static inline int
num_eight(uint64_t w, uint64_t *v)
{
	uint64_t d = w - 0x3030303030303030ULL;

	/* every byte 0x30-0x39: high nibble 3, and + 6 stays below 16 */
	if ((w & 0xF0F0F0F0F0F0F0F0ULL) != 0x3030303030303030ULL ||
	    ((d + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) != 0)
		return 0;
	d = d * 10 + (d >> 8);
	*v = ((d & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32)) +
	    ((d >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32))) >> 32;
	return 1;
}

/* The first 8 bytes of p[0..n), 8 < n <= 16, as the word of its leading
 * digits (all but the last 8, which a second load takes): the bytes that
 * load also holds shifted out and replaced by '0's, which add nothing at
 * the top. */
static inline uint64_t
num_head_word(const char *p, size_t n)
{
	size_t k = 64 - 8 * (n - 8);	/* bits of the overlap, 0..56 */
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return (w << k) | (0x3030303030303030ULL >> 1 >> (63 - k));
}

/* Whether p[0..n), 1 <= n <= 8, is all decimal digits, read in one
 * load of 8 bytes from p (the caller's to be readable); their value
 * into *v. */
static inline int
num_short_digits(const char *p, size_t n, uint64_t *v)
{
	size_t k = 64 - 8 * n;	/* bits of the bytes past them, 0..56 */
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return num_eight((w << k) | (0x3030303030303030ULL >> 1 >> (63 - k)),
	    v);
}

/* Reads the decimal digits at the start of p[0..n), n <= 19 (so that
 * they fit in 64 bits), into *v; returns how many there were. Eight at a
 * time where there are eight: times and values are parsed per record. */
static inline __attribute__((always_inline)) size_t
num_digits(const char *p, size_t n, uint64_t *v)
{
	uint64_t x = 0, w, hi, lo;
	size_t i = 0;

	/* 9 to 16 bytes all digits (a time in ms, us or ns), the common
	 * case: two loads inside p[0..n) (num_head_word) */
	if (n > 8 && n <= 16) {
		w = num_head_word(p, n);
		memcpy(&lo, p + n - 8, sizeof(lo));
		if (num_eight(w, &hi) && num_eight(lo, &lo)) {
			*v = hi * 100000000 + lo;
			return n;
		}
	}
	for (; n - i >= 8; i += 8) {
		memcpy(&w, p + i, sizeof(w));	/* byte 0 lowest */
		if (!num_eight(w, &lo))
			break;
		x = x * 100000000 + lo;
	}
	for (; i < n && (unsigned)(p[i] - '0') < 10; i++)
		x = x * 10 + (unsigned)(p[i] - '0');
	*v = x;
	return i;
}

/* The leading digits of the last number num_digits_near() read: 8
 * bytes as it loaded them (0: none yet) and their value. */
struct num_head {
	uint64_t w, v;
};

/* num_digits() of numbers that follow one another closely, as the times
 * of a stream do: 9 to 16 digits whose leading ones (all but the last
 * 8) are those of the number before take their value from *h. (A shorter
 * number with more leading zeros loads the same bytes: its value is the
 * same too.) */
static inline __attribute__((always_inline)) size_t
num_digits_near(const char *p, size_t n, uint64_t *v, struct num_head *h)
{
	uint64_t w, hi, lo;

	if (n > 8 && n <= 16) {
		w = num_head_word(p, n);
		memcpy(&lo, p + n - 8, sizeof(lo));
		if (w == h->w)
			hi = h->v;
		else if (num_eight(w, &hi)) {
			h->w = w;
			h->v = hi;
		} else
			return num_digits(p, n, v);
		if (num_eight(lo, &lo)) {
			*v = hi * 100000000 + lo;
			return n;
		}
	}
	return num_digits(p, n, v);
}

#endif
