/* Unit tests for the record framers: exact fields, raw bytes, line numbers
 * and byte positions, over temp files and a pipe. */
#include <sys/wait.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/input.h"
#include "unit.h"

#define MAXTMP 64

static char *tmps[MAXTMP];
static int ntmp;

/* A temp file holding data[0..n); its name lives until cleanup(). */
static char *
tmpfile_n(const char *data, size_t n)
{
	char *path = strdup("/tmp/fwin-test-input.XXXXXX");
	int fd = mkstemp(path);

	if (fd == -1 || write(fd, data, n) != (ssize_t)n) {
		perror("tmpfile");
		exit(1);
	}
	close(fd);
	tmps[ntmp++] = path;
	return path;
}

static char *
tmpfile_s(const char *data)
{
	return tmpfile_n(data, strlen(data));
}

static void
cleanup(void)
{
	while (ntmp > 0)
		unlink(tmps[--ntmp]), free(tmps[ntmp]);
}

/* A field or raw record as a C string, for CHECK_STR. */
static const char *
str(const char *p, size_t n)
{
	static char b[8][256];
	static int k;
	char *s = b[k++ % 8];

	if (n > 255)
		n = 255;
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

#define FLD(r, i)	((i) < (r).nf ? str((r).f[i].p, (r).f[i].n) : "<none>")
#define RAW(r)		str((r).raw, (r).rawlen)

static struct input_opts
opts(enum infmt fmt, int delim)
{
	struct input_opts o;

	memset(&o, 0, sizeof(o));
	o.fmt = fmt;
	o.delim = delim;
	return o;
}

static struct input *
open1(const char *data, const struct input_opts *o)
{
	static char *files[1];

	files[0] = tmpfile_s(data);
	return input_open(files, 1, o);
}

/* Capturing stderr, to check messages byte for byte. */
static int saved_err = -1;
static char *errpath;

static void
capture_err(void)
{
	int fd;

	errpath = tmpfile_s("");
	fflush(stderr);
	saved_err = dup(2);
	fd = open(errpath, O_WRONLY | O_TRUNC);
	dup2(fd, 2);
	close(fd);
}

static const char *
captured_err(void)
{
	static char b[1024];
	ssize_t n;
	int fd;

	fflush(stderr);
	dup2(saved_err, 2);
	close(saved_err);
	fd = open(errpath, O_RDONLY);
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	b[n < 0 ? 0 : n] = '\0';
	return b;
}

static void
test_lines(void)
{
	struct input_opts o = opts(IF_LINES, -1);
	struct input *in;
	struct record r;

	in = open1("  a b\tc  \n\t \n\n x\ty\r\nlast", &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 3);
	CHECK_STR(FLD(r, 0), "a");
	CHECK_STR(FLD(r, 1), "b");
	CHECK_STR(FLD(r, 2), "c");
	CHECK_STR(RAW(r), "  a b\tc  ");
	CHECK(r.line == 1);
	CHECK(r.bad == NULL);
	CHECK(input_offset(in) == 10);
	CHECK(input_file_index(in) == 0);
	/* Line 2 is only blanks and line 3 is empty: no record either;
	 * line 4 ends in CRLF. */
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 4);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "x");
	CHECK_STR(FLD(r, 1), "y");
	CHECK_STR(RAW(r), " x\ty");
	CHECK(input_offset(in) == 20);
	/* The last line has no newline and is still a record. */
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 5);
	CHECK(r.nf == 1);
	CHECK_STR(FLD(r, 0), "last");
	CHECK(input_offset(in) == 24);
	CHECK(input_next(in, &r) == 0);
	CHECK(input_next(in, &r) == 0);
	CHECK(input_failed(in) == 0);
	input_close(in);
}

static void
test_lines_delim(void)
{
	struct input_opts o = opts(IF_LINES, ',');
	struct input *in;
	struct record r;

	in = open1("a,,b\n,\r\n\r\n x ,y\n", &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 3);
	CHECK_STR(FLD(r, 0), "a");
	CHECK_STR(FLD(r, 1), "");
	CHECK_STR(FLD(r, 2), "b");
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 2);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "");
	CHECK_STR(FLD(r, 1), "");
	CHECK_STR(RAW(r), ",");
	/* A line of only "\r" is empty. Blanks are data with -d. */
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 4);
	CHECK_STR(FLD(r, 0), " x ");
	CHECK_STR(FLD(r, 1), "y");
	CHECK(input_next(in, &r) == 0);
	input_close(in);
}

