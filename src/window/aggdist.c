/* aggdist: the aggregates of a value's distribution — distinct values
 * (exact: a set in the arena), variance and
 * standard deviation (Welford's updates, merged by Chan's formula),
 * exact percentiles (every value kept), and the sketches: DDSketch for
 * approximate percentiles, HyperLogLog for approximate distinct counts
 * (sketch.h). Their table entries are in agg.c; see aggint.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "window/aggint.h"
#include "base/sketch.h"
#include "base/stats.h"
#include "base/util.h"

/* An open-addressing set of distinct values, in the arena. */
struct dslot {
	uint64_t h;
	aoff blob;
};
struct dset {
	uint64_t ds_cap;	/* a power of two */
	uint64_t ds_n;
	struct dslot ds_slot[];
};
ARENA_LAYOUT(struct dslot, 16);
ARENA_LAYOUT(struct dset, 16);

/* --- distinct: a set of the values, in the arena --- */

static int
blob_eq(const struct arena *a, aoff b, const char *p, size_t n)
{
	const struct blob *x = blob_at(a, b);

	return x->b_len == n && memcmp(x->b_data, p, n) == 0;
}

/* Inserts (h, blob) into the table t (cap a power of two) unless the value
 * p[0..n) is there; p == NULL means it is known to be absent. */
static int
dslot_insert(const struct arena *a, struct dslot *t, uint64_t cap,
    uint64_t h, aoff blob, const char *p, size_t n)
{
	uint64_t i, mask = cap - 1;

	for (i = h & mask; t[i].blob != 0; i = (i + 1) & mask)
		if (t[i].h == h && p != NULL && blob_eq(a, t[i].blob, p, n))
			return 0;
	t[i].h = h;
	t[i].blob = blob;
	return 1;
}

static aoff
dset_new(struct arena *a, uint64_t cap)
{
	aoff off = arena_alloc(a, sizeof(struct dset) + cap * sizeof(struct dslot));

	((struct dset *)arena_ptr(a, off))->ds_cap = cap;
	return off;
}

/* Adds the value p[0..n) with hash h to the distinct set of the slot at
 * `slot`. With blob != 0 the value is that arena blob, moved into the set
 * (or freed when the set has it already); p then points into it. */
static void
distinct_put(struct arena *a, aoff slot, uint64_t h, const char *p, size_t n,
    aoff blob)
{
	struct acc_distinct *d = arena_ptr(a, slot);
	struct dset *s;
	uint64_t i, mask;
	aoff grown;

	if (d->set == 0) {
		grown = dset_new(a, 8);
		d = arena_ptr(a, slot);
		d->set = grown;
		if (blob != 0)
			p = blob_at(a, blob)->b_data;
	}
	s = arena_ptr(a, d->set);
	mask = s->ds_cap - 1;
	for (i = h & mask; s->ds_slot[i].blob != 0; i = (i + 1) & mask)
		if (s->ds_slot[i].h == h && blob_eq(a, s->ds_slot[i].blob, p, n)) {
			blob_free(a, blob);
			return;
		}
	if ((s->ds_n + 1) * 2 > s->ds_cap) {
		uint64_t cap = s->ds_cap * 2;
		struct dset *o;

		grown = dset_new(a, cap);
		d = arena_ptr(a, slot);
		o = arena_ptr(a, d->set);
		s = arena_ptr(a, grown);
		for (i = 0; i < o->ds_cap; i++)
			if (o->ds_slot[i].blob != 0) {
				const struct blob *b = blob_at(a, o->ds_slot[i].blob);

				dslot_insert(a, s->ds_slot, cap, o->ds_slot[i].h,
				    o->ds_slot[i].blob, b->b_data, b->b_len);
			}
		s->ds_n = o->ds_n;
		arena_free(a, d->set, sizeof(struct dset) +
		    o->ds_cap * sizeof(struct dslot));
		d->set = grown;
	}
	if (blob == 0) {
		/* p is outside the arena: it survives the arena moving */
		struct blob *b;

		blob = arena_alloc(a, sizeof(struct blob) + n);
		b = blob_at(a, blob);
		b->b_len = b->b_cap = (uint32_t)n;
		memcpy(b->b_data, p, n);
	}
	d = arena_ptr(a, slot);
	s = arena_ptr(a, d->set);
	/* the value is known to be absent: no comparison is made */
	dslot_insert(a, s->ds_slot, s->ds_cap, h, blob, NULL, 0);
	s->ds_n++;
}

