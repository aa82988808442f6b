/* Unit tests for output: exact bytes of each format, the buffer boundary,
 * and sticky write errors. */

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/output.h"
#include "unit.h"

#define MB	(1024 * 1024)

/* A growable byte string for building expected output. */
struct sb {
	char	*p;
	size_t	 n, cap;
};

static void
sb_add(struct sb *b, const char *p, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		while (b->n + n + 1 > b->cap)
			b->cap = b->cap ? b->cap * 2 : 4096;
		if ((b->p = realloc(b->p, b->cap)) == NULL)
			abort();
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void
sb_str(struct sb *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static int
tmpfd(void)
{
	char path[] = "/tmp/fwin-test-output.XXXXXX";
	int fd;

	if ((fd = mkstemp(path)) == -1) {
		perror("mkstemp");
		exit(2);
	}
	unlink(path);
	return fd;
}

/* The whole file behind fd, NUL-terminated; *n is its length. */
static char *
slurp(int fd, size_t *n)
{
	struct stat st;
	char *p;
	ssize_t r;
	size_t off = 0;

	if (fstat(fd, &st) == -1)
		abort();
	if ((p = malloc((size_t)st.st_size + 1)) == NULL)
		abort();
	while (off < (size_t)st.st_size) {
		r = pread(fd, p + off, (size_t)st.st_size - off, (off_t)off);
		if (r <= 0)
			abort();
		off += (size_t)r;
	}
	p[off] = '\0';
	*n = off;
	return p;
}

static int
same_bytes(const char *g, size_t gn, const char *w, size_t wn, int line)
{
	size_t i;

	if (gn == wn && memcmp(g, w, gn) == 0)
		return 1;
	for (i = 0; i < gn && i < wn && g[i] == w[i]; i++)
		;
	fprintf(stderr, "%s:%d: output differs at byte %zu (got %zu bytes, "
	    "want %zu)\n", __FILE__, line, i, gn, wn);
	return 0;
}

#define CHECK_MEM(g, gn, w, wn)	CHECK(same_bytes(g, gn, w, wn, __LINE__))

/* One sink on a fresh temporary file. */
static int sink_fd;

static struct out *
sink(enum outfmt f, const char *const *cols, size_t ncols)
{
	sink_fd = tmpfd();
	return out_open(sink_fd, "test", f, cols, ncols);
}

/* Closes o (checking it succeeds) and returns what it wrote. */
static char *
done(struct out *o, size_t *n)
{
	char *s;

	CHECK(out_close(o) == 0);
	s = slurp(sink_fd, n);
	close(sink_fd);
	return s;
}

#define S(o, lit)	out_str(o, lit, sizeof(lit) - 1)
#define N(o, lit)	out_num(o, lit, sizeof(lit) - 1)

static void
test_tsv(void)
{
	const char *cols[] = { "a", "b c", "d" };
	struct out *o;
	char *s;
	size_t n;

	o = sink(OF_TSV, cols, 3);
	out_header(o);
	S(o, "x y");
	N(o, "3");
	out_null(o);
	out_end_row(o);
	/* tsv writes cells as they are, separators and quotes included. */
	S(o, "t\tab");
	S(o, "");
	N(o, "-1.5");
	out_end_row(o);
	S(o, "\"q\",\r\n");
	N(o, "inf");
	S(o, "\xff");
	out_end_row(o);
	s = done(o, &n);
	CHECK_STR(s, "a\tb c\td\n"
	    "x y\t3\t\n"
	    "t\tab\t\t-1.5\n"
	    "\"q\",\r\n\tinf\t\xff\n");
	free(s);
}

static void
test_csv(void)
{
	const char *cols[] = { "a", "b,c", "d\"e", "f\ng" };
	struct out *o;
	char *s;
	size_t n;

	o = sink(OF_CSV, cols, 4);
	out_header(o);
	S(o, "plain");
	S(o, "p,q");
	S(o, "say \"hi\"");
	S(o, "a\rb");
	out_end_row(o);
	S(o, "a\nb");
	S(o, "");
	out_null(o);
	N(o, "1e3");
	out_end_row(o);
	S(o, "\"");
	S(o, " spaced ");
	S(o, "tab\there");
	S(o, "\"\"");
	out_end_row(o);
	N(o, "1,5");	/* numbers follow the same rule */
	N(o, "-2.5");
	out_str(o, NULL, 0);	/* an empty slice may have no pointer */
	out_num(o, NULL, 0);
	S(o, "\r\n");
	S(o, "x\"");
	out_end_row(o);
	s = done(o, &n);
	CHECK_STR(s, "a,\"b,c\",\"d\"\"e\",\"f\ng\"\n"
	    "plain,\"p,q\",\"say \"\"hi\"\"\",\"a\rb\"\n"
	    "\"a\nb\",,,1e3\n"
	    "\"\"\"\", spaced ,tab\there,\"\"\"\"\"\"\n"
	    "\"1,5\",-2.5,,,\"\r\n\",\"x\"\"\"\n");
	free(s);
}

static void
test_json_row(void)
{
	const char *cols[] = { "window_start", "window_end", "user", "count" };
	struct out *o;
	char *s;
	size_t n;

	o = sink(OF_JSON, cols, 4);
	out_header(o);		/* nothing in json */
	S(o, "2026-11-29T20:37:00Z");
	S(o, "2026-11-29T20:38:00Z");
	S(o, "bob");
	N(o, "3");
	out_end_row(o);
	S(o, "a");
	S(o, "b");
	out_null(o);
	out_null(o);
	out_end_row(o);
	s = done(o, &n);
	CHECK_STR(s, "{\"window_start\":\"2026-11-29T20:37:00Z\","
	    "\"window_end\":\"2026-11-29T20:38:00Z\",\"user\":\"bob\","
	    "\"count\":3}\n"
	    "{\"window_start\":\"a\",\"window_end\":\"b\",\"user\":null,"
	    "\"count\":null}\n");
	free(s);
}

static void
test_json_escapes(void)
{
	const char *cols[] = { "we\"ird\\", "ctl\x01\n", "caf\xc3\xa9", "bad\xff" };
	char all[0x20];
	struct out *o;
	char *s;
	size_t n, i;

	for (i = 0; i < sizeof(all); i++)
		all[i] = (char)i;
	o = sink(OF_JSON, cols, 4);
	out_str(o, all, sizeof(all));
	S(o, "q\"b\\s/del\x7f");
	S(o, "");
	S(o, "x");
	out_end_row(o);
	s = done(o, &n);
	CHECK_STR(s, "{\"we\\\"ird\\\\\":\""
	    "\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007"
	    "\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f"
	    "\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017"
	    "\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\","
	    "\"ctl\\u0001\\n\":\"q\\\"b\\\\s/del\x7f\","
	    "\"caf\xc3\xa9\":\"\","
	    "\"bad\\ufffd\":\"x\"}\n");
	free(s);
}

static void
test_json_utf8(void)
{
	static const struct {
		const char	*in;
		size_t		 n;
		const char	*want;	/* inside the quotes */
	} t[] = {
#define T(in, want)	{ in, sizeof(in) - 1, want }
#define R		"\\ufffd"
		/* well-formed: passed through as they are */
		T("\xc2\x80", "\xc2\x80"),
		T("caf\xc3\xa9", "caf\xc3\xa9"),
		T("\xdf\xbf", "\xdf\xbf"),
		T("\xe0\xa0\x80", "\xe0\xa0\x80"),
		T("\xe2\x82\xac", "\xe2\x82\xac"),
		T("\xed\x9f\xbf", "\xed\x9f\xbf"),		/* U+D7FF */
		T("\xee\x80\x80", "\xee\x80\x80"),		/* U+E000 */
		T("\xef\xbf\xbf", "\xef\xbf\xbf"),		/* U+FFFF */
		T("\xf0\x90\x80\x80", "\xf0\x90\x80\x80"),
		T("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"),
		T("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"),	/* U+10FFFF */
		/* each byte that does not start a sequence: U+FFFD */
		T("\xff", R),
		T("\xfe", R),
		T("\x80", R),
		T("\xbf" "a", R "a"),
		T("\xc3", R),				/* truncated */
		T("\xc3" "a", R "a"),
		T("\xe2\x82", R R),
		T("\xe2\x82" "x", R R "x"),
		T("\xe2" "\xc3\xa9", R "\xc3\xa9"),
		T("\xf0\x9f\x98", R R R),
		T("\xf0\x9f\x98" "\"", R R R "\\\""),
		T("\xc0\xaf", R R),			/* overlong '/' */
		T("\xc1\xbf", R R),
		T("\xe0\x80\xaf", R R R),
		T("\xe0\x9f\xbf", R R R),
		T("\xf0\x80\x80\xaf", R R R R),
		T("\xf0\x8f\xbf\xbf", R R R R),
		T("\xed\xa0\x80", R R R),		/* surrogates */
		T("\xed\xbf\xbf", R R R),
		T("\xed\xa0\xbd\xed\xb8\x80", R R R R R R),
		T("\xf4\x90\x80\x80", R R R R),		/* > U+10FFFF */
		T("\xf5\x80\x80\x80", R R R R),
		T("\xf8\x88\x80\x80\x80", R R R R R),
		T("a\xff" "b\xc3\xa9" "c\x01", "a" R "b\xc3\xa9" "c\\u0001"),
		T("\xc3\xa9\xc3", "\xc3\xa9" R),
#undef R
#undef T
	};
	const char *cols[] = { "v" };
	struct out *o;
	struct sb want = { 0 };
	char *s;
	size_t n, i;

	o = sink(OF_JSON, cols, 1);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		out_str(o, t[i].in, t[i].n);
		out_end_row(o);
		sb_str(&want, "{\"v\":\"");
		sb_str(&want, t[i].want);
		sb_str(&want, "\"}\n");
	}
	s = done(o, &n);
	CHECK_MEM(s, n, want.p, want.n);
	/* Line by line, for a readable failure. */
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char buf[256];

		o = sink(OF_JSON, cols, 1);
		out_str(o, t[i].in, t[i].n);
		out_end_row(o);
		free(s);
		s = done(o, &n);
		snprintf(buf, sizeof(buf), "{\"v\":\"%s\"}\n", t[i].want);
		CHECK_STR(s, buf);
	}
	free(s);
	free(want.p);
}

