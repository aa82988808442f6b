/* hashagg: --mode batch without a sort, where order cannot show (the man
 * page's BATCH AND STREAM MODES). A tumbling window's row is the fold of
 * its records; when every aggregate's result is the same whatever the
 * order its records came in (agg.h, AGF_ANYORDER), the rows the sorted
 * replay would fire are those of a table of (window, key) groups that
 * each record is added to as it is read, fired at the end in (end, start,
 * key) order: what DuckDB's hash aggregate does, and it costs no sort,
 * no spill and no second pass over the records.
 *
 * The planner (plan.c) gives it a file that can be read again: when
 * a record's values would make order show (a decimal sum's value that is
 * not plain decimal: its sum is floating) or the table grows past its
 * budget, the table is dropped and the records are read again into the
 * sort (batch.h), which gives the same rows at any size; with flat
 * accumulators, past its budget it spills sorted runs instead
 * (hashagg_spill(), hashspill.c). */
#ifndef FWIN_HASHAGG_H
#define FWIN_HASHAGG_H

#include <stddef.h>
#include <stdint.h>

#include "window/agg.h"
#include "pipeline/config.h"
#include "window/operator.h"

struct hashagg;

/* Whether pipeline c with aggregates g can be aggregated as read: a
 * tumbling window, aggregates that are AGF_ANYORDER, and no option whose
 * rows depend on more than one window's groups (--fill, --top,
 * --emit-every). */
int hashagg_fits(const struct config *c, const struct aggs *g);

/* Whether it can be aggregated as read as a stream (hashagg_stream()):
 * a tumbling window with any aggregate that reads its window's values
 * alone (agg.h, aggs_outside_window), since a stream adds them in input
 * order, as the operator does; also --cumulate, when every aggregate's
 * fold gives the same bytes however it is grouped while it is exact
 * (aggs_regroupable_exact): each window is then the fold of the panes up
 * to its end; and --slide, when its STEP divides its SIZE on a grid of
 * fixed lengths (hashagg_slides) and every aggregate can take a part of
 * its values back out (aggs_unmergeable): each window is then its keys'
 * running folds, the pane that ends joining them and the pane that
 * leaves taken out. */
int hashagg_fits_stream(const struct config *c, const struct aggs *g);
int hashagg_slides(const struct config *c);

/* A table for pipeline c (hashagg_fits) adding to g's accumulators,
 * holding at most budget bytes. Never NULL. */
struct hashagg *hashagg_new(const struct config *c, struct aggs *g,
    uint64_t budget);
void hashagg_free(struct hashagg *h);

/* What hashagg_add did with a record. */
enum {
	HA_ADDED,
	HA_RANGE,	/* its window does not fit in int64: bad */
	HA_ORDER,	/* its values would make the order show: not added */
	HA_FULL,	/* the table is at its budget: not added */
	HA_LATE,	/* hashagg_stream(): its window has ended */
	HA_DUE,		/* --slide: some of its windows have ended, and
			 * fire first (hashagg_fire_due() with force), then
			 * it is added to the rest: not added */
	HA_GAVEUP	/* hashagg_gave_up(): not added */
};

/* Adds record r (its time, key bytes and their hash, values) to its
 * window's group. win: its window's start, when the reading thread
 * found it (flow/source.h), or NULL. */
int hashagg_add(struct hashagg *h, const struct op_rec *r,
    const int64_t *win);

/* A stream's record that is not added (--where rejected it) moves the
 * watermark all the same, to time t less the lateness; so does the
 * driver, to w (--idle-timeout's clock). */
void hashagg_advance(struct hashagg *h, int64_t w, int64_t t);

/* --mode stream: records come in input order (so any values may be
 * added: no HA_ORDER), the watermark is the largest time added less
 * lateness, and a record whose window ends at or before the watermark
 * before it is late (HA_LATE: not added). Its windows fire as Flink's
 * WindowOperator fires them, with no allowed lateness: each once, when
 * the watermark passes its end; hashagg_fire_due() fires them early
 * enough that the table holds about what the operator would. */
void hashagg_stream(struct hashagg *h, int64_t lateness);
int64_t hashagg_watermark(const struct hashagg *h);

/* After hashagg_stream(): the windows slide (hashagg_fits_stream). */
void hashagg_slide(struct hashagg *h);
int64_t hashagg_lateness(const struct hashagg *h);

/* --cumulate: a window's fold was not exact (a value not in plain
 * decimal, or a sum of more than 38 digits), so its row was not fired,
 * nor any after it: only the operator, folding such sums its own way,
 * gives their bytes. */
int hashagg_gave_up(const struct hashagg *h);

/* hashagg_stream() on a later part of the input (split.h): keeps for
 * each window how many records it holds, and the late ones, so that
 * hashagg_drop_ended() can say which of them the whole input's watermark
 * makes late. */
void hashagg_ledger(struct hashagg *h);

