/* Unit tests of sketch: DDSketch's relative error against exact R-7
 * percentiles, HyperLogLog's exactness while small and error past that,
 * merges that equal one sketch of everything (to the byte, in any order),
 * bounded size, and checks of damaged blocks. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "base/sketch.h"
#include "unit.h"

#define NEL(a)	(sizeof(a) / sizeof((a)[0]))

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

/* splitmix64: reproducible, and good enough for test data */
static uint64_t
rnd(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* uniform in (0, 1) */
static double
unif(void)
{
	return ((double)(rnd() >> 11) + 0.5) / 9007199254740992.0;
}

static double
gauss(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

/* The grow protocol of sketch.h, with malloc for the arena. */
static void *
grow(void *b, size_t need, int dds)
{
	void *nb = malloc(need);

	if ((dds ? dds_copy(nb, need, b) : hll_copy(nb, need, b)) != 0)
		CHECK(!"copy refused the size asked for");
	free(b);
	return nb;
}

static void *
dadd(void *b, double x)
{
	size_t need;
	int tries = 0;

	while ((need = dds_add(b, x)) != 0 && tries++ < 2)
		b = grow(b, need, 1);
	if (need != 0)
		CHECK(!"still too small after growing");
	return b;
}

static void *
dmerge(void *d, const void *s)
{
	size_t need;
	int tries = 0;

	while ((need = dds_merge(d, s)) != 0 && tries++ < 2)
		d = grow(d, need, 1);
	if (need != 0)
		CHECK(!"still too small after growing");
	return d;
}

static void *
dnew(void)
{
	void *b = malloc(DDS_INITSIZE);

	dds_init(b, DDS_INITSIZE);
	return b;
}

static void *
dbuild(const double *v, size_t n)
{
	void *b = dnew();

	for (size_t i = 0; i < n; i++)
		b = dadd(b, v[i]);
	return b;
}

static int
same(const void *a, size_t asz, const void *b, size_t bsz)
{
	return asz == bsz && memcmp(a, b, asz) == 0;
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static const double pcts[] = {
	0, 1, 5, 25, 50, 75, 90, 95, 99, 99.9, 100
};

/* Checks every percentile of sketch b against sorted values x[0..n):
 * within 1% of the exact R-7 value, or of the interpolation's weights
 * when the two ranks straddle zero (see dds_quantile). from: the lowest
 * percentile that is expected to hold (collapsed sketches). */
static int
accurate(const void *b, const double *x, size_t n, double from)
{
	int ok = 1;

	for (size_t i = 0; i < NEL(pcts); i++) {
		double h = (double)(n - 1) * pcts[i] / 100, f, lo, hi, want, got,
		    bound;
		size_t r = (size_t)h;

		if (pcts[i] < from)
			continue;
		f = h - (double)r;
		lo = x[r];
		hi = r + 1 < n ? x[r + 1] : x[r];
		want = lo + f * (hi - lo);
		got = dds_quantile(b, pcts[i] / 100);
		if ((lo < 0 && hi > 0) || (lo > 0 && hi < 0))
			bound = 0.01 * ((1 - f) * fabs(lo) + f * fabs(hi));
		else
			bound = 0.01 * fabs(want);
		if (!(fabs(got - want) <= bound)) {
			fprintf(stderr, "P%g: got %.17g, want %.17g (n %zu)\n",
			    pcts[i], got, want, n);
			ok = 0;
		}
	}
	return ok;
}

enum { N = 40000 };

static double data[N], sorted[N];

static void
gen(int kind, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double u = unif();

		switch (kind) {
		case 0:		/* lognormal */
			data[i] = exp(2 * gauss());
			break;
		case 1:		/* Zipf-like: integers, heavy tail */
			data[i] = floor(pow(u, -1 / 1.1));
			break;
		case 2:		/* a few values, many times */
			data[i] = (double[]){ 3, 7, 7.5, 1000, 1e-3 }[rnd() % 5];
			break;
		case 3:		/* log-uniform over 1e-6 .. 1e9 */
			data[i] = pow(10, -6 + 15 * u);
			break;
		case 4:		/* both signs and zeros */
			data[i] = u < 0.1 ? 0 : (rnd() & 1 ? -1 : 1) *
			    exp(3 * gauss());
			break;
		case 5:		/* negative only */
			data[i] = -pow(10, -3 + 8 * u);
			break;
		case 6:		/* mostly zeros */
			data[i] = u < 0.9 ? 0 : u * 100;
			break;
		case 7:		/* near 1 with tiny spread: one bucket or two */
			data[i] = 1 + 1e-9 * u;
			break;
		case 8:		/* decimal prices, negatives and zeros */
			data[i] = (double)((int64_t)(rnd() % 200001) - 100000) / 100;
			break;
		}
	}
}

#define NKINDS	9

static void
test_dds_accuracy(void)
{
	for (int kind = 0; kind < NKINDS; kind++) {
		size_t n = N;
		void *b;

		gen(kind, n);
		b = dbuild(data, n);
		memcpy(sorted, data, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmpd);
		CHECK(dds_count(b) == n);
		CHECK(dds_check(b, dds_size(b)) == NULL);
		CHECK(accurate(b, sorted, n, 0));
		if (kind == 3) {
			/* no collapse: 15 decades fit in 2048 buckets */
			CHECK(dds_size(b) <= DDS_HDRSIZE + 4 * DDS_MAXBUCKETS);
		}
		/* small samples of the same, where rank steps are coarse */
		for (size_t m = 1; m <= 7; m++) {
			void *s = dbuild(data, m);

			memcpy(sorted, data, m * sizeof(*sorted));
			qsort(sorted, m, sizeof(*sorted), cmpd);
			CHECK(accurate(s, sorted, m, 0));
			free(s);
		}
		free(b);
	}
}

/* The value a sketch gives x's bucket: its rank 1 among x and a value
 * on each side of it, which neither clamp it nor share its bucket. */
static double
bucket_of(double x)
{
	double t[3] = { x > 0 ? -1 : 2 * x, x, x > 0 ? 2 * x : 1 }, v;
	void *b;

	if (x == 0)
		return 0;
	b = dbuild(t, 3);
	v = dds_quantile(b, 0.5);
	free(b);
	return v;
}

/* R-7 over sorted x[0..n) as the sketch computes it: rank 0 the minimum,
 * rank n - 1 the maximum, any other rank its value's bucket's value. */
static double
ranked(const double *x, size_t n, size_t r)
{
	double v;

	if (r == 0 || r == n - 1)
		return x[r];
	v = bucket_of(x[r]);
	return v < x[0] ? x[0] : v > x[n - 1] ? x[n - 1] : v;
}

static double
quantile_ref(const double *x, size_t n, double q)
{
	double pos = q * (double)(n - 1), f, lo;
	size_t r = (size_t)pos;

	if (r >= n - 1)
		return x[n - 1];
	f = pos - (double)r;
	lo = ranked(x, n, r);
	return f <= 0 ? lo : lo + f * (ranked(x, n, r + 1) - lo);
}

/* Every rank and every point between two, walked to from either end of
 * sparse and dense sketches of every kind (none collapsed at these
 * sizes), gives the bucket of the value that has that rank. */
static void
test_dds_ranks(void)
{
	static const size_t sizes[] = { 1, 2, 3, 4, 5, 9, 17, 200, 2000 };

	for (int kind = 0; kind < NKINDS; kind++)
		for (size_t i = 0; i < NEL(sizes); i++) {
			size_t n = sizes[i], bad = 0;
			void *b;

			gen(kind, n);
			b = dbuild(data, n);
			memcpy(sorted, data, n * sizeof(*sorted));
			qsort(sorted, n, sizeof(*sorted), cmpd);
			for (size_t k = 0; k < 2 * n; k++) {
				double q = n == 1 ? (double)k / 2 :
				    (double)k / 2 / (double)(n - 1),
				    got = dds_quantile(b, q),
				    want = quantile_ref(sorted, n, q);

				if (got != want && bad++ == 0)
					fprintf(stderr, "kind %d n %zu q %.17g:"
					    " got %.17g, want %.17g\n", kind,
					    n, q, got, want);
			}
			CHECK(bad == 0);
			free(b);
		}
}

static void
test_dds_edges(void)
{
	void *b = dnew();
	static const double one[] = { 42.5 }, neg[] = { -0.001 }, zero[] = { 0 };
	static const double ext[] = { 5e-324, 1e-300, DBL_MAX, -DBL_MAX,
	    -5e-324, 1 };

	CHECK(dds_count(b) == 0);
	CHECK(isnan(dds_quantile(b, 0.5)));
	CHECK(dds_check(b, dds_size(b)) == NULL);
	b = dadd(b, NAN);
	b = dadd(b, INFINITY);
	CHECK(dds_count(b) == 0);
	free(b);

	b = dbuild(one, 1);
	CHECK(dds_quantile(b, 0) == 42.5 && dds_quantile(b, 0.5) == 42.5 &&
	    dds_quantile(b, 1) == 42.5);
	CHECK(dds_size(b) == DDS_INITSIZE);
	free(b);
	b = dbuild(neg, 1);
	CHECK(dds_quantile(b, 0.3) == -0.001);
	free(b);
	b = dbuild(zero, 1);
	b = dadd(b, -0.0);
	CHECK(dds_quantile(b, 0.5) == 0 && !signbit(dds_quantile(b, 0)));
	CHECK(dds_check(b, dds_size(b)) == NULL);
	free(b);

	/* the extremes of double: keys at both ends, a collapse */
	b = dbuild(ext, NEL(ext));
	CHECK(dds_check(b, dds_size(b)) == NULL);
	CHECK(dds_quantile(b, 0) == -DBL_MAX && dds_quantile(b, 1) == DBL_MAX);
	free(b);
}

/* Slices built apart and merged in three orders, and the whole through a
 * scratch, give the bytes of one sketch built value by value. */
static void
test_dds_merge(void)
{
	enum { S = 13 };
	static const int kinds[] = { 0, 3, 4, 8, -1 };

	for (size_t t = 0; t < NEL(kinds); t++) {
		size_t cut[S + 1], n = N;
		void *sl[S], *all, *a, *z, *m, *scratch, *fit;

		if (kinds[t] >= 0)
			gen(kinds[t], n);
		else		/* 600 decades: collapses, in varying order */
			for (size_t i = 0; i < n; i++)
				data[i] = (rnd() & 3 ? 1 : -1) *
				    pow(10, -300 + 600 * unif());
		all = dbuild(data, n);
		cut[0] = 0;
		cut[S] = n;
		for (int i = 1; i < S; i++)
			cut[i] = (size_t)(rnd() % n);
		/* sort the cuts: few of them */
		for (int i = 1; i <= S; i++)
			for (int j = i; j > 0 && cut[j - 1] > cut[j]; j--) {
				size_t tmp = cut[j];

				cut[j] = cut[j - 1];
				cut[j - 1] = tmp;
			}
		for (int i = 0; i < S; i++)
			sl[i] = dbuild(data + cut[i], cut[i + 1] - cut[i]);
		a = dnew();
		z = dnew();
		m = dnew();
		scratch = malloc(DDS_MAXSIZE);
		dds_init(scratch, DDS_MAXSIZE);
		for (int i = 0; i < S; i++) {
			a = dmerge(a, sl[i]);
			z = dmerge(z, sl[S - 1 - i]);
			m = dmerge(m, sl[(i * 5) % S]);	/* 5 and 13 coprime */
			CHECK(dds_merge(scratch, sl[i]) == 0);
		}
		fit = malloc(dds_fit(scratch));
		CHECK(dds_copy(fit, dds_fit(scratch), scratch) == 0);
		CHECK(same(a, dds_size(a), all, dds_size(all)));
		CHECK(same(z, dds_size(z), all, dds_size(all)));
		CHECK(same(m, dds_size(m), all, dds_size(all)));
		CHECK(same(fit, dds_size(fit), all, dds_size(all)));
		CHECK(dds_check(scratch, DDS_MAXSIZE) == NULL);
		CHECK(dds_check(all, dds_size(all)) == NULL);
		CHECK(dds_fit(all) == dds_size(all));
		for (int i = 0; i < S; i++)
			free(sl[i]);
		free(a);
		free(z);
		free(m);
		free(scratch);
		free(fit);
		free(all);
	}
}

/* Whether a DDSketch block is sparse: the fourth uint32_t of its header
 * (sketch.c, struct dds, pinned by ARENA_LAYOUT). */
static int
dsparse(const void *b)
{
	uint32_t f;

	memcpy(&f, (const char *)b + 12, sizeof(f));
	return f != 0;
}

/* Small sketches, sparse and past the turn to dense (DDS_SPARSEMAX
 * buckets in use, or keys more than DDS_MAXBUCKETS apart): the same bytes
 * in any order of adds and merges, a sparse one in as many bytes as its
 * pairs need (DDS_INITSIZE for up to 8, doubling), and every percentile
 * within the bound. */
static void
test_dds_sparse(void)
{
	static const double pool[] = { 1, 2, 3, 5, 8, 13, 21, 34, 55, 89,
	    144, 233, 377, 610, 987, 0, -1, -7.5, -1000, 1e-300, 1e300, 0.5 };
	double v[96], x[96];
	void *one, *rev, *singles, *halves, *h2, *s;
	size_t n, i, k, sparse_seen = 0, dense_seen = 0, grown_seen = 0;
	int t;

	for (t = 0; t < 4000; t++) {
		/* t % 4 == 3: integers up to 3000, up to 96 of them, most
		 * in buckets of their own (the turn at DDS_SPARSEMAX) */
		n = 1 + rnd() % (t % 4 == 3 ? NEL(v) : 20);
		for (i = 0; i < n; i++)	/* few pools: more repeats */
			v[i] = t % 4 == 3 ? (double)(1 + rnd() % 3000) :
			    pool[rnd() % (t % 4 == 0 ? 6 : t % 4 == 1 ?
			    16 : NEL(pool))];
		one = dbuild(v, n);
		for (i = 0; i < n; i++)
			x[i] = v[n - 1 - i];
		rev = dbuild(x, n);
		singles = dnew();
		for (i = 0; i < n; i++) {	/* a rotation of the order */
			s = dbuild(v + (i + (size_t)t) % n, 1);
			singles = dmerge(singles, s);
			free(s);
		}
		k = rnd() % (n + 1);
		halves = dbuild(v, k);
		h2 = dbuild(v + k, n - k);
		halves = dmerge(halves, h2);
		CHECK(same(one, dds_size(one), rev, dds_size(rev)));
		CHECK(same(one, dds_size(one), singles, dds_size(singles)));
		CHECK(same(one, dds_size(one), halves, dds_size(halves)));
		CHECK(dds_check(one, dds_size(one)) == NULL);
		CHECK(dds_fit(one) == dds_size(one));
		if (dsparse(one)) {
			sparse_seen++;
			grown_seen += dds_size(one) > DDS_INITSIZE;
			CHECK(dds_size(one) <= DDS_HDRSIZE + 8 * DDS_SPARSEMAX);
		} else
			dense_seen++;
		memcpy(x, v, n * sizeof(*x));
		qsort(x, n, sizeof(*x), cmpd);
		/* (not where 1e300 and 1e-300 collapse the lowest
		 * buckets) */
		if (t % 4 != 2)
			CHECK(accurate(one, x, n, 0));
		free(one);
		free(rev);
		free(singles);
		free(halves);
		free(h2);
	}
	if (!(sparse_seen > 500 && dense_seen > 500 && grown_seen > 300))
		fprintf(stderr, "sparse %zu (%zu grown), dense %zu\n",
		    sparse_seen, grown_seen, dense_seen);
	CHECK(sparse_seen > 500 && dense_seen > 500 && grown_seen > 300);
}

/* A million distinct values over the whole range of double: the block
 * stays bounded, and the top percentiles keep their bound. */
/* Integer values take their keys from a table filled as they are met:
 * the keys read back from it are the keys computed (a key off by one is
 * 2% off, past accurate()'s 1%), in either order. */
static void
test_dds_integers(void)
{
	enum { M = 5000 };	/* past the table's 4096 */
	static double up[M], down[M];
	void *a, *b;

	for (size_t i = 0; i < M; i++) {
		up[i] = (double)(i + 1);
		down[i] = (double)(M - i);
	}
	a = dbuild(up, M);	/* (the first sketch of these: computed) */
	b = dbuild(down, M);	/* (from the table) */
	CHECK(same(a, dds_size(a), b, dds_size(b)));
	CHECK(accurate(a, up, M, 0));
	CHECK(accurate(b, up, M, 0));
	free(a);
	free(b);
}

static void
test_dds_bounded(void)
{
	enum { M = 1000000 };
	double *v = malloc(M * sizeof(*v));
	void *b = dnew();

	for (size_t i = 0; i < M; i++) {
		v[i] = pow(10, -300 + 600 * unif());
		b = dadd(b, v[i]);
	}
	CHECK(dds_size(b) <= DDS_HDRSIZE + 4 * DDS_MAXBUCKETS);
	CHECK(dds_check(b, dds_size(b)) == NULL);
	qsort(v, M, sizeof(*v), cmpd);
	CHECK(accurate(b, v, M, 99));
	free(b);

	/* increasing values (times, ids): 14 decades, no collapse */
	b = dnew();
	for (size_t i = 0; i < M; i++) {
		v[i] = (double)(i + 1) * (i % 2 ? 1e-4 : 1e4);
		b = dadd(b, v[i]);
	}
	qsort(v, M, sizeof(*v), cmpd);
	CHECK(accurate(b, v, M, 0));
	free(b);
	free(v);
}

/* A dense sketch's counts take 2 bytes up to 65,535 non-zero values and
 * 4 past them: the block widens (in place or grown) at the 65,536th, by
 * an add or a merge, and its bytes are the same whichever way it got
 * there; a sketch of 65,535 stays narrow, and every percentile holds. */
static void
test_dds_width(void)
{
	enum { N = 65536 + 1000 };
	double *v = malloc(N * sizeof(*v)), *x = malloc(N * sizeof(*x));
	void *one, *rev, *halves, *h2, *at, *narrow;
	size_t i, k;

	for (i = 0; i < N; i++)	/* 1 to 60: some 60 buckets; zeros in none */
		v[i] = i % 97 == 0 ? 0 : (double)(1 + rnd() % 60);
	one = dbuild(v, N);
	for (i = 0; i < N; i++)
		x[i] = v[N - 1 - i];
	rev = dbuild(x, N);
	CHECK(same(one, dds_size(one), rev, dds_size(rev)));
	free(rev);
	for (int t = 0; t < 4; t++) {
		k = t == 0 ? 1 : t == 1 ? N / 2 : t == 2 ? 65530 : N - 1;
		halves = dbuild(v, k);
		h2 = dbuild(v + k, N - k);
		halves = dmerge(halves, h2);
		CHECK(same(one, dds_size(one), halves, dds_size(halves)));
		free(halves);
		free(h2);
	}
	CHECK(dds_check(one, dds_size(one)) == NULL);
	CHECK(dds_fit(one) == dds_size(one));
	/* the first 65,535 non-zero values (zeros are in no bucket) */
	for (i = 0, k = 0; k < 65535; i++)
		k += v[i] != 0;
	CHECK(i < N);
	narrow = dbuild(v, i);
	at = dadd(dbuild(v, i), 7);
	CHECK(dds_size(at) > dds_size(narrow));
	CHECK(dds_check(narrow, dds_size(narrow)) == NULL);
	CHECK(dds_check(at, dds_size(at)) == NULL);
	memcpy(x, v, N * sizeof(*x));
	qsort(x, N, sizeof(*x), cmpd);
	CHECK(accurate(one, x, N, 0));
	free(one);
	free(narrow);
	free(at);
	free(v);
	free(x);
}

/* Past 2^32 - 1 non-zero values the counts widen to 64 bits (doubling a
 * sketch by merging it with a copy of itself 33 times). */
static void
test_dds_wide(void)
{
	static const double v[] = { 1, 2, 3, 0, -5 };
	void *b = dbuild(v, NEL(v)), *c, *s;
	size_t narrow = dds_size(b);

	for (int i = 0; i < 33; i++) {
		c = malloc(dds_size(b));
		CHECK(dds_copy(c, dds_size(b), b) == 0);
		b = dmerge(b, c);
		free(c);
	}
	CHECK(dds_count(b) == 5ULL << 33);
	CHECK(dds_size(b) > narrow && dds_fit(b) == dds_size(b));
	CHECK(dds_check(b, dds_size(b)) == NULL);
	CHECK(fabs(dds_quantile(b, 0.5) - 1) <= 0.01);
	CHECK(fabs(dds_quantile(b, 0.7) - 2) <= 0.02);
	b = dadd(b, 3);
	CHECK(dds_count(b) == (5ULL << 33) + 1);
	/* the same in a scratch, widened in place */
	s = malloc(DDS_MAXSIZE);
	dds_init(s, DDS_MAXSIZE);
	CHECK(dds_merge(s, b) == 0);
	CHECK(dds_check(s, DDS_MAXSIZE) == NULL);
	CHECK(dds_quantile(s, 0.5) == dds_quantile(b, 0.5));
	free(s);
	free(b);
}

/* Random damage: check() must never read out of bounds, and what it
 * passes must be safe to use. */
static void
test_dds_check(void)
{
	static const double v[] = { 1, 2, 3, 0, -5, 1e6, 0.25 };
	void *b = dbuild(v, NEL(v)), *d;
	size_t sz = dds_size(b);
	int rejected = 0, tries = 3000;

	CHECK(dds_check(b, sz - 1) != NULL);
	CHECK(dds_check(b, 10) != NULL);
	for (int t = 0; t < tries; t++) {
		d = malloc(sz);
		memcpy(d, b, sz);
		for (int k = 1 + (int)(rnd() % 3); k > 0; k--)
			((unsigned char *)d)[rnd() % sz] ^= (unsigned char)
			    (1u << (rnd() % 8));
		if (dds_check(d, sz) != NULL)
			rejected++;
		else {
			(void)dds_quantile(d, 0.5);
			d = dadd(d, 7);
			d = dmerge(d, b);
			CHECK(dds_check(d, dds_size(d)) == NULL);
		}
		free(d);
	}
	CHECK(rejected > tries * 9 / 10);
	/* random bytes */
	d = malloc(DDS_MAXSIZE);
	for (int t = 0; t < 2000; t++) {
		for (size_t i = 0; i < DDS_MAXSIZE; i += 8) {
			uint64_t r = rnd();

			memcpy((char *)d + i, &r, 8);
		}
		CHECK(dds_check(d, (size_t)(rnd() % DDS_MAXSIZE)) != NULL);
	}
	free(d);
	free(b);
}

/* ---- HyperLogLog ---- */

/* fwin hashes a value's text; any distinct bytes will do here */
static uint64_t
hashof(uint64_t v)
{
	return XXH3_64bits(&v, sizeof(v));
}

static void *
hadd(void *b, uint64_t h)
{
	size_t need;
	int tries = 0;

	while ((need = hll_add(b, h)) != 0 && tries++ < 2)
		b = grow(b, need, 0);
	if (need != 0)
		CHECK(!"still too small after growing");
	return b;
}

static void *
hmerge(void *d, const void *s)
{
	size_t need;
	int tries = 0;

	while ((need = hll_merge(d, s)) != 0 && tries++ < 2)
		d = grow(d, need, 0);
	if (need != 0)
		CHECK(!"still too small after growing");
	return d;
}

static void *
hnew(void)
{
	void *b = malloc(HLL_INITSIZE);

	hll_init(b, HLL_INITSIZE);
	return b;
}

/* values [lo, hi) */
static void *
hbuild(uint64_t lo, uint64_t hi)
{
	void *b = hnew();

	for (uint64_t v = lo; v < hi; v++)
		b = hadd(b, hashof(v));
	return b;
}

static void
test_hll_exact(void)
{
	void *b = hnew();
	int exact = 1;

	CHECK(hll_estimate(b) == 0);
	CHECK(hll_check(b, hll_size(b)) == NULL);
	for (uint64_t i = 1; i <= 2000; i++) {
		b = hadd(b, hashof(i));
		b = hadd(b, hashof(i / 2 + 1));	/* seen before */
		if (i <= HLL_SPARSEMAX && hll_estimate(b) != i)
			exact = 0;
		if (i > HLL_SPARSEMAX && hll_estimate(b) <= HLL_SPARSEMAX)
			exact = 0;
		CHECK(hll_size(b) <= 4096);
		if (i == HLL_SPARSEMAX || i == HLL_SPARSEMAX + 1 || i == 2000)
			CHECK(hll_check(b, hll_size(b)) == NULL);
	}
	CHECK(exact);
	CHECK(hll_size(b) == HLL_MAXSIZE);
	free(b);
}

static void
test_hll_error(void)
{
	static const uint64_t card[] = { 1000, 10000, 100000, 1000000 };

	for (size_t c = 0; c < NEL(card); c++) {
		double sum = 0, worst = 0;
		enum { SEEDS = 10 };

		for (int seed = 0; seed < SEEDS; seed++) {
			void *b = hnew();
			uint64_t base = (uint64_t)(seed + 1) << 40;
			double err;

			for (uint64_t v = 0; v < card[c]; v++)
				b = hadd(b, hashof(base + v));
			err = fabs((double)hll_estimate(b) - (double)card[c]) /
			    (double)card[c];
			sum += err;
			if (err > worst)
				worst = err;
			free(b);
		}
		if (!(sum / SEEDS < 0.02 && worst < 0.06))
			fprintf(stderr, "n %llu: mean error %.4f, worst %.4f\n",
			    (unsigned long long)card[c], sum / SEEDS, worst);
		CHECK(sum / SEEDS < 0.02);
		CHECK(worst < 0.06);
	}
}

/* Merge is union, and its bytes do not depend on the order. */
static void
test_hll_merge(void)
{
	static const uint64_t sizes[][2] = {
		{ 100, 150 }, { 200, 300 }, { 300, 5000 }, { 20000, 30000 },
	};

	for (size_t t = 0; t < NEL(sizes); t++) {
		uint64_t na = sizes[t][0], nb = sizes[t][1];
		/* A = [0, na), B = [na / 2, na / 2 + nb): they overlap */
		void *a = hbuild(0, na), *b = hbuild(na / 2, na / 2 + nb);
		void *all = hbuild(0, na / 2 + nb), *ab, *ba;

		ab = hmerge(hbuild(0, 0), a);
		ab = hmerge(ab, b);
		ba = hmerge(hbuild(0, 0), b);
		ba = hmerge(ba, a);
		CHECK(same(ab, hll_size(ab), all, hll_size(all)));
		CHECK(same(ba, hll_size(ba), all, hll_size(all)));
		CHECK(hll_fit(all) == hll_size(all));
		/* a merged into b's copy, and b into a's */
		free(ab);
		ab = hmerge(a, b);
		ba = hmerge(ba, ab);
		CHECK(same(ab, hll_size(ab), all, hll_size(all)));
		CHECK(same(ba, hll_size(ba), all, hll_size(all)));
		free(ab);
		free(ba);
		free(b);
		free(all);
	}

	/* thirteen slices of different sizes, three orders and a scratch */
	{
		enum { S = 13 };
		uint64_t cut[S + 1];
		void *sl[S], *all = hbuild(0, 6000), *o[3], *scratch, *fit;

		for (int i = 0; i <= S; i++)
			cut[i] = (uint64_t)i * i * 6000 / (S * S);
		for (int i = 0; i < S; i++)
			sl[i] = hbuild(cut[i], cut[i + 1]);
		for (int k = 0; k < 3; k++)
			o[k] = hnew();
		scratch = malloc(HLL_MAXSIZE);
		hll_init(scratch, HLL_MAXSIZE);
		for (int i = 0; i < S; i++) {
			o[0] = hmerge(o[0], sl[i]);
			o[1] = hmerge(o[1], sl[S - 1 - i]);
			o[2] = hmerge(o[2], sl[(i * 5) % S]);
			CHECK(hll_merge(scratch, sl[i]) == 0);
		}
		for (int k = 0; k < 3; k++) {
			CHECK(same(o[k], hll_size(o[k]), all, hll_size(all)));
			free(o[k]);
		}
		fit = malloc(hll_fit(scratch));
		CHECK(hll_copy(fit, hll_fit(scratch), scratch) == 0);
		CHECK(same(fit, hll_size(fit), all, hll_size(all)));
		/* a small union in a scratch is still exact, and shrinks back */
		hll_init(scratch, HLL_MAXSIZE);
		CHECK(hll_merge(scratch, sl[0]) == 0 &&
		    hll_merge(scratch, sl[1]) == 0);
		CHECK(hll_estimate(scratch) == cut[2]);
		CHECK(hll_check(scratch, HLL_MAXSIZE) == NULL);
		free(fit);
		fit = malloc(hll_fit(scratch));
		CHECK(hll_copy(fit, hll_fit(scratch), scratch) == 0);
		CHECK(hll_fit(scratch) < HLL_MAXSIZE && hll_estimate(fit) == cut[2]);
		for (int i = 0; i < S; i++)
			free(sl[i]);
		free(fit);
		free(scratch);
		free(all);
	}
}

static void
test_hll_check(void)
{
	void *good[2] = { hbuild(0, 100), hbuild(0, 1000) }, *d;
	int rejected = 0, tries = 3000;

	for (int g = 0; g < 2; g++) {
		size_t sz = hll_size(good[g]);

		CHECK(hll_check(good[g], sz) == NULL);
		CHECK(hll_check(good[g], sz - 8) != NULL);
		for (int t = 0; t < tries; t++) {
			d = malloc(sz);
			memcpy(d, good[g], sz);
			for (int k = 1 + (int)(rnd() % 3); k > 0; k--)
				((unsigned char *)d)[rnd() % sz] ^=
				    (unsigned char)(1u << (rnd() % 8));
			if (hll_check(d, sz) != NULL)
				rejected++;
			else {
				(void)hll_estimate(d);
				d = hadd(d, hashof(123456789));
				d = hmerge(d, good[1 - g]);
				CHECK(hll_check(d, hll_size(d)) == NULL);
			}
			free(d);
		}
	}
	/* dense registers take any 6-bit value below 54: a flip in them is
	 * a different sketch, not a damaged one; the headers and the sorted
	 * sets catch most */
	CHECK(rejected > tries / 2);
	d = malloc(HLL_MAXSIZE);
	for (int t = 0; t < 2000; t++) {
		for (size_t i = 0; i < HLL_MAXSIZE; i += 8) {
			uint64_t r = rnd();

			memcpy((char *)d + i, &r, 8);
		}
		CHECK(hll_check(d, (size_t)(rnd() % (HLL_MAXSIZE + 1))) != NULL);
	}
	free(d);
	free(good[0]);
	free(good[1]);
}

int
main(void)
{
	test_dds_accuracy();
	test_dds_edges();
	test_dds_ranks();
	test_dds_merge();
	test_dds_sparse();
	test_dds_integers();
	test_dds_bounded();
	test_dds_width();
	test_dds_wide();
	test_dds_check();
	test_hll_exact();
	test_hll_error();
	test_hll_merge();
	test_hll_check();
	return unit_done("test_sketch");
}