static void
test_json_numbers(void)
{
	static const char *valid[] = {
		"0", "-0", "3", "-3", "10", "2.50", "0.5", "-0.0", "1e3",
		"1E3", "1e+21", "1e-7", "-1.5E-07", "0e0", "123456789012345678901",
		"1.7976931348623157e308",
	};
	static const char *invalid[] = {
		"", "inf", "-inf", "nan", "NaN", "Infinity", "+3", ".5", "-.5",
		"5.", "01", "-01", "00", "-", "1e", "1e+", "1e-", "1.e5", "--1",
		"0x10", "1.2.3", "1 ", " 1", "1e5.0", "e5", "1ee5", "+", "1_000",
	};
	const char *cols[] = { "n" };
	struct out *o;
	char *s, buf[128];
	size_t n, i;

	for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		o = sink(OF_JSON, cols, 1);
		out_num(o, valid[i], strlen(valid[i]));
		out_end_row(o);
		s = done(o, &n);
		snprintf(buf, sizeof(buf), "{\"n\":%s}\n", valid[i]);
		CHECK_STR(s, buf);
		free(s);
	}
	for (i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		o = sink(OF_JSON, cols, 1);
		out_num(o, invalid[i], strlen(invalid[i]));
		out_end_row(o);
		s = done(o, &n);
		snprintf(buf, sizeof(buf), "{\"n\":\"%s\"}\n", invalid[i]);
		CHECK_STR(s, buf);
		free(s);
	}
	/* A number is bare only in json. */
	o = sink(OF_TSV, cols, 1);
	N(o, "inf");
	out_end_row(o);
	s = done(o, &n);
	CHECK_STR(s, "inf\n");
	free(s);
}

