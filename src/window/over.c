/* over: --over and --over-rows, the operator's OVER windows (Flink SQL's
 * OVER aggregation; fwin(1), OVER WINDOWS).
 *
 * Each record is a pane of its key, p_start its time and p_end its
 * arrival number, kept in (time, arrival) order (--over-rows: once
 * added, p_start is its place among the key's records, 0, 1, 2...).
 * Its values wait in the pane in wire form (wire.h) until the watermark
 * passes its time (W > t: every peer of the same time has arrived), and
 * only then are added to the pane's accumulators, in the key's (time,
 * arrival) order: so --first, --last and the ties of min-by and max-by
 * follow event time, whatever order the records arrived in. Then the
 * records due are printed in
 * (time, arrival) order, each with the fold of its frame: its key's panes
 * in [t - D, t] (peers included), or its last N. A pane is freed once no
 * later record's frame can hold it; a key whose last record has left
 * every frame is forgotten, so state follows the range, not the stream.
 * With processing time a record is printed as it comes. */
#include <stdlib.h>
#include <string.h>

#include "window/opint.h"
#include "base/util.h"
#include "window/wire.h"

/* What waits behind a pane's accumulators: its values in wire form, 0
 * once they are added. */
struct over_pend {
	aoff op_vals;
};
ARENA_LAYOUT(struct over_pend, 8);

/* The hidden aggregate that keeps the record as read (AGF_RECORD): its
 * text is printed before the frame's aggregates. */
struct acc_record {
	aoff text;
};
ARENA_LAYOUT(struct acc_record, 8);

static void
record_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	(void)seq;
	blob_set(a, slot + offsetof(struct acc_record, text), v->p, v->n);
}

static void
record_merge(struct arena *a, aoff dst, aoff src)
{
	struct acc_record *s = arena_ptr(a, src);

	blob_free(a, ((struct acc_record *)arena_ptr(a, dst))->text);
	((struct acc_record *)arena_ptr(a, dst))->text = s->text;
	s->text = 0;
}

static void
record_fold(struct agg *ag, const struct arena *a, void *dst, const void *src)
{
	(void)ag;
	(void)a;
	(void)dst;
	(void)src;
}

static void
record_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o)
{
	(void)ag;
	(void)a;
	(void)acc;
	(void)o;
}

static const char *
record_check(const struct arena *a, const void *slot, struct arena_claims *m)
{
	const struct acc_record *r = slot;

	if (r->text != 0 && !blob_ok(a, r->text, m))
		return "bad record text";
	return NULL;
}

static void
record_release(struct arena *a, aoff slot)
{
	struct acc_record *r = arena_ptr(a, slot);

	blob_free(a, r->text);
	r->text = 0;
}

static const struct aggop record_op = {
	"(record)", "(record)", AGF_RECORD | AGF_TEXT,
	sizeof(struct acc_record),
	record_add, record_merge, record_fold, record_emit, record_check,
	record_release, NULL
};

void
over_add_record_agg(struct config *c)
{
	c->aggs = xrealloc(c->aggs, (c->naggs + 1) * sizeof(*c->aggs));
	memset(&c->aggs[c->naggs], 0, sizeof(*c->aggs));
	c->aggs[c->naggs++].op = &record_op;
}

/* Behind a pane's accumulators: with a kept fold (sliding frames) that
 * block, then the waiting values. */
static inline struct over_pend *
pend(const struct op *o, aoff p)
{
	return arena_ptr(&o->st.a, st_acc(p) + aggs_accsize(o->g) *
	    (o->slide.g != NULL ? 2 : 1));
}

size_t
over_pane_block(const struct op *o)
{
	return aggs_accsize(o->g) * (o->slide.g != NULL ? 2 : 1) +
	    sizeof(struct over_pend);
}

const char *
over_acc_ok(void *arg, const struct arena *a, aoff acc,
    struct arena_claims *m)
{
	const struct op *o = arg;
	const struct over_pend *pd = arena_ptr(a, acc + over_pane_block(o) -
	    sizeof(struct over_pend));
	const char *why = aggs_check(o->g, a, acc, m);

	if (why == NULL && pd->op_vals != 0 && !blob_ok(a, pd->op_vals, m))
		why = "bad waiting record";
	return why;
}

/* Whether restored pane p may follow pane q in a key's list (the
 * checks' follows): (time, arrival) order; for --over-rows, the records
 * added (p_start their place, 0, 1, 2...) in place order, then those
 * still waiting (p_start their time, which may lie below a place: a
 * time before 1970) in (time, arrival) order. */
