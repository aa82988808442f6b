/* hashint: the insides of the table of hashagg.h, shared by its six
 * parts and no other module. From the bottom up, each calling only the
 * ones below it: hashagg.c (the table: its groups, slots and windows,
 * records added), hashrows.c (a range of windows' groups taken out
 * sorted, and dropped), hashspill.c (sorted runs past the budget),
 * hashcum.c (--cumulate's windows of the size, folded from its panes)
 * and hashslide.c (--slide's running folds of its panes) side by side,
 * and hashfire.c (firing: its own rows, the runs', the windows of the
 * size or the sliding windows). One call goes up, through a callback
 * (h->slide_join): a record whose pane has joined --slide's running
 * groups goes from hashagg.c to hashslide.c. */
#ifndef FWIN_HASHINT_H
#define FWIN_HASHINT_H

#include <stddef.h>
#include <stdint.h>

#include "window/assign.h"
#include "exec/hashagg.h"
#include "io/keycodec.h"
#include "base/util.h"

struct group {
	int64_t g_start;	/* its window's */
	uint32_t g_len;		/* of its key */
	uint32_t g_pad;
	char g_key[];		/* then the accumulators, 8-aligned */
};

/* A slot of the table: 8 bytes, so that a probe's line holds eight. A
 * group's first slot to probe is its tag's low bits, so the table grows
 * and loses groups without reading them. */
struct hslot {
	uint32_t tag;		/* its group's hash's upper half */
	uint32_t g;		/* its group's offset / 16; 0: empty */
};

/* A group of a window's list: its slot, and its key's prefix, taken
 * when the group is made (and in the cache), so that sorting a window's
 * groups to fire them reads none of them. */
struct hwslot {
	uint64_t prefix;	/* key_prefix() of its key */
	struct hslot s;
};

/* A window held (a pane, for --cumulate): its groups, as their slots
 * name them, so that firing a window reads its groups and no other, and
 * drops them from the table without reading them. */
struct hwin {
	int64_t start;
	struct hwslot *g;
	size_t n, cap;
};

/* hrow.g of a group that cum_merge() moved into a window of the size:
 * not freed with its pane */
#define ROW_MOVED 1

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

#define AHEAD 16		/* records looked ahead */
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
	uint32_t tag;		/* its slot's */
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

/* --slide: a key's running group, the fold of its pane groups that the
 * window to fire next holds (panes: how many), in key order; redo: its
 * unmerge was not exact, and it is folded again from them. */
struct srun {
	uint64_t prefix;	/* key_prefix() of its key */
	aoff g;
	uint32_t panes, redo;
};

/* The buffers of a firing, kept for the next: freed and made again at
 * every firing, a buffer of a table's size is mapped afresh and faulted
 * in a page at a time (a thread's heap gives it back to the kernel).
 * Each is one a firing holds anyway, so the peak is as it was; a table
 * emptied to keep within its budget (ha_reset) lets them go. */
struct hspare {
	struct hrow *rows[2];	/* the two largest rows used (ha_rows_keep):
				   --slide holds two at once */
	size_t rows_cap[2];
	void *scratch;		/* ha_collect()'s sort, then ha_drop()'s */
	size_t scratch_bytes;
};

/* Entries of the front (hashagg.c's front_of()), each a struct hslot
 * naming the group that a group hash with its low bits last found:
 * --slide keeps a group per key and pane for as long as a window holds
 * the pane (SIZE/STEP panes), so the slots of the panes that records go
 * to lie apart, each on a line of its own, in a table that many times
 * larger; the front holds them on 8 bytes each. */
#define FRONT 2048

