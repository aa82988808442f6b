/* Unit tests of num: parsing, and printing that reads back exactly. */
#include <errno.h>
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "unit.h"

#define NEL(a)	(sizeof(a) / sizeof((a)[0]))

/* Parses s as a slice without its NUL, so reading past n trips ASan. */
static int
parse(const char *s, struct num *out)
{
	size_t n = strlen(s);
	char *copy = malloc(n + 1);
	int rc;

	memcpy(copy, s, n);
	rc = num_parse(copy, n, out);
	free(copy);
	return rc;
}

static void
test_parse_int(void)
{
	static const struct {
		const char *in;
		int64_t want;
	} t[] = {
		{ "0", 0 },
		{ "-0", 0 },
		{ "+0", 0 },
		{ "7", 7 },
		{ "-3", -3 },
		{ "+42", 42 },
		{ "007", 7 },
		{ "-007", -7 },
		{ "1700000000", 1700000000 },
		{ "9007199254740993", INT64_C(9007199254740993) },
		{ "9223372036854775807", INT64_MAX },
		{ "-9223372036854775807", -INT64_MAX },
		{ "-9223372036854775808", INT64_MIN },
	};
	struct num n;
	size_t i;

	for (i = 0; i < NEL(t); i++) {
		memset(&n, 0xff, sizeof(n));
		CHECK(parse(t[i].in, &n) == 0);
		CHECK(n.is_int == 1);
		CHECK(n.i == t[i].want);
		CHECK(n.d == (double)t[i].want);
		if (n.is_int != 1 || n.i != t[i].want)
			fprintf(stderr, "  \"%s\": is_int %d, %lld\n", t[i].in,
			    n.is_int, (long long)n.i);
	}
}

static void
test_parse_double(void)
{
	static const struct {
		const char *in;
		double want;
	} t[] = {
		{ "2.50", 2.5 },
		{ "2.5", 2.5 },
		{ "-2.5", -2.5 },
		{ "+2.5", 2.5 },
		{ ".5", 0.5 },
		{ "-.5", -0.5 },
		{ "5.", 5.0 },
		{ "5.0", 5.0 },
		{ "0.1", 0.1 },
		{ "1e3", 1000.0 },
		{ "1E3", 1000.0 },
		{ "1e+3", 1000.0 },
		{ "1e-3", 0.001 },
		{ "-1.5e-3", -0.0015 },
		{ ".5e1", 5.0 },
		{ "5.e1", 50.0 },
		{ "0e999999999999999999", 0.0 },
		{ "1e-400", 0.0 },		/* underflow is a number */
		{ "4.9406564584124654e-324", 4.9406564584124654e-324 },
		{ "1.7976931348623157e308", DBL_MAX },
		{ "-1.7976931348623157e308", -DBL_MAX },
		{ "9223372036854775808", 9223372036854775808.0 },
		{ "-9223372036854775809", -9223372036854775808.0 },
		{ "99999999999999999999999", 1e23 },
		/* Correctly rounded: halfway cases and long digit strings. */
		{ "9007199254740993.0", 9007199254740992.0 },
		{ "9007199254740993.00000000000000000001", 9007199254740994.0 },
		{ "0.30000000000000001665", 0.3 },	/* just below half */
		{ "0.30000000000000001666", 0.30000000000000004 },
		{ "2.2250738585072011e-308", 2.2250738585072011e-308 },
	};
	struct num n;
	size_t i;

	for (i = 0; i < NEL(t); i++) {
		memset(&n, 0xff, sizeof(n));
		CHECK(parse(t[i].in, &n) == 0);
		CHECK(n.is_int == 0);
		CHECK(n.d == t[i].want);
		if (n.is_int != 0 || n.d != t[i].want)
			fprintf(stderr, "  \"%s\": is_int %d, %.17g\n", t[i].in,
			    n.is_int, n.d);
	}
	/* The sign of zero survives the double path. */
	CHECK(parse("-0.0", &n) == 0 && n.d == 0 && signbit(n.d));
	CHECK(parse("-0e5", &n) == 0 && n.d == 0 && signbit(n.d));
}

