/* assign: window assigners, in the shape of Flink's WindowAssigner and
 * MergingWindowAssigner. An assigner says which windows a time (or, for
 * count windows, an arrival number) belongs to, where a window starts
 * given its end, which ends follow an end, and the last window end a
 * pane belongs to; the operator does the rest the same way for all.
 *
 * Tumbling and sliding windows lie on a grid: they start at offset +
 * k*step and last size (a tumbling window is a slide with step == size).
 * Records are kept in slices ("panes") of gcd(size, step) on the same
 * grid: every window is a whole number of panes, so a record updates one
 * pane and a window is the merge of its panes when it fires. Sessions
 * merge: a record at t makes [t, t + gap), and its pane is the session.
 * Count windows are a grid over a key's arrival numbers. Rolling mode is
 * one pane per key that never fires by time; the global window (Flink's
 * GlobalWindows) one per key that fires at the end of input. All division
 * floors, and intermediate values that could overflow are computed in 128
 * bits.
 *
 * Calendar windows (man page: CALENDAR TIME) follow the wall clock of
 * --tz (calendar.h): a slide of m steps has the step as its pane, and its
 * windows start at every step; a tumbling window is a slide of one step.
 * In UTC, days and weeks are a grid like any fixed span. Cumulating
 * windows (--cumulate) have panes of STEP from the start S of each window
 * [S, S + SIZE) of the size, and a window [S, e) is the panes from S up
 * to e. These cache the last window's bounds, so that the tz code runs
 * only when a time leaves them: an assigner is for one thread. */
#ifndef FWIN_ASSIGN_H
#define FWIN_ASSIGN_H

#include <stdint.h>

#include "pipeline/config.h"

/* What assign() found for a time. */
struct span {
	int64_t pane;		/* the start of the pane holding it */
	int64_t pane_end;	/* and its end */
	int64_t first_end;	/* the ends of the first and last windows */
	int64_t last_end;	/* holding it (a session: its end) */
};

enum { AS_OK = 0, AS_GAP = -1, AS_RANGE = -2 };

/* How the operator keeps an assigner's windows. */
enum as_kind {
	AS_PANES,	/* windows of panes on a grid (tumble, slide) */
	AS_MERGING,	/* a pane per window; windows merge (sessions) */
	AS_ARRIVAL,	/* panes over a key's arrival numbers (count) */
	AS_ROLLING,	/* one running pane per key, a row per record */
	AS_GLOBAL,	/* one pane per key, fired at the end of input */
	AS_OVER		/* a pane per record, printed with its frame (over.c) */
};

struct assigner;

struct assigner_ops {
	enum as_kind kind;
	/* The pane and windows of t: AS_OK; AS_GAP when t is in no window
	 * (a slide whose step passes its size); AS_RANGE when its windows
	 * do not fit in int64 (an end of INT64_MAX would never fire). */
	int (*assign)(const struct assigner *, int64_t t, struct span *);
	/* The start of the window that ends at end. */
	int64_t (*start)(const struct assigner *, int64_t end);
	/* The smallest window end > after (INT64_MAX when none fits). */
	int64_t (*end_after)(const struct assigner *, int64_t after);
	/* The end of the last window holding the pane that starts at p. */
	int64_t (*last_end)(const struct assigner *, int64_t p);
	/* Windows whose length varies: the cut of the window ending at end
	 * for kept folds (slide_fold_at); NULL: the grid of the size. */
	int64_t (*cut)(const struct assigner *, int64_t end);
};

/* The last windows a calendar assigner computed (all zero: none). */
struct as_cache {
	struct cal_cache step;	/* the step (a slide's pane) */
	struct cal_cache win;	/* the window of the size (cumulate, cuts) */
	struct cal_cache cum;	/* cumulate: the step in it */
};

struct assigner {
	const struct assigner_ops *ops;
	int64_t size, step, offset;
	int64_t pane;		/* gcd(size, step); 1 when panes vary */
	/* calendar windows and cumulate */
	const struct cal_zone *zone;
	struct cal_unit usize, ustep;
	int64_t m;		/* a calendar slide's steps per window */
	int64_t cal_panes;	/* most panes a window spans, about */
	struct as_cache *cache;	/* the assigner's own: changes in const use */
	struct as_cache cache_;
};

/* The assigner of c's window option (rolling mode without one). */
void assigner_init(struct assigner *a, const struct config *c);

/* How many panes one window spans. */
static inline int64_t
assigner_panes(const struct assigner *a)
{
	return a->cal_panes > 0 ? a->cal_panes : a->size / a->pane;
}

/* The start of t's pane into *start, from *last when t is in it, else
 * assigned (and kept in *last; all zero is none): for tumbling windows,
 * the start of t's window. Returns 0 when its windows do not fit in
 * int64 (or it falls in a gap). */
static inline int
assign_pane(const struct assigner *a, struct span *last, int64_t t,
    int64_t *start)
{
	struct span sp;

	if (t < last->pane || t >= last->pane_end) {
		if (a->ops->assign(a, t, &sp) != AS_OK)
			return 0;
		*last = sp;
	}
	*start = last->pane;
	return 1;
}

/* Whether a's windows lie on a grid of fixed lengths (a tumble or a
 * slide not in calendar units), whose panes are pane long. */
int assign_fixed_grid(const struct assigner *a);

/* The greatest common divisor of a, b > 0. */
int64_t assign_gcd(int64_t a, int64_t b);

#endif
