/* operator: the window operator; see operator.h.
 *
 * Each key has one timer: the earliest of its next unfired window end and
 * the time its oldest pane may be purged. When the watermark passes
 * timers, the windows due are collected from every key, sorted by (end,
 * start, key) and fired together; then the keys' expired panes are
 * purged, and a key left with nothing is forgotten, so that memory
 * follows the live windows, not every key ever seen. */
#include <stdlib.h>
#include <string.h>

#include "assign.h"
#include "keycodec.h"
#include "operator.h"
#include "slide.h"
#include "util.h"

/* The operator's block behind each key (st_keyext). */
struct opkey {
	int64_t ok_next_fire;	/* smallest unfired window end holding data
				   (with --fill: the next window end) */
	uint64_t ok_count;	/* count windows: records seen */
	struct slide_kept ok_kept;	/* sliding windows' kept folds */
	int64_t ok_tmin, ok_tmax;	/* the global window's times */
	aoff ok_dig;		/* --emit-every: struct digest[ok_capdig] */
	uint32_t ok_ndig, ok_capdig;
};
ARENA_LAYOUT(struct opkey, 72);

/* --emit-every: the digest of a window's last partial row. */
struct digest {
	int64_t d_end;		/* the window's end (INT64_MAX: global) */
	uint64_t d_sum;
};
ARENA_LAYOUT(struct digest, 16);

/* A window to fire: [start, end) of key. A session is the one pane
 * `pane`; a time window is made of the key's panes in that range, the
 * first of which is `pane` (0: not known yet). */
struct fire {
	int64_t end, start;
	uint64_t prefix;	/* key_prefix() of the key */
	aoff key, pane;
	int partial;		/* --emit-every: before the window's end */
};

struct op {
	const struct config *c;
	struct assigner as;
	struct aggs *g;
	struct state st;
	struct slide slide;	/* slide.g != NULL: windows of many panes */
	int (*process)(struct op *, const struct op_rec *);
	struct span last;	/* the last record's pane and windows */
	op_emit_fn emit;
	void *emit_arg;
	op_rank_fn rank;	/* --top */
	void *rank_arg;
	op_digest_fn digest;	/* --emit-every */
	void *digest_arg;
	int64_t span_lo, span_hi;	/* op_set_span */
	int has_span;
	struct ranked *ranked;	/* --top: a window's rows and values */
	size_t capranked;
	struct fire *batch, *sortbuf;
	size_t nbatch, capbatch, capsort;
	aoff *touched;
	size_t ntouched, captouched;
	aoff *more;		/* keys with more windows due than FIRE_CAP */
	size_t nmore, capmore;
};

static struct opkey *
opkey(const struct op *o, aoff k)
{
	return st_keyext(&o->st, k);
}

static struct op_globals *
globals(const struct op *o)
{
	return st_globals(&o->st);
}

#define FIRE_CAP 4096	/* windows of one key collected at a time */

/* A row of a window and the value it ranks by (--top). */
struct ranked {
	size_t i;		/* its place in the batch */
	double v;
	int empty;
};

/* --- firing --- */

static void
emit_row(struct op *o, aoff k, int has_bounds, int64_t start, int64_t end,
    int64_t time, int final)
{
	const struct key *kp = st_keyp(&o->st, k);
	struct op_row row = {
		.start = start, .end = end, .time = time,
		.has_bounds = has_bounds, .final = final,
		.key = kp->k_bytes, .keylen = kp->k_len,
		.g = o->g, .a = &o->st.a,
	};

	o->emit(o->emit_arg, &row);
	globals(o)->g_fired++;
}

/* Folds one window's panes, ready for aggs_emit. */
static void
fold_window(struct op *o, const struct fire *f)
{
	struct state *s = &o->st;
	aoff p;

	if (o->as.ops->kind == AS_MERGING || o->as.ops->kind == AS_GLOBAL) {
		aggs_fold_begin(o->g);
		aggs_fold(o->g, &s->a, st_acc(f->pane));
	} else {
		p = f->pane != 0 ? f->pane : st_first_pane(s, f->key, f->start);
		if (o->slide.g != NULL && o->as.ops->cut != NULL)
			slide_fold_at(&o->slide, s, f->key,
			    &opkey(o, f->key)->ok_kept, f->start, f->end,
			    o->as.ops->cut(&o->as, f->end), p);
		else if (o->slide.g != NULL)
			slide_fold(&o->slide, s, f->key,
			    &opkey(o, f->key)->ok_kept, f->start, p);
		else {
			aggs_fold_begin(o->g);
			for (; p != 0 && st_panep(s, p)->p_start < f->end;
			    p = st_panep(s, p)->p_next)
				aggs_fold(o->g, &s->a, st_acc(p));
		}
	}
}

/* Fires one window: merges its panes and hands the row over. */
static void
fire_one(struct op *o, const struct fire *f)
{
	fold_window(o, f);
	emit_row(o, f->key, 1, f->start, f->end, 0, !f->partial);
}

