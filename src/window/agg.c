/* agg: the aggregate table; see agg.h.
 *
 * Each aggregate owns a fixed slot of the accumulator block. Values that
 * must be printed as written (min, max, first, last, min-by, max-by) are
 * kept as arena blobs; extremes are compared by their exact values (their
 * doubles, then their texts where those are equal), and ties and
 * first/last are decided by the record's arrival number, so that merging
 * slices in any order gives the answer of adding the records one by one.
 * Percentiles keep their values, and sketches themselves, in arena blocks
 * of their own that grow; their folds are outside the arena
 * (AGF_NOKEEP). */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "window/agg.h"
#include "window/aggint.h"
#include "base/bigsum.h"
#include "base/decimal.h"
#include "base/num.h"
#include "base/sketch.h"
#include "base/stats.h"
#include "base/util.h"

/* sum and avg: struct dec_sum (decimal.h), its block struct dec_big */
ARENA_LAYOUT(struct dec_sum, 64);
ARENA_OFFSET(struct dec_sum, scale, 40);
ARENA_OFFSET(struct dec_sum, flags, 44);
ARENA_OFFSET(struct dec_sum, n, 48);
ARENA_OFFSET(struct dec_sum, big, 56);

/* stddev, var, stddev-pop, var-pop: struct stats_var (stats.h) */
ARENA_LAYOUT(struct stats_var, 128);
ARENA_OFFSET(struct stats_var, xx, 64);

struct acc_ext {		/* min, max, min-by, max-by */
	double v;
	uint64_t seq;
	aoff text;		/* the value as written; min-by, max-by: OUT's
				 * text, then the value's */
	uint32_t set;
	uint32_t outn;		/* min-by, max-by: the bytes of OUT's text */
};
ARENA_LAYOUT(struct acc_ext, 32);
ARENA_OFFSET(struct acc_ext, outn, 28);

struct acc_pick {		/* first, last */
	uint64_t seq;
	aoff text;		/* 0 until a value is seen */
};
ARENA_LAYOUT(struct acc_pick, 16);

struct aggs {
	struct agg *v;
	size_t n;
	size_t accsize;
	unsigned char *fold;	/* the fold accumulator block */
	size_t keysize;		/* of a key's block (AGF_PRIOR) */
	int prior;		/* an aggregate is AGF_PRIOR */
	/* the aggregates that take a FIELD or the record, which
	 * aggs_extract() reads (the others' values stay NULL, but for an
	 * --if's mark) */
	size_t *takes, ntakes;
	struct plain_agg *plain;	/* plain_init() */
	int adds_inline;	/* counts, sums and variances only:
				 * aggs_sums() */
	int ints;		/* counts and sums that print as integers:
				 * aggs_put_ints() */
};

/* The value kept by e (set), as written: the end of its text. */
static const char *
ext_value(const struct arena *a, const struct acc_ext *e, size_t *n)
{
	const struct blob *b = blob_at(a, e->text);

	*n = b->b_len - e->outn;
	return b->b_data + e->outn;
}

/* Whether candidate (v, written p[0..n), seq) beats the one e keeps, of
 * arena a, for min (want_max = 0) or max (want_max = 1): a strictly
 * better value, or an equal one and earlier. Rounding to doubles keeps
 * the order of values, so the doubles decide unless they are equal: only
 * then are the texts read, exactly. */
static int
ext_better(const struct arena *a, int want_max, double v, const char *p,
    size_t n, uint64_t seq, const struct acc_ext *e)
{
	const char *q;
	size_t m;
	int c;

	if (!e->set)
		return 1;
	if (v != e->v)
		return want_max ? v > e->v : v < e->v;
	q = ext_value(a, e, &m);
	if ((c = num_cmp_exact(p, n, q, m)) != 0)
		return want_max ? c > 0 : c < 0;
	return seq < e->seq;
}

/* ext_better() of a kept candidate s, of arena a too. */
static int
ext_beats(const struct arena *a, int want_max, const struct acc_ext *s,
    const struct acc_ext *e)
{
	const char *p;
	size_t n;

	if (!s->set)
		return 0;
	p = ext_value(a, s, &n);
	return ext_better(a, want_max, s->v, p, n, s->seq, e);
}


/* --- count --- */

static void
count_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	(void)v;
	(void)seq;
	((struct acc_count *)arena_ptr(a, slot))->n++;
}

static void
count_fold(struct agg *ag, const struct arena *a, void *dst, const void *src)
{
	(void)ag;
	(void)a;
	((struct acc_count *)dst)->n += ((const struct acc_count *)src)->n;
}

static int
count_unmerge(struct arena *a, aoff dst, aoff src)
{
	((struct acc_count *)arena_ptr(a, dst))->n -=
	    ((const struct acc_count *)arena_ptr(a, src))->n;
	return 0;
}

static void
count_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o)
{
	(void)ag;
	(void)a;
	emit_int(o, (int64_t)((const struct acc_count *)acc)->n);
}

/* --- sum and avg: exact sums (man/fwin.1, AGGREGATES) --- */

static void
sum_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	(void)seq;
	aggs_sum_add(a, slot, v);
}

static void
sum_merge(struct arena *a, aoff dst, aoff src)
{
	bigsum_merge(a, dst, src);
}

