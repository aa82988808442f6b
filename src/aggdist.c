/* aggdist: the aggregates of a value's distribution — variance and
 * standard deviation (Welford's updates, merged by Chan's formula),
 * exact percentiles (every value kept), and the sketches: DDSketch for
 * approximate percentiles, HyperLogLog for approximate distinct counts
 * (sketch.h). Their table entries are in agg.c; see aggint.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "aggint.h"
#include "sketch.h"
#include "stats.h"
#include "util.h"

/* --- stddev, var, stddev-pop, var-pop: Welford, merged by Chan --- */

void
var_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	(void)seq;
	stats_var_add(arena_ptr(a, slot), v->d);
}

void
var_fold(struct agg *ag, const struct arena *a, void *dst, const void *src)
{
	(void)ag;
	(void)a;
	stats_var_merge(dst, src);
}

/* Writes a result of stats_*(): rc 0 and d, or an empty cell. */
static void
emit_stat(struct out *o, int rc, double d)
{
	if (rc != 0)
		out_null(o);
	else
		emit_double(o, d);
}

/* The four variance results differ only in which statistic they print. */
#define VAR_EMIT(name, stat)						\
void									\
name(struct agg *ag, const struct arena *a, const void *acc,		\
    struct out *o)							\
{									\
	double d;							\
	int rc = stat(acc, &d);						\
									\
	(void)ag;							\
	(void)a;							\
	emit_stat(o, rc, d);						\
}

VAR_EMIT(stddev_emit, stats_stddev_samp)
VAR_EMIT(var_emit, stats_var_samp)
VAR_EMIT(stddev_pop_emit, stats_stddev_pop)
VAR_EMIT(var_pop_emit, stats_var_pop)

#undef VAR_EMIT

/* --- median, percentile: every value, in a block that doubles --- */

/* The block of the slot at `slot`, with room for extra more values:
 * a new one (PV_INITCAP values or more), or the old one copied into one
 * twice its size or more, and freed. */
static struct pvals *
pv_reserve(struct arena *a, aoff slot, uint64_t extra)
{
	aoff b = ((struct acc_block *)arena_ptr(a, slot))->b, nb;
	struct pvals *p = b != 0 ? arena_ptr(a, b) : NULL, *q;
	uint64_t n = p != NULL ? p->pv_n : 0, cap;

	if (p != NULL && p->pv_cap - n >= extra)
		return p;
	cap = p != NULL ? p->pv_cap : PV_INITCAP;
	while (cap - n < extra)
		cap = cap * 2 + 2;	/* 16 + 8 cap bytes, doubled */
	nb = arena_alloc(a, PV_BYTES(cap));
	q = arena_ptr(a, nb);
	q->pv_cap = cap;
	if (b != 0) {
		p = arena_ptr(a, b);
		q->pv_n = p->pv_n;
		memcpy(q->pv_v, p->pv_v, p->pv_n * sizeof(double));
		arena_free(a, b, PV_BYTES(p->pv_cap));
	}
	((struct acc_block *)arena_ptr(a, slot))->b = nb;
	return q;
}

void
pct_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	struct pvals *p = pv_reserve(a, slot, 1);

	(void)seq;
	p->pv_v[p->pv_n++] = v->d;
}

/* Sessions: src's values are appended to dst's. */
void
pct_merge(struct arena *a, aoff dst, aoff src)
{
	struct acc_block *s = arena_ptr(a, src);
	aoff sb = s->b;
	struct pvals *d, *sp;
	uint64_t n;

	if (sb == 0)
		return;
	s->b = 0;
	if (((struct acc_block *)arena_ptr(a, dst))->b == 0) {
		((struct acc_block *)arena_ptr(a, dst))->b = sb;
		return;
	}
	n = ((struct pvals *)arena_ptr(a, sb))->pv_n;
	d = pv_reserve(a, dst, n);
	sp = arena_ptr(a, sb);
	memcpy(d->pv_v + d->pv_n, sp->pv_v, n * sizeof(double));
	d->pv_n += n;
	arena_free(a, sb, PV_BYTES(sp->pv_cap));
}