struct hashagg {
	const struct config *c;
	struct aggs *g;
	const struct plain_agg *plain;	/* aggs_sums(g): added inline */
	const struct plain_agg *one;	/* aggs_one_call(g): called at once */
	/* add_one()'s commonest case, which add_quick() takes: a stream
	 * of tumbling windows (not --slide, not --cumulate), no look-ahead
	 * (quick_again() after each of those changes) */
	int quick;
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
	int blocks;		/* accumulators name blocks: warmed too */
	struct pending pend[AHEAD];
	size_t naggs, npend;
	/* add_quick() adds a record one late when its accumulators name a
	 * block (add_late()): late_slot, that accumulator's offset (-1:
	 * never); late_acc, the accumulators of the record that waits (0:
	 * none), and its values */
	ptrdiff_t late_slot;
	aoff late_acc;
	struct aval *late_vals;
	struct hrow *rows;	/* hashagg_sort(): the groups in order */
	size_t nrows, caprows;
	struct hspare spare;
	struct hwin *win;	/* the windows held, sorted by start */
	size_t nwin, capwin, win_at;	/* win_at: the last one used */
	/* hashagg_stream(): the watermark, and the window of the last
	 * record (its start and end); the earliest window held, its end,
	 * and the groups kept by the last hashagg_fire_due() */
	int stream;
	int64_t lateness, wm;
	int64_t last_start, last_end, last_pend;
	int64_t min_start, min_end;
	uint64_t kept;
	/* hashagg_fire_due()'s from (a second half's): the windows that
	 * start before hold (from, or for --cumulate the window of the size
	 * at or after it) are held to the join, neither fired nor counted
	 * in min_start or kept; held: their groups */
	int64_t hold_from, hold;
	uint64_t held;
	int64_t fired_from;	/* the earliest window it fired */
	size_t at;		/* rows fired of h->rows */
	/* hashagg_ledger(): the records of each window (in the order they
	 * were made, the last one used at lw_at; lwi: an index of their
	 * starts, open-addressed, each entry 1 + its place, 0 free), and
	 * those found late */
	int ledger;
	struct ledger_win *lw;
	size_t nlw, caplw, lw_at;
	uint32_t *lwi;
	size_t caplwi;
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
	/* --slide (hashagg_stream() only; hashslide.c): groups are of
	 * panes; the panes that start before sl_in have joined the running
	 * groups sr (of nsr; srm: scratch), those before sl_out have left
	 * them and the table */
	int slide;
	struct hslot *front;	/* of FRONT, hashagg_slide() on */
	int (*slide_join)(struct hashagg *h, uint64_t gh, int64_t start,
	    const char *key, size_t keylen, const struct aval *vals);
	int64_t sl_in, sl_out;
	uint64_t sl_open;	/* groups of panes past sl_in and the hold */
	struct srun *sr, *srm;
	size_t nsr, capsr, capsrm;
	/* hashagg_spill(): the sorted runs written (hashspill.c), how
	 * many, and whether one could not be read back; what the table
	 * calls, below hashspill.c, to spill a run when it is full (0: it
	 * did, and is empty) and to free the runs with it */
	struct ha_runs *runs;
	size_t runs_n;
	int failed;
	int (*spill)(struct hashagg *h);
	void (*spill_free)(struct hashagg *h);
};

/* hashagg_fire_due(): windows fire once the groups held are twice those
 * kept the last time, and this many more: each group is looked at a
 * constant number of times, and the table holds at most about twice the
 * open windows' groups. */
#define FIRE_MIN 4096

/* (live bytes: a stream's table reuses what its fired groups held) */
static inline uint64_t
bytes_held(const struct hashagg *h)
{
	return arena_hdr(&h->a)->ah_live;
}

/* Whether records wait in the look-ahead (hashagg_look_ahead()): the
 * groups they go to are past what the cache holds. A sliding table's
 * records go to its open panes (sl_open of its n groups); the panes in
 * the running groups, or held for the first half, are read again only
 * as they leave, and may be many times more. */