static void
fire_window(struct op *o, aoff k, int64_t end)
{
	struct fire f = {
		.end = end, .start = o->as.ops->start(&o->as, end), .key = k
	};

	fire_one(o, &f);
}

/* The end of the last window that holds pane p: p can be purged once
 * that window has expired. */
static int64_t
pane_last_end(const struct op *o, const struct pane *p)
{
	if (o->as.ops->kind == AS_MERGING)
		return p->p_end;
	return o->as.ops->last_end(&o->as, p->p_start);
}

/* The smallest window end > after of a window that holds one of a key's
 * panes, or T_NONE. Panes are ordered by start (and so are their window
 * ends), so the first pane with a window ending after `after` gives it.
 * The search starts at *p, a pane of the key (0: none left), and leaves
 * *p at that pane: called with growing `after`, it walks the key's panes
 * once, not once per window. */
static int64_t
next_end_with_data(const struct op *o, aoff *p, int64_t after)
{
	const struct state *s = &o->st;
	struct span sp;
	int64_t cand;

	for (; *p != 0; *p = st_panep(s, *p)->p_next) {
		/* a pane in no window (only a damaged checkpoint has one)
		 * has no end to fire */
		if (o->as.ops->assign(&o->as, st_panep(s, *p)->p_start,
		    &sp) != AS_OK || sp.last_end <= after)
			continue;
		cand = o->as.ops->end_after(&o->as, after);
		return cand > sp.first_end ? cand : sp.first_end;
	}
	return T_NONE;
}

/* Sets k's timer to the earlier of its next fire and its oldest pane's
 * purge time, if that is earlier than the timer it has. */
static void
schedule(struct op *o, aoff k)
{
	const struct key *kp = st_keyp(&o->st, k);
	int64_t when = opkey(o, k)->ok_next_fire, purge;

	if (kp->k_head != 0) {
		purge = sat_add(pane_last_end(o, st_panep(&o->st, kp->k_head)),
		    o->c->allowed);
		if (purge < when)
			when = purge;
	}
	if (when < kp->k_timer)
		st_timer_set(&o->st, k, when);
}

static void
pane_drop(struct op *o, aoff k, aoff p)
{
	aggs_release(o->g, &o->st.a, st_acc(p));
	st_pane_free(&o->st, k, p);
}

/* Frees k's panes whose every window has expired at watermark w. */
static void
purge(struct op *o, aoff k, int64_t w)
{
	struct state *s = &o->st;
	aoff p;

	while ((p = st_keyp(s, k)->k_head) != 0 &&
	    sat_add(pane_last_end(o, st_panep(s, p)), o->c->allowed) <= w)
		pane_drop(o, k, p);
}

static int
key_order(const struct op *o, aoff a, aoff b)
{
	const struct key *ka = st_keyp(&o->st, a), *kb = st_keyp(&o->st, b);

	return key_cmp(o->c->nkeys, ka->k_bytes, ka->k_len, kb->k_bytes,
	    kb->k_len);
}

static int
fire_cmp(const void *va, const void *vb, void *arg)
{
	const struct fire *a = va, *b = vb;

	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->prefix != b->prefix)
		return a->prefix < b->prefix ? -1 : 1;
	return key_order(arg, a->key, b->key);
}

static void
batch_add(struct op *o, int64_t end, int64_t start, aoff k, aoff p)
{
	const struct key *kp = st_keyp(&o->st, k);
	struct fire *f;

	xgrow(&o->batch, &o->capbatch, o->nbatch + 1, sizeof(*o->batch));
	f = &o->batch[o->nbatch++];
	f->end = end;
	f->start = start;
	f->key = k;
	f->prefix = key_prefix(o->c->nkeys, kp->k_bytes, kp->k_len);
	f->pane = p;
	f->partial = 0;
}

/* Sorts the n fires at v, which share their bounds, by key: a radix sort
 * on the key prefix (one pass per byte that differs among them), then
 * each run of equal prefixes by key. A tumbling window's end fires every
 * key that has data in it: this is most of what fwin sorts. */
static void
sort_by_key(struct op *o, struct fire *v, size_t n)
{
	size_t count[8][256] = { { 0 } }, i, j, b, pos, c;
	struct fire *from = v, *to = o->sortbuf, *t;

	for (i = 0; i < n; i++)
		for (b = 0; b < 8; b++)
			count[b][v[i].prefix >> (8 * b) & 0xff]++;
	for (b = 0; b < 8; b++) {
		if (count[b][v[0].prefix >> (8 * b) & 0xff] == n)
			continue;	/* every key has this byte */
		for (j = 0, pos = 0; j < 256; j++) {
			c = count[b][j];
			count[b][j] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++)
			to[count[b][from[i].prefix >> (8 * b) & 0xff]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j].prefix == v[i].prefix; j++)
			;
		if (j - i > 1)
			qsort_r(v + i, j - i, sizeof(*v), fire_cmp, o);
	}
}

static int
rank_cmp(const void *va, const void *vb, void *arg)
{
	const struct ranked *a = va, *b = vb;
	int asc = *(const int *)arg;

	if (a->empty != b->empty)
		return a->empty - b->empty;	/* empty cells rank last */
	if (!a->empty && a->v != b->v)
		return (a->v < b->v) == asc ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;	/* ties: the smaller key */
}