static int
sum_unmerge(struct arena *a, aoff dst, aoff src)
{
	return dec_sum_unmerge(arena_ptr(a, dst), arena_ptr(a, src));
}

/* A variance's sums of the values and of their squares: its result is
 * their exact values' (stats.c), whatever their flags. */
static int
var_unmerge(struct arena *a, aoff dst, aoff src)
{
	const struct dec_sum *s = arena_ptr(a, src);
	struct dec_sum *d = arena_ptr(a, dst);

	return dec_sum_sub(&d[0], &s[0]) != 0 ||
	    dec_sum_sub(&d[1], &s[1]) != 0 ? -1 : 0;
}

static void
sum_fold(struct agg *ag, const struct arena *a, void *dst, const void *src)
{
	bigsum_fold(&ag->bs[0], a, dst, src);
}

/* A result beyond the doubles prints an empty cell, said once. */
static void
beyond(struct agg *ag, struct out *o)
{
	static atomic_int said;

	out_null(o);
	if (atomic_exchange(&said, 1) == 0)
		fwin_warn("--%s %s: a result is beyond the range of "
		    "doubles (about 1.8e308): its cell is empty",
		    ag->op->option, fieldref_said(ag->f));
}

/* Whether sum s prints as an integer, v: exact, of no exponent's value
 * (those print as doubles), within 64 bits. */
static int
sum_as_int(const struct dec_sum *s, int64_t *v)
{
	return s->n != 0 && s->big == 0 && dec_sum_exact(s) &&
	    dec_sum_int(s, v);
}

static void
sum_emit(struct agg *ag, const struct arena *a, const void *acc, struct out *o)
{
	const struct dec_sum *s = acc;
	char buf[DEC_BUFSZ];
	const char *text;
	size_t len;
	double d;
	int64_t v;

	(void)a;
	if (sum_as_int(s, &v))
		out_int(o, v);
	else if (s->n == 0)
		out_null(o);
	else if (s->big == 0 && dec_sum_exact(s))
		out_own_num(o, buf, dec_sum_format(buf, s));
	else if ((len = bigsum_result(&ag->bs[0], s, &text, &d)) > 0)
		out_own_num(o, text, len);
	else if (!isfinite(d))
		beyond(ag, o);
	else
		emit_double(o, d);
}

static void
avg_emit(struct agg *ag, const struct arena *a, const void *acc, struct out *o)
{
	const struct dec_sum *s = acc;

	(void)a;
	if (s->n == 0)
		out_null(o);
	else
		emit_double(o, bigsum_avg(&ag->bs[0], s));
}

static const char *
sum_check(const struct arena *a, const void *slot, struct arena_claims *m)
{
	return bigsum_check(a, slot, m, 0);
}

static void
sum_release(struct arena *a, aoff slot)
{
	bigsum_release(a, slot);
}

/* --- min, max, min-by, max-by: the extreme value and its text --- */

static void
ext_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq,
    int want_max, int by)
{
	struct acc_ext *e = arena_ptr(a, slot);

	if (!ext_better(a, want_max, v->d, v->p, v->n, seq, e))
		return;
	e->v = v->d;
	e->seq = seq;
	e->set = 1;
	e->outn = by ? (uint32_t)v->outn : 0;
	if (by)
		blob_set2(a, slot + offsetof(struct acc_ext, text), v->out,
		    v->outn, v->p, v->n);
	else
		blob_set(a, slot + offsetof(struct acc_ext, text), v->p, v->n);
}

static void
min_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	ext_add(a, slot, v, seq, 0, 0);
}

static void
max_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	ext_add(a, slot, v, seq, 1, 0);
}

static void
min_by_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	ext_add(a, slot, v, seq, 0, 1);
}

static void
max_by_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	ext_add(a, slot, v, seq, 1, 1);
}

static void
ext_merge(struct arena *a, aoff dst, aoff src, int want_max)
{
	struct acc_ext *d = arena_ptr(a, dst), *s = arena_ptr(a, src);

	if (ext_beats(a, want_max, s, d)) {
		aoff old = d->text;

		*d = *s;
		s->text = old;
	}
	blob_free(a, s->text);
	s->text = 0;
}

static void
min_merge(struct arena *a, aoff dst, aoff src)
{
	ext_merge(a, dst, src, 0);
}

static void
max_merge(struct arena *a, aoff dst, aoff src)
{
	ext_merge(a, dst, src, 1);
}

static void
min_fold(struct agg *ag, const struct arena *a, void *dst, const void *src)
{
	const struct acc_ext *s = src;

	(void)ag;
	if (ext_beats(a, 0, s, dst))
		*(struct acc_ext *)dst = *s;
}

static void
max_fold(struct agg *ag, const struct arena *a, void *dst, const void *src)
{
	const struct acc_ext *s = src;

	(void)ag;
	if (ext_beats(a, 1, s, dst))
		*(struct acc_ext *)dst = *s;
}

/* min and max print the value as it was written: a number */
static void
ext_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o)
{
	const struct acc_ext *e = acc;
	const struct blob *b;

	(void)ag;
	if (!e->set) {
		out_null(o);
		return;
	}
	b = blob_at(a, e->text);
	out_num(o, b->b_data, b->b_len);
}

/* min-by and max-by print a field or a record, OUT's part of their
 * text: text */