static void
test_empty_lines(void)
{
	struct input_opts o = opts(IF_LINES, -1);
	struct input *in;
	struct record r;

	in = open1("\n\na\n\r\n\nb\n\n", &o);
	CHECK(input_next(in, &r) == 1);
	CHECK_STR(RAW(r), "a");
	CHECK(r.line == 3);
	CHECK(input_offset(in) == 4);
	CHECK(input_next(in, &r) == 1);
	CHECK_STR(RAW(r), "b");
	CHECK(r.line == 6);
	CHECK(input_offset(in) == 9);
	CHECK(input_next(in, &r) == 0);
	CHECK(input_offset(in) == 10);	/* at the end: all of it */
	input_close(in);

	/* An empty file, and a file of empty lines: no records. */
	in = open1("", &o);
	CHECK(input_next(in, &r) == 0);
	input_close(in);
	in = open1("\n\r\n\n", &o);
	CHECK(input_next(in, &r) == 0);
	input_close(in);
}

static void
test_nul(void)
{
	struct input_opts o = opts(IF_LINES, -1);
	static char *files[1];
	struct input *in;
	struct record r;

	files[0] = tmpfile_n("a\0b c\n\xff\xfe\n", 9);
	in = input_open(files, 1, &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 2);
	CHECK(r.f[0].n == 3 && memcmp(r.f[0].p, "a\0b", 3) == 0);
	CHECK(r.rawlen == 5);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 2);
	CHECK_STR(FLD(r, 0), "\xff\xfe");
	CHECK(input_next(in, &r) == 0);
	input_close(in);
}

static void
test_tsv(void)
{
	struct input_opts o = opts(IF_TSV, -1);
	struct input *in;
	struct record r;

	in = open1("a\tb c\t\r\n\"q\"\t\"\n", &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 3);
	CHECK_STR(FLD(r, 0), "a");
	CHECK_STR(FLD(r, 1), "b c");
	CHECK_STR(FLD(r, 2), "");
	CHECK_STR(RAW(r), "a\tb c\t");
	/* No quoting in tsv. */
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 2);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "\"q\"");
	CHECK_STR(FLD(r, 1), "\"");
	CHECK(input_next(in, &r) == 0);
	input_close(in);
}

static void
test_csv(void)
{
	struct input_opts o = opts(IF_CSV, -1);
	struct input *in;
	struct record r;
	const char *data =
	    "ts,key,value\n"				/* 1, fast path */
	    "a,\"b,c\",\"d\"\"e\"\n"			/* 2 */
	    "\"multi\nline\",x\n"			/* 3-4 */
	    "\n"					/* 5 */
	    "last, 1 ,\n"				/* 6 */
	    "\"p\r\nq\",z\r\n"				/* 7-8, CRLF */
	    "\"\",\"a\", b\r\n"				/* 9 */
	    "a\"b,c\n"					/* 10, lenient */
	    "\"end\"";					/* 11, no newline */
	uint64_t off = 0;

	in = open1(data, &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 1);
	CHECK(r.nf == 3);
	CHECK_STR(FLD(r, 0), "ts");
	CHECK_STR(FLD(r, 1), "key");
	CHECK_STR(FLD(r, 2), "value");
	CHECK(input_offset(in) == (off += 13));

	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 2);
	CHECK(r.nf == 3);
	CHECK_STR(FLD(r, 0), "a");
	CHECK_STR(FLD(r, 1), "b,c");
	CHECK_STR(FLD(r, 2), "d\"e");
	CHECK_STR(RAW(r), "a,\"b,c\",\"d\"\"e\"");
	CHECK(input_offset(in) == (off += 15));

	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 3);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "multi\nline");
	CHECK_STR(FLD(r, 1), "x");
	CHECK_STR(RAW(r), "\"multi\nline\",x");
	CHECK(input_offset(in) == (off += 15));

	/* Spaces are data, as RFC 4180 says. */
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 6);
	CHECK(r.nf == 3);
	CHECK_STR(FLD(r, 0), "last");
	CHECK_STR(FLD(r, 1), " 1 ");
	CHECK_STR(FLD(r, 2), "");
	CHECK(input_offset(in) == (off += 1 + 10));

	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 7);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "p\r\nq");
	CHECK_STR(FLD(r, 1), "z");
	CHECK_STR(RAW(r), "\"p\r\nq\",z");
	CHECK(input_offset(in) == (off += 10));

	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 9);
	CHECK(r.nf == 3);
	CHECK_STR(FLD(r, 0), "");
	CHECK_STR(FLD(r, 1), "a");
	CHECK_STR(FLD(r, 2), " b");
	CHECK_STR(RAW(r), "\"\",\"a\", b");

	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 10);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "a\"b");
	CHECK_STR(FLD(r, 1), "c");

	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 11);
	CHECK(r.bad == NULL);
	CHECK(r.nf == 1);
	CHECK_STR(FLD(r, 0), "end");
	CHECK_STR(RAW(r), "\"end\"");
	CHECK(input_offset(in) == strlen(data));
	CHECK(input_next(in, &r) == 0);
	input_close(in);
}

