/* window: assigner arithmetic; see window.h. Intermediate values are
 * computed in 128 bits so that times near the int64 limits are judged,
 * not wrapped. */
#include "window.h"

int64_t
window_gcd(int64_t a, int64_t b)
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

void
window_init(struct wspec *w, int64_t size, int64_t step, int64_t offset)
{
	w->size = size;
	w->step = step;
	w->offset = offset;
	w->pane = window_gcd(size, step);
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

int
window_of(const struct wspec *w, int64_t t, int64_t *first_end,
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

int64_t
window_pane(const struct wspec *w, int64_t t)
{
	int64_t r = mod_diff(t, w->offset, w->pane), ps;

	if (r >= 0 && !__builtin_sub_overflow(t, r, &ps))
		return ps;
	return (int64_t)(floor_div((__int128)t - w->offset, w->pane) * w->pane +
	    w->offset);
}

int64_t
window_end_after(const struct wspec *w, int64_t after)
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
