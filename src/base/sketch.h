/*
 * sketch: mergeable summaries in bounded memory, for --approx-percentile
 * and --approx-distinct (man/fwin.1, AGGREGATES).
 *
 * dds_*: DDSketch (Masson, Rim, Lee, "DDSketch: A Fast and Fully-Mergeable
 * Quantile Sketch with Relative-Error Guarantees", VLDB 2019). Values go to
 * logarithmic buckets (gamma^(k-1), gamma^k], gamma = (1+a)/(1-a), a =
 * DDS_ALPHA = 0.009; a bucket's value gamma^k (1-a) is within a of anything
 * in it. Positive and negative values have a store each (keys of |x|),
 * zeros a count. A store keeps at most DDS_MAXBUCKETS = 2048 buckets: 16
 * decades of magnitude (1e-6 to 1e10, say). Past that its lowest buckets
 * (the smallest magnitudes) are collapsed into one, as the paper's
 * collapsing store does: only quantiles that fall there lose accuracy.
 * A new sketch is sparse: up to DDS_SPARSEMAX = 16 buckets in use are
 * kept as (key, count) pairs, however far apart, as most windows hold
 * few values: 128 bytes for up to 8 pairs, 192 for 16. Past that it
 * turns dense, a count for every bucket from its lowest in use to its
 * highest, of 2 bytes while the sketch holds up to 65,535 values (4 past
 * that, 8 past 2^32): 64 bytes + 2 per bucket in the range, rounded up
 * to a size class (64 buckets, doubling to 512, then multiples of 256):
 * 192 bytes or more, 1.6 KiB for values over 5 decades, 4 KiB over 15,
 * 8 KiB at most (16 and 32 KiB with wider counts). A sparse add searches
 * and moves pairs, 4 to 6 times the time of a dense one (an increment),
 * so the sparse form stops at 16 pairs: past them, values within a
 * decade weigh no more dense (320 bytes, as 17 to 32 pairs do), values
 * over 5 decades up to 5 times more in windows of 17 to 64 buckets, and
 * half what counts of 4 bytes did in larger ones. Both forms give the
 * same quantiles, and which one a sketch has, and its size, follow from
 * its values alone.
 *
 * hll_*: HyperLogLog (Flajolet et al. 2007) with HLL++'s changes (Heule,
 * Nunkesser, Hall, "HyperLogLog in Practice", EDBT 2013): 64-bit hashes
 * (no large-range correction), and a sparse phase that keeps the hashes
 * themselves, sorted: the count is exact up to HLL_SPARSEMAX = 384
 * distinct hashes. Past that, 2^12 registers of 6 bits (3 KiB); the
 * estimate is Ertl's ("New cardinality estimation algorithms for
 * HyperLogLog sketches", 2017, as in Redis), which is unbiased over the
 * whole range without HLL++'s empirical bias tables. Standard error
 * 1.04 / sqrt(4096) = 1.6%. Memory: 3088 bytes at most.
 *
 * Both are flat blocks of bytes without pointers (they live in the arena
 * and are saved as they are). A block starts small and grows: its size is
 * in its header. add and merge return 0 when done, or else the size of a
 * block they need first, having changed nothing; the caller then allocates
 * that many bytes, dds_copy()/hll_copy() the block there, frees the old
 * one and calls again (which then succeeds). So memory follows the data
 * (most windows hold few values) and the caller keeps one offset. Growing
 * only by the sizes returned keeps blocks canonical: the same multiset of
 * values gives the same bytes, in whatever order it was added and merged.
 * A fixed maximum-size struct was the other choice; it would cost 32 KiB
 * per window even for a single value.
 *
 * A fold scratch outside the arena can be a block of DDS_MAXSIZE or
 * HLL_MAXSIZE bytes: such a block never needs to grow. *_fit() gives the
 * canonical size of its content, to *_copy() it back into the arena.
 * Blocks must be 8-aligned; dst and src of a merge are different blocks.
 * A block read from a file must pass *_check() before any other use.
 */
#ifndef FWIN_SKETCH_H
#define FWIN_SKETCH_H