/* Inserts the text p[0..n) of hash h into the table t (cap a power of
 * two) unless it is there; returns whether it was not. */
static int
dtext_insert(struct dtext *t, uint64_t cap, uint64_t h, const char *p,
    size_t n)
{
	uint64_t i, mask = cap - 1;

	for (i = h & mask; t[i].p != NULL; i = (i + 1) & mask)
		if (t[i].h == h && t[i].n == n && memcmp(t[i].p, p, n) == 0)
			return 0;
	t[i].h = h;
	t[i].p = p;
	t[i].n = n;
	return 1;
}

static void
scratch_insert(struct dscratch *ds, uint64_t h, const char *p, size_t n)
{
	if ((ds->n + 1) * 2 > ds->cap) {
		uint64_t cap = ds->cap ? ds->cap * 2 : 64, i;
		struct dtext *t = calloc(cap, sizeof(*t));

		if (t == NULL)
			fwin_oom();
		for (i = 0; i < ds->cap; i++)
			if (ds->slot[i].p != NULL)
				(void)dtext_insert(t, cap, ds->slot[i].h,
				    ds->slot[i].p, ds->slot[i].n);
		free(ds->slot);
		ds->slot = t;
		ds->cap = cap;
	}
	ds->n += dtext_insert(ds->slot, ds->cap, h, p, n);
}

static void
scratch_merge(struct dscratch *ds, const struct arena *a, aoff set)
{
	const struct dset *s = arena_ptr(a, set);
	const struct blob *b;
	uint64_t i;

	for (i = 0; i < s->ds_cap; i++)
		if (s->ds_slot[i].blob != 0) {
			b = blob_at(a, s->ds_slot[i].blob);
			scratch_insert(ds, s->ds_slot[i].h, b->b_data,
			    b->b_len);
		}
}

/* Folds a distinct set: a single slice's set is counted where it lies;
 * only a second one makes the union in the scratch table. */
static void
fold_distinct(struct dscratch *ds, const struct arena *a, aoff set)
{
	if (set == 0)
		return;
	if (ds->nfolded++ == 0) {
		ds->single = set;
		ds->single_a = a;
		return;
	}
	if (ds->nfolded == 2) {
		if (ds->cap)
			memset(ds->slot, 0, ds->cap * sizeof(*ds->slot));
		ds->n = 0;
		scratch_merge(ds, ds->single_a, ds->single);
	}
	scratch_merge(ds, a, set);
}

void
distinct_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	(void)seq;
	distinct_put(a, slot, XXH3_64bits(v->p, v->n), v->p, v->n, 0);
}

void
distinct_merge(struct arena *a, aoff dst, aoff src)
{
	struct acc_distinct *d = arena_ptr(a, dst);
	aoff set = ((struct acc_distinct *)arena_ptr(a, src))->set;
	uint64_t cap, j;

	if (set == 0)
		return;
	((struct acc_distinct *)arena_ptr(a, src))->set = 0;
	if (d->set == 0) {
		d->set = set;
		return;
	}
	cap = ((struct dset *)arena_ptr(a, set))->ds_cap;
	for (j = 0; j < cap; j++) {
		const struct dslot *sl = &((struct dset *)arena_ptr(a, set))->ds_slot[j];
		const struct blob *b;

		if (sl->blob == 0)
			continue;
		b = blob_at(a, sl->blob);
		distinct_put(a, dst, sl->h, b->b_data, b->b_len, sl->blob);
	}
	arena_free(a, set, sizeof(struct dset) + cap * sizeof(struct dslot));
}

void
distinct_fold(struct agg *ag, const struct arena *a, void *dst,
    const void *src)
{
	(void)dst;
	fold_distinct(&ag->ds, a, ((const struct acc_distinct *)src)->set);
}

