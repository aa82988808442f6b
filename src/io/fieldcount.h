/* fieldcount: how many fields a record has, when its split stopped at
 * the fields the pipeline uses (input.h's maxfields): -H takes a record
 * with more fields than the header for one whose values shifted (the
 * man page's DIAGNOSTICS). */
#ifndef FWIN_FIELDCOUNT_H
#define FWIN_FIELDCOUNT_H

#include <stddef.h>

#include "io/input.h"

/* The number of fields of rec, split on delim (quoted: csv, whose quotes
 * hide delimiters). Reads only the bytes past the fields split when they
 * lie in the record as read; else the whole record. */
size_t record_fields(const struct record *rec, int delim, int quoted);

/* The number of fields of a record's text p[0..n), split on delim
 * (quoted: csv): at least one. */
size_t text_fields(const char *p, size_t n, int delim, int quoted);

#endif