static void
by_emit(struct agg *ag, const struct arena *a, const void *acc, struct out *o)
{
	const struct acc_ext *e = acc;
	const struct blob *b;

	(void)ag;
	if (!e->set) {
		out_null(o);
		return;
	}
	b = blob_at(a, e->text);
	out_str(o, b->b_data, e->outn);
}

static const char *
ext_check(const struct arena *a, const void *slot, struct arena_claims *m)
{
	const struct acc_ext *e = slot;

	if ((e->set || e->text != 0) && (!blob_ok(a, e->text, m) ||
	    e->outn > blob_at(a, e->text)->b_len))
		return "bad value in an accumulator";
	return NULL;
}

static void
ext_release(struct arena *a, aoff slot)
{
	blob_free(a, ((struct acc_ext *)arena_ptr(a, slot))->text);
}

/* --- first, last: by arrival number --- */

static void
first_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	struct acc_pick *pk = arena_ptr(a, slot);

	if (pk->text != 0)
		return;
	pk->seq = seq;
	blob_set(a, slot + offsetof(struct acc_pick, text), v->p, v->n);
}

static void
last_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	struct acc_pick *pk = arena_ptr(a, slot);

	pk->seq = seq;
	blob_set(a, slot + offsetof(struct acc_pick, text), v->p, v->n);
}

/* Whether pick s replaces pick d: an earlier (first) or later (last)
 * arrival. */
static int
pick_better(int last, const struct acc_pick *s, const struct acc_pick *d)
{
	return s->text != 0 && (d->text == 0 ||
	    (last ? s->seq > d->seq : s->seq < d->seq));
}

static void
pick_merge(struct arena *a, aoff dst, aoff src, int last)
{
	struct acc_pick *d = arena_ptr(a, dst), *s = arena_ptr(a, src);

	if (pick_better(last, s, d)) {
		aoff old = d->text;

		*d = *s;
		s->text = old;
	}
	blob_free(a, s->text);
	s->text = 0;
}

static void
first_merge(struct arena *a, aoff dst, aoff src)
{
	pick_merge(a, dst, src, 0);
}

static void
last_merge(struct arena *a, aoff dst, aoff src)
{
	pick_merge(a, dst, src, 1);
}

static void
first_fold(struct agg *ag, const struct arena *a, void *dst, const void *src)
{
	(void)ag;
	(void)a;
	if (pick_better(0, src, dst))
		*(struct acc_pick *)dst = *(const struct acc_pick *)src;
}

static void
last_fold(struct agg *ag, const struct arena *a, void *dst, const void *src)
{
	(void)ag;
	(void)a;
	if (pick_better(1, src, dst))
		*(struct acc_pick *)dst = *(const struct acc_pick *)src;
}

static void
pick_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o)
{
	const struct acc_pick *pk = acc;
	const struct blob *b;

	(void)ag;
	if (pk->text == 0) {
		out_null(o);
		return;
	}
	b = blob_at(a, pk->text);
	out_str(o, b->b_data, b->b_len);
}

static const char *
pick_check(const struct arena *a, const void *slot, struct arena_claims *m)
{
	const struct acc_pick *pk = slot;

	if (pk->text != 0 && !blob_ok(a, pk->text, m))
		return "bad value in an accumulator";
	return NULL;
}

static void
pick_release(struct arena *a, aoff slot)
{
	blob_free(a, ((struct acc_pick *)arena_ptr(a, slot))->text);
}

/* --- the table --- */

#define NUM (AGF_FIELD | AGF_NUMBER)
#define SUMF (AGF_ANYORDER | AGF_REGROUP | AGF_FLAT)

