/* aggcounter: counters and histograms (man/fwin.1, COUNTERS AND
 * HISTOGRAMS): --increase, --rate and --histogram.
 *
 * A counter's increase is the sum of its steps in event-time order
 * (ties in arrival order), a value below the one before it being a
 * reset that adds itself. Written as a telescoping sum, the increase
 * over values v0 (the previous value, when there is one) ... vn is
 *
 *	vn - v0 + (the sum of v[i-1] over every reset v[i] < v[i-1])
 *
 * so that it is exact, as a decimal sum is, and folds from pieces: a
 * pane keeps its earliest and latest value and the sum of the values
 * before its resets, and two pieces one after the other in time join
 * with one more possible reset where they meet. A value that arrives
 * out of time order (stream mode) may land between any two: there the
 * panes keep every value too, and a window whose pieces do not join in
 * order is folded from its values, sorted. The previous value of a
 * window is the latest value of the key before it: of its panes that
 * are still kept before the window, or of those dropped, which the
 * key's block remembers (aggs_carry). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "window/agg.h"
#include "window/aggint.h"
#include "base/decimal.h"
#include "base/num.h"
#include "base/timefmt.h"
#include "base/util.h"

/* The fold of one counter: the window's pieces joined, what lies
 * before it, and its length. */
struct cfold {
	int ordered_input;	/* aggs_set_ordered: no value lists kept */
	uint64_t n;
	struct cval first, last;
	struct dec_sum resets;
	int chain;		/* the pieces joined in order so far */
	const struct acc_counter **src;	/* the pieces, for a fold from
					 * their values */
	const struct arena *srca;
	size_t nsrc, capsrc;
	struct cval prior;
	int has_prior;
	int64_t span;		/* -1: no length */
	struct cval *v;		/* the values, sorted, when not chained */
	size_t capv;
};

/* --- values --- */

static __int128
cv_m(const struct cval *x)
{
	return (__int128)(((unsigned __int128)x->m_hi << 64) | x->m_lo);
}

static void
cv_make(struct cval *x, const struct aval *v, uint64_t seq, int64_t t)
{
	struct dec dv;

	memset(x, 0, sizeof(*x));
	x->t = t;
	x->seq = seq;
	x->d = v->d;
	if (dec_parse(v->p, v->n, &dv) == 0) {
		x->exact = 1;
		x->scale = dv.scale;
		x->m_lo = (uint64_t)dv.m;
		x->m_hi = (uint64_t)((unsigned __int128)dv.m >> 64);
	}
}

/* Whether x comes after y in (time, arrival) order. */
static int
cv_after(const struct cval *x, const struct cval *y)
{
	return x->t != y->t ? x->t > y->t : x->seq > y->seq;
}