static void
test_csv_delim(void)
{
	struct input_opts o = opts(IF_CSV, ';');
	struct input *in;
	struct record r;

	in = open1("a;\"b;c\";d,e\nx;y\n", &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 3);
	CHECK_STR(FLD(r, 0), "a");
	CHECK_STR(FLD(r, 1), "b;c");
	CHECK_STR(FLD(r, 2), "d,e");
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 2);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "x");
	CHECK_STR(FLD(r, 1), "y");
	CHECK(input_next(in, &r) == 0);
	input_close(in);

	/* Quoted tsv: the tab is the delimiter, spaces are data. */
	o = opts(IF_CSV, '\t');
	in = open1("\"a b\"\t c d \t\"\"\n", &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 3);
	CHECK_STR(FLD(r, 0), "a b");
	CHECK_STR(FLD(r, 1), " c d ");
	CHECK_STR(FLD(r, 2), "");
	CHECK(input_next(in, &r) == 0);
	input_close(in);
}

/* A '\r' that is not before '\n' is data, quoted or not. */
static void
test_csv_cr(void)
{
	struct input_opts o = opts(IF_CSV, -1);
	struct input *in;
	struct record r;

	in = open1("\"a\",b\rc\n\"x\ry\",z\r\n\"q\r\",\r\n", &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "a");
	CHECK_STR(FLD(r, 1), "b\rc");
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 2);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "x\ry");
	CHECK_STR(FLD(r, 1), "z");
	CHECK_STR(RAW(r), "\"x\ry\",z");
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 3);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "q\r");
	CHECK_STR(FLD(r, 1), "");
	CHECK(input_next(in, &r) == 0);
	input_close(in);
}

static void
test_csv_unterminated(void)
{
	struct input_opts o = opts(IF_CSV, -1);
	struct input *in;
	struct record r;

	in = open1("a,b\n\"open,x\nmore,y\n", &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.bad == NULL);
	CHECK(r.nf == 2);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.bad != NULL && strcmp(r.bad, "unterminated quoted field") == 0);
	CHECK(r.line == 2);
	CHECK_STR(RAW(r), "\"open,x");
	/* one stray quote costs one record: reading resumes at line 3 */
	CHECK(input_offset(in) == 12);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.bad == NULL);
	CHECK(r.line == 3);
	CHECK_STR(FLD(r, 0), "more");
	CHECK(input_next(in, &r) == 0);
	input_close(in);

	/* The parser is left clean for the next file. */
	{
		static char *files[2];

		files[0] = tmpfile_s("\"x");
		files[1] = tmpfile_s("\"y\",z\n");
		in = input_open(files, 2, &o);
		CHECK(input_next(in, &r) == 1);
		CHECK(r.bad != NULL);
		CHECK_STR(RAW(r), "\"x");
		CHECK(input_next(in, &r) == 1);
		CHECK(r.bad == NULL);
		CHECK(r.line == 1);
		CHECK(r.nf == 2);
		CHECK_STR(FLD(r, 0), "y");
		CHECK_STR(FLD(r, 1), "z");
		CHECK(input_file_index(in) == 1);
		CHECK(input_next(in, &r) == 0);
		input_close(in);
	}
}

/* A quote still open after 1 MiB makes its record bad; reading resumes
 * at its second line, and the lines it covered are records again (a
 * quote among them may not span lines: each such line is bad alone). */
