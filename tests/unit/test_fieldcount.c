/* Unit tests of fieldcount: a record split up to some fields, its total
 * counted from the rest of its bytes (delimiters 8 at a time, quotes
 * followed for csv), against a plain count over the whole record, for
 * random records at every split point. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "io/fieldcount.h"
#include "unit.h"

/* Splits raw[0..n) on delim into at most max fields (0: all), the last
 * ending at its own delimiter, as the framer does; returns how many. */
static size_t
split(const char *raw, size_t n, int delim, size_t max, struct field *f)
{
	size_t nf = 0, i, st = 0;

	for (i = 0; i <= n; i++)
		if (i == n || raw[i] == delim) {
			f[nf].p = raw + st;
			f[nf].n = i - st;
			nf++;
			st = i + 1;
			if (nf == max)
				break;
		}
	return nf;
}

static size_t
count(const struct field *f, size_t nf, const char *raw, size_t n,
    int delim, int quoted)
{
	struct record r;

	memset(&r, 0, sizeof(r));
	r.f = f;
	r.nf = nf;
	r.raw = raw;
	r.rawlen = n;
	return record_fields(&r, delim, quoted);
}

static void
test_fixed(void)
{
	static const char line[] = "2026-01-01T00:00:01Z,a,1,5";
	struct field f[64], copy[2];
	size_t n = sizeof(line) - 1, max;

	for (max = 1; max <= 5; max++)
		CHECK(count(f, split(line, n, ',', max, f), line, n, ',', 0) == 4);
	CHECK(count(f, split("", 0, ',', 2, f), "", 0, ',', 0) == 1);
	CHECK(count(f, split("a,,", 3, ',', 1, f), "a,,", 3, ',', 0) == 3);
	/* quotes hide delimiters, past the split and before it */
	CHECK(count(f, split("1,a,\"4,5\",6", 11, ',', 2, f), "1,a,\"4,5\",6",
	    11, ',', 1) == 4);
	CHECK(count(f, split("1,a,\"x\"\"y,z\"", 13, ',', 2, f),
	    "1,a,\"x\"\"y,z\"", 13, ',', 1) == 3);
	/* fields that are copies (libcsv's): the whole record counted */
	copy[0].p = "1";
	copy[0].n = 1;
	copy[1].p = "a,b";
	copy[1].n = 3;
	CHECK(count(copy, 2, "1,\"a,b\",c,d", 11, ',', 1) == 4);
	/* tsv: quotes are data */
	CHECK(count(f, split("1\t\"a\tb\"", 7, '\t', 1, f), "1\t\"a\tb\"", 7,
	    '\t', 0) == 3);
}

/* Random records of tabs, commas and letters: every split point gives
 * the number of delimiters plus one. */
static void
test_random(void)
{
	char raw[200];
	struct field f[201];
	size_t n, i, max, want, nf;
	int d;

	unit_rstate = 0x5eed0f1e1dULL;
	for (i = 0; i < 20000; i++) {
		d = unit_below(2) ? ',' : '\t';
		n = (size_t)unit_below(sizeof(raw));
		want = 1;
		for (size_t j = 0; j < n; j++) {
			static const char abc[] = ",\tab\xff\x80";

			raw[j] = abc[unit_below(sizeof(abc) - 1)];
			want += raw[j] == d;
		}
		max = (size_t)unit_below(want + 2);
		nf = split(raw, n, d, max, f);
		CHECK(count(f, nf, raw, n, d, 0) == want);
	}
}

int
main(void)
{
	test_fixed();
	test_random();
	return unit_done("fieldcount");
}
