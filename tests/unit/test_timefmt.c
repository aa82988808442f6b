/* Unit tests of timefmt: names, durations, time parsing, detection and
 * printing, table-driven. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/timefmt.h"
#include "unit.h"

#define NEL(a)	(sizeof(a) / sizeof((a)[0]))
/* The expected value that means "must be refused". */
#define BAD	INT64_C(0x7eadbeef7eadbeef)

static void
test_names(void)
{
	static const struct {
		const char *in;
		int rc;
		enum tfmt f;
	} t[] = {
		{ "auto", 0, TF_AUTO }, { "s", 0, TF_S }, { "ms", 0, TF_MS },
		{ "us", 0, TF_US }, { "ns", 0, TF_NS }, { "iso", 0, TF_ISO },
		{ "%Y-%m-%d", 0, TF_STRPTIME }, { "%s", 0, TF_STRPTIME },
		{ "x%", 0, TF_STRPTIME },
		{ "", -1, TF_AUTO }, { "S", -1, TF_AUTO },
		{ "iso8601", -1, TF_AUTO },
		{ "strptime", -1, TF_AUTO }, { "sec", -1, TF_AUTO },
		{ " s", -1, TF_AUTO },
	};
	enum tfmt f;
	size_t i;

	for (i = 0; i < NEL(t); i++) {
		f = TF_NS;
		CHECK(tf_parse_name(t[i].in, &f) == t[i].rc);
		if (t[i].rc == 0)
			CHECK(f == t[i].f);
	}
	CHECK_STR(tf_name(TF_AUTO), "auto");
	CHECK_STR(tf_name(TF_S), "s");
	CHECK_STR(tf_name(TF_MS), "ms");
	CHECK_STR(tf_name(TF_US), "us");
	CHECK_STR(tf_name(TF_NS), "ns");
	CHECK_STR(tf_name(TF_ISO), "iso");
	CHECK_STR(tf_name(TF_STRPTIME), "strptime");
	/* Every name but "strptime" reads back as itself. */
	for (f = TF_AUTO; f <= TF_ISO; f++) {
		enum tfmt g;

		CHECK(tf_parse_name(tf_name(f), &g) == 0 && g == f);
	}
}

#define S	INT64_C(1000000000)
#define MS	INT64_C(1000000)
#define US	INT64_C(1000)

static void
test_parse_duration(void)
{
	static const struct {
		const char *in;
		int neg;	/* allow_neg */
		int64_t want;	/* BAD: refused */
	} t[] = {
		{ "90s", 0, 90 * S },
		{ "90", 0, 90 * S },
		{ "1.5", 0, 1500 * MS },
		{ "0", 0, 0 },
		{ "0s", 0, 0 },
		{ "1ns", 0, 1 },
		{ "1us", 0, US },
		{ "1ms", 0, MS },
		{ "1s", 0, S },
		{ "1m", 0, 60 * S },
		{ "1h", 0, 3600 * S },
		{ "1d", 0, 86400 * S },
		{ "1w", 0, 7 * 86400 * S },
		{ "250ms", 0, 250 * MS },
		{ "1h30m", 0, 5400 * S },
		{ "1h30m15s", 0, 5415 * S },
		{ "1d2h3m4s5ms6us7ns", 0, 93784 * S + 5 * MS + 6 * US + 7 },
		{ "30m1h", 0, 5400 * S },	/* any order, like Go */
		{ "1s1s", 0, 2 * S },
		{ "1.5s", 0, 1500 * MS },
		{ "0.5ms", 0, 500 * US },
		{ "1.5h", 0, 5400 * S },
		{ "0.1s", 0, 100 * MS },
		{ ".5s", 0, 500 * MS },
		{ "5.s", 0, 5 * S },
		{ "1.25m", 0, 75 * S },
		{ "0.000000001s", 0, 1 },
		{ "0.0000000019s", 0, 1 },	/* below 1 ns: truncated */
		{ "0.9ns", 0, 0 },
		{ "1.999ns", 0, 1 },
		{ "0.3333333333333333333333333333m", 0, 19999999999 },
		{ "1.00000000000000000000000000000000000000001s", 0, S },
		{ "007s", 0, 7 * S },
		{ "-8h", 1, -8 * 3600 * S },
		{ "-1h30m", 1, -5400 * S },
		{ "-90", 1, -90 * S },
		{ "-0s", 1, 0 },
		{ "-1.5s", 1, -1500 * MS },
		{ "9223372036854775807ns", 0, INT64_MAX },
		{ "-9223372036854775807ns", 1, -INT64_MAX },
		{ "9223372036.854775807s", 0, INT64_MAX },
		{ "9223372036s854775807ns", 0, INT64_MAX },
		{ "15250w", 0, INT64_C(15250) * 7 * 86400 * S },
		{ "106751d", 0, INT64_C(106751) * 86400 * S },

		{ "-8h", 0, BAD },		/* negative not allowed */
		{ "", 0, BAD },
		{ "", 1, BAD },
		{ "-", 1, BAD },
		{ "s", 0, BAD },
		{ "ms", 0, BAD },
		{ ".s", 0, BAD },
		{ ".", 0, BAD },
		{ "h1", 0, BAD },
		{ "1h 30m", 0, BAD },
		{ " 1h", 0, BAD },
		{ "1h ", 0, BAD },
		{ "1h30", 0, BAD },		/* bare number only alone */
		{ "1x", 0, BAD },
		{ "1sec", 0, BAD },
		{ "1mss", 0, BAD },
		{ "1S", 0, BAD },
		{ "1H", 0, BAD },
		{ "1..5s", 0, BAD },
		{ "1.5.5s", 0, BAD },
		{ "1e3s", 0, BAD },
		{ "+1s", 0, BAD },
		{ "+1s", 1, BAD },
		{ "--1s", 1, BAD },
		{ "1h-30m", 1, BAD },
		{ "0x10s", 0, BAD },
		{ "300000d", 0, BAD },
		{ "15251w", 0, BAD },
		{ "9999999999999999999ns", 0, BAD },
		{ "99999999999999999999999ns", 0, BAD },
		{ "9223372036854775808ns", 0, BAD },
		{ "-9223372036854775808ns", 1, BAD },
		{ "9223372036.854775808s", 0, BAD },
		{ "9223372036854775807ns1ns", 0, BAD },
		{ "106751d1d", 0, BAD },
	};
	size_t i;
	int64_t v;
	int rc;

	for (i = 0; i < NEL(t); i++) {
		v = BAD;
		rc = tf_parse_duration(t[i].in, t[i].neg, &v);
		if (t[i].want == BAD) {
			CHECK(rc == -1);
			if (rc != -1)
				fprintf(stderr, "  accepted \"%s\"\n", t[i].in);
		} else {
			CHECK(rc == 0 && v == t[i].want);
			if (rc != 0 || v != t[i].want)
				fprintf(stderr, "  \"%s\": rc %d, %lld\n",
				    t[i].in, rc, (long long)v);
		}
	}
}

