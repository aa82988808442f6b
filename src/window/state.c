/* state: keys, panes and timers in the arena; see state.h.
 *
 * Keys are interned once in an open-addressing table (linear probing,
 * resized at half load) that keeps each key's hash beside its offset, so
 * a probe rarely touches a key that does not match. A key's panes form a
 * doubly linked list ordered by start; records arrive nearly in time
 * order, so the search for a record's pane starts at the tail. */
#include <sys/random.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/keycodec.h"
#include "window/state.h"
#include "base/util.h"

/* A restored arena's keys not checked yet (see st_adopt). */
struct st_lazy {
	uint64_t used;		/* the restored bytes: keys lie below */
	int all;		/* st_check_all has been */
	struct arena_claims claims;	/* every block claimed so far */
	struct st_checks ck;
};

/* The pane index (see st_index_panes): open addressing, linear probing,
 * resized at half load, backward-shift deletion. */
struct pidx_ent {
	aoff key;		/* 0: empty */
	int64_t start;
	aoff pane;
};

struct st_pidx {
	struct pidx_ent *t;
	uint64_t cap, n;	/* cap a power of two */
	int64_t step;
};

#define PIDX_FROM	8	/* panes of a key before it is indexed */
#define PIDX_PROBES	64	/* grid points tried before a list walk */

static int key_check(struct state *, aoff);
static void corrupt(struct state *, const char *);

/* Restored keys are checked once, on first use: a key is checked when
 * its k_run is this run's mark. The mark is random so that no file can
 * carry it (a file holds an earlier run's marks). */
static uint64_t
new_run_mark(void)
{
	uint64_t m = 0;
	struct timespec ts;

	if (getrandom(&m, sizeof(m), GRND_NONBLOCK) != sizeof(m)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		m = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
		    ((uint64_t)getpid() << 40);
	}
	return m != 0 ? m : 1;
}

/* Checks key k, restored from a checkpoint, on its first use: whether it
 * may be used (0 after a bad one, with s->corrupt set). */
static inline int
key_used(struct state *s, aoff k)
{
	if (__builtin_expect(s->lazy != NULL, 0))
		return key_check(s, k);
	return 1;
}

/* The bytes of a key with k_len n: header, bytes padded to 8, block. */
static size_t
key_size(const struct state *s, uint64_t n)
{
	return sizeof(struct key) + ((n + 7) & ~(uint64_t)7) + s->keyext;
}

int
st_init(struct state *s, size_t accsize, size_t keyext, size_t globalsize)
{
	struct st_root *r;
	aoff root, tab, g;

	if (arena_init(&s->a) != 0)
		return -1;
	s->accsize = accsize;
	s->keyext = keyext;
	s->run = new_run_mark();
	s->lazy = NULL;
	s->corrupt = NULL;
	s->pidx = NULL;
	root = arena_alloc(&s->a, sizeof(struct st_root));
	arena_hdr(&s->a)->ah_root = root;
	tab = arena_alloc(&s->a, 64 * sizeof(struct keyslot));
	g = arena_alloc(&s->a, globalsize);
	r = st_root(s);
	r->sr_keytab = tab;
	r->sr_keycap = 64;
	r->sr_globals = g;
	r->sr_globalsize = globalsize;
	s->globals = g;
	return 0;
}

void
st_fini(struct state *s)
{
	if (s->pidx != NULL) {
		free(s->pidx->t);
		free(s->pidx);
		s->pidx = NULL;
	}
	if (s->lazy != NULL) {
		arena_claims_free(&s->lazy->claims);
		free(s->lazy);
		s->lazy = NULL;
	}
	arena_fini(&s->a);
}

static void
keytab_grow(struct state *s)
{
	struct st_root *r = st_root(s);
	uint64_t oldcap = r->sr_keycap, cap = oldcap * 2, i, j;
	aoff old = r->sr_keytab, tab;
	struct keyslot *o, *t;

	tab = arena_alloc(&s->a, cap * sizeof(struct keyslot));
	r = st_root(s);
	o = arena_ptr(&s->a, old);
	t = arena_ptr(&s->a, tab);
	for (i = 0; i < oldcap; i++) {
		if (o[i].ks_key == 0)
			continue;
		for (j = o[i].ks_hash & (cap - 1); t[j].ks_key != 0;
		    j = (j + 1) & (cap - 1))
			;
		t[j] = o[i];
	}
	arena_free(&s->a, old, oldcap * sizeof(struct keyslot));
	r->sr_keytab = tab;
	r->sr_keycap = cap;
}

