/* hashagg.c: records added in any order come back as one row per (window,
 * key) group, in (start, key) order, with the counts and sums of their
 * records (fwin(1): BATCH AND STREAM MODES). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "window/agg.h"
#include "pipeline/config.h"
#include "base/decimal.h"
#include "exec/hashagg.h"
#include "io/keycodec.h"
#include "io/output.h"
#include "unit.h"

#define N 20000
#define SIZE 1000		/* the tumbling window, ns */

struct rec {
	int64_t t;
	char key[40];
	size_t kn;		/* strlen(key), for on_row's search */
	long v;
};

static struct rec recs[N];
/* hashagg_stream(): whether the stream takes record i (not late) */
static int taken[N];

struct fired {
	struct out *cells;
	size_t n;
	int64_t last_start;
	char last_key[40];
	size_t last_len;
	uint64_t count, bad;
	long sum;
};

/* Windows far apart (negative times, and near the ends of int64) and
 * close together; keys that agree in their first 8 bytes. */
static void
make(long i, struct rec *r)
{
	static const int64_t base[] = {
		-5000000, 0, 123456789, INT64_MIN + 1000000,
		INT64_MAX - 2000000,
	};

	r->t = base[unit_below(5)] + (int64_t)unit_below(40 * SIZE);
	if (unit_below(2))
		snprintf(r->key, sizeof(r->key), "k%d", (int)unit_below(30));
	else
		snprintf(r->key, sizeof(r->key), "longprefix-%d",
		    (int)unit_below(30));
	r->v = (long)i % 100;
}

static int64_t
start_of(int64_t t)
{
	int64_t r = t % SIZE;

	return t - (r < 0 ? r + SIZE : r);
}

