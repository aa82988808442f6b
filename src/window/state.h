/* state: keyed state in the arena — interned keys, their slices (panes)
 * and the timer queue. It knows keys, panes and timers, not window kinds:
 * what a window kind keeps per key lives in a block the operator owns
 * behind each key (st_keyext), as accumulators sit behind panes; what the
 * driver carries over between runs (watermark, counters) lives in a block
 * of its own (st_globals). Everything is addressed by arena offsets.
 * Pointers returned by st_* accessors are valid until the next call that
 * allocates (st_key, st_pane, st_timer_set, aggs_add). */
#ifndef FWIN_STATE_H
#define FWIN_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/util.h"

#define T_NONE INT64_MAX	/* no time: a timer or fire that is not set */

/* The root object, at the arena header's ah_root. */
struct st_root {
	aoff sr_keytab;		/* open-addressing table of struct keyslot */
	uint64_t sr_keycap;	/* a power of two */
	uint64_t sr_nkeys;
	uint64_t sr_peak_keys;	/* the most keys held at once */
	aoff sr_heap;		/* binary min-heap of struct timer */
	uint64_t sr_heapcap, sr_heaplen;
	uint64_t sr_npanes;	/* live panes */
	aoff sr_globals;	/* the driver's block (st_globals) */
	uint64_t sr_globalsize;
};
ARENA_LAYOUT(struct st_root, 80);
ARENA_OFFSET(struct st_root, sr_globals, 64);

struct keyslot {
	uint64_t ks_hash;
	aoff ks_key;		/* 0: empty */
};
ARENA_LAYOUT(struct keyslot, 16);

/* A key: this header, its canonical bytes (see keycodec.h) padded to 8,
 * then the operator's block of keyext bytes. A lookup compares the hash,
 * length and bytes, which share the header's cache lines. */
struct key {
	uint64_t k_hash;
	aoff k_head;		/* panes, ordered by start (and k_tail) */
	aoff k_tail;
	uint64_t k_hpos;	/* 1 + its timer's index in the heap; 0: none */
	uint64_t k_run;		/* state.run once checked or made by this run */
	int64_t k_timer;	/* when this key's timer is due, or T_NONE */
	uint32_t k_len;
	uint32_t k_group;	/* key_group(k_hash) */
	uint32_t k_npanes;	/* panes in its list */
	uint32_t k_indexed;	/* its panes are in the pane index (this run) */
	char k_bytes[];		/* the key's canonical bytes */
};
ARENA_LAYOUT(struct key, 64);
ARENA_OFFSET(struct key, k_timer, 40);
ARENA_OFFSET(struct key, k_group, 52);

/* A slice of a key's records: a pane of a tumbling or sliding window
 * (p_start), a session ([p_start, p_end)), a run of records of a count
 * window (p_start is its index), or the running total of rolling mode. */
struct pane {
	aoff p_next, p_prev;
	int64_t p_start;
	int64_t p_end;
	/* the accumulators follow */
};
ARENA_LAYOUT(struct pane, 32);

struct timer {
	int64_t t_when;
	aoff t_key;
};
ARENA_LAYOUT(struct timer, 16);

struct st_lazy;
struct st_pidx;

struct state {
	struct arena a;
	size_t accsize;		/* of the blocks behind a pane's header */
	size_t keyext;		/* of the operator's block behind a key */
	uint64_t run;		/* this run's mark, random and never 0 */
	struct st_lazy *lazy;	/* restored keys not yet checked, or NULL */
	const char *corrupt;	/* a restored key found bad, or NULL */
	aoff globals;		/* sr_globals, kept here: read per record */
	struct st_pidx *pidx;	/* the pane index, or NULL (st_index_panes) */
};

/* Keeps an index of (key, pane start) for keys with many panes, so that
 * st_pane finds a record's pane in O(1) expected time however far back in
 * its key's list it lies (a long -l over input out of time order). For
 * panes whose start never changes (not sessions'). step: the pane grid's
 * spacing, or 0 if panes are not on one: where a new pane goes in the list
 * is then looked for on the grid before the list is walked. The index is
 * memory of this run, not state: a restored key is indexed again when it
 * grows. */
void st_index_panes(struct state *s, int64_t step);