static int
cv_time_cmp(const void *va, const void *vb)
{
	const struct cval *a = va, *b = vb;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Whether value x is below value y: a reset from y to x. Doubles are
 * correctly rounded, so they order values that differ enough; equal
 * doubles of exact values are compared exactly at the larger scale. */
static int
cv_less(const struct cval *x, const struct cval *y)
{
	__int128 mx, my, p = 1;
	uint32_t k;

	if (x->d != y->d || !x->exact || !y->exact)
		return x->d < y->d;
	mx = cv_m(x);
	my = cv_m(y);
	for (k = x->scale < y->scale ? x->scale : y->scale;
	    k < (x->scale > y->scale ? x->scale : y->scale); k++)
		p *= 10;
	if (x->scale < y->scale && __builtin_mul_overflow(mx, p, &mx))
		return x->d < y->d;
	if (y->scale < x->scale && __builtin_mul_overflow(my, p, &my))
		return x->d < y->d;
	return mx < my;
}

/* Adds x (negated: -x) to the exact sum s: a value not in plain decimal
 * as its double's exact value. A sum that cannot hold it in its fixed
 * width (no arena block here) is marked DS_LOST. */
static void
sum_cv(struct dec_sum *s, const struct cval *x, int neg)
{
	struct dec dv;
	int rc;

	if (!x->exact)
		rc = dec_sum_add_double(s, neg ? -x->d : x->d);
	else {
		dv.m = neg ? -cv_m(x) : cv_m(x);
		dv.scale = (int32_t)x->scale;
		dv.exp = 0;
		rc = dec_sum_add(s, &dv);
	}
	if (rc != 0)
		s->flags |= DS_LOST;
}

/* dst += src, or dst marked DS_LOST. */
static void
sum_merge(struct dec_sum *dst, const struct dec_sum *src)
{
	if (dec_sum_merge(dst, src) != 0)
		dst->flags |= DS_LOST | src->flags;
}

/* Joins piece (first, last, resets) b after piece a, held in *first,
 * *last, *resets: one more reset where they meet. */
static void
join_after(struct cval *alast, struct dec_sum *ares, const struct cval *bfirst,
    const struct cval *blast, const struct dec_sum *bres)
{
	sum_merge(ares, bres);
	if (cv_less(bfirst, alast))
		sum_cv(ares, alast, 0);
	*alast = *blast;
}

static void
join_before(struct cval *afirst, struct dec_sum *ares,
    const struct cval *bfirst, const struct cval *blast,
    const struct dec_sum *bres)
{
	sum_merge(ares, bres);
	if (cv_less(afirst, blast))
		sum_cv(ares, blast, 0);
	*afirst = *bfirst;
}

/* --- a pane's values --- */

#define CV_BYTES(cap)	(sizeof(struct cvals) + (cap) * sizeof(struct cval))

/* The value list of the counter at slot, with room for extra more. */
static struct cvals *
cv_reserve(struct arena *a, aoff slot, uint64_t extra)
{
	aoff b = ((struct acc_counter *)arena_ptr(a, slot))->blk, nb;
	struct cvals *p = b != 0 ? arena_ptr(a, b) : NULL, *q;
	uint64_t n = p != NULL ? p->cv_n : 0, cap;

	if (p != NULL && p->cv_cap - n >= extra)
		return p;
	cap = p != NULL ? p->cv_cap : 4;
	while (cap - n < extra)
		cap *= 2;
	nb = arena_alloc(a, CV_BYTES(cap));
	q = arena_ptr(a, nb);
	q->cv_cap = cap;
	q->cv_n = 0;
	if (b != 0) {
		p = arena_ptr(a, b);
		q->cv_n = p->cv_n;
		memcpy(q->cv_v, p->cv_v, p->cv_n * sizeof(struct cval));
		arena_free(a, b, CV_BYTES(p->cv_cap));
	}
	((struct acc_counter *)arena_ptr(a, slot))->blk = nb;
	return q;
}

void
counter_add_at(const struct agg *ag, struct arena *a, aoff slot,
    const struct aval *v, uint64_t seq, int64_t t)
{
	struct acc_counter *c;
	struct cvals *l;
	struct cval x;

	cv_make(&x, v, seq, t);
	if (!ag->cf->ordered_input) {
		l = cv_reserve(a, slot, 1);
		l->cv_v[l->cv_n++] = x;
	}
	c = arena_ptr(a, slot);
	if (c->n++ == 0) {
		c->first = c->last = x;
		c->ordered = 1;
	} else if (cv_after(&x, &c->last)) {
		if (cv_less(&x, &c->last))
			sum_cv(&c->resets, &c->last, 0);
		c->last = x;
	} else if (!cv_after(&x, &c->first)) {
		if (cv_less(&c->first, &x))
			sum_cv(&c->resets, &x, 0);
		c->first = x;
	} else
		c->ordered = 0;	/* between two: only the list knows */
}

/* Sessions that merge: src's pieces and values join dst's. */
void
counter_merge(struct arena *a, aoff dst, aoff src)
{
	struct acc_counter *d = arena_ptr(a, dst), *s = arena_ptr(a, src), sv;
	struct cvals *l, *sl;
	aoff sb;

	sv = *s;
	sb = s->blk;
	s->blk = 0;	/* src needs no release after a merge */
	if (sv.n == 0 || d->n == 0) {
		/* one side empty: the other is the merge (an empty side's
		 * list, which only a restored slot can hold, is freed) */
		aoff gone = sv.n == 0 ? sb : d->blk;

		if (gone != 0)
			arena_free(a, gone, CV_BYTES(((struct cvals *)
			    arena_ptr(a, gone))->cv_cap));
		if (sv.n != 0)
			*(struct acc_counter *)arena_ptr(a, dst) = sv;
		return;
	}
	if (d->ordered && sv.ordered && cv_after(&sv.first, &d->last))
		join_after(&d->last, &d->resets, &sv.first, &sv.last,
		    &sv.resets);
	else if (d->ordered && sv.ordered && cv_after(&d->first, &sv.last))
		join_before(&d->first, &d->resets, &sv.first, &sv.last,
		    &sv.resets);
	else	/* interleaved in time: only the lists know */
		d->ordered = 0;
	if (!d->ordered) {
		if (cv_after(&d->first, &sv.first))
			d->first = sv.first;
		if (cv_after(&sv.last, &d->last))
			d->last = sv.last;
	}
	d->n += sv.n;
	if (sb == 0)
		return;
	sl = arena_ptr(a, sb);
	l = cv_reserve(a, dst, sl->cv_n);
	sl = arena_ptr(a, sb);
	memcpy(l->cv_v + l->cv_n, sl->cv_v, sl->cv_n * sizeof(struct cval));
	l->cv_n += sl->cv_n;
	arena_free(a, sb, CV_BYTES(sl->cv_cap));
}

void
counter_fold(struct agg *ag, const struct arena *a, void *dst,
    const void *src)
{
	struct cfold *f = ag->cf;
	const struct acc_counter *s = src;

	(void)dst;
	if (s->n == 0)
		return;
	xgrow(&f->src, &f->capsrc, f->nsrc + 1,
	    sizeof(const struct acc_counter *));
	f->src[f->nsrc++] = s;
	f->srca = a;
	if (f->n == 0) {
		f->first = s->first;
		f->last = s->last;
		f->resets = s->resets;
		f->chain = s->ordered;
	} else if (f->chain && s->ordered && cv_after(&s->first, &f->last))
		join_after(&f->last, &f->resets, &s->first, &s->last,
		    &s->resets);
	else if (f->chain && s->ordered && cv_after(&f->first, &s->last))
		join_before(&f->first, &f->resets, &s->first, &s->last,
		    &s->resets);
	else {
		f->chain = 0;
		if (cv_after(&f->first, &s->first))
			f->first = s->first;
		if (cv_after(&s->last, &f->last))
			f->last = s->last;
	}
	f->n += s->n;
}

/* The fold's values, sorted in (time, arrival) order; 0 when a piece
 * kept none (it cannot be folded otherwise than by its pieces). */
static size_t
fold_values(struct cfold *f)
{
	const struct cvals *l;
	size_t i, n = 0;

	for (i = 0; i < f->nsrc; i++)
		if (f->src[i]->blk == 0)
			return 0;
	for (i = 0; i < f->nsrc; i++) {
		l = arena_ptr(f->srca, f->src[i]->blk);
		xgrow(&f->v, &f->capv, n + l->cv_n, sizeof(*f->v));
		memcpy(f->v + n, l->cv_v, l->cv_n * sizeof(struct cval));
		n += l->cv_n;
	}
	qsort(f->v, n, sizeof(*f->v), cv_time_cmp);
	return n;
}

/* The increase of the fold, from the previous value if any. */
static void
fold_increase(struct cfold *f, struct dec_sum *inc)
{
	const struct cval *base = f->has_prior ? &f->prior : &f->first, *x;
	size_t n, i;

	memset(inc, 0, sizeof(*inc));
	if (f->chain || (n = fold_values(f)) == 0) {
		*inc = f->resets;
		if (f->has_prior && cv_less(&f->first, &f->prior))
			sum_cv(inc, &f->prior, 0);
	} else {
		x = base;
		for (i = 0; i < n; i++) {
			if (cv_less(&f->v[i], x))
				sum_cv(inc, x, 0);
			x = &f->v[i];
		}
	}
	sum_cv(inc, &f->last, 0);
	sum_cv(inc, base, 1);
}

/* An increase that could not be summed exactly: an empty cell, said
 * once. */
static void
lost(struct agg *ag, struct out *o)
{
	static atomic_int said;

	out_null(o);
	if (atomic_exchange(&said, 1) == 0)
		fwin_warn("--%s %s: values too far apart in size to sum "
		    "exactly: a cell is empty", ag->op->option,
		    fieldref_said(ag->f));
}

/* The increase as its double, correctly rounded (+-HUGE_VAL beyond). */
static double
inc_double(const struct dec_sum *inc)
{
	char buf[DEC_BUFSZ];

	dec_sum_text(buf, inc);
	return dec_text_double(buf);
}

void
increase_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o)
{
	struct dec_sum inc;
	char buf[DEC_BUFSZ];
	double d;

	(void)a;
	(void)acc;
	if (ag->cf->n == 0) {
		out_null(o);
		return;
	}
	fold_increase(ag->cf, &inc);
	if (!(inc.flags & DS_LOST) && dec_sum_exact(&inc))
		out_own_num(o, buf, dec_sum_format(buf, &inc));
	else if ((inc.flags & DS_LOST) || !isfinite(d = inc_double(&inc)))
		lost(ag, o);
	else
		emit_double(o, d);
}