/* --top: fires the top_n rows of the n windows at v (one window's rows,
 * in key order) that rank first, in rank order. */
static void
fire_top(struct op *o, const struct fire *v, size_t n)
{
	const struct key *kp;
	struct op_row row;
	size_t i;
	int asc = o->c->top_asc;

	xgrow(&o->ranked, &o->capranked, n, sizeof(*o->ranked));
	for (i = 0; i < n; i++) {
		fold_window(o, &v[i]);
		kp = st_keyp(&o->st, v[i].key);
		memset(&row, 0, sizeof(row));
		row.start = v[i].start;
		row.end = v[i].end;
		row.has_bounds = 1;
		row.key = kp->k_bytes;
		row.keylen = kp->k_len;
		row.g = o->g;
		row.a = &o->st.a;
		o->ranked[i].i = i;
		o->ranked[i].empty = o->rank(o->rank_arg, &row, &o->ranked[i].v) != 0;
	}
	qsort_r(o->ranked, n, sizeof(*o->ranked), rank_cmp, &asc);
	for (i = 0; i < n && i < o->c->top_n; i++)
		fire_one(o, &v[o->ranked[i].i]);
}

/* Sorts the batch in (end, start, key) order. */
static void
batch_sort(struct op *o)
{
	size_t i;

	if (o->nbatch < 2)
		return;
	for (i = 1; i < o->nbatch && o->batch[i].end == o->batch[0].end &&
	    o->batch[i].start == o->batch[0].start; i++)
		;
	/* a radix sort pays for its counts from some 64 keys on */
	if (i < o->nbatch || o->nbatch < 64)
		qsort_r(o->batch, o->nbatch, sizeof(*o->batch), fire_cmp, o);
	else {
		xgrow(&o->sortbuf, &o->capsort, o->nbatch, sizeof(*o->sortbuf));
		sort_by_key(o, o->batch, o->nbatch);
	}
}

/* Fires the sorted batch's first n windows. */
static void
fire_first(struct op *o, size_t n)
{
	size_t i, j;

	if (o->c->top_n > 0) {
		/* a window's rows: the same bounds; the global window's: all */
		for (i = 0; i < n; i = j) {
			for (j = i + 1; j < n &&
			    (o->as.ops->kind == AS_GLOBAL ||
			    (o->batch[j].end == o->batch[i].end &&
			    o->batch[j].start == o->batch[i].start)); j++)
				;
			fire_top(o, o->batch + i, j - i);
		}
	} else
		for (i = 0; i < n; i++)
			fire_one(o, &o->batch[i]);
}

/* Fires the batch in (end, start, key) order. */
static void
batch_fire(struct op *o)
{
	batch_sort(o);
	fire_first(o, o->nbatch);
	o->nbatch = 0;
}

/* Fires the batch's windows that end by upto, in order, and keeps the
 * others for later. */
static void
batch_fire_upto(struct op *o, int64_t upto)
{
	size_t n;

	batch_sort(o);
	for (n = 0; n < o->nbatch && o->batch[n].end <= upto; n++)
		;
	fire_first(o, n);
	memmove(o->batch, o->batch + n, (o->nbatch - n) * sizeof(*o->batch));
	o->nbatch -= n;
}

/* --fill at the end of input: the last window that holds the largest time
 * seen, so that every key ends on the same window. */
static int64_t
fill_limit(const struct op *o)
{
	const struct assigner *as = &o->as;
	int64_t maxt = globals(o)->g_maxt, e;
	struct span sp;

	if (maxt == INT64_MIN)
		return INT64_MIN;
	if (as->ops->assign(as, maxt, &sp) == AS_OK)
		return sp.last_end;
	/* in a gap: the window before it, the last that starts by then */
	e = as->ops->end_after(as, maxt);
	return e == INT64_MAX ? INT64_MIN : e - as->step;
}

/* Adds to the batch key k's windows that end in [ok_next_fire, w], at
 * most FIRE_CAP of them, and moves ok_next_fire past them. Returns the
 * end of the last one when it stopped at the cap with more to come (the
 * batch then holds every window of every key up to the smallest such
 * end: those can fire), or T_NONE. */