static void
test_parse_reject(void)
{
	static const char *const t[] = {
		"", "-", "+", ".", "-.", "+.", "e", "e5", ".e5", "-e5",
		"1e", "1e+", "1e-", "1e+-3", "1ee3", "1e3.5", "1e 3", "1.2.3",
		"1..2", "--1", "+-1", "-+1", " 1", "1 ", "1\n", "\t1",
		"1,5", "1_000", "0x10", "0X1p3", "1p3", "inf", "-inf",
		"infinity", "nan", "NaN", "1d", "1f", "1L", "12a", "a12",
		"\xef\xbc\x91",	/* fullwidth digit one */
	};
	/* numbers, but beyond the range of doubles */
	static const char *const huge[] = {
		"1e309", "-1e309", "1.8e308", "1e99999999999999999999",
	};
	struct num n;
	size_t i;

	for (i = 0; i < NEL(t); i++) {
		CHECK(parse(t[i], &n) == -1);
		if (parse(t[i], &n) != -1)
			fprintf(stderr, "  accepted \"%s\"\n", t[i]);
	}
	for (i = 0; i < NEL(huge); i++) {
		CHECK(parse(huge[i], &n) == NUM_RANGE);
		if (parse(huge[i], &n) != NUM_RANGE)
			fprintf(stderr, "  not out of range \"%s\"\n", huge[i]);
	}
	/* An embedded NUL is not the end of the number. */
	CHECK(num_parse("1\0002", 3, &n) == -1);
	CHECK(num_parse("1.5\0", 4, &n) == -1);
	/* A slice stops at n, whatever follows. */
	CHECK(num_parse("12x", 2, &n) == 0 && n.is_int && n.i == 12);
	CHECK(num_parse("1.5e", 3, &n) == 0 && !n.is_int && n.d == 1.5);
	CHECK(num_parse("5", 0, &n) == -1);
}

static void
test_parse_long(void)
{
	static char buf[5000];
	struct num n;

	/* Long but within the bound: exact by strtod. */
	buf[0] = '0';
	buf[1] = '.';
	memset(buf + 2, '0', 3000);
	buf[3002] = '1';
	CHECK(num_parse(buf, 3003, &n) == 0 && !n.is_int && n.d == 0.0);
	memset(buf, '0', 4095);
	buf[4095] = '5';
	CHECK(num_parse(buf, 4096, &n) == 0 && n.is_int && n.i == 5);
	/* An integer too long for int64 but within 4096 bytes: a double. */
	memset(buf, '1', 300);
	CHECK(num_parse(buf, 300, &n) == 0 && !n.is_int && n.d > 1e299);
	memset(buf, '0', 4094);
	buf[4094] = '.';
	buf[4095] = '5';
	CHECK(num_parse(buf, 4096, &n) == 0 && !n.is_int && n.d == 0.5);
	/* Past the bound: refused, without a crash. */
	memset(buf, '0', 4095);
	buf[4095] = '.';
	buf[4096] = '5';
	CHECK(num_parse(buf, 4097, &n) == -1);
	memset(buf, '9', sizeof(buf));
	CHECK(num_parse(buf, sizeof(buf), &n) == -1);
	/* An integer of any length still parses: no copy is needed. */
	memset(buf, '0', sizeof(buf));
	buf[sizeof(buf) - 1] = '3';
	CHECK(num_parse(buf, sizeof(buf), &n) == 0 && n.is_int && n.i == 3);

	/* errno is left alone, even on overflow and underflow. */
	errno = 1234;
	CHECK(num_parse("1e-400", 6, &n) == 0 && errno == 1234);
	CHECK(num_parse("1e400", 5, &n) == NUM_RANGE && errno == 1234);
}

