/* split: --mode batch aggregated as read (hashagg.h) on two cores. The
 * rest of the input is cut in two at a line end near its middle; a
 * thread of its own reads the second half into a table of its own while
 * the driver reads the first half (its input stopped at the cut:
 * input_set_limit), and at the end the two tables fire together. The
 * thread's work is speculative: it is kept only when its half held
 * nothing to say (no bad record, no message, no table that gave up) and
 * the driver's half ended exactly at the cut (a quoted CSV field can hold
 * a line end); otherwise it is dropped, and the driver reads that half
 * itself, saying what there is to say in its place. Records, rows and
 * messages are those of one thread reading it all. */
#ifndef FWIN_SPLIT_H
#define FWIN_SPLIT_H

#include <stdint.h>

#include "window/agg.h"
#include "pipeline/config.h"
#include "exec/hashagg.h"
#include "window/operator.h"

/* Less than this left is not worth a thread (the plan, plan.h, does not
 * choose halves for less input; split_start() for less left). */
#define SPLIT_MIN ((uint64_t)256 << 10)

struct split;

/* What the second half is read as: batch mode's table; a stream's
 * (hashagg_stream()); batch mode's input near time order, a stream in
 * which no record may be late. */
enum { SPLIT_BATCH, SPLIT_STREAM, SPLIT_NEAR_ORDER };

/* What the second half's thread did. */
struct split_done {
	uint64_t nread;		/* records read */
	uint64_t nfiltered;	/* ... of them, rejected by --where */
	uint64_t nrows;		/* rows fired (emit) */
};

/* Cuts what is left of c's FILEs after byte off of FILE operand fi, and
 * starts reading the second half into a table adding to g's accumulators
 * with at most budget bytes; *cut_fi, *cut_off are where the first half
 * ends. timefmt: the input's time format, known by now. kind: SPLIT_*;
 * but for SPLIT_BATCH the table is hashagg_stream()'s with this lateness,
 * with a ledger; with emit, the windows that start after the largest of
 * the half's first few thousand times plus lateness fire
 * to emit(arg, row) on the thread as its watermark passes them
 * (hashagg_fired_from() of the table says from where; it is for the
 * caller to check that the first half reached no such window). NULL
 * when there is too little left to be worth a thread, or no line end
 * near the middle. */
struct split *split_start(const struct config *c, struct aggs *g,
    int timefmt, int fi, uint64_t off, uint64_t budget, int kind,
    int64_t lateness, op_emit_fn emit, void *arg, int *cut_fi,
    uint64_t *cut_off);

/* Waits for the thread to finish. Returns its table (the caller's to
 * free) and what it did in *d, or NULL when its work is dropped; frees s
 * either way. */
struct hashagg *split_join(struct split *s, struct split_done *d);

/* How far the thread has read, for --progress: its half's bytes and
 * records so far (any thread may ask). */
void split_read(const struct split *s, uint64_t *bytes, uint64_t *records);

/* Asks the thread to stop, waits, and drops its work; frees s. */
void split_abort(struct split *s);

#endif