static void
test_csv_quote_limit(void)
{
	struct input_opts o = opts(IF_CSV, -1);
	static char *files[1];
	struct input *in;
	struct record r;
	size_t nlines = 120000, i, n = 0, good = 0, bad = 0;
	char *data = malloc(nlines * 16 + 64);

	n += sprintf(data + n, "1,\"stray\n");
	for (i = 1; i < nlines; i++)
		n += sprintf(data + n, i == 5 ? "%zu,\"b\n" : "%zu,a\n", i);
	files[0] = tmpfile_n(data, n);
	in = input_open(files, 1, &o);
	while (input_next(in, &r) == 1) {
		if (r.bad != NULL) {
			CHECK(strcmp(r.bad, "unterminated quoted field") == 0);
			CHECK(r.line == 1 || r.line == 6);
			bad++;
		} else
			good++;
	}
	CHECK(bad == 2);
	CHECK(good == nlines - 2);
	CHECK(input_offset(in) == n);
	input_close(in);
	free(data);
}

static void
test_headers(void)
{
	struct input_opts o = opts(IF_CSV, -1);
	const struct field *names;
	struct input *in;
	struct record r;
	size_t n;
	char *files[4];

	o.header = 1;
	o.maxfields = 1;	/* the header is split fully anyway */
	files[0] = tmpfile_s("");			/* empty: skipped */
	files[1] = tmpfile_s("h1,\"h2\"\n1,2\n");
	files[2] = tmpfile_s("\"h1\",h2\r\n\n3,4\n");
	files[3] = tmpfile_s("h1,h2\n");		/* header only */
	in = input_open(files, 4, &o);
	CHECK(input_header(in, &names, &n) == 1);
	CHECK(n == 2);
	CHECK_STR(str(names[0].p, names[0].n), "h1");
	CHECK_STR(str(names[1].p, names[1].n), "h2");
	CHECK(input_offset(in) == 8);
	CHECK(input_file_index(in) == 1);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 1);
	CHECK_STR(FLD(r, 0), "1");
	CHECK(r.file == files[1]);
	CHECK(r.line == 2);
	CHECK(input_file_index(in) == 1);
	CHECK(input_offset(in) == 12);
	CHECK(input_next(in, &r) == 1);
	CHECK_STR(FLD(r, 0), "3");
	CHECK(r.file == files[2]);
	CHECK(r.line == 3);
	CHECK(input_file_index(in) == 2);
	CHECK(input_offset(in) == 14);
	CHECK(input_next(in, &r) == 0);
	CHECK(input_file_index(in) == 3);
	CHECK(input_offset(in) == 6);
	/* The names outlive the records. */
	CHECK_STR(str(names[1].p, names[1].n), "h2");
	CHECK(input_failed(in) == 0);
	input_close(in);

	/* Without input_header(), input_next() reads it itself; a header
	 * that differs is fatal. */
	files[0] = tmpfile_s("h1,h2\n1,2\n");
	files[1] = tmpfile_s("h1,hX\n5,6\n");
	in = input_open(files, 2, &o);
	CHECK(input_next(in, &r) == 1);
	CHECK_STR(FLD(r, 0), "1");
	capture_err();
	CHECK(input_next(in, &r) == -1);
	{
		char want[256];

		snprintf(want, sizeof(want),
		    "fwin: %s: header differs from the first file's: "
		    "column 2 is 'hX', not 'h2'\n",
		    files[1]);
		CHECK_STR(captured_err(), want);
	}
	CHECK(input_next(in, &r) == -1);
	input_close(in);

	/* Fewer fields is a different header too. */
	files[0] = tmpfile_s("a b c\n1 2 3\n");
	files[1] = tmpfile_s("a b\n");
	o = opts(IF_LINES, -1);
	o.header = 1;
	in = input_open(files, 2, &o);
	CHECK(input_header(in, &names, &n) == 1);
	CHECK(n == 3);
	CHECK(input_next(in, &r) == 1);
	capture_err();
	CHECK(input_next(in, &r) == -1);
	{
		char want[256];

		snprintf(want, sizeof(want),
		    "fwin: %s: header differs from the first file's: "
		    "column 3 is missing, not 'c'\n", files[1]);
		CHECK_STR(captured_err(), want);
	}
	input_close(in);

	/* Empty input: no header. */
	files[0] = tmpfile_s("");
	in = input_open(files, 1, &o);
	CHECK(input_header(in, &names, &n) == 0);
	CHECK(input_next(in, &r) == 0);
	input_close(in);

	/* Without -H, input_header() says 0 and reads nothing. */
	files[0] = tmpfile_s("a\n");
	o.header = 0;
	in = input_open(files, 1, &o);
	CHECK(input_header(in, &names, &n) == 0);
	CHECK(input_next(in, &r) == 1);
	CHECK_STR(FLD(r, 0), "a");
	input_close(in);
}

