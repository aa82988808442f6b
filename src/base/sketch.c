/*
 * sketch: DDSketch and HyperLogLog as flat, growable blocks; see sketch.h.
 *
 * Both keep only integers that add up (bucket counts, the sorted set of
 * hashes, register maxima) and the exact minimum and maximum, so a merge
 * gives the same bytes in any order. The one place where order could show
 * is a store's collapse; it cannot, because a value of key k always ends
 * in bucket max(k, hi - DDS_MAXBUCKETS + 1), hi being the largest key of
 * the whole multiset: ranges only widen, so a collapse made early folds
 * into a bucket the final one folds into as well.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/sketch.h"

/* ---- DDSketch ---- */

#define DDS_MAGIC	0x31534444u	/* "DDS1" */

/* ln(gamma) for gamma = (1 + DDS_ALPHA) / (1 - DDS_ALPHA), and 1/ln(gamma). */
#define DDS_LNG		0.018000486023620893
#define DDS_INVLNG	55.55405552315441

/* |key| bound: keys of finite doubles lie within -41357..39432. */
#define DDS_KEYLIM	45000

struct dds_store {
	int32_t lo;		/* key of the first bucket (0 when empty) */
	uint32_t len;		/* buckets, first and last non-zero */
};

struct dds {
	uint32_t magic;
	uint32_t size;		/* bytes of the block */
	uint32_t width;		/* bytes a count: 2, 4 or 8; 0 when sparse */
	uint32_t sparse;	/* its entries are struct dds_pair */
	uint64_t n;		/* values, zeros included */
	uint64_t zero;		/* values equal to 0 */
	double min, max;	/* 0 and 0 when empty */
	struct dds_store pos;	/* its counts first in the array */
	struct dds_store neg;	/* then these */
};

/* An entry of a sparse sketch: a bucket and its count. A store's pairs
 * are in key order, the positive store's first, as a dense sketch's
 * counts are; its lo is 0 and its len the number of pairs. */
struct dds_pair {
	int32_t key;
	uint32_t count;
};

_Static_assert(sizeof(struct dds) == DDS_HDRSIZE, "dds header size");
/* dds_class() starts a dense block at the bytes of DDS_SPARSEMAX pairs,
 * below the 512 counts it doubles to, so that a block never shrinks as
 * it turns dense. */
_Static_assert((DDS_SPARSEMAX & (DDS_SPARSEMAX - 1)) == 0 &&
    DDS_SPARSEMAX >= DDS_INITPAIRS && DDS_SPARSEMAX <= 64,
    "DDS_SPARSEMAX: a power of two that dds_class() doubles");
ARENA_LAYOUT(struct dds_pair, 8);
/* --approx-percentile keeps these blocks in the arena */
ARENA_LAYOUT(struct dds_store, 8);
ARENA_LAYOUT(struct dds, 64);

static unsigned char *
dds_cnt(const struct dds *h)
{
	return (unsigned char *)h + DDS_HDRSIZE;
}

static struct dds_pair *
dds_pairs(const struct dds *h)
{
	return (struct dds_pair *)dds_cnt(h);
}

/* Count i of counts of w bytes at c. */
static uint64_t
cnt_at(const unsigned char *c, unsigned w, size_t i)
{
	switch (w) {
	case 2:
		return ((const uint16_t *)c)[i];
	case 4:
		return ((const uint32_t *)c)[i];
	default:
		return ((const uint64_t *)c)[i];
	}
}

/* Sets it to v, which callers keep within the width (count_width). */
static void
cnt_put(unsigned char *c, unsigned w, size_t i, uint64_t v)
{
	switch (w) {
	case 2:
		((uint16_t *)c)[i] = (uint16_t)v;
		break;
	case 4:
		((uint32_t *)c)[i] = (uint32_t)v;
		break;
	default:
		((uint64_t *)c)[i] = v;
	}
}

static uint64_t
cnt_get(const struct dds *h, size_t i)
{
	return cnt_at(dds_cnt(h), h->width, i);
}

static void
cnt_add(struct dds *h, size_t i, uint64_t v)
{
	cnt_put(dds_cnt(h), h->width, i, cnt_get(h, i) + v);
}

static size_t
dds_cap(const struct dds *h)
{
	return (h->size - DDS_HDRSIZE) / h->width;
}

/* Buckets in use -> buckets of the canonical block whose counts are
 * width bytes: at least the bytes of the largest sparse block, so that a
 * block never shrinks as it turns dense or its counts widen (the
 * protocol only grows), doubling to 512, then multiples of 256. */
static size_t
dds_class(size_t t, unsigned width)
{
	size_t c = DDS_SPARSEMAX * sizeof(struct dds_pair) / width;

	while (c < t && c < 512)
		c *= 2;
	if (c < t)
		c = (t + 255) / 256 * 256;
	return c;
}

static size_t
dds_bytes(size_t t, unsigned width)
{
	return DDS_HDRSIZE + dds_class(t, width) * width;
}

/* Pairs in use -> bytes of the canonical sparse block: room for
 * DDS_INITPAIRS, doubled as needed. */
static size_t
pair_bytes(size_t t)
{
	size_t c = DDS_INITPAIRS;

	while (c < t)
		c *= 2;
	return DDS_HDRSIZE + c * sizeof(struct dds_pair);
}

