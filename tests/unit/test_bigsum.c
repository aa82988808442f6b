/* Unit tests of sums past the fixed width (bigsum) and of values with
 * exponents: each sum is the exact sum of the values as read, written as
 * the exact decimal (plain values) or the correctly rounded double, the
 * same whatever the order of adds, merges and folds. Expected values
 * were derived with Python's fractions and decimal modules
 * (float(sum(Fraction(Decimal(t)) for t in values))); the random cases
 * against an independent GMP sum at a fixed scale. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>

#include "base/arena.h"
#include "base/bigsum.h"
#include "base/decimal.h"
#include "base/num.h"
#include "unit.h"

#define NEL(a)	(sizeof(a) / sizeof((a)[0]))

static struct arena A;
static struct bigsum_fold F;

static aoff
slot_new(void)
{
	return arena_alloc(&A, sizeof(struct dec_sum));
}

/* Adds text t to the sum at slot as the sum aggregate does (agg.c:
 * aggs_extract(), then sum_add()). */
static void
sadd(aoff slot, const char *t)
{
	size_t n = strlen(t);
	struct num x;
	struct dec v;
	double d = 0;
	int is_dec;

	is_dec = dec_parse(t, n, &v) == 0;
	if (!is_dec) {
		if (num_parse(t, n, &x) != 0) {
			fprintf(stderr, "test bug: %s is no number\n", t);
			abort();
		}
		d = x.d;
		is_dec = dec_read(t, n, &v) == 0;
	}
	if (!is_dec)
		bigsum_add(&A, slot, NULL, d);
	else if (dec_sum_add(arena_ptr(&A, slot), &v) != 0)
		bigsum_add(&A, slot, &v, d);
}

/* The fold of slots[0..n) as sum_emit() writes it ("" beyond the
 * doubles), and its mean as avg_emit() does, into buf and abuf. */
static void
result(const aoff *slots, size_t n, char *buf, char *abuf)
{
	struct dec_sum fs;
	const char *t;
	size_t i, len;
	double d;

	memset(&fs, 0, sizeof(fs));
	for (i = 0; i < n; i++)
		bigsum_fold(&F, &A, &fs, arena_ptr(&A, slots[i]));
	if (fs.big == 0 && dec_sum_exact(&fs))
		dec_sum_format(buf, &fs);
	else if ((len = bigsum_result(&F, &fs, &t, &d)) > 0) {
		memcpy(buf, t, len);
		buf[len] = '\0';
	} else if (!isfinite(d))
		buf[0] = '\0';
	else
		num_format_double(buf, d);
	if (abuf != NULL)
		num_format_double(abuf, bigsum_avg(&F, &fs));
}

