/* decimal: exact sums of decimal numbers, in scaled integers (as SQL's
 * DECIMAL), whatever their count, order or notation (man/fwin.1,
 * AGGREGATES). This is the fixed-width part, which holds the sums of
 * real data; bigsum.h takes a sum past it. */
#ifndef FWIN_DECIMAL_H
#define FWIN_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/* Most significant digits of a value read exactly, and most digits
 * after the point of one in plain notation: 38, as SQL's DECIMAL(38, s). */
#define DEC_DIGITS	38

/* The places a value written with an exponent may have and still be
 * read exactly: 1100 reach 38 digits below the smallest double
 * (4.9e-324). A value with more is read as its nearest double. The
 * least: the largest double, 1.8e308, is 18e307 at scale -307. */
#define DEC_MAXSCALE	1100
#define DEC_MINSCALE	(-400)

/* Room for any text dec_sum_format() writes, with its NUL: a sign, 97
 * digits (2^320 < 10^97), "0." and 38 zeros. */
#define DEC_BUFSZ	160

/* Words of a sum's fixed-width integer. */
#define DEC_WORDS	5

/* A number as read: m * 10^-scale, |m| < 10^38. exp: written with an
 * exponent ("1e3", "6.02E23"). A value type (parse scratch); never
 * stored in the arena. */
struct dec {
	__int128 m;
	int32_t scale;
	uint32_t exp;
};

/* DS_EXP: a value was written with an exponent, or read as a double; the
 * sum is then written as the double nearest its exact value. (struct
 * dec's exp is this flag's value.) */
enum {
	DS_EXP = 1,
	DS_LOST = 2	/* a sum with no arena block to grow into (a
			 * counter's) could not hold a value exactly: its
			 * result is unknown, never printed */
};

/*
 * A sum accumulator. Flat, 8-byte aligned, so that it lives in the arena
 * and is saved as raw bytes; all zeros is the empty sum. The exact sum is
 * w * 10^-scale, w a 320-bit two's complement integer, or, once it no
 * longer fits, the integer of the arena block big (bigsum.h). A sum of
 * plain decimals never needs big: each value, rescaled to at most 38
 * places, is below 10^76, and fewer than 2^64 of them sum below 2^317.
 */
struct dec_sum {
	uint64_t w[DEC_WORDS];	/* w[0] lowest; 0 while big holds it */
	int32_t scale;
	uint32_t flags;		/* DS_* */
	uint64_t n;		/* values added */
	uint64_t big;		/* 0, or where the integer is (bigsum.h) */
};

/* dec_parse() without its inline first step: any text. */
int dec_parse_any(const char *p, size_t n, struct dec *out);

/* Parses p[0..n) (not NUL-terminated) as a plain decimal: an optional
 * sign, digits with an optional fraction ("-3", "2.50", ".5", "+7.");
 * trailing zeros after the point are dropped only where needed to fit.
 * Returns 0, or -1 when it is not plain decimal (an exponent, not a
 * number) or has more than 38 significant digits or places. Inline, as
 * it runs per record: the commonest value of all, a short integer
 * without a sign, is read digit by digit here (a branch each, which the
 * next value takes as this one did); dec_parse_any() reads the rest. */
static inline int
dec_parse(const char *p, size_t n, struct dec *out)
{
	uint64_t u = 0;
	size_t i;

	if (n - 1 < 8) {
		for (i = 0; i < n && (unsigned)(p[i] - '0') < 10; i++)
			u = u * 10 + (unsigned)(p[i] - '0');
		if (i == n) {
			out->m = (__int128)u;
			out->scale = 0;
			out->exp = 0;
			return 0;
		}
	}
	return dec_parse_any(p, n, out);
}

/* dec_parse(), and else a number with an exponent ("1e3", "-2.5E-7")
 * of at most 38 significant digits and places from DEC_MINSCALE to
 * DEC_MAXSCALE (out->exp = 1). -1: neither (the caller reads the text
 * with num_parse(), which also says whether it is a number at all). The
 * range of doubles is not checked here. */
int dec_read(const char *p, size_t n, struct dec *out);

/* dec_read() of a text dec_parse() refused: only the exponent form. */
int dec_read_exp(const char *p, size_t n, struct dec *out);

/* The exponent written at p[0..n), after a number's 'e': an optional
 * sign, then digits (past 100000 kept at that, far past any scale or
 * double); *used: the bytes it takes, 0 when it has no digit. */
int64_t dec_exponent(const char *p, size_t n, size_t *used);