static void
test_missing_file(void)
{
	struct input_opts o = opts(IF_LINES, -1);
	struct input *in;
	struct record r;
	char *files[3];

	files[0] = tmpfile_s("a\n");
	files[1] = "/nonexistent/fwin-test";
	files[2] = tmpfile_s("b\nc\n");
	in = input_open(files, 3, &o);
	CHECK(input_next(in, &r) == 1);
	CHECK_STR(RAW(r), "a");
	capture_err();
	CHECK(input_next(in, &r) == 1);
	CHECK_STR(captured_err(),
	    "fwin: /nonexistent/fwin-test: No such file or directory\n");
	CHECK_STR(RAW(r), "b");
	CHECK(r.line == 1);
	CHECK(r.file == files[2]);
	CHECK(input_file_index(in) == 2);
	CHECK(input_offset(in) == 2);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 2);
	CHECK(input_offset(in) == 4);
	CHECK(input_next(in, &r) == 0);
	CHECK(input_failed(in) != 0);
	input_close(in);

	/* A read error (a directory) is reported and skipped likewise. */
	files[0] = "/tmp";
	files[1] = tmpfile_s("z\n");
	in = input_open(files, 2, &o);
	capture_err();
	CHECK(input_next(in, &r) == 1);
	CHECK_STR(captured_err(), "fwin: /tmp: Is a directory\n");
	CHECK_STR(RAW(r), "z");
	CHECK(input_failed(in) != 0);
	input_close(in);
}

static void
test_maxfields(void)
{
	struct input_opts o = opts(IF_CSV, -1);
	struct input *in;
	struct record r;

	o.maxfields = 2;
	in = open1("a,b,c,d\n\"x\",\"y\",z\na\n", &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "a");
	CHECK_STR(FLD(r, 1), "b");	/* ends at its comma */
	CHECK_STR(RAW(r), "a,b,c,d");
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "x");
	CHECK_STR(FLD(r, 1), "y");
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 1);
	input_close(in);

	o = opts(IF_LINES, -1);
	o.maxfields = 2;
	in = open1(" a  b c d\n", &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "a");
	CHECK_STR(FLD(r, 1), "b");
	input_close(in);

	o = opts(IF_TSV, -1);
	o.maxfields = 1;
	in = open1("a\tb\n", &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 1);
	CHECK_STR(FLD(r, 0), "a");
	input_close(in);

	/* Set once the header has named the columns in use. */
	{
		const struct field *names;
		size_t n;

		o = opts(IF_CSV, -1);
		o.header = 1;
		in = open1("x,y,z\n1,2,3\n", &o);
		CHECK(input_header(in, &names, &n) == 1);
		CHECK(n == 3);
		input_set_maxfields(in, 2);
		CHECK(input_next(in, &r) == 1);
		CHECK(r.nf == 2);
		CHECK_STR(FLD(r, 1), "2");
		input_close(in);
	}
}