/* Probes the table for the key with bytes b[0..n) and hash h: returns
 * it, or 0 with *empty the slot where it would go (UINT64_MAX once the
 * state is found corrupt). */
/* Whether a[0..n) and b[0..n) are the same bytes. Keys are short, and
 * are compared at every record: a call to memcmp costs more than this. */
static inline int
same_key(const char *a, const char *b, size_t n)
{
	size_t i;

	if (n > 16)
		return memcmp(a, b, n) == 0;
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

static inline aoff
probe(struct state *s, const char *b, size_t n, uint64_t h, uint64_t *empty)
{
	const struct st_root *r = st_root(s);
	const struct keyslot *t = arena_ptr(&s->a, r->sr_keytab);
	uint64_t mask = r->sr_keycap - 1, i, seen = 0;
	const struct key *k;

	*empty = UINT64_MAX;
	if (s->corrupt != NULL)
		return 0;
	for (i = h & mask; t[i].ks_key != 0; i = (i + 1) & mask) {
		if (seen++ > mask) {
			/* no empty slot: only a file can make one (st_adopt
			 * does not read the table) */
			corrupt(s, "bad key table");
			return 0;
		}
		if (t[i].ks_hash != h)
			continue;
		if (!key_used(s, t[i].ks_key))
			return 0;
		k = st_keyp(s, t[i].ks_key);
		if (k->k_len == n && same_key(k->k_bytes, b, n))
			return t[i].ks_key;
	}
	*empty = i;
	return 0;
}

aoff
st_key_find(struct state *s, const char *b, size_t n, uint64_t h)
{
	uint64_t i;

	return probe(s, b, n, h, &i);
}

aoff
st_key(struct state *s, const char *b, size_t n, uint64_t h, int *created)
{
	struct st_root *r;
	struct keyslot *t;
	uint64_t mask, i;
	struct key *k;
	aoff off;

	*created = 0;
	if ((off = probe(s, b, n, h, &i)) != 0 || i == UINT64_MAX)
		return off;
	*created = 1;
	r = st_root(s);
	if ((r->sr_nkeys + 1) * 2 > r->sr_keycap) {
		keytab_grow(s);
		r = st_root(s);
		t = arena_ptr(&s->a, r->sr_keytab);
		mask = r->sr_keycap - 1;
		for (i = h & mask; t[i].ks_key != 0; i = (i + 1) & mask)
			;
	}
	off = arena_alloc(&s->a, key_size(s, n));
	k = st_keyp(s, off);
	k->k_hash = h;
	k->k_run = s->run;
	k->k_timer = T_NONE;
	k->k_len = (uint32_t)n;
	k->k_group = key_group(h);
	memcpy(k->k_bytes, b, n);
	r = st_root(s);
	t = arena_ptr(&s->a, r->sr_keytab);
	t[i].ks_hash = h;
	t[i].ks_key = off;
	if (++r->sr_nkeys > r->sr_peak_keys)
		r->sr_peak_keys = r->sr_nkeys;
	return off;
}

aoff
st_key_slot(struct state *s, uint64_t i)
{
	aoff k = ((const struct keyslot *)arena_ptr(&s->a,
	    st_root(s)->sr_keytab))[i].ks_key;

	if (k != 0 && !key_used(s, k))
		return 0;
	return k;
}

void
st_index_panes(struct state *s, int64_t step)
{
	if (s->pidx == NULL)
		s->pidx = xcalloc(1, sizeof(*s->pidx));
	s->pidx->step = step;
}

static uint64_t
pidx_hash(aoff k, int64_t start)
{
	uint64_t h = (k ^ ((uint64_t)start * 0x9e3779b97f4a7c15u)) *
	    0xbf58476d1ce4e5b9u;

	return h ^ (h >> 31);
}

/* The slot of (k, start), or of the empty slot where it would go. */
static uint64_t
pidx_slot(const struct st_pidx *x, aoff k, int64_t start)
{
	uint64_t mask = x->cap - 1, i;

	for (i = pidx_hash(k, start) & mask; x->t[i].key != 0 &&
	    (x->t[i].key != k || x->t[i].start != start); i = (i + 1) & mask)
		;
	return i;
}

static aoff
pidx_find(const struct st_pidx *x, aoff k, int64_t start)
{
	const struct pidx_ent *e;

	if (x->cap == 0)
		return 0;
	e = &x->t[pidx_slot(x, k, start)];
	return e->key != 0 ? e->pane : 0;
}

static void
pidx_put(struct st_pidx *x, aoff k, int64_t start, aoff p)
{
	uint64_t i, oldcap = x->cap;
	struct pidx_ent *old = x->t;

	if ((x->n + 1) * 2 > x->cap) {
		x->cap = x->cap ? x->cap * 2 : 1024;
		x->t = xcalloc(x->cap, sizeof(*x->t));
		for (i = 0; i < oldcap; i++)
			if (old[i].key != 0)
				x->t[pidx_slot(x, old[i].key, old[i].start)] = old[i];
		free(old);
	}
	i = pidx_slot(x, k, start);
	x->t[i].key = k;
	x->t[i].start = start;
	x->t[i].pane = p;
	x->n++;
}

static void
pidx_del(struct st_pidx *x, aoff k, int64_t start)
{
	uint64_t mask = x->cap - 1, i = pidx_slot(x, k, start), j, home;

	if (x->t[i].key == 0)
		return;
	for (j = (i + 1) & mask; x->t[j].key != 0; j = (j + 1) & mask) {
		home = pidx_hash(x->t[j].key, x->t[j].start) & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			x->t[i] = x->t[j];
			i = j;
		}
	}
	x->t[i].key = 0;
	x->t[i].pane = 0;
	x->n--;
}