static void
test_null(void)
{
	const char *cols[] = { "a", "b", "c" };
	static const struct {
		enum outfmt	 f;
		const char	*want;
	} t[] = {
		{ OF_TSV, "\t\t\nx\t\t\n" },
		{ OF_CSV, ",,\nx,,\n" },
		{ OF_JSON, "{\"a\":null,\"b\":null,\"c\":null}\n"
		    "{\"a\":\"x\",\"b\":null,\"c\":null}\n" },
	};
	struct out *o;
	char *s;
	size_t n, i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		o = sink(t[i].f, cols, 3);
		out_null(o);
		out_null(o);
		out_null(o);
		out_end_row(o);
		S(o, "x");
		out_null(o);
		out_null(o);
		out_end_row(o);
		s = done(o, &n);
		CHECK_STR(s, t[i].want);
		free(s);
	}
}

static void
test_header(void)
{
	char c0[] = "window_start", c1[] = "key, \"k\"", c2[] = "count";
	const char *cols[] = { c0, c1, c2 };
	static const struct {
		enum outfmt	 f;
		const char	*want;
	} t[] = {
		{ OF_TSV, "window_start\tkey, \"k\"\tcount\n1\t2\t3\n" },
		{ OF_CSV, "window_start,\"key, \"\"k\"\"\",count\n1,2,3\n" },
		{ OF_JSON, "{\"window_start\":\"1\",\"key, \\\"k\\\"\":\"2\","
		    "\"count\":3}\n" },
	};
	struct out *o;
	char *s;
	size_t n, i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		c1[0] = 'k';
		o = sink(t[i].f, cols, 3);
		/* The names are copied: changing them later changes nothing. */
		c1[0] = 'X';
		out_header(o);
		S(o, "1");
		S(o, "2");
		N(o, "3");
		out_end_row(o);
		s = done(o, &n);
		CHECK_STR(s, t[i].want);
		free(s);
	}
	c1[0] = 'k';

	/* No columns: an empty row per format. */
	o = sink(OF_JSON, NULL, 0);
	out_header(o);
	out_end_row(o);
	s = done(o, &n);
	CHECK_STR(s, "{}\n");
	free(s);
	o = sink(OF_CSV, NULL, 0);
	out_header(o);
	s = done(o, &n);
	CHECK_STR(s, "\n");
	free(s);
}

