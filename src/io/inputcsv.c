/* inputcsv: CSV records that hold a '"', handed to libcsv a line at a
 * time (a quoted field may hold newlines); their unquoted fields are
 * copied into a scratch buffer. libcsv is steered to agree with the fast
 * path of input.c: spaces are data (RFC 4180), a record ends only at
 * '\n' (a '\r' just before it is dropped), a lone '\r' is data. See
 * inputint.h. */
#include <stdlib.h>
#include <string.h>

#include "io/inputint.h"
#include "base/util.h"

#define FEED_CHUNK	(1u << 20)	/* bytes per csv_parse() call */

/* libcsv callbacks: a field (copied, as libcsv reuses its buffer), and
 * the end of the row. */
static void
csv_field(void *s, size_t n, void *arg)
{
	struct input *in = arg;

	if (in->cxmax != 0 && in->cxnf == in->cxmax) {
		in->cxstray = 0;
		return;
	}
	if (in->cxnf == in->cxcap) {
		in->cxcap *= 2;
		in->cx = xrealloc(in->cx, in->cxcap * sizeof(*in->cx));
	}
	if (in->sccap - in->sclen < n) {
		while (in->sccap - in->sclen < n)
			in->sccap *= 2;
		in->scr = xrealloc(in->scr, in->sccap + FIELD_PAD);
	}
	if (n > 0)
		memcpy(in->scr + in->sclen, s, n);
	in->cx[in->cxnf].off = in->sclen;
	in->cx[in->cxnf].n = n;
	in->cxnf++;
	in->sclen += n;
	in->cxstray = 0;
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

/*
 * libcsv runs in strict mode only to say where it meets a '"' that is
 * neither doubled nor the end of a field: inside an unquoted field
 * ('x"yz'), or after a quoted field's closing quote when the delimiter
 * or the line end does not follow ('"q"r,s"'). Such a '"' is data (see
 * fwin(1), csv), so that one byte is fed again leniently; the second kind
 * marks the field (cxstray), which frame_quoted() takes for a bad record
 * if the field is still open at the end of the line.
 */
static size_t
feed_stray(struct input *in, const char *s, size_t k)
{
	size_t got = csv_parse(&in->csv, s, k, csv_field, csv_row, in);

	if (got == k)
		return k;
	/* stopped short: at such a '"', or with no memory to grow its
	 * buffer */
	if (csv_error(&in->csv) != CSV_EPARSE)
		fwin_oom();
	in->csv.status = CSV_SUCCESS;
	if (in->csv.quoted)
		in->cxstray = 1;
	csv_set_opts(&in->csv, 0);
	if (csv_parse(&in->csv, s + got, 1, csv_field, csv_row, in) != 1)
		fwin_oom();
	csv_set_opts(&in->csv, CSV_STRICT);
	return got + 1;
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
		k = feed_stray(in, s, k);
		s += k;
		n -= k;
	} while (n > 0);
}

/* Returns libcsv to the start of a record, dropping what it holds. */
void
csv_reset(struct input *in)
{
	csv_fini(&in->csv, NULL, NULL, NULL);
}

static void
csv_setup(struct input *in)
{
	if (csv_init(&in->csv, CSV_STRICT) != 0)	/* fails only for memory */
		fwin_oom();
	csv_set_delim(&in->csv, (unsigned char)in->delim);
	/* libcsv grows a field by this much at a time: the default, 128,
	 * would make a long field cost a realloc every 128 bytes. */
	csv_set_blk_size(&in->csv, 64u << 10);
	in->cxcap = 16;
	in->cx = xrealloc(NULL, in->cxcap * sizeof(*in->cx));
	in->sccap = 4096;
	in->scr = xrealloc(NULL, in->sccap + FIELD_PAD);
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
int
frame_quoted(struct input *in, struct record *r, size_t max, size_t eol)
{
	const char *s;
	size_t from = 0, cend, i, first = 0, firstend = 0, last = 0, seen;
	uint64_t lines = 0;
	int rc;

	if (!in->csvready)
		csv_setup(in);
	in->cxdone = 0;
	in->cxstray = 0;
	in->cxnf = 0;
	in->sclen = 0;
	in->cxmax = max;
	for (;;) {
		s = in->buf + in->pos;
		last = from;
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
		/* A field that an undoubled '"' left open at the line end
		 * is a typo ('"a"b,2'), not a field that holds a newline:
		 * read on, it would take every line up to the next '"'.
		 * Met on a later line, that '"' closed a quote left open
		 * on the first: the first's quote is the one unterminated. */
		if (in->cxstray) {
			rc = lines == 1 ? EOL_STRAY : EOL_QUOTE;
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
	if (rc == EOL_END || rc == EOL_QUOTE || rc == EOL_LONG ||
	    rc == EOL_STRAY) {
		/* EOL_LONG: a line past RECMAX inside the open quote.
		 * At each line end this record's open field crossed, a
		 * record begun on a line in between and left open at
		 * its line's end is in the same state (inside a quoted
		 * field), and goes on as this one did: such a record may
		 * not span lines. Not so one that begins on the last
		 * line read (the one with the stray '"', or where the
		 * 1 MiB ran out): past that line's end nothing was read,
		 * and it spans lines as any record does. */
		seen = lines > 1 ? last : from;
		if (in->qsuspect < in->consumed + seen)
			in->qsuspect = in->consumed + seen;
		r->line = in->lineno + 1;
		r->raw = in->buf + in->pos;
		r->rawlen = firstend;
		r->f = in->f;
		r->nf = 0;
		r->bad = rc == EOL_STRAY ? ERR_STRAY : ERR_QUOTE;
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
	memset(in->scr + in->sclen, 0, FIELD_PAD);
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