/* Creates empty state for blocks of accsize bytes behind each pane and
 * keyext behind each key, and a zeroed driver block of globalsize bytes.
 * Returns 0, or -1 with errno set. */
int st_init(struct state *s, size_t accsize, size_t keyext, size_t globalsize);
void st_fini(struct state *s);

/* The driver's block (see st_init). */
static inline void *
st_globals(const struct state *s)
{
	return arena_ptr(&s->a, s->globals);
}

/* What is wrong with a restored key met so far, or NULL. Once set, every
 * lookup finds nothing and no timer is due: the caller stops the run
 * (and saves nothing). */
static inline const char *
st_corrupt(const struct state *s)
{
	return s->corrupt;
}

static inline struct st_root *
st_root(const struct state *s)
{
	return arena_ptr(&s->a, arena_hdr(&s->a)->ah_root);
}

static inline struct key *
st_keyp(const struct state *s, aoff k)
{
	return arena_ptr(&s->a, k);
}

/* The operator's block of key k. */
static inline void *
st_keyext(const struct state *s, aoff k)
{
	const struct key *kp = arena_ptr(&s->a, k);

	return arena_ptr(&s->a, k + sizeof(*kp) + ((kp->k_len + 7) & ~7u));
}

static inline struct pane *
st_panep(const struct state *s, aoff p)
{
	return arena_ptr(&s->a, p);
}

/* The accumulators of pane p. */
static inline aoff
st_acc(aoff p)
{
	return p + sizeof(struct pane);
}

/* Past this much state, st_warm loads rather than prefetches. */
#define ST_WARM_LOAD	((uint64_t)64 << 20)

/* Brings the line at arena offset off into the cache, if it is inside
 * the arena (an offset of a restored key not checked yet may not be),
 * without waiting for it. State that fits in the caches' reach is
 * prefetched; larger state is warmed with util.h's warm(), a load: on
 * the virtual machines measured, prefetches into state of
 * hundreds of MB were dropped (1M keys ran no faster with them than
 * without; with loads, 24% faster), while over a few MB loads cost 12%
 * more than prefetches. */
static inline void
st_warm(const struct state *s, aoff off)
{
	if (off == 0 || off > s->a.cap - 64)
		return;
	if (s->a.cap > ST_WARM_LOAD)
		warm(arena_ptr(&s->a, off));
	else
		__builtin_prefetch(arena_ptr(&s->a, off));
}

/* Warms the cache for a record of key hash h that comes a few records
 * later (--threads hands records over with a look ahead), so that the
 * misses of several records overlap: stage 0 fetches its slot of the key
 * table, stage 1 (the slot in cache by then) the key the slot names, and
 * stage 2 (the key in cache) the key's last pane and its accumulators.
 * Offsets are only read when inside the arena: a restored key not
 * checked yet is never trusted here. */
static inline void
st_prefetch(const struct state *s, uint64_t h, int stage)
{
	const struct st_root *r = st_root(s);
	aoff slot = r->sr_keytab + (h & (r->sr_keycap - 1)) *
	    sizeof(struct keyslot);
	const struct keyslot *ks = arena_ptr(&s->a, slot);
	const struct key *k;

	if (stage == 0) {
		st_warm(s, slot);
		return;
	}
	if (ks->ks_hash != h || ks->ks_key > s->a.cap - sizeof(*k))
		return;
	k = arena_ptr(&s->a, ks->ks_key);
	if (stage == 1) {
		st_warm(s, ks->ks_key);
		return;
	}
	if (k->k_tail != 0 && k->k_tail < s->a.cap - 128) {
		st_warm(s, k->k_tail);
		__builtin_prefetch(arena_ptr(&s->a, k->k_tail + 64));
	}
}