/* Output is block-buffered: nothing reaches the fd before out_flush(), and
 * out_close() leaves the fd open. */
static void
test_buffering(void)
{
	const char *cols[] = { "a" };
	struct out *o;
	struct stat st;
	char *s;
	size_t n;
	int fd;

	fd = tmpfd();
	o = out_open(fd, "test", OF_TSV, cols, 1);
	S(o, "one");
	out_end_row(o);
	S(o, "tw");
	CHECK(fstat(fd, &st) == 0 && st.st_size == 0);
	CHECK(out_flush(o) == 0);
	s = slurp(fd, &n);
	CHECK_STR(s, "one\ntw");
	free(s);
	CHECK(out_flush(o) == 0);	/* nothing new: no write */
	S(o, "o");
	out_end_row(o);
	CHECK(out_close(o) == 0);
	CHECK(write(fd, "!", 1) == 1);
	s = slurp(fd, &n);
	CHECK_STR(s, "one\ntw\to\n!");
	free(s);
	close(fd);
}

/* Cells much larger than the buffer, in each format, including escapes
 * that make the output several times the input. */
static void
test_big_cell(void)
{
	const char *cols[] = { "big", "n" };
	struct sb want = { 0 };
	struct out *o;
	char *in, *s;
	size_t n, i;

	in = malloc(MB);
	if (in == NULL)
		abort();

	/* tsv */
	memset(in, 'x', MB);
	o = sink(OF_TSV, cols, 2);
	out_str(o, in, MB);
	N(o, "7");
	out_end_row(o);
	s = done(o, &n);
	sb_add(&want, in, MB);
	sb_str(&want, "\t7\n");
	CHECK_MEM(s, n, want.p, want.n);
	free(s);

	/* csv, with quotes to double throughout */
	for (i = 0; i < MB; i++)
		in[i] = "ab\"c,"[i % 5];
	o = sink(OF_CSV, cols, 2);
	N(o, "1");
	out_str(o, in, MB);
	out_end_row(o);
	s = done(o, &n);
	want.n = 0;
	sb_str(&want, "1,\"");
	for (i = 0; i < MB; i++)
		sb_add(&want, in[i] == '"' ? "\"\"" : in + i,
		    in[i] == '"' ? 2 : 1);
	sb_str(&want, "\"\n");
	CHECK_MEM(s, n, want.p, want.n);
	free(s);

	/* json: control characters (6 bytes each), invalid bytes (6 each),
	 * then valid two-byte sequences */
	o = sink(OF_JSON, cols, 2);
	memset(in, '\x01', MB);
	out_str(o, in, MB);
	out_null(o);
	out_end_row(o);
	memset(in, '\xff', MB);
	out_str(o, in, MB);
	out_null(o);
	out_end_row(o);
	for (i = 0; i < MB; i += 2)
		memcpy(in + i, "\xc3\xa9", 2);
	out_str(o, in, MB);
	out_null(o);
	out_end_row(o);
	s = done(o, &n);
	want.n = 0;
	sb_str(&want, "{\"big\":\"");
	for (i = 0; i < MB; i++)
		sb_str(&want, "\\u0001");
	sb_str(&want, "\",\"n\":null}\n{\"big\":\"");
	for (i = 0; i < MB; i++)
		sb_str(&want, "\\ufffd");
	sb_str(&want, "\",\"n\":null}\n{\"big\":\"");
	sb_add(&want, in, MB);
	sb_str(&want, "\",\"n\":null}\n");
	CHECK_MEM(s, n, want.p, want.n);
	free(s);

	free(want.p);
	free(in);
}