static void
test_long_record(void)
{
	struct input_opts o = opts(IF_CSV, -1);
	static char *files[1];
	struct input *in;
	struct record r;
	size_t big = 3u << 20, qbig = 900u << 10, i, n;
	char *data;

	/* Past the first 1 MiB buffer: a plain line, then a quoted record
	 * whose field holds newlines (under the 1 MiB a quote may stay
	 * open). */
	data = malloc(2 * big + 64);
	n = 0;
	memcpy(data + n, "x,1\n", 4), n += 4;
	for (i = 0; i < big; i++)
		data[n++] = i % 1000 == 999 ? ',' : 'y';
	data[n++] = '\n';
	data[n++] = '"';
	for (i = 0; i < qbig; i++)
		data[n++] = i % 1000 == 999 ? '\n' : 'q';
	memcpy(data + n, "\",end\nz,2", 9), n += 9;
	files[0] = tmpfile_n(data, n);
	in = input_open(files, 1, &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 2);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.bad == NULL);
	CHECK(r.line == 2);
	CHECK(r.rawlen == big);
	CHECK(r.nf == big / 1000 + 1);
	CHECK(r.f[0].n == 999 && r.f[1].n == 999);
	CHECK(r.f[r.nf - 1].n == big % 1000);
	CHECK(input_offset(in) == 4 + big + 1);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.bad == NULL);
	CHECK(r.line == 3);
	CHECK(r.rawlen == qbig + 6);
	CHECK(r.nf == 2);
	CHECK(r.f[0].n == qbig);
	CHECK(memcmp(r.f[0].p + 995, "qqqq\nqqq", 8) == 0);
	CHECK_STR(FLD(r, 1), "end");
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 3 + qbig / 1000 + 1);
	CHECK_STR(RAW(r), "z,2");
	CHECK(input_offset(in) == n);
	CHECK(input_next(in, &r) == 0);
	input_close(in);
	free(data);
}

/* Record i of test_framing's input: its line(s) appended to d at *n, and
 * the fields (comma-joined, as many as max allows, 0: all) and raw bytes
 * it should read as. Kinds by i % 9: plain; a '\r' before the '\n'; an
 * empty line before it; a quoted field holding a comma; a field past 64
 * bytes (a record over several of the framer's 64-byte maps); seven
 * fields; one field; a tab inside a field; a quoted field after the
 * first. */
static void
framing_record(size_t i, size_t max, char *d, size_t *n, char *want,
    char *raw)
{
	char line[256], z[101];
	size_t k;

	memset(z, 'z', 100);
	z[100] = '\0';
	switch (i % 9) {
	case 0: snprintf(line, sizeof(line), "a%zu,k%zu,%zu", i, i % 13, i);
		break;
	case 1: snprintf(line, sizeof(line), "b%zu,k%zu,%zu\r", i, i % 7, i);
		break;
	case 2: snprintf(line, sizeof(line), "c%zu,k,%zu", i, i); break;
	case 3: snprintf(line, sizeof(line), "\"q,%zu\",x,%zu", i, i); break;
	case 4: snprintf(line, sizeof(line), "%s,y,%zu", z, i); break;
	case 5: snprintf(line, sizeof(line), "1,2,3,4,5,6,%zu", i); break;
	case 6: snprintf(line, sizeof(line), "%zu", i); break;
	case 7: snprintf(line, sizeof(line), "t\t%zu,u,", i); break;
	default: snprintf(line, sizeof(line), "x%zu,\"q,%zu\",%zu", i, i, i);
		break;
	}
	if (i % 9 == 2)
		d[(*n)++] = '\n';
	k = strlen(line);
	memcpy(d + *n, line, k);
	*n += k;
	d[(*n)++] = '\n';
	if (i % 9 == 1)
		line[--k] = '\0';	/* (the '\r' is not the record's) */
	strcpy(raw, line);
	if (i % 9 == 3)		/* libcsv's fields */
		snprintf(line, sizeof(line), "q,%zu|x|%zu", i, i);
	else if (i % 9 == 8)
		snprintf(line, sizeof(line), "x%zu|q,%zu|%zu", i, i, i);
	else
		for (k = 0; line[k] != '\0'; k++)
			if (line[k] == ',')
				line[k] = '|';
	/* at most max fields: the last ends at its own comma */
	for (k = 0; max != 0 && line[k] != '\0'; k++)
		if (line[k] == '|' && --max == 0) {
			line[k] = '\0';
			break;
		}
	strcpy(want, line);
}

/* The framer's one-pass path (a bitmap of the buffer's structural bytes,
 * kept from record to record) against every kind of record it must hand
 * to the long way, over several buffers, with all fields and with two. */
