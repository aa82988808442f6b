/*
 * input: the read buffer and the record framers.
 *
 * Every byte goes through one buffer, filled with read(2). A record is
 * framed where it lies: memchr finds its line end and its fields are
 * slices of the buffer. A record cut by the end of the buffer is moved to
 * the front before the next read; one that fills the buffer doubles it, up
 * to RECMAX, past which the record is skipped without being kept.
 *
 * CSV lines without a '"' are split in place like TSV. A record with one is
 * handed to libcsv a line at a time (a quoted field may hold newlines) and
 * its unquoted fields are copied into a scratch buffer. libcsv is steered to
 * agree with the fast path: spaces are data (RFC 4180), a record ends only
 * at '\n' (a '\r' just before it is dropped), a lone '\r' is data.
 *
 * JSON Lines are framed as lines are (a trailing '\r' dropped, an empty
 * line no record), then json_scan() fills the fields with the values of
 * the paths the pipeline uses (input_set_paths()).
 *
 * A UTF-8 byte order mark at the very start of a file is skipped (its
 * bytes count as consumed, so checkpoint positions stay byte offsets).
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <csv.h>
#include <xxhash.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "input.h"
#include "json.h"
#include "util.h"

#define BUF_INIT	(1u << 20)
#define BUF_SHRINK	(16u << 20)	/* give back a grown buffer once idle */
#define RECMAX		((size_t)1 << 30)
#define BUF_MAX		(RECMAX + (64u << 10))
#define SLACK		16		/* bytes after the buffer, see scan16() */
#define NOQUOTE		((size_t)-1)
#define QUOTE_MAX	((size_t)1 << 20)	/* a quote open longer is bad */

#define ERR_LONG	"record longer than 1 GiB"
#define ERR_QUOTE	"unterminated quoted field"

enum { EOL_OK = 1, EOL_END = 0, EOL_LONG = -1, EOL_ERR = -2, EOL_QUOTE = -3,
    EOL_WAIT = -4 };
enum { FILL_MORE = 1, FILL_EOF = 0, FILL_ERR = -1, FILL_WAIT = -2 };
enum { FR_RECORD = 1, FR_END = 0, FR_WAIT = -1 };
enum { HDR_UNREAD, HDR_HAVE, HDR_EMPTY, HDR_ERR };

struct slot {
	size_t off, n;		/* a field in the scratch buffer */
};

struct input {
	struct input_opts o;
	int delim;		/* the byte, or -1: runs of blanks */
	char *const *files;
	int nfiles;
	int fi;			/* the file open or last tried, -1 at first */
	const char *name;
	int fd;			/* -1 when no file is open */
	int fdown;		/* we opened fd, so we close it */
	int isreg;		/* read(2) never blocks: no poll */
	int eof;		/* the file is read to its end (or abandoned) */
	int needhdr;		/* the file's next record is its header */
	int failed;
	int fatal;
	uint64_t lineno;	/* lines of the file consumed */
	uint64_t consumed;	/* bytes of the file consumed */
	int outfi;		/* where the last returned record ended */
	uint64_t outoff;
	struct input_pos *ipos;	/* per FILE: identity and consumption */
	uint64_t skip;		/* resume: bytes of this file to skip */
	uint64_t skiplines;
	uint64_t fpat;		/* ip_off of the fingerprint taken, or -1 */
	/* A record with an unterminated quote covered the file's bytes up
	 * to here: a record that starts before it and has a quote still
	 * open at its line end is bad at once (see frame_quoted). */
	uint64_t qsuspect;
	struct input_pos *resume; /* per FILE, from input_resume() */
	int nresume;

	/* buf[pos..end) is read but not consumed */
	char *buf;
	size_t cap, pos, end;
	/* The first '"' at or after where the last search began, or NOQUOTE
	 * when there is none before qlim: one memchr looks ahead over the
	 * whole buffer, so quote-free CSV costs it once per read. */
	size_t qat, qlim;

	struct field *f;	/* the fields of the record returned */
	size_t fcap;

	int hdr;		/* HDR_* */
	struct field *hf;	/* the first file's header, ours */
	size_t hnf;
	char *hbytes;

	/* quoted CSV */
	struct csv_parser csv;
	int csvready;
	int cxdone;		/* libcsv ended the row */
	size_t cxmax;		/* fields to keep, 0 for all */
	struct slot *cx;	/* offsets, as scr may move while it grows */
	size_t cxnf, cxcap;
	char *scr;
	size_t sclen, sccap;

	struct json *json;	/* json: the paths' scanner */
	size_t npaths;
};

#define FEED_CHUNK	(1u << 20)	/* bytes per csv_parse() call */

static char *const stdin_only[] = { (char *)"-" };

static void
report(struct input *in, int errnum)
{
	fwin_warn("%s: %s", in->name, strerror(errnum));
	in->failed = 1;
}

/* Forgets where the quote cache points: the buffer's bytes moved. */
static void
quotes_moved(struct input *in)
{
	in->qat = NOQUOTE;
	in->qlim = 0;
}

