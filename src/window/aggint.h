/* aggint: the insides of the aggregates, shared by agg.c (the table, and
 * counts, sums, extremes, first and last) and aggdist.c (the aggregates
 * of a distribution: distinct values, variance, percentiles, sketches);
 * no other module includes it. */
#ifndef FWIN_AGGINT_H
#define FWIN_AGGINT_H

#include "window/agg.h"
#include "base/bigsum.h"
#include "base/num.h"
#include "base/stats.h"

struct dslot;

/* --distinct: the set of its values (aggdist.c), or 0 */
struct acc_distinct {
	aoff set;
};
ARENA_LAYOUT(struct acc_distinct, 8);

/* percentiles, approx-percentile, approx-distinct: a block of their own
 * (0 until a value is seen): struct pvals, or a sketch (sketch.h) */
struct acc_block {
	aoff b;
};
ARENA_LAYOUT(struct acc_block, 8);
_Static_assert(offsetof(struct acc_block, b) == 0,
    "aggs_block_at() reads a block's offset at an accumulator's start");

/* The values of an exact percentile, in arrival order (sorted only in
 * the fold). The block's bytes double as it grows: 64, 128, 256... */
struct pvals {
	uint64_t pv_n;
	uint64_t pv_cap;
	double pv_v[];
};
ARENA_LAYOUT(struct pvals, 16);

#define PV_BYTES(cap)	(sizeof(struct pvals) + (cap) * sizeof(double))
#define PV_INITCAP	6	/* a 64-byte block */

/* A value in a distinct aggregate's fold: its hash and its text, where
 * it lies in whichever arena it came from (folds allocate nothing, so
 * no arena moves while one is made and written). */
struct dtext {
	uint64_t h;
	const char *p;		/* NULL: an empty place */
	size_t n;
};

/* The fold scratch of a distinct aggregate: the union of the sets folded,
 * outside the arena. */
struct dscratch {
	aoff single;		/* the only set folded so far, or 0 */
	const struct arena *single_a;	/* its arena (the groups of two
					 * tables fold together) */
	int nfolded;
	struct dtext *slot;
	uint64_t cap, n;
};

struct agg {
	const struct aggop *op;
	size_t off;		/* of its slot in the accumulator block */
	size_t fidx, oidx;
	int has_out;
	int valued;		/* aggspec_valued(): NULL is skipped */
	const struct fieldref *f, *o;
	const struct stats_pct *pct;	/* AGF_PCT: the percentiles */
	size_t npct;
	struct dscratch ds;	/* --distinct's fold; sketches use its
				 * single and nfolded as distinct does */
	void *sketch;		/* a sketch's fold past one block: a block
				 * of the largest size, that never grows */
	double *vals;		/* percentiles' fold: every value */
	size_t nvals, capvals;
	size_t slotsize;	/* of its slot: op->size, or AGF_HIST's */
	const struct hist_bound *bounds;	/* AGF_HIST */
	size_t nbounds;
	size_t koff;		/* AGF_PRIOR: of its part of a key's block */
	struct cfold *cf;	/* AGF_PRIOR: the fold (aggcounter.c) */
	/* AGF_PRIOR, AGF_HIST (whose entries have no add): adds a value
	 * knowing the aggregate and the record's event time t */
	void (*add_at)(const struct agg *ag, struct arena *a, aoff slot,
	    const struct aval *v, uint64_t seq, int64_t t);
	struct bigsum_fold bs[2];	/* a sum's fold past its fixed width
					 * (a variance's: of its values, of
					 * their squares) */
};


/* Cells of a number fwin formatted: inline here, so that agg.c and the
 * modules it calls (aggcounter.c, aggdist.c) share them without calling
 * back up into agg.c. */
static inline void
emit_int(struct out *o, int64_t v)
{
	out_int(o, v);
}

static inline void
emit_double(struct out *o, double v)
{
	out_double(o, v);
}

/* aggdist.c: the table's entries for the aggregates of a distribution */
void var_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq);
void var_merge(struct arena *a, aoff dst, aoff src);
const char *var_check(const struct arena *a, const void *slot,
    struct arena_claims *m);
void var_release(struct arena *a, aoff slot);
void var_fold(struct agg *ag, const struct arena *a, void *dst,
    const void *src);
void pct_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq);
void pct_merge(struct arena *a, aoff dst, aoff src);
void pct_fold(struct agg *ag, const struct arena *a, void *dst,
    const void *src);
void pct_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o);
void pct_release(struct arena *a, aoff slot);
void dds_agg_add(struct arena *a, aoff slot, const struct aval *v,
    uint64_t seq);