static void
test_format_double(void)
{
	static const struct {
		double d;
		const char *want;
	} t[] = {
		{ 2.5, "2.5" },
		{ 0.1, "0.1" },
		{ 1e21, "1e+21" },
		{ 100, "100" },
		{ 1e16, "1e+16" },
		{ 1e15, "1000000000000000" },
		{ 123456789012345680.0, "1.2345678901234568e+17" },
		{ 1234567890123456.0, "1234567890123456" },
		{ 0, "0" },
		{ -0.0, "-0" },
		{ 1, "1" },
		{ -1, "-1" },
		{ 10, "10" },
		{ 1000, "1000" },
		{ 100000, "100000" },
		{ 1.5, "1.5" },
		{ -2.5, "-2.5" },
		{ 0.3, "0.3" },
		{ 0.1 + 0.2, "0.30000000000000004" },
		{ 1.0 / 3, "0.3333333333333333" },
		{ 2.0 / 3, "0.6666666666666666" },
		{ 0.001, "0.001" },
		{ 0.0001, "0.0001" },
		{ 0.00001, "1e-05" },
		{ 0.000123, "0.000123" },
		{ 1.5e-7, "1.5e-07" },
		{ 1e100, "1e+100" },
		{ 123.456, "123.456" },
		{ 9007199254740993.0, "9007199254740992" },
		{ 5e-324, "5e-324" },
		{ DBL_MAX, "1.7976931348623157e+308" },
		{ -DBL_MAX, "-1.7976931348623157e+308" },
		{ DBL_MIN, "2.2250738585072014e-308" },
		{ 9.5, "9.5" },
		{ 0.5, "0.5" },
		{ 99.99, "99.99" },
		/* powers of two: the nearest 16 digits (...801e-14) fall
		 * below the narrow lower half-gap, the next ones above
		 * read back (Python's repr() too) */
		{ 0x1p-44, "5.684341886080802e-14" },
		{ 0x1p-1017, "7.120236347223045e-307" },
		{ 0x1p-1007, "7.291122019556398e-304" },
		{ 0x1p1023, "8.98846567431158e+307" },
		{ 0x1p54, "1.8014398509481984e+16" },
		{ 0x1p-14, "6.103515625e-05" },
		{ HUGE_VAL, "inf" },
		{ -HUGE_VAL, "-inf" },
		{ NAN, "nan" },
		{ -NAN, "nan" },
	};
	char buf[NUM_BUFSZ];
	size_t i, n;

	for (i = 0; i < NEL(t); i++) {
		memset(buf, 'X', sizeof(buf));
		n = num_format_double(buf, t[i].d);
		CHECK_STR(buf, t[i].want);
		CHECK(n == strlen(t[i].want));
		/* a result: the same, but a zero has no sign */
		memset(buf, 'X', sizeof(buf));
		n = num_format_result(buf, t[i].d);
		CHECK_STR(buf, t[i].d == 0 ? "0" : t[i].want);
		CHECK(n == strlen(buf));
	}
}

/* Shortest and exact over many doubles: the text reads back (through
 * num_parse too), is < NUM_BUFSZ, and one digit fewer would not do. */
static void
test_roundtrip(void)
{
	char buf[NUM_BUFSZ], fewer[64];
	uint64_t x = 2463534242ULL;
	struct num nm;
	double d;
	size_t n;
	int i, k, z, ok = 1, sig;

	for (i = 0; i < 300000 && ok; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (i % 2 == 0)
			memcpy(&d, &x, sizeof(d));	/* any bit pattern */
		else
			/* like decimals from input */
			d = (double)(int64_t)(x >> 20) / 1000;
		if (!isfinite(d))
			continue;
		n = num_format_double(buf, d);
		if (n >= NUM_BUFSZ || strtod(buf, NULL) != d ||
		    num_parse(buf, n, &nm) != 0 || nm.d != d) {
			fprintf(stderr, "  %a: \"%s\"\n", d, buf);
			ok = 0;
			break;
		}
		/* Its significant digits, without leading and trailing
		 * zeros ("100" has one): one fewer must not read back. */
		sig = 0;
		for (k = 0, z = 0; buf[k] != '\0' && buf[k] != 'e'; k++) {
			if (buf[k] < '0' || buf[k] > '9')
				continue;
			if (buf[k] == '0') {
				if (sig > 0)
					z++;
			} else {
				sig += z + 1;
				z = 0;
			}
		}
		if (sig > 1) {
			snprintf(fewer, sizeof(fewer), "%.*e", sig - 2, d);
			if (strtod(fewer, NULL) == d) {
				fprintf(stderr, "  %a: \"%s\" not shortest\n",
				    d, buf);
				ok = 0;
			}
		}
	}
	CHECK(ok);
}

/*
 * The reference num_format_double must equal byte for byte, the shortest
 * digits found the slow, plain way. A p-digit decimal reads back as d
 * when strtod(3) rounds it to d, and those that do form an interval
 * around d; so some p digits read back exactly when the nearest p-digit
 * decimal below d (d cut to p digits, F) or the one above (F plus one in
 * the last digit, C) does, and then so do some p + 1 digits (the same
 * number). The fewest p for which F or C reads back is found by binary
 * search; of F and C, when both read back, the nearer d is taken, the
 * even one when d is halfway, as Python's repr() does. The digits of d
 * are its exact ones: printf(3) rounding toward zero gives 31 of them,
 * and rounding up gives the same 31 exactly when there are no more.
 */

/* Whether 0.dig[0..p) x 10^e reads back as a (> 0). */
static int
ref_reads_back(const char *dig, int p, int e, double a)
{
	char s[64], *q = s + 2;

	s[0] = '0';
	s[1] = '.';
	memcpy(q, dig, (size_t)p);
	q += p;
	*q++ = 'e';
	if (e < 0)
		*q++ = '-';
	*num_put_uint(q, (uint64_t)abs(e), 0) = '\0';
	return strtod(s, NULL) == a;
}