static const struct aggop table[] = {
	{ "count", "count", AGF_REGROUP | AGF_ANYORDER,
	    sizeof(struct acc_count),
	    count_add, NULL, count_fold, count_emit, NULL, NULL,
	    count_unmerge },
	{ "sum", "sum", NUM | AGF_DEC | SUMF, sizeof(struct dec_sum),
	    sum_add, sum_merge, sum_fold, sum_emit, sum_check, sum_release,
	    sum_unmerge },
	{ "avg", "avg", NUM | AGF_DEC | SUMF, sizeof(struct dec_sum),
	    sum_add, sum_merge, sum_fold, avg_emit, sum_check, sum_release,
	    sum_unmerge },
	{ "min", "min", NUM | AGF_REGROUP | AGF_READTEXT, sizeof(struct acc_ext),
	    min_add, min_merge, min_fold, ext_emit, ext_check, ext_release,
	    NULL },
	{ "max", "max", NUM | AGF_REGROUP | AGF_READTEXT, sizeof(struct acc_ext),
	    max_add, max_merge, max_fold, ext_emit, ext_check, ext_release,
	    NULL },
	{ "first", "first", AGF_FIELD | AGF_TEXT | AGF_REGROUP | AGF_READTEXT,
	    sizeof(struct acc_pick),
	    first_add, first_merge, first_fold, pick_emit, pick_check,
	    pick_release, NULL },
	{ "last", "last", AGF_FIELD | AGF_TEXT | AGF_REGROUP | AGF_READTEXT,
	    sizeof(struct acc_pick),
	    last_add, last_merge, last_fold, pick_emit, pick_check,
	    pick_release, NULL },
	{ "distinct", "distinct",
	    AGF_FIELD | AGF_NOKEEP | AGF_ANYORDER | AGF_ANYARENA |
	    AGF_READTEXT,
	    sizeof(struct acc_distinct), distinct_add, distinct_merge,
	    distinct_fold, distinct_emit, distinct_check, distinct_release,
	    NULL },
	{ "min-by", "min_by",
	    NUM | AGF_OUT | AGF_TEXT | AGF_REGROUP | AGF_READTEXT,
	    sizeof(struct acc_ext),
	    min_by_add, min_merge, min_fold, by_emit, ext_check, ext_release,
	    NULL },
	{ "max-by", "max_by",
	    NUM | AGF_OUT | AGF_TEXT | AGF_REGROUP | AGF_READTEXT,
	    sizeof(struct acc_ext),
	    max_by_add, max_merge, max_fold, by_emit, ext_check, ext_release,
	    NULL },
	{ "median", "", NUM | AGF_PCT | AGF_NOKEEP | AGF_ANYORDER |
	    AGF_ANYARENA | AGF_BLOCK,
	    sizeof(struct acc_block),
	    pct_add, pct_merge, pct_fold, pct_emit, pct_check, pct_release,
	    NULL },
	{ "percentile", "", NUM | AGF_PCT | AGF_PLIST | AGF_NOKEEP |
	    AGF_ANYORDER | AGF_ANYARENA | AGF_BLOCK,
	    sizeof(struct acc_block), pct_add, pct_merge, pct_fold, pct_emit,
	    pct_check, pct_release, NULL },
	{ "approx-percentile", "approx_",
	    NUM | AGF_PCT | AGF_PLIST | AGF_NOKEEP | AGF_ANYORDER |
	    AGF_ANYARENA | AGF_BLOCK,
	    sizeof(struct acc_block), dds_agg_add, dds_agg_merge, dds_agg_fold,
	    dds_agg_emit, dds_agg_check, dds_agg_release, NULL },
	{ "stddev", "stddev", NUM | AGF_DEC | SUMF,
	    sizeof(struct stats_var), var_add, var_merge, var_fold,
	    stddev_emit, var_check, var_release, var_unmerge },
	{ "var", "var", NUM | AGF_DEC | SUMF,
	    sizeof(struct stats_var), var_add, var_merge, var_fold,
	    var_emit, var_check, var_release, var_unmerge },
	{ "stddev-pop", "stddev_pop", NUM | AGF_DEC | SUMF,
	    sizeof(struct stats_var), var_add, var_merge, var_fold,
	    stddev_pop_emit, var_check, var_release, var_unmerge },
	{ "var-pop", "var_pop", NUM | AGF_DEC | SUMF,
	    sizeof(struct stats_var), var_add, var_merge, var_fold,
	    var_pop_emit, var_check, var_release, var_unmerge },
	{ "approx-distinct", "approx_distinct",
	    AGF_FIELD | AGF_NOKEEP | AGF_ANYORDER | AGF_ANYARENA |
	    AGF_READTEXT | AGF_BLOCK,
	    sizeof(struct acc_block), hll_agg_add, hll_agg_merge, hll_agg_fold,
	    hll_agg_emit, hll_agg_check, hll_agg_release, NULL },
	/* counters and histograms: aggcounter.c */
	{ "increase", "increase", NUM | AGF_NOKEEP | AGF_PRIOR,
	    sizeof(struct acc_counter), NULL, counter_merge, counter_fold,
	    increase_emit, counter_check, counter_release, NULL },
	{ "rate", "rate", NUM | AGF_NOKEEP | AGF_PRIOR,
	    sizeof(struct acc_counter), NULL, counter_merge, counter_fold,
	    rate_emit, counter_check, counter_release, NULL },
	{ "histogram", "", NUM | AGF_HIST | AGF_REGROUP | AGF_ANYORDER,
	    sizeof(uint64_t), NULL, NULL, hist_fold, hist_emit, NULL, NULL,
	    NULL },
};

#undef NUM
#undef SUMF

const struct aggop *
agg_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].option, name) == 0)
			return &table[i];
	return NULL;
}

const struct aggop *
agg_at(size_t i)
{
	return i < sizeof(table) / sizeof(table[0]) ? &table[i] : NULL;
}

/* --- the compiled aggregates of a pipeline --- */

static void
plain_init(struct aggs *g)
{
	void (*add)(struct arena *, aoff, const struct aval *, uint64_t);
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].add_at != NULL || g->v[i].off > UINT32_MAX)
			return;
	g->plain = xcalloc(g->n ? g->n : 1, sizeof(*g->plain));
	g->adds_inline = 1;
	g->ints = 1;
	for (i = 0; i < g->n; i++) {
		add = g->v[i].op->add;
		g->plain[i].off = (uint32_t)g->v[i].off;
		g->plain[i].kind = add == sum_add ? PA_SUM :
		    add == count_add ? PA_COUNT : add == var_add ? PA_VAR :
		    PA_CALL;
		g->plain[i].valued = (uint8_t)g->v[i].valued;
		g->plain[i].add = add;
		if (g->plain[i].kind == PA_CALL)
			g->adds_inline = 0;
		if (g->plain[i].kind == PA_CALL ||
		    (g->v[i].op->emit != count_emit &&
		    g->v[i].op->emit != sum_emit))
			g->ints = 0;	/* (avg, and the rest) */
	}
}

