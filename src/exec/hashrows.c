/* hashrows: a range of windows' groups taken out of the table of
 * hashagg.c as rows sorted by (start, key), and dropped from it once
 * they are used: what every way of using the groups does first, be it
 * firing them (hashfire.c), folding panes into cumulating windows
 * (hashcum.c) or writing them as a sorted run (hashspill.c). So it sits
 * just above the table, whose slots and window lists it reads and
 * empties, and below those three; it calls nothing of theirs. */
#include <stdlib.h>
#include <string.h>

#include "exec/hashint.h"
#include "io/keycodec.h"
#include "base/util.h"

/* Sorts a window's groups v[0..n) by key prefix: a least-significant-
 * byte radix sort of the bytes in which the groups differ (found first:
 * a window of a hundred keys differs in two or three, and clearing the
 * counts of eight would cost more than the sort), of the window's list
 * itself (16 bytes a group, against 40 of a row), with tmp of n for
 * scratch. Returns v or tmp, whichever holds them sorted. The counts are
 * on the stack: a window's sort is as frequent as its firing, and
 * --slide 10m,1s fires a window a second. */
static struct hwslot *
sort_window(struct hwslot *v, struct hwslot *tmp, size_t n)
{
	size_t count[256];
	struct hwslot *from = v, *to = tmp, *t;
	uint64_t differ = 0;
	size_t i, j, pos, k;
	unsigned shift;

	for (i = 1; i < n; i++)
		differ |= v[i].prefix ^ v[0].prefix;
	for (shift = 0; shift < 64; shift += 8) {
		if ((differ >> shift & 0xff) == 0)
			continue;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[from[i].prefix >> shift & 0xff]++;
		for (j = 0, pos = 0; j < 256; j++) {
			k = count[j];
			count[j] = pos;
			pos += k;
		}
		for (i = 0; i < n; i++)
			to[count[from[i].prefix >> shift & 0xff]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	return from;
}

/* h's scratch of at least bytes (its contents not kept): made an
 * eighth larger than asked when it grows. */
static void *
scratch(struct hashagg *h, size_t bytes)
{
	if (h->spare.scratch_bytes < bytes) {
		free(h->spare.scratch);
		h->spare.scratch_bytes = bytes + bytes / 8;
		h->spare.scratch = xmalloc(h->spare.scratch_bytes);
	}
	return h->spare.scratch;
}

void
ha_rows_keep(struct hashagg *h, struct hrow *r, size_t cap)
{
	struct hspare *sp = &h->spare;
	int i = sp->rows_cap[1] < sp->rows_cap[0];	/* the smaller */

	if (cap > sp->rows_cap[i]) {
		free(sp->rows[i]);
		sp->rows[i] = r;
		sp->rows_cap[i] = cap;
	} else
		free(r);
}

/* A rows buffer for n rows: the larger kept, if large enough, else one
 * made an eighth larger (anew, not copied; not twice: at a million
 * groups a row is 40 MB). */
static void
rows_take(struct hashagg *h, size_t n)
{
	struct hspare *sp = &h->spare;
	int i = sp->rows_cap[1] > sp->rows_cap[0];	/* the larger */

	if (sp->rows_cap[i] < n) {
		free(sp->rows[i]);
		sp->rows_cap[i] = n + n / 8;
		sp->rows[i] = xmalloc(sp->rows_cap[i] * sizeof(*h->rows));
	}
	h->rows = sp->rows[i];
	h->caprows = sp->rows_cap[i];
	sp->rows[i] = NULL;
	sp->rows_cap[i] = 0;
}

/* h->rows are used. */
void
ha_rows_done(struct hashagg *h)
{
	ha_rows_keep(h, h->rows, h->caprows);
	h->rows = NULL;
	h->nrows = h->caprows = 0;
}

/* The groups of windows that start in [from, upto), sorted into
 * h->rows by (start, key), none fired yet: the windows are in order of
 * their starts, so each window's groups are sorted by key prefix, then
 * each run of an equal prefix (keys whose first 8 bytes agree) by key. A
 * window's end follows from its start: (start, key) order is (end,
 * start, key). */
void
ha_collect(struct hashagg *h, int64_t from, int64_t upto)
{
	struct hwin *w;
	const struct hwslot *v;
	struct hrow *r;
	size_t i, j, k, nkeys = h->c->nkeys;

	ha_take_pending(h);
	ha_rows_done(h);
	rows_take(h, h->n + 1);
	h->at = 0;
	for (i = ha_window_at(h, from); i < h->nwin &&
	    h->win[i].start < upto; i++) {
		w = &h->win[i];
		if (w->n == 0)
			continue;
		v = sort_window(w->g, scratch(h, w->n * sizeof(*v)), w->n);
		for (k = 0; k < w->n; k++) {
			r = &h->rows[h->nrows++];
			r->start = w->start;
			r->prefix = v[k].prefix;
			r->g = (aoff)v[k].s.g * SLOT_UNIT;
			r->h = h;
			r->tag = v[k].s.tag;
		}
	}
	for (i = 0; i < h->nrows; i = j) {
		for (j = i + 1; j < h->nrows &&
		    h->rows[j].prefix == h->rows[i].prefix &&
		    h->rows[j].start == h->rows[i].start; j++)
			;
		if (j - i > 1)
			qsort_r(h->rows + i, j - i, sizeof(*h->rows),
			    key_order, &nkeys);
	}
}

void
hashagg_sort(struct hashagg *h)
{
	if (h->rows == NULL)
		ha_collect(h, INT64_MIN, INT64_MAX);
}

/* Drops the slot that names group slot-g g of hash tag, moving the
 * slots after it back where their probes pass it. */
static void
drop_slot(struct hashagg *h, uint32_t tag, uint32_t g)
{
	struct hslot *s = table(h);
	uint64_t mask = h->cap - 1, i, j, home;

	for (i = tag & mask; s[i].g != g; i = (i + 1) & mask)
		;
	for (j = (i + 1) & mask; s[j].g != 0; j = (j + 1) & mask) {
		home = s[j].tag & mask;
		if (((i - home) & mask) < ((j - home) & mask)) {
			s[i] = s[j];
			i = j;
		}
	}
	s[i].tag = 0;
	s[i].g = 0;
}

/* What the windows held say again: the groups held back by hold, and
 * the earliest window that is not. */
void
ha_recount(struct hashagg *h)
{
	size_t i;

	h->held = 0;
	h->min_start = INT64_MAX;
	for (i = 0; i < h->nwin && h->win[i].start < h->hold; i++)
		h->held += h->win[i].n;
	if (i < h->nwin) {
		h->min_start = h->win[i].start;
		h->min_end = h->as.ops->end_after(&h->as, h->min_start);
	}
	if (h->slide) {
		h->sl_open = 0;
		for (i = ha_window_at(h, h->sl_in > h->hold ? h->sl_in :
		    h->hold); i < h->nwin; i++)
			h->sl_open += h->win[i].n;
	}
}

/* Sorts v[0..n) (a least-significant-byte radix sort), with tmp of n
 * for scratch. */
static void
sort_u32(uint32_t *v, uint32_t *tmp, size_t n)
{
	size_t count[256], i, pos, k;
	uint32_t *from = v, *to = tmp, *t;
	unsigned shift, j;

	if (n == 0)
		return;
	for (shift = 0; shift < 32; shift += 8) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[from[i] >> shift & 0xff]++;
		if (count[from[0] >> shift & 0xff] == n)
			continue;
		for (j = 0, pos = 0; j < 256; j++) {
			k = count[j];
			count[j] = pos;
			pos += k;
		}
		for (i = 0; i < n; i++)
			to[count[from[i] >> shift & 0xff]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
}

/* The groups of h->rows[0..nrows), those of the windows that start in
 * [from, upto), leave the table, and are freed (but those ROW_MOVED;
 * with merged, what they kept was merged away); their windows too.
 * Their slots are dropped a batch at a time, each batch's warmed at
 * once; the groups are freed from the highest address down, so that
 * they are read in order, not at random, and that the groups made next
 * take their blocks from the lowest up. */
void
ha_drop(struct hashagg *h, int64_t from, int64_t upto, int merged)
{
	const struct hslot *s = table(h);
	uint32_t *gs;
	size_t i, k, e, ng = 0;
	aoff g;

	gs = scratch(h, (2 * h->nrows + 1) * sizeof(*gs));
	for (i = 0; i < h->nrows; i++) {
		if (i % WARM_ROWS == 0) {
			e = i + WARM_ROWS < h->nrows ? i + WARM_ROWS : h->nrows;
			for (k = i; k < e; k++)
				warm(&s[h->rows[k].tag & (h->cap - 1)]);
		}
		g = h->rows[i].g & ~(aoff)ROW_MOVED;
		drop_slot(h, h->rows[i].tag, (uint32_t)(g / SLOT_UNIT));
		if (!(h->rows[i].g & ROW_MOVED))
			gs[ng++] = (uint32_t)(g / SLOT_UNIT);
	}
	ha_front_clear(h);
	sort_u32(gs, gs + h->nrows, ng);
	for (i = ng; i-- > 0;) {
		g = (aoff)gs[i] * SLOT_UNIT;
		if (!merged)
			aggs_release(h->g, &h->a, group_acc(h, g));
		arena_free(&h->a, g, group_size(h, group_at(h, g)->g_len));
	}
	h->n -= h->nrows;
	i = ha_window_at(h, from);
	for (k = i; k < h->nwin && h->win[k].start < upto; k++)
		free(h->win[k].g);
	if (k > i) {	/* (none may be: no window yet, h->win NULL) */
		memmove(h->win + i, h->win + k,
		    (h->nwin - k) * sizeof(*h->win));
		h->nwin -= k - i;
	}
	h->win_at = 0;
	ha_recount(h);
	/* (the look-ahead is empty: ha_collect() took it) */
	h->ahead = ahead_due(h);
	quick_again(h);
}

void
ha_fired(struct hashagg *h, int64_t from, int64_t upto, int merged)
{
	ha_drop(h, from, upto, merged);
	ha_rows_done(h);
	h->kept = h->n - h->held;
}

/* Windows end at or before w when they start before this: before w's
 * window (windows tile time); out of the range of windows, before none
 * or all. */
int64_t
ha_ended_before(const struct hashagg *h, int64_t w)
{
	struct span sp = { 0 };
	int64_t start;

	if (assign_pane(&h->as, &sp, w, &start))
		return start;
	return w < 0 ? INT64_MIN : INT64_MAX;
}
