/*
 * inputread: one stream of FILEs read in turn, and the record framers.
 *
 * Every byte goes through one buffer (inputbuf.c). A record is framed
 * where it lies: memchr finds its line end and its fields are slices of
 * the buffer. A record past RECMAX is skipped without being kept.
 *
 * CSV lines without a '"' are split in place like TSV; a record with one
 * goes to inputcsv.c (libcsv). The FILE operands, their identity and the
 * resuming at a checkpoint's position are inputfiles.c's.
 *
 * JSON Lines are framed as lines are (a trailing '\r' dropped, an empty
 * line no record), then json_scan() fills the fields with the values of
 * the paths the pipeline uses (input_set_paths()).
 *
 * A UTF-8 byte order mark at the very start of a file is skipped (its
 * bytes count as consumed, so checkpoint positions stay byte offsets).
 *
 * A followed FILE (follow.c) is one such stream, a leaf, whose file
 * followleaf.c reopens and rewinds; the stream_* functions are what
 * input.c and follow.c call, below both.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "io/input.h"
#include "io/inputint.h"
#include "io/json.h"
#include "base/util.h"

static char *const stdin_only[] = { (char *)"-" };

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
 * is not doubled and not before a delimiter or line end is data): the
 * fields of fieldcount.h's csv_field_end(), a byte at a time across reads.
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
void
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
		/* (a followed file waits at its end: the record ends there) */
		if (done || in->eof || fill(in, 1) != FILL_MORE)
			break;
	}
	in->lineno += lines + 1;
	r->raw = "";
	r->rawlen = 0;
	r->f = in->f;
	r->nf = 0;
	r->bad = ERR_LONG;
}

#ifdef __SSE2__
/* The structural bytes of the 64 bytes at p, a bit each (byte 0
 * lowest): those equal to d, nl or q. */
static inline uint64_t
structural64(const char *p, __m128i d, __m128i nl, __m128i q)
{
	uint64_t m = 0;
	__m128i v;
	int k;

	for (k = 0; k < 4; k++) {
		v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
		m |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_or_si128(_mm_cmpeq_epi8(v, d), _mm_cmpeq_epi8(v, nl)),
		    _mm_cmpeq_epi8(v, q))) << (16 * k);
	}
	return m;
}

/* The quote that frame_at() stops at: '"' in csv, none ('\n') else. */
static inline char
quote_of(const struct input *in)
{
	return in->o.fmt == IF_CSV ? '"' : '\n';
}

/* How many fields frame_fast() may store without a test of room: up to
 * max (0: all), or the room there is. */
static inline size_t
fields_room(const struct input *in, size_t max)
{
	return max != 0 && max < in->fcap ? max : in->fcap;
}

/* Where frame_at() goes on: the bitmap of the structural bytes
 * (delimiter, '\n' and quote) of the 64 at `at`, those of the records
 * framed cleared; and the input's bytes, copied where the compiler sees
 * that no field stored changes them. */
struct scan {
	size_t at;
	uint64_t bits;
	const char *buf;
	size_t end;
	char delim, quote;
};

static inline uint64_t
structural_at(const struct scan *s, size_t at)
{
	return structural64(s->buf + at, _mm_set1_epi8(s->delim),
	    _mm_set1_epi8('\n'), _mm_set1_epi8(s->quote));
}

/* The scan from the input's position: the bitmap kept from the last
 * record, or one made there. 0 when fewer than 64 bytes are left. */
static inline int
scan_from(struct input *in, struct scan *s)
{
	size_t pos = in->pos;

	s->buf = in->buf;
	s->end = in->end;
	s->delim = (char)in->delim;
	s->quote = quote_of(in);
	/* (pos before sat wraps round too; quotes_moved() sets sat far) */
	if (pos - in->sat >= 64) {
		if (in->end - pos < 64)
			return 0;
		in->sat = pos;
		in->sbits = structural_at(s, pos);
	}
	s->at = in->sat;
	s->bits = in->sbits & (~(uint64_t)0 << (pos - in->sat));
	return 1;
}

/*
 * A delimited record at pos, in one pass: its fields are split while its
 * line end is looked for, from the bitmap of the buffer's structural
 * bytes made 64 bytes at a time and kept from one record to the next
 * (simdcsv's way), so that a field costs a bit found, not a search. Up
 * to room fields go to f (past room and up to max, 0 for all, to in->f,
 * grown: f is in->f then). Returns the bytes the record takes with its
 * '\n', having set *r but for its line and file, and moved s past it;
 * or 0, moving nothing, for anything else (a line whose end is not among
 * the bytes mapped, which stop 64 bytes short of the buffer's end; an
 * empty line, a '\r' before the '\n', a quote in CSV, a record too long),
 * which frame() then takes the long way.
 */