static int64_t
collect_due(struct op *o, aoff k, int64_t w)
{
	const struct assigner *as = &o->as;
	struct state *s = &o->st;
	const struct pane *pp;
	int64_t end, from = opkey(o, k)->ok_next_fire, last = T_NONE;
	size_t n = 0;
	aoff p, q;

	if (as->ops->kind == AS_MERGING) {
		/* sessions ending before ok_next_fire have fired already */
		end = T_NONE;
		for (p = st_keyp(s, k)->k_head; p != 0; p = pp->p_next) {
			pp = st_panep(s, p);
			if (pp->p_end > w) {
				end = pp->p_end;
				break;
			}
			if (pp->p_end >= from)
				batch_add(o, pp->p_end, pp->p_start, k, p);
		}
	} else {
		/* p finds the ends, q each window's first pane: no pane is
		 * freed or made until the batch has fired. --fill fires
		 * every end, with data or not, up to limit. */
		int64_t limit = o->c->fill && w == INT64_MAX ? fill_limit(o) : w;

		for (end = from, p = q = st_keyp(s, k)->k_head;
		    end != T_NONE && end <= limit;
		    end = o->c->fill ? as->ops->end_after(as, end) :
		    next_end_with_data(o, &p, end)) {
			int64_t start = as->ops->start(as, end);

			if (n++ == FIRE_CAP) {
				last = o->batch[o->nbatch - 1].end;
				break;
			}
			while (q != 0 && st_panep(s, q)->p_start < start)
				q = st_panep(s, q)->p_next;
			batch_add(o, end, start, k, q);
		}
	}
	opkey(o, k)->ok_next_fire = end;
	return last;
}

/* --- early firing (--emit-every) --- */

/* The largest multiple of --emit-every (plus --offset) in (wold, w], or
 * INT64_MIN when the watermark passes none. */
static int64_t
crossed(const struct op *o, int64_t wold, int64_t w)
{
	__int128 d = o->c->emit_every, x = (__int128)w - o->c->offset, q, m;

	q = x / d;
	if (x % d != 0 && x < 0)
		q--;
	m = q * d + o->c->offset;
	return m > wold && m <= w ? (int64_t)m : INT64_MIN;
}

/* The first multiple of --emit-every after w, or T_NONE. */
static int64_t
next_crossing(const struct op *o, int64_t w)
{
	__int128 d = o->c->emit_every, x = (__int128)w - o->c->offset, q, m;

	q = x / d;
	if (x % d != 0 && x < 0)
		q--;
	m = (q + 1) * d + o->c->offset;
	return m < INT64_MAX ? (int64_t)m : T_NONE;
}

/* Whether the result of key k's window ending at end (digest sum) is not
 * its last partial row's; records it. Digests of windows that ended by
 * w are dropped first. */
static int
digest_changed(struct op *o, aoff k, int64_t end, uint64_t sum, int64_t w)
{
	struct arena *a = &o->st.a;
	struct opkey *ok = opkey(o, k);
	struct digest *v = ok->ok_dig != 0 ? arena_ptr(a, ok->ok_dig) : NULL;
	uint32_t i, n = 0, cap;
	aoff grown;

	for (i = 0; i < ok->ok_ndig; i++)
		if (v[i].d_end > w)
			v[n++] = v[i];
	ok->ok_ndig = n;
	for (i = 0; i < n; i++)
		if (v[i].d_end == end) {
			if (v[i].d_sum == sum)
				return 0;
			v[i].d_sum = sum;
			return 1;
		}
	if (n == ok->ok_capdig) {
		cap = n ? 2 * n : 2;
		grown = arena_alloc(a, cap * sizeof(*v));
		ok = opkey(o, k);
		if (ok->ok_dig != 0) {
			memcpy(arena_ptr(a, grown), arena_ptr(a, ok->ok_dig),
			    n * sizeof(*v));
			arena_free(a, ok->ok_dig, ok->ok_capdig * sizeof(*v));
		}
		ok->ok_dig = grown;
		ok->ok_capdig = cap;
	}
	v = arena_ptr(a, ok->ok_dig);
	v[n].d_end = end;
	v[n].d_sum = sum;
	ok->ok_ndig = n + 1;
	return 1;
}

static void
digest_free(struct op *o, aoff k)
{
	struct opkey *ok = opkey(o, k);

	if (ok->ok_dig != 0)
		arena_free(&o->st.a, ok->ok_dig,
		    ok->ok_capdig * sizeof(struct digest));
	ok->ok_dig = 0;
	ok->ok_ndig = ok->ok_capdig = 0;
}

/* Adds window f to the batch as a partial row if its result changed
 * since the last partial row of the window that ends at id. */
static void
partial_if_changed(struct op *o, struct fire *f, int64_t id, int64_t w)
{
	const struct key *kp;
	struct op_row row;

	fold_window(o, f);
	kp = st_keyp(&o->st, f->key);
	memset(&row, 0, sizeof(row));
	row.start = f->start;
	row.end = f->end;
	row.key = kp->k_bytes;
	row.keylen = kp->k_len;
	row.g = o->g;
	row.a = &o->st.a;
	if (!digest_changed(o, f->key, id, o->digest(o->digest_arg, &row), w))
		return;
	batch_add(o, f->end, f->start, f->key, f->pane);
	o->batch[o->nbatch - 1].partial = 1;
}

/* The watermark passed m, a multiple of --emit-every, on its way to w:
 * every window that holds m and does not end by w prints a partial row
 * if its result changed since its last row. */
