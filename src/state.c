/* state: keys, panes and timers in the arena; see state.h.
 *
 * Keys are interned once in an open-addressing table (linear probing,
 * resized at half load) that keeps each key's hash beside its offset, so
 * a probe rarely touches a key that does not match. A key's panes form a
 * doubly linked list ordered by start; records arrive nearly in time
 * order, so the search for a record's pane starts at the tail. */
#include <string.h>

#include "state.h"
#include "timefmt.h"

int
st_init(struct state *s, size_t accsize)
{
	struct st_root *r;
	aoff root, tab;

	if (arena_init(&s->a) != 0)
		return -1;
	s->accsize = accsize;
	s->epoch = 1;
	root = arena_alloc(&s->a, sizeof(struct st_root));
	arena_hdr(&s->a)->ah_root = root;
	tab = arena_alloc(&s->a, 64 * sizeof(struct keyslot));
	r = st_root(s);
	r->sr_keytab = tab;
	r->sr_keycap = 64;
	r->sr_wm = INT64_MIN;
	r->sr_maxt = INT64_MIN;
	return 0;
}

void
st_fini(struct state *s)
{
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

aoff
st_key_find(const struct state *s, const char *b, size_t n, uint64_t h)
{
	const struct st_root *r = st_root(s);
	const struct keyslot *t = arena_ptr(&s->a, r->sr_keytab);
	uint64_t mask = r->sr_keycap - 1, i;
	const struct key *k;

	for (i = h & mask; t[i].ks_key != 0; i = (i + 1) & mask) {
		if (t[i].ks_hash != h)
			continue;
		k = st_keyp(s, t[i].ks_key);
		if (k->k_len == n && memcmp(k->k_bytes, b, n) == 0)
			return t[i].ks_key;
	}
	return 0;
}

aoff
st_key(struct state *s, const char *b, size_t n, uint64_t h)
{
	struct st_root *r = st_root(s);
	struct keyslot *t = arena_ptr(&s->a, r->sr_keytab);
	uint64_t mask = r->sr_keycap - 1, i;
	struct key *k;
	aoff off;

	for (i = h & mask; t[i].ks_key != 0; i = (i + 1) & mask) {
		if (t[i].ks_hash != h)
			continue;
		k = st_keyp(s, t[i].ks_key);
		if (k->k_len == n && memcmp(k->k_bytes, b, n) == 0)
			return t[i].ks_key;
	}
	if ((r->sr_nkeys + 1) * 2 > r->sr_keycap) {
		keytab_grow(s);
		r = st_root(s);
		t = arena_ptr(&s->a, r->sr_keytab);
		mask = r->sr_keycap - 1;
		for (i = h & mask; t[i].ks_key != 0; i = (i + 1) & mask)
			;
	}
	off = arena_alloc(&s->a, sizeof(struct key) + n);
	k = st_keyp(s, off);
	k->k_hash = h;
	k->k_next_fire = T_NONE;
	k->k_timer = T_NONE;
	k->k_len = (uint32_t)n;
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
st_pane(struct state *s, aoff k, int64_t start, int *created)
{
	aoff after = st_keyp(s, k)->k_tail;

	/* the last pane that starts at or before start */
	while (after != 0 && st_panep(s, after)->p_start > start)
		after = st_panep(s, after)->p_prev;
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
	arena_free(&s->a, p, sizeof(struct pane) + s->accsize);
	st_root(s)->sr_npanes--;
}

static struct timer *
heap(const struct state *s)
{
	return arena_ptr(&s->a, st_root(s)->sr_heap);
}

/* Puts entry x at index i and tells its key where it is. */
static void
heap_put(struct state *s, uint64_t i, struct timer x)
{
	heap(s)[i] = x;
	st_keyp(s, x.t_key)->k_hpos = i + 1;
}

static void
sift_up(struct state *s, uint64_t i, struct timer x)
{
	struct timer *h = heap(s);

	for (; i > 0 && h[(i - 1) / 2].t_when > x.t_when; i = (i - 1) / 2)
		heap_put(s, i, h[(i - 1) / 2]);
	heap_put(s, i, x);
}

static void
sift_down(struct state *s, uint64_t i, struct timer x)
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

	st_keyp(s, heap(s)[i].t_key)->k_hpos = 0;
	last = heap(s)[--r->sr_heaplen];
	if (i == r->sr_heaplen)
		return;
	if (i > 0 && heap(s)[(i - 1) / 2].t_when > last.t_when)
		sift_up(s, i, last);
	else
		sift_down(s, i, last);
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
			sift_up(s, i, x);
		else
			sift_down(s, i, x);
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
	sift_up(s, r->sr_heaplen++, x);
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

	if (st_root(s)->sr_heaplen == 0 || heap(s)[0].t_when > now)
		return 0;
	k = heap(s)[0].t_key;
	heap_remove(s, 0);
	st_keyp(s, k)->k_timer = T_NONE;
	return k;
}

void
st_key_delete(struct state *s, aoff k)
{
	struct st_root *r = st_root(s);
	struct keyslot *t = arena_ptr(&s->a, r->sr_keytab);
	uint64_t mask = r->sr_keycap - 1, i, j, home;
	struct key *kp = st_keyp(s, k);

	for (i = kp->k_hash & mask; t[i].ks_key != k; i = (i + 1) & mask)
		;
	/* backward-shift deletion keeps every probe chain unbroken */
	for (j = (i + 1) & mask; t[j].ks_key != 0; j = (j + 1) & mask) {
		home = t[j].ks_hash & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			t[i] = t[j];
			i = j;
		}
	}
	t[i].ks_key = 0;
	t[i].ks_hash = 0;
	r->sr_nkeys--;
	arena_free(&s->a, k, sizeof(struct key) + kp->k_len);
}

