/* aggint: the insides of the aggregates, shared by agg.c (the table, and
 * counts, sums, extremes, first and last) and aggdist.c (the aggregates
 * of a distribution: distinct values, variance, percentiles, sketches);
 * no other module includes it. */
#ifndef FWIN_AGGINT_H
#define FWIN_AGGINT_H

#include "agg.h"
#include "bigsum.h"
#include "stats.h"

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

/* The fold scratch of a distinct aggregate: the same set, outside the
 * arena, holding offsets of the arena's blobs. */
struct dscratch {
	aoff single;		/* the only set folded so far, or 0 */
	int nfolded;
	struct dslot *slot;
	uint64_t cap, n;
};

struct agg {
	const struct aggop *op;
	size_t off;		/* of its slot in the accumulator block */
	size_t fidx, oidx;
	int has_out;
	const struct fieldref *f, *o;
	const struct stats_pct *pct;	/* AGF_PCT: the percentiles */
	size_t npct;
	struct dscratch ds;	/* --distinct's fold; sketches use its
				 * single and nfolded as distinct does */
	void *sketch;		/* a sketch's fold past one block: a block
				 * of the largest size, that never grows */
	double *vals;		/* percentiles' fold: every value */
	size_t nvals, capvals;
	struct bigsum_fold bs;	/* a sum's fold past its fixed width */
};

/* Whether b is a blob of the used arena, not overlapping another block;
 * claims it in m. */
int blob_ok(const struct arena *a, aoff b, struct arena_claims *m);

/* Cells of a number fwin formatted. */
void emit_int(struct out *o, int64_t v);
void emit_double(struct out *o, double v);

/* aggdist.c: the table's entries for the aggregates of a distribution */
void var_add(struct arena *a, aoff slot, const struct aval *v, uint64_t seq);
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

#endif
