/* num: parse and print the numbers of aggregates. */
#ifndef FWIN_NUM_H
#define FWIN_NUM_H

#include <stddef.h>
#include <stdint.h>

/* Room for any number num_format_*() writes, with its NUL. */
#define NUM_BUFSZ 32

struct num {
	double d;	/* the value */
	int64_t i;	/* the value, when is_int */
	int is_int;	/* written as a decimal integer that fits in int64 */
};

/* Parses p[0..n) (not NUL-terminated) as a decimal number: an optional
 * sign, digits with an optional fraction, an optional exponent ("-3",
 * "2.50", "1e3", ".5"). No spaces, hex, inf or nan. Returns 0, or -1 when
 * the text is not such a number (or is out of double range). */
int num_parse(const char *p, size_t n, struct num *out);

/* Writes d in the shortest form that reads back as the same double
 * ("2.5", "0.1", "1e+21"); inf and nan as "inf", "-inf", "nan". Returns
 * the length; buf has NUM_BUFSZ bytes. */
size_t num_format_double(char *buf, double d);

/* Writes v in decimal; returns the length; buf has NUM_BUFSZ bytes. */
size_t num_format_int(char *buf, int64_t v);

#endif
