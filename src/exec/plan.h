/* plan: the one place that chooses how a pipeline runs (fwin(1): THE
 * PLAN). From the pipeline's definition (struct config) and its inputs
 * (regular files or not, their size), the threads and the memory budget,
 * it decides the mode (auto: batch or stream) and one strategy, before
 * the first record is read, and keeps why each other strategy was not
 * chosen. The driver asks the plan instead of deciding again; what can
 * only be known while reading (a record out of time order, a table
 * past its budget) is a fallback from the planned strategy, taken where
 * it is met. --explain plan prints it; FWIN_STRATEGY forces one. */
#ifndef FWIN_PLAN_H
#define FWIN_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "pipeline/config.h"

/* In the order --explain plan lists them. */
enum strategy {
	ST_ORDERED,	/* stream: the operator, records in arrival order */
	ST_KEYED,	/* stream: an operator per key group, on workers */
	ST_STREAMTABLE,	/* stream: (window, key) groups, fired as the
			 * watermark passes their window */
	ST_HALVES,	/* the table, the file in two halves on two threads */
	ST_TABLE,	/* batch: (window, key) groups, in any order */
	ST_STRAIGHT,	/* batch: the operator while records come in time
			 * order, else sorted */
	ST_SORTED,	/* batch: sorted runs, spilled, replayed in order */
	ST_N
};

#define PLAN_WHY 200

struct plan {
	enum runmode pl_mode;		/* MODE_STREAM or MODE_BATCH */
	char pl_mode_why[PLAN_WHY];
	enum strategy pl_strategy;
	int pl_forced;			/* by FWIN_STRATEGY */
	char pl_why[ST_N][PLAN_WHY];	/* "": it can run the pipeline */
	unsigned pl_threads;
	uint64_t pl_memory;		/* the budget; 0: none (a stream) */
	int pl_memory_set;		/* by --max-memory */
	int pl_rereadable;		/* named regular FILEs: read again */
	uint64_t pl_bytes;		/* their size */
};

/* --mode auto: batch when -t is given, every input is a regular file and
 * no stream-only option (stream_only: the first given, or NULL) is;
 * else stream. Sets c->mode and p's mode and its reason. */
void plan_mode(struct config *c, const char *stream_only, struct plan *p);

/* Chooses the strategy of c (its mode decided by plan_mode, its threads
 * set) and says why each other one cannot run it; FWIN_STRATEGY=NAME
 * (fwin(1), ENVIRONMENT) forces NAME. Returns 0, or -1 with what is
 * wrong in err (an unknown name, or one that cannot run the pipeline):
 * a usage error. */
int plan_make(const struct config *c, struct plan *p, char *err,
    size_t errsz);

/* --explain plan: the plan as lines of "word: text". Returns 0. */
int plan_print(const struct plan *p, FILE *f);

/* A strategy's name, as FWIN_STRATEGY and --explain plan write it. */
const char *plan_name(enum strategy s);

/* The strategy that takes over from s when it cannot go on (or, first,
 * cannot begin), in p's mode: the fallbacks --explain plan lists. */
enum strategy plan_fallback(const struct plan *p, enum strategy s);

/* Whether the plan runs the (window, key) table, alone or in halves. */
static inline int
plan_table(const struct plan *p)
{
	return p->pl_strategy == ST_STREAMTABLE ||
	    p->pl_strategy == ST_TABLE || p->pl_strategy == ST_HALVES;
}

#endif
