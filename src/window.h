/* window: the assigners' arithmetic for tumbling and sliding windows.
 *
 * Windows start on the grid offset + k*step and last size (a tumbling
 * window is a slide with step == size). Records are kept in slices
 * ("panes") of gcd(size, step), aligned to the same offset: every window
 * is a whole number of panes, so a record updates one pane and a window's
 * result is the merge of its panes when it fires. All division floors. */
#ifndef FWIN_WINDOW_H
#define FWIN_WINDOW_H

#include <stdint.h>

struct wspec {
	int64_t size, step, offset;
	int64_t pane;		/* gcd(size, step) */
};

/* The greatest common divisor of a, b > 0. */
int64_t window_gcd(int64_t a, int64_t b);

void window_init(struct wspec *w, int64_t size, int64_t step, int64_t offset);

/* The windows of time t: their ends are first_end, first_end + step, ...,
 * last_end. Returns 0; -1 when t lies in a gap between windows (step >
 * size); -2 when its windows do not fit in int64. */
int window_of(const struct wspec *w, int64_t t, int64_t *first_end,
    int64_t *last_end);

/* The start of the pane holding t (t's windows are known to fit). */
int64_t window_pane(const struct wspec *w, int64_t t);

/* The smallest window end that is > after, on the grid of ends. */
int64_t window_end_after(const struct wspec *w, int64_t after);

/* a + b, saturated at the int64 limits. */
static inline int64_t
sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

#endif
