/* Unit tests for the window assigners (assign.c), through their public
 * interface: assigner_init() from a struct config, then assign, start,
 * end_after and last_end. Fixed cases (grids with offsets, gaps, negative
 * times, the int64 limits, sessions, count windows, rolling mode), then
 * many random (size, step, offset, t) tuples checked against a naive
 * reference computed in 128 bits. See the man page's WINDOWS section. */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "window/assign.h"
#include "pipeline/config.h"
#include "unit.h"

typedef __int128 i128;

/* A fixed-seed xorshift64*: the same tuples in every run. */
static struct assigner
grid(enum wkind k, int64_t size, int64_t step, int64_t offset)
{
	struct config c;
	struct assigner a;

	memset(&c, 0, sizeof(c));
	c.wkind = k;
	c.size = size;
	c.step = step;
	c.offset = offset;
	assigner_init(&a, &c);
	return a;
}

static struct assigner
count_windows(uint64_t n, uint64_t slide)
{
	struct config c;
	struct assigner a;

	memset(&c, 0, sizeof(c));
	c.wkind = WK_COUNT;
	c.count_n = n;
	c.count_slide = slide;
	assigner_init(&a, &c);
	return a;
}

static struct assigner
session(int64_t gap)
{
	struct config c;
	struct assigner a;

	memset(&c, 0, sizeof(c));
	c.wkind = WK_SESSION;
	c.size = gap;
	assigner_init(&a, &c);
	return a;
}

/* floor(a / b), ceil(a / b) for b > 0, in 128 bits */
static i128
fdiv(i128 a, i128 b)
{
	i128 q = a / b;

	return q * b > a ? q - 1 : q;
}

static i128
cdiv(i128 a, i128 b)
{
	i128 q = a / b;

	return q * b < a ? q + 1 : q;
}