/* tf_format_lag: a fraction of the seconds where they have a part below
 * whole milliseconds; else tf_format_duration's form. */
static void
test_format_lag(void)
{
	static const struct {
		int64_t ns;
		const char *want;
	} t[] = {
		{ INT64_C(16001952466), "16.001952466s" },
		{ INT64_C(16001952000), "16.001952s" },
		{ INT64_C(16001000000), "16001ms" },
		{ 999999999, "999999999ns" },
		{ 90 * S + 1, "1m30.000000001s" },
		{ 2 * S, "2s" },
		{ -(INT64_C(16001952466)), "-16.001952466s" },
		{ INT64_MAX, "15250w1d23h47m16.854775807s" },
		{ INT64_MIN, "-15250w1d23h47m16.854775808s" },
	};
	char buf[TF_BUFSZ];
	size_t i, n;
	int64_t v;

	for (i = 0; i < NEL(t); i++) {
		n = tf_format_lag(buf, t[i].ns);
		CHECK_STR(buf, t[i].want);
		CHECK(n == strlen(t[i].want));
		v = BAD;
		CHECK(t[i].ns == INT64_MIN ||
		    (tf_parse_duration(buf, 1, &v) == 0 && v == t[i].ns));
	}
}

static void
test_format_duration(void)
{
	static const struct {
		int64_t ns;
		const char *want;
	} t[] = {
		{ 0, "0s" },
		{ 1, "1ns" },
		{ 999, "999ns" },
		{ US, "1us" },
		{ 500 * US, "500us" },
		{ MS, "1ms" },
		{ 250 * MS, "250ms" },
		{ S, "1s" },
		{ 1500 * MS, "1500ms" },
		{ 1500 * US, "1500us" },
		{ S + 1, "1000000001ns" },
		{ 59 * S, "59s" },
		{ 60 * S, "1m" },
		{ 90 * S, "1m30s" },
		{ 300 * S, "5m" },
		{ 3600 * S, "1h" },
		{ 5400 * S, "1h30m" },
		{ 5415 * S, "1h30m15s" },
		{ 3600 * S + 500 * MS, "1h500ms" },
		{ 90 * S + 500 * MS, "1m30500ms" },
		{ 86400 * S, "1d" },
		{ 90000 * S, "1d1h" },
		{ 604800 * S, "1w" },
		{ 8 * 86400 * S, "1w1d" },
		{ -8 * 3600 * S, "-8h" },
		{ -1, "-1ns" },
		{ -1500 * MS, "-1500ms" },
		{ INT64_MAX, "15250w1d23h47m16854775807ns" },
		{ INT64_MIN, "-15250w1d23h47m16854775808ns" },
	};
	char buf[TF_BUFSZ];
	size_t i, n;
	int64_t v;

	for (i = 0; i < NEL(t); i++) {
		memset(buf, 'X', sizeof(buf));
		n = tf_format_duration(buf, t[i].ns);
		CHECK_STR(buf, t[i].want);
		CHECK(n == strlen(t[i].want));
		/* The canonical text reads back to the same value. */
		if (t[i].ns != INT64_MIN) {
			v = BAD;
			CHECK(tf_parse_duration(buf, 1, &v) == 0 &&
			    v == t[i].ns);
		}
	}
	test_format_lag();
}

struct tcase {
	const char *in;
	int64_t want;	/* BAD: refused */
};

static void
run_parse(const struct tcase *t, size_t n, enum tfmt f, const char *strp)
{
	size_t i, len;
	int64_t v;
	int rc;

	for (i = 0; i < n; i++) {
		char *copy;

		/* The text is a slice: give it no NUL, so a parser that
		 * reads past n trips ASan. */
		len = strlen(t[i].in);
		copy = malloc(len + 1);
		memcpy(copy, t[i].in, len);
		v = BAD;
		rc = tf_parse_time(copy, len, f, strp, &v);
		if (t[i].want == BAD) {
			CHECK(rc == -1);
			if (rc != -1)
				fprintf(stderr, "  %s: accepted \"%s\": %lld\n",
				    tf_name(f), t[i].in, (long long)v);
		} else {
			CHECK(rc == 0 && v == t[i].want);
			if (rc != 0 || v != t[i].want)
				fprintf(stderr, "  %s: \"%s\": rc %d, %lld\n",
				    tf_name(f), t[i].in, rc, (long long)v);
		}
		free(copy);
	}
}

static void
test_parse_numbers(void)
{
	static const struct tcase ts[] = {
		{ "0", 0 },
		{ "1700000000", 1700000000 * S },
		{ "1700000000.25", 1700000000 * S + 250 * MS },
		{ "1700000000.5", 1700000000 * S + 500 * MS },
		{ "+1", S },
		{ "-1", -S },
		{ "-1.5", -1500 * MS },
		{ "-0.5", -500 * MS },
		{ "-0", 0 },
		{ ".5", 500 * MS },
		{ "5.", 5 * S },
		{ "0.000000001", 1 },
		{ "0.0000000019", 1 },		/* truncated */
		{ "-0.0000000019", -1 },	/* toward zero */
		{ "1.123456789123", S + 123456789 },
		{ "9223372036.854775807", INT64_MAX },
		{ "-9223372036.854775808", INT64_MIN },
		{ "-9223372036.8547758089", INT64_MIN },
		{ "9223372036", 9223372036 * S },
		{ "9223372036.854775808", BAD },
		{ "-9223372036.854775809", BAD },
		{ "9223372037", BAD },
		{ "99999999999", BAD },
		{ "99999999999999999999999", BAD },
		{ "", BAD }, { "-", BAD }, { "+", BAD }, { ".", BAD },
		{ "-.", BAD }, { " 1", BAD }, { "1 ", BAD }, { "1e9", BAD },
		{ "1,5", BAD }, { "1..5", BAD }, { "0x10", BAD },
		{ "--1", BAD },
		{ "+-1", BAD }, { "1s", BAD }, { "nan", BAD }, { "inf", BAD },
	};
	static const struct tcase tms[] = {
		{ "0", 0 },
		{ "1700000000123", 1700000000123 * MS },
		{ "-1500", -1500 * MS },
		{ "+7", 7 * MS },
		{ "9223372036854", 9223372036854 * MS },
		{ "-9223372036854", -9223372036854 * MS },
		{ "9223372036855", BAD },
		{ "1.5", BAD }, { "1.", BAD }, { ".5", BAD }, { "", BAD },
		{ "-", BAD }, { "1e3", BAD }, { "12a", BAD },
	};
	static const struct tcase tus[] = {
		{ "1700000000123456", 1700000000123456 * US },
		{ "-1", -US },
		{ "9223372036854775", 9223372036854775 * US },
		{ "9223372036854776", BAD },
		{ "1.0", BAD }, { "", BAD },
	};
	static const struct tcase tns[] = {
		{ "1700000000123456789", INT64_C(1700000000123456789) },
		{ "-1", -1 },
		{ "9223372036854775807", INT64_MAX },
		{ "-9223372036854775808", INT64_MIN },
		{ "9223372036854775808", BAD },
		{ "-9223372036854775809", BAD },
		{ "18446744073709551616", BAD },
		{ "1.0", BAD }, { "", BAD }, { "1 ", BAD },
	};

	run_parse(ts, NEL(ts), TF_S, NULL);
	run_parse(tms, NEL(tms), TF_MS, NULL);
	run_parse(tus, NEL(tus), TF_US, NULL);
	run_parse(tns, NEL(tns), TF_NS, NULL);
}

