/* hashagg: a batch aggregated as read; see hashagg.h.
 *
 * Groups live in an arena of their own, so that the aggregates add and
 * fold there as they do in the operator's state: a group is its header,
 * its key's canonical bytes padded to 8, then the accumulators. An
 * open-addressing table of (hash, group) finds them; it is kept at most
 * half full. A group's hash mixes its key's hash with its window's start,
 * so the look-ahead (run.c) can warm a record's slot from the window the
 * reading thread found and its key hash before the record is added. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "assign.h"
#include "hashagg.h"
#include "keycodec.h"
#include "util.h"

struct group {
	int64_t g_start;	/* its window's */
	uint32_t g_len;		/* of its key */
	uint32_t g_pad;
	char g_key[];		/* then the accumulators, 8-aligned */
};

/* A slot of the table: 8 bytes, so that a probe's line holds eight. */
struct hslot {
	uint32_t tag;		/* its group's hash's upper half */
	uint32_t g;		/* its group's offset / 16; 0: empty */
};

#define SLOT_UNIT 16		/* arena blocks are 16-aligned (arena.c) */
/* so a table can name groups in this much arena */
#define SLOT_REACH ((uint64_t)UINT32_MAX * SLOT_UNIT)

/* A record of the look-ahead (hashagg_look_ahead), on its way to its
 * group: its key copied, its values too (flat aggregates read a value's
 * number, not its text, which is gone by then). */
struct pending {
	uint64_t gh;
	int64_t start;
	uint32_t keylen;
	char key[44];
	struct aval *vals;	/* naggs of them */
};

#define AHEAD 8			/* records looked ahead */
/* Below this many bytes of groups and table, the cache holds most of
 * them and a record waiting costs more than it saves (measured: the
 * headline's 5 MB table, 5-10% slower with the look-ahead; a year of
 * hourly windows, 160 MB, 25% faster). */
#define AHEAD_FROM ((uint64_t)16 << 20)

/* The records of a window (or late) in a ledger: how many, the earliest
 * time, the most any was behind the watermark. */
struct ledger_win {
	int64_t start;
	uint64_t n;
	int64_t mint, lag;
};

/* A group as it is sorted to fire. */
struct hrow {
	int64_t start;
	uint64_t prefix;	/* key_prefix() of its key */
	aoff g;
	const struct hashagg *h;	/* its table */
};

/* --cumulate: a window of the size [start, end) whose windows have not
 * all fired, with a group per key that has records in it so far, in key
 * order: each the fold of the key's panes that have ended (and of its
 * records that came after them). Its window ending at e is those groups
 * as they are when the panes up to e are in. */
struct cumwin {
	int64_t start, end;
	int64_t next;		/* the end of its next window to fire */
	struct crow {
		uint64_t prefix;
		aoff g;
	} *rows;
	size_t n, cap;
};

struct hashagg {
	const struct config *c;
	struct aggs *g;
	struct assigner as;
	struct span last;	/* the last window assigned */
	struct arena a;		/* the groups and the table */
	aoff table;		/* of cap struct hslot */
	uint64_t cap, n;	/* cap a power of two */
	uint64_t budget;	/* bytes of groups and table at most */
	uint64_t seq;		/* records added: their arrival numbers */
	uint64_t peak;
	int64_t maxt;		/* the largest time added */
	int ahead;		/* records wait in pend, their groups warmed */
	int want_ahead;		/* hashagg_look_ahead(): once past AHEAD_FROM */
	struct pending pend[AHEAD];
	size_t naggs, pend_at, npend;
	struct hrow *rows;	/* hashagg_sort(): the groups in order */
	size_t nrows;
	/* hashagg_stream(): the watermark, and the window of the last
	 * record (its start and end); the earliest window held, its end,
	 * and the groups kept by the last hashagg_fire_due() */
	int stream;
	int64_t lateness, wm;
	int64_t last_start, last_end, last_pend;
	int64_t min_start, min_end;
	uint64_t kept;
	int64_t fired_from;	/* the earliest window it fired */
	size_t at;		/* rows fired of h->rows */
	/* hashagg_ledger(): the records of each window (sorted by start;
	 * the last one used at lw_at), and those found late */
	int ledger;
	struct ledger_win *lw;
	size_t nlw, caplw, lw_at;
	struct ledger_win late;
	/* --cumulate (hashagg_stream() only): groups are of panes (those of
	 * records whose pane had ended: of the watermark's pane), folded
	 * into the windows of the size as they fire; regroup: no fold can
	 * be inexact; gave_up: one was (hashagg_gave_up()) */
	int cum, regroup, gave_up;
	struct span wm_span;
	struct cumwin *cw;	/* sorted by start */
	size_t ncw, capcw;
	struct crow *merged;	/* scratch of cum_merge() */
	size_t capmerged;
};