/* Indexes every pane of key k, once it has many. */
static void
pidx_key(struct state *s, aoff k)
{
	aoff p;

	st_keyp(s, k)->k_indexed = 1;
	for (p = st_keyp(s, k)->k_head; p != 0; p = st_panep(s, p)->p_next)
		pidx_put(s->pidx, k, st_panep(s, p)->p_start, p);
}

/* The pane of indexed key k after which a new pane starting at start
 * goes (0: first), looked for on the grid below start; or -1 when not
 * found that way (the list is walked then). */
static int64_t
pidx_before(const struct state *s, aoff k, int64_t start)
{
	const struct st_pidx *x = s->pidx;
	aoff head = st_keyp(s, k)->k_head, q, nx;
	int64_t ps = start;
	int i;

	if (head == 0 || st_panep(s, head)->p_start > start)
		return 0;
	if (x->step <= 0)
		return -1;
	for (i = 0; i < PIDX_PROBES; i++) {
		if (__builtin_sub_overflow(ps, x->step, &ps) ||
		    ps < st_panep(s, head)->p_start)
			return -1;
		if ((q = pidx_find(x, k, ps)) != 0) {
			/* the grid may not be every pane's: make sure */
			nx = st_panep(s, q)->p_next;
			return nx == 0 || st_panep(s, nx)->p_start > start ?
			    (int64_t)q : -1;
		}
	}
	return -1;
}

aoff
st_pane(struct state *s, aoff k, int64_t start, int *created)
{
	struct key *kp = st_keyp(s, k);
	aoff after = kp->k_tail, p;
	int64_t before;
	int n = 0;

	/* records come nearly in time order: the pane is near the tail */
	while (after != 0 && st_panep(s, after)->p_start > start &&
	    (n++ < PIDX_FROM || !kp->k_indexed))
		after = st_panep(s, after)->p_prev;
	if (after != 0 && st_panep(s, after)->p_start > start) {
		/* far back in a long list */
		if ((p = pidx_find(s->pidx, k, start)) != 0) {
			*created = 0;
			return p;
		}
		if ((before = pidx_before(s, k, start)) >= 0)
			after = (aoff)before;
		else
			while (after != 0 && st_panep(s, after)->p_start > start)
				after = st_panep(s, after)->p_prev;
	}
	if (after != 0 && st_panep(s, after)->p_start == start) {
		*created = 0;
		return after;
	}
	*created = 1;
	return st_pane_insert(s, k, after, start);
}