/* The bytes of a dense sketch's counts for n - zero non-zero values:
 * 2 up to 65,535 of them, then 4, then 8, as a bucket can hold no more
 * than all of them. The rule depends on the multiset alone, so the width
 * is canonical too. (Not 1 below 256: windows of either size meet on
 * the same hot path, and the width's switch then costs more than the
 * smaller block saves.) */
static unsigned
count_width(uint64_t nonzero)
{
	return nonzero <= UINT16_MAX ? 2 : nonzero <= UINT32_MAX ? 4 : 8;
}

/* Whether sparse pairs (uint32_t counts) can no longer hold them. */
static int
need_wide(uint64_t nonzero)
{
	return nonzero > UINT32_MAX;
}

/* The keys of the integers below DDS_INTKEYS, each filled when first
 * met: 0 while unknown, else the key + 1. Integer values are common
 * (milliseconds, bytes, counts), and log() was a tenth of an add. The
 * accesses are relaxed atomics: threads that meet the same integer
 * store the same key. */
#define DDS_INTKEYS	4096
static int32_t dds_int_keys[DDS_INTKEYS];

/* The key of a finite a > 0, by its logarithm, kept for an integer
 * below DDS_INTKEYS. */
static __attribute__((noinline)) int32_t
key_by_log(double a)
{
	int32_t k = (int32_t)ceil(log(a) * DDS_INVLNG);

	if (a < DDS_INTKEYS && a == (double)(uint32_t)a)
		__atomic_store_n(&dds_int_keys[(uint32_t)a], k + 1,
		    __ATOMIC_RELAXED);
	return k;
}

/* The key of a finite a > 0: a is in (gamma^(k-1), gamma^k]. Inline for
 * the integer already met, the logarithm out of line, so that an add
 * saves no registers for a call it seldom makes. */
static inline __attribute__((always_inline)) int32_t
dds_key(double a)
{
	uint32_t i;
	int32_t k;

	if (a < DDS_INTKEYS && a == (double)(i = (uint32_t)a) &&
	    (k = __atomic_load_n(&dds_int_keys[i], __ATOMIC_RELAXED)) != 0)
		return k - 1;
	return key_by_log(a);
}

/* The bucket's value, gamma^k (1 - a): within a of both its edges. */
static double
dds_value(int32_t k)
{
	return exp((double)k * DDS_LNG) * (1 - DDS_ALPHA);
}

/* Widens st to hold keys [klo, khi], collapsing its lowest keys when it
 * would pass DDS_MAXBUCKETS. */
static void
store_widen(struct dds_store *st, int32_t klo, int32_t khi)
{
	int64_t a = klo, z = khi;

	if (st->len > 0) {
		if (st->lo < a)
			a = st->lo;
		if ((int64_t)st->lo + st->len - 1 > z)
			z = (int64_t)st->lo + st->len - 1;
	}
	if (z - a + 1 > DDS_MAXBUCKETS)
		a = z - DDS_MAXBUCKETS + 1;
	st->lo = (int32_t)a;
	st->len = (uint32_t)(z - a + 1);
}

/* Moves a store from index ob (range o) to index nb (range w, whose top
 * is at least o's and whose bottom key gets everything below it),
 * zeroing the rest of the new range. */
static void
store_move(struct dds *h, size_t ob, struct dds_store o, size_t nb,
    struct dds_store w)
{
	unsigned char *c = dds_cnt(h);
	size_t sz = h->width, keep = 0, to = nb;
	uint64_t fold = 0;
	int64_t first, end = (int64_t)o.lo + o.len;

	if (o.len > 0) {
		first = o.lo > w.lo ? o.lo : w.lo;
		if (first > end)	/* w lies wholly above o */
			first = end;
		for (int64_t k = o.lo; k < first; k++)
			fold += cnt_get(h, ob + (size_t)(k - o.lo));
		keep = (size_t)(end - first);
		if (keep > 0) {
			to = nb + (size_t)(first - w.lo);
			memmove(c + to * sz, c + (ob + (size_t)(first - o.lo)) *
			    sz, keep * sz);
		}
	}
	memset(c + nb * sz, 0, (to - nb) * sz);
	memset(c + (to + keep) * sz, 0, (nb + w.len - to - keep) * sz);
	if (fold > 0)
		cnt_add(h, nb, fold);
}

/* Makes h's stores pos and neg, with counts of width bytes if wider
 * than its own, when the block can hold them: returns 0, or the size
 * needed (h unchanged). */
static size_t
dds_reserve(struct dds *h, struct dds_store pos, struct dds_store neg,
    unsigned width)
{
	size_t t = (size_t)pos.len + neg.len, i, n;

	if (width > h->width) {
		if ((h->size - DDS_HDRSIZE) / width < t)
			return dds_bytes(t, width);
		/* in place, from the top: each count to its wider place */
		n = (size_t)h->pos.len + h->neg.len;
		for (i = n; i-- > 0;)
			cnt_put(dds_cnt(h), width, i, cnt_get(h, i));
		h->width = width;
		memset(dds_cnt(h) + n * width, 0, h->size - DDS_HDRSIZE -
		    n * width);
	}
	if (dds_cap(h) < t)
		return dds_bytes(t, h->width);
	/* Neither store shrinks, so the negative one, moved first, never
	 * lands on the positive one's old place, nor the positive one on
	 * the negative one's new place. */
	store_move(h, h->pos.len, h->neg, pos.len, neg);
	store_move(h, 0, h->pos, 0, pos);
	h->pos = pos;
	h->neg = neg;
	return 0;
}