/*
 * Reads more of the current file, after moving the unconsumed bytes to the
 * front of the buffer (doubling it when they fill it). Returns FILL_MORE
 * when bytes were added, FILL_EOF at end of file, FILL_ERR after a read
 * error (the file is then abandoned: its buffered bytes dropped, eof set,
 * the error reported), or, unless block is set, FILL_WAIT when the input
 * may wait (see may_wait) and the read would block.
 */
static int
fill(struct input *in, int block)
{
	struct pollfd pfd;
	size_t n = in->end - in->pos;
	ssize_t r;
	int rc = FILL_MORE;

	if (in->pos > 0) {
		memmove(in->buf, in->buf + in->pos, n);
		in->pos = 0;
		in->end = n;
		quotes_moved(in);
	}
	if (n == 0 && in->cap > BUF_SHRINK) {
		free(in->buf);
		in->cap = BUF_INIT;
		in->buf = xrealloc(NULL, in->cap + SLACK);
	}
	if (in->end == in->cap) {
		/* Callers stop a record at RECMAX before it gets here. */
		if (in->cap >= BUF_MAX)
			abort();
		in->cap = in->cap * 2 > BUF_MAX ? BUF_MAX : in->cap * 2;
		in->buf = xrealloc(in->buf, in->cap + SLACK);
	}
	if (!block && !in->isreg && in->o.may_wait) {
		pfd.fd = in->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 0) <= 0)	/* EINTR too: the caller waits */
			return FILL_WAIT;
	}
	for (;;) {
		r = read(in->fd, in->buf + in->end, in->cap - in->end);
		if (r > 0)
			in->end += r;
		else if (r == 0) {
			in->eof = 1;
			rc = FILL_EOF;
		} else if (errno == EINTR)
			continue;
		else if (errno == EAGAIN) {
			/* A descriptor someone else made non-blocking. */
			pfd.fd = in->fd;
			pfd.events = POLLIN;
			(void)poll(&pfd, 1, -1);
			continue;
		} else {
			report(in, errno);
			in->eof = 1;
			in->pos = in->end = 0;
			rc = FILL_ERR;
		}
		break;
	}
	/* Defined bytes for scan16() to read past the end (for valgrind;
	 * they are never a match). */
	memset(in->buf + in->end, 0, SLACK);
	return rc;
}

/*
 * Finds the end of the line that starts at buf[pos + from], reading as
 * needed: *eol is the offset from pos of its '\n', or of the end of the
 * data when the file ends without one. Offsets are from pos because fill()
 * moves the bytes. Returns EOL_OK; EOL_END when nothing is left at from;
 * EOL_LONG when the bytes from pos pass RECMAX without a '\n'; EOL_ERR
 * after a read error (the file is abandoned); EOL_WAIT when the line end
 * is not there yet and reading would block.
 */
static int
find_eol(struct input *in, size_t from, size_t *eol)
{
	const char *nl;
	size_t scan = from, avail;

	for (;;) {
		avail = in->end - in->pos;
		nl = memchr(in->buf + in->pos + scan, '\n', avail - scan);
		if (nl != NULL) {
			*eol = nl - (in->buf + in->pos);
			return EOL_OK;
		}
		scan = avail;
		if (avail > RECMAX)
			return EOL_LONG;
		if (in->eof) {
			if (avail > from && !in->o.hold_partial) {
				*eol = avail;
				return EOL_OK;
			}
			return EOL_END;
		}
		switch (fill(in, 0)) {
		case FILL_ERR:
			return EOL_ERR;
		case FILL_WAIT:
			return EOL_WAIT;
		}
	}
}

static void
consume(struct input *in, size_t n)
{
	in->pos += n;
	in->consumed += n;
}

/* Whether buf[a..b) holds a '"'. */
static int
has_quote(struct input *in, size_t a, size_t b)
{
	const char *q;

	if (in->qat < a || (in->qat == NOQUOTE && in->qlim < b)) {
		q = memchr(in->buf + a, '"', in->end - a);
		in->qat = q != NULL ? (size_t)(q - in->buf) : NOQUOTE;
		in->qlim = in->end;
	}
	return in->qat < b;
}

static void
grow_fields(struct input *in, size_t want)
{
	while (in->fcap < want)
		in->fcap *= 2;
	in->f = xrealloc(in->f, in->fcap * sizeof(*in->f));
}

static inline void
push(struct input *in, size_t nf, const char *p, size_t n)
{
	if (nf == in->fcap)
		grow_fields(in, nf + 1);
	in->f[nf].p = p;
	in->f[nf].n = n;
}

/*
 * Finding the next separator in a field of ~10 bytes: a memchr call costs
 * more than the search. With SSE2, 16 bytes are compared at a time, inline;
 * a load may read up to 15 bytes past the field's end, which the buffer's
 * SLACK bytes make safe (they are never taken as a match).
 */
#ifdef __SSE2__
static inline unsigned
match16(const char *p, __m128i c1, __m128i c2)
{
	__m128i v = _mm_loadu_si128((const __m128i *)p);

	return _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, c1),
	    _mm_cmpeq_epi8(v, c2)));
}

/* The first byte of p[0..e) that is c1 or c2 (or, with invert, neither),
 * or e. */