/* The increase per second over span nanoseconds: the exact increase
 * times 1e9 over the span, rounded once (num_quotient_double). Dividing
 * by the span in seconds, a double that misses most lengths under a
 * second (0.7 is not), gave 21 in 700 ms as 30.000000000000004. Past
 * the doubles' range (an increase near 1e300), the increase divided by
 * the seconds. */
static double
rate_double(const struct dec_sum *inc, int64_t span)
{
	char buf[DEC_BUFSZ + 16], *e;
	double d;

	dec_sum_text(buf, inc);
	e = strrchr(buf, 'e');	/* "digits" "e" "-scale" */
	*e = '\0';
	d = num_quotient_double(buf, strtol(e + 1, NULL, 10) + 9, span);
	if (isfinite(d))
		return d;
	return inc_double(inc) / ((double)span / NS_PER_S);
}

void
rate_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o)
{
	struct dec_sum inc;
	double d;

	(void)a;
	(void)acc;
	if (ag->cf->n == 0 || ag->cf->span <= 0) {
		out_null(o);
		return;
	}
	fold_increase(ag->cf, &inc);
	if (inc.flags & DS_LOST) {
		lost(ag, o);
		return;
	}
	d = rate_double(&inc, ag->cf->span);
	if (!isfinite(d))
		lost(ag, o);
	else
		emit_double(o, d);
}