static void
test_cases(void)
{
	static const struct {
		const char *v[4];
		const char *sum, *avg;
	} t[] = {
		{ { "1.5", "1e3" }, "1001.5", "500.75" },
		/* exact, so never 0.30000000000000004 */
		{ { "0.1", "2e-1" }, "0.3", "0.15" },
		{ { "0.1", "0.2", "1e0" }, "1.3", "0.43333333333333335" },
		{ { "0.1", "0.2", "-3e-1" }, "0", "0" },
		{ { "-0.0e0" }, "0", "0" },
		{ { "1E+21" }, "1e+21", "1e+21" },
		{ { "6.02214076e23", "-6.02214076e23", "1e-30" }, "1e-30",
		    "3.3333333333333333e-31" },
		/* 600 digits apart: past the fixed width, and back */
		{ { "1e300", "1e-300", "-1e300" }, "1e-300",
		    "3.3333333333333334e-301" },
		/* beyond the doubles: empty; the mean is not */
		{ { "1e308", "1e308" }, "", "1e+308" },
		{ { "-1e308", "-1e308" }, "", "-1e+308" },
		{ { "1e308", "1e308", "-1e308" }, "1e+308",
		    "3.333333333333333e+307" },
		{ { "-1.7976931348623157e308", "-1e292" },
		    "-1.7976931348623157e+308", "-8.988465674311579e+307" },
		/* 1 + 2^-53, halfway: to even; a hair more: up */
		{ { "1", "1.1102230246251565404236316680908203125e-16" }, "1",
		    "0.5" },
		{ { "1", "1.1102230246251565404236316680908203125e-16",
		    "1e-1000" }, "1.0000000000000002", "0.33333333333333337" },
		{ { "1", "1.1102230246251565404236316680908203125e-16",
		    "-1e-1000" }, "1", "0.33333333333333337" },
		/* 55 digits: read as its double, 1 + 2^-52; + 2^-53 is
		 * halfway again, to even (up) */
		{ { "1.0000000000000002220446049250313080847263336181640625",
		    "1.1102230246251565404236316680908203125e-16" },
		    "1.0000000000000004", "0.5000000000000002" },
		{ { "123456789012345678901234567890123456789", "1" },
		    "1.2345678901234568e+38", "6.172839450617284e+37" },
		/* subnormals */
		{ { "4.9406564584124654e-324", "4.9406564584124654e-324" },
		    "1e-323", "5e-324" },
		{ { "3e-324" }, "5e-324", "5e-324" },
		{ { "2e-324" }, "0", "0" },
		{ { "2.5e-324" }, "5e-324", "5e-324" },
		/* below DEC_MAXSCALE's reach: read as its double, 0 */
		{ { "1e-2000", "1" }, "1", "0.5" },
	};
	char buf[2048], abuf[NUM_BUFSZ];
	size_t i, j, live = arena_hdr(&A)->ah_live;
	aoff s;

	for (i = 0; i < NEL(t); i++) {
		s = slot_new();
		for (j = 0; j < NEL(t[i].v) && t[i].v[j] != NULL; j++)
			sadd(s, t[i].v[j]);
		result(&s, 1, buf, abuf);
		CHECK_STR(buf, t[i].sum);
		CHECK_STR(abuf, t[i].avg);
		CHECK(((struct dec_sum *)arena_ptr(&A, s))->n == j);
		bigsum_release(&A, s);
		arena_free(&A, s, sizeof(struct dec_sum));
		CHECK(arena_hdr(&A)->ah_live == live);
	}
}

/* A sum goes past the fixed width and comes back to it. */
static void
test_width(void)
{
	size_t live = arena_hdr(&A)->ah_live;
	char buf[2048];
	aoff s = slot_new();

	sadd(s, "1e300");
	sadd(s, "1e-10");
	CHECK(((struct dec_sum *)arena_ptr(&A, s))->big != 0);
	sadd(s, "-1e300");
	CHECK(((struct dec_sum *)arena_ptr(&A, s))->big == 0);
	sadd(s, "5e-11");
	result(&s, 1, buf, NULL);
	CHECK_STR(buf, "1.5e-10");
	bigsum_release(&A, s);
	arena_free(&A, s, sizeof(struct dec_sum));
	CHECK(arena_hdr(&A)->ah_live == live);
}

/* 200,000 copies of 10^35 - 1: exact in any grouping. */
static void
test_many(void)
{
	enum { NS = 7 };
	static const char *const want[] = {
		"19999999999999999999999999999999999800000", "2e+40",
	};
	static const char *const val[] = {
		"99999999999999999999999999999999999",
		"9.9999999999999999999999999999999999e34",
	};
	char buf[2048], b2[2048], abuf[NUM_BUFSZ];
	aoff one, sl[NS], m;
	int i, k;

	for (k = 0; k < 2; k++) {
		one = slot_new();
		for (i = 0; i < NS; i++)
			sl[i] = slot_new();
		for (i = 0; i < 200000; i++) {
			sadd(one, val[k]);
			sadd(sl[(i * 5 + i / 11) % NS], val[k]);
		}
		result(&one, 1, buf, abuf);
		CHECK_STR(buf, want[k]);
		CHECK_STR(abuf, "1e+35");
		result(sl, NS, b2, NULL);
		CHECK_STR(b2, want[k]);
		/* merged in the arena, last into first */
		m = sl[NS - 1];
		for (i = NS - 2; i >= 0; i--)
			bigsum_merge(&A, m, sl[i]);
		result(&m, 1, b2, NULL);
		CHECK_STR(b2, want[k]);
		CHECK(((struct dec_sum *)arena_ptr(&A, m))->n == 200000);
	}
}

