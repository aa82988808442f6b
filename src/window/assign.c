/* assign: the window assigners; see assign.h. Intermediate values are
 * computed in 128 bits so that times near the int64 limits are judged,
 * not wrapped. */
#include <string.h>

#include "window/assign.h"
#include "base/util.h"

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

/* --- calendar windows: a slide of m steps, one starting at each --- */

/* The step that holds t, from the cache when t is in it. */
static int
cal_step(const struct assigner *a, int64_t t, struct cal_cache *c)
{
	struct cal_cache *k = &a->cache->step;

	if (!cal_cached(k, t)) {
		if (cal_floor(a->zone, a->ustep, a->offset, t, c) != 0)
			return AS_RANGE;
		*k = *c;
	} else
		*c = *k;
	return AS_OK;
}

/* The windows of t start at the m steps up to t's: the first ends with
 * t's step, the last m steps after t's step starts. */
static int
cal_assign(const struct assigner *a, int64_t t, struct span *sp)
{
	struct cal_cache c;
	int64_t last;

	if (cal_step(a, t, &c) != AS_OK)
		return AS_RANGE;
	if (a->m == 1)
		last = c.hi;
	else if (cal_add(a->zone, a->ustep, a->offset, c.i, a->m, &last) != 0 ||
	    last == INT64_MAX)
		return AS_RANGE;
	sp->pane = c.lo;
	sp->pane_end = sp->first_end = c.hi;
	sp->last_end = last;
	return AS_OK;
}

/* A window's end is the end of its last step: m steps back from that. */
static int64_t
cal_start(const struct assigner *a, int64_t end)
{
	struct cal_cache c;
	int64_t start;

	if (cal_step(a, end - 1, &c) != AS_OK)
		return INT64_MIN;
	if (a->m == 1)
		return c.lo;
	if (cal_add(a->zone, a->ustep, a->offset, c.i, 1 - a->m, &start) != 0)
		return INT64_MIN;
	return start;
}

/* Ends are the ends of steps. */
static int64_t
cal_end_after(const struct assigner *a, int64_t after)
{
	struct cal_cache c;

	return cal_step(a, after, &c) == AS_OK ? c.hi : INT64_MAX;
}

static int64_t
cal_last_end(const struct assigner *a, int64_t p)
{
	struct span sp;

	return cal_assign(a, p, &sp) == AS_OK ? sp.last_end : INT64_MAX;
}

/* --- cumulating windows --- */

/* Caches the window of the size that holds t: AS_OK or AS_RANGE. */
static int
cum_win(const struct assigner *a, int64_t t)
{
	struct as_cache *k = a->cache;

	if (cal_cached(&k->win, t))
		return AS_OK;
	if (cal_floor(a->zone, a->usize, a->offset, t, &k->win) != 0) {
		memset(k, 0, sizeof(*k));
		return AS_RANGE;
	}
	return AS_OK;
}

/* The window of the size that holds t, and the step in it. */
static int
cum_step(const struct assigner *a, int64_t t, struct cal_cache *c)
{
	struct as_cache *k = a->cache;
	int64_t d, lo;

	/* a fixed step: arithmetic in the window, no tz code (the steps
	 * cal_cumulate gives, the last one cut at the window's end); k->cum
	 * is for calendar steps only */
	if (a->ustep.kind == CAL_FIXED) {
		if (cum_win(a, t) != AS_OK)
			return AS_RANGE;
		d = t - k->win.lo;	/* in [0, window length) */
		lo = k->win.lo + d / a->ustep.n * a->ustep.n;
		c->lo = lo;
		c->hi = k->win.hi - lo > a->ustep.n ? lo + a->ustep.n :
		    k->win.hi;
		c->i = d / a->ustep.n + 1;
		return AS_OK;
	}
	if (cal_cached(&k->cum, t)) {
		*c = k->cum;
		return AS_OK;
	}
	if (cum_win(a, t) != AS_OK)
		return AS_RANGE;
	if (cal_cumulate(a->zone, a->ustep, a->offset, &k->win, t, c) != 0) {
		memset(&k->cum, 0, sizeof(k->cum));
		return AS_RANGE;
	}
	k->cum = *c;
	return AS_OK;
}