static void
dds_minmax(struct dds *h, double min, double max)
{
	if (h->n == 0 || min < h->min)
		h->min = min;
	if (h->n == 0 || max > h->max)
		h->max = max;
}

void
dds_init(void *b, size_t size)
{
	struct dds *h = b;

	memset(b, 0, size);
	h->magic = DDS_MAGIC;
	h->size = (uint32_t)size;
	h->sparse = 1;
}

/* Entry i of a store (base: its first entry's index), dense or sparse:
 * its key, and its count. */
static int32_t
ent_key(const struct dds *h, const struct dds_store *st, size_t base,
    size_t i)
{
	return h->sparse ? dds_pairs(h)[base + i].key : st->lo + (int32_t)i;
}

static uint64_t
ent_count(const struct dds *h, size_t j)
{
	return h->sparse ? dds_pairs(h)[j].count : cnt_get(h, j);
}

/* The range of keys a store holds, as a dense store's. */
static struct dds_store
ent_range(const struct dds *h, const struct dds_store *st, size_t base)
{
	struct dds_store r = { 0, 0 };

	if (!h->sparse || st->len == 0)
		return h->sparse ? r : *st;
	r.lo = ent_key(h, st, base, 0);
	r.len = (uint32_t)(ent_key(h, st, base, st->len - 1) - r.lo + 1);
	return r;
}

/* Makes the sparse h dense, its stores pos and neg (which hold its keys'
 * range, widened as store_widen() does). Returns 0, or the size it needs
 * first. */
static size_t
densify(struct dds *h, struct dds_store pos, struct dds_store neg,
    unsigned width)
{
	struct dds_pair p[DDS_SPARSEMAX];
	size_t np = h->pos.len, t = np + h->neg.len, i, base;
	const struct dds_store *st;
	int32_t k;

	if (h->size < dds_bytes((size_t)pos.len + neg.len, width))
		return dds_bytes((size_t)pos.len + neg.len, width);
	memcpy(p, dds_pairs(h), t * sizeof(*p));
	memset(dds_cnt(h), 0, h->size - DDS_HDRSIZE);
	h->sparse = 0;
	h->width = width;
	h->pos = pos;
	h->neg = neg;
	for (i = 0; i < t; i++) {
		st = i < np ? &pos : &neg;
		base = i < np ? 0 : pos.len;
		k = p[i].key < st->lo ? st->lo : p[i].key;	/* collapsed */
		cnt_add(h, base + (size_t)(k - st->lo), p[i].count);
	}
	return 0;
}

/* The first of the n pairs p whose key is k or more (n if none): a
 * search by halves whose steps are selects, not branches, as a store
 * holds up to DDS_SPARSEMAX pairs. */
static size_t
pair_find(const struct dds_pair *p, size_t n, int32_t k)
{
	const struct dds_pair *b = p;
	size_t half;

	if (n == 0)
		return 0;
	for (; n > 1; n -= half) {
		half = n / 2;
		b = b[half].key < k ? b + half : b;
	}
	return (size_t)(b - p) + (b->key < k);
}

/* Adds count c to key k of the sparse h's store (positive or negative),
 * as a pair. Returns 0; or TO_DENSE, h unchanged, when the sketch must
 * turn dense: a pair past DDS_SPARSEMAX, keys too far apart, or counts
 * that need 64 bits; or the size of the sparse block it needs first. */
#define TO_DENSE ((size_t)-1)

static size_t
sparse_add(struct dds *h, int positive, int32_t k, uint64_t c)
{
	struct dds_store *st = positive ? &h->pos : &h->neg;
	size_t base = positive ? 0 : h->pos.len, t, j;
	struct dds_pair *p = dds_pairs(h) + base;
	int32_t lo, hi;
	size_t i;

	if (need_wide(h->n - h->zero + c))
		return TO_DENSE;
	j = pair_find(p, st->len, k);
	if (j < st->len && p[j].key == k) {
		p[j].count += (uint32_t)c;
		return 0;
	}
	t = (size_t)h->pos.len + h->neg.len;
	lo = st->len > 0 && p[0].key < k ? p[0].key : k;
	hi = st->len > 0 && p[st->len - 1].key > k ? p[st->len - 1].key : k;
	if (t == DDS_SPARSEMAX || (int64_t)hi - lo + 1 > DDS_MAXBUCKETS)
		return TO_DENSE;
	if (DDS_HDRSIZE + (t + 1) * sizeof(*p) > h->size)
		return pair_bytes(t + 1);
	for (i = t - base; i > j; i--)	/* (at most DDS_SPARSEMAX) */
		p[i] = p[i - 1];
	p[j].key = k;
	p[j].count = (uint32_t)c;
	st->len++;
	return 0;
}

/* Adds x, finite and not 0, of key k: any case, the sketch's layout
 * changed if it must (widened, turned dense, its counts wider). */
