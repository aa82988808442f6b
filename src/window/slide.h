/* slide: sliding windows folded in a constant number of merges.
 *
 * Folding a window's panes one by one costs SIZE/pane merges per window,
 * and each pane is in SIZE/STEP windows: at --slide 10m,1s, 600 merges
 * per row. Instead the time line is cut at grid points offset + k*SIZE.
 * A window [s, e) holds exactly one, g, the largest <= e, and its result
 * is suffix(first pane >= s) + prefix(last pane < e): suffix(x) folds the
 * key's panes from x up to g, prefix(y) those from g up to y. Each pane
 * keeps the one it needs in a second accumulator block behind its own
 * (the two stacks of a FIFO aggregation queue). Because the cut is fixed,
 * every merge is made in the same order whenever it is made, so results
 * (float sums included) do not depend on when the folds were computed:
 * a restored run writes the bytes of a run that never stopped.
 *
 * Per key (struct slide_kept, in the operator's block of the key):
 * suffixes hold for panes in [lo, pivot), prefixes for panes in
 * [pivot, hi), pivot being the grid point of the last window folded; all
 * three equal (zero in a new key) hold none. A window
 * reaching outside that extends it, so each pane is merged about twice
 * per SIZE of time, not once per window; a record added to a pane
 * shrinks it (slide_touch). Count windows use the same code with pane
 * indexes for times. */
#ifndef FWIN_SLIDE_H
#define FWIN_SLIDE_H

#include "window/agg.h"
#include "window/state.h"

/* What of a key's panes holds a kept fold. */
struct slide_kept {
	int64_t lo, pivot, hi;
};

struct slide {
	struct aggs *g;		/* NULL: windows are folded pane by pane */
	int64_t size, offset;	/* the window and its grid, in pane starts */
	size_t accsize;		/* where the kept fold lies behind a pane's
				 * accumulators */
	int regroup;		/* aggs_regroupable(g) */
	int regroup_exact;	/* aggs_regroupable_exact(g) */
};

/* Whether windows of panes-per-window panes are worth folding this way
 * with aggregates g (a fold of one or two panes costs no more). */
int slide_worth(const struct aggs *g, int64_t panes_per_window);

void slide_init(struct slide *sl, struct aggs *g, int64_t size,
    int64_t offset);

/* Folds key k's panes starting in [start, start + size) into g's fold,
 * ready for aggs_emit; first is the first of them (0: none), kk the key's
 * kept-fold bounds. */
void slide_fold(const struct slide *sl, struct state *s, aoff k,
    struct slide_kept *kk, int64_t start, aoff first);

/* slide_fold of the panes first to last, which start in [start, start +
 * size): where the key's later panes are not in order of their starts
 * (--over-rows: those still waiting for the watermark, by time, after
 * those added, by place). */
void slide_fold_last(const struct slide *sl, struct state *s,
    struct slide_kept *kk, int64_t start, aoff first, aoff last);

/* slide_fold of the window [start, end) with its cut g given: windows
 * whose length varies (calendar windows, cumulating windows) cut at
 * points of their own, g the largest <= end, start <= g <= end, and each
 * window holding one (a cumulating window [S, e) holds S, and the whole
 * one its end). */
void slide_fold_at(const struct slide *sl, struct state *s, aoff k,
    struct slide_kept *kk, int64_t start, int64_t end, int64_t g,
    aoff first);

/* A record was added to the pane starting at start: the kept folds that
 * include it no longer hold. */
static inline void
slide_touch(struct slide_kept *kk, int64_t start)
{
	if (start >= kk->hi)
		return;
	if (start >= kk->pivot)
		kk->hi = start;
	else if (start >= kk->lo)
		kk->lo = start + 1;
}

/* Forgets every kept fold (of a restored key: they are not checked). */
static inline void
slide_forget(struct slide_kept *kk)
{
	kk->lo = kk->pivot = kk->hi = 0;
}

#endif