struct aggs *
aggs_new(const struct config *c)
{
	struct aggs *g = xcalloc(1, sizeof(*g));
	size_t i, off = 0;

	g->v = xcalloc(c->naggs ? c->naggs : 1, sizeof(*g->v));
	g->takes = xcalloc(c->naggs ? c->naggs : 1, sizeof(*g->takes));
	g->n = c->naggs;
	for (i = 0; i < c->naggs; i++) {
		struct agg *a = &g->v[i];

		if (c->aggs[i].op->flags & (AGF_RECORD | AGF_FIELD))
			g->takes[g->ntakes++] = i;

		a->op = c->aggs[i].op;
		a->f = &c->aggs[i].f;
		a->o = &c->aggs[i].out;
		a->fidx = c->aggs[i].f.idx;
		a->oidx = c->aggs[i].out.idx;
		a->has_out = c->aggs[i].has_out;
		a->valued = aggspec_valued(&c->aggs[i]);
		a->pct = c->aggs[i].pct;
		a->npct = c->aggs[i].npct;
		a->bounds = c->aggs[i].bounds;
		a->nbounds = c->aggs[i].nbounds;
		a->slotsize = a->op->flags & AGF_HIST ?
		    hist_slotsize(a->nbounds) : a->op->size;
		a->off = off;
		off += a->slotsize;
		if (a->op->flags & AGF_HIST)
			a->add_at = hist_add_at;
		if (a->op->flags & AGF_PRIOR) {
			a->add_at = counter_add_at;
			counter_init(a);
			a->koff = g->keysize;
			g->keysize += sizeof(struct ckey);
		}
	}
	g->accsize = off;
	g->fold = xcalloc(1, off ? off : 1);
	plain_init(g);
	return g;
}

void
aggs_free(struct aggs *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->n; i++) {
		free(g->v[i].ds.slot);
		free(g->v[i].sketch);
		free(g->v[i].vals);
		bigsum_fold_free(&g->v[i].bs[0]);
		bigsum_fold_free(&g->v[i].bs[1]);
		counter_free(&g->v[i]);
	}
	free(g->v);
	free(g->takes);
	free(g->plain);
	free(g->fold);
	free(g);
}

size_t
aggs_accsize(const struct aggs *g)
{
	return g->accsize;
}

size_t
aggs_slot(const struct aggs *g, size_t i)
{
	return g->v[i].off;
}

int
aggs_extract(const struct aggs *g, const struct record *r,
    struct aval *vals, struct badfield *bad)
{
	size_t k;

	for (k = 0; k < g->ntakes; k++) {
		const struct agg *a = &g->v[g->takes[k]];
		unsigned fl = a->op->flags;
		struct aval *v = &vals[g->takes[k]];
		struct num nu;

		v->p = NULL;
		v->n = 0;
		if (fl & AGF_RECORD) {
			v->p = r->raw;
			v->n = r->rawlen;
			v->is_dec = 0;
			continue;
		}
		if (a->fidx >= r->nf) {
			bad->f = a->f;
			bad->what = "missing";
			return -1;
		}
		if (r->f[a->fidx].n == 0)
			continue;	/* NULL: every aggregate skips it */
		v->p = r->f[a->fidx].p;
		v->n = r->f[a->fidx].n;
		if ((fl & AGF_DEC) &&
		    ((v->is_dec = dec_parse(v->p, v->n, &v->dec) == 0) ||
		    (dec_read_exp(v->p, v->n, &v->dec) == 0 &&
		    (v->is_dec = v->dec.scale >= DEC_SAFESCALE)))) {
			/* sum, avg: plain decimal, the common case, parsed
			 * once, or with an exponent, well within the range
			 * of doubles; num_parse only for what is not (and
			 * no double: sums add dec) */
			v->d = 0;
		} else if (fl & AGF_NUMBER) {
			int rc = num_parse(v->p, v->n, &nu);

			if (rc != 0) {
				bad->f = a->f;
				bad->what = rc == NUM_RANGE ?
				    "a number beyond the range of doubles" :
				    "not a number";
				return -1;
			}
			v->d = nu.d;
			/* a sum reads an exponent's value exactly too */
			if (fl & AGF_DEC)
				v->is_dec = dec_read_exp(v->p, v->n,
				    &v->dec) == 0;
		}
		if (fl & AGF_OUT) {
			if (!a->has_out) {
				v->out = r->raw;
				v->outn = r->rawlen;
			} else if (a->oidx >= r->nf) {
				bad->f = a->o;
				bad->what = "missing";
				return -1;
			} else {
				v->out = r->f[a->oidx].p;
				v->outn = r->f[a->oidx].n;
			}
		}
	}
	return 0;
}

/* One record's values into the accumulators at acc; per record. Counts
 * and sums, the commonest, are added here, inline, not through their
 * entries' pointers. */
