/* hashagg: a batch aggregated as read; see hashagg.h. This is the table
 * itself, the bottom of its five files: it makes, finds and adds to the
 * groups and knows nothing of what is done with them. Above it,
 * hashrows.c takes a range of windows' groups out of it sorted; above
 * that, side by side, hashspill.c writes them as sorted runs and
 * hashcum.c folds panes into --cumulate's windows; hashfire.c, at the
 * top, fires them and chooses among those two. Each calls only down;
 * where the table must set off what is above it (spilling when a record
 * finds it full, freeing the runs with it), it calls through the
 * function pointers hashagg_spill() left it.
 *
 * Groups live in an arena of their own, so that the aggregates add and
 * fold there as they do in the operator's state: a group is its header,
 * its key's canonical bytes padded to 8, then the accumulators. An
 * open-addressing table of (hash, group) finds them; it is kept at most
 * half full. A group's hash mixes its key's hash with its window's start,
 * so the look-ahead (exec/warm.c) can warm a record's slot from the window the
 * reading thread found and its key hash before the record is added. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exec/hashint.h"
#include "io/keycodec.h"
#include "base/util.h"

#define HA_INITCAP 4096

int
hashagg_fits(const struct config *c, const struct aggs *g)
{
	return c->wkind == WK_TUMBLE && !c->fill && c->top_n == 0 &&
	    c->emit_every == 0 && aggs_any_order(g);
}

int
hashagg_fits_stream(const struct config *c, const struct aggs *g)
{
	if (c->fill || c->top_n != 0 || c->emit_every != 0)
		return 0;
	/* (a stream's records come in input order, so order may show) */
	if (c->wkind == WK_TUMBLE)
		return aggs_outside_window(g) == NULL;
	if (c->wkind == WK_SLIDE)
		return hashagg_slides(c) && aggs_unmergeable(g);
	return c->wkind == WK_CUMULATE && aggs_regroupable_exact(g);
}

int
hashagg_slides(const struct config *c)
{
	struct assigner as;

	/* (panes of the STEP, on a grid of fixed lengths) */
	assigner_init(&as, c);
	return c->wkind == WK_SLIDE && assign_fixed_grid(&as) &&
	    as.pane == as.step;
}

struct hashagg *
hashagg_new(const struct config *c, struct aggs *g, uint64_t budget)
{
	/* (each thread's table is written at every record: no line of
	 * it is shared with another's) */
	struct hashagg *h = xcalloc_lines(sizeof(*h));
	size_t i;

	h->c = c;
	hashagg_set_aggs(h, g);
	assigner_init(&h->as, c);
	if (arena_init(&h->a) != 0)
		fwin_die("cannot map memory: %s", strerror(errno));
	h->cap = HA_INITCAP;
	h->table = arena_alloc(&h->a, h->cap * sizeof(struct hslot));
	hashagg_budget(h, budget);
	h->maxt = INT64_MIN;
	h->wm = INT64_MIN;
	h->min_start = INT64_MAX;
	h->hold_from = INT64_MIN;
	h->hold = INT64_MIN;
	h->fired_from = INT64_MAX;
	h->naggs = c->naggs;
	h->pend[0].vals = xcalloc(AHEAD * (c->naggs ? c->naggs : 1),
	    sizeof(struct aval));
	for (i = 1; i < AHEAD; i++)
		h->pend[i].vals = h->pend[0].vals + i * c->naggs;
	h->late_vals = xcalloc(c->naggs ? c->naggs : 1, sizeof(struct aval));
	return h;
}

void
hashagg_budget(struct hashagg *h, uint64_t budget)
{
	/* (slots name groups in 32 bits: SLOT_REACH of arena at most) */
	h->budget = budget < SLOT_REACH / 2 ? budget : SLOT_REACH / 2;
}

static void
spare_free(struct hashagg *h)
{
	free(h->spare.rows[0]);
	free(h->spare.rows[1]);
	free(h->spare.scratch);
	memset(&h->spare, 0, sizeof(h->spare));
}