/* Many rows of varied length, so that rows and escapes straddle every
 * position of the buffer boundary; the expected text is built by
 * independent code. */
static void
test_many_rows(void)
{
	static const enum outfmt fmts[] = { OF_TSV, OF_CSV, OF_JSON };
	const char *cols[] = { "k", "v", "z" };
	struct sb want = { 0 };
	struct out *o;
	char key[64], num[32], cell[128], *s;
	size_t n, i, f, kl;
	int nl;

	for (f = 0; f < 3; f++) {
		want.n = 0;
		o = sink(fmts[f], cols, 3);
		out_header(o);
		if (fmts[f] == OF_TSV)
			sb_str(&want, "k\tv\tz\n");
		else if (fmts[f] == OF_CSV)
			sb_str(&want, "k,v,z\n");
		for (i = 0; i < 300000; i++) {
			kl = (size_t)snprintf(key, sizeof(key), "key%zu%.*s",
			    i, (int)(i % 23), "\"abcdefghij,klmnopqrstuvw");
			nl = snprintf(num, sizeof(num), "%zu.%zu", i * 7, i % 10);
			out_str(o, key, kl);
			out_num(o, num, (size_t)nl);
			if (i % 7 == 0)
				out_null(o);
			else
				out_str(o, "\t\xc3\xa9", 3);
			out_end_row(o);

			switch (fmts[f]) {
			case OF_TSV:
				snprintf(cell, sizeof(cell), "%s\t%s\t%s\n",
				    key, num, i % 7 == 0 ? "" : "\t\xc3\xa9");
				sb_str(&want, cell);
				break;
			case OF_CSV:
				if (i % 23 == 0)
					sb_str(&want, key);
				else {
					/* key3"abc → "key3""abc" */
					sb_str(&want, "\"");
					sb_add(&want, key, strcspn(key, "\""));
					sb_str(&want, "\"\"");
					sb_str(&want, strchr(key, '"') + 1);
					sb_str(&want, "\"");
				}
				snprintf(cell, sizeof(cell), ",%s,%s\n",
				    num, i % 7 == 0 ? "" : "\t\xc3\xa9");
				sb_str(&want, cell);
				break;
			case OF_JSON:
				sb_str(&want, "{\"k\":\"");
				if (i % 23 == 0)
					sb_str(&want, key);
				else {
					sb_add(&want, key, strcspn(key, "\""));
					sb_str(&want, "\\\"");
					sb_str(&want, strchr(key, '"') + 1);
				}
				snprintf(cell, sizeof(cell), "\",\"v\":%s,\"z\":%s}\n",
				    num, i % 7 == 0 ? "null" : "\"\\t\xc3\xa9\"");
				sb_str(&want, cell);
				break;
			case OF_CELLS:	/* (not among fmts: test_cells) */
				break;
			}
		}
		s = done(o, &n);
		CHECK(n > 4 * 256 * 1024);
		CHECK_MEM(s, n, want.p, want.n);
		free(s);
	}
	free(want.p);
}

/* OF_CELLS through a writer: what it is sent (drains with flush 0, then
 * out_flush with flush 1), decoded, is the cells with their kinds. */
static char *wr_buf;
static size_t wr_len, wr_flushes, wr_drains;