#define T2026	INT64_C(1795984623)	/* 2026-11-29T20:37:03Z */
#define HMS(h, m, s)	((h) * 3600 + (m) * 60 + (s))
/* 2026-11-29T00:00:00Z and 2026-11-30T00:00:00Z */
#define D2026	(T2026 - HMS(20, 37, 3))
#define D2026N	(D2026 + 86400)

static void
test_parse_iso(void)
{
	static const struct tcase t[] = {
		{ "2026-11-29T20:37:03Z", T2026 * S },
		{ "2026-11-29t20:37:03z", T2026 * S },
		{ "2026-11-29 20:37:03", T2026 * S },
		{ "2026-11-29T20:37:03", T2026 * S },
		{ "2026-11-29 20:37:03Z", T2026 * S },
		{ "2026-11-29T20:37:03.125+08:00",
		    (T2026 - 8 * 3600) * S + 125 * MS },
		{ "2026-11-29T20:37:03+08:00", (T2026 - 8 * 3600) * S },
		{ "2026-11-29T20:37:03+0800", (T2026 - 8 * 3600) * S },
		{ "2026-11-29T20:37:03+08", (T2026 - 8 * 3600) * S },
		{ "2026-11-29T20:37:03-05:30", (T2026 + 5 * 3600 + 1800) * S },
		{ "2026-11-29T20:37:03-0530", (T2026 + 5 * 3600 + 1800) * S },
		{ "2026-11-29T20:37:03+00:00", T2026 * S },
		{ "2026-11-29T20:37:03-00:00", T2026 * S },
		{ "2026-11-29T20:37:03+23:59", (T2026 - HMS(23, 59, 0)) * S },
		{ "2026-11-29T20:37:03.5Z", T2026 * S + 500 * MS },
		{ "2026-11-29T20:37:03.125Z", T2026 * S + 125 * MS },
		{ "2026-11-29T20:37:03.000001Z", T2026 * S + 1 * US },
		{ "2026-11-29T20:37:03.123456Z", T2026 * S + 123456 * US },
		{ "2026-11-29T20:37:03.123456789Z", T2026 * S + 123456789 },
		{ "2026-11-29T20:37:03.1234567899Z", T2026 * S + 123456789 },
		{ "2026-11-29T20:37:03.000000000000Z", T2026 * S },
		{ "2026-11-29", D2026 * S },
		{ "1970-01-01T00:00:00Z", 0 },
		{ "1970-01-01", 0 },
		{ "1969-12-31T23:59:59Z", -S },
		{ "1969-12-31T23:59:59.5Z", -500 * MS },
		{ "1969-12-31T23:59:59.999999999Z", -1 },
		{ "1900-01-01T00:00:00Z", INT64_C(-2208988800) * S },
		{ "2024-02-29T00:00:00Z", INT64_C(1709164800) * S },
		{ "2024-02-29", INT64_C(1709164800) * S },
		{ "2000-02-29", (INT64_C(951868800) - 86400) * S },
		{ "2000-03-01", INT64_C(951868800) * S },
		{ "2026-11-29T23:59:60Z", D2026N * S },
		{ "2016-12-31T23:59:60Z", INT64_C(1483228800) * S },
		{ "2026-11-30T00:30:00+01:00", (D2026N - 1800) * S },
		{ "2262-04-11T23:47:16.854775807Z", INT64_MAX },
		{ "1677-09-21T00:12:43.145224192Z", INT64_MIN },
		{ "2262-04-11T23:47:16.854775808Z", BAD },
		{ "2262-04-12", BAD },
		{ "2263-01-01T00:00:00Z", BAD },
		{ "9999-12-31T23:59:59Z", BAD },
		{ "1677-09-21T00:12:43.145224191Z", BAD },
		{ "1677-09-21", BAD },
		{ "0000-01-01", BAD },
		{ "2262-04-12T00:00:00+01:00",
		    (INT64_C(9223372800) - 3600) * S },

		{ "2023-02-29", BAD },
		{ "1900-02-29", BAD },
		{ "2026-04-31", BAD },
		{ "2026-00-10", BAD },
		{ "2026-13-10", BAD },
		{ "2026-01-00", BAD },
		{ "2026-01-32", BAD },
		{ "2026-11-29T24:00:00Z", BAD },
		{ "2026-11-29T23:60:00Z", BAD },
		{ "2026-11-29T23:59:61Z", BAD },
		{ "2026-11-29T20:37Z", BAD },	/* seconds required */
		{ "2026-11-29T20:37", BAD },
		{ "2026-11-29T", BAD },
		{ "2026-11-29T20:37:03.Z", BAD },
		{ "2026-11-29T20:37:03.", BAD },
		{ "2026-11-29T20:37:03,5Z", BAD },
		{ "2026-11-29T20:37:03ZZ", BAD },
		{ "2026-11-29T20:37:03Z ", BAD },
		{ "2026-11-29T20:37:03 Z", BAD },
		{ "2026-11-29T20:37:03+8", BAD },
		{ "2026-11-29T20:37:03+080", BAD },
		{ "2026-11-29T20:37:03+08:0", BAD },
		{ "2026-11-29T20:37:03+08:", BAD },
		{ "2026-11-29T20:37:03+24:00", BAD },
		{ "2026-11-29T20:37:03+08:60", BAD },
		{ "2026-11-29T20:37:03+08:00:00", (T2026 - 8 * 3600) * S },
		{ "1906-08-16T20:46:12+00:19:32", INT64_C(-2000000000) * S },
		{ "1906-08-16T20:07:08-00:19:32", INT64_C(-2000000000) * S },
		{ "2026-11-29T20:37:03+08:00:0", BAD },
		{ "2026-11-29T20:37:03+08:00:", BAD },
		{ "2026-11-29T20:37:03+08:00:60", BAD },
		{ "2026-11-29T20:37:03+0800:00", BAD },
		{ "2026-11-29T20:37:03+080000", BAD },
		{ "2026-11-29T20:37:03UTC", BAD },
		{ "2026-11-29X20:37:03", BAD },
		{ "2026-11-29Z", BAD },
		{ "2026-1-29", BAD },
		{ "26-11-29", BAD },
		{ "2026/11/29", BAD },
		{ "20261129", BAD },
		{ "2026-11-29T2:37:03", BAD },
		{ "+2026-11-29", BAD },
		{ " 2026-11-29", BAD },
		{ "", BAD },
		{ "1700000000", BAD },
	};

	run_parse(t, NEL(t), TF_ISO, NULL);
}