void
hashagg_free(struct hashagg *h)
{
	size_t i;

	if (h == NULL)
		return;
	for (i = 0; i < h->ncw; i++)
		free(h->cw[i].rows);
	free(h->cw);
	free(h->merged);
	free(h->sr);
	free(h->srm);
	if (h->spill_free != NULL)
		h->spill_free(h);
	arena_fini(&h->a);
	free(h->pend[0].vals);
	free(h->late_vals);
	free(h->front);
	free(h->rows);
	spare_free(h);
	free(h->lw);
	free(h->lwi);
	for (i = 0; i < h->nwin; i++)
		free(h->win[i].g);
	free(h->win);
	free(h);
}

void
ha_reset(struct hashagg *h)
{
	size_t i;

	for (i = 0; i < h->nwin; i++)
		free(h->win[i].g);
	h->nwin = h->win_at = 0;
	free(h->rows);
	h->rows = NULL;
	h->nrows = h->caprows = h->at = 0;
	spare_free(h);	/* (a table emptied to keep within its budget) */
	arena_fini(&h->a);
	if (arena_init(&h->a) != 0)
		fwin_die("cannot map memory: %s", strerror(errno));
	h->cap = HA_INITCAP;
	h->n = 0;
	h->table = arena_alloc(&h->a, h->cap * sizeof(struct hslot));
	ha_front_clear(h);
	h->ahead = 0;	/* (until it is past AHEAD_FROM again) */
	quick_again(h);
}

static void
grow_table(struct hashagg *h)
{
	uint64_t cap = h->cap * 2, i, j;
	aoff t = arena_alloc(&h->a, cap * sizeof(struct hslot));
	struct hslot *s = arena_ptr(&h->a, t), *old = table(h);

	for (i = 0; i < h->cap; i++) {
		if (old[i].g == 0)
			continue;
		for (j = old[i].tag & (cap - 1); s[j].g != 0;
		    j = (j + 1) & (cap - 1))
			;
		s[j] = old[i];
	}
	arena_free(&h->a, h->table, h->cap * sizeof(struct hslot));
	h->table = t;
	h->cap = cap;
}