/* hashagg_ledger(): the watermark before this part was w. Drops the
 * groups of windows that end at or before w; returns the records that
 * were late in the whole input (theirs, and those found late here), and
 * the most any was behind its watermark in *late_by (INT64_MIN: none). */
uint64_t hashagg_drop_ended(struct hashagg *h, int64_t w, int64_t *late_by);

/* hashagg_stream(): fires the groups of the windows that start at or
 * after from and end at or before the watermark, in (end, start, key)
 * order, and frees them: when the table has doubled since the last time,
 * or whenever any are with force (the table is full, or the run ends
 * early and rows up to the watermark are due). Returns the rows fired. */
uint64_t hashagg_fire_due(struct hashagg *h, int force, int64_t from,
    op_emit_fn emit, void *arg);
/* The watermark at which hashagg_fire_due() next has a window to fire
 * (INT64_MAX: none held). */
int64_t hashagg_next_due(const struct hashagg *h);

/* After a part's last record (split.h), all its windows that start at
 * or after from fire as they would at the end of input (every window
 * fires there: stream mode aggregates as read only when they do), in
 * (end, start, key) order, and are freed. Returns the rows fired. */
uint64_t hashagg_fire_rest(struct hashagg *h, int64_t from, op_emit_fn emit,
    void *arg);

/* The start of the earliest window hashagg_fire_due() or
 * hashagg_fire_rest() fired, or INT64_MAX. */
int64_t hashagg_fired_from(const struct hashagg *h);

/* From now on the table's groups add and fold with g: aggregates of the
 * same pipeline as those it was made with (another thread's). */
void hashagg_set_aggs(struct hashagg *h, struct aggs *g);

/* Sets the most bytes the table may hold from now on. */
void hashagg_budget(struct hashagg *h, uint64_t budget);

/* From now on, where every aggregate reads only the values' numbers
 * (aggs_numbers_only()), a record waits in a look-ahead of a few while
 * its group's slot, then the group, then the blocks its accumulators
 * name are fetched, whenever the table is too large for the cache to
 * hold. hashagg_add() still says at once what becomes of the record;
 * HA_FULL then as soon as the table is past its budget, new group or
 * not. */
void hashagg_look_ahead(struct hashagg *h);

/* After the last record: sorts the groups to fire (what hashagg_fire()
 * does first if it was not done), so that a thread of its own can. */
void hashagg_sort(struct hashagg *h);

/* Fires every group as its window's row, to emit(arg, row), in (end,
 * start, key) order; once, after the last record. other: NULL, or a
 * table of another part of the same input (split.h), whose groups are
 * folded with h's of the same window and key: only when
 * aggs_any_arena(). Returns the rows fired. */
uint64_t hashagg_fire(struct hashagg *h, struct hashagg *other,
    op_emit_fn emit, void *arg);
/* The same in two or more steps: the next rows, up to those of windows
 * that start at or after upto (the rest: hashagg_fire()). */
uint64_t hashagg_fire_before(struct hashagg *h, struct hashagg *other,
    int64_t upto, op_emit_fn emit, void *arg);

/* hashagg_fire_before() with two threads, where other is a later part
 * of the input and the rows are many: the first part of the rows (in
 * order) to emit(arg, row), the rest, folded with g2 (aggregates of the
 * same pipeline), to emit2(arg2, row) on a thread of its own, both done
 * when it returns; *cut says which rows were the second part's
 * (fired2 of them: 0 when there was none) so that
 * hashagg_fire_cut() can fire them again (emit2's output was lost). */
struct hashagg_cut {
	size_t i, n, j, m;
	uint64_t fired2;
};
uint64_t hashagg_fire_split(struct hashagg *h, struct hashagg *other,
    int64_t upto, op_emit_fn emit, void *arg, struct aggs *g2,
    op_emit_fn emit2, void *arg2, struct hashagg_cut *cut);
uint64_t hashagg_fire_cut(struct hashagg *h, struct hashagg *other,
    const struct hashagg_cut *cut, op_emit_fn emit, void *arg);

/* --mode batch past --max-memory: from now on, a table whose
 * accumulators are all aggs_flat() writes its groups, sorted, to a run
 * in a scratch file when it reaches its budget, and goes on empty,
 * instead of HA_FULL (which it still answers when a run cannot be
 * written); hashagg_fire() merges the runs. Others are left as they are. */
void hashagg_spill(struct hashagg *h);

/* Adds to *runs and *bytes the runs h spilled and their bytes. */
void hashagg_spilled(const struct hashagg *h, uint64_t *runs,
    uint64_t *bytes);

/* Whether hashagg_fire() could not read a run back (said): the rows are
 * incomplete. */
int hashagg_failed(const struct hashagg *h);

/* The largest time added (INT64_MIN: none). */
int64_t hashagg_max_time(const struct hashagg *h);

/* The groups held, and the peak bytes of the table and its groups. */
void hashagg_size(const struct hashagg *h, uint64_t *groups, uint64_t *peak);
/* The windows it holds (--cumulate: panes). */
size_t hashagg_windows(const struct hashagg *h);

#endif