static void
test_framing(void)
{
	static const size_t maxes[] = { 0, 2 };
	const size_t nrec = 200000;
	struct input_opts o;
	static char *files[1];
	struct input *in;
	struct record r;
	char *data, want[512], raw[512], got[512];
	size_t i, k, n = 0, m, bad = 0, line;

	data = malloc(nrec * 160);
	for (i = 0; i < nrec; i++)
		framing_record(i, 0, data, &n, want, raw);
	files[0] = tmpfile_n(data, n);
	for (m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
		o = opts(IF_CSV, -1);
		o.maxfields = maxes[m];
		in = input_open(files, 1, &o);
		line = 0;
		for (i = 0; i < nrec; i++) {
			framing_record(i, maxes[m], data, &(size_t){ 0 }, want,
			    raw);
			line += i % 9 == 2 ? 2 : 1;
			if (input_next(in, &r) != INPUT_RECORD || r.bad != NULL) {
				bad++;
				break;
			}
			for (k = 0, got[0] = '\0'; k < r.nf; k++)
				snprintf(got + strlen(got), sizeof(got) -
				    strlen(got), "%s%s", k ? "|" : "",
				    str(r.f[k].p, r.f[k].n));
			if (strcmp(got, want) != 0 ||
			    strcmp(RAW(r), raw) != 0 || r.line != line) {
				if (bad++ < 5)
					fprintf(stderr, "record %zu (max %zu): "
					    "\"%s\" \"%s\" line %llu\n", i,
					    maxes[m], got, RAW(r),
					    (unsigned long long)r.line);
			}
		}
		CHECK(bad == 0);
		CHECK(input_next(in, &r) == INPUT_END);
		CHECK(input_offset(in) == n);
		input_close(in);
	}
	free(data);
}

/* With may_wait, a read that would block returns INPUT_WAIT, and a
 * partial line is not a record until its newline comes. */
static void
test_wait(void)
{
	struct input_opts o = opts(IF_LINES, -1);
	struct input *in;
	struct record r;
	int data[2], saved;

	if (pipe(data) != 0) {
		perror("pipe");
		exit(1);
	}
	if (write(data[1], "a 1\nb 2", 7) != 7)
		exit(1);
	saved = dup(0);
	dup2(data[0], 0);
	close(data[0]);
	o.may_wait = 1;
	in = input_open(NULL, 0, &o);
	CHECK(input_next(in, &r) == INPUT_RECORD);
	CHECK_STR(RAW(r), "a 1");
	CHECK(input_next(in, &r) == INPUT_WAIT);
	CHECK(input_offset(in) == 4);
	CHECK(input_fd(in) == 0);
	CHECK(input_next(in, &r) == INPUT_WAIT);
	if (write(data[1], "\n", 1) != 1)
		exit(1);
	CHECK(input_next(in, &r) == INPUT_RECORD);
	CHECK_STR(RAW(r), "b 2");
	CHECK(input_offset(in) == 8);
	close(data[1]);
	CHECK(input_next(in, &r) == INPUT_END);
	input_close(in);
	dup2(saved, 0);
	close(saved);
}

/* Reading stdin from a pipe: INPUT_WAIT comes before each read that
 * would block, and the writer writes only once the reader has waited. */
/* input_next, and on INPUT_WAIT: counts it, tells the writer to go on,
 * and polls as the driver would, until a record or the end. */
static int
next_waiting(struct input *in, struct record *r, int gofd, int *waits)
{
	struct pollfd pfd;
	int rc;

	while ((rc = input_next(in, r)) == INPUT_WAIT) {
		++*waits;
		if (write(gofd, "g", 1) < 0) {
			/* the writer is gone; reading will show EOF */
		}
		pfd.fd = input_fd(in);
		pfd.events = POLLIN;
		(void)poll(&pfd, 1, 5000);
	}
	return rc;
}