static inline int
ahead_due(const struct hashagg *h)
{
	uint64_t b = bytes_held(h);

	if (h->slide && h->n > 0)
		b = b / h->n * h->sl_open;
	return h->want_ahead && b > AHEAD_FROM;
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

/* The first slot to probe for group hash gh. */
static inline uint64_t
slot_home(const struct hashagg *h, uint64_t gh)
{
	return (gh >> 32) & (h->cap - 1);
}

/* Rows are warmed this many at once, this many ahead of their use
 * (warm_rows()). */
#define WARM_ROWS 16

/* Brings the groups of h's rows r[0..n) into the cache, all at once,
 * without waiting for them: loads whose values nothing uses (util.h's
 * warm(); on the virtual machines measured, prefetches into a table of
 * hundreds of MB were dropped), back to back so that their misses
 * overlap. Of each
 * its first line, and the one a group of an empty key ends in (the line
 * of the accumulators' end, or just before it): a group is under 128
 * bytes. */
static inline void
warm_rows(const struct hashagg *h, const struct hrow *r, size_t n)
{
	size_t k, last = group_size(h, 0) - 1;

	for (k = 0; k < n; k++) {
		/* (r is never NULL while there are rows: the analyzer does
		 * not follow h->nrows) */
		/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
		warm(arena_ptr(&h->a, r[k].g & ~(aoff)ROW_MOVED));
		warm((const char *)arena_ptr(&h->a,
		    r[k].g & ~(aoff)ROW_MOVED) + last);
	}
}

/* Brings the blocks the accumulators of h's rows r[0..n) name
 * (percentiles, sketches) into the cache, as warm_rows() does their
 * groups: rows whose groups were warmed a batch before, so that reading
 * their accumulators waits for nothing. */
static inline void
warm_row_blocks(const struct hashagg *h, const struct hrow *r, size_t n)
{
	size_t k;
	aoff g;

	for (k = 0; k < n; k++) {
		/* (as in warm_rows()) */
		/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
		g = r[k].g & ~(aoff)ROW_MOVED;
		aggs_warm_blocks(h->g, &h->a, group_acc(h, g));
	}
}

/* The group a sorted row names. */
static inline const struct group *
row_group(const struct hrow *r)
{
	return group_at(r->h, r->g);
}

/* The order of two rows' keys (a qsort_r() comparator; arg: the number
 * of keys, a size_t). */
static inline int
key_order(const void *va, const void *vb, void *arg)
{
	const struct group *a = row_group(va), *b = row_group(vb);

	return key_cmp(*(const size_t *)arg, a->g_key, a->g_len, b->g_key,
	    b->g_len);
}

/* hashagg.c: the group (start, key) of hash gh, made if new (past the
 * budget too); the records that wait, all added: the one add_quick()
 * holds back, then the look-ahead's. */
aoff ha_group_of(struct hashagg *h, uint64_t gh, int64_t start,
    const char *key, size_t keylen);
void ha_take_pending(struct hashagg *h);
/* hashagg.c: the first window held that starts at or after t. */
size_t ha_window_at(const struct hashagg *h, int64_t t);

/* hashagg.c: the table empty again, as new (its time, peak, budget and
 * runs kept). */
void ha_reset(struct hashagg *h);
/* hashagg.c: the front emptied, as groups leave the table. */
void ha_front_clear(struct hashagg *h);

/* hashrows.c: the groups of windows (panes) that start in [from, upto),
 * sorted into h->rows; those groups dropped from the table and freed
 * (but those ROW_MOVED; merged: what they kept was merged away), with
 * their windows; where the windows that end at or before w start. */
void ha_collect(struct hashagg *h, int64_t from, int64_t upto);
/* A buffer of rows (cap of them), or h->rows, done with: kept for the
 * next ha_collect() if it is larger than one of the two kept (h->spare),
 * else freed. */
void ha_rows_keep(struct hashagg *h, struct hrow *r, size_t cap);
void ha_rows_done(struct hashagg *h);
void ha_drop(struct hashagg *h, int64_t from, int64_t upto, int merged);
/* ha_drop() of the rows just fired, which are let go; the groups kept. */
void ha_fired(struct hashagg *h, int64_t from, int64_t upto, int merged);
int64_t ha_ended_before(const struct hashagg *h, int64_t w);
/* hashrows.c: what the windows held say again: the groups held back by
 * h->hold, and the earliest window that is not. */
void ha_recount(struct hashagg *h);

/* hashagg.c: the group (start, key) of hash gh, or 0 (none). */
aoff ha_group_find(const struct hashagg *h, uint64_t gh, int64_t start,
    const char *key, size_t keylen);

/* hashslide.c: --slide's firing of the windows that end at or before w
 * (hashagg_fire_due(), and all at the end), and the end of the next
 * window to fire (INT64_MAX: none). */
uint64_t ha_slide_fire(struct hashagg *h, int64_t w, op_emit_fn emit,
    void *arg);
int64_t ha_slide_due(const struct hashagg *h);
/* hashslide.c: the windows that start before upto fired, other's panes
 * (the second half's table, or NULL) taken in first; those from upto on
 * are other's, and let go. And the first window start at or after t. */
uint64_t ha_slide_fire_joined(struct hashagg *h, struct hashagg *other,
    int64_t upto, op_emit_fn emit, void *arg);
int64_t ha_slide_align(const struct hashagg *h, int64_t t);

/* hashspill.c: the runs and the table (and other, or NULL) merged and
 * fired in (start, key) order. */
uint64_t ha_fire_runs(struct hashagg *h, struct hashagg *other,
    op_emit_fn emit, void *arg);

/* hashcum.c: --cumulate's firing (hashagg_fire_due() and the rest at
 * the end), its second half joined, and where its windows of the size
 * start (see there). */
uint64_t ha_cum_fire(struct hashagg *h, int64_t w, int64_t from,
    op_emit_fn emit, void *arg);
void ha_cum_absorb(struct hashagg *h, struct hashagg *other, int64_t upto);
int64_t ha_cum_due(const struct hashagg *h);
int64_t ha_cum_size_start(const struct hashagg *h, int64_t t);
int64_t ha_cum_align(const struct hashagg *h, int64_t t);

/* h->quick from what it depends on. */
static inline void
quick_again(struct hashagg *h)
{
	h->quick = h->stream && !h->cum && !h->slide && !h->ahead &&
	    !h->gave_up;
}

#endif