aoff
st_first_pane(const struct state *s, aoff k, int64_t start)
{
	aoff p;

	for (p = st_keyp(s, k)->k_head;
	    p != 0 && st_panep(s, p)->p_start < start; p = st_panep(s, p)->p_next)
		;
	return p;
}

aoff
st_pane_insert(struct state *s, aoff k, aoff after, int64_t start)
{
	struct key *kp;
	struct pane *pp;
	aoff p;

	p = arena_alloc(&s->a, sizeof(struct pane) + s->accsize);
	kp = st_keyp(s, k);
	pp = st_panep(s, p);
	pp->p_start = start;
	pp->p_prev = after;
	pp->p_next = after != 0 ? st_panep(s, after)->p_next : kp->k_head;
	if (pp->p_next != 0)
		st_panep(s, pp->p_next)->p_prev = p;
	else
		kp->k_tail = p;
	if (after != 0)
		st_panep(s, after)->p_next = p;
	else
		kp->k_head = p;
	st_root(s)->sr_npanes++;
	kp->k_npanes++;
	if (kp->k_indexed)
		pidx_put(s->pidx, k, start, p);
	else if (kp->k_npanes > PIDX_FROM && s->pidx != NULL)
		pidx_key(s, k);
	return p;
}

void
st_pane_free(struct state *s, aoff k, aoff p)
{
	struct key *kp = st_keyp(s, k);
	struct pane *pp = st_panep(s, p);

	if (pp->p_prev != 0)
		st_panep(s, pp->p_prev)->p_next = pp->p_next;
	else
		kp->k_head = pp->p_next;
	if (pp->p_next != 0)
		st_panep(s, pp->p_next)->p_prev = pp->p_prev;
	else
		kp->k_tail = pp->p_prev;
	kp->k_npanes--;
	if (kp->k_indexed)
		pidx_del(s->pidx, k, pp->p_start);
	arena_free(&s->a, p, sizeof(struct pane) + s->accsize);
	st_root(s)->sr_npanes--;
}

static struct timer *
heap(const struct state *s)
{
	return arena_ptr(&s->a, st_root(s)->sr_heap);
}

/* Puts entry x at index i and tells its key where it is. An entry moved
 * within the heap is still in its old place here, where a restored key's
 * check looks for it. */
static void
heap_put(struct state *s, uint64_t i, struct timer x)
{
	heap(s)[i] = x;
	if (key_used(s, x.t_key))
		st_keyp(s, x.t_key)->k_hpos = i + 1;
}

static void
timer_sift_up(struct state *s, uint64_t i, struct timer x)
{
	struct timer *h = heap(s);

	for (; i > 0 && h[(i - 1) / 2].t_when > x.t_when; i = (i - 1) / 2)
		heap_put(s, i, h[(i - 1) / 2]);
	heap_put(s, i, x);
}

static void
timer_sift_down(struct state *s, uint64_t i, struct timer x)
{
	struct timer *h = heap(s);
	uint64_t c, n = st_root(s)->sr_heaplen;

	for (; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && h[c + 1].t_when < h[c].t_when)
			c++;
		if (x.t_when <= h[c].t_when)
			break;
		heap_put(s, i, h[c]);
	}
	heap_put(s, i, x);
}

/* Removes the entry at index i. */
static void
heap_remove(struct state *s, uint64_t i)
{
	struct st_root *r = st_root(s);
	struct timer last;

	if (!key_used(s, heap(s)[i].t_key) ||
	    !key_used(s, heap(s)[r->sr_heaplen - 1].t_key))
		return;
	st_keyp(s, heap(s)[i].t_key)->k_hpos = 0;
	last = heap(s)[--r->sr_heaplen];
	if (i == r->sr_heaplen)
		return;
	if (i > 0 && heap(s)[(i - 1) / 2].t_when > last.t_when)
		timer_sift_up(s, i, last);
	else
		timer_sift_down(s, i, last);
}

