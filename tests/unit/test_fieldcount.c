/* Unit tests of fieldcount: a record split up to some fields, its total
 * counted from the rest of its bytes (delimiters 8 at a time, quotes
 * followed for csv), against a plain count over the whole record, for
 * random records at every split point; and csv fields framed in a
 * record's text, against the reader's fields for random csv. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	/* a '"' inside an unquoted csv field is data, and hides nothing */
	copy[0].p = "3";
	copy[0].n = 1;
	copy[1].p = "x\"yz";
	copy[1].n = 4;
	CHECK(count(copy, 2, "3,x\"yz,2", 8, ',', 1) == 3);
	CHECK(count(copy, 2, "3,x\"yz,2,9", 10, ',', 1) == 4);
	CHECK(count(copy, 1, "x\"y,p\"q\"r,2", 12, ',', 1) == 3);
	/* a quoted field goes on past a '"' that no delimiter follows */
	CHECK(count(copy, 1, "3,\"q\"r,s\",5", 12, ',', 1) == 3);
}

/* csv_field_end() and csv_field_text() over text, field by field: the
 * values joined by '|'. */
static const char *
fields_of(const char *text)
{
	static char out[256];
	char v[64];
	const char *p = text, *e = text + strlen(text), *q;
	size_t len = 0, n;

	for (;;) {
		q = csv_field_end(p, e, ',');
		n = csv_field_text(p, (size_t)(q - p), v);
		memcpy(out + len, v, n);
		len += n;
		if (q == e)
			break;
		out[len++] = '|';
		p = q + 1;
	}
	out[len] = '\0';
	return out;
}

static void
test_fields(void)
{
	CHECK_STR(fields_of("3,x\"yz,2"), "3|x\"yz|2");
	CHECK_STR(fields_of("x\"yz,3,2"), "x\"yz|3|2");
	CHECK_STR(fields_of("3,2,x\"yz"), "3|2|x\"yz");
	CHECK_STR(fields_of("a\"b\"c,\"\",\"d\"\"e\","), "a\"b\"c||d\"e|");
	CHECK_STR(fields_of("\"ab\"c,d\",2"), "ab\"c,d|2");
	CHECK_STR(fields_of("\"a\"\"\"\"\",\"\"\"\""), "a\"\"|\"");
	CHECK_STR(fields_of("\"x\ny\",\"p\r\nq\""), "x\ny|p\r\nq");
	CHECK_STR(fields_of(" \"a\" ,b"), " \"a\" |b");
	CHECK_STR(fields_of(""), "");
	CHECK_STR(fields_of(","), "|");
	/* a delimiter byte above 0x7f */
	CHECK(text_fields("1\xa7\"a\"\xa7" "2\xa7" "9", 9, 0xa7, 1) == 4);
	CHECK(text_fields("\"a\xa7\"\xa7x\"y\xa7" "2", 10, 0xa7, 1) == 3);
}

/* Random csv of delimiters, quotes, letters, blanks and line ends, read
 * by the reader (libcsv or the fast path): each good record's text
 * framed by csv_field_end() gives the reader's fields, and the record
 * split at one or two fields (as the pipeline splits it) counts them. */
static void
test_reader(void)
{
	static const char abc[] = ",,\"\"\"a \r\n";
	struct input_opts o;
	struct input *all, *few;
	struct record r, r2;
	static char v[1 << 16];	/* (a field is shorter than the file) */
	char path[] = "/tmp/fwin-test-fieldcount.XXXXXX";
	char *data = malloc(sizeof(v)), *files[1];
	const char *p, *e, *q;
	size_t n, i, k, nrec = 0;
	int fd, round;

	unit_rstate = 0xc5f1e1dc0de5ULL;
	for (round = 0; round < 40; round++) {
		for (n = 0; n < sizeof(v) - 1; n++)
			data[n] = abc[unit_below(sizeof(abc) - 1)];
		data[n++] = '\n';
		if ((fd = mkstemp(path)) == -1 ||
		    write(fd, data, n) != (ssize_t)n) {
			perror("tmpfile");
			exit(1);
		}
		close(fd);
		files[0] = path;
		memset(&o, 0, sizeof(o));
		o.fmt = IF_CSV;
		o.delim = -1;
		all = input_open(files, 1, &o);
		o.maxfields = 1 + (size_t)(round % 2);
		few = input_open(files, 1, &o);
		while (input_next(all, &r) == 1) {
			CHECK(input_next(few, &r2) == 1);
			CHECK(r2.line == r.line && r2.rawlen == r.rawlen);
			if (r.bad != NULL)
				continue;
			nrec++;
			CHECK(text_fields(r.raw, r.rawlen, ',', 1) == r.nf);
			CHECK(record_fields(&r2, ',', 1) == r.nf);
			p = r.raw;
			e = p + r.rawlen;
			for (i = 0; i < r.nf; i++) {
				q = csv_field_end(p, e, ',');
				k = csv_field_text(p, (size_t)(q - p), v);
				CHECK(k == r.f[i].n &&
				    memcmp(v, r.f[i].p, k) == 0);
				CHECK((q == e) == (i + 1 == r.nf));
				p = q < e ? q + 1 : e;
			}
		}
		CHECK(input_next(few, &r2) == 0);
		input_close(all);
		input_close(few);
		unlink(path);
		memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	}
	CHECK(nrec > 1000);
	free(data);
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
	test_fields();
	test_random();
	test_reader();
	return unit_done("fieldcount");
}