static int
writer(void *arg, const char *p, size_t n, int flush)
{
	(void)arg;
	wr_buf = realloc(wr_buf, wr_len + n + 1);
	memcpy(wr_buf + wr_len, p, n);
	wr_len += n;
	if (flush)
		wr_flushes++;
	else
		wr_drains++;
	return 0;
}

static void
test_cells(void)
{
	const char *cols[] = { "op", "k", "v" };
	struct out *o = out_open(-1, "w", OF_CELLS, cols, 3), *t;
	size_t i, at = 0, rows = 0, bad = 0;
	uint32_t len;
	char num[32];

	out_set_writer(o, writer, NULL);
	out_header(o);		/* nothing: cells have no header row */
	for (i = 0; i < 100000; i++) {
		out_str(o, "+I", 2);
		out_own_num(o, num, (size_t)snprintf(num, sizeof(num), "%zu", i));
		if (i % 3 == 0)
			out_null(o);
		else if (i % 3 == 1)
			out_num(o, "2.5", 3);
		else
			out_double(o, 2.5);	/* a floating result: 'f' */
		out_end_row(o);
	}
	CHECK(out_flush(o) == 0);
	CHECK(wr_drains > 0);
	CHECK(wr_flushes == 1);
	while (at < wr_len) {
		const char *c0 = wr_buf + at;

		/* 's' "+I", 'n' i, 'z', 'n' or 'f' "2.5", 'e' */
		memcpy(&len, c0 + 1, 4);
		bad += c0[0] != 's' || len != 2 || memcmp(c0 + 5, "+I", 2) != 0;
		at += 7;
		memcpy(&len, wr_buf + at + 1, 4);
		bad += wr_buf[at] != 'n' || (size_t)snprintf(num, sizeof(num),
		    "%zu", rows) != len || memcmp(wr_buf + at + 5, num, len) != 0;
		at += 5 + len;
		memcpy(&len, wr_buf + at + 1, 4);
		bad += rows % 3 == 0 ? wr_buf[at] != 'z' || len != 0 :
		    wr_buf[at] != "znf"[rows % 3] || len != 3 ||
		    memcmp(wr_buf + at + 5, "2.5", 3) != 0;
		at += 5 + len;
		bad += wr_buf[at++] != 'e';
		rows++;
	}
	CHECK(bad == 0);
	CHECK(rows == 100000);
	/* an empty flush still tells the writer (a transaction's end) */
	CHECK(out_flush(o) == 0);
	CHECK(wr_flushes == 2);
	(void)out_close(o);
	free(wr_buf);
	wr_buf = NULL;

	/* a tail sink: the cells after op, with their separators or keys */
	o = out_open(-1, "x", OF_JSON, cols, 3);
	t = out_open_tail(o);
	out_str(t, "a", 1);
	out_num(t, "7", 1);
	{
		size_t n;
		const char *p = out_buffered(t, &n);

		CHECK_MEM(p, n, ",\"k\":\"a\",\"v\":7", 14);
		out_mem_clear(t);
		out_str(t, "b", 1);
		p = out_buffered(t, &n);
		CHECK_MEM(p, n, ",\"k\":\"b\"", 8);
	}
	(void)out_close(t);
	(void)out_close(o);
}