void
st_timer_set(struct state *s, aoff k, int64_t when)
{
	struct st_root *r = st_root(s);
	struct key *kp = st_keyp(s, k);
	struct timer x = { when, k };
	uint64_t i;

	kp->k_timer = when;
	if (kp->k_hpos != 0) {
		i = kp->k_hpos - 1;
		if (when == T_NONE)
			heap_remove(s, i);
		else if (when < heap(s)[i].t_when)
			timer_sift_up(s, i, x);
		else
			timer_sift_down(s, i, x);
		return;
	}
	if (when == T_NONE)
		return;
	if (r->sr_heaplen == r->sr_heapcap) {
		uint64_t cap = r->sr_heapcap ? r->sr_heapcap * 2 : 64;
		aoff nh = arena_alloc(&s->a, cap * sizeof(struct timer));

		r = st_root(s);
		if (r->sr_heap != 0) {
			memcpy(arena_ptr(&s->a, nh), arena_ptr(&s->a, r->sr_heap),
			    r->sr_heaplen * sizeof(struct timer));
			arena_free(&s->a, r->sr_heap,
			    r->sr_heapcap * sizeof(struct timer));
		}
		r->sr_heap = nh;
		r->sr_heapcap = cap;
	}
	timer_sift_up(s, r->sr_heaplen++, x);
}

int64_t
st_timer_next(const struct state *s)
{
	const struct st_root *r = st_root(s);

	if (r->sr_heaplen == 0)
		return T_NONE;
	return heap(s)[0].t_when;
}

aoff
st_timer_pop(struct state *s, int64_t now)
{
	aoff k;

	if (s->corrupt != NULL || st_root(s)->sr_heaplen == 0 ||
	    heap(s)[0].t_when > now)
		return 0;
	k = heap(s)[0].t_key;
	if (!key_used(s, k))
		return 0;
	heap_remove(s, 0);
	if (s->corrupt != NULL)
		return 0;
	st_keyp(s, k)->k_timer = T_NONE;
	return k;
}

void
st_key_delete(struct state *s, aoff k)
{
	struct st_root *r = st_root(s);
	struct keyslot *t = arena_ptr(&s->a, r->sr_keytab);
	uint64_t mask = r->sr_keycap - 1, i, j, home, n = 0;
	struct key *kp = st_keyp(s, k);

	for (i = kp->k_hash & mask; t[i].ks_key != k; i = (i + 1) & mask)
		;
	if (r->sr_nkeys == 0) {
		corrupt(s, "bad key table");
		return;
	}
	/* backward-shift deletion keeps every probe chain unbroken */
	for (j = (i + 1) & mask; t[j].ks_key != 0; j = (j + 1) & mask) {
		if (n++ > mask) {
			corrupt(s, "bad key table");
			return;
		}
		home = t[j].ks_hash & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			t[i] = t[j];
			i = j;
		}
	}
	t[i].ks_key = 0;
	t[i].ks_hash = 0;
	r->sr_nkeys--;
	kp->k_run = 0;	/* a stale offset to it is no key of this run */
	arena_free(&s->a, k, key_size(s, kp->k_len));
}

/* Whether [off, off + n) lies in the used arena, 8-aligned, after the
 * arena's header. */
static int
in_range(uint64_t used, aoff off, uint64_t n)
{
	return off >= sizeof(struct arena_hdr) && off % 8 == 0 && off < used &&
	    n <= used - off;
}

/* Records the first thing found wrong with restored state. */
static void
corrupt(struct state *s, const char *why)
{
	if (s->corrupt == NULL)
		s->corrupt = why;
}

/* Whether pane b may follow pane a in a key's list: a later start, or
 * with ties the same start and a later end. */
static int
in_order(const struct pane *a, const struct pane *b, int ties)
{
	return a->p_start < b->p_start || (ties &&
	    a->p_start == b->p_start && a->p_end < b->p_end);
}

/* The first use of restored key k: everything the key holds is checked,
 * and claimed, before anything in it is trusted. Returns NULL, or what is
 * wrong. */