static void
test_parse_strptime(void)
{
	static const struct tcase dmy[] = {
		{ "29/11/2026 20:37:03", T2026 * S },
		{ "29/02/2024 00:00:00", INT64_C(1709164800) * S },
		{ "31/12/1969 23:59:59", -S },
		{ "01/01/1900 00:00:00", INT64_C(-2208988800) * S },
		{ "29/02/2023 00:00:00", BAD },	/* glibc takes it */
		{ "31/04/2026 00:00:00", BAD },
		{ "32/01/2026 00:00:00", BAD },
		{ "29/11/2026 20:37:03 ", BAD },	/* all text used */
		{ "29/11/2026 20:37", BAD },
		{ "29/11/2026", BAD },
		{ "", BAD },
		{ "01/01/2263 00:00:00", BAD },	/* past int64 ns */
	};
	static const struct tcase z[] = {
		{ "2026-11-29 20:37:03 +0000", T2026 * S },
		{ "2026-11-29 20:37:03 +0800", (T2026 - 8 * 3600) * S },
		{ "2026-11-29 20:37:03 -0530", (T2026 + 5 * 3600 + 1800) * S },
		{ "2026-11-29 20:37:03 +08:00", (T2026 - 8 * 3600) * S },
		{ "2026-11-29 20:37:03 bogus", BAD },
	};
	static const struct tcase clf[] = {
		{ "29/Nov/2026:20:37:03 +0100", (T2026 - 3600) * S },
		{ "29/Nov/2026:20:37:03 -0000", T2026 * S },
	};
	static const struct tcase ym[] = {
		/* No %d: the first of the month, not its day 0. */
		{ "2026-11", (D2026 - 28 * 86400) * S },
	};
	static const struct tcase epoch[] = {
		{ "1795984623", T2026 * S },
		{ "0", 0 },
	};
	static const struct tcase lit[] = {
		/* "%%z" is a literal "%z", not a zone. */
		{ "2026-11-29T20:37:03%z", T2026 * S },
	};
	char longtext[300];

	run_parse(dmy, NEL(dmy), TF_STRPTIME, "%d/%m/%Y %H:%M:%S");
	run_parse(z, NEL(z), TF_STRPTIME, "%Y-%m-%d %H:%M:%S %z");
	run_parse(clf, NEL(clf), TF_STRPTIME, "%d/%b/%Y:%H:%M:%S %z");
	run_parse(ym, NEL(ym), TF_STRPTIME, "%Y-%m");
	run_parse(lit, NEL(lit), TF_STRPTIME, "%Y-%m-%dT%H:%M:%S%%z");
	/* %s is epoch seconds through localtime_r(3): the TZ must not show. */
	setenv("TZ", "Asia/Kolkata", 1);
	tzset();
	run_parse(epoch, NEL(epoch), TF_STRPTIME, "%s");
	setenv("TZ", "UTC", 1);
	tzset();
	run_parse(epoch, NEL(epoch), TF_STRPTIME, "%s");

	/* The copy for strptime is bounded: 255 bytes, not 256. */
	{
		char fmt[300];
		int64_t v;

		memset(longtext, 'x', sizeof(longtext));
		memcpy(longtext, "2026", 4);
		memset(fmt, 'x', sizeof(fmt));
		memcpy(fmt, "%Y", 2);
		fmt[2 + 251] = '\0';
		CHECK(tf_parse_time(longtext, 255, TF_STRPTIME, fmt, &v) == 0 &&
		    v == (D2026 - 332 * 86400) * S);
		fmt[2 + 252] = '\0';
		CHECK(tf_parse_time(longtext, 256, TF_STRPTIME, fmt, &v) == -1);
		CHECK(tf_parse_time(longtext, sizeof(longtext), TF_STRPTIME,
		    fmt, &v) == -1);
		CHECK(tf_parse_time("12\0003", 4, TF_STRPTIME, "%s", &v) == -1);
		CHECK(tf_parse_time("12", 2, TF_STRPTIME, NULL, &v) == -1);
		CHECK(tf_parse_time("12", 2, TF_STRPTIME, "%s", &v) == 0 &&
		    v == 12 * S);
		CHECK(tf_parse_time("12", 2, TF_AUTO, NULL, &v) == -1);
		CHECK(tf_parse_time("12", 2, (enum tfmt)99, NULL, &v) == -1);
	}
}