/* Places above which a value read exactly (m < 10^38) is certainly within
 * the doubles' range (below 10^308), so that no strtod(3) need say so. */
#define DEC_SAFESCALE	(-270)

/* v correctly rounded to a double: strtod(3)'s value of the text v was
 * parsed from, except that a zero is always +0. No strtod for up to 15
 * significant digits and 22 places (the common case, per record). */
double dec_to_double(const struct dec *v);

/* Adds v to s in the fixed-width integer. Returns 0, or -1, s unchanged,
 * when it does not fit (or s->big holds the sum): bigsum_add() then. */
int dec_sum_add_any(struct dec_sum *s, const struct dec *v);

/* dec_sum_add_any(), inline where it runs per record: a value at the
 * sum's scale whose 128-bit add carries nothing into the upper words
 * (the carry out of them cancels the value's sign extension), which
 * then cannot overflow: their sign is the sum's. */
static inline int
dec_sum_add(struct dec_sum *s, const struct dec *v)
{
	unsigned __int128 lo, r;

	if (s->big == 0 && v->scale == s->scale) {
		lo = (unsigned __int128)s->w[1] << 64 | s->w[0];
		r = lo + (unsigned __int128)v->m;
		if ((int)(r < lo) == (v->m < 0)) {
			s->w[0] = (uint64_t)r;
			s->w[1] = (uint64_t)(r >> 64);
			s->n++;
			s->flags |= v->exp;	/* (DS_EXP is 1) */
			return 0;
		}
	}
	return dec_sum_add_any(s, v);
}

/* Adds the exact value of the double d (as DS_EXP) in the fixed-width
 * integer. Returns 0, or -1, s unchanged, when it does not fit. */
int dec_sum_add_double(struct dec_sum *s, double d);

/* Adds src into dst in the fixed-width integer. Returns 0, or -1, dst
 * unchanged, when it does not fit or either is big: bigsum then. */
int dec_sum_merge(struct dec_sum *dst, const struct dec_sum *src);

/* Takes src out of dst, which holds src's values and others': 0, or -1,
 * dst unchanged, when either is big or flagged (DS_EXP: whether the rest
 * has a value with an exponent is not known). */
int dec_sum_unmerge(struct dec_sum *dst, const struct dec_sum *src);
/* The same, flags left as they are: for a sum whose flags nothing reads
 * (a variance's, whose squares are all flagged). */
int dec_sum_sub(struct dec_sum *dst, const struct dec_sum *src);

/* Whether the sum is written as the exact decimal: every value it holds
 * was plain decimal. (The sum itself is always exact.) */
int dec_sum_exact(const struct dec_sum *s);

/* Whether a sum held in w (not big) is zero, at whatever scale. */
int dec_sum_zero(const struct dec_sum *s);

/* Whether an exact sum held in w is an integer within 64 bits (scale 0),
 * the commonest: then *v, which dec_sum_format() writes as
 * num_format_int() does. */
int dec_sum_int(const struct dec_sum *s, int64_t *v);

/* Writes an exact sum held in w (not big; dec_sum_exact()): trailing
 * zeros after the point and a bare point dropped ("11.1", "3", "-0.25",
 * never "-0"). buf has DEC_BUFSZ bytes; returns the length. An empty sum
 * writes "0": the caller writes NULL for n == 0. */
size_t dec_sum_format(char *buf, const struct dec_sum *s);

/* Writes the decimal of digits dig[0..k) (no leading zeros, none for 0),
 * negative when neg, with sc places (sc >= 0), as dec_sum_format() does;
 * buf has room for k + sc + 3 bytes. Returns the length. */
size_t dec_layout(char *buf, const char *dig, size_t k, int neg, int32_t sc);

/* The sum held in w as text strtod(3) reads exactly ("-1234e-2"), buf
 * DEC_BUFSZ bytes; returns the length. */
size_t dec_sum_text(char *buf, const struct dec_sum *s);

/* The double nearest the decimal text (as dec_sum_text() writes),
 * correctly rounded by strtod(3): +-HUGE_VAL past the doubles' range,
 * never -0; errno is left alone. */
double dec_text_double(const char *text);

/* The mean, n > 0, of a sum held in w whose scale is 0 to 38: the exact
 * sum divided by n, correctly rounded once. Never -0. Returns -1 (and
 * leaves *d) for any other sum: bigsum_avg() then. */
int dec_sum_avg(const struct dec_sum *s, double *d);

#endif
