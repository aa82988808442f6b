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

#include "window/assign.h"
#include "window/changelog.h"
#include "io/keycodec.h"
#include "window/opint.h"
#include "window/operator.h"
#include "window/slide.h"
#include "base/util.h"

/* --- firing --- */

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
	/* a counter's next window counts from the values dropped here */
	if (aggs_keysize(o->g) > 0)
		aggs_carry(o->g, &o->st.a, opkey_aggs(o, k), st_acc(p));
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
				fire_add(o, pp->p_end, pp->p_start, k, p);
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
			fire_add(o, end, start, k, q);
		}
	}
	opkey(o, k)->ok_next_fire = end;
	return last;
}

/* --- early firing (--emit-every) --- */

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

/* Warms the cache for the keys touched ahead of the i-th: a key
 * TOUCH_AHEAD on, and the first pane of one half as far (what collecting
 * and purging read first). The keys lie all over the arena. */
#define TOUCH_AHEAD	8

static inline void
touch_ahead(const struct op *o, size_t i)
{
	const struct state *s = &o->st;
	aoff p;

	if (i + TOUCH_AHEAD < o->ntouched)
		st_warm(s, o->touched[i + TOUCH_AHEAD]);
	if (i + TOUCH_AHEAD / 2 < o->ntouched &&
	    (p = st_keyp(s, o->touched[i + TOUCH_AHEAD / 2])->k_head) != 0)
		st_warm(s, p);
}

void
op_advance(struct op *o, int64_t w)
{
	struct state *s = &o->st;
	int64_t wold = globals(o)->g_wm, m, upto = T_NONE;
	size_t i, n;
	aoff k;

	if (o->as.ops->kind == AS_OVER) {
		over_advance(o, w);
		return;
	}
	globals(o)->g_wm = w;
	o->nbatch = o->ntouched = o->nmore = 0;
	while ((k = st_timer_pop(s, w)) != 0) {
		xgrow(&o->touched, &o->captouched, o->ntouched + 1,
		    sizeof(*o->touched));
		o->touched[o->ntouched++] = k;
	}
	for (i = 0; i < o->ntouched; i++) {
		touch_ahead(o, i);
		upto = collect_key(o, o->touched[i], w, upto);
	}
	/* the end of input prints only final rows */
	if (o->c->emit_every > 0 && w != INT64_MAX &&
	    (m = fire_crossed(o, wold, w)) != INT64_MIN)
		fire_partials(o, w, m);
	if (st_corrupt(s) != NULL)
		return;		/* the run ends: nothing more fires */
	/* Memory follows the state, not the output: a key with very many
	 * windows due (--slide 1d,1ms) gives them FIRE_CAP at a time; what
	 * every key has up to the end of the first cut fires, and so on. */
	while (upto != T_NONE && !o->halted) {
		fire_batch_upto(o, upto);
		upto = T_NONE;
		/* collect_key appends at nmore, never past i: more[i] is
		 * read before it can be written */
		n = o->nmore;
		o->nmore = 0;
		for (i = 0; i < n; i++)
			upto = collect_key(o, o->more[i], w, upto);
	}
	fire_batch(o);
	for (i = 0; i < o->ntouched; i++) {
		touch_ahead(o, i);
		k = o->touched[i];
		purge(o, k, w);
		schedule(o, k);
		/* a key whose counters hold its last value stays */
		if (st_keyp(s, k)->k_head == 0 &&
		    st_keyp(s, k)->k_timer == T_NONE &&
		    (aggs_keysize(o->g) == 0 ||
		    !aggs_key_held(o->g, opkey_aggs(o, k)))) {
			fire_digest_free(o, k);
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
	    (m = fire_next_crossing(o, globals(o)->g_wm)) < t)
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
	/* counters order by event time; count windows and rolling mode
	 * by arrival alone */
	aggs_add_at(o->g, &s->a, st_acc(p), r->vals, globals(o)->g_seq,
	    o->as.ops->kind == AS_ARRIVAL || o->as.ops->kind == AS_ROLLING ?
	    0 : r->t);
	globals(o)->g_seq++;
}

/* Steps 1-2 for windows of panes, which need no keyed state: the span
 * of the record at t, or OP_RANGE, OP_NOWIN or OP_LATE (counted). */
static int
panes_of(struct op *o, int64_t t, struct span *sp)
{
	const struct assigner *as = &o->as;
	int rc;

	if (t >= o->last.pane && t < o->last.pane_end)
		*sp = o->last;
	else if ((rc = as->ops->assign(as, t, sp)) != AS_OK) {
		if (rc == AS_RANGE)
			return OP_RANGE;
		globals(o)->g_nowin++;
		return OP_NOWIN;
	} else if (sp->pane_end != INT64_MAX)
		o->last = *sp;
	if (sat_add(sp->last_end, o->c->allowed) <= globals(o)->g_wm) {
		globals(o)->g_late++;
		return OP_LATE;
	}
	return OP_ADDED;
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

	if ((rc = panes_of(o, t, &sp)) != OP_ADDED)
		return rc;
	w = globals(o)->g_wm;
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
	} else if (c->fill && opkey(o, k)->ok_next_fire == T_NONE) {
		/* a key whose windows all fired at once (step 3), nothing of
		 * it due yet: its empty windows after them fire as W passes
		 * them, as every key's do from its first window. (A key with
		 * a window due has them filled from there already; moving it
		 * back would fire again what fired.) */
		opkey(o, k)->ok_next_fire = as->ops->end_after(as,
		    sp.last_end);
		created = 1;
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
	fire_fold_context(o, k, 0, 0, 0);
	fire_row(o, k, 0, 0, 0, 0, 1);
}

static int
key_order_cmp(const void *a, const void *b, void *arg)
{
	return fire_key_order(arg, *(const aoff *)a, *(const aoff *)b);
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
	fire_fold_context(o, k, 0, 0, 0);
	fire_row(o, k, 0, 0, 0, r->t, 1);
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
			fire_add(o, o->span_hi, o->span_lo, k,
			    st_keyp(s, k)->k_head);
		else
			fire_add(o, ok->ok_tmax, ok->ok_tmin, k,
			    st_keyp(s, k)->k_head);
	}
	if (st_corrupt(s) == NULL)
		fire_batch(o);
	o->nbatch = 0;
}