/* How a restored arena's keys are judged. */
struct st_checks {
	size_t nkeyfields;	/* of each key (see key_valid) */
	/* Checks the accumulators at acc, claiming in m the blocks they
	 * keep (no two blocks may overlap). Returns NULL or what is wrong. */
	const char *(*acc_ok)(void *arg, const struct arena *a, aoff acc,
	    struct arena_claims *m);
	void *acc_arg;
	/* Checks a restored pane's bounds (its start on the window grid):
	 * NULL, or what is wrong. Panes are checked to be in order first. */
	const char *(*pane_ok)(void *arg, const struct pane *p);
	/* Panes of one start may follow one another, in the order of
	 * their ends (OVER windows: records of one time, by arrival). */
	int ties;
	/* When set, whether pane p may follow pane q in a key's list,
	 * instead of the order above (panes checked in range, q whole). */
	int (*follows)(void *arg, const struct arena *a, aoff q, aoff p);
	/* Checks (and may reset) the operator's block of a restored key,
	 * claiming in m the blocks it keeps: NULL, or what is wrong. */
	const char *(*ext_ok)(void *arg, const struct arena *a, void *ext,
	    struct arena_claims *m);
	void *ext_arg;
};

/* Adopts a restored arena (see ckpt_take_arena) holding used bytes, with
 * blocks of accsize bytes behind each pane (the accumulators first),
 * keyext behind each key and a driver block of globalsize bytes.
 * Checked now, in time that grows only with the free lists: the arena's
 * header and length, its free lists, the root, and where the key table
 * and the timer queue lie. A slot of the table is read when a probe
 * reaches it; each key is checked the first time it is used (looked up,
 * reached from a timer, or walked): its bytes, its place in the table
 * and the queue, its panes and their accumulators, every block claimed
 * once so that none overlaps another. All of them are checked before a
 * save (st_check_all). A bad one sets st_corrupt().
 * Returns NULL, or what is wrong (the arena is then not adopted). */
const char *st_adopt(struct state *s, struct arena *a, uint64_t used,
    size_t accsize, size_t keyext, size_t globalsize,
    const struct st_checks *ck);

/* For blocks a restored arena keeps beyond keys (the driver's own, such
 * as changelog.h's): whether off[0..n) lies inside the arena's used
 * bytes (1 or 0); and st_claim, which also claims the block
 * arena_alloc(n) made at off, so that no two blocks found through
 * offsets overlap: 0, or -1 when it is outside or overlaps (in state
 * that was not restored, only outside). */
int st_in_arena(const struct state *s, aoff off, uint64_t n);
int st_claim(struct state *s, aoff off, uint64_t n);

/* Checks every restored key not used yet, and the timer queue, so that a
 * checkpoint saved next holds nothing unchecked. Returns 0, or -1 with
 * st_corrupt() set. Only the first call costs anything. */
int st_check_all(struct state *s);

/* Finds the key with canonical bytes b[0..n) and hash h, or returns 0. */
aoff st_key_find(struct state *s, const char *b, size_t n, uint64_t h);

/* The key in slot i of the key table (i < sr_keycap), or 0. */
aoff st_key_slot(struct state *s, uint64_t i);

/* Finds or interns the key with canonical bytes b[0..n) and hash h;
 * *created tells which (a new key's operator block is zeroed). Returns 0
 * only when st_corrupt() is set. */
aoff st_key(struct state *s, const char *b, size_t n, uint64_t h,
    int *created);

/* Finds or makes key k's pane starting at start; *created tells which. */
aoff st_pane(struct state *s, aoff k, int64_t start, int *created);

/* The first of key k's panes that starts at or after start, or 0. */
aoff st_first_pane(const struct state *s, aoff k, int64_t start);

/* Makes a pane starting at start, linked right after pane `after` (0: as
 * the key's first pane). */
aoff st_pane_insert(struct state *s, aoff k, aoff after, int64_t start);

/* Unlinks and frees pane p of key k (its accumulators must have been
 * released). */
void st_pane_free(struct state *s, aoff k, aoff p);

/* Timers: an indexed min-heap of (when, key), one entry per key at most
 * (the key knows its place), so a timer can move either way and a key
 * can be deleted. Sets key k's timer to when (T_NONE removes it). */
void st_timer_set(struct state *s, aoff k, int64_t when);
/* The earliest timer's time, or T_NONE. */
int64_t st_timer_next(const struct state *s);
/* Removes the earliest timer if it is due at or before now and returns
 * its key (whose k_timer is then T_NONE); returns 0 when none is due. */
aoff st_timer_pop(struct state *s, int64_t now);

/* Deletes key k, which has no panes and no timer. */
void st_key_delete(struct state *s, aoff k);

#endif