/* dig[0..p) plus one in the last digit; returns 1 when it carried out
 * to "1000...", one more in the exponent. */
static int
ref_incr(char *dig, int p)
{
	int i;

	for (i = p - 1; i >= 0 && dig[i] == '9'; i--)
		dig[i] = '0';
	if (i >= 0) {
		dig[i]++;
		return 0;
	}
	dig[0] = '1';
	return 1;
}

/* Whether some q digits read back: d has q digits (F is d), or F or
 * C does; what was found is kept in fr[q] and cr[q]. */
static int
ref_try(const char *D, int q, int E, int exact, double a, signed char *fr,
    signed char *cr)
{
	char C[32];
	int Ce;

	if (exact && strspn(D + q, "0") == (size_t)(31 - q)) {
		fr[q] = 1;
		cr[q] = 0;
		return 1;
	}
	if ((fr[q] = (signed char)ref_reads_back(D, q, E, a)))
		return 1;
	memcpy(C, D, (size_t)q);
	Ce = E + ref_incr(C, q);
	return cr[q] = (signed char)ref_reads_back(C, q, Ce, a);
}

static size_t
ref_format_double(char *buf, double d)
{
	char lo[64], hi[64], D[32], F[32], C[32], *p = buf;
	const char *dig;
	double a = fabs(d);
	int exact, E, Ce, prec, plo, phi, i, n, exp, nz, up;
	signed char fr[18], cr[18];
	int saved = errno;

	if (isnan(d))
		return strlen(strcpy(buf, "nan"));
	if (isinf(d))
		return strlen(strcpy(buf, d < 0 ? "-inf" : "inf"));
	if (signbit(d))
		*p++ = '-';
	if (a == 0) {
		strcpy(p, "0");
		return strlen(buf);
	}
	fesetround(FE_TOWARDZERO);
	snprintf(lo, sizeof(lo), "%.30e", a);
	fesetround(FE_UPWARD);
	snprintf(hi, sizeof(hi), "%.30e", a);
	fesetround(FE_TONEAREST);
	exact = strcmp(lo, hi) == 0;
	D[0] = lo[0];
	memcpy(D + 1, lo + 2, 30);
	D[31] = '\0';
	E = atoi(lo + 33) + 1;		/* d = 0.D x 10^E */

	/* fewest p: d itself has p digits, or F or C reads back (F
	 * tried first; fr[p], cr[p]: 1 yes, 0 no, -1 not tried) */
	memset(fr, -1, sizeof(fr));
	memset(cr, -1, sizeof(cr));
	for (plo = 1, phi = 17; plo < phi;) {
		prec = (plo + phi) / 2;
		if (ref_try(D, prec, E, exact, a, fr, cr))
			phi = prec;
		else
			plo = prec + 1;
	}
	prec = plo;
	memcpy(F, D, (size_t)prec);
	memcpy(C, D, (size_t)prec);
	Ce = E + ref_incr(C, prec);
	nz = strspn(D + prec, "0") != (size_t)(31 - prec) || !exact;
	if (fr[prec] < 0)
		fr[prec] = !nz || ref_reads_back(F, prec, E, a);
	if (cr[prec] < 0)
		cr[prec] = nz && ref_reads_back(C, prec, Ce, a);
	if (fr[prec] && cr[prec]) {
		/* both: the nearer, by the digits after F's */
		if (D[prec] != '5')
			up = D[prec] > '5';
		else if (strspn(D + prec + 1, "0") != (size_t)(30 - prec) ||
		    !exact)
			up = 1;
		else
			up = (F[prec - 1] - '0') % 2 == 1;	/* to even */
	} else
		up = cr[prec];
	dig = up ? C : F;
	exp = (up ? Ce : E) - 1;	/* d = dig[0].dig[1..] x 10^exp */
	errno = saved;
	for (n = prec; n > 1 && dig[n - 1] == '0'; n--)
		;

	/* Python's repr() notation */
	if (exp >= 16 || exp < -4) {
		*p++ = dig[0];
		if (n > 1) {
			*p++ = '.';
			memcpy(p, dig + 1, (size_t)n - 1);
			p += n - 1;
		}
		p += sprintf(p, "e%c%02d", exp < 0 ? '-' : '+', abs(exp));
	} else if (exp < 0) {
		p += sprintf(p, "0.");
		for (i = exp; i < -1; i++)
			*p++ = '0';
		memcpy(p, dig, (size_t)n);
		p += n;
	} else {
		for (i = 0; i <= exp; i++)
			*p++ = i < n ? dig[i] : '0';
		if (n > exp + 1) {
			*p++ = '.';
			memcpy(p, dig + exp + 1, (size_t)(n - exp - 1));
			p += n - exp - 1;
		}
	}
	*p = '\0';
	return (size_t)(p - buf);
}