/* A failed write is remembered: every later flush fails with its errno. */
static void
test_write_error(void)
{
	const char *cols[] = { "a" };
	struct out *o;
	char *big;
	int fd, p[2];

	if ((fd = open("/dev/full", O_WRONLY)) == -1) {
		perror("/dev/full");
		CHECK(0);
		return;
	}
	o = out_open(fd, "/dev/full", OF_CSV, cols, 1);
	S(o, "x");
	out_end_row(o);
	errno = 0;
	CHECK(out_flush(o) == -1 && errno == ENOSPC);
	S(o, "y");
	out_end_row(o);
	errno = 0;
	CHECK(out_flush(o) == -1 && errno == ENOSPC);
	errno = 0;
	CHECK(out_flush(o) == -1 && errno == ENOSPC);
	errno = 0;
	CHECK(out_close(o) == -1 && errno == ENOSPC);

	/* The error found while the buffer overflows, inside a cell. */
	if ((big = malloc(MB)) == NULL)
		abort();
	memset(big, 'z', MB);
	o = out_open(fd, "/dev/full", OF_JSON, cols, 1);
	out_str(o, big, MB);
	out_end_row(o);
	out_str(o, big, MB);
	out_end_row(o);
	errno = 0;
	CHECK(out_flush(o) == -1 && errno == ENOSPC);
	errno = 0;
	CHECK(out_close(o) == -1 && errno == ENOSPC);

	/* After the error, output is discarded even if the fd could now be
	 * written: a file with a hole in it is worse than a short one. */
	{
		struct stat st;
		int tf = tmpfd();

		o = out_open(fd, "/dev/full", OF_TSV, cols, 1);
		S(o, "lost");
		out_end_row(o);
		CHECK(out_flush(o) == -1 && errno == ENOSPC);
		if (dup2(tf, fd) == -1)
			abort();
		out_str(o, big, MB);
		out_end_row(o);
		errno = 0;
		CHECK(out_flush(o) == -1 && errno == ENOSPC);
		errno = 0;
		CHECK(out_close(o) == -1 && errno == ENOSPC);
		CHECK(fstat(tf, &st) == 0 && st.st_size == 0);
		close(tf);
	}
	close(fd);

	/* A closed pipe, with SIGPIPE ignored as fwin's caller may. */
	signal(SIGPIPE, SIG_IGN);
	if (pipe(p) == -1)
		abort();
	close(p[0]);
	o = out_open(p[1], "pipe", OF_TSV, cols, 1);
	out_str(o, big, MB);	/* fails while the buffer drains */
	out_end_row(o);
	errno = 0;
	CHECK(out_flush(o) == -1 && errno == EPIPE);
	errno = 0;
	CHECK(out_close(o) == -1 && errno == EPIPE);
	close(p[1]);
	signal(SIGPIPE, SIG_DFL);
	free(big);
}

/* A non-blocking pipe (a terminal or pipe shared with a process that set
 * O_NONBLOCK) fills up: the sink must wait, not fail or lose bytes. */
static void
test_nonblocking(void)
{
	const char *cols[] = { "a" };
	struct out *o;
	char *big, buf[65536];
	size_t total = 0, bad = 0, i;
	ssize_t r;
	pid_t pid;
	int p[2], status;

	if (pipe(p) == -1)
		abort();
	if ((pid = fork()) == -1)
		abort();
	if (pid == 0) {
		close(p[1]);
		while ((r = read(p[0], buf, sizeof(buf))) > 0) {
			for (i = 0; i < (size_t)r; i++)
				if (buf[i] != (total + i == 2 * MB ? '\n' : 'n'))
					bad++;
			total += (size_t)r;
		}
		_exit(r == 0 && total == 2 * MB + 1 && bad == 0 ? 0 : 1);
	}
	close(p[0]);
	fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
	if ((big = malloc(2 * MB)) == NULL)
		abort();
	memset(big, 'n', 2 * MB);
	o = out_open(p[1], "pipe", OF_TSV, cols, 1);
	out_str(o, big, 2 * MB);
	out_end_row(o);
	CHECK(out_close(o) == 0);
	close(p[1]);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0);
	free(big);
}

/* out_own_num: bare in every format, but a JSON non-number is a string. */
static void
test_own_num(void)
{
	const char *cols[] = { "a", "b", "c" };
	const enum outfmt f[3] = { OF_TSV, OF_CSV, OF_JSON };
	const char *want[3] = {
		"1700000000000\t-2.5\tinf\n",
		"1700000000000,-2.5,inf\n",
		"{\"a\":1700000000000,\"b\":-2.5,\"c\":\"inf\"}\n",
	};
	struct out *o;
	char *s;
	size_t n;
	int i;

	for (i = 0; i < 3; i++) {
		o = sink(f[i], cols, 3);
		out_own_num(o, "1700000000000", 13);
		out_own_num(o, "-2.5", 4);
		out_own_num(o, "inf", 3);
		out_end_row(o);
		s = done(o, &n);
		CHECK_STR(s, want[i]);
		free(s);
	}
}

/* csv: a row of one empty cell is written "" (a blank line would be no
 * row to a reader); tsv writes it empty; out_header_line() gives the
 * header's bytes without its newline, and leaves the rows alone. */