static int
cval_ok(const struct cval *x)
{
	return x->scale <= DEC_DIGITS && x->exact <= 1;
}

const char *
counter_check(const struct arena *a, const void *slot,
    struct arena_claims *m)
{
	const struct acc_counter *c = slot;
	uint64_t used = m->used, j;
	const struct cvals *l;

	if (!cval_ok(&c->first) || !cval_ok(&c->last) || c->ordered > 1 ||
	    c->resets.flags > (DS_EXP | DS_LOST) || c->resets.big != 0 ||
	    c->resets.scale > DEC_MAXSCALE + 400 ||
	    c->resets.scale < DEC_MINSCALE - 400 ||
	    (!(c->resets.flags & DS_EXP) && (c->resets.scale < 0 ||
	    c->resets.scale > DEC_DIGITS)))
		return "bad counter in an accumulator";
	if (c->blk == 0)
		return NULL;
	if (c->blk < sizeof(struct arena_hdr) || c->blk % 8 != 0 ||
	    c->blk >= used || used - c->blk < sizeof(*l))
		return "bad counter values";
	l = arena_ptr(a, c->blk);
	if (l->cv_cap > (used - c->blk - sizeof(*l)) / sizeof(struct cval) ||
	    l->cv_n > l->cv_cap ||
	    arena_claim(m, c->blk, CV_BYTES(l->cv_cap)) != 0)
		return "bad counter values";
	for (j = 0; j < l->cv_n; j++)
		if (!cval_ok(&l->cv_v[j]))
			return "bad counter value";
	return NULL;
}

void
counter_release(struct arena *a, aoff slot)
{
	aoff b = ((struct acc_counter *)arena_ptr(a, slot))->blk;

	if (b != 0)
		arena_free(a, b, CV_BYTES(((struct cvals *)
		    arena_ptr(a, b))->cv_cap));
}

/* --- beyond the window: the key's block, the previous value --- */

void
counter_init(struct agg *ag)
{
	ag->cf = xcalloc(1, sizeof(*ag->cf));
}

void
counter_free(struct agg *ag)
{
	if (ag->cf == NULL)
		return;
	free(ag->cf->src);
	free(ag->cf->v);
	free(ag->cf);
}

void
counter_set_ordered(struct agg *ag, int ordered)
{
	ag->cf->ordered_input = ordered;
}

void
counter_fold_begin(struct agg *ag)
{
	struct cfold *f = ag->cf;

	f->n = 0;
	f->nsrc = 0;
	f->has_prior = 0;
	f->span = -1;
	f->chain = 0;
	memset(&f->resets, 0, sizeof(f->resets));
}

void
counter_carry(const struct agg *ag, struct arena *a, void *kb, aoff slot)
{
	const struct acc_counter *c = arena_ptr(a, slot);
	struct ckey *k = (struct ckey *)((char *)kb + ag->koff);

	if (c->n > 0 && (!k->set || cv_after(&c->last, &k->v))) {
		k->v = c->last;
		k->set = 1;
	}
}