#include <stddef.h>
#include <stdint.h>

/* The relative accuracy: 0.009, below the promised 1% so that rounding
 * in log(), exp() and the interpolation (about 1e-15 relative) cannot
 * reach the bound, and as close to it as that allows, because wider
 * buckets make 2048 of them cover more decades. */
#define DDS_ALPHA	0.009
#define DDS_MAXBUCKETS	2048		/* per store */
#define DDS_HDRSIZE	64
#define DDS_SPARSEMAX	16		/* pairs of a sparse sketch */
#define DDS_INITPAIRS	8		/* pairs a new sketch has room for */
#define DDS_INITSIZE	(DDS_HDRSIZE + 8 * DDS_INITPAIRS)
#define DDS_MAXSIZE	(DDS_HDRSIZE + 8 * 2 * DDS_MAXBUCKETS)

/* Writes an empty sketch into size bytes: DDS_INITSIZE, or DDS_MAXSIZE
 * (a scratch that never grows), or any multiple of 8 in between. */
void dds_init(void *b, size_t size);

/* Adds x (non-finite values are ignored; -0 counts as 0). Returns 0, or
 * the block size needed first (see above). */
size_t dds_add(void *b, double x);

/* Adds what src holds to dst, exactly (the same buckets). Returns 0, or
 * the size dst needs first. */
size_t dds_merge(void *dst, const void *src);

/* Writes src's sketch into dst, a block of size bytes, size >=
 * dds_fit(src). Returns 0, or -1 (dst untouched) when size is too small. */
int dds_copy(void *dst, size_t size, const void *src);

/* The block's size; the smallest (canonical) size that holds its content. */
size_t dds_size(const void *b);
size_t dds_fit(const void *b);

/* The number of values added (zeros included). */
uint64_t dds_count(const void *b);

/*
 * The q-quantile, 0 <= q <= 1, as R type 7 defines it: with h = q(n-1),
 * the values at ranks floor(h) and floor(h)+1 (from 0, ascending) are
 * interpolated by h - floor(h). Each rank's value is estimated within
 * DDS_ALPHA relative error (exactly at rank 0 and n-1: the minimum and
 * maximum are kept), so the result is within DDS_ALPHA of the exact R-7
 * percentile whenever those two values do not have opposite signs; when
 * they have, within DDS_ALPHA ((1-f)|x_lo| + f|x_hi|). Ranks that fall in
 * collapsed buckets have no bound. NaN when the sketch is empty.
 */
double dds_quantile(const void *b, double q);

/* Checks a block read from a file, avail bytes readable at b: NULL, or
 * what is wrong. Never reads past avail. */
const char *dds_check(const void *b, size_t avail);

#define HLL_P		12
#define HLL_REGS	(1 << HLL_P)
#define HLL_SPARSEMAX	384
#define HLL_HDRSIZE	16
#define HLL_INITSIZE	(HLL_HDRSIZE + 8 * 4)
#define HLL_MAXSIZE	(HLL_HDRSIZE + HLL_REGS * 6 / 8)	/* 3088 */

/* Writes an empty sketch into size bytes: HLL_INITSIZE, or HLL_MAXSIZE
 * (a scratch that never grows), or any multiple of 8 in between. */
void hll_init(void *b, size_t size);

/* Adds a 64-bit hash of a value (XXH3_64bits of its text). Returns 0, or
 * the block size needed first. */
size_t hll_add(void *b, uint64_t hash);

/* Makes dst the union of dst and src. Returns 0, or the size dst needs
 * first. */
size_t hll_merge(void *dst, const void *src);

/* As dds_copy(). */
int hll_copy(void *dst, size_t size, const void *src);
size_t hll_size(const void *b);
size_t hll_fit(const void *b);

/* The number of distinct hashes: exact up to HLL_SPARSEMAX, estimated
 * past it (never below HLL_SPARSEMAX + 1). */
uint64_t hll_estimate(const void *b);

/* As dds_check(). */
const char *hll_check(const void *b, size_t avail);

#endif
