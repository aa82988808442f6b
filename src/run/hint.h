/* hint: what a new user most often gets wrong about times, said once, in
 * its place among the records' messages (fwin(1): DIAGNOSTICS, "Hints
 * for the first hour"). The driver feeds it the records it applies, in input order, so
 * the hints are the same with any number of threads and in every mode. */
#ifndef FWIN_HINT_H
#define FWIN_HINT_H

#include "pipeline/config.h"
#include "flow/parse.h"

/* Records whose times all fail before the formats are tried together. */
#define HINT_RECORDS 10

struct hint;

/* Hints for pipeline c, whose time format so far is timefmt (TF_AUTO:
 * found by the first time read). NULL when c has no event time. */
struct hint *hint_new(const struct config *c, int timefmt);
void hint_free(struct hint *h);

/* Record pr was applied (a record or a bad one, never a note). Returns 1
 * while the hint still watches records, 0 once it has said what it had
 * to (the caller may then free it). */
int hint_record(struct hint *h, const struct parsed *pr);

/* The input ended (or the run stopped) before HINT_RECORDS records: says
 * what the records so far call for. */
void hint_end(struct hint *h);

#endif