/* The fold: the values of every block folded, in ag->vals. */
void
pct_fold(struct agg *ag, const struct arena *a, void *dst, const void *src)
{
	aoff b = ((const struct acc_block *)src)->b;
	const struct pvals *p;

	(void)dst;
	if (b == 0)
		return;
	p = arena_ptr(a, b);
	if (p->pv_n == 0)
		return;		/* a restored empty block; vals may be NULL */
	if (ag->capvals - ag->nvals < p->pv_n) {
		size_t cap = ag->capvals ? ag->capvals : 64;

		while (cap - ag->nvals < p->pv_n)
			cap *= 2;
		ag->vals = xrealloc(ag->vals, cap * sizeof(double));
		ag->capvals = cap;
	}
	memcpy(ag->vals + ag->nvals, p->pv_v, p->pv_n * sizeof(double));
	ag->nvals += p->pv_n;
}

void
pct_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o)
{
	size_t k;

	(void)a;
	(void)acc;
	if (ag->nvals > 0)
		stats_sort(ag->vals, ag->nvals);
	for (k = 0; k < ag->npct; k++)
		if (ag->nvals == 0)
			out_null(o);
		else
			emit_double(o, stats_percentile(ag->vals, ag->nvals,
			    ag->pct[k].p));
}

const char *
pct_check(const struct arena *a, const void *slot, struct arena_claims *m)
{
	aoff b = ((const struct acc_block *)slot)->b;
	uint64_t used = m->used, j;
	const struct pvals *p;

	if (b == 0)
		return NULL;
	if (b < sizeof(struct arena_hdr) || b % 8 != 0 || b >= used ||
	    used - b < sizeof(*p))
		return "bad percentile values";
	p = arena_ptr(a, b);
	if (p->pv_cap > (used - b - sizeof(*p)) / sizeof(double) ||
	    p->pv_n > p->pv_cap || arena_claim(m, b, PV_BYTES(p->pv_cap)) != 0)
		return "bad percentile values";
	for (j = 0; j < p->pv_n; j++)	/* sorting needs numbers */
		if (!isfinite(p->pv_v[j]))
			return "bad percentile value";
	return NULL;
}

void
pct_release(struct arena *a, aoff slot)
{
	aoff b = ((struct acc_block *)arena_ptr(a, slot))->b;

	if (b != 0)
		arena_free(a, b, PV_BYTES(((struct pvals *)
		    arena_ptr(a, b))->pv_cap));
}

/* --- approx-percentile, approx-distinct: sketches (sketch.h) --- */

/* What the two kinds of sketch blocks have in common. */
struct skops {
	size_t initsize, maxsize;
	void (*init)(void *b, size_t size);
	size_t (*merge)(void *dst, const void *src);
	int (*copy)(void *dst, size_t size, const void *src);
	size_t (*size)(const void *b);
	const char *(*check)(const void *b, size_t avail);
};

static const struct skops dds_ops = {
	DDS_INITSIZE, DDS_MAXSIZE, dds_init, dds_merge, dds_copy, dds_size,
	dds_check
};

static const struct skops hll_ops = {
	HLL_INITSIZE, HLL_MAXSIZE, hll_init, hll_merge, hll_copy, hll_size,
	hll_check
};

/* The sketch of the slot at `slot`, made empty if there is none. */
static void *
sk_get(struct arena *a, aoff slot, const struct skops *ops)
{
	aoff b = ((struct acc_block *)arena_ptr(a, slot))->b;

	if (b == 0) {
		b = arena_alloc(a, ops->initsize);
		ops->init(arena_ptr(a, b), ops->initsize);
		((struct acc_block *)arena_ptr(a, slot))->b = b;
	}
	return arena_ptr(a, b);
}

/* The sketch protocol: an add or merge that returned need bytes is
 * retried on a copy of that size (sketch.h). */
static void *
sk_grow(struct arena *a, aoff slot, size_t need, const struct skops *ops)
{
	aoff nb = arena_alloc(a, need);
	struct acc_block *s = arena_ptr(a, slot);
	const void *old = arena_ptr(a, s->b);

	if (ops->copy(arena_ptr(a, nb), need, old) != 0)
		fwin_die("sketch cannot grow to %zu bytes", need);
	arena_free(a, s->b, ops->size(old));
	s->b = nb;
	return arena_ptr(a, nb);
}

static void
sk_merge(struct arena *a, aoff dst, aoff src, const struct skops *ops)
{
	struct acc_block *s = arena_ptr(a, src), *d = arena_ptr(a, dst);
	aoff sb = s->b;
	void *db;
	size_t need;

	if (sb == 0)
		return;
	s->b = 0;
	if (d->b == 0) {
		d->b = sb;
		return;
	}
	db = arena_ptr(a, d->b);
	while ((need = ops->merge(db, arena_ptr(a, sb))) != 0)
		db = sk_grow(a, dst, need, ops);
	arena_free(a, sb, ops->size(arena_ptr(a, sb)));
}