/* Cell i of the row rendered in o, as a number (-1: none). */
static long
cell(const struct out *o, size_t i)
{
	char buf[32];
	const char *p;
	size_t n;

	if ((p = out_cell(o, i, &n)) == NULL || n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

static void
on_row(void *arg, const struct op_row *row)
{
	struct fired *f = arg;
	size_t i;
	uint64_t count = 0;
	long sum = 0;
	int cmp;

	/* in (start, key) order, each group once */
	cmp = row->start > f->last_start ? 1 : row->start < f->last_start ?
	    -1 : key_cmp(1, row->key, row->keylen, f->last_key, f->last_len);
	if (f->n > 0 && cmp <= 0)
		f->bad++;
	f->n++;
	f->last_start = row->start;
	memcpy(f->last_key, row->key, row->keylen);
	f->last_len = row->keylen;
	if (row->end != row->start + SIZE || !row->has_bounds || !row->final)
		f->bad++;
	/* what the records of its group add up to (one key field: its
	 * canonical bytes are the field's) */
	for (i = 0; i < N; i++) {
		if (taken[i] && start_of(recs[i].t) == row->start &&
		    recs[i].kn == row->keylen &&
		    memcmp(recs[i].key, row->key, row->keylen) == 0) {
			count++;
			sum += recs[i].v;
		}
	}
	out_mem_clear(f->cells);
	aggs_emit(row->g, row->a, row->acc, f->cells);
	if (cell(f->cells, 0) != (long)count || cell(f->cells, 1) != sum)
		f->bad++;
	f->count += count;
	f->sum += sum;
}

/* hashagg_add() of a record of time t, key[0..kn), values v. */
static int
add_kv(struct hashagg *h, int64_t t, const int64_t *win, const char *key,
    size_t kn, const struct aval *v)
{
	struct op_rec r;

	r.key = key;
	r.keylen = kn;
	r.hash = key_hash(key, kn);
	r.padded = 0;
	r.t = t;
	r.vals = v;
	return hashagg_add(h, &r, win);
}

/* Keys of 1 to 9 bytes, alike but for their length or one byte, each
 * followed by other bytes at every record (input.h: FIELD_PAD): as padded
 * keys (compared in one load) and as keys that are not, the same groups,
 * one a key. All have one hash, so that each is compared with every
 * group's key, not told apart by its tag. */
static void
padded_keys(const struct config *c, struct aggs *g)
{
	static const char *const keys[] = { "a", "ab", "abc", "abcd",
	    "abcde", "abcdef", "abcdefg", "abcdefgh", "abcdefghi", "b",
	    "abd", "abcdefgi", "bbcdefgh", "abcdefghj" };
	const size_t nk = sizeof(keys) / sizeof(keys[0]);
	struct hashagg *h[2];
	struct op_rec r;
	struct aval v[2];
	char buf[64];
	uint64_t groups[2], peak;
	size_t i, k, j, n, b;

	memset(v, 0, sizeof(v));
	unit_rstate = 0x70616464u;
	for (k = 0; k < 2; k++) {
		h[k] = hashagg_new(c, g, (uint64_t)1 << 30);
		for (i = 0; i < 2000; i++) {
			j = (size_t)unit_below(nk);
			n = strlen(keys[j]);
			for (b = 0; b < sizeof(buf); b++)
				buf[b] = (char)unit_rnd();
			memcpy(buf, keys[j], n);
			r.key = buf;
			r.keylen = n;
			r.hash = 42;
			r.padded = (int)k;
			r.t = 5;
			r.vals = v;
			CHECK(hashagg_add(h[k], &r, NULL) == HA_ADDED);
		}
		hashagg_size(h[k], &groups[k], &peak);
		hashagg_free(h[k]);
	}
	CHECK(groups[0] == nk);
	CHECK(groups[1] == nk);
}

/* Adds record r (with its window found, as the reading thread does, or
 * not). Returns HA_*. */
static int
put(struct hashagg *h, const struct rec *r, int with_window)
{
	struct aval v[2];
	char num[32];
	size_t kn = strlen(r->key);
	int64_t win = start_of(r->t);

	memset(v, 0, sizeof(v));
	snprintf(num, sizeof(num), "%ld", r->v);
	v[1].p = num;
	v[1].n = strlen(num);
	v[1].is_dec = dec_parse(num, v[1].n, &v[1].dec) == 0;
	v[1].d = (double)r->v;
	return add_kv(h, r->t, with_window ? &win : NULL, r->key, kn, v);
}

static void
add(struct hashagg *h, const struct rec *r, int with_window)
{
	CHECK(put(h, r, with_window) == HA_ADDED);
}

/* A stream in input order, times 1/10 of a window apart and up to 3
 * windows early, lateness of half a window (Flink's WindowOperator, no
 * allowed lateness): record i is late when its window ended at or
 * before the largest time before it less the lateness. */
#define LATENESS (SIZE / 2)

static uint64_t
model(long from, long to)
{
	int64_t maxt = INT64_MIN;
	uint64_t late = 0;
	long i;

	for (i = from; i < to; i++) {
		taken[i] = maxt == INT64_MIN ||
		    start_of(recs[i].t) + SIZE > maxt - LATENESS;
		late += !taken[i];
		if (taken[i] && recs[i].t > maxt)
			maxt = recs[i].t;
	}
	return late;
}

static void
stream(struct config *c, struct aggs *g)
{
	struct hashagg *h, *h2;
	struct fired f;
	uint64_t late = 0, late2, fired = 0;
	int64_t by;
	long i;

	for (i = 0; i < N; i++) {
		recs[i].t = i * (SIZE / 10) - (int64_t)unit_below(3 * SIZE);
		snprintf(recs[i].key, sizeof(recs[i].key), "k%d",
		    (int)unit_below(30));
		recs[i].kn = strlen(recs[i].key);
		recs[i].v = i % 100;
	}
	late = model(0, N);
	CHECK(late > 100 && late < N / 2);
	/* one table: late as the model says, rows fired early in order
	 * (on_row checks) and the rest at the end, each group once */
	h = hashagg_new(c, g, (uint64_t)1 << 30);
	hashagg_stream(h, LATENESS);
	memset(&f, 0, sizeof(f));
	f.cells = out_open_mem();
	for (i = 0; i < N; i++) {
		CHECK(put(h, &recs[i], i % 2) ==
		    (taken[i] ? HA_ADDED : HA_LATE));
		fired += hashagg_fire_due(h, i % 500 == 0, INT64_MIN, on_row,
		    &f);
	}
	CHECK(fired > 0 && fired == f.n);	/* (some fired early) */
	fired += hashagg_fire(h, NULL, on_row, &f);
	CHECK(fired == f.n);
	CHECK(f.bad == 0);
	CHECK(f.count == N - late);
	hashagg_free(h);
	out_close(f.cells);

	/* in two parts (split.h): the second's ledger says which of its
	 * records the first's watermark makes late; the same rows */
	h = hashagg_new(c, g, (uint64_t)1 << 30);
	h2 = hashagg_new(c, g, (uint64_t)1 << 30);
	hashagg_stream(h, LATENESS);
	hashagg_stream(h2, LATENESS);
	hashagg_ledger(h2);
	hashagg_look_ahead(h2);
	for (i = 0; i < N; i++)
		(void)put(i < N / 2 ? h : h2, &recs[i], 0);
	late2 = hashagg_drop_ended(h2, hashagg_watermark(h), &by);
	CHECK(late2 == late - model(0, N / 2));
	CHECK(by > LATENESS && by < 4 * SIZE);
	(void)model(0, N);
	memset(&f, 0, sizeof(f));
	f.cells = out_open_mem();
	CHECK(hashagg_fire(h, h2, on_row, &f) == f.n);
	CHECK(f.bad == 0);
	CHECK(f.count == N - late);
	out_close(f.cells);
	hashagg_free(h);
	hashagg_free(h2);
}

/* The look-ahead starts once the table is past what the cache holds
 * (16 MB): 300000 groups of a stream, keys whose first 8 bytes agree;
 * every record counted once, rows in order, each group once. */
struct totals {
	uint64_t rows, count, bad;
	int64_t last_start;
	long last_key;
	struct out *cells;
};

static void
on_total(void *arg, const struct op_row *row)
{
	struct totals *t = arg;
	char buf[40];
	long k;

	memcpy(buf, row->key, row->keylen);
	buf[row->keylen] = '\0';
	k = strtol(buf + 11, NULL, 10);
	if (t->rows > 0 && (row->start < t->last_start ||
	    (row->start == t->last_start && k <= t->last_key)))
		t->bad++;
	t->last_start = row->start;
	t->last_key = k;
	t->rows++;
	out_mem_clear(t->cells);
	aggs_emit(row->g, row->a, row->acc, t->cells);
	t->count += (uint64_t)cell(t->cells, 0);
}

static void
big_table(struct config *c, struct aggs *g)
{
	enum { NB = 600000, KEYS = 300000 };
	struct hashagg *h = hashagg_new(c, g, (uint64_t)1 << 30);
	struct totals t;
	struct rec r;
	uint64_t groups, peak, fired = 0;
	long i;

	/* (a lateness that keeps every window open: 600000 groups) */
	hashagg_stream(h, 1000 * SIZE);
	hashagg_look_ahead(h);
	memset(&t, 0, sizeof(t));
	t.cells = out_open_mem();
	for (i = 0; i < NB; i++) {
		/* keys in an order that sorts as numbers: zero-padded */
		snprintf(r.key, sizeof(r.key), "longprefix-%06ld",
		    (i * 7919) % KEYS);
		r.t = (int64_t)(i / 1000) * SIZE / 10;
		r.v = 1;
		CHECK(put(h, &r, 0) == HA_ADDED);
		fired += hashagg_fire_due(h, 0, INT64_MIN, on_total, &t);
	}
	hashagg_size(h, &groups, &peak);
	CHECK(peak > ((uint64_t)16 << 20));
	fired += hashagg_fire(h, NULL, on_total, &t);
	CHECK(fired == t.rows);
	CHECK(t.count == NB);
	CHECK(t.bad == 0);
	out_close(t.cells);
	hashagg_free(h);
}

int
main(void)
{
	struct config c;
	struct aggspec a[2];
	struct aggs *g;
	struct hashagg *h;
	struct fired f;
	struct aval v[2];
	uint64_t groups, peak;
	long i;

	memset(&c, 0, sizeof(c));
	memset(a, 0, sizeof(a));
	a[0].op = agg_lookup("count");
	a[1].op = agg_lookup("sum");
	a[1].f.idx = 2;
	c.aggs = a;
	c.naggs = 2;
	c.nkeys = 1;
	c.has_time = 1;
	c.wkind = WK_TUMBLE;
	c.size = c.step = SIZE;
	g = aggs_new(&c);
	CHECK(hashagg_fits(&c, g));
	unit_rstate = 0x6a09e667f3bcc908ull;
	for (i = 0; i < N; i++) {
		make(i, &recs[i]);
		recs[i].kn = strlen(recs[i].key);
		taken[i] = 1;
	}

	h = hashagg_new(&c, g, (uint64_t)1 << 30);
	for (i = 0; i < N; i++)	/* half with the reading thread's window */
		add(h, &recs[i], i % 2);
	memset(&f, 0, sizeof(f));
	f.cells = out_open_mem();
	CHECK(hashagg_fire(h, NULL, on_row, &f) == f.n);
	hashagg_size(h, &groups, &peak);
	CHECK(f.n == groups && f.n > 1000 && f.n < N);
	CHECK(f.bad == 0);
	CHECK(f.count == N);
	CHECK(peak > 0);
	hashagg_free(h);
	out_close(f.cells);

	/* two tables of two parts of the input (split.h), one with the
	 * look-ahead, one sorted before: the same rows */
	{
		struct hashagg *h2 = hashagg_new(&c, g, (uint64_t)1 << 30);

		h = hashagg_new(&c, g, (uint64_t)1 << 30);
		hashagg_look_ahead(h2);
		for (i = 0; i < N; i++)
			add(i < N / 3 ? h : h2, &recs[i], 0);
		hashagg_sort(h2);
		memset(&f, 0, sizeof(f));
		f.cells = out_open_mem();
		CHECK(hashagg_fire(h, h2, on_row, &f) == f.n);
		CHECK(f.n == groups);	/* as one table had */
		CHECK(f.bad == 0);
		CHECK(f.count == N);
		out_close(f.cells);
		hashagg_free(h);
		hashagg_free(h2);
	}

	/* a sum's value with an exponent is exact too: order cannot show */
	h = hashagg_new(&c, g, (uint64_t)1 << 30);
	memset(v, 0, sizeof(v));
	v[1].p = "1e3";
	v[1].n = 3;
	v[1].d = 1000;
	v[1].is_dec = dec_read("1e3", 3, &v[1].dec) == 0;
	CHECK(v[1].is_dec && v[1].dec.exp);
	CHECK(add_kv(h, 5, NULL, "k", 1, v) == HA_ADDED);
	/* a window past the end of int64: bad */
	v[1].p = "1";
	v[1].n = 1;
	v[1].is_dec = dec_parse("1", 1, &v[1].dec) == 0;
	CHECK(add_kv(h, INT64_MAX - 10, NULL, "k", 1, v) == HA_RANGE);
	hashagg_free(h);

	/* a table past its budget takes no new group, and says so */
	h = hashagg_new(&c, g, 64 * 1024);
	for (i = 0; i < N; i++) {
		size_t kn = strlen(recs[i].key);

		if (add_kv(h, (int64_t)i * SIZE, NULL, recs[i].key, kn, v) ==
		    HA_FULL)
			break;
	}
	CHECK(i < N);
	hashagg_size(h, &groups, &peak);
	CHECK(groups == (uint64_t)i);
	hashagg_free(h);

	stream(&c, g);
	big_table(&c, g);
	padded_keys(&c, g);
	aggs_free(g);
	return unit_done("test_hashagg");
}