int
counter_key_held(const struct agg *ag, const void *kb)
{
	return ((const struct ckey *)((const char *)kb + ag->koff))->set != 0;
}

const char *
counter_key_check(const struct agg *ag, const void *kb)
{
	const struct ckey *k = (const struct ckey *)((const char *)kb +
	    ag->koff);

	return k->set > 1 || !cval_ok(&k->v) ? "bad counter of a key" : NULL;
}

void
counter_fold_prior(struct agg *ag, const struct arena *a, const void *kb,
    aoff slot)
{
	struct cfold *f = ag->cf;
	const struct ckey *k;
	const struct acc_counter *c;

	if (kb != NULL) {
		k = (const struct ckey *)((const char *)kb + ag->koff);
		if (k->set && (!f->has_prior || cv_after(&k->v, &f->prior))) {
			f->prior = k->v;
			f->has_prior = 1;
		}
	}
	if (slot != 0) {
		c = arena_ptr(a, slot);
		if (c->n > 0 && (!f->has_prior ||
		    cv_after(&c->last, &f->prior))) {
			f->prior = c->last;
			f->has_prior = 1;
		}
	}
}

int
counter_prior_known(const struct agg *ag)
{
	return ag->cf->has_prior;
}

void
counter_fold_span(struct agg *ag, int64_t len)
{
	ag->cf->span = len;
}

/* --- histogram: a count per bucket, cumulated when written --- */

/* The slot: the number of bounds (0 until a value is seen, so that a
 * fold or merge without the aggregate at hand knows it), then a count
 * per bucket: values <= B1, in (B1, B2], ..., above the last bound. */
size_t
hist_slotsize(size_t nbounds)
{
	return (nbounds + 2) * sizeof(uint64_t);
}

void
hist_add_at(const struct agg *ag, struct arena *a, aoff slot,
    const struct aval *v, uint64_t seq, int64_t t)
{
	uint64_t *h = arena_ptr(a, slot);
	size_t lo = 0, hi = ag->nbounds, mid;

	(void)seq;
	(void)t;
	h[0] = ag->nbounds;
	while (lo < hi) {	/* the first bound >= v */
		mid = lo + (hi - lo) / 2;
		if (ag->bounds[mid].b < v->d)
			lo = mid + 1;
		else
			hi = mid;
	}
	h[1 + lo]++;
}

void
hist_fold(struct agg *ag, const struct arena *a, void *dst, const void *src)
{
	uint64_t *d = dst;
	const uint64_t *s = src;
	uint64_t j;

	(void)ag;
	(void)a;
	if (s[0] == 0)
		return;
	d[0] = s[0];
	for (j = 0; j <= s[0]; j++)
		d[1 + j] += s[1 + j];
}

void
hist_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o)
{
	const uint64_t *h = acc;
	uint64_t sum = 0;
	size_t j;

	(void)a;
	for (j = 0; j <= ag->nbounds; j++) {
		if (h[0] != 0)
			sum += h[1 + j];
		emit_int(o, (int64_t)sum);
	}
}

/* A restored slot's count of bounds must be the pipeline's, or none. */
const char *
hist_check(const struct agg *ag, const void *slot)
{
	uint64_t nb = *(const uint64_t *)slot;

	return nb != 0 && nb != ag->nbounds ? "bad histogram" : NULL;
}

const char *
agg_hist_bounds(const char *list, struct hist_bound **out, size_t *n)
{
	const char *p = list, *e;
	struct hist_bound *v = NULL;
	struct num nu;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (*list == '\0')
		return "no bound";
	for (;;) {
		e = p + strcspn(p, ",");
		if (e == p || num_parse(p, (size_t)(e - p), &nu) != 0 ||
		    !isfinite(nu.d)) {
			free(v);
			return "a bound is not a number";
		}
		if (k > 0 && !(nu.d > v[k - 1].b)) {
			free(v);
			return "bounds must be ascending";
		}
		v = xrealloc(v, (k + 1) * sizeof(*v));
		v[k].b = nu.d;
		v[k].name = NULL;
		k++;
		if (*e == '\0')
			break;
		p = e + 1;
	}
	/* names once every bound is good: nothing to free on an error */
	for (p = list, *n = 0; *n < k; (*n)++) {
		e = p + strcspn(p, ",");
		v[*n].name = xstrndup(p, (size_t)(e - p));
		p = e + 1;
	}
	*out = v;
	return NULL;
}