static void
test_detect(void)
{
	static const struct {
		const char *in;
		enum tfmt want;
	} t[] = {
		{ "0", TF_S },
		{ "1700000000", TF_S },
		{ "1700000000.25", TF_S },
		{ "99999999999", TF_AUTO },	/* s by size, past 2262 */
		{ "9223372036", TF_S },
		{ "9223372037", TF_AUTO },
		{ "-1", TF_S },
		{ "+1", TF_S },
		{ ".5", TF_S },
		{ "5.", TF_S },
		{ "100000000000", TF_MS },
		{ "-100000000000", TF_MS },
		{ "1700000000123", TF_MS },
		{ "9223372036854", TF_MS },
		{ "9223372036855", TF_AUTO },	/* ms by size, past 2262 */
		{ "99999999999999", TF_AUTO },
		{ "100000000000000", TF_US },
		{ "1700000000123456", TF_US },
		{ "9223372036854775", TF_US },
		{ "9223372036854776", TF_AUTO },
		{ "99999999999999999", TF_AUTO },
		{ "100000000000000000", TF_NS },
		{ "1700000000123456789", TF_NS },
		{ "-1700000000123456789", TF_NS },
		{ "9223372036854775807", TF_NS },
		{ "9223372036854775808", TF_AUTO },	/* past int64 */
		{ "99999999999999999999999", TF_AUTO },
		{ "99999999999.5", TF_AUTO },	/* s, too big */
		{ "100000000000.5", TF_AUTO },	/* ms: integers only */
		{ "1700000000123.", TF_AUTO },
		{ "00000000001700000000", TF_S },	/* by value */
		{ "2026-11-29T20:37:03Z", TF_ISO },
		{ "2026-11-29 20:37:03", TF_ISO },
		{ "2026-11-29T20:37:03.125+08:00", TF_ISO },
		{ "2026-11-29", TF_ISO },
		{ "2023-02-29", TF_AUTO },
		{ "2026-11-29T25:00:00Z", TF_AUTO },
		{ "2026-", TF_AUTO },
		{ "2026", TF_S },
		{ "29/11/2026", TF_AUTO },
		{ "", TF_AUTO },
		{ "-", TF_AUTO },
		{ ".", TF_AUTO },
		{ "abc", TF_AUTO },
		{ "1e9", TF_AUTO },
		{ " 1", TF_AUTO },
		{ "1 ", TF_AUTO },
	};
	size_t i, len;

	for (i = 0; i < NEL(t); i++) {
		char *copy;
		enum tfmt f;

		len = strlen(t[i].in);
		copy = malloc(len + 1);
		memcpy(copy, t[i].in, len);
		f = tf_detect(copy, len);
		CHECK(f == t[i].want);
		if (f != t[i].want)
			fprintf(stderr, "  detect \"%s\": %s, want %s\n",
			    t[i].in, tf_name(f), tf_name(t[i].want));
		free(copy);
	}
}

static void
test_format(void)
{
	static const struct {
		int64_t t;
		enum tfmt f;
		const char *want;
	} t[] = {
		{ T2026 * S, TF_ISO, "2026-11-29T20:37:03Z" },
		{ T2026 * S + 500 * MS, TF_ISO, "2026-11-29T20:37:03.500Z" },
		{ T2026 * S + 125 * MS, TF_ISO, "2026-11-29T20:37:03.125Z" },
		{ T2026 * S + 1 * US, TF_ISO, "2026-11-29T20:37:03.000001Z" },
		{ T2026 * S + 123456 * US, TF_ISO,
		    "2026-11-29T20:37:03.123456Z" },
		{ T2026 * S + 1, TF_ISO, "2026-11-29T20:37:03.000000001Z" },
		{ T2026 * S + 123456789, TF_ISO,
		    "2026-11-29T20:37:03.123456789Z" },
		{ T2026 * S + 100 * US, TF_ISO, "2026-11-29T20:37:03.000100Z" },
		{ 0, TF_ISO, "1970-01-01T00:00:00Z" },
		{ -1, TF_ISO, "1969-12-31T23:59:59.999999999Z" },
		{ -500 * MS, TF_ISO, "1969-12-31T23:59:59.500Z" },
		{ -S, TF_ISO, "1969-12-31T23:59:59Z" },
		{ -86400 * S, TF_ISO, "1969-12-31T00:00:00Z" },
		{ INT64_C(-2208988800) * S, TF_ISO, "1900-01-01T00:00:00Z" },
		{ INT64_C(1709164800) * S, TF_ISO, "2024-02-29T00:00:00Z" },
		{ INT64_C(951868800) * S - 1, TF_ISO,
		    "2000-02-29T23:59:59.999999999Z" },
		{ INT64_MAX, TF_ISO, "2262-04-11T23:47:16.854775807Z" },
		{ INT64_MIN, TF_ISO, "1677-09-21T00:12:43.145224192Z" },
		/* Not output formats: printed as ISO. */
		{ 0, TF_STRPTIME, "1970-01-01T00:00:00Z" },
		{ 0, TF_AUTO, "1970-01-01T00:00:00Z" },

		{ 1700000000 * S, TF_S, "1700000000" },
		{ 1700000000 * S + 500 * MS, TF_S, "1700000000.5" },
		{ 1700000000 * S + 250 * MS, TF_S, "1700000000.25" },
		{ -1500 * MS, TF_S, "-1.5" },
		{ -500 * MS, TF_S, "-0.5" },
		{ 1, TF_S, "0.000000001" },
		{ -1, TF_S, "-0.000000001" },
		{ 0, TF_S, "0" },
		{ -S, TF_S, "-1" },
		{ S + 10, TF_S, "1.00000001" },
		{ INT64_MAX, TF_S, "9223372036.854775807" },
		{ INT64_MIN, TF_S, "-9223372036.854775808" },

		{ 1500 * MS, TF_MS, "1500" },
		{ 1500 * MS + 500 * US, TF_MS, "1500.5" },
		{ 1, TF_MS, "0.000001" },
		{ -1, TF_MS, "-0.000001" },
		{ 0, TF_MS, "0" },
		{ INT64_MIN, TF_MS, "-9223372036854.775808" },
		{ 1500 * US, TF_US, "1500" },
		{ 1500 * US + 5, TF_US, "1500.005" },
		{ -1, TF_US, "-0.001" },
		{ INT64_MAX, TF_US, "9223372036854775.807" },

		{ 0, TF_NS, "0" },
		{ -1, TF_NS, "-1" },
		{ 1234567, TF_NS, "1234567" },
		{ INT64_MAX, TF_NS, "9223372036854775807" },
		{ INT64_MIN, TF_NS, "-9223372036854775808" },
	};
	char buf[TF_BUFSZ];
	size_t i, n;
	int64_t v;

	for (i = 0; i < NEL(t); i++) {
		memset(buf, 'X', sizeof(buf));
		n = tf_format(buf, t[i].t, t[i].f);
		CHECK_STR(buf, t[i].want);
		CHECK(n == strlen(t[i].want) && n < TF_BUFSZ);
		/* What we print reads back exactly (ms, us: if whole). */
		if (t[i].f == TF_ISO || t[i].f == TF_S || t[i].f == TF_NS ||
		    strchr(buf, '.') == NULL) {
			enum tfmt in = t[i].f;

			if (in == TF_STRPTIME || in == TF_AUTO)
				in = TF_ISO;
			v = BAD;
			CHECK(tf_parse_time(buf, n, in, NULL, &v) == 0 &&
			    v == t[i].t);
		}
	}
}