static inline void
add_values(const struct aggs *g, struct arena *a, aoff acc,
    const struct aval *vals, uint64_t seq, int64_t t)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		const struct agg *ag = &g->v[i];
		void (*add)(struct arena *, aoff, const struct aval *,
		    uint64_t) = ag->op->add;

		if (ag->valued && vals[i].p == NULL)
			continue;	/* NULL, or not for its --if */
		if (add == count_add)
			((struct acc_count *)arena_ptr(a, acc + ag->off))->n++;
		else if (add == sum_add)
			aggs_sum_add(a, acc + ag->off, &vals[i]);
		else if (ag->add_at != NULL)
			ag->add_at(ag, a, acc + ag->off, &vals[i], seq, t);
		else
			add(a, acc + ag->off, &vals[i], seq);
	}
}

/* aggs_add() of a set of several aggregates, or of one that needs the
 * record's time: out of line, so that a single aggregate's add is a
 * jump from aggs_add() that saves no registers. */
static __attribute__((noinline)) void
add_several(const struct aggs *g, struct arena *a, aoff acc,
    const struct aval *vals, uint64_t seq)
{
	const struct plain_agg *pa = g->plain;
	size_t i;

	if (pa == NULL) {
		add_values(g, a, acc, vals, seq, 0);
		return;
	}
	/* (a set of counts and sums is added inline by a table: here, a
	 * call each is a loop that keeps little in registers) */
	for (i = 0; i < g->n; i++)
		plain_call(&pa[i], a, acc, &vals[i], seq);
}

void
aggs_add(const struct aggs *g, struct arena *a, aoff acc,
    const struct aval *vals, uint64_t seq)
{
	const struct plain_agg *pa = g->plain;

	if (pa == NULL || g->n != 1)
		add_several(g, a, acc, vals, seq);
	else
		plain_call(pa, a, acc, vals, seq);
}

const struct plain_agg *
aggs_sums(const struct aggs *g)
{
	return g->adds_inline ? g->plain : NULL;
}

const struct plain_agg *
aggs_one_call(const struct aggs *g)
{
	return g->plain != NULL && g->n == 1 && g->plain->kind == PA_CALL ?
	    g->plain : NULL;
}

void
aggs_add_at(const struct aggs *g, struct arena *a, aoff acc,
    const struct aval *vals, uint64_t seq, int64_t t)
{
	add_values(g, a, acc, vals, seq, t);
}

void
aggs_merge(const struct aggs *g, struct arena *a, aoff dst, aoff src)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		const struct agg *ag = &g->v[i];
		aoff d = dst + ag->off, s = src + ag->off;

		if (ag->op->merge != NULL)
			ag->op->merge(a, d, s);
		else	/* a slot that keeps no offset folds in place */
			ag->op->fold(NULL, a, arena_ptr(a, d), arena_ptr(a, s));
	}
}

int
aggs_unmergeable(const struct aggs *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].op->unmerge == NULL)
			return 0;
	return 1;
}

int
aggs_unmerge(const struct aggs *g, struct arena *a, aoff dst, aoff src)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].op->unmerge(a, dst + g->v[i].off,
		    src + g->v[i].off) != 0)
			return -1;
	return 0;
}

const char *
aggs_check(void *arg, const struct arena *a, aoff acc, struct arena_claims *m)
{
	const struct aggs *g = arg;
	const char *why;
	size_t i;

	for (i = 0; i < g->n; i++) {
		if (g->v[i].op->check != NULL && (why = g->v[i].op->check(a,
		    arena_ptr(a, acc + g->v[i].off), m)) != NULL)
			return why;
		if ((g->v[i].op->flags & AGF_HIST) && (why = hist_check(
		    &g->v[i], arena_ptr(a, acc + g->v[i].off))) != NULL)
			return why;
	}
	return NULL;
}

void
aggs_release(const struct aggs *g, struct arena *a, aoff acc)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].op->release != NULL)
			g->v[i].op->release(a, acc + g->v[i].off);
}

void
aggs_fold_begin(struct aggs *g)
{
	size_t i;

	memset(g->fold, 0, g->accsize);
	for (i = 0; i < g->n; i++) {
		g->v[i].ds.single = 0;
		g->v[i].ds.nfolded = 0;
		g->v[i].nvals = 0;
		if (g->v[i].cf != NULL)
			counter_fold_begin(&g->v[i]);
	}
}

void
aggs_fold(struct aggs *g, const struct arena *a, aoff acc)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		struct agg *ag = &g->v[i];

		ag->op->fold(ag, a, g->fold + ag->off,
		    arena_ptr(a, acc + ag->off));
	}
}

int
aggs_keepable(const struct aggs *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].op->flags & AGF_NOKEEP)
			return 0;
	return 1;
}

/* Whether every aggregate has one of the flags any. */
static int
every(const struct aggs *g, unsigned any)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!(g->v[i].op->flags & any))
			return 0;
	return 1;
}

int
aggs_regroupable(const struct aggs *g)
{
	return every(g, AGF_REGROUP);
}

int
aggs_regroupable_exact(const struct aggs *g)
{
	return every(g, AGF_REGROUP | AGF_DEC);
}

/* Whether every aggregate with a merge operation has one of the flags
 * any. */
static int
every_merging(const struct aggs *g, unsigned any)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].op->merge != NULL && !(g->v[i].op->flags & any))
			return 0;
	return 1;
}

int
aggs_flat(const struct aggs *g)
{
	return every_merging(g, AGF_FLAT);
}