static void
collect_partials(struct op *o, int64_t w, int64_t m)
{
	const struct assigner *as = &o->as;
	struct state *s = &o->st;
	struct fire f;
	int64_t end;
	uint64_t j;
	aoff k, q;

	for (j = 0; j < st_root(s)->sr_keycap; j++) {
		if ((k = st_key_slot(s, j)) == 0 || st_keyp(s, k)->k_head == 0)
			continue;
		memset(&f, 0, sizeof(f));
		f.key = k;
		if (as->ops->kind == AS_GLOBAL) {
			/* so far: the key's times, or the run's */
			f.start = o->has_span ? o->span_lo : opkey(o, k)->ok_tmin;
			f.end = o->has_span ? w : opkey(o, k)->ok_tmax;
			f.pane = st_keyp(s, k)->k_head;
			partial_if_changed(o, &f, INT64_MAX, w);
			continue;
		}
		for (end = as->ops->end_after(as, w); end != INT64_MAX &&
		    (f.start = as->ops->start(as, end)) < m;
		    end = as->ops->end_after(as, end)) {
			for (q = st_keyp(s, k)->k_head; q != 0 &&
			    st_panep(s, q)->p_start < f.start;
			    q = st_panep(s, q)->p_next)
				;
			if (q == 0 || st_panep(s, q)->p_start >= end)
				continue;	/* no record: nothing to show */
			f.end = end;
			f.pane = q;
			partial_if_changed(o, &f, end, w);
		}
	}
}

/* Collects key k's due windows, noting it among the keys with more to
 * collect if it stopped at the cap; returns the smaller of upto and the
 * end it stopped at. */
static int64_t
collect_key(struct op *o, aoff k, int64_t w, int64_t upto)
{
	int64_t last = collect_due(o, k, w);

	if (last == T_NONE)
		return upto;
	xgrow(&o->more, &o->capmore, o->nmore + 1, sizeof(*o->more));
	o->more[o->nmore++] = k;
	return last < upto ? last : upto;
}

void
op_advance(struct op *o, int64_t w)
{
	struct state *s = &o->st;
	int64_t wold = globals(o)->g_wm, m, upto = T_NONE;
	size_t i, n;
	aoff k;

	globals(o)->g_wm = w;
	o->nbatch = o->ntouched = o->nmore = 0;
	while ((k = st_timer_pop(s, w)) != 0) {
		xgrow(&o->touched, &o->captouched, o->ntouched + 1,
		    sizeof(*o->touched));
		o->touched[o->ntouched++] = k;
		upto = collect_key(o, k, w, upto);
	}
	/* the end of input prints only final rows */
	if (o->c->emit_every > 0 && w != INT64_MAX &&
	    (m = crossed(o, wold, w)) != INT64_MIN)
		collect_partials(o, w, m);
	if (st_corrupt(s) != NULL)
		return;		/* the run ends: nothing more fires */
	/* Memory follows the state, not the output: a key with very many
	 * windows due (--slide 1d,1ms) gives them FIRE_CAP at a time; what
	 * every key has up to the end of the first cut fires, and so on. */
	while (upto != T_NONE) {
		batch_fire_upto(o, upto);
		upto = T_NONE;
		/* collect_key appends at nmore, never past i: more[i] is
		 * read before it can be written */
		n = o->nmore;
		o->nmore = 0;
		for (i = 0; i < n; i++)
			upto = collect_key(o, o->more[i], w, upto);
	}
	batch_fire(o);
	for (i = 0; i < o->ntouched; i++) {
		k = o->touched[i];
		purge(o, k, w);
		schedule(o, k);
		if (st_keyp(s, k)->k_head == 0 &&
		    st_keyp(s, k)->k_timer == T_NONE) {
			digest_free(o, k);
			st_key_delete(s, k);
		}
	}
}

int64_t
op_next_timer(struct op *o)
{
	int64_t t = st_timer_next(&o->st), m;

	/* partial rows are due at the next multiple, if a window is open */
	if (o->c->emit_every > 0 && st_root(&o->st)->sr_npanes > 0 &&
	    (m = next_crossing(o, globals(o)->g_wm)) < t)
		t = m;
	return t;
}

/* --- records --- */

/* The record's key, interned: 0 only when restored state is corrupt. */
static aoff
intern(struct op *o, const struct op_rec *r)
{
	int created;
	aoff k = st_key(&o->st, r->key, r->keylen, r->hash, &created);

	if (k != 0 && created)
		opkey(o, k)->ok_next_fire = T_NONE;
	return k;
}

static void
add_record(struct op *o, aoff p, const struct op_rec *r)
{
	struct state *s = &o->st;

	/* st_key and st_pane may have moved the arena: no pointer into it
	 * taken before them is used after. */
	aggs_add(o->g, &s->a, st_acc(p), r->vals, globals(o)->g_seq);
	globals(o)->g_seq++;
}

