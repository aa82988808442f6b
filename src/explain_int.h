/* explain_int.h: what explain.c and explain_notes.c share: the script
 * being built (see explain.h). */
#ifndef FWIN_EXPLAIN_INT_H
#define FWIN_EXPLAIN_INT_H

#include <stdint.h>
#include <stdio.h>

#include "agg.h"
#include "config.h"

#define MS	1000000LL	/* nanoseconds */

struct ex {
	struct config *c;
	char **cols;		/* the source table's columns, in order */
	size_t ncols;
	char *tcol;		/* the event (or processing) time column */
	enum tfmt tfmt;
	enum outfmt of;
	int legacy;		/* a group window (GROUP BY SESSION / HOP) */
	int64_t offset;		/* the windows' offset from the epoch: --offset,
				   less 3 days for weeks from Monday */
	int byjoin;		/* min-by / max-by: a Top-N joined per window */
	FILE *notes[2];		/* the leading comment's lists, being built:
				   for every pipeline, for this one */
	char *notebuf[2];
	size_t notelen[2];
};

/* Whether the aggregate is --min-by or --max-by. */
int ex_is_by(const struct aggspec *a);

/* Whether a min-by or max-by prints the whole record (no OUT). */
int ex_by_whole(const struct config *c);

/* Writes the leading comment's lists into x->notes: what Flink SQL does
 * not keep of this pipeline's semantics, with the nearest equivalent. */
void ex_notes(struct ex *x);

#endif