static long same_fails;

/* num_format_double(d) is ref_format_double(d), bytes and length. */
static void
same(double d)
{
	char got[NUM_BUFSZ + 8], want[NUM_BUFSZ + 8];
	size_t n, m;

	memset(got, 'X', sizeof(got));
	n = num_format_double(got, d);
	m = ref_format_double(want, d);
	if (n == m && strcmp(got, want) == 0) {
		unit_pass++;
		return;
	}
	unit_fail++;
	if (same_fails++ < 20)
		fprintf(stderr, "  %a: got \"%s\" (%zu), want \"%s\" (%zu)\n",
		    d, got, n, want, m);
}

/* d and its neighbours, and their negatives. */
static void
same_around(double d, int width)
{
	double up = d, down = d;

	same(d);
	same(-d);
	for (int i = 0; i < width; i++) {
		up = nextafter(up, HUGE_VAL);
		down = nextafter(down, -HUGE_VAL);
		same(up);
		same(-up);
		same(down);
		same(-down);
	}
}

static double
from_bits(uint64_t b)
{
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

/* The edges: zeros, subnormals, the ends of the range, every power of
 * two and of ten with their neighbours, the notation's boundaries, and
 * integers to 2^53 and past it. */
static void
test_same_edges(void)
{
	static const char *const dec[] = {
		"1e15", "1e16", "1e-4", "1e-5", "9999999999999998",
		"9999999999999999", "999999999999999.9", "0.0001",
		"0.00009999999999999999", "0.000099999", "1e17", "1e22",
		"1e23", "5e-324", "2.2250738585072009e-308",
		"2.2250738585072014e-308", "1.7976931348623157e308",
		"0.1", "0.2", "0.3", "2.5", "0.5", "9.5", "99.99",
		"123456789012345678", "1.2345678901234567e-300",
	};
	double d;
	uint64_t b;
	int i;

	same(0.0);
	same(-0.0);
	same(0.1 + 0.2);
	same(NAN);
	same(-NAN);
	same(HUGE_VAL);
	same(-HUGE_VAL);
	for (i = 0; i < (int)NEL(dec); i++)
		same_around(strtod(dec[i], NULL), 3);
	/* subnormals: the first thousand, then every bit position */
	for (b = 1; b <= 1000; b++)
		same_around(from_bits(b), 0);
	for (i = 0; i < 52; i++) {
		same_around(from_bits(1ULL << i), 2);
		same_around(from_bits((1ULL << (i + 1)) - 1), 0);
	}
	same_around(DBL_MIN, 3);
	same_around(DBL_MAX, 3);
	same_around(DBL_TRUE_MIN, 3);
	/* every power of two (the narrow half-gaps below) */
	for (i = -1074; i <= 1023; i++)
		same_around(ldexp(1, i), 2);
	/* powers of ten as parsed, and as multiplied */
	for (i = -323, d = 1e-323; i <= 308; i++, d *= 10) {
		char s[16];

		snprintf(s, sizeof(s), "1e%d", i);
		same_around(strtod(s, NULL), 2);
		same_around(d, 0);
	}
	/* integers: small, up to 2^53 and beyond */
	for (i = 0; i <= 100000; i++)
		same(i);
	for (i = 0; i < 64; i++) {
		same_around(ldexp(1, 53) + i * 2, 0);
		same_around(ldexp(1, 53) - i, 0);
		same_around((double)(UINT64_MAX >> i), 1);
		same_around((double)(1000000000000000ULL * (i + 1)), 1);
	}
	for (i = 0; i < 100000; i++)
		same((double)(unit_rnd() >> 11));
	for (i = 0; i < 100000; i++)
		same((double)(unit_rnd() >> (unit_rnd() % 64)));
}

/* Random doubles: any bit pattern, and numbers as input has them
 * (digits, some after a point, some with an exponent), and quotients
 * like averages. FWIN_NUM_SWEEP=N multiplies the count by N. */
static void
test_same_random(void)
{
	const char *env = getenv("FWIN_NUM_SWEEP");
	long i, n = 400000, scale = env != NULL ? atol(env) : 1;
	char s[64];
	uint64_t r;
	double d;

	if (scale < 1)
		scale = 1;
	n *= scale;
	for (i = 0; i < 2 * n; i++) {
		d = from_bits(unit_rnd());
		same(d);
	}
	for (i = 0; i < n; i++) {
		r = unit_rnd();
		/* 1 to 17 digits, a point anywhere or an exponent */
		snprintf(s, sizeof(s), "%llu",
		    (unsigned long long)(r >> 4) % 100000000000000000ULL %
		    (1ULL << (r % 57)));
		if (unit_rnd() % 2 == 0)
			snprintf(s + strlen(s), 16, "e%d",
			    (int)unit_below(640) - 330);
		else
			snprintf(s + strlen(s), 16, "e-%d",
			    (int)unit_below(20));
		same(strtod(s, NULL));
	}
	for (i = 0; i < n / 2; i++) {
		r = unit_rnd();
		d = (double)(int64_t)(r >> (r % 48 + 16)) /
		    (double)(unit_below(100000) + 1);
		same(i % 2 == 0 ? d : d * 1e-3);
	}
}

/*
 * Python's repr() of the 2098 powers of two and of 4000 other doubles,
 * as Python 3 printed them (tests/unit/num_repr.txt says how): the same
 * digits and notation but for repr()'s ".0" after an integer in plain
 * notation ("1000000000000000.0" is fwin's "1000000000000000"). The
 * reference above is held to them too.
 */
static void
test_python(void)
{
	char line[128], want[64], got[NUM_BUFSZ], ref[NUM_BUFSZ];
	unsigned long long b;
	size_t len;
	long n = 0, bad = 0;
	FILE *f = fopen("tests/unit/num_repr.txt", "r");

	CHECK(f != NULL);
	if (f == NULL) {
		fprintf(stderr, "  tests/unit/num_repr.txt: run from the "
		    "top directory\n");
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%llx %63s", &b, want) != 2) {
			CHECK(!"a line of num_repr.txt");
			continue;
		}
		len = strlen(want);
		if (len > 2 && strcmp(want + len - 2, ".0") == 0 &&
		    strchr(want, 'e') == NULL)
			want[len - 2] = '\0';
		n++;
		num_format_double(got, from_bits(b));
		ref_format_double(ref, from_bits(b));
		if (strcmp(got, want) == 0 && strcmp(ref, want) == 0) {
			unit_pass++;
			continue;
		}
		unit_fail++;
		if (bad++ < 20)
			fprintf(stderr, "  %a: got \"%s\", reference \"%s\", "
			    "Python \"%s\"\n", from_bits(b), got, ref, want);
	}
	fclose(f);
	CHECK(n == 6098);
}