/* Windows of panes on a grid: tumbling and sliding. */
static int
process_panes(struct op *o, const struct op_rec *r)
{
	const struct assigner *as = &o->as;
	const struct config *c = o->c;
	struct state *s = &o->st;
	int64_t w, first, end, t = r->t;
	struct span sp;
	aoff k, p;
	int created, rc;

	if (t >= o->last.pane && t < o->last.pane_end)
		sp = o->last;
	else if ((rc = as->ops->assign(as, t, &sp)) != AS_OK) {
		if (rc == AS_RANGE)
			return OP_RANGE;
		globals(o)->g_nowin++;
		return OP_NOWIN;
	} else if (sp.pane_end != INT64_MAX)
		o->last = sp;
	w = globals(o)->g_wm;
	if (sat_add(sp.last_end, c->allowed) <= w) {
		globals(o)->g_late++;
		return OP_LATE;
	}
	if ((k = intern(o, r)) == 0)
		return OP_CORRUPT;
	p = st_pane(s, k, sp.pane, &created);
	add_record(o, p, r);
	if (o->slide.g != NULL)
		slide_touch(&opkey(o, k)->ok_kept, sp.pane);

	/* Step 3: windows past their end but kept by allowed lateness. */
	if (sp.first_end <= w) {
		first = as->ops->end_after(as, sat_add(w, -c->allowed));
		if (first < sp.first_end)
			first = sp.first_end;
		for (end = first; end <= sp.last_end && end <= w;
		    end = as->ops->end_after(as, end))
			fire_window(o, k, end);
	}
	/* The record's earliest window still to fire. */
	if (sp.last_end > w) {
		first = sp.first_end;
		if (first <= w)
			first = as->ops->end_after(as, w);
		if (first < opkey(o, k)->ok_next_fire) {
			opkey(o, k)->ok_next_fire = first;
			created = 1;
		}
	}
	if (created)
		schedule(o, k);
	return OP_ADDED;
}

/* Session windows: the record's [t, t + gap) merges with every session
 * of its key that it overlaps or touches. */
static int
process_session(struct op *o, const struct op_rec *r)
{
	const struct config *c = o->c;
	struct state *s = &o->st;
	int64_t w = globals(o)->g_wm, t = r->t, lo = t, hi, reach;
	const struct pane *pp;
	struct span sp;
	aoff k, p, q, after = 0, first = 0;

	if (o->as.ops->assign(&o->as, t, &sp) != AS_OK)
		return OP_RANGE;
	hi = reach = sp.last_end;
	if ((k = st_key_find(s, r->key, r->keylen, r->hash)) != 0) {
		/* sessions are disjoint and ordered: the touching ones are
		 * consecutive, found from the tail */
		for (p = st_keyp(s, k)->k_tail; p != 0; p = pp->p_prev) {
			pp = st_panep(s, p);
			if (pp->p_start > hi)
				continue;
			if (pp->p_end < t) {
				after = p;
				break;
			}
			first = p;
			if (pp->p_start < lo)
				lo = pp->p_start;
			if (pp->p_end > hi)
				hi = pp->p_end;
		}
	} else if (st_corrupt(s) != NULL)
		return OP_CORRUPT;
	/* Steps 1-2: lateness is judged on the merged session; a live
	 * session is never expired, so only a lone record can be late. */
	if (sat_add(hi, c->allowed) <= w) {
		globals(o)->g_late++;
		return OP_LATE;
	}
	if (k == 0 && (k = intern(o, r)) == 0)
		return OP_CORRUPT;
	if (first == 0) {
		p = st_pane_insert(s, k, after, t);
	} else {
		p = first;
		while ((q = st_panep(s, p)->p_next) != 0 &&
		    st_panep(s, q)->p_start <= reach) {
			aggs_merge(o->g, &s->a, st_acc(p), st_acc(q));
			st_pane_free(s, k, q);
		}
	}
	st_panep(s, p)->p_start = lo;
	st_panep(s, p)->p_end = hi;
	add_record(o, p, r);
	if (hi <= w) {
		/* Step 3: kept by allowed lateness; fires again at once */
		struct fire f = { .end = hi, .start = lo, .key = k, .pane = p };

		fire_one(o, &f);
	} else if (hi < opkey(o, k)->ok_next_fire)
		opkey(o, k)->ok_next_fire = hi;
	schedule(o, k);
	return OP_ADDED;
}

/* Fires key k's count window ending at its count n: its last N records,
 * or with partial set (--flush at the end of input) whatever panes it
 * holds. */
static void
fire_count(struct op *o, aoff k, int partial)
{
	struct state *s = &o->st;
	struct opkey *ok = opkey(o, k);
	aoff p;

	if (o->slide.g != NULL && !partial)
		slide_fold(&o->slide, s, k, &ok->ok_kept,
		    o->as.ops->start(&o->as, (int64_t)ok->ok_count),
		    st_keyp(s, k)->k_head);
	else {
		aggs_fold_begin(o->g);
		for (p = st_keyp(s, k)->k_head; p != 0;
		    p = st_panep(s, p)->p_next)
			aggs_fold(o->g, &s->a, st_acc(p));
	}
	emit_row(o, k, 0, 0, 0, 0, 1);
}

static int
key_order_cmp(const void *a, const void *b, void *arg)
{
	return key_order(arg, *(const aoff *)a, *(const aoff *)b);
}

/* End of input with --flush: every key's pending count window fires with
 * the records it has so far, in key order. */