void dds_agg_merge(struct arena *a, aoff dst, aoff src);
void dds_agg_fold(struct agg *ag, const struct arena *a, void *dst,
    const void *src);
void dds_agg_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o);
void dds_agg_release(struct arena *a, aoff slot);
void hll_agg_add(struct arena *a, aoff slot, const struct aval *v,
    uint64_t seq);
void hll_agg_merge(struct arena *a, aoff dst, aoff src);
void hll_agg_fold(struct agg *ag, const struct arena *a, void *dst,
    const void *src);
void hll_agg_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o);
void hll_agg_release(struct arena *a, aoff slot);
void stddev_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o);
void var_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o);
void stddev_pop_emit(struct agg *ag, const struct arena *a,
    const void *acc, struct out *o);
void var_pop_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o);
const char *pct_check(const struct arena *a, const void *slot,
    struct arena_claims *m);
const char *dds_agg_check(const struct arena *a, const void *slot,
    struct arena_claims *m);
const char *hll_agg_check(const struct arena *a, const void *slot,
    struct arena_claims *m);
void distinct_add(struct arena *a, aoff slot, const struct aval *v,
    uint64_t seq);
void distinct_merge(struct arena *a, aoff dst, aoff src);
void distinct_fold(struct agg *ag, const struct arena *a, void *dst,
    const void *src);
void distinct_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o);
const char *distinct_check(const struct arena *a, const void *slot,
    struct arena_claims *m);
void distinct_release(struct arena *a, aoff slot);

/* aggcounter.c: --increase, --rate, --histogram */

/* A counter's value: when (event time, arrival) and what, exactly
 * (m * 10^-scale) when it was written in plain decimal. */
struct cval {
	int64_t t;
	uint64_t seq;
	uint64_t m_lo, m_hi;	/* m, a 128-bit two's complement integer */
	double d;
	uint32_t scale;
	uint32_t exact;
};
ARENA_LAYOUT(struct cval, 48);

/* --increase, --rate: a pane's values. first and last are its earliest
 * and latest in (time, arrival) order; while every value came after
 * the ones before it or before them all (ordered), resets holds the
 * exact sum of the value before each reset between first and last.
 * Where values may come out of order (stream mode's time windows),
 * blk keeps them all (struct cvals), so that one out of order still
 * lands in its place when the window is folded. */
struct acc_counter {
	uint64_t n;
	struct cval first, last;
	aoff blk;
	uint32_t ordered;
	uint32_t pad;
	struct dec_sum resets;	/* last: its size is decimal.h's */
};
ARENA_LAYOUT(struct acc_counter, 120 + sizeof(struct dec_sum));

/* Every value of a pane, in arrival order. */
struct cvals {
	uint64_t cv_n, cv_cap;
	struct cval cv_v[];
};
ARENA_LAYOUT(struct cvals, 16);

/* A key's part for one counter: the last value of its dropped panes. */
struct ckey {
	struct cval v;
	uint64_t set;
};
ARENA_LAYOUT(struct ckey, 56);

void counter_add_at(const struct agg *ag, struct arena *a, aoff slot,
    const struct aval *v, uint64_t seq, int64_t t);
void counter_merge(struct arena *a, aoff dst, aoff src);
void counter_fold(struct agg *ag, const struct arena *a, void *dst,
    const void *src);
void increase_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o);
void rate_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o);
const char *counter_check(const struct arena *a, const void *slot,
    struct arena_claims *m);
void counter_release(struct arena *a, aoff slot);
void hist_add_at(const struct agg *ag, struct arena *a, aoff slot,
    const struct aval *v, uint64_t seq, int64_t t);
void hist_fold(struct agg *ag, const struct arena *a, void *dst,
    const void *src);
void hist_emit(struct agg *ag, const struct arena *a, const void *acc,
    struct out *o);
size_t hist_slotsize(size_t nbounds);

void counter_init(struct agg *ag);
const char *counter_key_check(const struct agg *ag, const void *kb);
void counter_fold_begin(struct agg *ag);
void counter_carry(const struct agg *ag, struct arena *a, void *kb,
    aoff slot);
int counter_key_held(const struct agg *ag, const void *kb);
void counter_fold_prior(struct agg *ag, const struct arena *a,
    const void *kb, aoff slot);
void counter_set_ordered(struct agg *ag, int ordered);
int counter_prior_known(const struct agg *ag);
void counter_fold_span(struct agg *ag, int64_t len);
void counter_free(struct agg *ag);
const char *hist_check(const struct agg *ag, const void *slot);

#endif