int
over_follows(void *arg, const struct arena *a, aoff q, aoff p)
{
	const struct op *o = arg;
	const struct pane *pq = arena_ptr(a, q), *pp = arena_ptr(a, p);
	size_t at = over_pane_block(o) - sizeof(struct over_pend);
	int qwait, pwait;

	if (o->c->wkind == WK_OVER_ROWS) {
		qwait = ((const struct over_pend *)arena_ptr(a, st_acc(q) +
		    at))->op_vals != 0;
		pwait = ((const struct over_pend *)arena_ptr(a, st_acc(p) +
		    at))->op_vals != 0;
		if (qwait != pwait)
			return pwait;	/* added ones first */
		if (!pwait)
			return pq->p_start < pp->p_start;
	}
	return pq->p_start < pp->p_start || (pq->p_start == pp->p_start &&
	    pq->p_end < pp->p_end);
}

/* Keeps record r's values in pane p until it is due. */
static void
hold(struct op *o, aoff p, const struct op_rec *r)
{
	struct wire_fields *wf = &o->over_wf;
	size_t n = wf->nvf * sizeof(struct wval) + wire_vals_bytes(wf, r->vals);

	xgrow(&o->over_buf, &o->over_cap, n, 1);
	wire_vals_put(wf, r->vals, (struct wval *)o->over_buf,
	    o->over_buf + wf->nvf * sizeof(struct wval));
	blob_set(&o->st.a, st_acc(p) + over_pane_block(o) -
	    sizeof(struct over_pend), o->over_buf, n);
}

/* Adds the values waiting in pane p to its accumulators, in the key's
 * (time, arrival) order: the arrival number they are added with is the
 * order first and last compare. */
static void
add_held(struct op *o, aoff k, aoff p)
{
	struct wire_fields *wf = &o->over_wf;
	struct arena *a = &o->st.a;
	const struct blob *b;
	aoff v = pend(o, p)->op_vals;

	if (v == 0)
		return;
	b = blob_at(a, v);
	/* the values point into the blob: copied out, as adding may move
	 * the arena */
	xgrow(&o->over_buf, &o->over_cap, b->b_len, 1);
	memcpy(o->over_buf, b->b_data, b->b_len);
	wire_vals_get(wf, (const struct wval *)o->over_buf,
	    o->over_buf + wf->nvf * sizeof(struct wval), o->over_vals);
	blob_free(a, v);
	pend(o, p)->op_vals = 0;
	aggs_add_at(o->g, a, st_acc(p), o->over_vals, globals(o)->g_seq++,
	    st_panep(&o->st, p)->p_start);
	if (o->c->wkind == WK_OVER_ROWS)
		st_panep(&o->st, p)->p_start = (int64_t)opkey(o, k)->ok_count++;
	if (o->slide.g != NULL)
		slide_touch(&opkey(o, k)->ok_kept, st_panep(&o->st, p)->p_start);
}

/* The key's first record still waiting, or 0: they are the last of its
 * panes (one waits at t >= W, and every one added was before W). */
static aoff
first_waiting(const struct op *o, aoff k)
{
	const struct state *s = &o->st;
	aoff p = st_keyp(s, k)->k_tail, q;

	if (p == 0 || pend(o, p)->op_vals == 0)
		return 0;
	while ((q = st_panep(s, p)->p_prev) != 0 && pend(o, q)->op_vals != 0)
		p = q;
	return p;
}

/* Where the frame of a record at t (--over-rows: at place t) starts. */
static int64_t
frame_lo(const struct op *o, int64_t t)
{
	return o->c->wkind == WK_OVER ? sat_add(t, -o->c->size) :
	    sat_add(t, 1 - (int64_t)o->c->count_n);
}

/* The first pane of the frame from lo: kept per key (ok_next_fire holds
 * its offset; 0: not known), moving forward as lo does. */
static aoff
frame_first(struct op *o, aoff k, int64_t lo)
{
	const struct state *s = &o->st;
	aoff p = (aoff)opkey(o, k)->ok_next_fire;

	if (p == 0)
		p = st_keyp(s, k)->k_head;
	while (p != 0 && st_panep(s, p)->p_start < lo)
		p = st_panep(s, p)->p_next;
	opkey(o, k)->ok_next_fire = (int64_t)p;
	return p;
}

