/* why: the words of the strategies' fits functions (exec.h), which say
 * why a strategy cannot run a pipeline in words a user can act on. */
#ifndef FWIN_WHY_H
#define FWIN_WHY_H

#include "window/agg.h"
#include "pipeline/config.h"

#define WHY_STREAM_ONLY "stream mode only (batch mode takes records in " \
	"any order, and none is late)"
#define WHY_BATCH_ONLY "batch mode only (a stream takes records as they " \
	"come, and drops late ones)"
#define WHY_NOT_HALVES "the input is not named regular FILEs (the " \
	"second half is read from a file's middle)"
#define WHY_NOT_FILES "the input is not named regular FILEs (should the " \
	"table give up, they are read again)"

/* Sets why (PLAN_WHY bytes) to the reason; returns 0, so that a fits
 * function can say `return why_not(why, ...)`. */
int why_not(char *why, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A fits function for a strategy that runs every batch: whether p is in
 * batch mode. */
int why_batch_fits(const struct config *c, const struct aggs *g,
    const struct plan *p, char *why);

/* The option of the first aggregate without any of the flags want, or
 * NULL when there is none. */
const char *why_agg_lacking(const struct config *c, unsigned want);

/* The option of the first aggregate with a merge operation and none of
 * the flags unless, or NULL when there is none. */
const char *why_agg_merging(const struct config *c, unsigned unless);

/* Whether the (window, key) table takes c's windows (hashagg_fits; with
 * stream, hashagg_fits_stream): the verdict is theirs, the words ours. */
int why_table_takes(const struct config *c, const struct aggs *g,
    int stream, char *why);

#endif