/* hashagg_fire_due(): windows fire once the groups held are twice those
 * kept the last time, and this many more: each group is looked at a
 * constant number of times, and the table holds at most about twice the
 * open windows' groups. */
#define FIRE_MIN 4096

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
	return hashagg_fits(c, g) || (c->wkind == WK_CUMULATE && !c->fill &&
	    c->top_n == 0 && c->emit_every == 0 &&
	    aggs_regroupable_exact(g));
}

struct hashagg *
hashagg_new(const struct config *c, struct aggs *g, uint64_t budget)
{
	struct hashagg *h = xcalloc(1, sizeof(*h));
	size_t i;

	h->c = c;
	h->g = g;
	assigner_init(&h->as, c);
	if (arena_init(&h->a) != 0)
		fwin_die("cannot map memory: %s", strerror(errno));
	h->cap = HA_INITCAP;
	h->table = arena_alloc(&h->a, h->cap * sizeof(struct hslot));
	hashagg_budget(h, budget);
	h->maxt = INT64_MIN;
	h->wm = INT64_MIN;
	h->min_start = INT64_MAX;
	h->fired_from = INT64_MAX;
	h->naggs = c->naggs;
	h->pend[0].vals = xcalloc(AHEAD * (c->naggs ? c->naggs : 1),
	    sizeof(struct aval));
	for (i = 1; i < AHEAD; i++)
		h->pend[i].vals = h->pend[0].vals + i * c->naggs;
	return h;
}

void
hashagg_budget(struct hashagg *h, uint64_t budget)
{
	/* (slots name groups in 32 bits: SLOT_REACH of arena at most) */
	h->budget = budget < SLOT_REACH / 2 ? budget : SLOT_REACH / 2;
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
	arena_fini(&h->a);
	free(h->pend[0].vals);
	free(h->rows);
	free(h->lw);
	free(h);
}

static inline struct group *
group_at(const struct hashagg *h, aoff g)
{
	return arena_ptr(&h->a, g);
}

/* The table: valid until the next arena_alloc. */
static inline struct hslot *
table(const struct hashagg *h)
{
	return arena_ptr(&h->a, h->table);
}

/* The bytes of a group of a key of keylen bytes. */
static inline size_t
group_size(const struct hashagg *h, size_t keylen)
{
	return sizeof(struct group) + ((keylen + 7) & ~7u) +
	    aggs_accsize(h->g);
}

static inline aoff
group_acc(const struct hashagg *h, aoff g)
{
	return g + sizeof(struct group) + ((group_at(h, g)->g_len + 7) & ~7u);
}

/* A window's key: the key's hash and the window's start, mixed (the
 * finalizer of MurmurHash3) so that neighbouring windows of one key land
 * far apart. */
static inline uint64_t
group_hash(uint64_t keyhash, int64_t start)
{
	uint64_t x = keyhash ^ ((uint64_t)start * 0x9e3779b97f4a7c15u);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdu;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53u;
	x ^= x >> 33;
	return x;
}

static inline uint64_t
slot_hash(const struct hashagg *h, const struct hslot *s)
{
	const struct group *gp = group_at(h, (aoff)s->g * SLOT_UNIT);

	return group_hash(key_hash(gp->g_key, gp->g_len), gp->g_start);
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
		for (j = slot_hash(h, &old[i]) & (cap - 1); s[j].g != 0;
		    j = (j + 1) & (cap - 1))
			;
		s[j] = old[i];
	}
	arena_free(&h->a, h->table, h->cap * sizeof(struct hslot));
	h->table = t;
	h->cap = cap;
}

/* (live bytes: a stream's table reuses what its fired groups held) */
static uint64_t
bytes_held(const struct hashagg *h)
{
	return arena_hdr(&h->a)->ah_live;
}

/* The group (start, key) of hash gh, made if new; 0 when it would be
 * new past the budget (with bounded). */