static inline const char *
scan16(const char *p, const char *e, int c1, int c2, int invert)
{
	const __m128i v1 = _mm_set1_epi8((char)c1), v2 = _mm_set1_epi8((char)c2);
	unsigned m;

	for (; p < e; p += 16) {
		m = match16(p, v1, v2);
		if (invert)
			m = ~m & 0xffff;
		if (m != 0) {
			p += __builtin_ctz(m);
			return p < e ? p : e;
		}
	}
	return e;
}

static inline const char *
next_delim(const char *p, const char *e, int d)
{
	return scan16(p, e, d, d, 0);
}

static inline const char *
next_blank(const char *p, const char *e)
{
	return scan16(p, e, ' ', '\t', 0);
}

static inline const char *
next_nonblank(const char *p, const char *e)
{
	return scan16(p, e, ' ', '\t', 1);
}
#else
static inline const char *
next_delim(const char *p, const char *e, int d)
{
	const char *q = memchr(p, d, e - p);

	return q != NULL ? q : e;
}

static inline const char *
next_blank(const char *p, const char *e)
{
	while (p < e && *p != ' ' && *p != '\t')
		p++;
	return p;
}

static inline const char *
next_nonblank(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}
#endif

/* awk's fields: runs of non-blanks. Returns how many (at most max, if
 * max is not 0). */
static size_t
split_blanks(struct input *in, const char *s, size_t n, size_t max)
{
	const char *p = s, *e = s + n, *st;
	size_t nf = 0;

	for (;;) {
		if ((p = next_nonblank(p, e)) == e ||
		    (max != 0 && nf == max))
			return nf;
		st = p;
		p = next_blank(p, e);
		push(in, nf++, st, p - st);
	}
}

/* Every delim separates. The last field split ends at its own delim, not
 * at the end of the line: maxfields is about work, not about meaning. */
static size_t
split_delim(struct input *in, const char *s, size_t n, int delim,
    size_t max)
{
	const char *p = s, *e = s + n, *q;
	size_t nf = 0;

	for (;;) {
		if (max != 0 && nf == max)
			return nf;
		q = next_delim(p, e, delim);
		push(in, nf++, p, q - p);
		if (q == e)
			return nf;
		p = q + 1;
	}
}

/*
 * Skipping a CSV record too long to keep needs its quoting, and libcsv
 * would hold a field of any length in memory. skim() follows the quotes
 * the way our libcsv setup does (lenient: a '"' inside a quoted field that
 * is not doubled and not before a delimiter or line end is data).
 */
enum { SK_FIELD, SK_UNQ, SK_Q, SK_QQ, SK_QQCR, SK_END };

/* Follows s[0..n) from state st. Returns the state; at SK_END, *used is
 * the bytes through the record's '\n'. Counts in *lines the line ends
 * that the record spans. */
static int
skim(int st, int delim, const char *s, size_t n, size_t *used,
    uint64_t *lines)
{
	size_t i;
	int c;

	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
again:
		switch (st) {
		case SK_FIELD:
			if (c == '"')
				st = SK_Q;
			else if (c == '\n')
				goto end;
			else if (c != delim)
				st = SK_UNQ;
			break;
		case SK_UNQ:
			if (c == '\n')
				goto end;
			if (c == delim)
				st = SK_FIELD;
			break;
		case SK_Q:
			if (c == '"')
				st = SK_QQ;
			else if (c == '\n')
				(*lines)++;
			break;
		case SK_QQ:
			/* '""' is a quote inside the field; any other byte
			 * after a closing quote goes back into it too, as
			 * libcsv (not strict) reads it: two cases, one state */
			if (c == '"')
				st = SK_Q;	/* NOLINT(bugprone-branch-clone) */
			else if (c == '\n')
				goto end;
			else if (c == delim)
				st = SK_FIELD;
			else if (c == '\r')
				st = SK_QQCR;	/* a line end, if '\n' follows */
			else
				st = SK_Q;
			break;
		case SK_QQCR:
			if (c == '\n')
				goto end;
			st = SK_Q;
			goto again;
		}
	}
	*used = n;
	return st;
end:
	*used = i + 1;
	return SK_END;
}

/*
 * The record at pos has passed RECMAX bytes: consume it through its line
 * end (for CSV, the line end that ends it) without keeping it, and return
 * it as bad. The buffer holds only what one read brings in meanwhile.
 */
static void
too_long(struct input *in, struct record *r)
{
	const char *s, *nl;
	size_t n, used;
	uint64_t lines = 0;
	int st = SK_FIELD, done;

	r->line = in->lineno + 1;
	for (;;) {
		s = in->buf + in->pos;
		n = in->end - in->pos;
		if (in->o.fmt == IF_CSV) {
			st = skim(st, in->delim, s, n, &used, &lines);
			done = st == SK_END;
		} else {
			nl = memchr(s, '\n', n);
			done = nl != NULL;
			used = done ? (size_t)(nl - s) + 1 : n;
		}
		consume(in, used);
		/* a record past 1 GiB is rare: its rest is read blocking */
		if (done || in->eof || fill(in, 1) == FILL_ERR)
			break;
	}
	in->lineno += lines + 1;
	r->raw = "";
	r->rawlen = 0;
	r->f = in->f;
	r->nf = 0;
	r->bad = ERR_LONG;
}