int
op_record(struct op *o, const struct op_rec *r)
{
	return o->process(o, r);
}

int
op_judges_alone(const struct op *o)
{
	return o->as.ops->kind != AS_MERGING;
}

int
op_classify(struct op *o, int64_t t, uint64_t *seq)
{
	struct span sp;
	int rc = OP_ADDED;

	if (o->as.ops->kind == AS_PANES)
		rc = panes_of(o, t, &sp);
	/* a session's lateness needs its key's sessions, but whether its
	 * [t, t + gap) is within the range of times does not: judged
	 * here, as process_session() judges it first, so that the record
	 * is bad (said, --bad-file) rather than handed to a worker */
	else if (o->as.ops->kind == AS_MERGING &&
	    o->as.ops->assign(&o->as, t, &sp) != AS_OK)
		rc = OP_RANGE;
	if (rc == OP_ADDED)
		*seq = globals(o)->g_seq++;
	return rc;
}

void
op_set_arrival(struct op *o, uint64_t seq)
{
	globals(o)->g_seq = seq;
}

void
op_halt(struct op *o)
{
	o->halted = 1;
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
	case AS_OVER:
		over_advance(o, INT64_MAX);
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
		[AS_GLOBAL] = process_global, [AS_OVER] = over_process,
	};
	struct op *o = xcalloc(1, sizeof(*o));

	o->c = c;
	o->g = g;
	o->emit = emit;
	o->emit_arg = arg;
	assigner_init(&o->as, c);
	o->process = by_kind[o->as.ops->kind];
	if (o->as.ops->kind == AS_OVER)
		over_init(o);
	/* counters keep no list of values where none can come out of
	 * order: arrival orders them, or batch mode's sorted replay (--over
	 * adds a key's records in event-time order) */
	aggs_set_ordered(g, o->as.ops->kind == AS_ARRIVAL ||
	    o->as.ops->kind == AS_ROLLING || o->as.ops->kind == AS_OVER ||
	    c->mode == MODE_BATCH);
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
	if (o->as.ops->kind == AS_OVER)
		over_fini(o);
	free(o->batch);
	free(o->sortbuf);
	free(o->touched);
	free(o->more);
	free(o->ranked);
	free(o->ranktext);
	free(o);
}

/* Bytes behind a pane's header: its accumulators, and for windows of many
 * panes room for a kept fold (see slide.h). */
static size_t
pane_block(const struct op *o)
{
	if (o->as.ops->kind == AS_OVER)
		return over_pane_block(o);
	return aggs_accsize(o->g) * (o->slide.g != NULL ? 2 : 1);
}

/* Bytes behind a key's header: the operator's block, then the
 * aggregates' (counters' last values). */
static size_t
key_block(const struct op *o)
{
	return sizeof(struct opkey) + aggs_keysize(o->g);
}

/* Panes on a grid keep their start: a key's many panes (a long -l over
 * input out of time order) are found through the pane index. A
 * cumulating window keeps its panes until its whole window fires: when
 * the lateness bounds are within one window of the size, a key holds at
 * most about two windows of them, found from the tail, and the index
 * would only cost a put and a delete per pane. */
static void
index_panes(struct op *o)
{
	const struct config *c = o->c;

	if (c->wkind == WK_CUMULATE && c->size > 0 &&
	    sat_add(c->lateness, c->allowed) <= c->size)
		return;
	if (o->as.ops->kind == AS_PANES)
		st_index_panes(&o->st, o->as.pane);
}

/* The driver's block: its globals, then the changelog's root. */
static size_t
driver_block(const struct op *o)
{
	return sizeof(struct op_globals) + clog_size(o->c);
}

int
op_init_state(struct op *o)
{
	if (st_init(&o->st, pane_block(o), key_block(o),
	    driver_block(o)) != 0)
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
	const struct op *o = arg;
	struct opkey *ok = ext;
	uint64_t n = (uint64_t)ok->ok_capdig * sizeof(struct digest);
	const char *why;

	(void)a;
	if (aggs_keysize(o->g) > 0 &&
	    (why = aggs_key_check(o->g, (char *)ext + sizeof(*ok))) != NULL)
		return why;
	slide_forget(&ok->ok_kept);
	if (((const struct op *)arg)->as.ops->kind == AS_OVER)
		ok->ok_next_fire = 0;	/* a pane's offset: not trusted */
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
	case AS_OVER:	/* any time, any arrival number */
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

	if (o->as.ops->kind == AS_OVER) {
		sc.acc_ok = over_acc_ok;
		sc.acc_arg = o;
		sc.ties = 1;	/* (records of one time) */
		sc.follows = over_follows;
	}

	const char *why = st_adopt(&o->st, a, used, pane_block(o),
	    key_block(o), driver_block(o), &sc);

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
	    (o->as.ops->kind == AS_GLOBAL && o->c->emit_every > 0) ||
	    (o->as.ops->kind == AS_OVER && o->c->has_time);
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