/* t is in the windows of its step's end and every one after it, up to
 * the end of the window of the size. */
static int
cum_assign(const struct assigner *a, int64_t t, struct span *sp)
{
	struct cal_cache c;

	if (cum_step(a, t, &c) != AS_OK)
		return AS_RANGE;
	sp->pane = c.lo;
	sp->pane_end = sp->first_end = c.hi;
	sp->last_end = a->cache->win.hi;
	return AS_OK;
}

/* Every window starts where the window of the size does. A step that a
 * skipped day left empty ends no window: only cal_cumulate knows those. */
static int64_t
cum_start(const struct assigner *a, int64_t end)
{
	struct cal_cache c;

	if (a->ustep.kind == CAL_FIXED)
		return cum_win(a, end - 1) == AS_OK ? a->cache->win.lo :
		    INT64_MIN;
	return cum_step(a, end - 1, &c) == AS_OK ? a->cache->win.lo : INT64_MIN;
}

static int64_t
cum_end_after(const struct assigner *a, int64_t after)
{
	struct cal_cache c;

	return cum_step(a, after, &c) == AS_OK ? c.hi : INT64_MAX;
}

static int64_t
cum_last_end(const struct assigner *a, int64_t p)
{
	struct cal_cache c;

	if (a->ustep.kind == CAL_FIXED)
		return cum_win(a, p) == AS_OK ? a->cache->win.hi : INT64_MAX;
	return cum_step(a, p, &c) == AS_OK ? a->cache->win.hi : INT64_MAX;
}

/* Cuts for kept folds (slide.h): a calendar slide's window [s, e) is one
 * window of the size long, so it holds one start of the size's windows,
 * the largest <= e; a cumulating window [S, e) holds S, or is the whole
 * window [S, E) and holds E. */
static int64_t
cal_cut(const struct assigner *a, int64_t end)
{
	struct cal_cache *k = &a->cache->win;	/* of the size, here */

	if (!cal_cached(k, end) &&
	    cal_floor(a->zone, a->usize, a->offset, end, k) != 0) {
		memset(k, 0, sizeof(*k));
		return INT64_MIN;
	}
	return k->lo;
}

static int64_t
cum_cut(const struct assigner *a, int64_t end)
{
	struct cal_cache c;

	if (a->ustep.kind == CAL_FIXED ? cum_win(a, end - 1) != AS_OK :
	    cum_step(a, end - 1, &c) != AS_OK)
		return INT64_MIN;
	return end == a->cache->win.hi ? end : a->cache->win.lo;
}

static const struct assigner_ops grid_ops = {
	AS_PANES, grid_assign, grid_start, grid_end_after, grid_last_end, NULL
};
static const struct assigner_ops session_ops = {
	AS_MERGING, session_assign, grid_start, never, never, NULL
};
static const struct assigner_ops count_ops = {
	AS_ARRIVAL, count_assign, grid_start, count_end_after, count_last_end,
	NULL
};
static const struct assigner_ops cal_ops = {
	AS_PANES, cal_assign, cal_start, cal_end_after, cal_last_end, cal_cut
};
static const struct assigner_ops cum_ops = {
	AS_PANES, cum_assign, cum_start, cum_end_after, cum_last_end, cum_cut
};
static const struct assigner_ops rolling_ops = {
	AS_ROLLING, rolling_assign, grid_start, never, never, NULL
};
static const struct assigner_ops global_ops = {
	AS_GLOBAL, rolling_assign, grid_start, never, never, NULL
};
static const struct assigner_ops over_ops = {
	AS_OVER, rolling_assign, grid_start, never, never, NULL
};

/* Days and weeks in UTC as a fixed span, and its grid's origin: weeks
 * count from Monday 1969-12-29, three days before the epoch. Returns
 * whether u is one. */