static __attribute__((noinline)) size_t
add_key(struct dds *h, double x, int32_t k)
{
	struct dds_store *st = x > 0 ? &h->pos : &h->neg, pos, neg;
	uint64_t nonzero = h->n - h->zero;
	size_t need, base;

	if (h->sparse) {
		if ((need = sparse_add(h, x > 0, k, 1)) == 0)
			goto added;
		if (need != TO_DENSE)
			return need;
		pos = ent_range(h, &h->pos, 0);
		neg = ent_range(h, &h->neg, h->pos.len);
		store_widen(x > 0 ? &pos : &neg, k, k);
		if ((need = densify(h, pos, neg, count_width(nonzero + 1))) != 0)
			return need;
	}
	if (st->len == 0 || k < st->lo || k >= (int64_t)st->lo + st->len ||
	    count_width(nonzero + 1) > h->width) {
		pos = h->pos;
		neg = h->neg;
		store_widen(x > 0 ? &pos : &neg, k, k);
		/* a key below a full store changes nothing but the first count */
		if (memcmp(&pos, &h->pos, sizeof(pos)) != 0 ||
		    memcmp(&neg, &h->neg, sizeof(neg)) != 0 ||
		    count_width(nonzero + 1) > h->width) {
			need = dds_reserve(h, pos, neg, count_width(nonzero + 1));
			if (need != 0)
				return need;
		}
	}
	base = x > 0 ? 0 : h->pos.len;
	if (k < st->lo)
		k = st->lo;	/* collapsed */
	cnt_add(h, base + (size_t)(k - st->lo), 1);
added:
	dds_minmax(h, x, x);
	h->n++;
	return 0;
}

/* The usual add, of a positive value to a sparse sketch's pairs or
 * within a dense one's store and width, is made here without a register
 * saved for what it seldom needs; the rest, add_key(). */
size_t
dds_add(void *b, double x)
{
	struct dds *h = b;
	size_t need;
	uint64_t i;
	int32_t k;

	if (!(x > 0 && x <= DBL_MAX)) {
		if (!isfinite(x))
			return 0;
		if (x == 0) {	/* never -0: min and max are bytes */
			dds_minmax(h, 0.0, 0.0);
			h->zero++;
			h->n++;
			return 0;
		}
		return add_key(h, x, dds_key(-x));
	}
	k = dds_key(x);
	if (h->sparse) {
		/* (h unchanged when it says so; add_key() asks it again
		 * before it turns the sketch dense, once in its life) */
		if ((need = sparse_add(h, 1, k, 1)) != 0)
			return need == TO_DENSE ? add_key(h, x, k) : need;
	} else {
		i = (uint64_t)((int64_t)k - h->pos.lo);
		if (i >= h->pos.len ||
		    count_width(h->n - h->zero + 1) > h->width)
			return add_key(h, x, k);
		cnt_add(h, (size_t)i, 1);
	}
	dds_minmax(h, x, x);
	h->n++;
	return 0;
}

/* Adds src's pairs to the sparse dst, if it stays sparse. Returns 0;
 * or TO_DENSE, or the size of the sparse block it needs first, dst
 * unchanged. */
static size_t
sparse_merge(struct dds *dst, const struct dds *src)
{
	struct {
		struct dds h;
		struct dds_pair p[DDS_SPARSEMAX];
	} t;
	size_t i, n;

	n = (size_t)dst->pos.len + dst->neg.len;
	memcpy(&t.h, dst, DDS_HDRSIZE);
	memcpy(t.p, dds_pairs(dst), n * sizeof(struct dds_pair));
	t.h.size = sizeof(t);
	for (i = 0; i < (size_t)src->pos.len + src->neg.len; i++)
		if (sparse_add(&t.h, i < src->pos.len,
		    dds_pairs(src)[i].key, dds_pairs(src)[i].count) != 0)
			return TO_DENSE;
		else	/* (sparse_add() reads n for the width) */
			t.h.n += dds_pairs(src)[i].count;
	n = (size_t)t.h.pos.len + t.h.neg.len;
	if (pair_bytes(n) > dst->size)
		return pair_bytes(n);
	t.h.n = dst->n;
	t.h.size = dst->size;
	memcpy(dst, &t.h, DDS_HDRSIZE);
	memcpy(dds_pairs(dst), t.p, n * sizeof(struct dds_pair));
	return 0;
}

size_t
dds_merge(void *dst, const void *src)
{
	struct dds *d = dst;
	const struct dds *s = src;
	struct dds_store pos, neg, r;
	size_t need, i, base;
	int64_t k;
	unsigned width;

	if (s->n == 0)
		return 0;
	if (d->sparse && s->sparse) {
		if ((need = sparse_merge(d, s)) == 0)
			goto merged;
		if (need != TO_DENSE)
			return need;
	}
	pos = ent_range(d, &d->pos, 0);
	neg = ent_range(d, &d->neg, d->pos.len);
	if ((r = ent_range(s, &s->pos, 0)).len > 0)
		store_widen(&pos, r.lo, r.lo + (int32_t)r.len - 1);
	if ((r = ent_range(s, &s->neg, s->pos.len)).len > 0)
		store_widen(&neg, r.lo, r.lo + (int32_t)r.len - 1);
	width = count_width(d->n - d->zero + (s->n - s->zero));
	if (width < d->width)
		width = d->width;
	need = d->sparse ? densify(d, pos, neg, width) :
	    dds_reserve(d, pos, neg, width);
	if (need != 0)
		return need;
	for (i = 0; i < s->pos.len; i++) {
		k = ent_key(s, &s->pos, 0, i);
		cnt_add(d, (size_t)((k > pos.lo ? k : pos.lo) - pos.lo),
		    ent_count(s, i));
	}
	base = pos.len;
	for (i = 0; i < s->neg.len; i++) {
		k = ent_key(s, &s->neg, s->pos.len, i);
		cnt_add(d, base + (size_t)((k > neg.lo ? k : neg.lo) - neg.lo),
		    ent_count(s, s->pos.len + i));
	}
merged:
	dds_minmax(d, s->min, s->max);
	d->n += s->n;
	d->zero += s->zero;
	return 0;
}