static inline __attribute__((always_inline)) size_t
frame_at(struct input *in, struct scan *s, size_t pos, struct record *r,
    struct field *f, size_t room, size_t max)
{
	const char *buf = s->buf;
	const char delim = s->delim;
	size_t at = s->at, start = pos, nf = 0, idx, eol;
	uint64_t bits = s->bits;
	char c;

	for (;;) {
		while (bits == 0) {
			at += 64;
			if (s->end - at < 64)
				return 0;
			bits = structural_at(s, at);
		}
		idx = at + (size_t)__builtin_ctzll(bits);
		bits &= bits - 1;
		if ((c = buf[idx]) == delim) {
			if (nf < room) {
				f[nf].p = buf + start;
				f[nf++].n = idx - start;
				start = idx + 1;
			} else if (max == 0 || nf < max) {
				/* past max fields, only the line end matters */
				push(in, nf++, buf + start, idx - start);
				start = idx + 1;
				f = in->f;
				room = fields_room(in, max);
			}
			continue;
		}
		if (c != '\n')
			return 0;	/* a quote */
		break;
	}
	eol = idx - pos;
	if (eol == 0 || buf[idx - 1] == '\r' || eol > RECMAX)
		return 0;
	if (nf < room) {
		f[nf].p = buf + start;
		f[nf++].n = idx - start;
	} else if (max == 0 || nf < max) {
		push(in, nf++, buf + start, idx - start);
		f = in->f;
	}
	s->at = at;
	s->bits = bits;
	r->raw = buf + pos;
	r->rawlen = eol;
	r->f = f;
	r->nf = nf;
	r->bad = NULL;
	return eol + 1;
}

/* frame_at() of the record at the input's position, its fields in in->f
 * and the input moved past it: 1 with *r as frame() makes it, or 0. */
static inline __attribute__((always_inline)) int
frame_fast(struct input *in, struct record *r, size_t max)
{
	struct scan s;
	size_t used;

	if (!scan_from(in, &s) || (used = frame_at(in, &s, in->pos, r, in->f,
	    fields_room(in, max), max)) == 0)
		return 0;
	in->sat = s.at;
	in->sbits = s.bits;
	consume(in, used);
	r->line = ++in->lineno;
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
		if (in->delim == -1) {
			r->nf = split_blanks(in, s, len, max);
			/* its blanks ignored, as its end's are, a line of
			 * blanks is empty: no record, as JSON's is none */
			if (r->nf == 0)
				continue;
		} else
			r->nf = split_delim(in, s, len, in->delim, max);
		r->f = in->f;
		r->bad = NULL;
		return FR_RECORD;
	}
}

int
same_fields(const struct field *a, size_t na, const struct field *b,
    size_t nb)
{
	size_t i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (a[i].n != b[i].n || memcmp(a[i].p, b[i].p, a[i].n) != 0)
			return 0;
	return 1;
}

void
header_differs(const char *file, const struct field *a, size_t na,
    const struct field *first, size_t nfirst)
{
	char x[72], y[72];
	size_t i;

	for (i = 0; i < na && i < nfirst; i++)
		if (a[i].n != first[i].n ||
		    memcmp(a[i].p, first[i].p, a[i].n) != 0)
			break;
	if (i < na && i < nfirst)
		fwin_warn("%s: header differs from the first file's: column "
		    "%zu is '%s', not '%s'", file, i + 1,
		    shown_bytes(x, sizeof(x), a[i].p, a[i].n),
		    shown_bytes(y, sizeof(y), first[i].p, first[i].n));
	else if (i < nfirst)
		fwin_warn("%s: header differs from the first file's: column "
		    "%zu is missing, not '%s'", file, i + 1,
		    shown_bytes(y, sizeof(y), first[i].p, first[i].n));
	else
		fwin_warn("%s: header differs from the first file's: column "
		    "%zu is '%s', an extra one", file, i + 1,
		    shown_bytes(x, sizeof(x), a[i].p, a[i].n));
}

/*
 * The stream's next record, headers included (*ishdr says which).
 * Returns INPUT_RECORD, INPUT_END at the end of the input, or INPUT_WAIT.
 */
