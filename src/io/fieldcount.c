/* fieldcount: the fields of a record past those split; see fieldcount.h.
 * Every record of a wide file under -H comes here, so the common case (no
 * quote in the rest of the line) counts delimiters 8 bytes at a time. */
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

/* Delimiters outside quotes in p[0..n), quotes toggling (a doubled quote
 * toggles twice). */
static size_t
count_quoted(const char *p, size_t n, int delim)
{
	size_t i, k = 0;
	int inq = 0;

	for (i = 0; i < n; i++) {
		if (p[i] == '"')
			inq = !inq;
		else if (!inq && p[i] == delim)
			k++;
	}
	return k;
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
		return 1 + (quoted ? count_quoted(raw, rec->rawlen, delim) :
		    count_byte(raw, rec->rawlen, (unsigned char)delim));
	}
	/* the last field split ends at its own delimiter, or the line's end;
	 * the delimiters after it each start one more field */
	from = last->p + last->n;
	if (quoted && memchr(from, '"', (size_t)(end - from)) != NULL)
		return rec->nf + count_quoted(from, (size_t)(end - from),
		    delim);
	return rec->nf + count_byte(from, (size_t)(end - from),
	    (unsigned char)delim);
}

size_t
text_fields(const char *p, size_t n, int delim, int quoted)
{
	if (quoted && memchr(p, '"', n) != NULL)
		return 1 + count_quoted(p, n, delim);
	return 1 + count_byte(p, n, (unsigned char)delim);
}