/* libcsv callbacks: a field (copied, as libcsv reuses its buffer), and
 * the end of the row. */
static void
csv_field(void *s, size_t n, void *arg)
{
	struct input *in = arg;

	if (in->cxmax != 0 && in->cxnf == in->cxmax)
		return;
	if (in->cxnf == in->cxcap) {
		in->cxcap *= 2;
		in->cx = xrealloc(in->cx, in->cxcap * sizeof(*in->cx));
	}
	if (in->sccap - in->sclen < n) {
		while (in->sccap - in->sclen < n)
			in->sccap *= 2;
		in->scr = xrealloc(in->scr, in->sccap);
	}
	if (n > 0)
		memcpy(in->scr + in->sclen, s, n);
	in->cx[in->cxnf].off = in->sclen;
	in->cx[in->cxnf].n = n;
	in->cxnf++;
	in->sclen += n;
}

static void
csv_row(int c, void *arg)
{
	struct input *in = arg;

	(void)c;
	in->cxdone = 1;
}

/*
 * libcsv takes spaces around unquoted fields as padding, and a '\r'
 * anywhere as a line end. We want neither: spaces are data (RFC 4180, and
 * the fast path keeps them), and only "\n" or "\r\n" end a line. Setting
 * libcsv's space and terminator functions does that, but a call per byte
 * halves its speed; so feed_line() sets them only for a line that has such
 * a byte, and leaves libcsv's inline defaults for the others.
 */
static int
no_space(unsigned char c)
{
	(void)c;
	return 0;
}

static int
term_lf(unsigned char c)
{
	return c == '\n';
}

static void
feed(struct input *in, const char *s, size_t n)
{
	size_t k;

	/* libcsv grows its field buffer by blk_size at a time. Fed in
	 * chunks, with blk_size raised to the buffer's size between them,
	 * a long field costs O(log n) reallocs rather than O(n / blk_size):
	 * quadratic copying where realloc cannot mremap (ASan, valgrind). */
	do {
		k = n < FEED_CHUNK ? n : FEED_CHUNK;
		if (in->csv.entry_size > FEED_CHUNK)
			csv_set_blk_size(&in->csv, in->csv.entry_size);
		/* libcsv stops short only when it cannot grow that buffer. */
		if (csv_parse(&in->csv, s, k, csv_field, csv_row, in) != k)
			fwin_oom();
		s += k;
		n -= k;
	} while (n > 0);
}

/* Returns libcsv to the start of a record, dropping what it holds. */
static void
csv_reset(struct input *in)
{
	csv_fini(&in->csv, NULL, NULL, NULL);
}

static void
csv_setup(struct input *in)
{
	if (csv_init(&in->csv, 0) != 0)	/* fails only for memory */
		fwin_oom();
	csv_set_delim(&in->csv, (unsigned char)in->delim);
	/* libcsv grows a field by this much at a time: the default, 128,
	 * would make a long field cost a realloc every 128 bytes. */
	csv_set_blk_size(&in->csv, 64u << 10);
	in->cxcap = 16;
	in->cx = xrealloc(NULL, in->cxcap * sizeof(*in->cx));
	in->sccap = 4096;
	in->scr = xrealloc(NULL, in->sccap);
	in->csvready = 1;
}

/*
 * Feeds s[0..n), a line, then its line end; has_nl says s[n] is its '\n'.
 * A "\r\n" ends the record only outside quotes; inside, both bytes are
 * data. libcsv settles that: fed the '\r' as a terminator, it ends the row
 * there, or keeps the '\r' as data and then gets the '\n'.
 */
static void
feed_line(struct input *in, const char *s, size_t n, int has_nl)
{
	int cr = n > 0 && s[n - 1] == '\r';
	size_t body = n - cr;

	csv_set_space_func(&in->csv,
	    (in->delim != ' ' && memchr(s, ' ', body) != NULL) ||
	    (in->delim != '\t' && memchr(s, '\t', body) != NULL) ?
	    no_space : NULL);
	csv_set_term_func(&in->csv,
	    memchr(s, '\r', body) != NULL ? term_lf : NULL);
	if (!cr && has_nl) {
		feed(in, s, n + 1);
		return;
	}
	feed(in, s, body);
	if (cr) {
		csv_set_term_func(&in->csv, NULL);
		feed(in, "\r", 1);
	}
	if (!in->cxdone)
		feed(in, "\n", 1);
}

/*
 * Frames a CSV record that has a '"' in its first line, [pos, pos + eol).
 * Returns FR_RECORD with *r; FR_END after a read error abandoned the
 * file, or when the record is unfinished and held for a later run
 * (hold_partial); FR_WAIT, having consumed nothing, when the rest is not
 * there yet (it is framed again from its start next time).
 *
 * A quote still open after QUOTE_MAX bytes, or at the end of the file
 * (unless the record is held), makes the record bad, and reading resumes
 * at the line after the one it began on: one stray quote costs one record,
 * not the rest of the file. The lines it covered are then read again; so
 * that a run of stray quotes costs each of them one line and not all the
 * lines after it (quadratic), a record that begins among them may not
 * span lines.
 */