static int
utc_fixed(const struct config *c, const struct cal_unit *u, int64_t *ns,
    int64_t *offset)
{
	const int64_t day = 86400 * NS_PER_S;
	int64_t o;

	if (u->kind == CAL_FIXED)
		return 1;
	if (!c->zone.utc || u->kind == CAL_MONTH)
		return 0;
	*ns = u->n * (u->kind == CAL_WEEK ? 7 : 1) * day;
	/* the grid repeats every step (7 days): keep the origin in range */
	if (u->kind == CAL_WEEK) {
		if (__builtin_sub_overflow(*offset, 3 * day, &o))
			o = *offset + 4 * day;
		*offset = o;
	}
	return 1;
}

/* A unit's length: exact for fixed ones, days and weeks; 31 days a
 * month. */
static __int128
about_ns(const struct cal_unit *u)
{
	const __int128 day = 86400 * NS_PER_S;

	switch (u->kind) {
	case CAL_DAY:
		return u->n * day;
	case CAL_WEEK:
		return u->n * 7 * day;
	case CAL_MONTH:
		return u->n * 31 * day;
	default:
		return u->n;
	}
}

/* How many steps a window of the size holds: exactly, for steps of its
 * family (days, weeks; months), at most for a fixed step (its last one
 * is cut at the window's end). */
static int64_t
about_panes(const struct cal_unit *size, const struct cal_unit *step)
{
	__int128 n;

	if (size->kind == CAL_MONTH && step->kind == CAL_MONTH)
		return size->n / step->n;
	n = (about_ns(size) + about_ns(step) - 1) / about_ns(step);
	return n > INT64_MAX ? INT64_MAX : (int64_t)n;
}

/* Calendar windows of --tumble and --slide, and --cumulate. */
static void
calendar_init(struct assigner *a, const struct config *c)
{
	a->zone = &c->zone;
	a->usize = c->usize;
	a->ustep = c->ustep;
	a->cache = &a->cache_;
	memset(a->cache, 0, sizeof(*a->cache));
	a->offset = c->offset;
	a->size = a->step = a->pane = 1;
	if (c->wkind == WK_CUMULATE) {
		a->ops = &cum_ops;
		a->cal_panes = about_panes(&c->usize, &c->ustep);
		return;
	}
	a->ops = &cal_ops;
	a->m = a->cal_panes = about_panes(&c->usize, &c->ustep);
}

int
assign_fixed_grid(const struct assigner *a)
{
	return a->ops == &grid_ops;
}

void
assigner_init(struct assigner *a, const struct config *c)
{
	int64_t origin = 0;
	static const struct assigner_ops *const by_kind[] = {
		[WK_NONE] = &rolling_ops, [WK_TUMBLE] = &grid_ops,
		[WK_SLIDE] = &grid_ops, [WK_SESSION] = &session_ops,
		[WK_COUNT] = &count_ops, [WK_GLOBAL] = &global_ops,
		[WK_OVER] = &over_ops, [WK_OVER_ROWS] = &over_ops,
	};

	memset(a, 0, sizeof(*a));
	if (c->wkind == WK_CUMULATE) {
		calendar_init(a, c);
		return;
	}
	a->ops = by_kind[c->wkind];
	a->offset = 0;
	a->size = a->step = a->pane = 1;
	switch (c->wkind) {
	case WK_TUMBLE:
	case WK_SLIDE:
		a->size = c->size;
		a->step = c->step;
		a->offset = c->offset;
		/* the step's origin is the grid's; the size's is not used */
		if (!utc_fixed(c, &c->usize, &a->size, &origin) ||
		    !utc_fixed(c, &c->ustep, &a->step, &a->offset)) {
			calendar_init(a, c);
			return;
		}
		break;
	case WK_CUMULATE:
	case WK_SESSION:
		a->size = a->step = c->size;
		break;
	case WK_COUNT:
		a->size = (int64_t)c->count_n;
		a->step = (int64_t)c->count_slide;
		break;
	case WK_NONE:
	case WK_GLOBAL:
	case WK_OVER:
	case WK_OVER_ROWS:
		break;
	}
	a->pane = assign_gcd(a->size, a->step);
}
