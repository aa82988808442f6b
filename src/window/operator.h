/* operator: the window operator, in the shape of Flink's WindowOperator.
 * It takes records (already parsed: key bytes and hash, time, values) and
 * watermark advances, keeps keyed state, and hands each fired window to a
 * callback as a row. It never opens a file, polls, forks, handles a
 * signal or exits: the driver (run.c) sits on top of it.
 *
 * For each record, with W the watermark before it (see the man page,
 * WINDOWS AND WATERMARKS):
 *   1. its windows are assigned (the assigner);
 *   2. if every one is expired (end + allowed lateness <= W) it is late:
 *      dropped, and op_record says so; otherwise it is added to its pane;
 *   3. its windows whose end is <= W (kept by allowed lateness) fire at
 *      once with the updated result;
 *   4. the driver then advances W (op_advance): every window with
 *      end <= W that holds data and has not fired, fires.
 * Windows that fire together are handed over in (end, start, key) order. */
#ifndef FWIN_OPERATOR_H
#define FWIN_OPERATOR_H

#include <stddef.h>
#include <stdint.h>

#include "window/agg.h"
#include "pipeline/config.h"
#include "window/state.h"

/* What the driver carries over between runs beside keyed state: kept in
 * the state's driver block (st_globals), so a checkpoint holds it. */
struct op_globals {
	int64_t g_wm;		/* the watermark */
	int64_t g_maxt;		/* the largest event time seen */
	uint64_t g_seq;		/* records added so far: the arrival number */
	uint32_t g_timefmt;	/* the input time format fixed by auto */
	uint32_t g_pad;
	uint64_t g_read, g_bad, g_late, g_nowin, g_fired;	/* counters */
};
ARENA_LAYOUT(struct op_globals, 72);

/* A parsed record. */
struct op_rec {
	const char *key;	/* canonical key bytes (keycodec.h) */
	size_t keylen;
	uint64_t hash;		/* key_hash() of them */
	int padded;		/* a key of 1 to 8 bytes is read in one
				   load (parse.h: key_padded) */
	int64_t t;		/* event or processing time */
	const struct aval *vals;	/* one per aggregate */
};

/* What op_record did with a record. */
enum {
	OP_ADDED,		/* added to its windows */
	OP_LATE,		/* every window of it has expired: dropped */
	OP_NOWIN,		/* in no window (a gap of --slide) */
	OP_RANGE,		/* its windows do not fit in int64: bad */
	OP_CORRUPT		/* restored state found bad: see st_corrupt */
};

/* A fired window, or rolling mode's row. The aggregates are folded, or
 * acc names the one group's accumulators that are written as they are:
 * aggs_emit(g, a, acc, out) writes their cells. */
struct op_row {
	int64_t start, end;	/* time windows (has_bounds) */
	int64_t time;		/* rolling mode: the record's time */
	int has_bounds;
	int final;		/* 0: a partial row (--emit-every) */
	const char *rec;	/* --over: the record as read */
	size_t reclen;
	const char *key;
	size_t keylen;
	struct aggs *g;
	const struct arena *a;
	const void *acc;	/* NULL: g's fold */
};

typedef void (*op_emit_fn)(void *arg, const struct op_row *row);

/* --top: the value a row ranks by (its --top-by cell); returns 0 and
 * sets *v and the cell's text *text[0..*n) (a number, valid until the
 * next call), -1 for an empty cell, which ranks last, or -2 for a row
 * that is not to be printed (--having), which takes no place. */
typedef int (*op_rank_fn)(void *arg, const struct op_row *row, double *v,
    const char **text, size_t *n);

struct op;

/* The operator of pipeline c with aggregates g (which it folds, not
 * owns); fired rows go to emit(arg, row). Never NULL. */
struct op *op_new(const struct config *c, struct aggs *g, op_emit_fn emit,
    void *arg);
void op_free(struct op *o);

/* --emit-every: a digest of a row's aggregate cells, so that a window
 * whose result has not changed since its last row prints none. */
typedef uint64_t (*op_digest_fn)(void *arg, const struct op_row *row);
void op_set_digest(struct op *o, op_digest_fn digest, void *arg);

/* --top: of the rows one window fires, hand over only the c->top_n that
 * rank first by rank(arg, row), in rank order. */
void op_set_rank(struct op *o, op_rank_fn rank, void *arg);

/* The global window's bounds when records carry no event time: the run's
 * (processing time; a partial row ends at the watermark). Without it, a
 * key's are its earliest and latest record's times. */
void op_set_span(struct op *o, int64_t lo, int64_t hi);

/* --over: the hidden aggregate that keeps each record as read, added to
 * c's aggregates after the fingerprint is taken and before they are
 * compiled (it has no option and no column). */
void over_add_record_agg(struct config *c);

/* Creates empty state. Returns 0, or -1 with errno set. */
int op_init_state(struct op *o);

/* Adopts a checkpoint's arena (see st_adopt). Returns NULL, or what is
 * wrong with it (then it is not adopted). */
const char *op_adopt(struct op *o, struct arena *a, uint64_t used);

struct state *op_state(struct op *o);

static inline struct op_globals *
op_globals(struct op *o)
{
	return st_globals(op_state(o));
}

/* Whether records need a time: false for count windows (arrival order). */
int op_uses_time(const struct op *o);
/* Whether the watermark fires anything: false for count windows, rolling
 * mode and the global window (but with --emit-every). */
int op_uses_watermark(const struct op *o);

/* Whether its rows have window bounds (time windows, the global one). */
int op_has_bounds(const struct op *o);

/* Whether a record at time t would have windows that fit in int64 (not
 * OP_RANGE): what the driver asks of a record it does not hand over. */
int op_time_fits(const struct op *o, int64_t t);

/* Steps 1-3 for one record. Returns OP_*. */
int op_record(struct op *o, const struct op_rec *r);

/* Key-group workers (workers.h): whether steps 1-2 need no keyed state
 * (every window kind but sessions, whose lateness depends on the session
 * a record joins); then op_classify() is what op_record() would return
 * for a record at time t, counted as it counts it, without state, and for
 * OP_ADDED *seq is its arrival number. For sessions it returns OP_RANGE
 * for a time whose session passes the range of times, else OP_ADDED:
 * the worker judges, and *seq counts late records too, which keeps the
 * order of arrival that is all first and last compare. A worker's
 * operator is told that number before op_record() (op_set_arrival). */
int op_judges_alone(const struct op *o);
int op_classify(struct op *o, int64_t t, uint64_t *seq);
void op_set_arrival(struct op *o, uint64_t seq);

/* Step 4: moves the watermark to w (> the current one) and fires every
 * window it passes. */
void op_advance(struct op *o, int64_t w);

/* The earliest time at which a timer is due (a window end, or a purge),
 * or T_NONE: when the watermark reaching it would do something. */
int64_t op_next_timer(struct op *o);

/* A signal stopped a batch run: the windows due are collected no
 * further, so that an advance past more windows than could ever be
 * printed (--slide 100000h,1ms, --fill over years) ends at its next cut
 * of FIRE_CAP windows a key. */
void op_halt(struct op *o);

/* End of input: with flush, time windows all fire (the watermark becomes
 * +inf; with --fill, empty windows up to the last one that holds the
 * largest time seen), count windows fire what they hold, and the global
 * window fires. */
void op_end(struct op *o, int flush);

#endif