size_t
ha_window_at(const struct hashagg *h, int64_t t)
{
	size_t lo = 0, hi = h->nwin, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (h->win[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The entry of the window that starts at start, made if new. */
static struct hwin *
window_of(struct hashagg *h, int64_t start)
{
	size_t lo;

	if (h->nwin > 0 && h->win[h->win_at].start == start)
		return &h->win[h->win_at];
	lo = ha_window_at(h, start);
	if (lo == h->nwin || h->win[lo].start != start) {
		xgrow(&h->win, &h->capwin, h->nwin + 1, sizeof(*h->win));
		memmove(h->win + lo + 1, h->win + lo,
		    (h->nwin - lo) * sizeof(*h->win));
		memset(&h->win[lo], 0, sizeof(h->win[lo]));
		h->win[lo].start = start;
		h->nwin++;
	}
	h->win_at = lo;
	return &h->win[lo];
}

static aoff new_group(struct hashagg *h, uint64_t i, uint32_t tag,
    int64_t start, const char *key, size_t keylen, int bounded);

/* Whether g is the group (start, key). A padded key (input.h:
 * FIELD_PAD) of up to 8 bytes is compared in one load, as a group's key
 * is padded to 8 bytes (group_size). */
static inline int
is_group(const struct hashagg *h, aoff g, int64_t start, const char *key,
    size_t keylen, int padded)
{
	const struct group *gp = group_at(h, g);

	return gp->g_start == start && gp->g_len == keylen &&
	    (padded && keylen - 1 < 8 ? same_bytes8(gp->g_key, key, keylen) :
	    same_bytes(gp->g_key, key, keylen));
}

/* The group (start, key) of hash gh, made if new; 0 when it would be
 * new past the budget (with bounded); the key padded or not. */
static inline aoff
group_of(struct hashagg *h, uint64_t gh, int64_t start, const char *key,
    size_t keylen, int bounded, int padded)
{
	struct hslot *slot = table(h);
	uint64_t i, mask = h->cap - 1;
	uint32_t tag = (uint32_t)(gh >> 32);
	aoff g;

	for (i = slot_home(h, gh); slot[i].g != 0; i = (i + 1) & mask) {
		if (slot[i].tag != tag)
			continue;
		g = (aoff)slot[i].g * SLOT_UNIT;
		if (is_group(h, g, start, key, keylen, padded))
			return g;
	}
	return new_group(h, i, tag, start, key, keylen, bounded);
}

/* group_of(), asking the front first where there is one: the group its
 * hash last found, if it is still that group (the front is emptied
 * whenever groups leave the table: ha_front_clear()). */
static inline aoff
front_of(struct hashagg *h, uint64_t gh, int64_t start, const char *key,
    size_t keylen, int bounded, int padded)
{
	struct hslot *f;
	aoff g;

	if (h->front == NULL)
		return group_of(h, gh, start, key, keylen, bounded, padded);
	f = &h->front[gh & (FRONT - 1)];
	if (f->tag == (uint32_t)gh && f->g != 0 &&
	    is_group(h, (aoff)f->g * SLOT_UNIT, start, key, keylen, padded))
		return (aoff)f->g * SLOT_UNIT;
	if ((g = group_of(h, gh, start, key, keylen, bounded, padded)) != 0) {
		f->tag = (uint32_t)gh;
		f->g = (uint32_t)(g / SLOT_UNIT);
	}
	return g;
}

void
ha_front_clear(struct hashagg *h)
{
	if (h->front != NULL)
		memset(h->front, 0, FRONT * sizeof(*h->front));
}

/* group_of()'s group made in the free slot i (out of line: most records
 * find theirs). */
static __attribute__((noinline)) aoff
new_group(struct hashagg *h, uint64_t i, uint32_t tag, int64_t start,
    const char *key, size_t keylen, int bounded)
{
	struct hslot *slot;
	struct group *gp;
	struct hwin *w;
	aoff g;

	if (bounded && bytes_held(h) > h->budget)
		return 0;
	g = arena_alloc(&h->a, group_size(h, keylen));
	gp = group_at(h, g);
	gp->g_start = start;
	gp->g_len = (uint32_t)keylen;
	memcpy(gp->g_key, key, keylen);
	slot = table(h);	/* (the arena may have moved) */
	slot[i].tag = tag;
	slot[i].g = (uint32_t)(g / SLOT_UNIT);
	w = window_of(h, start);
	xgrow(&w->g, &w->cap, w->n + 1, sizeof(*w->g));
	w->g[w->n].prefix = key_prefix(h->c->nkeys, key, keylen);
	w->g[w->n++].s = slot[i];
	if (start < h->hold)
		h->held++;
	else if (h->slide && start >= h->sl_in)
		h->sl_open++;
	if (++h->n * 2 > h->cap)
		grow_table(h);
	if (arena_hdr(&h->a)->ah_used > h->peak)
		h->peak = arena_hdr(&h->a)->ah_used;
	/* (grown past what the cache holds: from the next record on; none
	 * waits now, or this is the oldest's) */
	if (!h->ahead && ahead_due(h)) {
		h->ahead = 1;
		quick_again(h);
	}
	return g;
}

aoff
ha_group_find(const struct hashagg *h, uint64_t gh, int64_t start,
    const char *key, size_t keylen)
{
	const struct hslot *slot = table(h);
	const struct group *gp;
	uint64_t i, mask = h->cap - 1;
	aoff g;

	for (i = slot_home(h, gh); slot[i].g != 0; i = (i + 1) & mask) {
		if (slot[i].tag != (uint32_t)(gh >> 32))
			continue;
		g = (aoff)slot[i].g * SLOT_UNIT;
		gp = group_at(h, g);
		if (gp->g_start == start && gp->g_len == keylen &&
		    memcmp(gp->g_key, key, keylen) == 0)
			return g;
	}
	return 0;
}

aoff
ha_group_of(struct hashagg *h, uint64_t gh, int64_t start, const char *key,
    size_t keylen)
{
	return group_of(h, gh, start, key, keylen, 0, 0);
}

/* add_at() of aggregates not all counts and sums: a set of one called
 * at once (aggs_one_call), else through aggs_add(). Out of line, so
 * that the sums' inline adds keep their registers. */
static __attribute__((noinline)) void
add_called(struct hashagg *h, aoff acc, const struct aval *vals)
{
	if (h->one != NULL)
		plain_call(h->one, &h->a, acc, vals, h->seq);
	else
		aggs_add(h->g, &h->a, acc, vals, h->seq);
}

/* Adds values vals to the accumulators at acc: counts and sums inline. */
static inline __attribute__((always_inline)) void
add_at(struct hashagg *h, aoff acc, const struct aval *vals)
{
	if (__builtin_expect(h->plain != NULL, 1))
		aggs_add_sums(h->plain, h->naggs, &h->a, acc, vals);
	else
		add_called(h, acc, vals);
	h->seq++;
}

/* Adds values vals to group g's accumulators. */
static inline __attribute__((always_inline)) void
add_values(struct hashagg *h, aoff g, const struct aval *vals)
{
	add_at(h, group_acc(h, g), vals);
}

/* The record that waits in add_late(), added. */
static inline __attribute__((always_inline)) void
add_waiting(struct hashagg *h)
{
	if (h->late_acc != 0) {
		add_at(h, h->late_acc, h->late_vals);
		h->late_acc = 0;
	}
}

/* Adds values vals to group g one record late. The record that waits is
 * added now, and this one waits in its place: the block its accumulator
 * names (a sketch, a percentile's values) lies in lines of its own,
 * apart from the group, and is fetched now, to be in the cache once the
 * next record has been read and found. Added at once, each record would
 * wait for its block as it waits for its table slot and its group.
 * Prefetches, not the look-ahead's warm() loads: in a table of this size
 * they are kept, and they hold up no instruction after them. Whatever
 * reads the groups adds the record that waits first (ha_take_pending()).
 * Measured (the headline's data, --approx-percentile, two threads): 5%
 * less time. */
static inline __attribute__((always_inline)) void
add_late(struct hashagg *h, aoff g, const struct aval *vals)
{
	aoff acc = group_acc(h, g), b;
	size_t k;

	add_waiting(h);
	if ((b = aggs_block_at(&h->a, acc, h->late_slot)) != 0) {
		__builtin_prefetch(arena_ptr(&h->a, b));
		__builtin_prefetch((const char *)arena_ptr(&h->a, b) + 64);
	}
	h->late_acc = acc;
	if (h->naggs == 1)	/* (the commonest: a copy, not a loop) */
		*h->late_vals = *vals;
	else
		for (k = 0; k < h->naggs; k++)
			h->late_vals[k] = vals[k];
}

/* Adds values vals to the group (start, key) of hash gh, made if new.
 * Returns HA_ADDED, or HA_FULL when it would be new past the budget
 * (not with the look-ahead: hashagg_add() said so before it took the
 * record, which is added now). The key padded or not: group_of(). */
static inline __attribute__((always_inline)) int
add_to_group(struct hashagg *h, uint64_t gh, int64_t start, const char *key,
    size_t keylen, int padded, const struct aval *vals)
{
	aoff g = front_of(h, gh, start, key, keylen, !h->ahead, padded);

	if (g == 0)
		return HA_FULL;
	add_values(h, g, vals);
	return HA_ADDED;
}

/* The look-ahead's records all go to their groups, in the order they
 * came. They are warmed first, all of each stage at once: every slot,
 * then every group a slot names with the record's tag (its first line
 * and its last: a group is under 128 bytes, its accumulators after its
 * key), each a load whose value nothing uses (util.h's warm(); on the
 * virtual machines measured, prefetches into a table this large were
 * dropped), issued back to back so that their misses overlap instead of
 * following one another as they did a record apart. */
void
ha_take_pending(struct hashagg *h)
{
	const struct hslot *slot = table(h);
	const struct pending *q;
	uint64_t mask = h->cap - 1, i;
	size_t k, last;
	aoff g, found[AHEAD];

	add_waiting(h);
	for (k = 0; k < h->npend; k++)
		warm(&slot[slot_home(h, h->pend[k].gh)]);
	for (k = 0; k < h->npend; k++) {
		q = &h->pend[k];
		found[k] = 0;
		for (i = slot_home(h, q->gh); slot[i].g != 0;
		    i = (i + 1) & mask)
			if (slot[i].tag == (uint32_t)(q->gh >> 32)) {
				/* (its last byte if its key is the record's;
				 * a group of another key: inside the arena) */
				g = (aoff)slot[i].g * SLOT_UNIT;
				last = g + group_size(h, q->keylen) - 1;
				warm(arena_ptr(&h->a, g));
				if (last < h->a.cap) {
					warm(arena_ptr(&h->a, last));
					found[k] = g;
				}
				break;
			}
	}
	/* then the blocks of their own that accumulators name (a sketch,
	 * a percentile's values), read from the group just fetched */
	if (h->blocks)
		for (k = 0; k < h->npend; k++)
			if (found[k] != 0)
				aggs_warm_blocks(h->g, &h->a,
				    group_acc(h, found[k]));
	for (k = 0; k < h->npend; k++) {
		q = &h->pend[k];
		/* (warmed above, so not through the front; made past the
		 * budget too: hashagg_add() said full before it took it) */
		add_values(h, group_of(h, q->gh, q->start, q->key, q->keylen,
		    0, 0), q->vals);
	}
	h->npend = 0;
}

static void
ledger_note(const struct hashagg *h, struct ledger_win *e, int64_t t)
{
	int64_t lag = sat_sub(h->wm, t);

	e->n++;
	if (t < e->mint)
		e->mint = t;
	if (lag > e->lag)
		e->lag = lag;
}

/* Where the ledger's index looks first for the window that starts at
 * start: its hash as a group's of no key (group_hash). */
static inline size_t
ledger_home(const struct hashagg *h, int64_t start)
{
	return (size_t)(group_hash(0, start) >> 32) & (h->caplwi - 1);
}

/* The ledger's index made again, four slots an entry (ledger_at()
 * makes it again once it is half full). */
static void
ledger_reindex(struct hashagg *h)
{
	size_t i, j, cap = 64;

	while (cap < 4 * (h->nlw + 1))
		cap *= 2;
	free(h->lwi);
	h->lwi = xcalloc(cap, sizeof(*h->lwi));
	h->caplwi = cap;
	for (i = 0; i < h->nlw; i++) {
		for (j = ledger_home(h, h->lw[i].start); h->lwi[j] != 0;
		    j = (j + 1) & (cap - 1))
			;
		h->lwi[j] = (uint32_t)(i + 1);
	}
}

/* The ledger's entry of the window that starts at start, made if new:
 * found through the index, as input out of time order brings its
 * windows in any order (hashagg_drop_ended() reads them all). */
static struct ledger_win *
ledger_at(struct hashagg *h, int64_t start)
{
	struct ledger_win *e;
	size_t i;
	uint32_t k;

	if (h->nlw > 0 && h->lw[h->lw_at].start == start)
		return &h->lw[h->lw_at];
	if (2 * (h->nlw + 1) > h->caplwi)
		ledger_reindex(h);
	for (i = ledger_home(h, start); (k = h->lwi[i]) != 0;
	    i = (i + 1) & (h->caplwi - 1))
		if (h->lw[k - 1].start == start)
			return &h->lw[h->lw_at = k - 1];
	xgrow(&h->lw, &h->caplw, h->nlw + 1, sizeof(*h->lw));
	e = &h->lw[h->nlw];
	e->start = start;
	e->n = 0;
	e->mint = INT64_MAX;
	e->lag = INT64_MIN;
	h->lw_at = h->nlw++;
	h->lwi[i] = (uint32_t)h->nlw;
	return e;
}

/* In a stream: the ends of the pane that starts at start (the last
 * record's, most often). */
static inline void
stream_pane(struct hashagg *h, int64_t start)
{
	if (start != h->last_start) {
		h->last_start = start;
		h->last_pend = h->as.ops->end_after(&h->as, start);
		h->last_end = h->cum || h->slide ?
		    h->as.ops->last_end(&h->as, start) : h->last_pend;
	}
}

/* In a stream, a record of time t added to the pane [start, pend): the
 * earliest window held, the watermark and the largest time. */
static inline void
stream_added(struct hashagg *h, int64_t t, int64_t start, int64_t pend)
{
	if (start < h->min_start && start >= h->hold) {
		h->min_start = start;
		h->min_end = pend;
	}
	if (t > h->maxt) {
		if (sat_add(t, -h->lateness) > h->wm)
			h->wm = sat_add(t, -h->lateness);
		h->maxt = t;
	}
}

/* add_one() of record r when h->quick: its tests that cannot hold left
 * out. */
static inline __attribute__((always_inline)) int
add_quick(struct hashagg *h, const struct op_rec *r, const int64_t *win)
{
	int64_t start;
	aoff g;

	if (win != NULL)
		start = *win;
	else if (!assign_pane(&h->as, &h->last, r->t, &start))
		return HA_RANGE;
	stream_pane(h, start);
	if (h->last_end <= h->wm) {
		if (h->ledger)
			ledger_note(h, &h->late, r->t);
		return HA_LATE;
	}
	if ((g = group_of(h, group_hash(r->hash, start), start, r->key,
	    r->keylen, 1, r->padded)) == 0)
		return HA_FULL;
	if (h->late_slot >= 0)
		add_late(h, g, r->vals);
	else
		add_values(h, g, r->vals);
	if (h->ledger)
		ledger_note(h, ledger_at(h, start), r->t);
	stream_added(h, r->t, start, h->last_pend);
	return HA_ADDED;
}

/* (inline: the call is per record, the second one rare) */
static inline __attribute__((always_inline)) int
add_one(struct hashagg *h, int64_t t, const int64_t *win,
    const char *key, size_t keylen, int padded, uint64_t hash,
    const struct aval *vals)
{
	struct pending *q;
	int64_t start, pend = 0;
	uint64_t gh;
	int rc;

	if (h->gave_up)
		return HA_GAVEUP;
	if (win != NULL)
		start = *win;
	else if (!assign_pane(&h->as, &h->last, t, &start))
		return HA_RANGE;	/* (a tumbling window has no gaps) */
	if (h->stream) {	/* (records in input order: any values) */
		stream_pane(h, start);
		if (h->last_end <= h->wm) {	/* its last window */
			if (h->ledger)
				ledger_note(h, &h->late, t);
			return HA_LATE;
		}
		pend = h->last_pend;
		/* its pane's windows have fired: it joins those still to
		 * fire, that is, the watermark's pane's (fwin(1): WINDOWS) */
		if (h->cum && pend <= h->wm) {
			if (!assign_pane(&h->as, &h->wm_span, h->wm, &start))
				return HA_RANGE;
			pend = h->wm_span.pane_end;
		}
		/* its pane's first windows have ended: it joins the running
		 * folds of the rest (hashslide.c, above: a callback) */
		if (h->slide && pend <= h->wm) {
			if ((rc = h->slide_join(h, group_hash(hash, start),
			    start, key, keylen, vals)) != HA_ADDED)
				return rc;
			goto added;
		}
	}
	gh = group_hash(hash, start);
	if (!h->ahead || keylen > sizeof(q->key)) {
		if (h->npend > 0 || h->late_acc != 0)
			ha_take_pending(h);
		if ((rc = add_to_group(h, gh, start, key, keylen, padded,
		    vals)) != HA_ADDED)
			return rc;
	} else {
		/* said full now, for a group that may not be new: the
		 * budget is a bound, not a count */
		if (bytes_held(h) > h->budget)
			return HA_FULL;
		q = &h->pend[h->npend++];
		q->gh = gh;
		q->start = start;
		q->keylen = (uint32_t)keylen;
		memcpy(q->key, key, keylen);
		memcpy(q->vals, vals, h->naggs * sizeof(*vals));
		if (h->npend == AHEAD)
			ha_take_pending(h);
	}
added:
	if (h->stream) {
		if (h->ledger)
			ledger_note(h, ledger_at(h, start), t);
		stream_added(h, t, start, pend);
	} else if (t > h->maxt)
		h->maxt = t;
	return HA_ADDED;
}

/* hashagg_add() past add_quick(). */
static __attribute__((noinline)) int
add_any(struct hashagg *h, const struct op_rec *r, const int64_t *win)
{
	int rc = add_one(h, r->t, win, r->key, r->keylen, r->padded,
	    r->hash, r->vals);

	/* past the budget: the groups go to a sorted run, the table on
	 * empty (a run that cannot be written: full, as without runs) */
	if (rc == HA_FULL && h->spill != NULL && h->spill(h) == 0)
		rc = add_one(h, r->t, win, r->key, r->keylen, r->padded,
		    r->hash, r->vals);
	return rc;
}

int
hashagg_add(struct hashagg *h, const struct op_rec *r, const int64_t *win)
{
	int rc;

	/* (full: add_any() spills, and adds it again) */
	if (h->quick && (rc = add_quick(h, r, win)) != HA_FULL)
		return rc;
	return add_any(h, r, win);
}

void
hashagg_advance(struct hashagg *h, int64_t w, int64_t t)
{
	if (h->stream && t > h->maxt && sat_add(t, -h->lateness) > h->wm)
		h->wm = sat_add(t, -h->lateness);
	if (h->stream && w > h->wm)
		h->wm = w;
	if (t > h->maxt)
		h->maxt = t;
}

void
hashagg_stream(struct hashagg *h, int64_t lateness)
{
	h->stream = 1;
	h->lateness = lateness;
	h->cum = h->c->wkind == WK_CUMULATE;
	h->regroup = aggs_regroupable(h->g);
	/* (no window starts here: the end is found at the first record) */
	h->last_start = INT64_MAX;
	h->last_end = INT64_MIN;
	quick_again(h);
}

void
hashagg_ledger(struct hashagg *h)
{
	h->ledger = 1;
	h->late.mint = INT64_MAX;
	h->late.lag = INT64_MIN;
}

int64_t
hashagg_lateness(const struct hashagg *h)
{
	return h->lateness;
}

int64_t
hashagg_watermark(const struct hashagg *h)
{
	return h->wm;
}

void
hashagg_look_ahead(struct hashagg *h)
{
	h->want_ahead = aggs_numbers_only(h->g);
	h->blocks = !aggs_flat(h->g);
	h->ahead = ahead_due(h);
	quick_again(h);
}

int
hashagg_gave_up(const struct hashagg *h)
{
	return h->gave_up;
}

void
hashagg_set_aggs(struct hashagg *h, struct aggs *g)
{
	if (h->g != NULL)
		ha_take_pending(h);
	h->g = g;
	h->plain = aggs_sums(g);
	h->one = aggs_one_call(g);
	/* (a record waits only while its values' text is not read: that
	 * text is in the input's buffer, gone by the next record) */
	h->late_slot = aggs_numbers_only(g) ? aggs_block_slot(g) : -1;
	quick_again(h);
}

int64_t
hashagg_fired_from(const struct hashagg *h)
{
	return h->fired_from;
}

int64_t
hashagg_max_time(const struct hashagg *h)
{
	return h->maxt;
}

void
hashagg_size(const struct hashagg *h, uint64_t *groups, uint64_t *peak)
{
	*groups = h->n;
	*peak = h->peak;
}

size_t
hashagg_windows(const struct hashagg *h)
{
	return h->nwin;
}
