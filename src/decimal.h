/* decimal: exact sums of numbers written in plain decimal notation, in
 * scaled integers (as SQL's DECIMAL), with a floating sum kept alongside
 * for when the sum cannot be exact (man/fwin.1, AGGREGATES). */
#ifndef FWIN_DECIMAL_H
#define FWIN_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/* Most significant digits of an exact value, and most digits after its
 * point: 38, as SQL's DECIMAL(38, s). */
#define DEC_DIGITS	38

/* Room for any text dec_sum_format() writes, with its NUL. */
#define DEC_BUFSZ	48

/* A number as written: m / 10^scale, |m| < 10^38, scale <= 38. A value
 * type (parse scratch); never stored in the arena. */
struct dec {
	__int128 m;
	uint32_t scale;
};

/*
 * A sum accumulator. Flat, no pointers, 8-byte aligned, so that it can
 * live in the arena and be saved as raw bytes; all zeros is the empty
 * sum. The exact sum is w * 10^-scale, w a 256-bit two's complement
 * integer: an exact sum of 38-digit values rescaled to 38 places never
 * needs more (10^76 < 2^255), so an exact result never depends on the
 * order of additions. fsum is what the sum was before exact sums: the
 * doubles added in arrival order, printed when the sum is not exact.
 */
struct dec_sum {
	uint64_t w[4];		/* w[0] lowest */
	uint32_t scale;		/* the largest scale added */
	uint32_t inexact;	/* a value not in plain decimal, or w overflowed */
	double fsum;
	uint64_t n;		/* values added */
};

/* Parses p[0..n) (not NUL-terminated) as a plain decimal: an optional
 * sign, digits with an optional fraction ("-3", "2.50", ".5", "+7.");
 * trailing zeros after the point are dropped only where needed to fit.
 * Returns 0, or -1 when it is not plain decimal (an exponent, not a
 * number) or has more than 38 significant digits or places: then the
 * caller has a double from num_parse() and uses dec_sum_add_double(). */
int dec_parse(const char *p, size_t n, struct dec *out);

/* v correctly rounded to a double: strtod(3)'s value of the text v was
 * parsed from, except that a zero is always +0. No strtod for up to 15
 * significant digits and 22 places (the common case, per record). */
double dec_to_double(const struct dec *v);

/* Adds v, whose double is d (dec_to_double(v), or num_parse()'s). */
void dec_sum_add(struct dec_sum *s, const struct dec *v, double d);

/* Adds d, a value that is not plain decimal: the sum becomes floating. */
void dec_sum_add_double(struct dec_sum *s, double d);

/* Adds src into dst. When the result is exact, its w, scale, inexact and
 * n are the same bytes whatever the order of adds and merges (fsum is
 * not: floating addition is not associative). */
void dec_sum_merge(struct dec_sum *dst, const struct dec_sum *src);

/* Whether the sum is exact: every value was plain decimal and the sum,
 * its trailing zeros after the point dropped, fits in 38 digits. */
int dec_sum_exact(const struct dec_sum *s);

/* Writes the sum: exact, trailing zeros after the point and a bare point
 * dropped ("11.1", "3", "-0.25", never "-0"); else fsum as
 * num_format_double() does (a -0 written "0"). buf has DEC_BUFSZ bytes;
 * returns the length. An empty sum writes "0": the caller writes NULL
 * for n == 0. */
size_t dec_sum_format(char *buf, const struct dec_sum *s);

/* The mean, n > 0: the exact sum divided by n, correctly rounded once;
 * fsum / n when the sum is not exact. Never -0. */
double dec_sum_avg(const struct dec_sum *s);

#endif