static void
test_format_int(void)
{
	static const struct {
		int64_t v;
		const char *want;
	} t[] = {
		{ 0, "0" },
		{ 1, "1" },
		{ -1, "-1" },
		{ 9, "9" },
		{ 10, "10" },
		{ -10, "-10" },
		{ 1700000000, "1700000000" },
		{ INT64_MAX, "9223372036854775807" },
		{ -INT64_MAX, "-9223372036854775807" },
		{ INT64_MIN, "-9223372036854775808" },
	};
	char buf[NUM_BUFSZ];
	struct num nm;
	size_t i, n;

	for (i = 0; i < NEL(t); i++) {
		memset(buf, 'X', sizeof(buf));
		n = num_format_int(buf, t[i].v);
		CHECK_STR(buf, t[i].want);
		CHECK(n == strlen(t[i].want));
		CHECK(num_parse(buf, n, &nm) == 0 && nm.is_int &&
		    nm.i == t[i].v);
	}
}

/* num_digits against a digit-by-digit reference: every length up to 19,
 * and every position of a non-digit, with bytes on each side of '0'-'9'
 * and bytes whose low nibble is a digit (0xB5, 0x35 + 0x80...). And
 * num_digits_near(), its head kept from each number to the next (the
 * same number twice: the second read with the head of the first), and
 * num_short_digits() of 1 to 8 bytes, whatever follows them. */