/* ISO and s round trips over a spread of times, before and after 1970,
 * each checked against the calendar of gmtime_r(3). */
static void
test_roundtrip(void)
{
	char buf[TF_BUFSZ], want[64];
	uint64_t x = 88172645463325252ULL;
	int64_t t, v;
	struct tm tm;
	time_t secs;
	int i, ok = 1;

	for (i = 0; i < 200000; i++) {
		/* xorshift64: deterministic, no rand(3) state. */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		t = (int64_t)x;
		if (i % 3 == 0)
			t = t / S * S;	/* whole seconds too */
		tf_format(buf, t, TF_ISO);
		if (tf_parse_time(buf, strlen(buf), TF_ISO, NULL, &v) != 0 ||
		    v != t)
			ok = 0;
		secs = t / S - (t % S < 0);
		gmtime_r(&secs, &tm);
		strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%S", &tm);
		if (strncmp(buf, want, strlen(want)) != 0)
			ok = 0;
		tf_format(buf, t, TF_S);
		if (tf_parse_time(buf, strlen(buf), TF_S, NULL, &v) != 0 ||
		    v != t)
			ok = 0;
		if (!ok) {
			fprintf(stderr, "  round trip of %lld: %s\n",
			    (long long)t, buf);
			break;
		}
	}
	CHECK(ok);
	/* Every day from 1677 to 2262 through both calendar directions. */
	ok = 1;
	for (t = INT64_C(-106751) * 86400; t <= INT64_C(106750) * 86400;
	    t += 86400) {
		tf_format(buf, t * S, TF_ISO);
		if (tf_parse_time(buf, 10, TF_ISO, NULL, &v) != 0 ||
		    v != t * S) {
			fprintf(stderr, "  day %lld: %s\n", (long long)t, buf);
			ok = 0;
			break;
		}
	}
	CHECK(ok);
}


/* Window sizes and steps: calendar units, and errors told apart. */
static void
test_parse_span(void)
{
	static const struct {
		const char *in;
		int flags;
		int rc;
		enum cal_kind kind;
		int64_t n;
	} t[] = {
		{ "1d", TF_CAL, 0, CAL_DAY, 1 },
		{ "2d", TF_CAL, 0, CAL_DAY, 2 },
		{ "007d", TF_CAL, 0, CAL_DAY, 7 },
		{ "1w", TF_CAL, 0, CAL_WEEK, 1 },
		{ "2w", TF_CAL, 0, CAL_WEEK, 2 },
		{ "1mo", TF_CAL, 0, CAL_MONTH, 1 },
		{ "3mo", TF_CAL, 0, CAL_MONTH, 3 },
		{ "1q", TF_CAL, 0, CAL_MONTH, 3 },
		{ "2q", TF_CAL, 0, CAL_MONTH, 6 },
		{ "1y", TF_CAL, 0, CAL_MONTH, 12 },
		{ "0d", TF_CAL, 0, CAL_DAY, 0 },	/* the caller wants > 0 */
		{ "0mo", TF_CAL, 0, CAL_MONTH, 0 },
		{ "106751d", TF_CAL, 0, CAL_DAY, 106751 },
		{ "3443mo", TF_CAL, 0, CAL_MONTH, 3443 },
		{ "286y", TF_CAL, 0, CAL_MONTH, 3432 },
		/* fixed: not one whole term of d or w */
		{ "1d12h", TF_CAL, 0, CAL_FIXED, 36 * 3600 * S },
		{ "1.5d", TF_CAL, 0, CAL_FIXED, 36 * 3600 * S },
		{ "24h", TF_CAL, 0, CAL_FIXED, 86400 * S },
		{ "1d1d", TF_CAL, 0, CAL_FIXED, 2 * 86400 * S },
		{ "90", TF_CAL, 0, CAL_FIXED, 90 * S },
		{ "1m", TF_CAL, 0, CAL_FIXED, 60 * S },
		{ "1ms", TF_CAL, 0, CAL_FIXED, MS },
		{ "1d", 0, 0, CAL_FIXED, 86400 * S },
		{ "1w", 0, 0, CAL_FIXED, 7 * 86400 * S },
		{ "-1d", TF_NEG | TF_CAL, 0, CAL_FIXED, -86400 * S },
		{ "-8h", TF_NEG, 0, CAL_FIXED, -8 * 3600 * S },

		{ "1mo", 0, TF_ECAL, CAL_FIXED, 0 },
		{ "1q", 0, TF_ECAL, CAL_FIXED, 0 },
		{ "1y", TF_NEG, TF_ECAL, CAL_FIXED, 0 },
		{ "1h1y", 0, TF_ECAL, CAL_FIXED, 0 },
		{ "1mo2d", TF_CAL, TF_EBAD, CAL_FIXED, 0 },
		{ "2d1mo", TF_CAL, TF_EBAD, CAL_FIXED, 0 },
		{ "1.5mo", TF_CAL, TF_EBAD, CAL_FIXED, 0 },
		{ "-1mo", TF_CAL | TF_NEG, TF_EBAD, CAL_FIXED, 0 },
		{ "1moo", TF_CAL, TF_EBAD, CAL_FIXED, 0 },
		{ "1M", TF_CAL, TF_EBAD, CAL_FIXED, 0 },
		{ "mo", TF_CAL, TF_EBAD, CAL_FIXED, 0 },
		{ "1x", TF_CAL, TF_EBAD, CAL_FIXED, 0 },
		{ "", TF_CAL, TF_EBAD, CAL_FIXED, 0 },
		{ "-1h", TF_CAL, TF_EBAD, CAL_FIXED, 0 },
		{ "3444mo", TF_CAL, TF_EBIG, CAL_FIXED, 0 },
		{ "287y", TF_CAL, TF_EBIG, CAL_FIXED, 0 },
		{ "99999999999999999999y", TF_CAL, TF_EBIG, CAL_FIXED, 0 },
		{ "106752d", TF_CAL, TF_EBIG, CAL_FIXED, 0 },
		{ "300000d", 0, TF_EBIG, CAL_FIXED, 0 },
		{ "9223372036854775808ns", 0, TF_EBIG, CAL_FIXED, 0 },
		{ "99999999999999999999999ns", 0, TF_EBIG, CAL_FIXED, 0 },
		{ "106751d1d", 0, TF_EBIG, CAL_FIXED, 0 },
	};
	struct cal_unit u;
	char buf[TF_BUFSZ];
	size_t i;
	int rc;

	for (i = 0; i < NEL(t); i++) {
		u.kind = CAL_FIXED;
		u.n = -42;
		rc = tf_parse_span(t[i].in, t[i].flags, &u);
		CHECK(rc == t[i].rc);
		if (rc == 0)
			CHECK(u.kind == t[i].kind && u.n == t[i].n);
		if (rc != t[i].rc || (rc == 0 && (u.kind != t[i].kind ||
		    u.n != t[i].n)))
			fprintf(stderr, "  \"%s\": rc %d, kind %d, n %lld\n",
			    t[i].in, rc, u.kind, (long long)u.n);
		/* what parses prints back to the same span */
		if (rc == 0) {
			struct cal_unit v;

			tf_format_span(buf, &u);
			CHECK(tf_parse_span(buf, TF_CAL | TF_NEG, &v) == 0 &&
			    v.kind == u.kind && v.n == u.n);
		}
	}
	CHECK_STR(TF_UNITS, "ns us ms s m h d w");
	CHECK_STR(TF_SPAN_UNITS, "ns us ms s m h d w mo q y");
}