static i128
gcd128(i128 a, i128 b)
{
	while (b != 0) {
		i128 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The reference of a grid: every start offset + k*step <= t with
 * start + size > t, the pane of t, and what assign() must answer. */
struct ref {
	int rc;
	i128 first_start, last_start, pane;
};

static struct ref
ref_grid(int64_t size, int64_t step, int64_t offset, int64_t t)
{
	struct ref r;
	i128 g = gcd128(size, step);

	/* the latest start <= t, the earliest start >= t - size + 1 */
	r.last_start = fdiv((i128)t - offset, step) * step + offset;
	r.first_start = cdiv((i128)t - size + 1 - offset, step) * step + offset;
	r.pane = fdiv((i128)t - offset, g) * g + offset;
	if (r.first_start > r.last_start)
		r.rc = AS_GAP;
	else if (r.first_start < INT64_MIN ||
	    r.last_start + size >= (i128)INT64_MAX)
		r.rc = AS_RANGE;
	else
		r.rc = AS_OK;
	return r;
}

/* The smallest end offset + size + k*step > after, INT64_MAX past it. */
static int64_t
ref_end_after(int64_t size, int64_t step, int64_t offset, int64_t after)
{
	i128 base = (i128)offset + size;
	i128 e = (fdiv((i128)after - base, step) + 1) * step + base;

	return e > INT64_MAX ? INT64_MAX : (int64_t)e;
}

static int grid_failures;
static long grid_seen[3];	/* tuples whose answer was OK, GAP, RANGE */

static void
grid_fail(const char *what, int64_t size, int64_t step, int64_t offset,
    int64_t t)
{
	if (grid_failures++ < 20)
		fprintf(stderr, "grid size=%lld step=%lld offset=%lld t=%lld: "
		    "%s\n", (long long)size, (long long)step, (long long)offset,
		    (long long)t, what);
}

/* Checks everything the assigner says about t against the reference;
 * returns the number of mismatches. */
static int
check_grid(int64_t size, int64_t step, int64_t offset, int64_t t)
{
	struct assigner a = grid(step == size ? WK_TUMBLE : WK_SLIDE, size,
	    step, offset);
	struct ref r = ref_grid(size, step, offset, t);
	struct span sp;
	int rc, bad = 0;

	if (a.ops->kind != AS_PANES || a.size != size || a.step != step ||
	    a.offset != offset || a.pane != (int64_t)gcd128(size, step)) {
		grid_fail("assigner fields", size, step, offset, t);
		return 1;
	}
	if (ref_end_after(size, step, offset, t) != a.ops->end_after(&a, t)) {
		grid_fail("end_after(t)", size, step, offset, t);
		bad++;
	}
	memset(&sp, 0x5a, sizeof(sp));
	rc = a.ops->assign(&a, t, &sp);
	grid_seen[-r.rc]++;
	if (rc != r.rc) {
		char m[64];

		snprintf(m, sizeof(m), "assign returned %d, want %d", rc, r.rc);
		grid_fail(m, size, step, offset, t);
		return bad + 1;
	}
	if (rc != AS_OK)
		return bad;
	if (sp.pane != r.pane || sp.pane_end != r.pane + a.pane) {
		grid_fail("pane", size, step, offset, t);
		bad++;
	}
	if (sp.first_end != r.first_start + size ||
	    sp.last_end != r.last_start + size) {
		grid_fail("first/last end", size, step, offset, t);
		bad++;
	}
	if (a.ops->start(&a, sp.first_end) != r.first_start ||
	    a.ops->start(&a, sp.last_end) != r.last_start) {
		grid_fail("start(end)", size, step, offset, t);
		bad++;
	}
	/* the first window holding t is the first that ends after it */
	if (a.ops->end_after(&a, t) != sp.first_end) {
		grid_fail("end_after(t) != first_end", size, step, offset, t);
		bad++;
	}
	/* the last window holding t follows that of its pane */
	if (a.ops->last_end(&a, sp.pane) != sp.last_end) {
		grid_fail("last_end(pane)", size, step, offset, t);
		bad++;
	}
	/* the windows between: ends a step apart, each holding t */
	if (((i128)sp.last_end - sp.first_end) / step < 64) {
		int64_t e = sp.first_end, n = 0;

		while (e < sp.last_end) {
			int64_t nx = a.ops->end_after(&a, e);

			if (nx != e + step || a.ops->start(&a, nx) > t) {
				grid_fail("windows between", size, step,
				    offset, t);
				bad++;
				break;
			}
			e = nx;
			n++;
		}
		if (n != (int64_t)(((i128)sp.last_end - sp.first_end) / step)) {
			grid_fail("number of windows", size, step, offset, t);
			bad++;
		}
	}
	return bad;
}

/* --- fixed cases --- */

static void
expect(struct assigner a, int64_t t, int rc, int64_t pane, int64_t pane_end,
    int64_t first_end, int64_t last_end)
{
	struct span sp;
	int got = a.ops->assign(&a, t, &sp);

	CHECK(got == rc);
	if (got != rc) {
		fprintf(stderr, "  t=%lld: rc %d, want %d\n", (long long)t, got,
		    rc);
		return;
	}
	if (rc != AS_OK)
		return;
	CHECK(sp.pane == pane);
	CHECK(sp.pane_end == pane_end);
	CHECK(sp.first_end == first_end);
	CHECK(sp.last_end == last_end);
	if (sp.pane != pane || sp.pane_end != pane_end ||
	    sp.first_end != first_end || sp.last_end != last_end)
		fprintf(stderr, "  t=%lld: got %lld %lld %lld %lld\n",
		    (long long)t, (long long)sp.pane, (long long)sp.pane_end,
		    (long long)sp.first_end, (long long)sp.last_end);
}

static void
test_tumble(void)
{
	struct assigner a = grid(WK_TUMBLE, 10, 10, 0);

	CHECK(a.ops->kind == AS_PANES);
	CHECK(a.pane == 10);
	CHECK(assigner_panes(&a) == 1);
	expect(a, 0, AS_OK, 0, 10, 10, 10);
	expect(a, 9, AS_OK, 0, 10, 10, 10);
	expect(a, 10, AS_OK, 10, 20, 20, 20);
	/* floor division: times before 0 */
	expect(a, -1, AS_OK, -10, 0, 0, 0);
	expect(a, -10, AS_OK, -10, 0, 0, 0);
	expect(a, -11, AS_OK, -20, -10, -10, -10);
	CHECK(a.ops->start(&a, 0) == -10);
	CHECK(a.ops->end_after(&a, -1) == 0);
	CHECK(a.ops->end_after(&a, 0) == 10);
	CHECK(a.ops->end_after(&a, -10) == 0);
	CHECK(a.ops->end_after(&a, -11) == -10);
	CHECK(a.ops->last_end(&a, -10) == 0);

	/* offsets, either sign, and past the size */
	a = grid(WK_TUMBLE, 10, 10, -3);
	expect(a, 0, AS_OK, -3, 7, 7, 7);
	expect(a, 7, AS_OK, 7, 17, 17, 17);
	expect(a, -4, AS_OK, -13, -3, -3, -3);
	a = grid(WK_TUMBLE, 10, 10, 13);
	expect(a, 0, AS_OK, -7, 3, 3, 3);
	expect(a, 3, AS_OK, 3, 13, 13, 13);
	CHECK(a.ops->end_after(&a, 3) == 13);
	CHECK(a.ops->end_after(&a, 2) == 3);
}

static void
test_slide(void)
{
	struct assigner a = grid(WK_SLIDE, 10, 3, 0);

	CHECK(a.ops->kind == AS_PANES);
	CHECK(a.pane == 1);
	CHECK(assigner_panes(&a) == 10);
	/* starts 0, -3, -6, -9 hold 0 */
	expect(a, 0, AS_OK, 0, 1, 1, 10);
	/* starts -3 .. -9 hold -1 */
	expect(a, -1, AS_OK, -1, 0, 1, 7);
	CHECK(a.ops->start(&a, 1) == -9);
	CHECK(a.ops->last_end(&a, -1) == 7);
	CHECK(a.ops->end_after(&a, 1) == 4);

	a = grid(WK_SLIDE, 10, 4, 1);
	CHECK(a.pane == 2);
	/* starts 1, -3, -7 hold 2; its pane is [1, 3) */
	expect(a, 2, AS_OK, 1, 3, 3, 11);
	CHECK(a.ops->last_end(&a, 1) == 11);
	a = grid(WK_SLIDE, 10, 4, -1);
	/* starts -1, -5 hold 2 */
	expect(a, 2, AS_OK, 1, 3, 5, 9);

	/* a step larger than the size: gaps */
	a = grid(WK_SLIDE, 5, 10, 0);
	CHECK(a.pane == 5);
	expect(a, 4, AS_OK, 0, 5, 5, 5);
	expect(a, 5, AS_GAP, 0, 0, 0, 0);
	expect(a, 9, AS_GAP, 0, 0, 0, 0);
	expect(a, 10, AS_OK, 10, 15, 15, 15);
	expect(a, -1, AS_GAP, 0, 0, 0, 0);
	expect(a, -5, AS_GAP, 0, 0, 0, 0);
	expect(a, -6, AS_OK, -10, -5, -5, -5);
	CHECK(a.ops->end_after(&a, 5) == 15);
	CHECK(a.ops->end_after(&a, -5) == 5);
	a = grid(WK_SLIDE, 5, 10, -2);
	expect(a, 2, AS_OK, -2, 3, 3, 3);
	expect(a, 4, AS_GAP, 0, 0, 0, 0);
	expect(a, 8, AS_OK, 8, 13, 13, 13);
	expect(a, -2, AS_OK, -2, 3, 3, 3);
	expect(a, -3, AS_GAP, 0, 0, 0, 0);
	/* a gap that is not a whole number of sizes: panes of gcd 2 */
	a = grid(WK_SLIDE, 4, 6, 0);
	CHECK(a.pane == 2);
	expect(a, 3, AS_OK, 2, 4, 4, 4);
	expect(a, 4, AS_GAP, 0, 0, 0, 0);
	expect(a, 7, AS_OK, 6, 8, 10, 10);
}

static void
test_limits(void)
{
	struct assigner a = grid(WK_TUMBLE, 10, 10, 0);

	/* ...800 is the last multiple of 10 below INT64_MAX (...807): its
	 * window would end past it */
	expect(a, INT64_MAX, AS_RANGE, 0, 0, 0, 0);
	expect(a, 9223372036854775800, AS_RANGE, 0, 0, 0, 0);
	expect(a, 9223372036854775799, AS_OK, 9223372036854775790,
	    9223372036854775800, 9223372036854775800, 9223372036854775800);
	CHECK(a.ops->end_after(&a, 9223372036854775799) ==
	    9223372036854775800);
	CHECK(a.ops->end_after(&a, 9223372036854775800) == INT64_MAX);
	CHECK(a.ops->end_after(&a, 9223372036854775790) ==
	    9223372036854775800);
	CHECK(a.ops->end_after(&a, INT64_MAX) == INT64_MAX);
	/* an end of exactly INT64_MAX never fires: refused */
	a = grid(WK_TUMBLE, 10, 10, 7);
	expect(a, 9223372036854775797, AS_RANGE, 0, 0, 0, 0);
	expect(a, 9223372036854775796, AS_OK, 9223372036854775787,
	    9223372036854775797, 9223372036854775797, 9223372036854775797);
	/* INT64_MIN (...808): its window would start at ...810 */
	a = grid(WK_TUMBLE, 10, 10, 0);
	expect(a, INT64_MIN, AS_RANGE, 0, 0, 0, 0);
	expect(a, -9223372036854775801, AS_RANGE, 0, 0, 0, 0);
	expect(a, -9223372036854775800, AS_OK, -9223372036854775800,
	    -9223372036854775790, -9223372036854775790, -9223372036854775790);
	CHECK(a.ops->end_after(&a, INT64_MIN) == -9223372036854775800);
	CHECK(a.ops->start(&a, -9223372036854775790) == -9223372036854775800);
	a = grid(WK_TUMBLE, 10, 10, 2);
	expect(a, INT64_MIN, AS_OK, INT64_MIN, -9223372036854775798,
	    -9223372036854775798, -9223372036854775798);
	/* the earlier of two windows does not fit */
	a = grid(WK_SLIDE, 10, 5, 0);
	expect(a, -9223372036854775801, AS_RANGE, 0, 0, 0, 0);
	expect(a, -9223372036854775800, AS_OK, -9223372036854775800,
	    -9223372036854775795, -9223372036854775795, -9223372036854775790);
	expect(a, -9223372036854775798, AS_OK, -9223372036854775800,
	    -9223372036854775795, -9223372036854775795, -9223372036854775790);
	/* windows as long as int64 allows */
	a = grid(WK_TUMBLE, INT64_MAX, INT64_MAX, 0);
	expect(a, 0, AS_RANGE, 0, 0, 0, 0);
	expect(a, -1, AS_OK, -INT64_MAX, 0, 0, 0);
	expect(a, INT64_MIN, AS_RANGE, 0, 0, 0, 0);
	CHECK(a.ops->end_after(&a, 0) == INT64_MAX);
	CHECK(a.ops->end_after(&a, INT64_MIN) == -INT64_MAX);
	a = grid(WK_SLIDE, INT64_MAX, 1, INT64_MIN);
	expect(a, 5, AS_RANGE, 0, 0, 0, 0);
	a = grid(WK_SLIDE, 1, INT64_MAX, INT64_MAX);
	expect(a, INT64_MAX, AS_RANGE, 0, 0, 0, 0);
	expect(a, INT64_MAX - 1, AS_GAP, 0, 0, 0, 0);
	expect(a, 0, AS_OK, 0, 1, 1, 1);
	expect(a, INT64_MIN + 1, AS_OK, INT64_MIN + 1, INT64_MIN + 2,
	    INT64_MIN + 2, INT64_MIN + 2);
	CHECK(a.ops->end_after(&a, 1) == INT64_MAX);
	CHECK(a.ops->end_after(&a, INT64_MIN) == INT64_MIN + 2);
	/* offsets at the limits */
	a = grid(WK_TUMBLE, 100, 100, INT64_MIN);
	expect(a, INT64_MIN, AS_OK, INT64_MIN, INT64_MIN + 100,
	    INT64_MIN + 100, INT64_MIN + 100);
	expect(a, 0, AS_OK, -8, 92, 92, 92);
	a = grid(WK_TUMBLE, 100, 100, INT64_MAX);
	expect(a, 0, AS_OK, -93, 7, 7, 7);
	expect(a, INT64_MAX - 1, AS_RANGE, 0, 0, 0, 0);	/* ends at MAX */
	expect(a, INT64_MAX - 101, AS_OK, INT64_MAX - 200, INT64_MAX - 100,
	    INT64_MAX - 100, INT64_MAX - 100);
}

static void
test_session(void)
{
	struct assigner a = session(30);
	struct span sp;

	CHECK(a.ops->kind == AS_MERGING);
	expect(a, 100, AS_OK, 100, 130, 130, 130);
	expect(a, -100, AS_OK, -100, -70, -70, -70);
	expect(a, INT64_MIN, AS_OK, INT64_MIN, INT64_MIN + 30, INT64_MIN + 30,
	    INT64_MIN + 30);
	expect(a, INT64_MAX - 31, AS_OK, INT64_MAX - 31, INT64_MAX - 1,
	    INT64_MAX - 1, INT64_MAX - 1);
	/* past the limit: the session would end at or after INT64_MAX */
	expect(a, INT64_MAX - 30, AS_RANGE, 0, 0, 0, 0);
	expect(a, INT64_MAX - 29, AS_RANGE, 0, 0, 0, 0);
	expect(a, INT64_MAX, AS_RANGE, 0, 0, 0, 0);
	CHECK(a.ops->start(&a, 130) == 100);
	CHECK(a.ops->end_after(&a, 0) == INT64_MAX);
	CHECK(a.ops->last_end(&a, 0) == INT64_MAX);
	a = session(INT64_MAX);
	CHECK(a.ops->assign(&a, -1, &sp) == AS_OK && sp.last_end ==
	    INT64_MAX - 1);
	CHECK(a.ops->assign(&a, 0, &sp) == AS_RANGE);
	CHECK(a.ops->assign(&a, 1, &sp) == AS_RANGE);
	CHECK(a.ops->assign(&a, INT64_MIN, &sp) == AS_OK && sp.last_end == -1);
}

static void
test_rolling(void)
{
	struct config c;
	struct assigner a;

	memset(&c, 0, sizeof(c));
	c.wkind = WK_NONE;
	assigner_init(&a, &c);
	CHECK(a.ops->kind == AS_ROLLING);
	expect(a, 5, AS_OK, 0, INT64_MAX, INT64_MAX, INT64_MAX);
	expect(a, INT64_MIN, AS_OK, 0, INT64_MAX, INT64_MAX, INT64_MAX);
	expect(a, INT64_MAX, AS_OK, 0, INT64_MAX, INT64_MAX, INT64_MAX);
	CHECK(a.ops->end_after(&a, 0) == INT64_MAX);
	CHECK(a.ops->last_end(&a, 0) == INT64_MAX);
}

/* Count windows: the window ending at n (a multiple of SLIDE) holds
 * arrivals [n - N, n). */
static int
check_count(uint64_t nn, uint64_t ss, int64_t i)
{
	struct assigner a = count_windows(nn, ss);
	int64_t n = (int64_t)nn, s = (int64_t)ss, g = (int64_t)gcd128(n, s);
	int64_t first, last, e, cnt;
	struct span sp;
	int bad = 0;

	if (a.ops->kind != AS_ARRIVAL || a.pane != g ||
	    assigner_panes(&a) != n / g)
		return 1;
	if (a.ops->assign(&a, i, &sp) != AS_OK)
		return 1;
	/* the first multiple of s above i; the last at most i + n */
	first = (i / s + 1) * s;
	last = (i + n) / s * s;
	bad += sp.pane != i / g * g;
	bad += sp.pane_end != sp.pane + g;
	bad += sp.first_end != first;
	bad += sp.last_end != last;
	bad += a.ops->last_end(&a, sp.pane) !=
	    (sp.pane + g - 1 + n) / s * s;
	bad += a.ops->end_after(&a, i) != first;
	bad += a.ops->start(&a, first) != first - n;
	/* every window from first to last holds i, and only those */
	if ((last - first) / s < 64) {
		for (e = first, cnt = 0; e <= last;
		    e = a.ops->end_after(&a, e), cnt++)
			bad += !(e - n <= i && i < e);
		bad += cnt != (last - first) / s + 1;
		bad += !(last + s - n > i);	/* the next one does not */
		bad += !(first - s <= i);	/* nor the one before */
	}
	if (bad)
		fprintf(stderr, "count N=%llu SLIDE=%llu i=%lld: %d wrong\n",
		    (unsigned long long)nn, (unsigned long long)ss,
		    (long long)i, bad);
	return bad;
}

static void
test_count(void)
{
	struct assigner a = count_windows(5, 2);
	struct span sp;
	int i;

	CHECK(a.pane == 1);
	/* arrival 0 is in the windows ending at 2 and 4 (fewer than 5) */
	CHECK(a.ops->assign(&a, 0, &sp) == AS_OK);
	CHECK(sp.pane == 0 && sp.pane_end == 1);
	CHECK(sp.first_end == 2 && sp.last_end == 4);
	CHECK(a.ops->assign(&a, 5, &sp) == AS_OK);
	CHECK(sp.first_end == 6 && sp.last_end == 10);
	CHECK(a.ops->start(&a, 10) == 5);
	a = count_windows(6, 4);
	CHECK(a.pane == 2 && assigner_panes(&a) == 3);
	CHECK(a.ops->assign(&a, 3, &sp) == AS_OK);
	CHECK(sp.pane == 2 && sp.pane_end == 4);
	CHECK(sp.first_end == 4 && sp.last_end == 8);
	CHECK(a.ops->last_end(&a, 2) == 8);
	CHECK(a.ops->end_after(&a, 4) == 8);
	a = count_windows(3, 3);
	CHECK(a.ops->assign(&a, 2, &sp) == AS_OK);
	CHECK(sp.first_end == 3 && sp.last_end == 3 && sp.pane == 0);
	a = count_windows(4294967295u, 4294967295u);
	CHECK(a.ops->assign(&a, 4294967295, &sp) == AS_OK);
	CHECK(sp.first_end == 8589934590 && sp.last_end == 8589934590);

	for (i = 0; i < 200000; i++) {
		uint64_t n, s;
		int64_t at;

		switch (unit_below(3)) {
		case 0:
			n = 1 + unit_below(12);
			s = 1 + unit_below(12);
			break;
		case 1:
			n = 1 + unit_below(1000);
			s = 1 + unit_below(1000);
			break;
		default:
			n = 1 + unit_below(4294967295u);
			s = unit_below(2) ? n : 1 + unit_below(4294967295u);
			break;
		}
		at = unit_below(2) ? (int64_t)unit_below(100) :
		    (int64_t)unit_below((uint64_t)1 << 50);
		CHECK(check_count(n, s, at) == 0);
	}
}

/* --- random grids --- */

static int64_t
rnd_time(void)
{
	switch (unit_below(6)) {
	case 0:
		return (int64_t)unit_below(200) - 100;
	case 1:
		return INT64_MIN + (int64_t)unit_below(200);
	case 2:
		return INT64_MAX - (int64_t)unit_below(200);
	case 3:
		return (int64_t)unit_below(2000000) - 1000000;
	default:
		return (int64_t)unit_rnd();
	}
}

static int64_t
rnd_size(void)
{
	int64_t v;

	switch (unit_below(6)) {
	case 0:
		return 1 + (int64_t)unit_below(12);
	case 1:
		return 1 + (int64_t)unit_below(1000);
	case 2:
		return 1 + (int64_t)unit_below((uint64_t)1 << 40);
	case 3:
		return INT64_MAX - (int64_t)unit_below(100);
	case 4:
		return (int64_t)1 << unit_below(63);
	default:
		v = (int64_t)(unit_rnd() >> 1);
		return v ? v : 1;
	}
}

static int64_t
rnd_offset(void)
{
	switch (unit_below(4)) {
	case 0:
		return 0;
	case 1:
		return (int64_t)unit_below(40) - 20;
	default:
		return rnd_time();
	}
}

static void
test_random_grids(void)
{
	int i, bad = 0;

	for (i = 0; i < 300000; i++) {
		int64_t size = rnd_size(), step, offset = rnd_offset(), t;

		switch (unit_below(5)) {
		case 0:
			step = size;				/* tumble */
			break;
		case 1:
			step = size / (1 + (int64_t)unit_below(8));	/* divides */
			step = step ? step : 1;
			break;
		case 2:
			step = 1 + (int64_t)unit_below(size < 20 ? 20 :
			    (uint64_t)size);	/* any, gaps included */
			break;
		case 3:
			step = size + 1 + (int64_t)unit_below(20);	/* gaps */
			if (step < 0)
				step = INT64_MAX;
			break;
		default:
			step = rnd_size();
			break;
		}
		/* times near the grid's own points as well */
		if (unit_below(3) == 0) {
			i128 near = (i128)offset + (i128)step *
			    ((int64_t)unit_below(7) - 3) + (int64_t)unit_below(5) - 2;

			if (unit_below(2))
				near += size;
			t = near > INT64_MAX ? INT64_MAX :
			    near < INT64_MIN ? INT64_MIN : (int64_t)near;
		} else
			t = rnd_time();
		bad += check_grid(size, step, offset, t) != 0;
	}
	CHECK(bad == 0);
	/* the tuples reached every answer, often */
	CHECK(grid_seen[0] > 10000 && grid_seen[1] > 10000 &&
	    grid_seen[2] > 10000);
	/* small grids checked by listing their windows one by one */
	for (i = 0; i < 100000; i++) {
		int64_t size = 1 + (int64_t)unit_below(15), step = 1 +
		    (int64_t)unit_below(20), offset = (int64_t)unit_below(41) - 20;
		int64_t t = (int64_t)unit_below(201) - 100, k, fs = 0, ls = 0;
		int found = 0, rc;
		struct assigner a = grid(WK_SLIDE, size, step, offset);
		struct span sp;

		for (k = -150; k <= 150; k++) {
			int64_t s = offset + k * step;

			if (s <= t && t < s + size) {
				if (!found++)
					fs = s;
				ls = s;
			}
		}
		rc = a.ops->assign(&a, t, &sp);
		if (!found ? rc != AS_GAP : rc != AS_OK ||
		    sp.first_end != fs + size || sp.last_end != ls + size) {
			grid_fail("listed windows", size, step, offset, t);
			bad++;
		}
	}
	CHECK(bad == 0);
}

int
main(void)
{
	unit_rstate = 0x9E3779B97F4A7C15ull;
	CHECK(assign_gcd(12, 18) == 6);
	CHECK(assign_gcd(7, 1) == 1);
	CHECK(assign_gcd(INT64_MAX, INT64_MAX) == INT64_MAX);
	test_tumble();
	test_slide();
	test_limits();
	test_session();
	test_rolling();
	test_count();
	test_random_grids();
	return unit_done("assign");
}
