/* state: keyed window state in the arena — interned keys, their slices
 * (panes) and the timer queue. Everything is addressed by arena offsets.
 * Pointers returned by st_* accessors are valid until the next call that
 * allocates (st_key, st_pane, st_timer_push, aggs_add). */
#ifndef FWIN_STATE_H
#define FWIN_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

#define T_NONE INT64_MAX	/* no time: a timer or fire that is not set */

/* The root object: what a run must carry over besides the arena's
 * contents. */
struct st_root {
	aoff sr_keytab;		/* open-addressing table of struct keyslot */
	uint64_t sr_keycap;	/* a power of two */
	uint64_t sr_nkeys;
	uint64_t sr_peak_keys;	/* the most keys held at once */
	aoff sr_heap;		/* binary min-heap of struct timer */
	uint64_t sr_heapcap, sr_heaplen;
	uint64_t sr_npanes;	/* live panes */
	int64_t sr_wm;		/* the watermark */
	int64_t sr_maxt;	/* the largest event time seen */
	uint64_t sr_seq;	/* records added so far: the arrival number */
	uint32_t sr_timefmt;	/* the input time format fixed by auto */
	uint32_t sr_pad;
	uint64_t sr_read, sr_bad, sr_late, sr_nowin, sr_fired;	/* counters */
};

struct keyslot {
	uint64_t ks_hash;
	aoff ks_key;		/* 0: empty */
};

/* The fields a record touches come last, beside the key's bytes, so that
 * they tend to share a cache line with what the lookup compares. */
struct key {
	uint64_t k_hash;
	aoff k_head;		/* panes, ordered by start (and k_tail) */
	uint64_t k_hpos;	/* 1 + its timer's index in the heap; 0: none */
	/* sliding windows' kept folds (see slide.h); all equal: none */
	int64_t k_lo, k_pivot, k_hi;
	uint64_t k_run;		/* state.run once checked or made by this run */
	aoff k_tail;
	int64_t k_next_fire;	/* smallest unfired window end holding data */
	int64_t k_timer;	/* when this key's timer is due, or T_NONE */
	uint64_t k_count;	/* count windows: records seen */
	uint32_t k_len;
	char k_bytes[];		/* the key's canonical bytes */
};

/* A slice of a key's records: a pane of a tumbling or sliding window
 * (p_start), a session ([p_start, p_end)), a run of records of a count
 * window (p_start is its index), or the running total of rolling mode. */
struct pane {
	aoff p_next, p_prev;
	int64_t p_start;
	int64_t p_end;
	/* the accumulators follow */
};

struct timer {
	int64_t t_when;
	aoff t_key;
};

struct st_lazy;

struct state {
	struct arena a;
	size_t accsize;		/* of the blocks behind a pane's header */
	uint64_t run;		/* this run's mark, random and never 0 */
	struct st_lazy *lazy;	/* restored keys not yet checked, or NULL */
};

/* Creates empty state for blocks of accsize bytes behind each pane. Returns 0,
 * or -1 with errno set. */
int st_init(struct state *s, size_t accsize);
void st_fini(struct state *s);

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

/* How a restored arena's keys are judged. */
struct st_checks {
	size_t nkeyfields;	/* of each key (see key_bytes_ok) */
	/* Checks the accumulators at acc, claiming in m the blocks they
	 * keep (no two blocks may overlap). Returns NULL or what is wrong. */
	const char *(*acc_ok)(void *arg, const struct arena *a, aoff acc,
	    struct arena_claims *m);
	void *acc_arg;
	/* Called with what is wrong with a key found bad on first use;
	 * it should not return (if it does, fwin exits 1). */
	void (*corrupt)(void *arg, const char *why);
	void *corrupt_arg;
};

/* Adopts a restored arena (see ckpt_take_arena) holding used bytes, with
 * blocks of accsize bytes behind each pane (the accumulators first).
 * Checked now, in time that grows only with the free lists: the arena's
 * header and length, its free lists, the root, and where the key table
 * and the timer queue lie. A slot of the table is read when a probe
 * reaches it; each key is checked the first time it is used (looked up,
 * reached from a timer, or walked): its bytes, its place in the table
 * and the queue, its panes and their accumulators, every block claimed
 * once so that none overlaps another. All of them are checked before a
 * save (st_check_all). A bad one ends the run through ck->corrupt.
 * Returns NULL, or what is wrong (the arena is then not adopted). */
const char *st_adopt(struct state *s, struct arena *a, uint64_t used,
    size_t accsize, const struct st_checks *ck);

/* Checks every restored key not used yet, and the timer queue, so that a
 * checkpoint saved next holds nothing unchecked; ends the run through
 * ck->corrupt if one is bad. Only the first call costs anything. */
void st_check_all(struct state *s);

/* Finds the key with canonical bytes b[0..n) and hash h, or returns 0. */
aoff st_key_find(struct state *s, const char *b, size_t n, uint64_t h);

/* The key in slot i of the key table (i < sr_keycap), or 0. */
aoff st_key_slot(struct state *s, uint64_t i);

/* Finds or interns the key with canonical bytes b[0..n) and hash h. */
aoff st_key(struct state *s, const char *b, size_t n, uint64_t h);

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
