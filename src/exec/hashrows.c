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

/* Byte b of a row's sort key: the start (its sign flipped, so that it
 * orders as unsigned) above the key prefix; b 0 is the lowest. */
static inline unsigned
sort_byte(const struct hrow *r, unsigned b)
{
	uint64_t v = b < 8 ? r->prefix :
	    (uint64_t)r->start ^ ((uint64_t)1 << 63);

	return (unsigned)(v >> (8 * (b & 7)) & 0xff);
}

/* Sorts v[0..n) by (start, key): a least-significant-byte radix sort of
 * (start, key prefix), skipping the bytes every row shares, then each run
 * of an equal pair by key (keys whose first 8 bytes agree). A window's
 * end follows from its start: (start, key) order is (end, start, key). */
static void
sort_rows(size_t nkeys, struct hrow *v, size_t n)
{
	size_t (*count)[256] = xcalloc(16, sizeof(*count));
	struct hrow *from = v, *to = xmalloc(n * sizeof(*v) + 1), *t;
	size_t i, j, pos, k;
	unsigned b;

	for (i = 0; i < n; i++)
		for (b = 0; b < 16; b++)
			count[b][sort_byte(&v[i], b)]++;
	for (b = 0; b < 16; b++) {
		if (count[b][sort_byte(&v[0], b)] == n)
			continue;
		for (j = 0, pos = 0; j < 256; j++) {
			k = count[b][j];
			count[b][j] = pos;
			pos += k;
		}
		for (i = 0; i < n; i++)
			to[count[b][sort_byte(&from[i], b)]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	if (from != v) {
		memcpy(v, from, n * sizeof(*v));
		to = from;
	}
	free(to);
	free(count);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j].prefix == v[i].prefix &&
		    v[j].start == v[i].start; j++)
			;
		if (j - i > 1)
			qsort_r(v + i, j - i, sizeof(*v), key_order,
			    &nkeys);
	}
}

/* The groups of windows that start in [from, upto), sorted into
 * h->rows, none fired yet. */
void
ha_collect(struct hashagg *h, int64_t from, int64_t upto)
{
	const struct hwin *w;
	struct hrow *r;
	size_t i, k;

	ha_take_pending(h);
	free(h->rows);
	h->rows = xmalloc(h->n * sizeof(*h->rows) + 1);
	h->nrows = 0;
	h->at = 0;
	for (i = ha_window_at(h, from); i < h->nwin &&
	    h->win[i].start < upto; i++) {
		w = &h->win[i];
		for (k = 0; k < w->n; k++) {
			r = &h->rows[h->nrows++];
			r->start = w->start;
			r->prefix = w->g[k].prefix;
			r->g = (aoff)w->g[k].s.g * SLOT_UNIT;
			r->h = h;
			r->tag = w->g[k].s.tag;
		}
	}
	if (h->nrows > 0)
		sort_rows(h->c->nkeys, h->rows, h->nrows);
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
}

/* The groups of h->rows[0..nrows), those of the windows that start in
 * [from, upto), leave the table, and are freed (but those ROW_MOVED;
 * with merged, what they kept was merged away); their windows too. */
void
ha_drop(struct hashagg *h, int64_t from, int64_t upto, int merged)
{
	size_t i, k;
	aoff g;

	for (i = 0; i < h->nrows; i++) {
		g = h->rows[i].g & ~(aoff)ROW_MOVED;
		drop_slot(h, h->rows[i].tag, (uint32_t)(g / SLOT_UNIT));
		if (h->rows[i].g & ROW_MOVED)
			continue;
		if (!merged)
			aggs_release(h->g, &h->a, group_acc(h, g));
		arena_free(&h->a, g, group_size(h, group_at(h, g)->g_len));
	}
	h->n -= h->nrows;
	i = ha_window_at(h, from);
	for (k = i; k < h->nwin && h->win[k].start < upto; k++)
		free(h->win[k].g);
	memmove(h->win + i, h->win + k, (h->nwin - k) * sizeof(*h->win));
	h->nwin -= k - i;
	h->win_at = 0;
	ha_recount(h);
	/* (the look-ahead is empty: ha_collect() took it) */
	h->ahead = h->want_ahead && bytes_held(h) > AHEAD_FROM;
}

void
ha_fired(struct hashagg *h, int64_t from, int64_t upto, int merged)
{
	ha_drop(h, from, upto, merged);
	free(h->rows);
	h->rows = NULL;
	h->nrows = 0;
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
