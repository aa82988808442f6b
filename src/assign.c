/* assign: the window assigners; see assign.h. Intermediate values are
 * computed in 128 bits so that times near the int64 limits are judged,
 * not wrapped. */
#include "assign.h"
#include "util.h"

int64_t
assign_gcd(int64_t a, int64_t b)
{
	while (b != 0) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* floor(a / b) for b > 0 */
static __int128
floor_div(__int128 a, __int128 b)
{
	__int128 q = a / b;

	if (a % b != 0 && a < 0)
		q--;
	return q;
}

static int
fits(__int128 v)
{
	return v >= INT64_MIN && v <= INT64_MAX;
}

/* (a - b) mod m, in [0, m), when a - b fits in int64 (else -1). */
static int64_t
mod_diff(int64_t a, int64_t b, int64_t m)
{
	int64_t d, r;

	if (__builtin_sub_overflow(a, b, &d))
		return -1;
	r = d % m;
	return r < 0 ? r + m : r;
}

static int
grid_windows(const struct assigner *w, int64_t t, int64_t *first_end,
    int64_t *last_end)
{
	__int128 last_start, first_start, k;
	int64_t r, ls, fs;

	/* The common case in 64 bits: r is how far t is past the latest
	 * start; the earliest window is (size - 1 - r) / step steps back. */
	if ((r = mod_diff(t, w->offset, w->step)) >= 0) {
		if (r >= w->size)
			return -1;
		if (!__builtin_sub_overflow(t, r, &ls) &&
		    !__builtin_sub_overflow(ls, w->step == w->size ? 0 :
		    (w->size - 1 - r) / w->step * w->step, &fs) &&
		    !__builtin_add_overflow(fs, w->size, first_end) &&
		    !__builtin_add_overflow(ls, w->size, last_end) &&
		    *last_end != INT64_MAX)
			return 0;
	}

	/* the latest start <= t */
	last_start = floor_div((__int128)t - w->offset, w->step) * w->step +
	    w->offset;
	if (last_start + w->size <= t)
		return -1;		/* in a gap */
	/* the earliest start > t - size */
	k = floor_div(last_start - ((__int128)t - w->size) - 1, w->step);
	first_start = last_start - k * w->step;
	/* an end of INT64_MAX would be T_NONE, a window that never fires */
	if (!fits(first_start) || !fits(last_start + w->size) ||
	    last_start + w->size == INT64_MAX)
		return -2;
	*first_end = (int64_t)(first_start + w->size);
	*last_end = (int64_t)(last_start + w->size);
	return 0;
}

static int64_t
grid_pane(const struct assigner *w, int64_t t)
{
	int64_t r = mod_diff(t, w->offset, w->pane), ps;

	if (r >= 0 && !__builtin_sub_overflow(t, r, &ps))
		return ps;
	return (int64_t)(floor_div((__int128)t - w->offset, w->pane) * w->pane +
	    w->offset);
}

static int64_t
grid_end_after(const struct assigner *w, int64_t after)
{
	/* ends lie on the grid offset + size + k*step */
	int64_t b, r, e64;

	if (!__builtin_add_overflow(w->offset, w->size, &b) &&
	    (r = mod_diff(after, b, w->step)) >= 0 &&
	    !__builtin_sub_overflow(after, r, &e64) &&
	    !__builtin_add_overflow(e64, w->step, &e64))
		return e64;
	__int128 base = (__int128)w->offset + w->size;
	__int128 e = (floor_div((__int128)after - base, w->step) + 1) * w->step +
	    base;

	return fits(e) ? (int64_t)e : INT64_MAX;
}

static int
grid_assign(const struct assigner *a, int64_t t, struct span *sp)
{
	int rc = grid_windows(a, t, &sp->first_end, &sp->last_end);

	if (rc != AS_OK)
		return rc;
	sp->pane = grid_pane(a, t);
	sp->pane_end = sat_add(sp->pane, a->pane);
	return AS_OK;
}

static int64_t
grid_start(const struct assigner *a, int64_t end)
{
	return end - a->size;
}

static int64_t
grid_last_end(const struct assigner *a, int64_t p)
{
	int64_t fe, le;

	/* no pane starts in a gap, but a damaged checkpoint's may: it is
	 * in no window, and may go at once */
	if (grid_windows(a, p, &fe, &le) != AS_OK)
		return p;
	return le;
}

/* A session of one record: [t, t + gap); merging is the operator's. */
static int
session_assign(const struct assigner *a, int64_t t, struct span *sp)
{
	int64_t end;

	if (__builtin_add_overflow(t, a->size, &end) || end == INT64_MAX)
		return AS_RANGE;
	sp->pane = t;
	sp->pane_end = sp->first_end = sp->last_end = end;
	return AS_OK;
}

/* Count windows over arrival numbers i = 0, 1, ...: the window ending at
 * n (a multiple of the step) holds [n - size, n). */
static int
count_assign(const struct assigner *a, int64_t i, struct span *sp)
{
	sp->pane = i / a->pane * a->pane;
	sp->pane_end = sp->pane + a->pane;
	sp->first_end = (i / a->step + 1) * a->step;
	sp->last_end = (i + a->size) / a->step * a->step;
	return AS_OK;
}

static int64_t
count_end_after(const struct assigner *a, int64_t after)
{
	return (after / a->step + 1) * a->step;
}

static int64_t
count_last_end(const struct assigner *a, int64_t p)
{
	return (p + a->pane - 1 + a->size) / a->step * a->step;
}

static int
rolling_assign(const struct assigner *a, int64_t t, struct span *sp)
{
	(void)a;
	(void)t;
	sp->pane = 0;
	sp->pane_end = sp->first_end = sp->last_end = INT64_MAX;
	return AS_OK;
}

static int64_t
never(const struct assigner *a, int64_t t)
{
	(void)a;
	(void)t;
	return INT64_MAX;
}

static const struct assigner_ops grid_ops = {
	AS_PANES, grid_assign, grid_start, grid_end_after, grid_last_end
};
static const struct assigner_ops session_ops = {
	AS_MERGING, session_assign, grid_start, never, never
};
static const struct assigner_ops count_ops = {
	AS_ARRIVAL, count_assign, grid_start, count_end_after, count_last_end
};
static const struct assigner_ops rolling_ops = {
	AS_ROLLING, rolling_assign, grid_start, never, never
};
static const struct assigner_ops global_ops = {
	AS_GLOBAL, rolling_assign, grid_start, never, never
};

void
assigner_init(struct assigner *a, const struct config *c)
{
	static const struct assigner_ops *const by_kind[] = {
		[WK_NONE] = &rolling_ops, [WK_TUMBLE] = &grid_ops,
		[WK_SLIDE] = &grid_ops, [WK_SESSION] = &session_ops,
		[WK_COUNT] = &count_ops, [WK_GLOBAL] = &global_ops,
	};

	a->ops = by_kind[c->wkind];
	a->offset = 0;
	a->size = a->step = a->pane = 1;
	switch (c->wkind) {
	case WK_TUMBLE:
	case WK_SLIDE:
		a->size = c->size;
		a->step = c->step;
		a->offset = c->offset;
		break;
	case WK_SESSION:
		a->size = a->step = c->size;
		break;
	case WK_COUNT:
		a->size = (int64_t)c->count_n;
		a->step = (int64_t)c->count_slide;
		break;
	case WK_NONE:
	case WK_GLOBAL:
		break;
	}
	a->pane = assign_gcd(a->size, a->step);
}
