/* slide: sliding windows in a constant number of merges; see slide.h. */
#include "window/slide.h"

int
slide_worth(const struct aggs *g, int64_t panes_per_window)
{
	return panes_per_window > 2 && aggs_keepable(g);
}

void
slide_init(struct slide *sl, struct aggs *g, int64_t size, int64_t offset)
{
	sl->g = g;
	sl->size = size;
	sl->offset = offset;
	sl->accsize = aggs_accsize(g);
	sl->regroup = aggs_regroupable(g);
	sl->regroup_exact = aggs_regroupable_exact(g);
}

/* The largest grid point <= e. */
static int64_t
grid_point(const struct slide *sl, int64_t e)
{
	__int128 r = ((__int128)e - sl->offset) % sl->size;

	if (r < 0)
		r += sl->size;
	return (int64_t)(e - r);
}

static int64_t
start_of(const struct state *s, aoff p)
{
	return st_panep(s, p)->p_start;
}

static aoff
kept(const struct slide *sl, aoff p)
{
	return st_acc(p) + sl->accsize;
}

/* Keeps in p the fold of the blocks a and b (0: none), in that order.
 * Returns -1 when it cannot be kept (a sum past its fixed width). */
static int
keep(const struct slide *sl, struct state *s, aoff p, aoff a, aoff b)
{
	aggs_fold_begin(sl->g);
	if (a != 0)
		aggs_fold(sl->g, &s->a, a);
	if (b != 0)
		aggs_fold(sl->g, &s->a, b);
	return aggs_fold_keep(sl->g, &s->a, kept(sl, p));
}

/* The window's panes from first to last folded one by one, nothing kept:
 * where a fold could not be kept. */
static void
fold_panes(const struct slide *sl, struct state *s, struct slide_kept *kk,
    int64_t g, aoff first, aoff last)
{
	aoff p;

	kk->pivot = kk->lo = kk->hi = g;
	aggs_fold_begin(sl->g);
	for (p = first;; p = st_panep(s, p)->p_next) {
		aggs_fold(sl->g, &s->a, st_acc(p));
		if (p == last)
			break;
	}
}

/* slide_fold_at() of the panes first to last. */
static void
fold_span(const struct slide *sl, struct state *s, struct slide_kept *kk,
    int64_t start, int64_t end, int64_t g, aoff first, aoff last)
{
	aoff p, q;

	aggs_fold_begin(sl->g);
	if (first == 0 || last == 0 || start_of(s, first) >= end)
		return;		/* no pane: nothing to fold */

	if (kk->pivot != g)	/* nothing kept is of use: start at g */
		kk->pivot = kk->lo = kk->hi = g;
	/* suffixes from the last pane < k_lo down to the first, walking
	 * back from the window's end: the panes near it are warm */
	if (start_of(s, first) < kk->lo) {
		for (q = last; start_of(s, q) >= kk->lo;
		    q = st_panep(s, q)->p_prev)
			;
		for (;; q = st_panep(s, q)->p_prev) {
			p = st_panep(s, q)->p_next;
			if (keep(sl, s, q, st_acc(q),
			    p != 0 && start_of(s, p) < g ? kept(sl, p) : 0)) {
				fold_panes(sl, s, kk, g, first, last);
				return;
			}
			if (q == first)
				break;
		}
	}
	if (start < kk->lo)
		kk->lo = start;
	/* prefixes from the first pane >= k_hi up to the last */
	if (start_of(s, last) >= kk->hi) {
		for (q = last; (p = st_panep(s, q)->p_prev) != 0 &&
		    start_of(s, p) >= kk->hi; q = p)
			;
		for (;; q = st_panep(s, q)->p_next) {
			p = st_panep(s, q)->p_prev;
			if (keep(sl, s, q,
			    p != 0 && start_of(s, p) >= g ? kept(sl, p) : 0,
			    st_acc(q))) {
				fold_panes(sl, s, kk, g, first, last);
				return;
			}
			if (q == last)
				break;
		}
	}
	if (end > kk->hi)
		kk->hi = end;

	aggs_fold_begin(sl->g);
	if (start_of(s, first) < g)
		aggs_fold(sl->g, &s->a, kept(sl, first));
	if (start_of(s, last) >= g)
		aggs_fold(sl->g, &s->a, kept(sl, last));
}

void
slide_fold(const struct slide *sl, struct state *s, aoff k,
    struct slide_kept *kk, int64_t start, aoff first)
{
	int64_t end = start + sl->size;

	slide_fold_at(sl, s, k, kk, start, end, grid_point(sl, end), first);
}

void
slide_fold_last(const struct slide *sl, struct state *s,
    struct slide_kept *kk, int64_t start, aoff first, aoff last)
{
	int64_t end = start + sl->size;

	fold_span(sl, s, kk, start, end, grid_point(sl, end), first, last);
}

void
slide_fold_at(const struct slide *sl, struct state *s, aoff k,
    struct slide_kept *kk, int64_t start, int64_t end, int64_t g,
    aoff first)
{
	aoff last;

	/* the window's last pane */
	for (last = st_keyp(s, k)->k_tail; last != 0 && start_of(s, last) >= end;
	    last = st_panep(s, last)->p_prev)
		;
	fold_span(sl, s, kk, start, end, g, first, last);
}