void
distinct_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o)
{
	const struct dscratch *ds = &ag->ds;

	(void)a, (void)acc;
	if (ds->nfolded == 0)
		emit_int(o, 0);		/* only NULLs: a count, never empty */
	else if (ds->nfolded == 1)
		emit_int(o, (int64_t)((const struct dset *)
		    arena_ptr(ds->single_a, ds->single))->ds_n);
	else
		emit_int(o, (int64_t)ds->n);
}

const char *
distinct_check(const struct arena *a, const void *slot,
    struct arena_claims *m)
{
	aoff set = ((const struct acc_distinct *)slot)->set;
	uint64_t used = m->used, j, n;
	const struct dset *ds;

	if (set == 0)
		return NULL;
	if (set < sizeof(struct arena_hdr) || set % 8 != 0 ||
	    set >= used || used - set < sizeof(*ds))
		return "bad distinct set";
	ds = arena_ptr(a, set);
	if (ds->ds_cap < 2 || (ds->ds_cap & (ds->ds_cap - 1)) ||
	    ds->ds_cap > (used - set - sizeof(*ds)) / sizeof(struct dslot) ||
	    ds->ds_n >= ds->ds_cap ||
	    arena_claim(m, set, sizeof(*ds) + ds->ds_cap * sizeof(struct dslot)) !=
	    0)
		return "bad distinct set";
	for (j = 0, n = 0; j < ds->ds_cap; j++) {
		if (ds->ds_slot[j].blob == 0)
			continue;
		if (!blob_ok(a, ds->ds_slot[j].blob, m))
			return "bad distinct value";
		n++;
	}
	/* probing ends only if some slot is empty */
	if (n != ds->ds_n)
		return "bad distinct set count";
	return NULL;
}

void
distinct_release(struct arena *a, aoff slot)
{
	aoff set = ((struct acc_distinct *)arena_ptr(a, slot))->set;
	struct dset *s;
	uint64_t j;

	if (set == 0)
		return;
	s = arena_ptr(a, set);
	for (j = 0; j < s->ds_cap; j++)
		blob_free(a, s->ds_slot[j].blob);
	arena_free(a, set, sizeof(struct dset) + s->ds_cap * sizeof(struct dslot));
}

/* --- stddev, var, stddev-pop, var-pop: exact sums (stats.h) --- */

void
var_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	(void)seq;
	stats_var_add(a, slot, v->is_dec ? &v->dec : NULL, v->d);
}

void
var_merge(struct arena *a, aoff dst, aoff src)
{
	stats_var_merge(a, dst, src);
}

void
var_fold(struct agg *ag, const struct arena *a, void *dst, const void *src)
{
	stats_var_fold(ag->bs, a, dst, src);
}

const char *
var_check(const struct arena *a, const void *slot, struct arena_claims *m)
{
	return stats_var_check(a, slot, m);
}

void
var_release(struct arena *a, aoff slot)
{
	stats_var_release(a, slot);
}

/* The variance aggregates whose result passed the largest double, said
 * at the end: each by its FIELD, which names it among the others (the
 * set is atomic: workers' threads emit rows too). Past HUGE_NAMED of
 * them, the rest are said by their option alone. */
#define HUGE_NAMED	64
static const struct fieldref *huge_seen[HUGE_NAMED];
static unsigned huge_more;	/* a bit an option (HUGE_* below) */
enum { HUGE_STDDEV, HUGE_VAR, HUGE_STDDEV_POP, HUGE_VAR_POP };
static const char *const huge_opt[] = {
	"--stddev", "--var", "--stddev-pop", "--var-pop",
};

static void
note_huge(const struct agg *ag, unsigned bit)
{
	const struct fieldref *f;
	size_t i;

	for (i = 0; i < HUGE_NAMED; i++) {
		f = NULL;	/* (the slot, if free: else what holds it) */
		if (__atomic_compare_exchange_n(&huge_seen[i], &f, ag->f, 0,
		    __ATOMIC_RELAXED, __ATOMIC_RELAXED) || f == ag->f)
			return;
	}
	__atomic_fetch_or(&huge_more, 1u << bit, __ATOMIC_RELAXED);
}

/* Writes a result of stats_*(): rc 0 and d, or an empty cell (the
 * aggregate noted when the result is too large for a double). */