static void
drop(struct op *o, aoff k, aoff p)
{
	if ((aoff)opkey(o, k)->ok_next_fire == p)
		opkey(o, k)->ok_next_fire = 0;
	blob_free(&o->st.a, pend(o, p)->op_vals);
	/* a counter's next frame counts from the values dropped here */
	if (aggs_keysize(o->g) > 0 && pend(o, p)->op_vals == 0)
		aggs_carry(o->g, &o->st.a, opkey_aggs(o, k), st_acc(p));
	aggs_release(o->g, &o->st.a, st_acc(p));
	st_pane_free(&o->st, k, p);
}

/* Folds the counters' values before the frame that starts at pane
 * first: the latest of the key's panes kept before it, else of those
 * dropped (the key's block). A pane may hold no value of a counter (an
 * empty field, one its --if rejected), so the walk goes back until
 * every counter has one, or the panes end: the one just before the
 * frame is not enough. */
static void
fold_prior(struct op *o, aoff k, aoff first)
{
	struct state *s = &o->st;
	aoff q;

	for (q = first != 0 ? st_panep(s, first)->p_prev : 0; q != 0;
	    q = st_panep(s, q)->p_prev) {
		aggs_fold_prior(o->g, &s->a, NULL, st_acc(q));
		if (aggs_prior_known(o->g))
			break;
	}
	aggs_fold_prior(o->g, &s->a, opkey_aggs(o, k), 0);
}

/* Prints pane p's record with the fold of its frame, then lets its text
 * go. A sliding frame of keepable aggregates is folded from kept folds
 * (slide.h: a constant number of merges, the same bytes however the
 * folds were grouped); otherwise record by record, in the frame's order. */
static void
print(struct op *o, aoff k, aoff p)
{
	struct state *s = &o->st;
	const struct key *kp;
	struct acc_record *rec;
	const struct blob *b;
	int64_t t = st_panep(s, p)->p_start, lo = frame_lo(o, t);
	aoff q, first = frame_first(o, k, lo);
	struct op_row row;

	/* --over-rows: the frame ends at p, whose place is t; the key's
	 * records still waiting lie after it by time, which a place is not
	 * comparable to (before 1970, a time is below every place) */
	if (o->slide.g != NULL && o->c->wkind == WK_OVER_ROWS)
		slide_fold_last(&o->slide, s, &opkey(o, k)->ok_kept, lo, first,
		    p);
	else if (o->slide.g != NULL)
		slide_fold(&o->slide, s, k, &opkey(o, k)->ok_kept, lo, first);
	else {
		aggs_fold_begin(o->g);
		for (q = first; q != 0 && st_panep(s, q)->p_start <= t;
		    q = st_panep(s, q)->p_next) {
			aggs_fold(o->g, &s->a, st_acc(q));
			if (q == p && o->c->wkind == WK_OVER_ROWS)
				break;
		}
	}
	if (aggs_keysize(o->g) > 0) {	/* counters: the frame's length, and
					   the key's value before it */
		aggs_fold_span(o->g, o->c->wkind == WK_OVER ? o->c->size : -1);
		fold_prior(o, k, first);
	}
	kp = st_keyp(s, k);
	rec = arena_ptr(&s->a, st_acc(p) + o->rec_off);
	b = rec->text != 0 ? blob_at(&s->a, rec->text) : NULL;
	memset(&row, 0, sizeof(row));
	row.time = t;
	row.key = kp->k_bytes;
	row.keylen = kp->k_len;
	row.g = o->g;
	row.a = &s->a;
	row.final = 1;
	row.rec = b != NULL ? b->b_data : "";
	row.reclen = b != NULL ? b->b_len : 0;
	o->emit(o->emit_arg, &row);
	globals(o)->g_fired++;
	record_release(&s->a, st_acc(p) + o->rec_off);
}

/* After printing: frees what no later record's frame holds (with event
 * time, every later record of the key is at w or after), and sets the
 * key's timer: its next waiting record, or the time its last pane leaves
 * every frame. Forgets a key left empty. */