static void
test_format_span(void)
{
	static const struct {
		struct cal_unit u;
		const char *want;
	} t[] = {
		{ { CAL_DAY, 1 }, "1d" },
		{ { CAL_DAY, 14 }, "14d" },
		{ { CAL_WEEK, 2 }, "2w" },
		{ { CAL_MONTH, 1 }, "1mo" },
		{ { CAL_MONTH, 5 }, "5mo" },
		{ { CAL_MONTH, 3 }, "1q" },
		{ { CAL_MONTH, 6 }, "2q" },
		{ { CAL_MONTH, 12 }, "1y" },
		{ { CAL_MONTH, 24 }, "2y" },
		{ { CAL_FIXED, 86400 * S }, "24h" },
		{ { CAL_FIXED, 7 * 86400 * S }, "168h" },
		{ { CAL_FIXED, 36 * 3600 * S }, "36h" },
		{ { CAL_FIXED, 5400 * S }, "1h30m" },
		{ { CAL_FIXED, 1500 * MS }, "1500ms" },
		{ { CAL_FIXED, -8 * 3600 * S }, "-8h" },
		{ { CAL_FIXED, INT64_MAX }, "2562047h47m16854775807ns" },
	};
	char buf[TF_BUFSZ];
	size_t i, n;

	for (i = 0; i < NEL(t); i++) {
		n = tf_format_span(buf, &t[i].u);
		CHECK_STR(buf, t[i].want);
		CHECK(n == strlen(t[i].want));
	}
}

/* Times in a zone: ISO output with the offset, and times written
 * without one read on the zone's wall clock (the earlier offset in a
 * skipped or repeated hour). */
static void
test_zone_times(void)
{
	static const struct {
		const char *zone;
		int64_t t;
		const char *want;
	} out[] = {
		{ "America/Los_Angeles", INT64_C(1772956800) * S,
		    "2026-03-08T00:00:00-08:00" },
		{ "America/Los_Angeles", INT64_C(1772956800) * S + 500 * MS,
		    "2026-03-08T00:00:00.500-08:00" },
		{ "America/Los_Angeles", INT64_C(1772956800) * S + 123456 * US,
		    "2026-03-08T00:00:00.123456-08:00" },
		{ "America/Los_Angeles", INT64_C(1772956800) * S + 1,
		    "2026-03-08T00:00:00.000000001-08:00" },
		{ "America/Los_Angeles", INT64_C(1773043200) * S,
		    "2026-03-09T01:00:00-07:00" },
		{ "Europe/Berlin", 0, "1970-01-01T01:00:00+01:00" },
		{ "Europe/Berlin", -1, "1970-01-01T00:59:59.999999999+01:00" },
		{ "Europe/London", T2026 * S, "2026-11-29T20:37:03+00:00" },
		{ "Asia/Kolkata", T2026 * S, "2026-11-30T02:07:03+05:30" },
		{ "Australia/Sydney", T2026 * S, "2026-11-30T07:37:03+11:00" },
		{ "America/St_Johns", T2026 * S, "2026-11-29T17:07:03-03:30" },
		{ "Europe/Amsterdam", INT64_C(-2000000000) * S,
		    "1906-08-16T20:46:12+00:19:32" },
		{ "UTC", T2026 * S, "2026-11-29T20:37:03Z" },
		{ "America/Los_Angeles", INT64_MAX,
		    "2262-04-11T16:47:16.854775807-07:00" },
		{ "Asia/Tokyo", INT64_MIN, "1677-09-21T09:31:42.145224192+09:18:59" },
	};
	static const struct {
		const char *zone, *in;
		int64_t want;
	} in[] = {
		/* 02:30 is skipped: 10:30Z, 03:30 PDT */
		{ "America/Los_Angeles", "2026-03-08 02:30:00",
		    INT64_C(1772965800) * S },
		{ "America/Los_Angeles", "2026-03-08T01:59:59.5",
		    INT64_C(1772963999) * S + 500 * MS },
		/* 01:30 is repeated: the first, PDT */
		{ "America/Los_Angeles", "2026-11-01T01:30:00",
		    INT64_C(1793521800) * S },
		{ "America/Los_Angeles", "2026-03-08",
		    INT64_C(1772956800) * S },
		{ "America/Los_Angeles", "2026-03-08T00:00:00Z",
		    INT64_C(1772928000) * S },
		{ "America/Los_Angeles", "2026-03-08T00:00:00+01:00",
		    INT64_C(1772924400) * S },
		{ "Europe/Berlin", "2026-10-25T02:30:00",
		    INT64_C(1792888200) * S },
		{ "Europe/Berlin", "1969-12-31T23:00:00", -7200 * S },
		{ "Europe/Berlin", "2026-10-25T02:30:00.999999999999",
		    INT64_C(1792888200) * S + 999999999 },
		{ "UTC", "2026-03-08 02:30:00", INT64_C(1772937000) * S },
	};
	static const struct {
		const char *zone, *fmt, *in;
		int64_t want;
	} strp[] = {
		{ "Europe/Berlin", "%Y-%m-%d %H:%M", "2026-10-25 02:30",
		    INT64_C(1792888200) * S },
		{ "Europe/Berlin", "%Y-%m-%d %H:%M %z", "2026-10-25 02:30 +0100",
		    INT64_C(1792891800) * S },
		{ "Australia/Sydney", "%d/%m/%Y %H:%M", "04/10/2026 02:30",
		    INT64_C(1791045000) * S },
		{ "Australia/Sydney", "%s", "1795984623", T2026 * S },
	};
	struct cal_zone z;
	const char *why;
	char buf[TF_BUFSZ];
	size_t i, n;
	int64_t v;

	for (i = 0; i < NEL(out); i++) {
		CHECK(cal_zone_open(&z, out[i].zone, &why) == 0);
		n = tf_format_tz(buf, out[i].t, TF_ISO, &z);
		CHECK_STR(buf, out[i].want);
		CHECK(n == strlen(buf));
		/* what fwin writes it reads back, local mean times too */
		v = BAD;
		CHECK(tf_parse_time(buf, n, TF_ISO, NULL, &v) == 0 &&
		    v == out[i].t);
		/* other formats do not care for the zone */
		tf_format_tz(buf, out[i].t, TF_S, &z);
		{
			char b2[TF_BUFSZ];

			tf_format(b2, out[i].t, TF_S);
			CHECK_STR(buf, b2);
		}
	}
	for (i = 0; i < NEL(in); i++) {
		CHECK(cal_zone_open(&z, in[i].zone, &why) == 0);
		v = BAD;
		CHECK(tf_parse_time_tz(in[i].in, strlen(in[i].in), TF_ISO, NULL,
		    &z, &v) == 0 && v == in[i].want);
		if (v != in[i].want)
			fprintf(stderr, "  %s %s: %lld\n", in[i].zone, in[i].in,
			    (long long)v);
	}
	for (i = 0; i < NEL(strp); i++) {
		CHECK(cal_zone_open(&z, strp[i].zone, &why) == 0);
		v = BAD;
		CHECK(tf_parse_time_tz(strp[i].in, strlen(strp[i].in),
		    TF_STRPTIME, strp[i].fmt, &z, &v) == 0 &&
		    v == strp[i].want);
		if (v != strp[i].want)
			fprintf(stderr, "  %s %s: %lld\n", strp[i].zone,
			    strp[i].in, (long long)v);
	}
	/* The zone-free functions stay UTC whatever zone is open. */
	CHECK(cal_zone_open(&z, "Asia/Kolkata", &why) == 0);
	CHECK(tf_parse_time("2026-11-29 20:37:03", 19, TF_ISO, NULL, &v) == 0 &&
	    v == T2026 * S);
	tf_format(buf, T2026 * S, TF_ISO);
	CHECK_STR(buf, "2026-11-29T20:37:03Z");
	CHECK(cal_zone_open(&z, "UTC", &why) == 0);
}