static int
frame_quoted(struct input *in, struct record *r, size_t max, size_t eol)
{
	const char *s;
	size_t from = 0, cend, i, first = 0, firstend = 0;
	uint64_t lines = 0;
	int rc;

	if (!in->csvready)
		csv_setup(in);
	in->cxdone = 0;
	in->cxnf = 0;
	in->sclen = 0;
	in->cxmax = max;
	for (;;) {
		s = in->buf + in->pos;
		feed_line(in, s + from, eol - from, eol < in->end - in->pos);
		lines++;
		cend = eol;
		if (cend > from && s[cend - 1] == '\r')
			cend--;
		from = eol + (eol < in->end - in->pos);
		if (lines == 1) {
			first = from;
			firstend = cend;
		}
		if (in->cxdone) {
			rc = EOL_OK;
			break;
		}
		if (from > QUOTE_MAX || in->consumed < in->qsuspect) {
			rc = EOL_QUOTE;
			break;
		}
		if ((rc = find_eol(in, from, &eol)) != EOL_OK)
			break;
	}
	if (rc != EOL_OK)
		csv_reset(in);
	if (rc == EOL_WAIT)
		return FR_WAIT;
	if (rc == EOL_ERR)
		return FR_END;
	if (rc == EOL_END && in->o.hold_partial)
		return FR_END;	/* incomplete: left for a later run */
	if (rc == EOL_END || rc == EOL_QUOTE || rc == EOL_LONG) {
		/* EOL_LONG: a line past RECMAX inside the open quote */
		if (in->qsuspect < in->consumed + from)
			in->qsuspect = in->consumed + from;
		r->line = in->lineno + 1;
		r->raw = in->buf + in->pos;
		r->rawlen = firstend;
		r->f = in->f;
		r->nf = 0;
		r->bad = ERR_QUOTE;
		in->lineno++;
		consume(in, first);
		return FR_RECORD;
	}
	r->line = in->lineno + 1;
	r->raw = in->buf + in->pos;
	r->rawlen = cend;
	r->f = in->f;
	in->lineno += lines;
	consume(in, from);
	if (cend > RECMAX) {
		r->nf = 0;
		r->bad = ERR_LONG;
		return 1;
	}
	/* Slices last: scr may have moved while the fields were added. */
	if (in->cxnf > in->fcap)
		grow_fields(in, in->cxnf);
	for (i = 0; i < in->cxnf; i++) {
		in->f[i].p = in->scr + in->cx[i].off;
		in->f[i].n = in->cx[i].n;
	}
	r->f = in->f;
	r->nf = in->cxnf;
	r->bad = NULL;
	return 1;
}

#ifdef __SSE2__
/*
 * A delimited record already in the buffer, in one pass: its fields are
 * split while its line end is looked for. Returns 1 with *r as frame()
 * makes it; 0, having consumed nothing, for anything else (a line not
 * all buffered, an empty line, a '\r' before the '\n', a quote in CSV,
 * a record too long), which frame() then takes the long way.
 */
static int
frame_fast(struct input *in, struct record *r, size_t max)
{
	const char *s = in->buf + in->pos, *e = in->buf + in->end, *p = s, *q;
	size_t nf = 0, eol;

	for (;;) {
		if ((q = scan16(p, e, in->delim, '\n', 0)) == e)
			return 0;	/* the line end is not buffered yet */
		if (*q == '\n' || (max != 0 && nf + 1 == max)) {
			push(in, nf++, p, q - p);
			if (*q != '\n' &&
			    (q = memchr(q, '\n', e - q)) == NULL)
				return 0;
			break;
		}
		push(in, nf++, p, q - p);
		p = q + 1;
	}
	eol = q - s;
	if (eol == 0 || s[eol - 1] == '\r' || eol > RECMAX ||
	    (in->o.fmt == IF_CSV && has_quote(in, in->pos, in->pos + eol)))
		return 0;
	consume(in, eol + 1);
	r->line = ++in->lineno;
	r->raw = s;
	r->rawlen = eol;
	r->f = in->f;
	r->nf = nf;
	r->bad = NULL;
	return 1;
}
#endif

/*
 * Frames the next record of the current file, splitting at most max
 * fields (0: all). Returns FR_RECORD with *r (all of it but r->file set),
 * FR_END when the file has no more records, or FR_WAIT when the next one
 * is not all there and reading would block.
 */