static void
emit_stat(const struct agg *ag, struct out *o, int rc, double d,
    unsigned bit)
{
	if (rc == STATS_HUGE)
		note_huge(ag, bit);
	if (rc != 0)
		out_null(o);
	else
		emit_double(o, d);
}

void
aggs_say_huge(const struct config *c)
{
	unsigned more = __atomic_load_n(&huge_more, __ATOMIC_RELAXED);
	const struct aggspec *a;
	size_t i, j;

	for (i = 0; i < c->naggs; i++) {
		a = &c->aggs[i];
		for (j = 0; j < HUGE_NAMED; j++)
			if (__atomic_load_n(&huge_seen[j], __ATOMIC_RELAXED) ==
			    &a->f)
				fwin_warn("--%s %s: a result past the largest "
				    "double (1.8e+308) is an empty cell",
				    a->op->option, fieldref_said(&a->f));
	}
	for (i = 0; i < sizeof(huge_opt) / sizeof(*huge_opt); i++)
		if (more & (1u << i))
			fwin_warn("%s: a result past the largest double "
			    "(1.8e+308) is an empty cell", huge_opt[i]);
}

/* The four variance results differ only in which statistic they print. */
#define VAR_EMIT(name, pop, root, bit)					\
void									\
name(struct agg *ag, const struct arena *a, const void *acc,		\
    struct out *o)							\
{									\
	double d;							\
	int rc = stats_var_result(acc, ag->bs, pop, root, &d);		\
									\
	(void)a;							\
	emit_stat(ag, o, rc, d, bit);					\
}

VAR_EMIT(stddev_emit, 0, 1, HUGE_STDDEV)
VAR_EMIT(var_emit, 0, 0, HUGE_VAR)
VAR_EMIT(stddev_pop_emit, 1, 1, HUGE_STDDEV_POP)
VAR_EMIT(var_pop_emit, 1, 0, HUGE_VAR_POP)

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
		ag->ds.single_a = a;
		return;
	}
	if (ag->sketch == NULL)
		ag->sketch = xmalloc(ops->maxsize);
	if (ag->ds.nfolded == 2) {
		ops->init(ag->sketch, ops->maxsize);
		(void)ops->merge(ag->sketch,
		    arena_ptr(ag->ds.single_a, ag->ds.single));
	}
	(void)ops->merge(ag->sketch, arena_ptr(a, b));	/* never grows */
}

/* The folded sketch, or NULL when none was folded. */
static const void *
sk_folded(const struct agg *ag)
{
	if (ag->ds.nfolded == 0)
		return NULL;
	return ag->ds.nfolded == 1 ?
	    arena_ptr(ag->ds.single_a, ag->ds.single) : ag->sketch;
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

/* dds_agg_add() past its first try: the sketch made, or grown to the
 * need bytes that try asked for, and the add made. Out of line, so that
 * the usual add saves no registers for it. */
static __attribute__((noinline)) void
dds_add_again(struct arena *a, aoff slot, size_t need, double x)
{
	void *b = sk_get(a, slot, &dds_ops);

	if (need != 0)
		b = sk_grow(a, slot, need, &dds_ops);
	while ((need = dds_add(b, x)) != 0)
		b = sk_grow(a, slot, need, &dds_ops);
}

void
dds_agg_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq)
{
	aoff b = ((const struct acc_block *)arena_ptr(a, slot))->b;
	size_t need = 0;

	(void)seq;
	if (b == 0 || (need = dds_add(arena_ptr(a, b), v->d)) != 0)
		dds_add_again(a, slot, need, v->d);
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
	const void *b = sk_folded(ag);
	size_t k;

	(void)a, (void)acc;
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
	void *b = sk_get(a, slot, &hll_ops);
	uint64_t h;
	size_t need;

	(void)seq;
	/* (the sketch lies apart from its group, its lines most likely
	 * not in the cache: fetched while the value is hashed) */
	__builtin_prefetch(b);
	__builtin_prefetch((const char *)b + 64);
	h = XXH3_64bits(v->p, v->n);
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
	const void *b = sk_folded(ag);

	(void)a, (void)acc;
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