static void
test_pipe(void)
{
	struct input_opts o = opts(IF_LINES, -1);
	struct input *in;
	struct record r;
	struct pollfd pfd;
	int data[2], go[2], saved, i, st, waits = 0, rc;
	char c;
	pid_t pid;

	if (pipe(data) == -1 || pipe(go) == -1) {
		perror("pipe");
		exit(1);
	}
	if ((pid = fork()) == 0) {
		close(data[0]);
		close(go[1]);
		for (i = 0; i < 2; i++) {
			/* Write anyway after 5s, so a bug cannot hang. */
			pfd.fd = go[0];
			pfd.events = POLLIN;
			if (poll(&pfd, 1, 5000) == 1 && read(go[0], &c, 1) < 0)
				_exit(1);
			if (write(data[1], i == 0 ? "a 1\n" : "b 2\n", 4) != 4)
				_exit(1);
		}
		_exit(0);
	}
	close(data[1]);
	close(go[0]);
	saved = dup(0);
	dup2(data[0], 0);
	close(data[0]);
	o.may_wait = 1;
	in = input_open(NULL, 0, &o);
	while ((rc = next_waiting(in, &r, go[1], &waits)) == INPUT_WAIT)
		;
	CHECK(rc == INPUT_RECORD);
	CHECK(waits == 1);
	CHECK_STR(r.file, "-");
	CHECK_STR(RAW(r), "a 1");
	CHECK(r.nf == 2);
	CHECK(input_offset(in) == 4);
	CHECK(next_waiting(in, &r, go[1], &waits) == INPUT_RECORD);
	CHECK(waits >= 2);
	CHECK_STR(RAW(r), "b 2");
	CHECK(r.line == 2);
	CHECK(input_offset(in) == 8);
	CHECK(input_file_index(in) == 0);
	CHECK(next_waiting(in, &r, go[1], &waits) == INPUT_END);
	CHECK(input_failed(in) == 0);
	input_close(in);
	/* input_close() leaves fd 0 open. */
	CHECK(fcntl(0, F_GETFD) != -1);
	dup2(saved, 0);
	close(saved);
	close(go[1]);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0);

	/* A regular file never waits. */
	in = open1("a\nb\n", &o);
	while ((rc = input_next(in, &r)) == INPUT_RECORD)
		;
	CHECK(rc == INPUT_END);
	input_close(in);
}

/* JSON Lines: framed as lines, then projected onto the paths; a line that
 * is not an object is bad; offsets are bytes, with CRLF and blank lines. */
static void
test_json(void)
{
	static const char *const paths[] = { "a", "b.c", "a" };
	struct input_opts o = opts(IF_JSON, -1);
	struct input *in;
	struct record r;

	in = open1("{\"b\":{\"c\":\"x\\ty\"},\"a\":1}\r\n\n \t\n[1]\n"
	    "{\"a\":null}", &o);
	input_set_paths(in, paths, 3);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.bad == NULL);
	CHECK(r.nf == 3);
	CHECK_STR(FLD(r, 0), "1");
	CHECK_STR(FLD(r, 1), "x\ty");
	CHECK_STR(FLD(r, 2), "1");
	CHECK_STR(RAW(r), "{\"b\":{\"c\":\"x\\ty\"},\"a\":1}");
	CHECK(r.line == 1);
	CHECK(input_offset(in) == 26);
	/* a blank line and a line of blanks are no records */
	CHECK(input_next(in, &r) == 1);
	CHECK(r.line == 4);
	CHECK_STR(r.bad, "not a JSON object: expected '{' at byte 1");
	CHECK_STR(RAW(r), "[1]");
	CHECK(input_next(in, &r) == 1);
	CHECK(r.bad == NULL);
	CHECK(r.line == 5);
	CHECK(r.nf == 3);
	CHECK(r.f[0].n == 0 && r.f[1].n == 0);
	CHECK(input_next(in, &r) == 0);
	input_close(in);
}

/* A UTF-8 byte order mark at the start of a file is skipped, and counted
 * as consumed; elsewhere it is data. */
static void
test_bom(void)
{
	struct input_opts o = opts(IF_CSV, -1);
	struct input *in;
	struct record r;

	in = open1("\xef\xbb\xbf" "a,b\n\xef\xbb\xbf" "c\n", &o);
	CHECK(input_next(in, &r) == 1);
	CHECK(r.nf == 2);
	CHECK_STR(FLD(r, 0), "a");
	CHECK(input_offset(in) == 7);
	CHECK(input_next(in, &r) == 1);
	CHECK_STR(FLD(r, 0), "\xef\xbb\xbf" "c");
	CHECK(input_next(in, &r) == 0);
	input_close(in);
	/* a file that is a BOM alone has no record */
	in = open1("\xef\xbb\xbf\n", &o);
	CHECK(input_next(in, &r) == 0);
	CHECK(input_offset(in) == 4);
	input_close(in);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_lines();
	test_lines_delim();
	test_empty_lines();
	test_nul();
	test_tsv();
	test_csv();
	test_csv_delim();
	test_csv_cr();
	test_csv_unterminated();
	test_csv_quote_limit();
	test_headers();
	test_missing_file();
	test_maxfields();
	test_long_record();
	test_framing();
	test_pipe();
	test_wait();
	test_json();
	test_bom();
	cleanup();
	return unit_done("input");
}
