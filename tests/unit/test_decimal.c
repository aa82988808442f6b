/* Unit tests of decimal: parsing plain decimals, exact sums and their
 * text, the floating fallback, merge order, and the correctly rounded
 * mean. Expected floating values were derived with Python's floats and
 * fractions (float(Fraction(sum) / n) is correctly rounded); each is
 * stated next to its case. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/decimal.h"
#include "base/num.h"
#include "unit.h"

#define NEL(a)	(sizeof(a) / sizeof((a)[0]))

/* Parses s as a slice without its NUL, so reading past n trips ASan. */
static int
parse(const char *s, struct dec *out)
{
	size_t n = strlen(s);
	char *copy = malloc(n + 1);
	int rc;

	memcpy(copy, s, n);
	rc = dec_parse(copy, n, out);
	free(copy);
	return rc;
}

/* m in decimal, for comparing 128-bit mantissas as text. */
static const char *
i128_str(__int128 m, char *buf)
{
	unsigned __int128 u = m < 0 ? -(unsigned __int128)m : (unsigned __int128)m;
	char tmp[48], *p = tmp + sizeof(tmp);

	*--p = '\0';
	do {
		*--p = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u != 0);
	if (m < 0)
		*--p = '-';
	return strcpy(buf, p);
}

/* Adds plain decimal t to the sum in its fixed width, which holds any
 * sum of plain decimals. */
static void
add(struct dec_sum *s, const char *t)
{
	struct dec v;

	if (parse(t, &v) != 0 || dec_sum_add(s, &v) != 0) {
		fprintf(stderr, "test bug: %s is not plain\n", t);
		abort();
	}
}

static const char *
fmt(const struct dec_sum *s, char *buf)
{
	size_t n = dec_sum_format(buf, s);

	if (n != strlen(buf) || n >= DEC_BUFSZ)
		fprintf(stderr, "format length %zu for \"%s\"\n", n, buf);
	return buf;
}

static void
test_parse(void)
{
	static const struct {
		const char *in;
		const char *m;		/* NULL: not plain decimal */
		uint32_t scale;
	} t[] = {
		{ "-3", "-3", 0 },
		{ "2.50", "250", 2 },
		{ "0.1", "1", 1 },
		{ "+7", "7", 0 },
		{ ".5", "5", 1 },
		{ "-.5", "-5", 1 },
		{ "5.", "5", 0 },
		{ "0", "0", 0 },
		{ "-0", "0", 0 },
		{ "-0.000", "0", 3 },
		{ "007.0100", "70100", 4 },
		{ "1234567890123456789", "1234567890123456789", 0 },
		{ "-123456789.0123456789", "-1234567890123456789", 10 },
		{ "0.1234567890123456789", "1234567890123456789", 19 },
		/* past 19 digits: the slow path */
		{ "12345678901234567890", "12345678901234567890", 0 },
		{ "1.2345678901234567890", "12345678901234567890", 19 },
		{ "99999999999999999999999999999999999999",
		    "99999999999999999999999999999999999999", 0 },
		{ "-9999999999999999999.9999999999999999999",
		    "-99999999999999999999999999999999999999", 19 },
		{ "0.00000000000000000000000000000000000001", "1", 38 },
		{ "0000000000000000000000000000000000000000001.5", "15", 1 },
		/* trailing zeros dropped only as far as needed to fit */
		{ "1.0000000000000000000000000000000000000000",
		    "10000000000000000000000000000000000000", 37 },
		{ "0.000000000000000000000000000000000000000000", "0", 38 },
		/* not plain decimal, or too long */
		{ "100000000000000000000000000000000000000", NULL, 0 },
		{ "0.000000000000000000000000000000000000001", NULL, 0 },
		{ "1.00000000000000000000000000000000000001", NULL, 0 },
		{ "1e3", NULL, 0 },
		{ "1.5E-2", NULL, 0 },
		{ "12345678901234567890e1", NULL, 0 },
		{ "", NULL, 0 },
		{ "-", NULL, 0 },
		{ "+", NULL, 0 },
		{ ".", NULL, 0 },
		{ "-.", NULL, 0 },
		{ "1.2.3", NULL, 0 },
		{ " 1", NULL, 0 },
		{ "1 ", NULL, 0 },
		{ "--1", NULL, 0 },
		{ "0x10", NULL, 0 },
		{ "inf", NULL, 0 },
		{ "nan", NULL, 0 },
		{ "1,5", NULL, 0 },
	};
	char buf[64];
	struct dec v;
	size_t i;
	int rc;

	for (i = 0; i < NEL(t); i++) {
		memset(&v, 0xa5, sizeof(v));
		rc = parse(t[i].in, &v);
		if (t[i].m == NULL) {
			CHECK(rc == -1);
			if (rc != -1)
				fprintf(stderr, "  \"%s\" parsed\n", t[i].in);
			continue;
		}
		CHECK(rc == 0);
		if (rc != 0) {
			fprintf(stderr, "  \"%s\" refused\n", t[i].in);
			continue;
		}
		CHECK_STR(i128_str(v.m, buf), t[i].m);
		CHECK(v.scale == (int32_t)t[i].scale);
	}
}