static const char *
key_validate(struct state *s, aoff k)
{
	struct st_lazy *l = s->lazy;
	const struct st_root *r = st_root(s);
	const struct keyslot *t = arena_ptr(&s->a, r->sr_keytab);
	const struct timer *h = heap(s);
	uint64_t mask = r->sr_keycap - 1, i, n, used = l->used;
	struct key *kp;
	const struct pane *pp;
	const char *why;
	aoff p, prev;

	if (!in_range(used, k, sizeof(*kp)))
		return "bad key offset";
	kp = st_keyp(s, k);
	if (kp->k_len > used - k - sizeof(*kp) ||
	    key_size(s, kp->k_len) > used - k ||
	    !key_valid(l->ck.nkeyfields, kp->k_bytes, kp->k_len) ||
	    kp->k_hash != key_hash(kp->k_bytes, kp->k_len) ||
	    kp->k_group != key_group(kp->k_hash) ||
	    arena_claim(&l->claims, k, key_size(s, kp->k_len)) != 0)
		return "bad key";
	/* in the table, where a lookup of it finds it */
	for (i = kp->k_hash & mask, n = 0; t[i].ks_key != k;
	    i = (i + 1) & mask)
		if (t[i].ks_key == 0 || n++ > mask)
			return "bad key";
	if (t[i].ks_hash != kp->k_hash)
		return "bad key";
	/* in the timer queue where it says, if it says so */
	if (kp->k_hpos > r->sr_heaplen || (kp->k_hpos != 0 &&
	    (h[kp->k_hpos - 1].t_key != k ||
	    h[kp->k_hpos - 1].t_when != kp->k_timer)))
		return "bad timer";
	for (p = kp->k_head, prev = 0, n = 0; p != 0; prev = p, p = pp->p_next) {
		if (!in_range(used, p, sizeof(*pp) + s->accsize) ||
		    ++n > used / 16 ||
		    arena_claim(&l->claims, p, sizeof(*pp) + s->accsize) != 0)
			return "bad window list";
		pp = st_panep(s, p);
		if (pp->p_prev != prev)
			return "bad window list links";
		if (prev != 0 && !(l->ck.follows != NULL ?
		    l->ck.follows(l->ck.ext_arg, &s->a, prev, p) :
		    in_order(st_panep(s, prev), pp, l->ck.ties)))
			return "bad window list order";
		if ((why = l->ck.pane_ok(l->ck.ext_arg, pp)) != NULL)
			return why;
		if ((why = l->ck.acc_ok(l->ck.acc_arg, &s->a, st_acc(p),
		    &l->claims)) != NULL)
			return why;
	}
	if (kp->k_tail != prev)
		return "bad window list tail";
	kp->k_npanes = (uint32_t)n;	/* counted in this run's terms */
	kp->k_indexed = 0;
	if ((why = l->ck.ext_ok(l->ck.ext_arg, &s->a, st_keyext(s, k),
	    &l->claims)) != NULL)
		return why;
	kp->k_run = s->run;
	return NULL;
}

static int
key_check(struct state *s, aoff k)
{
	const char *why;

	if (s->corrupt != NULL)
		return 0;
	/* k may be anything a file held: its mark is read only where a key
	 * could lie; keys made by this run lie past the restored bytes */
	if (k < sizeof(struct arena_hdr) || k % 8 != 0 ||
	    k > s->a.cap - sizeof(struct key)) {
		corrupt(s, "bad key offset");
		return 0;
	}
	if (st_keyp(s, k)->k_run != s->run &&
	    (why = key_validate(s, k)) != NULL) {
		corrupt(s, why);
		return 0;
	}
	return 1;
}

int
st_check_all(struct state *s)
{
	const struct st_root *r = st_root(s);
	const struct timer *h;
	uint64_t i, n = 0;
	aoff k;

	if (s->corrupt != NULL)
		return -1;
	if (s->lazy == NULL || s->lazy->all)
		return 0;
	for (i = 0; i < r->sr_keycap; i++)
		if (st_key_slot(s, i) != 0)
			n++;
	if (s->corrupt == NULL && n != r->sr_nkeys)
		corrupt(s, "bad counts");
	/* each timer is its key's (whose check found its own there) */
	for (i = 0, h = heap(s); s->corrupt == NULL && i < r->sr_heaplen; i++)
		if (key_check(s, k = h[i].t_key) &&
		    st_keyp(s, k)->k_hpos != i + 1)
			corrupt(s, "bad timer");
	if (s->corrupt != NULL)
		return -1;
	s->lazy->all = 1;
	return 0;
}