/* --- random values, against an independent exact sum --- */

/* A value: 1 to 17 digits, a point somewhere, an exponent from -330 to
 * 300 (often near 0), a sign; or a plain decimal. */
static void
random_value(char *buf)
{
	char dig[24];
	int nd = 1 + (int)unit_below(17), i, e, pt;

	for (i = 0; i < nd; i++)
		dig[i] = (char)('0' + unit_below(10));
	dig[nd] = '\0';
	pt = (int)unit_below((uint64_t)nd + 1);
	switch (unit_below(4)) {
	case 0:
		e = (int)unit_below(631) - 330;
		break;
	case 1:
		e = (int)unit_below(21) - 10;
		break;
	default:
		e = 9999;	/* plain */
	}
	buf += sprintf(buf, "%s%.*s.%s", unit_below(3) == 0 ? "-" : "",
	    pt, dig, dig + pt);
	if (e != 9999)
		sprintf(buf, "e%d", e);
}

#define REFSCALE 1200

/* t's value times 10^REFSCALE, by hand: digits and exponent. */
static void
ref_value(mpz_t z, const char *t)
{
	char dig[64];
	int nd = 0, places = 0, inf = 0, neg = *t == '-';
	long e = 0;

	if (*t == '-' || *t == '+')
		t++;
	for (; *t != '\0' && *t != 'e'; t++) {
		if (*t == '.') {
			inf = 1;
			continue;
		}
		dig[nd++] = *t;
		places += inf;
	}
	dig[nd] = '\0';
	if (*t == 'e')
		e = strtol(t + 1, NULL, 10);
	mpz_set_str(z, nd > 0 ? dig : "0", 10);
	{
		mpz_t p;

		mpz_init(p);
		mpz_ui_pow_ui(p, 10, (unsigned long)(REFSCALE - places + e));
		mpz_mul(z, z, p);
		mpz_clear(p);
	}
	if (neg)
		mpz_neg(z, z);
}

static void
ref_text(const mpz_t z, long scale, char *buf)
{
	mpz_get_str(buf, 10, z);
	sprintf(buf + strlen(buf), "e-%ld", scale);
}

static void
test_random(void)
{
	enum { NV = 60, NS = 5, TRIALS = 400 };
	static char vals[NV][64], text[4096];
	char got[2048], b2[2048], want[64], abuf[NUM_BUFSZ], awant[NUM_BUFSZ];
	size_t live = arena_hdr(&A)->ah_live;
	aoff one, sl[NS], m;
	mpz_t ref, x;
	int t, i, nv, bad = 0;
	double d;

	mpz_init(ref);
	mpz_init(x);
	for (t = 0; t < TRIALS; t++) {
		nv = 1 + (int)unit_below(NV);
		mpz_set_ui(ref, 0);
		one = slot_new();
		for (i = 0; i < NS; i++)
			sl[i] = slot_new();
		for (i = 0; i < nv; i++) {
			random_value(vals[i]);
			ref_value(x, vals[i]);
			mpz_add(ref, ref, x);
			sadd(one, vals[i]);
			sadd(sl[unit_below(NS)], vals[i]);
		}
		ref_text(ref, REFSCALE, text);
		d = strtod(text, NULL);
		num_format_double(want, d == 0 ? 0 : d);
		/* the mean: 300 more places, truncated (no ties here) */
		mpz_mul_ui(x, ref, 1);
		mpz_ui_pow_ui(ref, 10, 300);
		mpz_mul(x, x, ref);
		mpz_tdiv_q_ui(x, x, (unsigned long)nv);
		ref_text(x, REFSCALE + 300, text);
		d = strtod(text, NULL);
		num_format_double(awant, d == 0 ? 0 : d);

		result(&one, 1, got, abuf);
		/* a sum of plain values only is written exactly: its double
		 * is the reference's */
		if (strchr(got, 'e') == NULL && got[0] != '\0') {
			d = strtod(got, NULL);
			num_format_double(got, d == 0 ? 0 : d);
		}
		bad += strcmp(got, want) != 0 || strcmp(abuf, awant) != 0;
		if (strcmp(got, want) != 0 || strcmp(abuf, awant) != 0)
			fprintf(stderr, "  trial %d: %s (avg %s), want %s "
			    "(avg %s)\n", t, got, abuf, want, awant);
		/* folded from slices, and merged in the arena both ways */
		result(&one, 1, got, NULL);
		result(sl, NS, b2, NULL);
		bad += strcmp(got, b2) != 0;
		m = slot_new();
		for (i = 0; i < NS; i++)
			bigsum_merge(&A, m, sl[t % 2 ? i : NS - 1 - i]);
		result(&m, 1, b2, NULL);
		bad += strcmp(got, b2) != 0;
		CHECK(((struct dec_sum *)arena_ptr(&A, m))->n == (uint64_t)nv);
		for (i = 0; i < NS; i++)
			arena_free(&A, sl[i], sizeof(struct dec_sum));
		bigsum_release(&A, m);
		bigsum_release(&A, one);
		arena_free(&A, m, sizeof(struct dec_sum));
		arena_free(&A, one, sizeof(struct dec_sum));
	}
	CHECK(bad == 0);
	CHECK(arena_hdr(&A)->ah_live == live);
	mpz_clear(ref);
	mpz_clear(x);
}