/* A small deterministic generator (xorshift64*), no libc state. */
static uint64_t rng = 88172645463325252ULL;

static uint64_t
next(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

/* A random plain decimal of 1..maxdig digits, up to maxscale of them
 * after the point, maybe negative. */
static void
random_dec(char *buf, int maxdig, int maxscale)
{
	int nd = 1 + (int)(next() % (uint64_t)maxdig), sc, i;
	char *p = buf;

	sc = (int)(next() % (uint64_t)(maxscale + 1));
	if (sc > nd)
		sc = nd;
	if (next() & 1)
		*p++ = '-';
	for (i = 0; i < nd; i++) {
		if (i == nd - sc)
			*p++ = '.';
		*p++ = (char)('0' + next() % 10);
	}
	*p = '\0';
}

/* dec_to_double() is strtod(3)'s value (zeros aside), and therefore
 * num_parse()'s: the floating fallback sums what the old sums summed. */
static void
test_to_double(void)
{
	static const char *t[] = {
		"0.1", "2.50", "-3", "9007199254740993", "0.3",
		"123456789012345.678", "1.7976931348623157",
		"99999999999999999999999999999999999999",
		"0.00000000000000000000000000000000000001",
		"4503599627370496.5", "4503599627370497.5",
		"-0.000000000000000000000000000000000001",
		"12345678901234567890123456789.123456789",
	};
	char buf[64];
	struct dec v;
	struct num x;
	double d;
	size_t i;
	int bad = 0, k;

	for (i = 0; i < NEL(t); i++) {
		CHECK(parse(t[i], &v) == 0);
		d = dec_to_double(&v);
		CHECK(d == strtod(t[i], NULL));
		CHECK(num_parse(t[i], strlen(t[i]), &x) == 0 && x.d == d);
	}
	CHECK(parse("-0.0", &v) == 0 && dec_to_double(&v) == 0 &&
	    !signbit(dec_to_double(&v)));

	for (k = 0; k < 20000; k++) {
		random_dec(buf, k % 2 ? 38 : 17, k % 3 ? 38 : 6);
		if (parse(buf, &v) != 0) {
			bad++;
			fprintf(stderr, "  \"%s\" refused\n", buf);
			continue;
		}
		d = dec_to_double(&v);
		if (d != strtod(buf, NULL) || (d != 0 &&
		    (num_parse(buf, strlen(buf), &x) != 0 || x.d != d))) {
			bad++;
			fprintf(stderr, "  \"%s\": %.17g\n", buf, d);
		}
	}
	CHECK(bad == 0);
}

/* Sum of the NULL-terminated list, as text. */
static const char *
sum_of(const char *const *v, char *buf)
{
	struct dec_sum s;

	memset(&s, 0, sizeof(s));
	for (; *v != NULL; v++)
		add(&s, *v);
	return fmt(&s, buf);
}

static void
test_sum(void)
{
	static const struct {
		const char *v[8];
		const char *want;
		int exact;
	} t[] = {
		{ { "1.11", "2.22", "2.22", "5.55" }, "11.1", 1 },
		{ { "2.50", "0.50" }, "3", 1 },
		{ { "0.1", "0.2" }, "0.3", 1 },
		{ { "-0.5", "0.25" }, "-0.25", 1 },
		{ { "0.5", "-0.5" }, "0", 1 },
		{ { "-0.5", "0.5" }, "0", 1 },
		{ { "-0" }, "0", 1 },
		{ { "-0.000" }, "0", 1 },
		{ { "7" }, "7", 1 },
		{ { "10", "20", "30" }, "60", 1 },
		{ { "120.0", "0" }, "120", 1 },
		{ { "1.0", "2.00" }, "3", 1 },
		{ { "1", "2.5", "-3", "0.125" }, "0.625", 1 },
		{ { "100", "0.001" }, "100.001", 1 },
		{ { "1000.5", "-0.5" }, "1000", 1 },
		{ { "-1.5", "-2.25" }, "-3.75", 1 },
		{ { "-0.001" }, "-0.001", 1 },
		{ { ".5", "5.", "+7" }, "12.5", 1 },
		/* 30 places */
		{ { "0.000000000000000000000000000001",
		    "0.000000000000000000000000000002" },
		    "0.000000000000000000000000000003", 1 },
		{ { "1.000000000000000000000000000001", "2" },
		    "3.000000000000000000000000000001", 1 },
		{ { "0.123456789012345678901234567890", "-0.1" },
		    "0.02345678901234567890123456789", 1 },
		/* integers within 64 bits (written as integers), and at
		 * their edges */
		{ { "-5" }, "-5", 1 },
		{ { "9223372036854775807" }, "9223372036854775807", 1 },
		{ { "-9223372036854775807", "-1" }, "-9223372036854775808", 1 },
		{ { "18446744073709551615" }, "18446744073709551615", 1 },
		{ { "-18446744073709551615" }, "-18446744073709551615", 1 },
		/* past int64, where the old integer sum went floating */
		{ { "9223372036854775807", "1" }, "9223372036854775808", 1 },
		{ { "-9223372036854775808", "-1" }, "-9223372036854775809", 1 },
		{ { "99999999999999999999999999999999999999" },
		    "99999999999999999999999999999999999999", 1 },
		{ { "-99999999999999999999999999999999999999" },
		    "-99999999999999999999999999999999999999", 1 },
		{ { "0.00000000000000000000000000000000000001",
		    "0.00000000000000000000000000000000000001" },
		    "0.00000000000000000000000000000000000002", 1 },
		/* 10^38 on the way, 38 digits at the end: exact */
		{ { "99999999999999999999999999999999999999", "1", "-1" },
		    "99999999999999999999999999999999999999", 1 },
		{ { "0.5", "9999999999999999999999999999999999999.5",
		    "99999999999999999999999999999999999999",
		    "-99999999999999999999999999999999999999" },
		    "10000000000000000000000000000000000000", 1 },
		/* trailing zeros do not count: 1.000...0 (38 places) */
		{ { "0.99999999999999999999999999999999999999",
		    "0.00000000000000000000000000000000000001" }, "1", 1 },
		/* past 38 digits: still exact */
		{ { "99999999999999999999999999999999999999", "1" },
		    "100000000000000000000000000000000000000", 1 },
		{ { "99999999999999999999999999999999999999",
		    "0.00000000000000000000000000000000000001" },
		    "99999999999999999999999999999999999999."
		    "00000000000000000000000000000000000001", 1 },
		{ { "-99999999999999999999999999999999999999",
		    "-0.00000000000000000000000000000000000001",
		    "-99999999999999999999999999999999999999" },
		    "-199999999999999999999999999999999999998."
		    "00000000000000000000000000000000000001", 1 },
		/* carries across every word, and back */
		{ { "18446744073709551615", "1", "-1", "-18446744073709551615" },
		    "0", 1 },
		{ { "340282366920938463463374607431768211455", "1" },
		    "340282366920938463463374607431768211456", 0 },
	};
	char buf[DEC_BUFSZ];
	struct dec_sum s;
	size_t i, j;

	for (i = 0; i < NEL(t); i++) {
		if (!t[i].exact)
			continue;	/* (a value of 39 digits: below) */
		CHECK_STR(sum_of(t[i].v, buf), t[i].want);
		memset(&s, 0, sizeof(s));
		for (j = 0; t[i].v[j] != NULL; j++)
			add(&s, t[i].v[j]);
		CHECK(dec_sum_exact(&s));
		CHECK(s.n == j);
	}

	/* the empty sum */
	memset(&s, 0, sizeof(s));
	CHECK_STR(fmt(&s, buf), "0");
	CHECK(dec_sum_exact(&s));

	CHECK(sizeof(struct dec_sum) == 64);
	CHECK(_Alignof(struct dec_sum) == 8);
}

/* dec_sum_int(): a sum of integers within 64 bits, and only such a sum,
 * is an integer; its value as dec_sum_format() writes it. */
static void
test_sum_int(void)
{
	static const struct {
		const char *v[4];
		int is_int;
		int64_t want;
	} t[] = {
		{ { "3", "4" }, 1, 7 },
		{ { "-3", "2" }, 1, -1 },
		{ { "9223372036854775807" }, 1, INT64_MAX },
		{ { "-9223372036854775807", "-1" }, 1, INT64_MIN },
		{ { "9223372036854775807", "1" }, 0, 0 },
		{ { "-9223372036854775807", "-2" }, 0, 0 },
		{ { "18446744073709551615" }, 0, 0 },
		{ { "1.5", "1.5" }, 0, 0 },	/* 3, at scale 1 */
		{ { "0" }, 1, 0 },
	};
	char buf[DEC_BUFSZ], want[DEC_BUFSZ];
	struct dec_sum s;
	int64_t v;
	size_t i, j;

	for (i = 0; i < NEL(t); i++) {
		memset(&s, 0, sizeof(s));
		for (j = 0; t[i].v[j] != NULL; j++)
			add(&s, t[i].v[j]);
		CHECK(dec_sum_int(&s, &v) == t[i].is_int);
		if (t[i].is_int) {
			CHECK(v == t[i].want);
			snprintf(want, sizeof(want), "%lld", (long long)v);
			CHECK_STR(fmt(&s, buf), want);
		}
	}
}

/* The same sum: its value and count (a zero may be at any scale). */
static int
same_exact(const struct dec_sum *a, const struct dec_sum *b)
{
	char b1[DEC_BUFSZ], b2[DEC_BUFSZ];

	dec_sum_format(b1, a);
	dec_sum_format(b2, b);
	return strcmp(b1, b2) == 0 && a->n == b->n && a->flags == b->flags;
}

static void
test_merge_order(void)
{
	enum { NV = 600, NS = 12 };
	static char vals[NV][48];
	struct dec_sum seq, slices[NS], fwd, rev, tree[NS], odd, e;
	struct dec v;
	char b1[DEC_BUFSZ], b2[DEC_BUFSZ];
	int i, k, w, ok = 1;

	/* mixed scales 0..12 and signs; the largest scale arrives late */
	for (i = 0; i < NV; i++)
		random_dec(vals[i], 15, 12);
	strcpy(vals[NV - 7], "0.00000000000000000001");

	memset(&seq, 0, sizeof(seq));
	memset(slices, 0, sizeof(slices));
	for (i = 0; i < NV; i++) {
		add(&seq, vals[i]);
		add(&slices[(i * 7 + i / 13) % NS], vals[i]);
	}
	CHECK(dec_sum_exact(&seq));

	memset(&fwd, 0, sizeof(fwd));
	memset(&rev, 0, sizeof(rev));
	for (k = 0; k < NS; k++) {
		ok &= dec_sum_merge(&fwd, &slices[k]) == 0;
		ok &= dec_sum_merge(&rev, &slices[NS - 1 - k]) == 0;
	}
	/* pairwise, as a tree */
	memcpy(tree, slices, sizeof(tree));
	for (w = 1; w < NS; w *= 2)
		for (k = 0; k + w < NS; k += 2 * w)
			ok &= dec_sum_merge(&tree[k], &tree[k + w]) == 0;
	/* into a non-empty one first, odd slices before even */
	odd = slices[1];
	for (k = 3; k < NS; k += 2)
		ok &= dec_sum_merge(&odd, &slices[k]) == 0;
	for (k = 0; k < NS; k += 2)
		ok &= dec_sum_merge(&odd, &slices[k]) == 0;

	ok &= same_exact(&seq, &fwd);
	ok &= same_exact(&seq, &rev);
	ok &= same_exact(&seq, &tree[0]);
	ok &= same_exact(&seq, &odd);
	CHECK(ok);
	fmt(&seq, b1);
	CHECK_STR(fmt(&fwd, b2), b1);
	CHECK_STR(fmt(&rev, b2), b1);
	CHECK_STR(fmt(&tree[0], b2), b1);
	CHECK_STR(fmt(&odd, b2), b1);

	/* merging an empty sum, either way, changes nothing exact */
	memset(&e, 0, sizeof(e));
	fwd = seq;
	dec_sum_merge(&fwd, &e);
	CHECK(memcmp(&fwd, &seq, sizeof(seq)) == 0);
	dec_sum_merge(&e, &seq);
	CHECK(same_exact(&e, &seq));

	/* an exponent's mark goes with its value */
	memset(&e, 0, sizeof(e));
	CHECK(dec_read("1e0", 3, &v) == 0 && v.exp == 1);
	CHECK(dec_sum_add(&e, &v) == 0);
	fwd = seq;
	CHECK(dec_sum_merge(&fwd, &e) == 0);
	CHECK(!dec_sum_exact(&fwd));
	CHECK(dec_sum_merge(&e, &seq) == 0);
	CHECK(!dec_sum_exact(&e));
	CHECK(fwd.n == seq.n + 1);
}

/* Mean of the list as printed by num_format_double(). */
static const char *
avg_of(const char *const *v, char *buf)
{
	struct dec_sum s;

	memset(&s, 0, sizeof(s));
	double d = -1;

	for (; *v != NULL; v++)
		add(&s, *v);
	CHECK(dec_sum_avg(&s, &d) == 0);
	num_format_double(buf, d);
	return buf;
}

static void
test_avg(void)
{
	static const struct {
		const char *v[8];
		const char *want;
	} t[] = {
		/* exact 0.15; fsum / n would be 0.15000000000000002 */
		{ { "0.1", "0.2" }, "0.15" },
		{ { "1", "2" }, "1.5" },
		{ { "10" }, "10" },
		{ { "-1", "-2" }, "-1.5" },
		{ { "1", "1", "1" }, "1" },
		{ { "0.5", "-0.5" }, "0" },
		/* Python: float(Fraction(5, 3)) */
		{ { "1", "2", "2" }, "1.6666666666666667" },
		{ { "1", "0", "0" }, "0.3333333333333333" },
		{ { "2", "0", "0" }, "0.6666666666666666" },
		/* exact 0.7 / 3 = 0.23333333333333334 (correctly rounded);
		 * Python: (0.1 + 0.2 + 0.4) / 3 == 0.23333333333333336 */
		{ { "0.1", "0.2", "0.4" }, "0.23333333333333334" },
		{ { "12345678901234567890123456789.123456789" },
		    "1.2345678901234568e+28" },
		/* Python: float(Fraction(s) / 7) */
		{ { "123456789012345678901234567890.12345678",
		    "0", "0", "0", "0", "0", "0" }, "1.763668414462081e+28" },
		{ { "-0.000000000000000000000000000000000001", "0", "0" },
		    "-3.333333333333333e-37" },
		/* halfway between two doubles: to even */
		{ { "9007199254740993" }, "9007199254740992" },
		{ { "9007199254740992", "9007199254740994" },
		    "9007199254740992" },
		{ { "4503599627370496.5" }, "4503599627370496" },
		{ { "4503599627370497.5" }, "4503599627370498" },
		{ { "13510798882111489.5", "0", "0" }, "4503599627370496" },
		/* a hair past halfway: up */
		{ { "4503599627370496.50000000000000000001" },
		    "4503599627370497" },
		{ { "13510798882111489.50000000000000000003", "0", "0" },
		    "4503599627370497" },
		{ { "-0", "-0.0" }, "0" },
	};
	char buf[NUM_BUFSZ];
	size_t i;

	for (i = 0; i < NEL(t); i++)
		CHECK_STR(avg_of(t[i].v, buf), t[i].want);
}

/* An independent reference: the quotient to 800 digits, by schoolbook
 * long division of the decimal text, then strtod(3). */
static double
ref_avg(const char *sum, uint64_t n)
{
	char out[1024], *p = out;
	const char *s = sum;
	unsigned __int128 r = 0;
	int started = 0, frac = 0, k;

	if (*s == '-')
		*p++ = *s++;
	for (; *s != '\0'; s++) {
		if (*s == '.') {
			if (!started)
				*p++ = '0';
			started = 1;
			*p++ = '.';
			frac = 1;
			continue;
		}
		r = r * 10 + (unsigned)(*s - '0');
		if (started || r / n != 0) {
			*p++ = (char)('0' + (int)(r / n));
			started = 1;
		}
		r %= n;
	}
	if (!started)
		*p++ = '0';
	if (!frac)
		*p++ = '.';
	for (k = 0; k < 800; k++) {
		r *= 10;
		*p++ = (char)('0' + (int)(r / n));
		r %= n;
	}
	*p = '\0';
	return strtod(out, NULL);
}

static void
test_avg_random(void)
{
	char buf[64], sbuf[DEC_BUFSZ];
	struct dec_sum s;
	double got, want;
	int k, j, m, bad = 0;

	for (k = 0; k < 3000; k++) {
		memset(&s, 0, sizeof(s));
		m = 1 + (int)(next() % 40);
		for (j = 0; j < m; j++) {
			random_dec(buf, k % 2 ? 36 : 12, 30);
			add(&s, buf);
		}
		CHECK(dec_sum_exact(&s));
		dec_sum_format(sbuf, &s);
		CHECK(dec_sum_avg(&s, &got) == 0);
		want = ref_avg(sbuf, s.n);
		if (memcmp(&got, &want, sizeof(got)) != 0 &&
		    !(got == 0 && want == 0)) {
			bad++;
			fprintf(stderr, "  avg of %s / %llu: %.17g, want %.17g\n",
			    sbuf, (unsigned long long)s.n, got, want);
		}
	}
	CHECK(bad == 0);
}

/* Short values of few places: the sum and 10^scale * n are exact doubles,
 * so dec_sum_avg divides in doubles; the same reference must hold. */
static void
test_avg_short(void)
{
	char buf[64], sbuf[DEC_BUFSZ];
	struct dec_sum s;
	double got, want;
	int k, j, m, bad = 0;

	for (k = 0; k < 3000; k++) {
		memset(&s, 0, sizeof(s));
		m = 1 + (int)(next() % 1000);
		for (j = 0; j < m; j++) {
			random_dec(buf, 7, 4);
			add(&s, buf);
		}
		CHECK(dec_sum_exact(&s));
		dec_sum_format(sbuf, &s);
		CHECK(dec_sum_avg(&s, &got) == 0);
		want = ref_avg(sbuf, s.n);
		if (memcmp(&got, &want, sizeof(got)) != 0 &&
		    !(got == 0 && want == 0)) {
			bad++;
			fprintf(stderr, "  avg of %s / %llu: %.17g, want %.17g\n",
			    sbuf, (unsigned long long)s.n, got, want);
		}
	}
	CHECK(bad == 0);
}

/* Numbers with exponents, read exactly: mantissa and scale. */
static void
test_read(void)
{
	static const struct {
		const char *in;
		int rc;
		const char *m;
		int32_t scale;
		uint32_t exp;
	} t[] = {
		{ "2.50", 0, "250", 2, 0 },	/* plain: dec_parse's */
		{ "1e3", 0, "1", -3, 1 },
		{ "1E+3", 0, "1", -3, 1 },
		{ "-2.5E-7", 0, "-25", 8, 1 },
		{ "0.05e1", 0, "5", 1, 1 },
		{ "1.000e2", 0, "1", -2, 1 },	/* trailing zeros: scale */
		{ "1200e-2", 0, "12", 0, 1 },
		{ "+.5e1", 0, "5", 0, 1 },
		{ "5.e0", 0, "5", 0, 1 },
		{ "0e999999", 0, "0", 0, 1 },
		{ "-0.0e5", 0, "0", 0, 1 },
		{ "6.673558607802905e+01", 0, "6673558607802905", 14, 1 },
		{ "1.7976931348623157e308", 0, "17976931348623157", -292, 1 },
		{ "1e-1100", 0, "1", 1100, 1 },	/* DEC_MAXSCALE */
		{ "1e400", 0, "1", -400, 1 },	/* DEC_MINSCALE */
		{ "12345678901234567890123456789012345678e0", 0,
		    "12345678901234567890123456789012345678", 0, 1 },
		{ "1.2345678901234567890123456789012345678e-1", 0,
		    "12345678901234567890123456789012345678", 38, 1 },
		{ "123456789012345678901234567890123456789e0", -1, "", 0, 0 },
		{ "1e-1101", -1, "", 0, 0 },
		{ "1e401", -1, "", 0, 0 },
		{ "1e", -1, "", 0, 0 },
		{ "e5", -1, "", 0, 0 },
		{ ".e5", -1, "", 0, 0 },
		{ "1e+", -1, "", 0, 0 },
		{ "1.2.3e4", -1, "", 0, 0 },
		{ "1e5x", -1, "", 0, 0 },
		{ "1e 5", -1, "", 0, 0 },
		{ "--1e5", -1, "", 0, 0 },
		{ "", -1, "", 0, 0 },
	};
	char buf[64], *copy;
	struct dec v;
	size_t i, n;
	int rc;

	for (i = 0; i < NEL(t); i++) {
		n = strlen(t[i].in);
		copy = malloc(n + 1);
		memcpy(copy, t[i].in, n);
		rc = dec_read(copy, n, &v);
		free(copy);
		CHECK(rc == t[i].rc);
		if (rc != t[i].rc)
			fprintf(stderr, "  \"%s\": %d\n", t[i].in, rc);
		if (rc != 0 || t[i].rc != 0)
			continue;
		CHECK_STR(i128_str(v.m, buf), t[i].m);
		CHECK(v.scale == t[i].scale);
		CHECK(v.exp == t[i].exp);
	}
}

int
main(void)
{
	test_read();
	test_parse();
	test_to_double();
	test_sum();
	test_sum_int();
	test_merge_order();
	test_avg();
	test_avg_random();
	test_avg_short();
	return unit_done("test_decimal");
}
