/* fieldcount: how many fields a record has, when its split stopped at
 * the fields the pipeline uses (input.h's maxfields): -H takes a record
 * with more fields than the header for one whose values shifted (the
 * man page's DIAGNOSTICS). And a csv record's fields found again in its
 * text, as --over writes and reads them (sink.c), the reader's way. */
#ifndef FWIN_FIELDCOUNT_H
#define FWIN_FIELDCOUNT_H

#include <stddef.h>

#include "io/input.h"

/* The number of fields of rec, split on delim (quoted: csv, its fields
 * as csv_field_end() frames them). Reads only the bytes past the fields
 * split when they lie in the record as read; else the whole record. */
size_t record_fields(const struct record *rec, int delim, int quoted);

/* The number of fields of a record's text p[0..n), split on delim
 * (quoted: csv, its fields as csv_field_end() frames them): at least
 * one. */
size_t text_fields(const char *p, size_t n, int delim, int quoted);

/*
 * A csv field as the reader frames it (inputcsv.c's libcsv setup: not
 * strict, spaces are data). A field that begins with '"' is quoted: it
 * ends at a '"' that its delimiter or the record's end follows; inside
 * it, "" is one '"', and a '"' before any other byte is data, that byte
 * too. A field that does not begin with '"' runs to the next delimiter,
 * any '"' in it data (x"yz is the four bytes).
 *
 * Returns the end of the field that begins at p, in the record text that
 * ends at e: its delimiter, or e.
 */
const char *csv_field_end(const char *p, const char *e, int delim);

/* The value of the csv field p[0..n), as csv_field_end() framed it,
 * written to dst (room for n bytes): a quoted field without its quotes
 * and "" as one '"', another as it is. Returns its length. */
size_t csv_field_text(const char *p, size_t n, char *dst);

#endif