static void
test_digits(void)
{
	static const char bad[] = { '/', ':', ' ', '.', '-', (char)0xB5,
	    (char)0x05, (char)0x3F, (char)0xF0, 'a', '\0' };
	char buf[32];
	size_t n, pos, b, got, want;
	uint64_t v, ref;
	struct num_head h = { 0, 0 };

	for (n = 0; n <= 19; n++) {
		for (pos = 0; pos <= n; pos++) {
			for (b = 0; b < sizeof(bad); b++) {
				/* past the number: digits, or not */
				memset(buf, b & 1 ? '7' : ':', sizeof(buf));
				for (size_t i = 0; i < n; i++)
					buf[i] = (char)('0' + (i * 7 + n) % 10);
				if (pos < n)
					buf[pos] = bad[b];
				for (want = 0, ref = 0; want < n &&
				    buf[want] >= '0' && buf[want] <= '9'; want++)
					ref = ref * 10 + (uint64_t)(buf[want] - '0');
				got = num_digits(buf, n, &v);
				CHECK(got == want && v == ref);
				got = num_digits_near(buf, n, &v, &h);
				CHECK(got == want && v == ref);
				got = num_digits_near(buf, n, &v, &h);
				CHECK(got == want && v == ref);
				if (n >= 1 && n <= 8) {
					v = 0;
					got = (size_t)num_short_digits(buf, n,
					    &v);
					CHECK(got == (want == n) &&
					    (want < n || v == ref));
				}
			}
		}
	}
	/* times one after the other: the head changes, comes back, is bad
	 * after a good one, has more leading zeros in a longer number */
	memset(&h, 0, sizeof(h));
	CHECK(num_digits_near("1699999998594", 13, &v, &h) == 13 &&
	    v == 1699999998594ULL);
	CHECK(num_digits_near("1699999999218", 13, &v, &h) == 13 &&
	    v == 1699999999218ULL);
	CHECK(num_digits_near("1700000000001", 13, &v, &h) == 13 &&
	    v == 1700000000001ULL);
	CHECK(num_digits_near("1699999999999", 13, &v, &h) == 13 &&
	    v == 1699999999999ULL);
	CHECK(num_digits_near("16a9999999999", 13, &v, &h) == 2 && v == 16);
	CHECK(num_digits_near("0169999999999", 13, &v, &h) == 13 &&
	    v == 169999999999ULL);
	CHECK(num_digits_near("00169999999999", 14, &v, &h) == 14 &&
	    v == 169999999999ULL);
	CHECK(num_digits_near("169999999999", 12, &v, &h) == 12 &&
	    v == 169999999999ULL);
	CHECK(num_digits_near("1699999999a9", 12, &v, &h) == 10 &&
	    v == 1699999999ULL);
	CHECK(num_digits("9999999999999999999", 19, &v) == 19 &&
	    v == 9999999999999999999ULL);
	CHECK(num_digits("12345678", 8, &v) == 8 && v == 12345678);
	CHECK(num_digits("00000000012", 11, &v) == 11 && v == 12);
}

/* num_put_uint: widths, and every power of ten and its neighbours. */
static void
test_put_uint(void)
{
	char buf[32], want[32];
	uint64_t v = 1;
	int i, w;

	for (i = 0; i < 20; i++, v *= 10) {
		uint64_t t[3] = { v - 1, v, v + 1 };

		for (int j = 0; j < 3; j++)
			for (w = 0; w <= 20; w += 4) {
				*num_put_uint(buf, t[j], w) = '\0';
				snprintf(want, sizeof(want), "%0*llu", w,
				    (unsigned long long)t[j]);
				CHECK_STR(buf, want);
			}
	}
	*num_put_uint(buf, UINT64_MAX, 0) = '\0';
	CHECK_STR(buf, "18446744073709551615");
}

/* num_cmp_exact(): exact values, whatever the doubles; each pair both
 * ways round, and each text against itself. */
/* num_quotient_double: rounded once, as the exact quotient; dividing
 * doubles rounds twice. */
static void
test_quotient(void)
{
	static const struct {
		const char *m;
		long e;
		int64_t den;
		double want;
	} t[] = {
		{ "21", 9, 700000000, 30.0 },
		{ "-7", 9, 300000000, -23.333333333333332 },
		{ "1", 9, 1, 1e9 },
		{ "1", 0, 3000000000000000000, 3.3333333333333334e-19 },
		/* 0.2 as a double less 0.1, over 60 s in ns */
		{ "100000000000000011102230246251565404236316680908203125", -45,
		    60000000000, 0.0016666666666666668 },
		{ "0", 9, 7, 0.0 },
		{ "1", 400, 1, HUGE_VAL },
		{ "-1", 400, 1, -HUGE_VAL },
	};
	size_t i;
	double v;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v = num_quotient_double(t[i].m, t[i].e, t[i].den);
		CHECK(v == t[i].want && !signbit(v) == !signbit(t[i].want));
	}
}