/* Whether [off, off + n) lies in the used arena, 8-aligned, after the
 * arena's header. */
static int
in_range(uint64_t used, aoff off, uint64_t n)
{
	return off >= sizeof(struct arena_hdr) && off % 8 == 0 && off < used &&
	    n <= used - off;
}

/* Whether a key's bytes are the canonical form of nfields key fields:
 * none for no field, the field's bytes for one, else (u32 length, bytes)
 * pairs that fill them exactly (the engine prints and compares them). */
static int
key_bytes_ok(const struct key *k, size_t nfields)
{
	const char *p = k->k_bytes, *e = p + k->k_len;
	uint32_t l;
	size_t n = 0;

	if (nfields <= 1)
		return nfields == 1 || k->k_len == 0;
	while (e - p >= (ptrdiff_t)sizeof(l)) {
		memcpy(&l, p, sizeof(l));
		p += sizeof(l);
		if (l > (size_t)(e - p))
			return 0;
		p += l;
		n++;
	}
	return p == e && n == nfields;
}

#define ADOPT_AHEAD 16	/* key table slots */

static const char *
adopt(struct state *s, struct arena *a, uint64_t used, size_t accsize,
    size_t nkeyfields, const char *(*acc_ok)(void *arg, const struct arena *a,
    aoff acc, struct arena_claims *m), void *arg, struct arena_claims *m)
{
	const struct arena_hdr *ah = arena_hdr(a);
	const struct st_root *r;
	const struct keyslot *t;
	const struct timer *h;
	const struct key *k;
	const struct pane *pp;
	uint64_t i, n, npanes = 0, nkeys = 0, ntimers = 0, limit = used / 16;
	uint32_t epoch = 0;
	const char *why;
	aoff p, prev;
	unsigned c;

	if (ah->ah_used != used || used > a->cap)
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
	    !in_range(used, r->sr_keytab, r->sr_keycap * sizeof(*t)) ||
	    arena_claim(m, r->sr_keytab, r->sr_keycap * sizeof(*t)) != 0)
		return "bad key table";
	if (r->sr_timefmt > TF_STRPTIME)
		return "bad time format";
	if (r->sr_heaplen > r->sr_heapcap || r->sr_heapcap > used ||
	    (r->sr_heapcap == 0) != (r->sr_heap == 0) ||
	    (r->sr_heapcap > 0 &&
	    (!in_range(used, r->sr_heap, r->sr_heapcap * sizeof(*h)) ||
	    arena_claim(m, r->sr_heap, r->sr_heapcap * sizeof(*h)) != 0)))
		return "bad timer queue";
	h = arena_ptr(a, r->sr_heap);
	t = arena_ptr(a, r->sr_keytab);
	/* One pass over the key table. Keys lie anywhere in the file: the
	 * walk fetches the keys some slots ahead, and the first pane of the
	 * keys nearer, so that their cache misses overlap. */
	for (i = 0; i < r->sr_keycap; i++) {
		if (i + ADOPT_AHEAD < r->sr_keycap &&
		    in_range(used, t[i + ADOPT_AHEAD].ks_key, sizeof(*k)))
			__builtin_prefetch(arena_ptr(a, t[i + ADOPT_AHEAD].ks_key));
		if (i + ADOPT_AHEAD / 2 < r->sr_keycap &&
		    in_range(used, t[i + ADOPT_AHEAD / 2].ks_key, sizeof(*k))) {
			k = arena_ptr(a, t[i + ADOPT_AHEAD / 2].ks_key);
			if (in_range(used, k->k_head, sizeof(*pp)))
				__builtin_prefetch(arena_ptr(a, k->k_head));
			if (k->k_hpos != 0 && k->k_hpos <= r->sr_heaplen)
				__builtin_prefetch(&h[k->k_hpos - 1]);
		}
		if (t[i].ks_key == 0)
			continue;
		nkeys++;
		if (!in_range(used, t[i].ks_key, sizeof(*k)))
			return "bad key offset";
		k = arena_ptr(a, t[i].ks_key);
		if (k->k_len > used - t[i].ks_key - sizeof(*k) ||
		    k->k_hash != t[i].ks_hash || k->k_hpos > r->sr_heaplen ||
		    arena_claim(m, t[i].ks_key, sizeof(*k) + k->k_len) != 0 ||
		    !key_bytes_ok(k, nkeyfields))
			return "bad key";
		if (k->k_epoch > epoch)
			epoch = k->k_epoch;
		/* Every timer must belong to a key of the table: each key
		 * that says it has one must be named by that heap entry, and
		 * as many keys as entries must say so (two keys cannot name
		 * one entry). No lookups. */
		if (k->k_hpos != 0) {
			if (h[k->k_hpos - 1].t_key != t[i].ks_key ||
			    h[k->k_hpos - 1].t_when != k->k_timer)
				return "bad timer";
			ntimers++;
		}
		for (p = k->k_head, prev = 0; p != 0; prev = p, p = pp->p_next) {
			if (!in_range(used, p, sizeof(*pp) + accsize) ||
			    ++npanes > limit ||
			    arena_claim(m, p, sizeof(*pp) + accsize) != 0)
				return "bad window list";
			pp = arena_ptr(a, p);
			if (pp->p_prev != prev)
				return "bad window list links";
			if ((why = acc_ok(arg, a, p + sizeof(*pp), m)) != NULL)
				return why;
		}
		if (k->k_tail != prev)
			return "bad window list tail";
	}
	if (nkeys != r->sr_nkeys || nkeys * 2 > r->sr_keycap ||
	    npanes != r->sr_npanes)
		return "bad counts";
	if (ntimers != r->sr_heaplen)
		return "bad timer count";
	if (epoch == UINT32_MAX)
		return "bad key epoch";
	s->a = *a;
	s->accsize = accsize;
	/* no cached fold of the file is trusted: they are not checked */
	s->epoch = epoch + 1;
	return NULL;
}

const char *
st_adopt(struct state *s, struct arena *a, uint64_t used, size_t accsize,
    size_t nkeyfields, const char *(*acc_ok)(void *arg, const struct arena *a,
    aoff acc, struct arena_claims *m), void *arg)
{
	struct arena_claims m;
	const char *why;

	if (used > a->cap)
		return "bad arena length";
	if (arena_claims_init(&m, used) != 0)
		return "out of memory";
	why = adopt(s, a, used, accsize, nkeyfields, acc_ok, arg, &m);
	arena_claims_free(&m);
	return why;
}