size_t
dds_size(const void *b)
{
	return ((const struct dds *)b)->size;
}

size_t
dds_fit(const void *b)
{
	const struct dds *h = b;

	if (h->sparse)
		return pair_bytes((size_t)h->pos.len + h->neg.len);
	return dds_bytes((size_t)h->pos.len + h->neg.len,
	    count_width(h->n - h->zero));
}

int
dds_copy(void *dst, size_t size, const void *src)
{
	const struct dds *s = src;
	struct dds *d = dst;
	size_t t = (size_t)s->pos.len + s->neg.len, i;

	if (size < DDS_HDRSIZE || size > UINT32_MAX || size < dds_fit(src))
		return -1;
	memset(dst, 0, size);
	memcpy(dst, src, DDS_HDRSIZE);
	d->size = (uint32_t)size;
	if (s->sparse) {
		memcpy(dds_pairs(d), dds_pairs(s), t * sizeof(struct dds_pair));
		return 0;
	}
	d->width = count_width(s->n - s->zero);
	for (i = 0; i < t; i++)
		cnt_put(dds_cnt(d), d->width, i, cnt_get(s, i));
	return 0;
}

uint64_t
dds_count(const void *b)
{
	return ((const struct dds *)b)->n;
}

/* The sketch's buckets in value order: the negative store's from its
 * highest key, then the zeros, then the positive store's. */
static size_t
bucket_total(const struct dds *h)
{
	return (size_t)h->neg.len + 1 + h->pos.len;
}

/* Bucket j's count. */
static uint64_t
bucket_count(const struct dds *h, size_t j)
{
	if (j < h->neg.len)
		return ent_count(h, h->pos.len + h->neg.len - 1 - j);
	if (j == h->neg.len)
		return h->zero;
	return ent_count(h, j - h->neg.len - 1);
}