static int
next_framed(struct input *in, struct record *r, int *ishdr)
{
	int hdr, rc;

	for (;;) {
		if (in->limfi >= 0 && (in->fi > in->limfi ||
		    (in->fi == in->limfi && in->consumed >= in->limoff)))
			return INPUT_END;	/* (input_set_limit) */
		if (in->rewind)
			follow_rewind(in);
		if (in->fd == -1 && in->tail && !in->ended &&
		    (rc = follow_reopen(in)) <= 0) {
			if (rc == 0)
				return INPUT_WAIT;
			in->ended = 1;
		}
		if (in->fd == -1 && (in->ended || !open_next(in))) {
			/* All consumed: the last file tried, to its end. */
			in->outfi = in->fi < 0 ? 0 : in->fi;
			in->outoff = in->consumed;
			return INPUT_END;
		}
		hdr = in->needhdr;
		if (!hdr && in->skip > 0 && in->isreg)
			seek_resume(in);
		if ((rc = frame(in, r, hdr || in->hdragain ? 0 :
		    in->o.maxfields)) == FR_WAIT) {
			if (in->rewind)	/* truncated: from its start now */
				continue;
			return INPUT_WAIT;
		}
		if (rc == FR_END && in->tail) {
			/* renamed away and read to its end: the new file is
			 * opened next; else it cannot be read any more */
			in->ended = !in->rotated;
			in->rotated = 0;
			in->o.hold_partial = in->hold;
			close_file(in);
			continue;
		}
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
		if (in->hdragain) {
			/* truncated: the header again, if the writer wrote
			 * it; else its first record */
			in->hdragain = 0;
			hdr = r->bad == NULL &&
			    same_fields(r->f, r->nf, in->hf, in->hnf);
		}
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
		if (in->tail)
			__atomic_store_n(&in->shown, in->consumed,
			    __ATOMIC_RELAXED);
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
	in->quick_until = 0;
}

struct input *
stream_open(char *const *files, int nfiles, const struct input_opts *o)
{
	struct input *in;

	in = xrealloc(NULL, sizeof(*in));
	memset(in, 0, sizeof(*in));
	in->o = *o;
	in->hold = o->hold_partial;
	in->ino = -1;
	in->sat = SAT_FAR;
	if (nfiles <= 0) {
		files = stdin_only;
		nfiles = 1;
	}
	in->files = files;
	in->nfiles = nfiles;
	in->fi = -1;
	in->fd = -1;
	in->limfi = -1;
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

int
stream_header(struct input *in, const struct field **names, size_t *n)
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
		else if ((rc = next_framed(in, &r, &ishdr)) == INPUT_WAIT)
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

/* next_framed()'s common case, without its turns: a file open and past
 * its header, nothing to skip, no limit reached, the record framed in
 * one pass (frame_fast). Returns INPUT_RECORD as next_framed() would,
 * or 0 for it to take the long way, nothing consumed. */
/* A JSON Lines record whose line end is in the buffer, framed as
 * frame() frames it, its fields into f: 1 with *r (but its file), or 0
 * having consumed nothing (a line not all there, a '\r' before its '\n',
 * an empty or blank line, a line too long), for frame() to take. */
static inline int
frame_json(struct input *in, struct record *r, struct field *f)
{
	const char *s = in->buf + in->pos, *nl;
	size_t eol;

	if ((nl = memchr(s, '\n', in->end - in->pos)) == NULL ||
	    (eol = (size_t)(nl - s)) == 0 || s[eol - 1] == '\r' ||
	    eol > RECMAX)
		return 0;
	switch (json_scan(in->json, s, eol, f, NULL, &r->bad)) {
	case 0:
		return 0;	/* blank: frame() skips it */
	case 1:
		r->nf = in->npaths;
		r->bad = NULL;
		break;
	default:
		r->nf = 0;
	}
	consume(in, eol + 1);
	r->line = ++in->lineno;
	r->raw = s;
	r->rawlen = eol;
	r->f = f;
	return 1;
}

/* Where next_quick() may frame records from: while nothing is to be
 * skipped, checked or stopped at, up to the limit. At each record taken
 * the long way. */
static void
quick_from_here(struct input *in)
{
	in->quick_until = in->fd == -1 || in->fatal || in->needhdr ||
	    in->hdragain ||
	    in->skip != 0 || in->rewind || in->consumed == 0 ||
	    (in->o.header && in->hdr == HDR_UNREAD) ? 0 :
	    in->limfi < 0 || in->fi < in->limfi ? UINT64_MAX :
	    in->fi == in->limfi ? in->limoff : 0;
}

/* The input's position and what is said of it, after a record taken. */
static inline void
taken(struct input *in)
{
	in->ipos[in->fi].ip_off = in->consumed;
	in->ipos[in->fi].ip_lines = in->lineno;
	if (in->tail)
		__atomic_store_n(&in->shown, in->consumed, __ATOMIC_RELAXED);
	in->outfi = in->fi;
	in->outoff = in->consumed;
}

static inline int
next_quick(struct input *in, struct record *r)
{
#ifdef __SSE2__
	if (in->consumed >= in->quick_until ||
	    (in->delim >= 0 ? !frame_fast(in, r, in->o.maxfields) :
	    in->o.fmt != IF_JSON || !frame_json(in, r, in->f)))
		return 0;
	r->file = in->name;
	taken(in);
	return INPUT_RECORD;
#else
	(void)in;
	(void)r;
	return 0;
#endif
}

/* stream_next_block() of JSON Lines: up to max records (max at most
 * INPUT_BLOCK), each framed whole by frame_json(). A record whose fields
 * point into the scanner's buffer (a string with escapes) or that is bad
 * (its message is the scanner's) ends the block, as the next scan would
 * write over them. */
static size_t
json_block(struct input *in, struct record *r, size_t max)
{
	size_t n, stride = in->npaths;

	for (n = 0; n < max && in->consumed < in->quick_until; n++) {
		if (!frame_json(in, &r[n], in->bf + n * stride))
			break;
		r[n].file = in->name;
		if (r[n].bad != NULL || json_scratched(in->json)) {
			n++;
			break;
		}
	}
	if (n > 0)
		taken(in);
	return n;
}

#ifdef __SSE2__
/* stream_next_block() of delimited records: up to max (at most
 * INPUT_BLOCK), each framed by frame_at() from one scan kept in
 * registers, the input's position and what is said of it stored once. */
static size_t
delimited_block(struct input *in, struct record *r, size_t max)
{
	size_t n, pos = in->pos, stop, used, stride = in->o.maxfields;
	const char *name = in->name;
	uint64_t line = in->lineno + 1;
	struct scan s;

	/* (records that start before the limit are taken, as next_quick()
	 * takes them) */
	if (in->consumed >= in->quick_until || !scan_from(in, &s))
		return 0;
	stop = in->quick_until - in->consumed < in->end - pos ?
	    pos + (size_t)(in->quick_until - in->consumed) : in->end;
	for (n = 0; n < max && pos < stop; n++) {
		if ((used = frame_at(in, &s, pos, &r[n], in->bf + n * stride,
		    stride, stride)) == 0)
			break;
		r[n].file = name;
		r[n].line = line + n;
		pos += used;
	}
	if (n == 0)
		return 0;
	in->sat = s.at;
	in->sbits = s.bits;
	consume(in, pos - in->pos);
	in->lineno += n;
	taken(in);
	return n;
}
#endif

size_t
stream_next_block(struct input *in, struct record *r, size_t max)
{
	if (max > INPUT_BLOCK)
		max = INPUT_BLOCK;
	if (in->o.fmt == IF_JSON) {
		/* none after a record whose strings the next scan undoes */
		if (json_scratched(in->json))
			return 0;
		if (in->npaths <= BLOCK_FIELDS)
			return json_block(in, r, max);
#ifdef __SSE2__
	} else if (in->delim >= 0 && in->o.maxfields != 0 &&
	    in->o.maxfields <= BLOCK_FIELDS) {
		return delimited_block(in, r, max);
#endif
	}
	/* any other: one record at most, its fields in in->f */
	return max > 0 && next_quick(in, r) == INPUT_RECORD;
}

void
stream_unframe(struct input *in, const struct record *r)
{
	size_t back = in->pos - (size_t)(r->raw - in->buf);

	in->pos -= back;
	in->consumed -= back;
	in->lineno = r->line - 1;
	in->sat = SAT_FAR;
	taken(in);
}

/* stream_next() past next_quick(): the header, files opened and ended,
 * what next_quick() leaves. */
static __attribute__((noinline)) int
stream_slow(struct input *in, struct record *r)
{
	const struct field *names;
	size_t n;
	int ishdr, rc;

	if (in->fatal)
		return -1;
	if (in->o.header && in->hdr == HDR_UNREAD &&
	    (rc = stream_header(in, &names, &n)) != 0 && rc != 1)
		return rc;
	for (;;) {
		if ((rc = next_framed(in, r, &ishdr)) != INPUT_RECORD)
			return rc;
		if (!ishdr) {
			quick_from_here(in);
			return INPUT_RECORD;
		}
		if (r->bad != NULL) {
			bad_header(in, r);
			return -1;
		}
		if (!same_fields(r->f, r->nf, in->hf, in->hnf)) {
			header_differs(r->file, r->f, r->nf, in->hf, in->hnf);
			in->fatal = 1;
			in->quick_until = 0;
			return -1;
		}
	}
}

int
stream_next(struct input *in, struct record *r)
{
	return next_quick(in, r) == INPUT_RECORD ? INPUT_RECORD :
	    stream_slow(in, r);
}

void
stream_close(struct input *in)
{
	if (in == NULL)
		return;
	free(in->oldpath);	/* a leaf's rotated files (followleaf.c) */
	while (in->nlater > 0)
		free(in->later[--in->nlater]);
	free(in->later);
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