static void
flush_count_windows(struct op *o)
{
	struct state *s = &o->st;
	size_t n = 0, i;
	uint64_t j;
	aoff k;

	o->ntouched = 0;
	for (j = 0; j < st_root(s)->sr_keycap; j++) {
		if ((k = st_key_slot(s, j)) == 0 ||
		    st_keyp(s, k)->k_head == 0 ||
		    opkey(o, k)->ok_count % o->c->count_slide == 0)
			continue;
		xgrow(&o->touched, &o->captouched, n + 1, sizeof(*o->touched));
		o->touched[n++] = k;
	}
	if (st_corrupt(s) != NULL)
		return;
	if (n > 1)
		qsort_r(o->touched, n, sizeof(*o->touched), key_order_cmp, o);
	for (i = 0; i < n; i++)
		fire_count(o, o->touched[i], 1);
}

/* Count windows: per key, by arrival. Panes hold runs of gcd(N, SLIDE)
 * records; a window is the last N of them. */
static int
process_count(struct op *o, const struct op_rec *r)
{
	const struct assigner *as = &o->as;
	struct state *s = &o->st;
	struct span sp;
	int64_t n, keep_from;
	aoff k, p;
	int created;

	if ((k = intern(o, r)) == 0)
		return OP_CORRUPT;
	n = (int64_t)++opkey(o, k)->ok_count;
	(void)as->ops->assign(as, n - 1, &sp);
	p = st_pane(s, k, sp.pane, &created);
	add_record(o, p, r);
	if (o->slide.g != NULL)
		slide_touch(&opkey(o, k)->ok_kept, sp.pane);
	if (n % as->step == 0)
		fire_count(o, k, 0);
	/* keep only the panes the next window needs */
	keep_from = as->ops->start(as, as->ops->end_after(as, n));
	while ((p = st_keyp(s, k)->k_head) != 0 &&
	    st_panep(s, p)->p_start < keep_from)
		pane_drop(o, k, p);
	return OP_ADDED;
}

/* Rolling mode: one running aggregate per key, a row per record. */
static int
process_rolling(struct op *o, const struct op_rec *r)
{
	struct state *s = &o->st;
	aoff k, p;
	int created;

	if ((k = intern(o, r)) == 0)
		return OP_CORRUPT;
	p = st_pane(s, k, 0, &created);
	add_record(o, p, r);
	aggs_fold_begin(o->g);
	aggs_fold(o->g, &s->a, st_acc(p));
	emit_row(o, k, 0, 0, 0, r->t, 1);
	return OP_ADDED;
}

/* The global window: one pane per key, and its earliest and latest
 * time. */
static int
process_global(struct op *o, const struct op_rec *r)
{
	struct opkey *ok;
	aoff k, p;
	int created;

	if ((k = intern(o, r)) == 0)
		return OP_CORRUPT;
	p = st_pane(&o->st, k, 0, &created);
	add_record(o, p, r);
	ok = opkey(o, k);
	if (created || r->t < ok->ok_tmin)
		ok->ok_tmin = r->t;
	if (created || r->t > ok->ok_tmax)
		ok->ok_tmax = r->t;
	return OP_ADDED;
}

/* End of input: every key's global window fires, in (end, start, key)
 * order. */
static void
fire_global(struct op *o)
{
	struct state *s = &o->st;
	const struct opkey *ok;
	uint64_t j;
	aoff k;

	o->nbatch = 0;
	for (j = 0; j < st_root(s)->sr_keycap; j++) {
		if ((k = st_key_slot(s, j)) == 0 || st_keyp(s, k)->k_head == 0)
			continue;
		ok = opkey(o, k);
		if (o->has_span)
			batch_add(o, o->span_hi, o->span_lo, k,
			    st_keyp(s, k)->k_head);
		else
			batch_add(o, ok->ok_tmax, ok->ok_tmin, k,
			    st_keyp(s, k)->k_head);
	}
	if (st_corrupt(s) == NULL)
		batch_fire(o);
	o->nbatch = 0;
}

int
op_record(struct op *o, const struct op_rec *r)
{
	return o->process(o, r);
}

void
op_end(struct op *o, int flush)
{
	if (!flush)
		return;
	switch (o->as.ops->kind) {
	case AS_ARRIVAL:
		flush_count_windows(o);
		break;
	case AS_PANES:
	case AS_MERGING:
		op_advance(o, INT64_MAX);
		break;
	case AS_GLOBAL:
		fire_global(o);
		break;
	case AS_ROLLING:
		break;
	}
}

void
op_set_rank(struct op *o, op_rank_fn rank, void *arg)
{
	o->rank = rank;
	o->rank_arg = arg;
}

void
op_set_digest(struct op *o, op_digest_fn digest, void *arg)
{
	o->digest = digest;
	o->digest_arg = arg;
}

void
op_set_span(struct op *o, int64_t lo, int64_t hi)
{
	o->span_lo = lo;
	o->span_hi = hi;
	o->has_span = 1;
}

/* --- setup --- */