/* Bucket j's value, clamped to [min, max]; past the last, the maximum. */
static double
bucket_value(const struct dds *h, size_t j)
{
	double v;

	if (j >= bucket_total(h))
		return h->max;
	if (j == h->neg.len)
		return 0;
	if (j < h->neg.len)
		v = -dds_value(ent_key(h, &h->neg, h->pos.len,
		    h->neg.len - 1 - j));
	else
		v = dds_value(ent_key(h, &h->pos, 0, j - h->neg.len - 1));
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

/* Count i of a kind of entries at c: sparse pairs (kind 0), or dense
 * counts of kind bytes. */
static inline __attribute__((always_inline)) uint64_t
count_of(const unsigned char *c, unsigned kind, ptrdiff_t i)
{
	return kind == 0 ? ((const struct dds_pair *)c)[i].count :
	    cnt_at(c, kind, (size_t)i);
}

static inline __attribute__((always_inline)) ptrdiff_t
walk_kind(const unsigned char *c, unsigned kind, ptrdiff_t i, ptrdiff_t end,
    ptrdiff_t step, uint64_t lim, uint64_t *acc)
{
	uint64_t a = *acc, x;

	for (; i != end; i += step) {
		if (a + (x = count_of(c, kind, i)) > lim)
			break;
		a += x;
	}
	*acc = a;
	return i;
}

/* Walks entries i, i + step, ... up to end, adding their counts to *acc
 * while it stays at most lim: returns the entry that would pass lim, or
 * end. A loop for each kind of entry, so that the walk through a dense
 * store of hundreds of buckets does not ask their kind at each. */
static ptrdiff_t
walk(const struct dds *h, ptrdiff_t i, ptrdiff_t end, ptrdiff_t step,
    uint64_t lim, uint64_t *acc)
{
	const unsigned char *c = dds_cnt(h);

	if (h->sparse)
		return walk_kind(c, 0, i, end, step, lim, acc);
	switch (h->width) {
	case 2:
		return walk_kind(c, 2, i, end, step, lim, acc);
	case 4:
		return walk_kind(c, 4, i, end, step, lim, acc);
	default:
		return walk_kind(c, 8, i, end, step, lim, acc);
	}
}

/* The bucket that holds rank r (from 0, below n), and in *below the
 * values of the buckets under it. The walk starts from the end nearer
 * r: an upper percentile lies in the few buckets at the top. Buckets in
 * value order are the negative store's entries from its last, the
 * zeros, then the positive store's entries. */
static size_t
rank_bucket(const struct dds *h, uint64_t r, uint64_t *below)
{
	ptrdiff_t np = h->pos.len, nn = h->neg.len, e;
	uint64_t acc = 0, c;
	size_t j;

	if (r < h->n / 2) {	/* the first bucket whose values pass r */
		if ((e = walk(h, np + nn - 1, np - 1, -1, r, &acc)) != np - 1)
			j = (size_t)(np + nn - 1 - e);
		else if (acc + h->zero > r)
			j = (size_t)nn;
		else {
			acc += h->zero;
			j = (size_t)(nn + 1 + walk(h, 0, np, 1, r, &acc));
		}
		*below = acc;
		return j;
	}
	/* the last bucket whose values and those above it reach n - r */
	if ((e = walk(h, np - 1, -1, -1, h->n - r - 1, &acc)) != -1) {
		j = (size_t)(nn + 1 + e);
		c = ent_count(h, (size_t)e);
	} else if (acc + h->zero > h->n - r - 1) {
		j = (size_t)nn;
		c = h->zero;
	} else {
		acc += h->zero;
		if ((e = walk(h, np, np + nn, 1, h->n - r - 1, &acc)) ==
		    np + nn) {
			*below = h->n;	/* (counts that do not add up to n) */
			return bucket_total(h);
		}
		j = (size_t)(np + nn - 1 - e);
		c = ent_count(h, (size_t)e);
	}
	if (acc + c > h->n) {
		*below = h->n;
		return bucket_total(h);
	}
	*below = h->n - acc - c;
	return j;
}

double
dds_quantile(const void *b, double q)
{
	const struct dds *h = b;
	double pos, f, lo;
	uint64_t r, below;
	size_t j;

	if (h->n == 0)
		return NAN;
	if (!(q > 0))
		q = 0;
	if (q > 1)
		q = 1;
	pos = q * (double)(h->n - 1);
	r = (uint64_t)pos;
	if (r >= h->n - 1)
		return h->max;
	f = pos - (double)r;
	j = rank_bucket(h, r, &below);
	lo = r == 0 ? h->min : bucket_value(h, j);
	if (f <= 0)
		return lo;
	if (r + 1 == h->n - 1)
		return lo + f * (h->max - lo);
	if (j < bucket_total(h) && below + bucket_count(h, j) == r + 1)
		while (++j < bucket_total(h) && bucket_count(h, j) == 0)
			;	/* rank r + 1 opens the next bucket in use */
	return lo + f * (bucket_value(h, j) - lo);
}

static const char *
store_check(const struct dds *h, struct dds_store st, size_t base,
    uint64_t *sum)
{
	size_t i;
	uint64_t v;

	if (st.len == 0)
		return st.lo == 0 ? NULL : "bad empty store";
	if (h->sparse) {
		const struct dds_pair *p = dds_pairs(h) + base;

		if (st.lo != 0 || p[0].key < -DDS_KEYLIM ||
		    p[st.len - 1].key > DDS_KEYLIM ||
		    (int64_t)p[st.len - 1].key - p[0].key >= DDS_MAXBUCKETS)
			return "bad store range";
		for (i = 0; i < st.len; i++) {
			if (p[i].count == 0 || (i > 0 && p[i].key <=
			    p[i - 1].key))
				return "bad sparse store";
			if (__builtin_add_overflow(*sum, p[i].count, sum))
				return "bad count";
		}
		return NULL;
	}
	if (st.len > DDS_MAXBUCKETS || st.lo < -DDS_KEYLIM ||
	    (int64_t)st.lo + st.len - 1 > DDS_KEYLIM)
		return "bad store range";
	if (cnt_get(h, base) == 0 || cnt_get(h, base + st.len - 1) == 0)
		return "store not trimmed";
	for (i = 0; i < st.len; i++) {
		v = cnt_get(h, base + i);
		if (__builtin_add_overflow(*sum, v, sum))
			return "bad count";
	}
	return NULL;
}

const char *
dds_check(const void *b, size_t avail)
{
	const struct dds *h = b;
	size_t cap, t, i;
	uint64_t sum;
	const char *e;

	if (avail < DDS_HDRSIZE)
		return "truncated sketch";
	if (h->magic != DDS_MAGIC || h->sparse > 1 ||
	    (h->sparse ? h->width != 0 : h->width != 2 && h->width != 4 &&
	    h->width != 8))
		return "bad sketch header";
	if (h->size < DDS_HDRSIZE || h->size > avail || h->size % 8 != 0 ||
	    h->size > DDS_MAXSIZE)
		return "bad sketch size";
	cap = h->sparse ? (h->size - DDS_HDRSIZE) / sizeof(struct dds_pair) :
	    dds_cap(h);
	t = (size_t)h->pos.len + h->neg.len;
	if (t > cap || (h->sparse && (t > DDS_SPARSEMAX ||
	    h->size < DDS_INITSIZE)))
		return "sketch overflows its block";
	sum = h->zero;
	if ((e = store_check(h, h->pos, 0, &sum)) != NULL ||
	    (e = store_check(h, h->neg, h->pos.len, &sum)) != NULL)
		return e;
	if (h->sparse)
		cap = (h->size - DDS_HDRSIZE) / sizeof(struct dds_pair);
	/* far beyond any input, and merges of two cannot wrap */
	if (sum != h->n || h->n > (1ULL << 62))
		return "bad sketch count";
	if (!h->sparse && h->width < count_width(h->n - h->zero))
		return "bad sketch width";
	for (i = t; i < cap; i++)
		if (h->sparse ? dds_pairs(h)[i].key != 0 ||
		    dds_pairs(h)[i].count != 0 : cnt_get(h, i) != 0)
			return "bad sketch padding";
	if (h->n == 0)
		return h->min == 0 && h->max == 0 && !signbit(h->min) &&
		    !signbit(h->max) ? NULL : "bad empty sketch";
	if (!isfinite(h->min) || !isfinite(h->max) || h->min > h->max ||
	    (h->neg.len > 0) != (h->min < 0) ||
	    (h->pos.len > 0) != (h->max > 0) ||
	    (h->zero > 0 && (h->min > 0 || h->max < 0)))
		return "bad sketch bounds";
	return NULL;
}

/* ---- HyperLogLog ---- */

#define HLL_MAGIC	0x314c4c48u	/* "HLL1" */
#define HLL_DENSE	UINT32_MAX	/* hll.n of a dense sketch */
#define HLL_Q		(64 - HLL_P)	/* bits of a hash left for rho */
#define HLL_REGBYTES	(HLL_REGS * 6 / 8)

struct hll {
	uint32_t magic;
	uint32_t size;		/* bytes of the block */
	uint32_t n;		/* sparse: hashes held; or HLL_DENSE */
	uint32_t pad;
	/* sparse: uint64_t hashes, ascending; dense: 6-bit registers */
};

_Static_assert(sizeof(struct hll) == HLL_HDRSIZE, "hll header size");
/* --approx-distinct keeps these blocks in the arena */
ARENA_LAYOUT(struct hll, 16);
_Static_assert(HLL_HDRSIZE + 8 * HLL_SPARSEMAX <= HLL_MAXSIZE,
    "sparse sketches fit in a dense one's block");

static uint64_t *
hll_set(const struct hll *h)
{
	return (uint64_t *)((unsigned char *)h + HLL_HDRSIZE);
}

static unsigned char *
hll_regs(const struct hll *h)
{
	return (unsigned char *)h + HLL_HDRSIZE;
}

/* Register j: 6 bits from bit 6j, little-endian across bytes. */
static unsigned
reg_get(const unsigned char *r, unsigned j)
{
	unsigned bit = 6 * j, i = bit / 8, sh = bit % 8, v = r[i] >> sh;

	if (sh > 2)
		v |= (unsigned)r[i + 1] << (8 - sh);
	return v & 63;
}

static void
reg_max(unsigned char *r, unsigned j, unsigned v)
{
	unsigned bit = 6 * j, i = bit / 8, sh = bit % 8;

	if (v <= reg_get(r, j))
		return;
	r[i] = (unsigned char)((r[i] & ~(63u << sh)) | (v << sh));
	if (sh > 2)
		r[i + 1] = (unsigned char)((r[i + 1] & ~(63u >> (8 - sh))) |
		    (v >> (8 - sh)));
}

static void
reg_add(unsigned char *r, uint64_t hash)
{
	unsigned j = (unsigned)(hash & (HLL_REGS - 1));
	uint64_t w = (hash >> HLL_P) | (1ULL << HLL_Q);

	reg_max(r, j, (unsigned)__builtin_ctzll(w) + 1);
}

static size_t
hll_bytes(size_t n)
{
	size_t c = 4;

	if (n > HLL_SPARSEMAX)
		return HLL_MAXSIZE;
	while (c < n && c < 256)
		c *= 2;
	if (c < n)
		c = HLL_SPARSEMAX;
	return HLL_HDRSIZE + 8 * c;
}

/* Turns a sparse h into a dense one in place; its block holds that. */
static void
hll_densify(struct hll *h)
{
	unsigned char r[HLL_REGBYTES];
	const uint64_t *s = hll_set(h);
	uint32_t i;

	memset(r, 0, sizeof(r));
	for (i = 0; i < h->n; i++)
		reg_add(r, s[i]);
	memset(hll_regs(h), 0, h->size - HLL_HDRSIZE);
	memcpy(hll_regs(h), r, sizeof(r));
	h->n = HLL_DENSE;
}

/* The first index in the sparse set whose hash is >= x. Without
 * branches on the comparisons (the compiler makes them conditional
 * moves): the hashes are random, so a branch would be mispredicted half
 * the time, and that was most of the cost of a sparse add. The
 * prefetches fetch both places the next step may look at. */
static uint32_t
hll_find(const struct hll *h, uint64_t x)
{
	const uint64_t *s = hll_set(h), *base = s;
	uint32_t n = h->n;

	if (n == 0)
		return 0;
	while (n > 1) {
		uint32_t half = n / 2;

		__builtin_prefetch(base + half / 2);
		__builtin_prefetch(base + half + half / 2);
		base = base[half] < x ? base + half : base;
		n -= half;
	}
	return (uint32_t)(base - s) + (*base < x);
}

void
hll_init(void *b, size_t size)
{
	struct hll *h = b;

	memset(b, 0, size);
	h->magic = HLL_MAGIC;
	h->size = (uint32_t)size;
}

size_t
hll_add(void *b, uint64_t hash)
{
	struct hll *h = b;
	uint64_t *s;
	uint32_t i;

	if (h->n == HLL_DENSE) {
		reg_add(hll_regs(h), hash);
		return 0;
	}
	i = hll_find(h, hash);
	s = hll_set(h);
	if (i < h->n && s[i] == hash)
		return 0;
	if (h->n == HLL_SPARSEMAX) {
		if (h->size < HLL_MAXSIZE)
			return HLL_MAXSIZE;
		hll_densify(h);
		reg_add(hll_regs(h), hash);
		return 0;
	}
	if ((h->size - HLL_HDRSIZE) / 8 <= h->n)
		return hll_bytes((size_t)h->n + 1);
	memmove(s + i + 1, s + i, (h->n - i) * sizeof(*s));
	s[i] = hash;
	h->n++;
	return 0;
}

size_t
hll_merge(void *dst, const void *src)
{
	struct hll *d = dst;
	const struct hll *s = src;
	const uint64_t *ss = hll_set(s);
	uint64_t *ds = hll_set(d);
	uint32_t i, j, u, w;
	unsigned k;

	if (s->n == 0)
		return 0;
	if (d->n != HLL_DENSE) {
		if (s->n == HLL_DENSE)
			u = HLL_SPARSEMAX + 1;
		else	/* the size of the union */
			for (i = j = u = 0; i < d->n || j < s->n; u++) {
				if (j == s->n || (i < d->n && ds[i] < ss[j]))
					i++;
				else if (i == d->n || ss[j] < ds[i])
					j++;
				else
					i++, j++;
			}
		if (u > HLL_SPARSEMAX) {
			if (d->size < HLL_MAXSIZE)
				return HLL_MAXSIZE;
			hll_densify(d);
		} else if ((d->size - HLL_HDRSIZE) / 8 < u)
			return hll_bytes(u);
		else {
			/* from the top, so that nothing is overwritten unread */
			i = d->n;
			j = s->n;
			for (w = u; w-- > 0;) {
				if (j == 0 || (i > 0 && ds[i - 1] > ss[j - 1]))
					ds[w] = ds[--i];
				else if (i == 0 || ss[j - 1] > ds[i - 1])
					ds[w] = ss[--j];
				else {
					ds[w] = ss[--j];
					i--;
				}
			}
			d->n = u;
			return 0;
		}
	}
	if (s->n == HLL_DENSE)
		for (k = 0; k < HLL_REGS; k++)
			reg_max(hll_regs(d), k, reg_get(hll_regs(s), k));
	else
		for (i = 0; i < s->n; i++)
			reg_add(hll_regs(d), ss[i]);
	return 0;
}

size_t
hll_size(const void *b)
{
	return ((const struct hll *)b)->size;
}

size_t
hll_fit(const void *b)
{
	const struct hll *h = b;

	return h->n == HLL_DENSE ? HLL_MAXSIZE : hll_bytes(h->n);
}

int
hll_copy(void *dst, size_t size, const void *src)
{
	const struct hll *s = src;
	size_t used = s->n == HLL_DENSE ? HLL_REGBYTES : 8 * (size_t)s->n;

	if (size < HLL_HDRSIZE + used || size > UINT32_MAX)
		return -1;
	memset(dst, 0, size);
	memcpy(dst, src, HLL_HDRSIZE + used);
	((struct hll *)dst)->size = (uint32_t)size;
	return 0;
}

/* Ertl's sigma and tau (section 4.3 of his paper), summed until the
 * terms no longer change the double. */
static double
hll_sigma(double x)
{
	double y = 1, z = x, prev;

	if (x == 1)
		return INFINITY;
	do {
		x *= x;
		prev = z;
		z += x * y;
		y += y;
	} while (prev != z);
	return z;
}

static double
hll_tau(double x)
{
	double y = 1, z = 1 - x, prev;

	if (x == 0 || x == 1)
		return 0;
	do {
		x = sqrt(x);
		prev = z;
		y *= 0.5;
		z -= (1 - x) * (1 - x) * y;
	} while (prev != z);
	return z / 3;
}

uint64_t
hll_estimate(const void *b)
{
	const struct hll *h = b;
	unsigned hist[HLL_Q + 2] = { 0 }, j, v;
	double m = HLL_REGS, z, e;

	if (h->n != HLL_DENSE)
		return h->n;
	for (j = 0; j < HLL_REGS; j++) {
		v = reg_get(hll_regs(h), j);
		hist[v <= HLL_Q + 1 ? v : HLL_Q + 1]++;
	}
	z = m * hll_tau((m - hist[HLL_Q + 1]) / m);
	for (j = HLL_Q; j >= 1; j--) {
		z += hist[j];
		z *= 0.5;
	}
	z += m * hll_sigma(hist[0] / m);
	e = 0.5 / M_LN2 * m * m / z;	/* alpha_inf = 1 / (2 ln 2) */
	if (!(e > HLL_SPARSEMAX + 1))
		return HLL_SPARSEMAX + 1;
	return (uint64_t)llround(e);
}

const char *
hll_check(const void *b, size_t avail)
{
	const struct hll *h = b;
	const unsigned char *p = b;
	const uint64_t *s;
	size_t used, i;
	unsigned j;

	if (avail < HLL_HDRSIZE)
		return "truncated sketch";
	if (h->magic != HLL_MAGIC || h->pad != 0)
		return "bad sketch header";
	if (h->size < HLL_HDRSIZE || h->size > avail || h->size % 8 != 0 ||
	    h->size > HLL_MAXSIZE)
		return "bad sketch size";
	if (h->n == HLL_DENSE) {
		if (h->size != HLL_MAXSIZE)
			return "bad sketch size";
		for (j = 0; j < HLL_REGS; j++)
			if (reg_get(hll_regs(h), j) > HLL_Q + 1)
				return "bad sketch register";
		return NULL;
	}
	if (h->n > HLL_SPARSEMAX || (h->size - HLL_HDRSIZE) / 8 < h->n)
		return "sketch overflows its block";
	s = hll_set(h);
	for (i = 1; i < h->n; i++)
		if (s[i - 1] >= s[i])
			return "sketch not sorted";
	used = HLL_HDRSIZE + 8 * (size_t)h->n;
	for (i = used; i < h->size; i++)
		if (p[i] != 0)
			return "bad sketch padding";
	return NULL;
}