static void
trim(struct op *o, aoff k, int64_t w)
{
	struct state *s = &o->st;
	const struct key *kp;
	int64_t when = T_NONE, lo;
	aoff p;

	/* the next frame starts at lo or after: at W - D, or past the last N
	 * - 1 places printed */
	lo = o->c->wkind == WK_OVER ? sat_add(w, -o->c->size) :
	    frame_lo(o, (int64_t)opkey(o, k)->ok_count);
	while ((p = st_keyp(s, k)->k_head) != 0 &&
	    pend(o, p)->op_vals == 0 && st_panep(s, p)->p_start < lo)
		drop(o, k, p);
	kp = st_keyp(s, k);
	if ((p = first_waiting(o, k)) != 0)
		when = sat_add(st_panep(s, p)->p_start, 1);
	else if (kp->k_tail != 0 && o->c->wkind == WK_OVER && o->c->has_time)
		when = sat_add(sat_add(st_panep(s, kp->k_tail)->p_start,
		    o->c->size), 1);
	st_timer_set(s, k, when);
	if (st_keyp(s, k)->k_head == 0 && when == T_NONE &&
	    (aggs_keysize(o->g) == 0 || !aggs_key_held(o->g, opkey_aggs(o, k))))
		st_key_delete(s, k);
}

int
over_process(struct op *o, const struct op_rec *r)
{
	struct state *s = &o->st;
	const int64_t t = r->t;
	aoff k, p, q;
	int created;

	if (o->c->has_time && t < globals(o)->g_wm) {
		globals(o)->g_late++;
		return OP_LATE;
	}
	if ((k = st_key(s, r->key, r->keylen, r->hash, &created)) == 0)
		return OP_CORRUPT;
	if (created)
		opkey(o, k)->ok_next_fire = 0;
	/* after the last pane of its time or before (arrival order), among
	 * those waiting: every pane added was before W */
	for (q = st_keyp(s, k)->k_tail; q != 0 && pend(o, q)->op_vals != 0 &&
	    st_panep(s, q)->p_start > t; q = st_panep(s, q)->p_prev)
		;
	p = st_pane_insert(s, k, q, t);
	st_panep(s, p)->p_end = (int64_t)globals(o)->g_seq++;
	hold(o, p, r);
	if (!o->c->has_time) {	/* processing time: at once */
		add_held(o, k, p);
		print(o, k, p);
		trim(o, k, t);
		return OP_ADDED;
	}
	if (sat_add(t, 1) < st_keyp(s, k)->k_timer)
		st_timer_set(s, k, sat_add(t, 1));
	return OP_ADDED;
}

static int
by_time(const void *a, const void *b)
{
	const struct fire *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

void
over_advance(struct op *o, int64_t w)
{
	struct state *s = &o->st;
	size_t i;
	aoff k, p;

	globals(o)->g_wm = w;
	o->nbatch = o->ntouched = 0;
	while ((k = st_timer_pop(s, w)) != 0) {
		xgrow(&o->touched, &o->captouched, o->ntouched + 1,
		    sizeof(*o->touched));
		o->touched[o->ntouched++] = k;
		/* its waiting records due, added in (time, arrival) order */
		for (p = first_waiting(o, k); p != 0 &&
		    st_panep(s, p)->p_start < w; p = st_panep(s, p)->p_next) {
			xgrow(&o->batch, &o->capbatch, o->nbatch + 1,
			    sizeof(*o->batch));
			o->batch[o->nbatch++] = (struct fire){
				.end = st_panep(s, p)->p_start,
				.start = st_panep(s, p)->p_end,
				.key = k, .pane = p,
			};
			add_held(o, k, p);	/* (--over-rows: p_start changes) */
		}
	}
	if (o->nbatch > 1)
		qsort(o->batch, o->nbatch, sizeof(*o->batch), by_time);
	for (i = 0; i < o->nbatch; i++)
		print(o, o->batch[i].key, o->batch[i].pane);
	for (i = 0; i < o->ntouched; i++)
		trim(o, o->touched[i], w);
	o->nbatch = o->ntouched = 0;
}

void
over_init(struct op *o)
{
	size_t i;

	/* kept folds, unless a frame holds only peers or one record */
	if (o->c->wkind == WK_OVER && o->c->size > 0 && aggs_keepable(o->g))
		slide_init(&o->slide, o->g, sat_add(o->c->size, 1), 0);
	if (o->c->wkind == WK_OVER_ROWS && o->c->count_n > 1 &&
	    aggs_keepable(o->g))
		slide_init(&o->slide, o->g, (int64_t)o->c->count_n, 0);
	wire_fields_init(&o->over_wf, o->c);
	o->over_vals = xcalloc(o->c->naggs ? o->c->naggs : 1,
	    sizeof(*o->over_vals));
	for (i = 0; i < o->c->naggs; i++)
		if (o->c->aggs[i].op == &record_op)
			o->rec_off = aggs_slot(o->g, i);
}

void
over_fini(struct op *o)
{
	wire_fields_fini(&o->over_wf);
	free(o->over_vals);
	free(o->over_buf);
}