static void
test_cmp_exact(void)
{
	static const struct {
		const char *a, *b;
		int want;	/* a against b */
	} t[] = {
		{ "1700000000000000001", "1700000000000000100", -1 },
		{ "0.1", "0.1000000000000000000001", -1 },
		{ "-0.1", "-0.1000000000000000000001", 1 },
		{ "0.10", "1e-1", 0 },
		{ "0.10", ".1", 0 },
		{ "+3", "3.", 0 },
		{ "007", "7.000", 0 },
		{ "0", "-0", 0 },
		{ "0.000", "0e99", 0 },
		{ "-0.0", "0E-5", 0 },
		{ "1e-400", "0", 1 },
		{ "-1e-400", "0", -1 },
		{ "-1e-400", "1e-400", -1 },
		{ "1e-400", "2e-400", -1 },
		{ "1e-401", "1e-400", -1 },
		{ "9", "10", -1 },
		{ "-9", "-10", 1 },
		{ "99.99", "100", -1 },
		{ "1.5", "1.49999999999999999999999", 1 },
		{ "12345678901234567890123456789012345678901",
		    "12345678901234567890123456789012345678902", -1 },
		{ "1.7e18", "1700000000000000000", 0 },
		{ "17e17", "1700000000000000001", -1 },
		{ "1E+3", "999.9999999999999999999", 1 },
		{ "0.00012", "1.2e-4", 0 },
		{ "5", "-5", 1 },
		{ "-5", "0", -1 },
		{ "1e100000000000000000000", "1e100000000000000000001", 0 },
		{ "2e-100000000000000000000", "1e-100000000000000000000", 1 },
	};
	size_t i;
	int got;

	for (i = 0; i < NEL(t); i++) {
		got = num_cmp_exact(t[i].a, strlen(t[i].a), t[i].b,
		    strlen(t[i].b));
		CHECK(got == t[i].want);
		CHECK(num_cmp_exact(t[i].b, strlen(t[i].b), t[i].a,
		    strlen(t[i].a)) == -t[i].want);
		CHECK(num_cmp_exact(t[i].a, strlen(t[i].a), t[i].a,
		    strlen(t[i].a)) == 0);
		if (got != t[i].want)
			fprintf(stderr, "  %s against %s: %d\n", t[i].a,
			    t[i].b, got);
	}
}

/* A random number's text: a sign, up to 25 digits with a point among
 * them (or none), an exponent at times. */
static size_t
random_number(char *buf)
{
	size_t n = 0, k, nd = 1 + unit_below(25), point = unit_below(nd + 2);

	if (unit_below(3) == 0)
		buf[n++] = unit_below(2) ? '-' : '+';
	for (k = 0; k < nd; k++) {
		if (k == point)
			buf[n++] = '.';
		/* few distinct digits, so that long values share prefixes */
		buf[n++] = (char)('0' + (unit_below(4) ? unit_below(2) * 9 :
		    unit_below(10)));
	}
	if (unit_below(3) == 0)
		n += (size_t)sprintf(buf + n, "e%d",
		    (int)unit_below(41) - 20);
	buf[n] = '\0';
	return n;
}

/* Where the doubles differ, the exact order is theirs; it is
 * antisymmetric, and a number equals itself with a zero appended. */
static void
test_cmp_random(void)
{
	char a[64], b[64];
	size_t na, nb, i;
	struct num x, y;
	int c;

	for (i = 0; i < 200000; i++) {
		na = random_number(a);
		nb = random_number(b);
		if (parse(a, &x) != 0 || parse(b, &y) != 0) {
			CHECK(0);
			continue;
		}
		c = num_cmp_exact(a, na, b, nb);
		if (x.d != y.d)
			CHECK(c == (x.d < y.d ? -1 : 1));
		CHECK(num_cmp_exact(b, nb, a, na) == -c);
		if (strchr(a, 'e') == NULL && strchr(a, '.') != NULL) {
			a[na] = '0';
			CHECK(num_cmp_exact(a, na + 1, a, na) == 0);
		}
	}
}

int
main(void)
{
	test_parse_int();
	test_parse_double();
	test_parse_reject();
	test_parse_long();
	test_format_double();
	test_roundtrip();
	unit_rstate = 0x6a09e667f3bcc909ULL;
	test_same_edges();
	test_same_random();
	test_python();
	test_format_int();
	test_digits();
	test_put_uint();
	test_cmp_exact();
	test_quotient();
	test_cmp_random();
	return unit_done("num");
}