static inline aoff
group_of(struct hashagg *h, uint64_t gh, int64_t start, const char *key,
    size_t keylen, int bounded)
{
	struct hslot *slot = table(h);
	struct group *gp;
	uint64_t i, mask = h->cap - 1;
	uint32_t tag = (uint32_t)(gh >> 32);
	aoff g;

	for (i = gh & mask; slot[i].g != 0; i = (i + 1) & mask) {
		if (slot[i].tag != tag)
			continue;
		g = (aoff)slot[i].g * SLOT_UNIT;
		gp = group_at(h, g);
		if (gp->g_start == start && gp->g_len == keylen &&
		    memcmp(gp->g_key, key, keylen) == 0)
			return g;
	}
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
	if (++h->n * 2 > h->cap)
		grow_table(h);
	if (arena_hdr(&h->a)->ah_used > h->peak)
		h->peak = arena_hdr(&h->a)->ah_used;
	/* (grown past what the cache holds: from the next record on; none
	 * waits now, or this is the oldest's) */
	if (h->want_ahead && bytes_held(h) > AHEAD_FROM)
		h->ahead = 1;
	return g;
}

/* Adds values vals to the group (start, key) of hash gh, made if new.
 * Returns HA_ADDED, or HA_FULL when it would be new past the budget
 * (not with the look-ahead: hashagg_add() said so before it took the
 * record, which is added now). */
static int
add_to_group(struct hashagg *h, uint64_t gh, int64_t start, const char *key,
    size_t keylen, const struct aval *vals)
{
	aoff g = group_of(h, gh, start, key, keylen, !h->ahead);

	if (g == 0)
		return HA_FULL;
	aggs_add(h->g, &h->a, group_acc(h, g), vals, h->seq++);
	return HA_ADDED;
}

/* Warms the slot of group hash gh (stage 0) or, the slot in cache by
 * then, the group it names (stage 1). */
static inline void
warm_group(const struct hashagg *h, uint64_t gh, int stage)
{
	const struct hslot *s = &table(h)[gh & (h->cap - 1)];

	if (stage == 0)
		__builtin_prefetch(s);
	else if (s->g != 0) {	/* its header and key, its accumulators */
		__builtin_prefetch(arena_ptr(&h->a, (aoff)s->g * SLOT_UNIT));
		__builtin_prefetch(arena_ptr(&h->a, (aoff)s->g * SLOT_UNIT +
		    64));
	}
}

/* The oldest record of the look-ahead goes to its group. */
static void
take_oldest(struct hashagg *h)
{
	struct pending *q = &h->pend[h->pend_at % AHEAD];

	(void)add_to_group(h, q->gh, q->start, q->key, q->keylen, q->vals);
	h->pend_at++;
	h->npend--;
}

/* The look-ahead's records all go to their groups. */
static void
take_pending(struct hashagg *h)
{
	while (h->npend > 0)
		take_oldest(h);
}

static void
note(const struct hashagg *h, struct ledger_win *e, int64_t t)
{
	e->n++;
	if (t < e->mint)
		e->mint = t;
	if (sat_add(h->wm, -t) > e->lag)
		e->lag = sat_add(h->wm, -t);
}

