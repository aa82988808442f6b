/* fieldcount: the fields of a record past those split, and a csv field
 * framed in a record's text; see fieldcount.h. Every record of a wide file
 * under -H comes here, so the common case (no quote in the rest of the
 * line) counts delimiters 8 bytes at a time. */
#include <stdint.h>
#include <string.h>

#include "io/fieldcount.h"

#define ONES	0x0101010101010101ULL
#define LOW7	0x7f7f7f7f7f7f7f7fULL

/* How many bytes of p[0..n) are c. */
static size_t
count_byte(const char *p, size_t n, unsigned char c)
{
	uint64_t x, y, pat = ONES * c;
	size_t i = 0, k = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&x, p + i, 8);
		x ^= pat;
		/* 0x80 in each byte of x that is zero, exactly (no borrow
		 * crosses a byte) */
		y = ~(((x & LOW7) + LOW7) | x | LOW7);
		/* their number: the bytes' 0 or 1 summed in the top byte
		 * (no popcount instruction without -march) */
		k += (size_t)(((y >> 7) * ONES) >> 56);
	}
	for (; i < n; i++)
		k += (unsigned char)p[i] == c;
	return k;
}

const char *
csv_field_end(const char *p, const char *e, int delim)
{
	const char *q;
	unsigned char d = (unsigned char)delim;

	if (p == e || *p != '"') {
		q = memchr(p, d, (size_t)(e - p));
		return q != NULL ? q : e;
	}
	for (p++;;) {
		if ((q = memchr(p, '"', (size_t)(e - p))) == NULL)
			return e;	/* still open (not in a good record) */
		p = q + 1;
		if (p == e || (unsigned char)*p == d)
			return p;
		p += *p == '"';	/* "" is one '"'; else the '"' is data */
	}
}

size_t
csv_field_text(const char *p, size_t n, char *dst)
{
	const char *e = p + n;
	size_t len = 0;

	if (n == 0 || *p != '"') {
		if (n > 0)
			memcpy(dst, p, n);
		return n;
	}
	for (p++; p < e; p++) {
		if (*p == '"') {
			if (p + 1 == e)
				break;		/* the closing quote */
			p += p[1] == '"';	/* "" is one '"' */
		}
		dst[len++] = *p;
	}
	return len;
}

/* The fields of the csv text p[0..e): at least one. Fields are framed
 * by csv_field_end(); a stretch without a '"' counts its delimiters 8
 * bytes at a time, and so does a '"' that does not begin a field, which
 * is data. */
static size_t
csv_count(const char *p, const char *e, int delim)
{
	const char *text = p, *q;
	unsigned char d = (unsigned char)delim;
	size_t k = 1;

	for (;;) {
		if ((q = memchr(p, '"', (size_t)(e - p))) == NULL)
			return k + count_byte(p, (size_t)(e - p), d);
		k += count_byte(p, (size_t)(q - p), d);
		if (q != text && (unsigned char)q[-1] != d) {
			p = q + 1;	/* inside an unquoted field */
			continue;
		}
		if ((p = csv_field_end(q, e, delim)) == e)
			return k;
		p++;		/* past a quoted field's delimiter */
		k++;
	}
}

size_t
record_fields(const struct record *rec, int delim, int quoted)
{
	const char *raw = rec->raw, *end = raw + rec->rawlen, *from;
	const struct field *last;

	if (rec->nf == 0)
		return 0;
	last = &rec->f[rec->nf - 1];
	if (last->p < raw || last->p + last->n > end) {
		/* the fields are copies (csv with quotes): all of it again */
		return text_fields(raw, rec->rawlen, delim, quoted);
	}
	/* the last field split ends at its own delimiter, or the line's end;
	 * the fields after that delimiter are more */
	from = last->p + last->n;
	if (from == end)
		return rec->nf;
	return rec->nf + text_fields(from + 1, (size_t)(end - from - 1),
	    delim, quoted);
}

size_t
text_fields(const char *p, size_t n, int delim, int quoted)
{
	if (quoted && memchr(p, '"', n) != NULL)
		return csv_count(p, p + n, delim);
	return 1 + count_byte(p, n, (unsigned char)delim);
}