static void
test_one_empty_cell(void)
{
	const char *one[] = { "first_v" }, *two[] = { "a", "b" };
	struct out *o;
	char *s, *h;
	size_t n;

	o = sink(OF_CSV, one, 1);
	S(o, "");
	out_end_row(o);
	out_null(o);
	out_end_row(o);
	out_str(o, NULL, 0);
	out_end_row(o);
	S(o, "x");
	out_end_row(o);
	s = done(o, &n);
	CHECK_STR(s, "\"\"\n\"\"\n\"\"\nx\n");
	free(s);
	o = sink(OF_TSV, one, 1);
	out_null(o);
	out_end_row(o);
	s = done(o, &n);
	CHECK_STR(s, "\n");
	free(s);
	o = sink(OF_CSV, two, 2);
	S(o, "");
	out_null(o);
	out_end_row(o);
	h = out_header_line(o, &n);
	CHECK(n == 3 && memcmp(h, "a,b", 3) == 0);
	free(h);
	s = done(o, &n);
	CHECK_STR(s, ",\n");
	free(s);
	o = sink(OF_JSON, two, 2);
	h = out_header_line(o, &n);
	CHECK(n == 0);
	free(h);
	s = done(o, &n);
	CHECK_STR(s, "");
	free(s);
}

/* out_halt: what is buffered is written (whole rows), then nothing more:
 * not rows, not a big cell that would drain the buffer, not a copy. */
static void
test_halt(void)
{
	const char *cols[] = { "a" };
	struct out *o;
	struct stat st;
	char *big, buf[64];
	int fd = tmpfd(), src = tmpfd();

	if ((big = malloc(MB)) == NULL)
		abort();
	memset(big, 'x', MB);
	if (write(src, "copied\n", 7) != 7)
		abort();
	o = out_open(fd, "halt", OF_TSV, cols, 1);
	S(o, "one");
	out_end_row(o);
	CHECK(out_halt(o) == 0);
	S(o, "two");
	out_end_row(o);
	out_str(o, big, MB);
	out_end_row(o);
	CHECK(out_copy_from(o, src, NULL, NULL) == 0);
	CHECK(out_flush(o) == 0);
	CHECK(out_close(o) == 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 4);
	CHECK(pread(fd, buf, sizeof(buf), 0) == 4 && memcmp(buf, "one\n", 4) == 0);
	close(fd);
	close(src);
	free(big);
}

/* out_copy_from: the file's bytes after the rows, and each part said
 * as it is written, by the bytes written so far. */
static uint64_t sent_at[8];
static size_t nsent;

static void
on_sent(void *arg, uint64_t n)
{
	(void)arg;
	if (nsent < sizeof(sent_at) / sizeof(sent_at[0]))
		sent_at[nsent++] = n;
}

static void
test_copy_from(void)
{
	const char *cols[] = { "a" };
	size_t len = 2 * MB + MB / 2, i;
	char *big = malloc(len), *back = malloc(len + 4);
	struct out *o;
	int fd = tmpfd(), src = tmpfd();

	if (big == NULL || back == NULL)
		abort();
	for (i = 0; i < len; i++)
		big[i] = (char)('a' + i % 26);
	if (write(src, big, len) != (ssize_t)len)
		abort();
	o = out_open(fd, "copy", OF_TSV, cols, 1);
	S(o, "one");
	out_end_row(o);
	CHECK(out_flush(o) == 0);
	CHECK(out_copy_from(o, src, on_sent, NULL) == 0);
	CHECK(out_close(o) == 0);
	CHECK(pread(fd, back, len + 4, 0) == (ssize_t)len + 4);
	CHECK(memcmp(back, "one\n", 4) == 0);
	CHECK(memcmp(back + 4, big, len) == 0);
	/* its parts: a mebibyte each, the last what is left */
	CHECK(nsent == 3);
	CHECK(sent_at[0] == MB && sent_at[1] == 2 * MB && sent_at[2] == len);
	close(fd);
	close(src);
	free(big);
	free(back);
}

int
main(void)
{
	test_tsv();
	test_csv();
	test_json_row();
	test_json_escapes();
	test_json_utf8();
	test_json_numbers();
	test_own_num();
	test_null();
	test_header();
	test_one_empty_cell();
	test_buffering();
	test_big_cell();
	test_many_rows();
	test_write_error();
	test_nonblocking();
	test_halt();
	test_copy_from();
	test_cells();
	return unit_done("output");
}