/* A big fold is kept only where it can own its block; a kept one folds
 * again to the same result; a restored one is checked. */
static void
test_keep_check(void)
{
	struct arena_claims m;
	struct dec_sum fs, *k;
	char b1[2048], b2[2048];
	aoff s = slot_new(), dst = slot_new();

	sadd(s, "1e300");
	sadd(s, "3e-300");
	memset(&fs, 0, sizeof(fs));
	bigsum_fold(&F, &A, &fs, arena_ptr(&A, s));
	CHECK(fs.big == BIGSUM_FOLD);
	CHECK(bigsum_keep(&F, &A, dst, &fs, 0) == -1);
	CHECK(bigsum_keep(&F, &A, dst, &fs, 1) == 0);
	k = arena_ptr(&A, dst);
	CHECK(k->big != 0 && k->big != BIGSUM_FOLD && k->n == 2);
	result(&s, 1, b1, NULL);
	result(&dst, 1, b2, NULL);
	CHECK_STR(b2, b1);
	CHECK_STR(b1, "1e+300");

	CHECK(arena_claims_init(&m, arena_hdr(&A)->ah_used) == 0);
	CHECK(bigsum_check(&A, arena_ptr(&A, s), &m, 0) == NULL);
	CHECK(bigsum_check(&A, arena_ptr(&A, dst), &m, 0) == NULL);
	/* claimed twice: two sums name one block */
	CHECK(bigsum_check(&A, arena_ptr(&A, dst), &m, 0) != NULL);
	arena_claims_free(&m);
	CHECK(arena_claims_init(&m, arena_hdr(&A)->ah_used) == 0);
	k = arena_ptr(&A, dst);
	k->big += 8;		/* not the block */
	CHECK(bigsum_check(&A, k, &m, 0) != NULL);
	k->big -= 8;
	((struct dec_big *)arena_ptr(&A, k->big))->size = 1 << 20;
	CHECK(bigsum_check(&A, k, &m, 0) != NULL);
	((struct dec_big *)arena_ptr(&A, k->big))->size = 1;
	k->scale = DEC_MAXSCALE + 1000;
	CHECK(bigsum_check(&A, k, &m, 0) != NULL);
	k->scale = 0;
	k->flags = 0;
	k->scale = -1;		/* plain values have no negative scale */
	CHECK(bigsum_check(&A, k, &m, 0) != NULL);
	arena_claims_free(&m);
	bigsum_release(&A, s);
	bigsum_release(&A, dst);
}

int
main(void)
{
	unit_rstate = 0x5DEECE66DULL;
	if (arena_init(&A) != 0)
		return 1;
	test_cases();
	test_width();
	test_many();
	test_random();
	test_keep_check();
	bigsum_fold_free(&F);
	arena_fini(&A);
	return unit_done("bigsum");
}