/* Folds a sketch: a single block is read where it lies; only a second
 * one makes the union in the scratch block. */
static void
sk_fold(struct agg *ag, const struct arena *a, const void *src,
    const struct skops *ops)
{
	aoff b = ((const struct acc_block *)src)->b;

	if (b == 0)
		return;
	if (ag->ds.nfolded++ == 0) {
		ag->ds.single = b;
		return;
	}
	if (ag->sketch == NULL)
		ag->sketch = xmalloc(ops->maxsize);
	if (ag->ds.nfolded == 2) {
		ops->init(ag->sketch, ops->maxsize);
		(void)ops->merge(ag->sketch, arena_ptr(a, ag->ds.single));
	}
	(void)ops->merge(ag->sketch, arena_ptr(a, b));	/* never grows */
}

/* The folded sketch, or NULL when none was folded. */
static const void *
sk_folded(const struct agg *ag, const struct arena *a)
{
	if (ag->ds.nfolded == 0)
		return NULL;
	return ag->ds.nfolded == 1 ? arena_ptr(a, ag->ds.single) : ag->sketch;
}

static const char *
sk_check(const struct arena *a, const void *slot, struct arena_claims *m,
    const struct skops *ops)
{
	aoff b = ((const struct acc_block *)slot)->b;
	uint64_t used = m->used;

	if (b == 0)
		return NULL;
	if (b < sizeof(struct arena_hdr) || b % 8 != 0 || b >= used ||
	    ops->check(arena_ptr(a, b), used - b) != NULL ||
	    arena_claim(m, b, ops->size(arena_ptr(a, b))) != 0)
		return "bad sketch in an accumulator";
	return NULL;
}

static void
sk_release(struct arena *a, aoff slot, const struct skops *ops)
{
	aoff b = ((struct acc_block *)arena_ptr(a, slot))->b;

	if (b != 0)
		arena_free(a, b, ops->size(arena_ptr(a, b)));
}

void
dds_agg_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	void *b = sk_get(a, slot, &dds_ops);
	size_t need;

	(void)seq;
	while ((need = dds_add(b, v->d)) != 0)
		b = sk_grow(a, slot, need, &dds_ops);
}

void
dds_agg_merge(struct arena *a, aoff dst, aoff src)
{
	sk_merge(a, dst, src, &dds_ops);
}

void
dds_agg_fold(struct agg *ag, const struct arena *a, void *dst,
    const void *src)
{
	(void)dst;
	sk_fold(ag, a, src, &dds_ops);
}

void
dds_agg_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o)
{
	const void *b = sk_folded(ag, a);
	size_t k;

	(void)acc;
	for (k = 0; k < ag->npct; k++)
		if (b == NULL || dds_count(b) == 0)
			out_null(o);
		else
			emit_double(o, dds_quantile(b, ag->pct[k].p / 100));
}

const char *
dds_agg_check(const struct arena *a, const void *slot,
    struct arena_claims *m)
{
	return sk_check(a, slot, m, &dds_ops);
}

void
dds_agg_release(struct arena *a, aoff slot)
{
	sk_release(a, slot, &dds_ops);
}

void
hll_agg_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	uint64_t h = XXH3_64bits(v->p, v->n);
	void *b = sk_get(a, slot, &hll_ops);
	size_t need;

	(void)seq;
	while ((need = hll_add(b, h)) != 0)
		b = sk_grow(a, slot, need, &hll_ops);
}

void
hll_agg_merge(struct arena *a, aoff dst, aoff src)
{
	sk_merge(a, dst, src, &hll_ops);
}

void
hll_agg_fold(struct agg *ag, const struct arena *a, void *dst,
    const void *src)
{
	(void)dst;
	sk_fold(ag, a, src, &hll_ops);
}

void
hll_agg_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o)
{
	const void *b = sk_folded(ag, a);

	(void)acc;
	/* only NULLs: a count, never empty */
	emit_int(o, b == NULL ? 0 : (int64_t)hll_estimate(b));
}

const char *
hll_agg_check(const struct arena *a, const void *slot,
    struct arena_claims *m)
{
	return sk_check(a, slot, m, &hll_ops);
}

void
hll_agg_release(struct arena *a, aoff slot)
{
	sk_release(a, slot, &hll_ops);
}