/* The checks made at restore; see st_adopt. */
static const char *
adopt(const struct arena *a, uint64_t used, uint64_t globalsize,
    struct arena_claims *m)
{
	const struct arena_hdr *ah = arena_hdr(a);
	const struct st_root *r;
	uint64_t n, limit = used / 16;
	aoff p;
	unsigned c;

	/* blocks are made at ah_used, in multiples of 16 bytes */
	if (ah->ah_used != used || used > a->cap || used % 16 != 0)
		return "bad arena length";
	for (c = 0; c < ARENA_NCLASS; c++)
		for (p = ah->ah_free[c], n = 0; p != 0; p = *(const aoff *)
		    arena_ptr(a, p))
			if (!in_range(used, p, 16) || ++n > limit ||
			    arena_claim_free(m, p, c) != 0)
				return "bad free list";
	if (!in_range(used, ah->ah_root, sizeof(*r)) ||
	    arena_claim(m, ah->ah_root, sizeof(*r)) != 0)
		return "bad root offset";
	r = arena_ptr(a, ah->ah_root);
	if (r->sr_keycap < 2 || (r->sr_keycap & (r->sr_keycap - 1)) != 0 ||
	    r->sr_keycap > used ||
	    !in_range(used, r->sr_keytab, r->sr_keycap * sizeof(struct keyslot)) ||
	    arena_claim(m, r->sr_keytab, r->sr_keycap * sizeof(struct keyslot)) !=
	    0)
		return "bad key table";
	if (r->sr_globalsize != globalsize ||
	    !in_range(used, r->sr_globals, globalsize) ||
	    arena_claim(m, r->sr_globals, globalsize) != 0)
		return "bad driver block";
	if (r->sr_heaplen > r->sr_heapcap ||
	    r->sr_heapcap > used / sizeof(struct timer) ||
	    (r->sr_heapcap == 0) != (r->sr_heap == 0) ||
	    (r->sr_heapcap > 0 &&
	    (!in_range(used, r->sr_heap, r->sr_heapcap * sizeof(struct timer)) ||
	    arena_claim(m, r->sr_heap, r->sr_heapcap * sizeof(struct timer)) !=
	    0)))
		return "bad timer queue";
	/* The table's slots are read when probed, their keys when used
	 * (key_check); a table fuller than this says is found then. */
	if (r->sr_nkeys > r->sr_keycap / 2)
		return "bad counts";
	return NULL;
}

const char *
st_adopt(struct state *s, struct arena *a, uint64_t used, size_t accsize,
    size_t keyext, size_t globalsize, const struct st_checks *ck)
{
	struct st_lazy *l;
	const char *why;

	if (used > a->cap)
		return "bad arena length";
	if ((l = calloc(1, sizeof(*l))) == NULL ||
	    arena_claims_init(&l->claims, used) != 0) {
		free(l);
		return "out of memory";
	}
	if ((why = adopt(a, used, globalsize, &l->claims)) != NULL) {
		arena_claims_free(&l->claims);
		free(l);
		return why;
	}
	l->used = used;
	l->ck = *ck;
	s->a = *a;
	s->accsize = accsize;
	s->keyext = keyext;
	s->run = new_run_mark();
	s->lazy = l;
	s->corrupt = NULL;
	s->pidx = NULL;
	s->globals = st_root(s)->sr_globals;	/* checked by adopt() */
	return NULL;
}

int
st_in_arena(const struct state *s, aoff off, uint64_t n)
{
	uint64_t used = s->lazy != NULL ? s->lazy->used :
	    arena_hdr(&s->a)->ah_used;

	return off >= sizeof(struct arena_hdr) && in_range(used, off, n);
}

int
st_claim(struct state *s, aoff off, uint64_t n)
{
	if (!st_in_arena(s, off, n))
		return -1;
	return s->lazy != NULL ? arena_claim(&s->lazy->claims, off, n) : 0;
}