struct op *
op_new(const struct config *c, struct aggs *g, op_emit_fn emit, void *arg)
{
	static int (*const by_kind[])(struct op *, const struct op_rec *) = {
		[AS_PANES] = process_panes, [AS_MERGING] = process_session,
		[AS_ARRIVAL] = process_count, [AS_ROLLING] = process_rolling,
		[AS_GLOBAL] = process_global,
	};
	struct op *o = xcalloc(1, sizeof(*o));

	o->c = c;
	o->g = g;
	o->emit = emit;
	o->emit_arg = arg;
	assigner_init(&o->as, c);
	o->process = by_kind[o->as.ops->kind];
	/* windows of many panes are folded from kept partial folds */
	if ((o->as.ops->kind == AS_PANES || o->as.ops->kind == AS_ARRIVAL) &&
	    slide_worth(g, assigner_panes(&o->as)))
		slide_init(&o->slide, g, o->as.size,
		    o->as.ops->kind == AS_PANES ? o->as.offset : 0);
	return o;
}

void
op_free(struct op *o)
{
	if (o == NULL)
		return;
	st_fini(&o->st);
	free(o->batch);
	free(o->sortbuf);
	free(o->touched);
	free(o->more);
	free(o->ranked);
	free(o);
}

/* Bytes behind a pane's header: its accumulators, and for windows of many
 * panes room for a kept fold (see slide.h). */
static size_t
pane_block(const struct op *o)
{
	return aggs_accsize(o->g) * (o->slide.g != NULL ? 2 : 1);
}

/* Panes on a grid keep their start: a key's many panes (a long -l over
 * input out of time order) are found through the pane index. */
static void
index_panes(struct op *o)
{
	if (o->as.ops->kind == AS_PANES)
		st_index_panes(&o->st, o->as.pane);
}

int
op_init_state(struct op *o)
{
	if (st_init(&o->st, pane_block(o), sizeof(struct opkey),
	    sizeof(struct op_globals)) != 0)
		return -1;
	globals(o)->g_wm = INT64_MIN;
	globals(o)->g_maxt = INT64_MIN;
	index_panes(o);
	return 0;
}

/* A restored key's block: its kept folds are not checked, so none is
 * trusted. */
static const char *
opkey_ok(void *arg, const struct arena *a, void *ext, struct arena_claims *m)
{
	struct opkey *ok = ext;
	uint64_t n = (uint64_t)ok->ok_capdig * sizeof(struct digest);

	(void)arg;
	(void)a;
	slide_forget(&ok->ok_kept);
	if ((ok->ok_dig == 0) != (ok->ok_capdig == 0) ||
	    ok->ok_ndig > ok->ok_capdig)
		return "bad partial rows";
	if (ok->ok_dig != 0 && (ok->ok_dig < sizeof(struct arena_hdr) ||
	    ok->ok_dig % 8 != 0 || ok->ok_dig >= m->used ||
	    n > m->used - ok->ok_dig || arena_claim(m, ok->ok_dig, n) != 0))
		return "bad partial rows";
	return NULL;
}

/* A restored pane: one the assigner could have made. */
static const char *
pane_ok(void *arg, const struct pane *p)
{
	const struct op *o = arg;
	struct span sp;

	switch (o->as.ops->kind) {
	case AS_PANES:
	case AS_ARRIVAL:
		if (o->as.ops->assign(&o->as, p->p_start, &sp) != AS_OK ||
		    sp.pane != p->p_start)
			return "bad window bounds";
		break;
	case AS_MERGING:
		if (p->p_end <= p->p_start)
			return "bad window bounds";
		break;
	case AS_ROLLING:
	case AS_GLOBAL:
		if (p->p_start != 0)
			return "bad window bounds";
		break;
	}
	return NULL;
}

const char *
op_adopt(struct op *o, struct arena *a, uint64_t used)
{
	struct st_checks sc = {
		.nkeyfields = o->c->nkeys,
		.acc_ok = aggs_check, .acc_arg = o->g,
		.ext_ok = opkey_ok, .pane_ok = pane_ok, .ext_arg = o,
	};

	const char *why = st_adopt(&o->st, a, used, pane_block(o),
	    sizeof(struct opkey), sizeof(struct op_globals), &sc);

	if (why == NULL)
		index_panes(o);
	return why;
}

struct state *
op_state(struct op *o)
{
	return &o->st;
}

int
op_uses_time(const struct op *o)
{
	return o->as.ops->kind != AS_ARRIVAL;
}

int
op_uses_watermark(const struct op *o)
{
	return o->as.ops->kind == AS_PANES || o->as.ops->kind == AS_MERGING ||
	    (o->as.ops->kind == AS_GLOBAL && o->c->emit_every > 0);
}

int
op_has_bounds(const struct op *o)
{
	return o->as.ops->kind == AS_PANES || o->as.ops->kind == AS_MERGING ||
	    o->as.ops->kind == AS_GLOBAL;
}

int
op_time_fits(const struct op *o, int64_t t)
{
	struct span sp;

	return o->as.ops->assign(&o->as, t, &sp) != AS_RANGE;
}