static int
frame(struct input *in, struct record *r, size_t max)
{
	const char *s;
	size_t eol, len;
	int rc;

#ifdef __SSE2__
	if (in->delim >= 0 && in->consumed > 0 && frame_fast(in, r, max))
		return FR_RECORD;
#endif
	for (;;) {
		if ((rc = find_eol(in, 0, &eol)) == EOL_WAIT)
			return FR_WAIT;
		if (rc == EOL_END || rc == EOL_ERR)
			return FR_END;
		if (rc == EOL_LONG) {
			too_long(in, r);
			return FR_RECORD;
		}
		if (in->consumed == 0 && eol >= 3 &&
		    memcmp(in->buf + in->pos, "\xef\xbb\xbf", 3) == 0) {
			consume(in, 3);		/* a byte order mark */
			eol -= 3;
		}
		if (in->o.fmt == IF_CSV &&
		    has_quote(in, in->pos, in->pos + eol))
			return frame_quoted(in, r, max, eol);
		s = in->buf + in->pos;
		len = eol;
		if (len > 0 && s[len - 1] == '\r')
			len--;
		consume(in, eol + (eol < in->end - in->pos));
		in->lineno++;
		if (len == 0)
			continue;	/* an empty line is no record */
		r->line = in->lineno;
		r->raw = s;
		r->rawlen = len;
		r->f = in->f;
		if (len > RECMAX) {
			r->nf = 0;
			r->bad = ERR_LONG;
			return FR_RECORD;
		}
		if (in->o.fmt == IF_JSON) {
			switch (json_scan(in->json, s, len, in->f, NULL,
			    &r->bad)) {
			case 0:
				continue;	/* a blank line */
			case 1:
				r->nf = in->npaths;
				r->bad = NULL;
				break;
			default:
				r->nf = 0;
			}
			return FR_RECORD;
		}
		if (in->delim == -1)
			r->nf = split_blanks(in, s, len, max);
		else
			r->nf = split_delim(in, s, len, in->delim, max);
		r->f = in->f;
		r->bad = NULL;
		return FR_RECORD;
	}
}

/* XXH3-64 of the n bytes at off of fd. Returns 0, or -1 when they cannot
 * all be read. */