int
aggs_any_arena(const struct aggs *g)
{
	return every_merging(g, AGF_FLAT | AGF_ANYARENA);
}

int
aggs_numbers_only(const struct aggs *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].op->flags & (AGF_READTEXT | AGF_PRIOR | AGF_RECORD))
			return 0;
	return 1;
}

void
aggs_warm_blocks(const struct aggs *g, const struct arena *a, aoff acc)
{
	size_t i;
	aoff b;

	for (i = 0; i < g->n; i++)
		if ((g->v[i].op->flags & AGF_BLOCK) &&
		    (b = ((const struct acc_block *)arena_ptr(a, acc +
		    g->v[i].off))->b) != 0 && b < a->cap) {
			/* (a sketch's header, and its first entries) */
			warm(arena_ptr(a, b));
			if (b + 64 < a->cap)
				warm((const char *)arena_ptr(a, b) + 64);
		}
}

ptrdiff_t
aggs_block_slot(const struct aggs *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].op->flags & AGF_BLOCK)
			return (ptrdiff_t)g->v[i].off;
	return -1;
}

int
aggs_any_order(const struct aggs *g)
{
	return every(g, AGF_ANYORDER);
}

const char *
aggs_outside_window(const struct aggs *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].op->flags & (AGF_PRIOR | AGF_RECORD))
			return g->v[i].op->option;
	return NULL;
}

int
aggs_fold_exact(const struct aggs *g)
{
	/* (a sum is exact whatever its values: its fold is the same in any
	 * grouping) */
	(void)g;
	return 1;
}

/* The number of sums (struct dec_sum) in an AGF_DEC slot: a sum's one,
 * a variance's two. */
static size_t
dec_sums(const struct agg *ag)
{
	return ag->slotsize / sizeof(struct dec_sum);
}

/* Whether the fold holds a sum past its fixed width. */
static int
fold_big(const struct aggs *g)
{
	size_t i, j;

	for (i = 0; i < g->n; i++)
		for (j = 0; (g->v[i].op->flags & AGF_DEC) &&
		    j < dec_sums(&g->v[i]); j++)
			if (((const struct dec_sum *)(g->fold +
			    g->v[i].off))[j].big == BIGSUM_FOLD)
				return 1;
	return 0;
}

/* The fold's slots into the block at dst; own: dst's blocks are its own
 * (released here first). -1, nothing written: a sum's integer is big
 * and not own. */
static int
fold_write(const struct aggs *g, struct arena *a, aoff dst, int own)
{
	size_t i, j;

	if (!own && fold_big(g))
		return -1;
	if (own)
		aggs_release(g, a, dst);
	for (i = 0; i < g->n; i++) {
		const struct agg *ag = &g->v[i];

		if (ag->op->flags & AGF_DEC)
			for (j = 0; j < dec_sums(ag); j++)
				(void)bigsum_keep(&ag->bs[j], a, dst +
				    ag->off + j * sizeof(struct dec_sum),
				    (const struct dec_sum *)(g->fold +
				    ag->off) + j, 1);
		else
			memcpy(arena_ptr(a, dst + ag->off), g->fold + ag->off,
			    ag->slotsize);
	}
	return 0;
}

int
aggs_keep_blocks(const struct aggs *g, const struct arena *a, aoff acc)
{
	size_t i, j;

	for (i = 0; i < g->n; i++)
		for (j = 0; (g->v[i].op->flags & AGF_DEC) &&
		    j < dec_sums(&g->v[i]); j++)
			if (((const struct dec_sum *)arena_ptr(a, acc +
			    g->v[i].off))[j].big != 0)
				return 1;
	return 0;
}

int
aggs_fold_keep(const struct aggs *g, struct arena *a, aoff dst)
{
	return fold_write(g, a, dst, 0);
}

void
aggs_fold_store(const struct aggs *g, struct arena *a, aoff dst)
{
	(void)fold_write(g, a, dst, 1);
}

void
aggs_emit(struct aggs *g, const struct arena *a, const void *acc,
    struct out *o)
{
	const char *at = acc != NULL ? acc : g->fold;
	size_t i;

	for (i = 0; i < g->n; i++)
		g->v[i].op->emit(&g->v[i], a, at + g->v[i].off, o);
}

char *
aggs_put_ints(const struct aggs *g, const void *acc, char *p, char sep)
{
	const unsigned char *at = acc != NULL ? acc : g->fold;
	const struct dec_sum *s;
	int64_t v;
	size_t i;

	if (!g->ints)
		return NULL;
	for (i = 0; i < g->n; i++) {
		if (g->plain[i].kind == PA_SUM) {
			s = (const void *)(at + g->plain[i].off);
			if (!sum_as_int(s, &v))
				return NULL;
		} else
			v = (int64_t)((const struct acc_count *)
			    (at + g->plain[i].off))->n;
		*p++ = sep;
		p += num_format_int(p, v);
	}
	return p;
}

