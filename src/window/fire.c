/* fire: firing windows — a batch of them in (end, start, key) order, the
 * window Top-N (--top), and early partial rows (--emit-every); see
 * opint.h. */
#include <stdlib.h>
#include <string.h>

#include "io/keycodec.h"
#include "window/opint.h"
#include "base/num.h"
#include "base/util.h"

void
fire_row(struct op *o, aoff k, int has_bounds, int64_t start, int64_t end,
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

/* What a fold reads beyond the window's panes: the length --rate
 * divides by (none without bounds), and the values before the window
 * that counters count from (--increase): the key's dropped panes' and
 * its panes kept before `first` that start before `start` (the global
 * window and windows without bounds have none kept). */
void
fire_fold_context(struct op *o, aoff k, aoff first, int64_t start,
    int64_t end)
{
	struct state *s = &o->st;
	int bounds = o->as.ops->kind == AS_PANES ||
	    o->as.ops->kind == AS_MERGING || o->as.ops->kind == AS_GLOBAL;
	aoff p;

	if (aggs_keysize(o->g) == 0)
		return;
	aggs_fold_span(o->g, bounds ? end - start : -1);
	aggs_fold_prior(o->g, &s->a, opkey_aggs(o, k), 0);
	if (o->as.ops->kind != AS_PANES && o->as.ops->kind != AS_MERGING)
		return;
	for (p = st_keyp(s, k)->k_head; p != 0 && p != first &&
	    st_panep(s, p)->p_start < start; p = st_panep(s, p)->p_next)
		aggs_fold_prior(o->g, &s->a, NULL, st_acc(p));
}

/* Folds one window's panes, ready for aggs_emit. */
static void
fold_panes(struct op *o, const struct fire *f)
{
	struct state *s = &o->st;
	int64_t g;
	aoff p;

	if (o->as.ops->kind == AS_MERGING || o->as.ops->kind == AS_GLOBAL) {
		aggs_fold_begin(o->g);
		aggs_fold(o->g, &s->a, st_acc(f->pane));
	} else {
		p = f->pane != 0 ? f->pane : st_first_pane(s, f->key, f->start);
		if (o->slide.g != NULL && o->as.ops->cut != NULL) {
			g = o->as.ops->cut(&o->as, f->end);
			/* A whole cumulating window [S, E) is cut at E, its
			 * folds grouped from E back, as it always was; when
			 * no fold depends on the grouping, the prefixes from
			 * S its earlier windows kept give the same bytes
			 * without walking its panes again. So do decimal
			 * sums while exact: a fold from the prefixes that is
			 * not is done again the old way. */
			if (g == f->end && o->c->wkind == WK_CUMULATE &&
			    o->slide.regroup_exact) {
				slide_fold_at(&o->slide, s, f->key,
				    &opkey(o, f->key)->ok_kept, f->start,
				    f->end, f->start, p);
				if (o->slide.regroup ||
				    aggs_fold_exact(o->slide.g))
					return;
			}
			slide_fold_at(&o->slide, s, f->key,
			    &opkey(o, f->key)->ok_kept, f->start, f->end, g,
			    p);
		} else if (o->slide.g != NULL)
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

static void
fold_window(struct op *o, const struct fire *f)
{
	fold_panes(o, f);
	fire_fold_context(o, f->key, f->pane, f->start, f->end);
}

/* Fires one window: merges its panes and hands the row over. */
void
fire_one(struct op *o, const struct fire *f)
{
	fold_window(o, f);
	fire_row(o, f->key, 1, f->start, f->end, 0, !f->partial);
}

void
fire_window(struct op *o, aoff k, int64_t end)
{
	struct fire f = {
		.end = end, .start = o->as.ops->start(&o->as, end), .key = k
	};

	fire_one(o, &f);
}

int
fire_key_order(const struct op *o, aoff a, aoff b)
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
	return fire_key_order(arg, a->key, b->key);
}

/* Key order alone (fire_cmp's last two steps). */
static int
fire_key_cmp(const void *va, const void *vb, void *arg)
{
	const struct fire *a = va, *b = vb;

	if (a->prefix != b->prefix)
		return a->prefix < b->prefix ? -1 : 1;
	return fire_key_order(arg, a->key, b->key);
}

void
fire_add(struct op *o, int64_t end, int64_t start, aoff k, aoff p)
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

/* How fire_top() sorts: the order, and the texts of the values. */
struct rank_order {
	int asc;
	const char *text;
};

/* Rows by their values, exactly: rounding to doubles keeps the order of
 * values, so the doubles decide unless they are equal, and then the
 * texts do. */
static int
rank_cmp(const void *va, const void *vb, void *arg)
{
	const struct ranked *a = va, *b = vb;
	const struct rank_order *ro = arg;
	int c;

	if (a->empty != b->empty)
		return a->empty - b->empty;	/* empty cells rank last */
	if (!a->empty && a->v != b->v)
		return (a->v < b->v) == ro->asc ? -1 : 1;
	if (!a->empty && (c = num_cmp_exact(ro->text + a->text, a->n,
	    ro->text + b->text, b->n)) != 0)
		return (c < 0) == ro->asc ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;	/* ties: the smaller key */
}

/* --top: fires the top_n rows of the n windows at v (one window's rows,
 * in key order) that rank first, in rank order. */
static void
fire_top(struct op *o, const struct fire *v, size_t n)
{
	const struct key *kp;
	struct op_row row;
	struct rank_order ro;
	const char *text;
	size_t i, len, used = 0;

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
		o->ranked[i].text = used;
		o->ranked[i].n = 0;
		/* 1: an empty cell, ranked last; 2: --having left it out */
		o->ranked[i].empty = -o->rank(o->rank_arg, &row,
		    &o->ranked[i].v, &text, &len);
		if (o->ranked[i].empty == 0) {
			xgrow(&o->ranktext, &o->capranktext, used + len, 1);
			memcpy(o->ranktext + used, text, len);
			o->ranked[i].n = len;
			used += len;
		}
	}
	ro.asc = o->c->top_asc;
	ro.text = o->ranktext;
	qsort_r(o->ranked, n, sizeof(*o->ranked), rank_cmp, &ro);
	for (i = 0; i < n && i < o->c->top_n && o->ranked[i].empty < 2; i++)
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

/* Warms the cache for the batch's windows ahead of the i-th of n: a key
 * FIRE_AHEAD on, then the panes a fold starts from of one half as far
 * (its first and the key's last: a window of many panes is folded from
 * the last's kept fold). A batch's keys lie all over the arena. */
#define FIRE_AHEAD	8

static inline void
fire_ahead(const struct op *o, size_t i, size_t n)
{
	const struct state *s = &o->st;
	const struct fire *f;

	if (i + FIRE_AHEAD < n)
		st_warm(s, o->batch[i + FIRE_AHEAD].key);
	if (i + FIRE_AHEAD / 2 < n) {
		f = &o->batch[i + FIRE_AHEAD / 2];
		st_warm(s, f->pane);
		if (o->slide.g != NULL)
			st_warm(s, st_keyp(s, f->key)->k_tail);
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
			/* the global windows' bounds are each key's own:
			 * in key order, so that ties go to the smaller key */
			if (o->as.ops->kind == AS_GLOBAL && j - i > 1)
				qsort_r(o->batch + i, j - i, sizeof(*o->batch),
				    fire_key_cmp, o);
			fire_top(o, o->batch + i, j - i);
		}
	} else
		for (i = 0; i < n; i++) {
			fire_ahead(o, i, n);
			fire_one(o, &o->batch[i]);
		}
}

/* Fires the batch in (end, start, key) order. */
void
fire_batch(struct op *o)
{
	batch_sort(o);
	fire_first(o, o->nbatch);
	o->nbatch = 0;
}

/* Fires the batch's windows that end by upto, in order, and keeps the
 * others for later. */
void
fire_batch_upto(struct op *o, int64_t upto)
{
	size_t n;

	batch_sort(o);
	for (n = 0; n < o->nbatch && o->batch[n].end <= upto; n++)
		;
	fire_first(o, n);
	memmove(o->batch, o->batch + n, (o->nbatch - n) * sizeof(*o->batch));
	o->nbatch -= n;
}

/* The largest multiple of --emit-every (plus --offset) in (wold, w], or
 * INT64_MIN when the watermark passes none. */
int64_t
fire_crossed(const struct op *o, int64_t wold, int64_t w)
{
	__int128 d = o->c->emit_every, x = (__int128)w - o->c->offset, q, m;

	q = x / d;
	if (x % d != 0 && x < 0)
		q--;
	m = q * d + o->c->offset;
	return m > wold && m <= w ? (int64_t)m : INT64_MIN;
}

/* The first multiple of --emit-every after w, or T_NONE. */
int64_t
fire_next_crossing(const struct op *o, int64_t w)
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

	for (i = 0; v != NULL && i < ok->ok_ndig; i++)
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

void
fire_digest_free(struct op *o, aoff k)
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
	fire_add(o, f->end, f->start, f->key, f->pane);
	o->batch[o->nbatch - 1].partial = 1;
}

/* The watermark passed m, a multiple of --emit-every, on its way to w:
 * every window that holds m and does not end by w prints a partial row
 * if its result changed since its last row. */
void
fire_partials(struct op *o, int64_t w, int64_t m)
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