/* Times that are well written but outside int64 nanoseconds are out of
 * range; malformed ones, and those inside it, are not. */
static void
test_out_of_range(void)
{
	static const struct {
		const char *in;
		enum tfmt f;
		int want;
	} t[] = {
		{ "2262-04-11T23:47:16.854775808Z", TF_ISO, 1 },
		{ "2262-04-11T23:47:16.854775807Z", TF_ISO, 0 },
		{ "1677-09-21T00:12:43.145224191Z", TF_ISO, 1 },
		{ "9999-12-31", TF_ISO, 1 },
		{ "2300-01-01T00:00:00Z", TF_AUTO, 1 },
		{ "2026-02-30T00:00:00Z", TF_AUTO, 0 },	/* no such day */
		{ "9223372036854775808", TF_NS, 1 },
		{ "-9223372036854775809", TF_NS, 1 },
		{ "9223372036854775807", TF_NS, 0 },
		{ "9223372036.854775808", TF_S, 1 },
		{ "99999999999", TF_AUTO, 1 },		/* s by size */
		{ "9223372036855", TF_AUTO, 1 },	/* ms by size */
		{ "1700000000", TF_AUTO, 0 },
		{ "17000x0000", TF_AUTO, 0 },
		{ "1.5", TF_MS, 0 },			/* malformed in ms */
		{ "foo", TF_AUTO, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int got = tf_why_bad(t[i].in, strlen(t[i].in), t[i].f,
		    NULL, NULL) == TF_BAD_RANGE;

		CHECK(got == t[i].want);
		if (got != t[i].want)
			fprintf(stderr, "  %s as %s: out of range %d\n",
			    t[i].in, tf_name(t[i].f), got);
	}
	CHECK(tf_why_bad("2300-01-01", 10, TF_STRPTIME, "%Y-%m-%d",
	    NULL) == TF_BAD_RANGE);
	CHECK(tf_why_bad("2200-01-01", 10, TF_STRPTIME, "%Y-%m-%d",
	    NULL) == TF_BAD_TIME);
}

/* The rough form of a duration, in its largest whole unit. */
static void
test_format_rough(void)
{
	static const struct {
		int64_t ns;
		const char *want;
	} t[] = {
		{ 0, "0 seconds" },
		{ NS_PER_S, "1 second" },
		{ 59 * NS_PER_S, "59 seconds" },
		{ 3600 * NS_PER_S, "1 hour" },
		{ 86400 * NS_PER_S - 1, "23 hours" },
		{ 2 * 86400 * NS_PER_S, "2 days" },
		{ 365 * 86400 * NS_PER_S, "1 year" },
		{ INT64_MAX, "292 years" },
	};
	char buf[TF_BUFSZ];
	size_t i, n;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		n = tf_format_rough(buf, t[i].ns);
		CHECK(n == strlen(t[i].want) && strcmp(buf, t[i].want) == 0);
		if (strcmp(buf, t[i].want) != 0)
			fprintf(stderr, "  %lld ns: \"%s\", want \"%s\"\n",
			    (long long)t[i].ns, buf, t[i].want);
	}
}

int
main(void)
{
	test_names();
	test_parse_duration();
	test_format_duration();
	test_parse_numbers();
	test_parse_iso();
	test_parse_strptime();
	test_detect();
	test_format();
	test_roundtrip();
	test_parse_span();
	test_format_span();
	test_zone_times();
	test_out_of_range();
	test_format_rough();
	return unit_done("timefmt");
}