static int
hash_at(int fd, uint64_t off, size_t n, uint64_t *hash)
{
	char buf[INPUT_FPLEN];
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = pread(fd, buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	*hash = XXH3_64bits(buf, n);
	return 0;
}

/* The fingerprint of fd's first off bytes (see struct input_pos). */
static int
fingerprint(int fd, uint64_t off, uint64_t *head, uint64_t *tail)
{
	size_t n = off < INPUT_FPLEN ? (size_t)off : INPUT_FPLEN;

	return hash_at(fd, 0, n, head) == 0 &&
	    hash_at(fd, off - n, n, tail) == 0 ? 0 : -1;
}

/* Takes the open file's fingerprint, if it is a regular file that has
 * moved since the last one. */
static void
take_fingerprint(struct input *in)
{
	struct input_pos *p;

	if (in->fd < 0 || !in->isreg || in->fi < 0)
		return;
	p = &in->ipos[in->fi];
	if (p->ip_off == in->fpat)
		return;
	p->ip_hashed = fingerprint(in->fd, p->ip_off, &p->ip_head,
	    &p->ip_tail) == 0;
	in->fpat = p->ip_hashed ? p->ip_off : UINT64_MAX;
}

/* Decides how much of the file just opened a resumed run skips. */
static void
plan_skip(struct input *in, const struct input_pos *p, const struct stat *sb)
{
	uint64_t head, tail;

	if (in->isreg && (p->ip_dev != (uint64_t)sb->st_dev ||
	    p->ip_ino != (uint64_t)sb->st_ino || !p->ip_isreg)) {
		fwin_warn("%s: not the file of the checkpoint; "
		    "reading it from the start", in->name);
		return;
	}
	if (in->isreg && (uint64_t)sb->st_size < p->ip_off) {
		fwin_warn("%s: shorter than its checkpoint position; "
		    "reading it from the start", in->name);
		return;
	}
	/* The same inode can hold another file's bytes: copy-truncated by
	 * logrotate and written again past the old position, or freed by a
	 * rotation and given to the file created next. */
	if (in->isreg && p->ip_hashed &&
	    fingerprint(in->fd, p->ip_off, &head, &tail) == 0) {
		if (head != p->ip_head) {
			fwin_warn("%s: not the file of the "
			    "checkpoint (the same inode, but its first bytes "
			    "differ: copy-truncated and written again, or "
			    "recreated); reading it from the start",
			    in->name);
			return;
		}
		if (tail != p->ip_tail) {
			fwin_warn("%s: not the file of the "
			    "checkpoint (its bytes before the checkpoint "
			    "position differ: rewritten); reading it from the "
			    "start", in->name);
			return;
		}
	}
	if (!in->isreg)
		fwin_warn("skipping %llu bytes of %s already "
		    "processed (--new-input reads it all)",
		    (unsigned long long)p->ip_off,
		    strcmp(in->name, "-") == 0 ? "standard input" : in->name);
	in->skip = p->ip_off;
	in->skiplines = p->ip_lines;
}

/* A regular file jumps to its resume position (after its header). */
static void
seek_resume(struct input *in)
{
	if (lseek(in->fd, (off_t)in->skip, SEEK_SET) == -1) {
		report(in, errno);
		in->eof = 1;
		return;
	}
	in->pos = in->end = 0;
	in->eof = 0;
	quotes_moved(in);
	in->consumed = in->skip;
	in->lineno = in->skiplines;
	in->ipos[in->fi].ip_off = in->consumed;
	in->ipos[in->fi].ip_lines = in->lineno;
	in->skip = 0;
}

/* Opens the next file that can be opened. Returns 0 when none is left. */
static int
open_next(struct input *in)
{
	struct stat sb;
	int i;

	for (i = in->fi + 1; i < in->nfiles; i++) {
		in->fi = i;
		in->name = in->files[i];
		in->lineno = in->consumed = 0;
		in->pos = in->end = 0;
		in->eof = 0;
		in->needhdr = in->o.header;
		quotes_moved(in);
		if (strcmp(in->name, "-") == 0) {
			in->fd = 0;
			in->fdown = 0;
		} else if ((in->fd = open(in->name, O_RDONLY | O_CLOEXEC)) ==
		    -1) {
			report(in, errno);
			continue;
		} else
			in->fdown = 1;
		in->isreg = fstat(in->fd, &sb) == 0 && S_ISREG(sb.st_mode);
		in->ipos[i].ip_dev = sb.st_dev;
		in->ipos[i].ip_ino = sb.st_ino;
		in->ipos[i].ip_isreg = in->isreg;
		in->ipos[i].ip_hashed = 0;
		in->fpat = UINT64_MAX;
		in->qsuspect = 0;
		in->skip = in->skiplines = 0;
		if (i < in->nresume && in->resume[i].ip_off > 0)
			plan_skip(in, &in->resume[i], &sb);
		/* until it is read: what the checkpoint had, or nothing */
		in->ipos[i].ip_off = in->skip;
		in->ipos[i].ip_lines = in->skiplines;
		return 1;
	}
	return 0;
}

static void
close_file(struct input *in)
{
	take_fingerprint(in);
	if (in->fdown)
		close(in->fd);
	in->fd = -1;
	in->fdown = 0;
	in->pos = in->end = 0;
}

/*
 * The stream's next record, headers included (*ishdr says which).
 * Returns INPUT_RECORD, INPUT_END at the end of the input, or INPUT_WAIT.
 */
static int
next_record(struct input *in, struct record *r, int *ishdr)
{
	int hdr, rc;

	for (;;) {
		if (in->fd == -1 && !open_next(in)) {
			/* All consumed: the last file tried, to its end. */
			in->outfi = in->fi < 0 ? 0 : in->fi;
			in->outoff = in->consumed;
			return INPUT_END;
		}
		hdr = in->needhdr;
		if (!hdr && in->skip > 0 && in->isreg)
			seek_resume(in);
		if ((rc = frame(in, r, hdr ? 0 : in->o.maxfields)) == FR_WAIT)
			return INPUT_WAIT;
		if (rc == FR_END) {
			if (in->consumed < in->skip && !in->failed)
				fwin_warn("%s: ended before its "
				    "checkpoint position (%llu of %llu bytes "
				    "skipped)", in->name,
				    (unsigned long long)in->consumed,
				    (unsigned long long)in->skip);
			else if (in->o.hold_partial && in->eof &&
			    in->end > in->pos)
				fwin_warn("%s:%llu: unfinished "
				    "record of %zu bytes left for the next "
				    "run", in->name,
				    (unsigned long long)in->lineno + 1,
				    in->end - in->pos);
			in->skip = 0;
			close_file(in);
			continue;
		}
		in->needhdr = 0;
		if (in->skip > 0 && !hdr) {
			/* a replayed pipe: records already counted */
			if (in->consumed <= in->skip)
				continue;
			in->skip = 0;
		}
		/* While a replayed pipe is skipped (its header included), the
		 * position stays where the checkpoint had it. */
		if (in->skip == 0) {
			in->ipos[in->fi].ip_off = in->consumed;
			in->ipos[in->fi].ip_lines = in->lineno;
		}
		r->file = in->name;
		in->outfi = in->fi;
		in->outoff = in->consumed;
		*ishdr = hdr;
		return INPUT_RECORD;
	}
}

static void
bad_header(struct input *in, const struct record *r)
{
	fwin_warn("%s:%llu: %s in the header", r->file,
	    (unsigned long long)r->line, r->bad);
	in->fatal = 1;
}

struct input *
input_open(char *const *files, int nfiles, const struct input_opts *o)
{
	struct input *in;

	in = xrealloc(NULL, sizeof(*in));
	memset(in, 0, sizeof(*in));
	in->o = *o;
	if (nfiles <= 0) {
		files = stdin_only;
		nfiles = 1;
	}
	in->files = files;
	in->nfiles = nfiles;
	in->fi = -1;
	in->fd = -1;
	in->name = files[0];
	if (o->delim >= 0)
		in->delim = (unsigned char)o->delim;
	else if (o->fmt == IF_CSV)
		in->delim = ',';
	else if (o->fmt == IF_TSV)
		in->delim = '\t';
	else
		in->delim = -1;
	in->cap = BUF_INIT;
	in->buf = xrealloc(NULL, in->cap + SLACK);
	in->fcap = 16;
	in->f = xrealloc(NULL, in->fcap * sizeof(*in->f));
	in->ipos = xrealloc(NULL, nfiles * sizeof(*in->ipos));
	memset(in->ipos, 0, nfiles * sizeof(*in->ipos));
	quotes_moved(in);
	if (o->fmt == IF_JSON)	/* no paths yet: records of no fields */
		in->json = json_new(NULL, 0);
	return in;
}

void
input_set_paths(struct input *in, const char *const *paths, size_t n)
{
	json_free(in->json);
	in->json = json_new(paths, n);
	in->npaths = n;
	if (n > in->fcap)
		grow_fields(in, n);
}

/* With -H the columns in use are known only once the header is read. */
void
input_set_maxfields(struct input *in, size_t maxfields)
{
	in->o.maxfields = maxfields;
}

int
input_header(struct input *in, const struct field **names, size_t *n)
{
	struct record r;
	size_t i, tot = 0;
	char *p;
	int ishdr, rc;

	if (!in->o.header)
		return 0;
	if (in->hdr == HDR_UNREAD) {
		if (in->fatal)
			in->hdr = HDR_ERR;
		else if ((rc = next_record(in, &r, &ishdr)) == INPUT_WAIT)
			return INPUT_WAIT;
		else if (rc == INPUT_END)
			in->hdr = HDR_EMPTY;
		else if (r.bad != NULL) {
			bad_header(in, &r);
			in->hdr = HDR_ERR;
		} else {
			/* Copied: the names outlive the buffer's bytes.
			 * Each gets a NUL after it, for convenience. */
			for (i = 0; i < r.nf; i++)
				tot += r.f[i].n + 1;
			in->hbytes = p = xrealloc(NULL, tot + 1);
			in->hf = xrealloc(NULL,
			    (r.nf ? r.nf : 1) * sizeof(*in->hf));
			for (i = 0; i < r.nf; i++) {
				memcpy(p, r.f[i].p, r.f[i].n);
				in->hf[i].p = p;
				in->hf[i].n = r.f[i].n;
				p += r.f[i].n;
				*p++ = '\0';
			}
			in->hnf = r.nf;
			in->hdr = HDR_HAVE;
		}
	}
	switch (in->hdr) {
	case HDR_HAVE:
		*names = in->hf;
		*n = in->hnf;
		return 1;
	case HDR_EMPTY:
		*names = NULL;
		*n = 0;
		return 0;
	default:
		return -1;
	}
}

static int
same_header(const struct input *in, const struct record *r)
{
	size_t i;

	if (r->nf != in->hnf)
		return 0;
	for (i = 0; i < r->nf; i++)
		if (r->f[i].n != in->hf[i].n ||
		    memcmp(r->f[i].p, in->hf[i].p, r->f[i].n) != 0)
			return 0;
	return 1;
}

int
input_next(struct input *in, struct record *r)
{
	const struct field *names;
	size_t n;
	int ishdr, rc;

	if (in->fatal)
		return -1;
	if (in->o.header && in->hdr == HDR_UNREAD &&
	    (rc = input_header(in, &names, &n)) != 0 && rc != 1)
		return rc;
	for (;;) {
		if ((rc = next_record(in, r, &ishdr)) != INPUT_RECORD)
			return rc;
		if (!ishdr)
			return INPUT_RECORD;
		if (r->bad != NULL) {
			bad_header(in, r);
			return -1;
		}
		if (!same_header(in, r)) {
			fwin_warn("%s: header differs from the "
			    "first file's", r->file);
			in->fatal = 1;
			return -1;
		}
	}
}

int
input_nfiles(const struct input *in)
{
	return in->nfiles;
}

const char *
input_name(const struct input *in, int i)
{
	return in->files[i];
}

uint64_t
input_bytes(const struct input *in)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < in->nfiles; i++)
		n += in->ipos[i].ip_off;
	return n;
}