/* The ledger's entry of the window that starts at start, made if new. */
static struct ledger_win *
ledger_at(struct hashagg *h, int64_t start)
{
	size_t lo = 0, hi = h->nlw, mid;

	if (h->nlw > 0 && h->lw[h->lw_at].start == start)
		return &h->lw[h->lw_at];
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (h->lw[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == h->nlw || h->lw[lo].start != start) {
		xgrow(&h->lw, &h->caplw, h->nlw + 1, sizeof(*h->lw));
		memmove(h->lw + lo + 1, h->lw + lo,
		    (h->nlw - lo) * sizeof(*h->lw));
		h->lw[lo].start = start;
		h->lw[lo].n = 0;
		h->lw[lo].mint = INT64_MAX;
		h->lw[lo].lag = INT64_MIN;
		h->nlw++;
	}
	h->lw_at = lo;
	return &h->lw[lo];
}

int
hashagg_add(struct hashagg *h, int64_t t, const int64_t *win,
    const char *key, size_t keylen, uint64_t hash, const struct aval *vals)
{
	struct pending *q;
	int64_t start, pend = 0;
	uint64_t gh;
	int rc;

	if (win != NULL)
		start = *win;
	else if (!assign_pane(&h->as, &h->last, t, &start))
		return HA_RANGE;	/* (a tumbling window has no gaps) */
	if (h->stream) {	/* (records in input order: any values) */
		if (start != h->last_start) {
			h->last_start = start;
			h->last_pend = h->as.ops->end_after(&h->as, start);
			h->last_end = h->cum ?
			    h->as.ops->last_end(&h->as, start) : h->last_pend;
		}
		if (h->last_end <= h->wm) {	/* its last window */
			if (h->ledger)
				note(h, &h->late, t);
			return HA_LATE;
		}
		pend = h->last_pend;
		if (h->cum && !aggs_any_order_vals(h->g, vals))
			return HA_ORDER;	/* (a floating sum: grouping shows) */
		/* its pane's windows have fired: it joins those still to
		 * fire, that is, the watermark's pane's (fwin(1): WINDOWS) */
		if (h->cum && pend <= h->wm) {
			if (!assign_pane(&h->as, &h->wm_span, h->wm, &start))
				return HA_RANGE;
			pend = h->wm_span.pane_end;
		}
	} else if (!aggs_any_order_vals(h->g, vals))
		return HA_ORDER;
	gh = group_hash(hash, start);
	if (!h->ahead || keylen > sizeof(q->key)) {
		take_pending(h);
		if ((rc = add_to_group(h, gh, start, key, keylen, vals)) !=
		    HA_ADDED)
			return rc;
	} else {
		/* said full now, for a group that may not be new: the
		 * budget is a bound, not a count */
		if (bytes_held(h) > h->budget)
			return HA_FULL;
		if (h->npend == AHEAD)
			take_oldest(h);
		q = &h->pend[(h->pend_at + h->npend++) % AHEAD];
		q->gh = gh;
		q->start = start;
		q->keylen = (uint32_t)keylen;
		memcpy(q->key, key, keylen);
		memcpy(q->vals, vals, h->naggs * sizeof(*vals));
		warm_group(h, gh, 0);
		if (h->npend > AHEAD / 2)	/* its slot fetched by now */
			warm_group(h, h->pend[(h->pend_at + h->npend - 1 -
			    AHEAD / 2) % AHEAD].gh, 1);
	}
	if (h->stream) {
		if (h->ledger)
			note(h, ledger_at(h, start), t);
		if (start < h->min_start) {
			h->min_start = start;
			h->min_end = pend;
		}
		if (t > h->maxt && sat_add(t, -h->lateness) > h->wm)
			h->wm = sat_add(t, -h->lateness);
	}
	if (t > h->maxt)
		h->maxt = t;
	return HA_ADDED;
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
	h->want_ahead = aggs_flat(h->g);
	h->ahead = h->want_ahead && bytes_held(h) > AHEAD_FROM;
}

void
hashagg_prefetch(const struct hashagg *h, int64_t win, uint64_t hash,
    int stage)
{
	warm_group(h, group_hash(hash, win), stage);
}

/* --- firing: the groups sorted by (start, key) --- */

/* Byte b of a row's sort key: the start (its sign flipped, so that it
 * orders as unsigned) above the key prefix; b 0 is the lowest. */
static inline unsigned
sort_byte(const struct hrow *r, unsigned b)
{
	uint64_t v = b < 8 ? r->prefix :
	    (uint64_t)r->start ^ ((uint64_t)1 << 63);

	return (unsigned)(v >> (8 * (b & 7)) & 0xff);
}

static inline const struct group *
row_group(const struct hrow *r)
{
	return group_at(r->h, r->g);
}

static int
key_order(const void *va, const void *vb, void *arg)
{
	const struct group *a = row_group(va), *b = row_group(vb);

	return key_cmp(*(const size_t *)arg, a->g_key, a->g_len, b->g_key,
	    b->g_len);
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
static void
collect(struct hashagg *h, int64_t from, int64_t upto)
{
	const struct group *gp;
	uint64_t i;
	aoff g;

	take_pending(h);
	free(h->rows);
	h->rows = xmalloc(h->n * sizeof(*h->rows) + 1);
	h->nrows = 0;
	h->at = 0;
	for (i = 0; i < h->cap; i++) {
		if ((g = (aoff)table(h)[i].g * SLOT_UNIT) == 0)
			continue;
		gp = group_at(h, g);
		if (gp->g_start < from || gp->g_start >= upto)
			continue;
		h->rows[h->nrows].start = gp->g_start;
		h->rows[h->nrows].prefix = key_prefix(h->c->nkeys, gp->g_key,
		    gp->g_len);
		h->rows[h->nrows].g = g;
		h->rows[h->nrows++].h = h;
	}
	if (h->nrows > 0)
		sort_rows(h->c->nkeys, h->rows, h->nrows);
}

void
hashagg_sort(struct hashagg *h)
{
	if (h->rows == NULL)
		collect(h, INT64_MIN, INT64_MAX);
}

/* The order of two rows: (start, key). */
static int
row_order(const struct hrow *a, const struct hrow *b, size_t nkeys)
{
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->prefix != b->prefix)
		return a->prefix < b->prefix ? -1 : 1;
	return key_order(a, b, &nkeys);
}

/* Fires h's rows (collect()), and other's, merged, from where the last
 * call stopped up to those of windows that start at or after upto. */
static uint64_t
fire_rows(struct hashagg *h, struct hashagg *other, int64_t upto,
    op_emit_fn emit, void *arg)
{
	size_t nkeys = h->c->nkeys, i = h->at, j = 0, n = h->nrows, m = 0;
	size_t fired = 0;
	struct op_row row = { .has_bounds = 1, .final = 1, .g = h->g };
	const struct hrow *a, *b, *first;
	const struct group *gp;
	int cmp;

	if (other != NULL) {
		j = other->at;
		m = other->nrows;
	}
	/* both tables' rows merged; a group of each: folded together */
	while (i < n || j < m) {
		a = i < n ? &h->rows[i] : NULL;
		b = j < m ? &other->rows[j] : NULL;
		cmp = a == NULL ? 1 : b == NULL ? -1 : row_order(a, b, nkeys);
		first = cmp <= 0 ? a : b;
		/* (first is NULL only past both ends: said for the analyzer) */
		if (first == NULL || first->start >= upto)
			break;
		if (a != NULL && i + 4 < n)
			warm(row_group(a + 4));
		if (b != NULL && j + 4 < m)
			warm(row_group(b + 4));
		gp = row_group(first);
		row.start = gp->g_start;
		row.end = h->as.ops->end_after(&h->as, gp->g_start);
		row.key = gp->g_key;
		row.keylen = gp->g_len;
		row.a = &first->h->a;
		aggs_fold_begin(h->g);
		if (cmp <= 0) {
			aggs_fold(h->g, &h->a, group_acc(h, a->g));
			i++;
		}
		if (cmp >= 0) {
			aggs_fold(h->g, &other->a, group_acc(other, b->g));
			j++;
		}
		emit(arg, &row);
		fired++;
	}
	h->at = i;
	if (other != NULL)
		other->at = j;
	return fired;
}

static uint64_t cum_fire(struct hashagg *h, int64_t w, int64_t from,
    op_emit_fn emit, void *arg);
static void cum_absorb(struct hashagg *h, struct hashagg *other,
    int64_t upto);
static int64_t cum_size_start(const struct hashagg *h, int64_t t);

uint64_t
hashagg_fire_before(struct hashagg *h, struct hashagg *other, int64_t upto,
    op_emit_fn emit, void *arg)
{
	uint64_t n;

	/* --cumulate: other's windows that it has not begun to fire are
	 * h's (h has none where it has), all of which fire; the rest of
	 * other's fire at the end */
	if (h->cum) {
		if (other != NULL)
			cum_absorb(h, other, upto < other->fired_from ? upto :
			    other->fired_from);
		n = cum_fire(h, INT64_MAX, INT64_MIN, emit, arg);
		if (upto == INT64_MAX && other != NULL && !h->gave_up)
			n += cum_fire(other, INT64_MAX, INT64_MIN, emit, arg);
		return n;
	}
	hashagg_sort(h);
	if (other != NULL)
		hashagg_sort(other);
	return fire_rows(h, other, upto, emit, arg);
}

uint64_t
hashagg_fire(struct hashagg *h, struct hashagg *other, op_emit_fn emit,
    void *arg)
{
	return hashagg_fire_before(h, other, INT64_MAX, emit, arg);
}

/* The table again, without the groups of windows that start in [from,
 * upto): those of h->rows[0..nrows), freed (but those whose g is 0:
 * cum_merge() moved them; and with merged, it merged what they kept). */
static void
rebuild(struct hashagg *h, int64_t from, int64_t upto, int merged)
{
	uint64_t i, j, mask = h->cap - 1;
	struct hslot *s, *old;
	const struct group *gp;
	aoff t, g;

	t = arena_alloc(&h->a, h->cap * sizeof(struct hslot));
	s = arena_ptr(&h->a, t);
	old = table(h);
	memset(s, 0, h->cap * sizeof(struct hslot));
	h->n = 0;
	h->min_start = INT64_MAX;
	for (i = 0; i < h->cap; i++) {
		if (old[i].g == 0)
			continue;
		gp = group_at(h, (aoff)old[i].g * SLOT_UNIT);
		if (gp->g_start >= from && gp->g_start < upto)
			continue;
		if (gp->g_start < h->min_start)
			h->min_start = gp->g_start;
		for (j = slot_hash(h, &old[i]) & mask; s[j].g != 0;
		    j = (j + 1) & mask)
			;
		s[j] = old[i];
		h->n++;
	}
	arena_free(&h->a, h->table, h->cap * sizeof(struct hslot));
	h->table = t;
	for (i = 0; i < h->nrows; i++) {
		if ((g = h->rows[i].g) == 0)
			continue;
		if (!merged)
			aggs_release(h->g, &h->a, group_acc(h, g));
		arena_free(&h->a, g, group_size(h, group_at(h, g)->g_len));
	}
	if (h->min_start != INT64_MAX)
		h->min_end = h->as.ops->end_after(&h->as, h->min_start);
	/* (the look-ahead is empty: collect() took it) */
	h->ahead = h->want_ahead && bytes_held(h) > AHEAD_FROM;
}

/* Windows end at or before w when they start before this: before w's
 * window (windows tile time); out of the range of windows, before none
 * or all. */
static int64_t
ended_before(const struct hashagg *h, int64_t w)
{
	struct span sp = { 0 };
	int64_t start;

	if (assign_pane(&h->as, &sp, w, &start))
		return start;
	return w < 0 ? INT64_MIN : INT64_MAX;
}

uint64_t
hashagg_drop_ended(struct hashagg *h, int64_t w, int64_t *late_by)
{
	/* (--cumulate: a window of the size ends at or before w) */
	int64_t upto = h->cum ? cum_size_start(h, w) : ended_before(h, w);
	int64_t lag;
	uint64_t n = 0;
	size_t i;
	const struct ledger_win *e;

	*late_by = INT64_MIN;
	/* the rows sorted (on the part's thread): those dropped are the
	 * first, the rest stay sorted to fire */
	hashagg_sort(h);
	for (i = 0; i < h->nrows && h->rows[i].start < upto; i++)
		;
	n = h->nrows;
	h->nrows = i;
	rebuild(h, INT64_MIN, upto, 0);
	memmove(h->rows, h->rows + i, (n - i) * sizeof(*h->rows));
	h->nrows = n - i;
	n = 0;
	for (i = 0; i <= h->nlw; i++) {
		e = i < h->nlw ? &h->lw[i] : &h->late;
		if (e->n == 0 || (i < h->nlw && e->start >= upto))
			continue;
		n += e->n;
		lag = sat_add(w, -e->mint) > e->lag ? sat_add(w, -e->mint) :
		    e->lag;
		if (lag > *late_by)
			*late_by = lag;
	}
	return n;
}

/* --- --cumulate: panes folded into the windows of the size --- */

/* The open window of the size holding the window that ends at e, made
 * if new (its first window to fire: e's). */
static struct cumwin *
cum_window(struct hashagg *h, int64_t e)
{
	const struct assigner *as = &h->as;
	struct cumwin *cw;
	size_t i;

	for (i = 0; i < h->ncw; i++)
		if (h->cw[i].start < e && e <= h->cw[i].end)
			return &h->cw[i];
	xgrow(&h->cw, &h->capcw, h->ncw + 1, sizeof(*h->cw));
	for (i = h->ncw; i > 0 && h->cw[i - 1].start > e; i--)
		h->cw[i] = h->cw[i - 1];
	h->ncw++;
	cw = &h->cw[i];
	memset(cw, 0, sizeof(*cw));
	cw->start = as->ops->start(as, e);
	cw->end = as->ops->last_end(as, e - 1);
	cw->next = e;
	if (cw->start < h->fired_from)	/* (its first row fires now) */
		h->fired_from = cw->start;
	return cw;
}

static int
crow_order(const struct hashagg *h, const struct crow *a, uint64_t bprefix,
    aoff bg)
{
	const struct group *ga, *gb;

	if (a->prefix != bprefix)
		return a->prefix < bprefix ? -1 : 1;
	ga = group_at(h, a->g);
	gb = group_at(h, bg);
	return key_cmp(h->c->nkeys, ga->g_key, ga->g_len, gb->g_key,
	    gb->g_len);
}

/* The groups h->rows[i..j) of the pane that ends at cw's next window's
 * end, in key order, into cw's: a key's new group moves there (its g in
 * h->rows becomes 0), else it is merged into the key's. */
static void
cum_merge(struct hashagg *h, struct cumwin *cw, size_t i, size_t j)
{
	struct crow *m, *t;
	size_t a = 0, n = 0;
	struct hrow *b;
	int cmp;

	if (i == j)
		return;
	xgrow(&h->merged, &h->capmerged, cw->n + (j - i), sizeof(*m));
	m = h->merged;
	while (a < cw->n || i < j) {
		b = i < j ? &h->rows[i] : NULL;
		cmp = b == NULL ? -1 : a == cw->n ? 1 :
		    crow_order(h, &cw->rows[a], b->prefix, b->g);
		if (cmp < 0) {
			m[n++] = cw->rows[a++];
			continue;
		}
		if (cmp == 0) {	/* (merged: freed by rebuild()) */
			aggs_merge(h->g, &h->a, group_acc(h, cw->rows[a].g),
			    group_acc(h, b->g));
			m[n++] = cw->rows[a++];
		} else {
			m[n].prefix = b->prefix;
			m[n++].g = b->g;
			b->g = 0;
		}
		i++;
	}
	/* (the two buffers swap: the old one is the next scratch) */
	t = cw->rows;
	cw->rows = m;
	cw->n = n;
	h->merged = t;
	n = cw->cap;
	cw->cap = h->capmerged;
	h->capmerged = n;
}

/* cw's window that ends at e, a row per group; stops at a fold that is
 * not exact (h->gave_up: the operator folds such sums in another
 * grouping, and only it can give their bytes). Returns the rows fired. */
static uint64_t
cum_emit(struct hashagg *h, const struct cumwin *cw, int64_t e,
    op_emit_fn emit, void *arg)
{
	struct op_row row = { .has_bounds = 1, .final = 1, .g = h->g,
		.start = cw->start, .end = e, .a = &h->a };
	const struct group *gp;
	size_t i;

	for (i = 0; i < cw->n; i++) {
		if (i + 4 < cw->n)
			warm(group_at(h, cw->rows[i + 4].g));
		gp = group_at(h, cw->rows[i].g);
		aggs_fold_begin(h->g);
		aggs_fold(h->g, &h->a, group_acc(h, cw->rows[i].g));
		if (!h->regroup && !aggs_fold_exact(h->g)) {
			h->gave_up = 1;
			break;
		}
		row.key = gp->g_key;
		row.keylen = gp->g_len;
		emit(arg, &row);
	}
	return i;
}

/* cw's windows have all fired: its groups are freed. */
static void
cum_close(struct hashagg *h, struct cumwin *cw)
{
	size_t i;
	aoff g;

	for (i = 0; i < cw->n; i++) {
		g = cw->rows[i].g;
		aggs_release(h->g, &h->a, group_acc(h, g));
		arena_free(&h->a, g, group_size(h, group_at(h, g)->g_len));
	}
	free(cw->rows);
	h->ncw--;
	memmove(cw, cw + 1, (size_t)(h->cw + h->ncw - cw) * sizeof(*cw));
}

/* The earliest end of a window to fire (INT64_MAX: none). */
static int64_t
cum_due(const struct hashagg *h)
{
	int64_t e = h->min_start != INT64_MAX ? h->min_end : INT64_MAX;
	size_t i;

	for (i = 0; i < h->ncw; i++)
		if (h->cw[i].next < e)
			e = h->cw[i].next;
	return e;
}

/* The start of the window of the size that holds t. */
static int64_t
cum_size_start(const struct hashagg *h, int64_t t)
{
	struct span sp;

	if (h->as.ops->assign(&h->as, t, &sp) != AS_OK)
		return t < 0 ? INT64_MIN : INT64_MAX;
	return h->as.ops->start(&h->as, sp.last_end);
}

/* The first start of a window of the size at or after t. */
static int64_t
cum_align(const struct hashagg *h, int64_t t)
{
	int64_t ws;

	if (t == INT64_MIN || t == INT64_MAX ||
	    (ws = cum_size_start(h, t)) == t)
		return t;
	return ws == INT64_MIN || ws == INT64_MAX ? ws :
	    h->as.ops->last_end(&h->as, t);
}

/* Fires every window that ends at or before w and starts at or after
 * from (the start of a window of the size), in (end, start, key) order:
 * the panes that ended, in end order, each folded into its window of
 * the size as that window's row fires. Returns the rows fired. */
static uint64_t
cum_fire(struct hashagg *h, int64_t w, int64_t from, op_emit_fn emit,
    void *arg)
{
	int64_t upto = ended_before(h, w), e;
	uint64_t fired = 0;
	size_t i = 0, j, k;
	struct cumwin *cw;

	collect(h, from, upto);
	for (;;) {
		/* the next end: a pane's, or an open window's next */
		e = i < h->nrows ? h->as.ops->end_after(&h->as,
		    h->rows[i].start) : INT64_MAX;
		for (k = 0; k < h->ncw; k++)
			if (h->cw[k].next < e && h->cw[k].start >= from)
				e = h->cw[k].next;
		if (e > w || e == INT64_MAX)
			break;
		cw = cum_window(h, e);
		/* (ends are pane bounds: the panes before e end at e) */
		for (j = i; j < h->nrows && h->rows[j].start < e; j++)
			;
		cum_merge(h, cw, i, j);
		i = j;
		fired += cum_emit(h, cw, e, emit, arg);
		if (h->gave_up)
			return fired;	/* (the table is dropped) */
		if (e >= cw->end)
			cum_close(h, cw);
		else
			cw->next = h->as.ops->end_after(&h->as, e);
	}
	rebuild(h, from, upto, 1);
	free(h->rows);
	h->rows = NULL;
	h->nrows = 0;
	h->kept = h->n;
	return fired;
}

/* other's groups of windows of the size that start before upto, into
 * h's: another part of the same input, after h's (split.h; flat
 * aggregates, their folds kept as accumulators). A group whose pane
 * ended before h's watermark joins the watermark's pane, as its records
 * would have, read after h's. */
static void
cum_absorb(struct hashagg *h, struct hashagg *other, int64_t upto)
{
	const struct group *gp;
	int64_t start;
	size_t i;
	aoff g;

	collect(other, INT64_MIN, upto);
	for (i = 0; i < other->nrows; i++) {
		gp = group_at(other, other->rows[i].g);
		start = gp->g_start;
		if (h->as.ops->end_after(&h->as, start) <= h->wm)
			(void)assign_pane(&h->as, &h->wm_span, h->wm, &start);
		g = group_of(h, group_hash(key_hash(gp->g_key, gp->g_len),
		    start), start, gp->g_key, gp->g_len, 0);
		aggs_fold_begin(h->g);
		aggs_fold(h->g, &h->a, group_acc(h, g));
		aggs_fold(h->g, &other->a, group_acc(other, other->rows[i].g));
		aggs_fold_keep(h->g, &h->a, group_acc(h, g));
	}
	rebuild(other, INT64_MIN, upto, 0);
	free(other->rows);
	other->rows = NULL;
	other->nrows = 0;
}

int
hashagg_gave_up(const struct hashagg *h)
{
	return h->gave_up;
}

uint64_t
hashagg_fire_due(struct hashagg *h, int force, int64_t from, op_emit_fn emit,
    void *arg)
{
	uint64_t fired;
	int64_t upto;

	if (h->cum)
		return cum_due(h) > h->wm || (!force &&
		    h->n < 2 * h->kept + FIRE_MIN) ? 0 :
		    cum_fire(h, h->wm, cum_align(h, from), emit, arg);
	if (h->min_start == INT64_MAX || h->min_end > h->wm ||
	    (!force && h->n < 2 * h->kept + FIRE_MIN))
		return 0;
	upto = ended_before(h, h->wm);
	collect(h, from, upto);
	if (h->nrows > 0 && h->rows[0].start < h->fired_from)
		h->fired_from = h->rows[0].start;
	fired = fire_rows(h, NULL, INT64_MAX, emit, arg);
	rebuild(h, from, upto, 0);
	free(h->rows);
	h->rows = NULL;
	h->nrows = 0;
	h->kept = h->n;
	return fired;
}

void
hashagg_set_aggs(struct hashagg *h, struct aggs *g)
{
	h->g = g;
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