int
aggs_emit_as_is(const struct aggs *g, const struct arena *a, aoff acc)
{
	const struct dec_sum *s;
	const struct stats_var *v;
	size_t i;

	if (!g->adds_inline)
		return 0;
	for (i = 0; i < g->n; i++)
		if (g->plain[i].kind == PA_SUM) {
			s = arena_ptr(a, acc + g->plain[i].off);
			if (s->big != 0 || (s->scale != 0 && dec_sum_zero(s)))
				return 0;
		} else if (g->plain[i].kind == PA_VAR) {
			/* (the same from sums at any scale: stats.h) */
			v = arena_ptr(a, acc + g->plain[i].off);
			if (v->x.big != 0 || v->xx.big != 0)
				return 0;
		}
	return 1;
}

/* --- what counters read beyond their window (aggcounter.c) --- */

size_t
aggs_keysize(const struct aggs *g)
{
	return g->keysize;
}

void
aggs_set_ordered(struct aggs *g, int ordered)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].cf != NULL)
			counter_set_ordered(&g->v[i], ordered);
}

void
aggs_carry(const struct aggs *g, struct arena *a, void *kb, aoff acc)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].cf != NULL)
			counter_carry(&g->v[i], a, kb, acc + g->v[i].off);
}

int
aggs_key_held(const struct aggs *g, const void *kb)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].cf != NULL && counter_key_held(&g->v[i], kb))
			return 1;
	return 0;
}

const char *
aggs_key_check(const struct aggs *g, const void *kb)
{
	const char *why;
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].cf != NULL &&
		    (why = counter_key_check(&g->v[i], kb)) != NULL)
			return why;
	return NULL;
}

void
aggs_fold_prior(struct aggs *g, const struct arena *a, const void *kb,
    aoff acc)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].cf != NULL)
			counter_fold_prior(&g->v[i], a, kb,
			    acc != 0 ? acc + g->v[i].off : 0);
}

int
aggs_prior_known(const struct aggs *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].cf != NULL && !counter_prior_known(&g->v[i]))
			return 0;
	return 1;
}

void
aggs_fold_span(struct aggs *g, int64_t len)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].cf != NULL)
			counter_fold_span(&g->v[i], len);
}

/* --- header names --- */

size_t
agg_ncols(const struct aggspec *a)
{
	if (a->op->flags & AGF_HIST)
		return a->nbounds + 1;
	return a->op->flags & AGF_PCT ? a->npct : 1;
}

/* "count", "sum_F"; a percentile's column per P ("p95_F",
 * "approx_p95_F"); a histogram's per bound and one for all ("F_le_100",
 * "F_le_inf"). A name given (--as) replaces the whole name of an
 * aggregate of one column, and F as a histogram's prefix. */
char *
agg_colname(const struct aggspec *a, size_t j, const char *name)
{
	char *s;
	int r;

	if (a->op->flags & AGF_HIST)
		r = j < a->nbounds ? asprintf(&s, "%s_le_%s",
		    name != NULL ? name : a->f.name, a->bounds[j].name) :
		    asprintf(&s, "%s_le_inf", name != NULL ? name : a->f.name);
	else if (name != NULL)
		r = asprintf(&s, "%s", name);
	else if (!(a->op->flags & AGF_FIELD))
		r = asprintf(&s, "%s", a->op->column);
	else if (a->op->flags & AGF_PCT)
		r = asprintf(&s, "%s%s_%s", a->op->column, a->pct[j].name,
		    a->f.name);
	else
		r = asprintf(&s, "%s_%s", a->op->column, a->f.name);
	if (r < 0)
		fwin_oom();
	return s;
}

int
agg_top_column(const struct config *c, size_t *col, char **name)
{
	const char **names = NULL;
	char **owned = NULL, hint[256];
	size_t i, j, n = 0, at = SIZE_MAX;
	int rc = -1, text = 0;

	for (i = 0; i < c->naggs; i++) {
		if (c->aggs[i].op->flags & AGF_RECORD)
			continue;	/* --over's record: no column */
		for (j = 0; j < agg_ncols(&c->aggs[i]); j++, n++) {
			owned = xrealloc(owned, (n + 1) * sizeof(*owned));
			owned[n] = agg_colname(&c->aggs[i], j, c->aggs[i].as);
			if (at == SIZE_MAX && (c->top_by == NULL ||
			    strcmp(owned[n], c->top_by) == 0)) {
				at = n;
				text = (c->aggs[i].op->flags & AGF_TEXT) != 0;
			}
		}
	}
	for (i = 0; at == SIZE_MAX && c->top_by != NULL && i < c->nevals; i++)
		if (strcmp(c->evals[i].name, c->top_by) == 0)
			at = n + i;
	if (at == SIZE_MAX) {
		names = xmalloc((n + c->nevals + 1) * sizeof(*names));
		for (i = 0; i < n + c->nevals; i++)
			names[i] = i < n ? owned[i] : c->evals[i - n].name;
		hint[0] = '\0';
		if (c->top_by != NULL)	/* (the default: no aggregate at all) */
			closest_names(c->top_by, names, n + c->nevals, hint,
			    sizeof(hint));
		fwin_warn("--top-by: no aggregate column '%s'%s", c->top_by,
		    hint);
	} else if (text)
		fwin_warn("--top-by: '%s' is text, not a number", owned[at]);
	else {
		*col = at;
		if (name != NULL)
			*name = xstrdup(at < n ? owned[at] :
			    c->evals[at - n].name);
		rc = 0;
	}
	for (i = 0; i < n; i++)
		free(owned[i]);
	free(owned);
	free(names);
	return rc;
}