const struct input_pos *
input_positions(struct input *in)
{
	take_fingerprint(in);
	return in->ipos;
}

void
input_resume(struct input *in, const struct input_pos *pos, int n)
{
	free(in->resume);
	in->resume = xrealloc(NULL, (n > 0 ? n : 1) * sizeof(*pos));
	memcpy(in->resume, pos, n * sizeof(*pos));
	in->nresume = n;
	/* A FILE that this run does not get to (it cannot be opened, or the
	 * run stops before it) keeps its position: a later run must not
	 * read it again from the start. */
	memcpy(in->ipos, pos, (n < in->nfiles ? n : in->nfiles) * sizeof(*pos));
}

int
input_failed(const struct input *in)
{
	return in->failed;
}

int
input_file_index(const struct input *in)
{
	return in->outfi;
}

uint64_t
input_offset(const struct input *in)
{
	return in->outoff;
}

void
input_close(struct input *in)
{
	if (in == NULL)
		return;
	if (in->fd != -1)
		close_file(in);
	if (in->csvready)
		csv_free(&in->csv);
	free(in->buf);
	free(in->f);
	free(in->hf);
	free(in->hbytes);
	free(in->cx);
	free(in->scr);
	free(in->ipos);
	free(in->resume);
	json_free(in->json);
	free(in);
}

int
input_fd(const struct input *in)
{
	return in->fd;
}
