/*
 * Fuzz target "num": num_parse, num_format_double and num_format_int.
 *
 * The data is the text to parse; its first 8 bytes are also a double and
 * an int64 to print. Properties:
 *	- what num_parse accepts is only [+-]digits[.digits][e[+-]digits]
 *	  (some digit), and strtod reads the same value from it;
 *	- an integer (is_int) is exact: d == i, and it prints back as the
 *	  same text, but for a '+' and leading zeros;
 *	- num_format_double of any finite double is shorter than NUM_BUFSZ,
 *	  num_parse accepts it, and it reads back as the same double; it is
 *	  the shortest such text (one digit fewer does not read back);
 *	- num_format_int prints any int64 so that it parses back exactly.
 */
#include <math.h>

#include "fuzz.h"

#include "base/num.h"

static int
isdig(char c)
{
	return c >= '0' && c <= '9';
}

/* The syntax num_parse documents, checked independently. */
static int
syntax_ok(const char *p, size_t n)
{
	size_t i = 0, nd = 0;

	if (i < n && (p[i] == '-' || p[i] == '+'))
		i++;
	while (i < n && isdig(p[i]))
		i++, nd++;
	if (i < n && p[i] == '.') {
		i++;
		while (i < n && isdig(p[i]))
			i++, nd++;
	}
	if (nd == 0)
		return 0;
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '-' || p[i] == '+'))
			i++;
		if (i == n || !isdig(p[i]))
			return 0;
		while (i < n && isdig(p[i]))
			i++;
	}
	return i == n;
}

/* Significant digits of a %e-style or plain decimal text: from the first
 * non-zero digit to the last (the zeros of "100" are not significant). */
static int
sig_digits(const char *s)
{
	int n = 0, last = 0, started = 0;

	for (; *s != '\0' && *s != 'e'; s++) {
		if (!isdig(*s))
			continue;
		if (*s != '0')
			started = 1;
		if (started) {
			n++;
			if (*s != '0')
				last = n;
		}
	}
	return last;
}

static void
check_double(double d)
{
	char buf[NUM_BUFSZ + 16], e[64];
	struct num nu;
	size_t n;
	int digits;

	memset(buf, 'X', sizeof(buf));
	n = num_format_double(buf, d);
	if (n >= NUM_BUFSZ || buf[n] != '\0' || strlen(buf) != n)
		fz_fail("num_format_double(%a) wrote %zu bytes", d, n);
	if (isnan(d) || isinf(d)) {
		if (num_parse(buf, n, &nu) == 0)
			fz_fail("\"%s\" parsed as a number", buf);
		return;
	}
	if (num_parse(buf, n, &nu) != 0)
		fz_fail("num_format_double(%a) = \"%s\" does not parse", d, buf);
	if (nu.d != d)
		fz_fail("num_format_double(%a) = \"%s\" reads back as %a", d,
		    buf, nu.d);
	/* shortest: one significant digit fewer does not read back */
	digits = sig_digits(buf);
	if (digits > 1 && d != 0) {
		snprintf(e, sizeof(e), "%.*e", digits - 2, d);
		if (strtod(e, NULL) == d)
			fz_fail("num_format_double(%a) = \"%s\" is not the "
			    "shortest (\"%s\")", d, buf, e);
	}
}

static void
check_int(int64_t v)
{
	char buf[NUM_BUFSZ + 16];
	struct num nu;
	size_t n;

	memset(buf, 'X', sizeof(buf));
	n = num_format_int(buf, v);
	if (n >= NUM_BUFSZ || buf[n] != '\0' || strlen(buf) != n)
		fz_fail("num_format_int(%lld) wrote %zu bytes", (long long)v, n);
	if (num_parse(buf, n, &nu) != 0 || !nu.is_int || nu.i != v)
		fz_fail("num_format_int(%lld) = \"%s\" does not read back",
		    (long long)v, buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	struct num nu;
	char *s;
	double d;
	int64_t v;

	if (num_parse(p, size, &nu) == 0) {
		if (!syntax_ok(p, size))
			fz_fail("num_parse accepted text outside its syntax");
		if ((s = malloc(size + 1)) == NULL)
			abort();
		memcpy(s, p, size);
		s[size] = '\0';
		if (strtod(s, NULL) != nu.d)
			fz_fail("num_parse(\"%s\") = %a, strtod says %a", s,
			    nu.d, strtod(s, NULL));
		free(s);
		if (isinf(nu.d) || isnan(nu.d))
			fz_fail("num_parse gave inf or nan");
		if (nu.is_int) {
			if ((double)nu.i != nu.d)
				fz_fail("is_int but d != i");
			check_int(nu.i);
		}
		check_double(nu.d);
	} else if (syntax_ok(p, size) && size <= 4096) {
		/* refused although well-formed: only an overflow may be */
		if ((s = malloc(size + 1)) == NULL)
			abort();
		memcpy(s, p, size);
		s[size] = '\0';
		if (!isinf(strtod(s, NULL)))
			fz_fail("num_parse refused \"%s\"", s);
		free(s);
	}
	if (size >= 8) {
		memcpy(&d, data, 8);
		check_double(d);
		memcpy(&v, data, 8);
		check_int(v);
	}
	return 0;
}
