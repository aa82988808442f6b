/* Unit tests for the kept folds of sliding windows (slide.c). A key's
 * panes hold count, sum, min, max, first, last, min-by and max-by
 * accumulators; for many windows, queried in random order and in the
 * operator's order, with records added between queries (to new panes and
 * to panes inside a kept range, followed by slide_touch) and expired
 * panes freed, and for count windows over arrival numbers, slide_fold's
 * result must be the bytes of folding the window's panes one by one. See
 * the man page's sliding windows. */

#include <sys/mman.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "window/agg.h"
#include "base/decimal.h"
#include "io/keycodec.h"
#include "base/num.h"
#include "io/output.h"
#include "window/slide.h"
#include "window/state.h"
#include "memout.h"
#include "unit.h"

static int64_t
range(int64_t lo, int64_t hi)	/* in [lo, hi) */
{
	return lo + (int64_t)(unit_rnd() % (uint64_t)(hi - lo));
}

static int64_t
floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return q * b > a ? q - 1 : q;
}

static int64_t
gcd(int64_t a, int64_t b)
{
	while (b != 0) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* --- the aggregates --- */

static const char *const names[] = {
	"count", "sum", "min", "max", "first", "last", "min-by", "max-by",
	"avg",
};
#define NAGG (sizeof(names) / sizeof(names[0]))

static struct aggspec specs[NAGG];
static const char *cols[NAGG];
static struct config cfg;

static struct aggs *
make_aggs(size_t n)
{
	size_t i;

	memset(&cfg, 0, sizeof(cfg));
	for (i = 0; i < n; i++) {
		memset(&specs[i], 0, sizeof(specs[i]));
		specs[i].op = agg_lookup(names[i]);
		CHECK(specs[i].op != NULL);
		specs[i].f.spec = specs[i].f.name = "v";
		if (specs[i].op->flags & AGF_OUT) {
			specs[i].out.spec = specs[i].out.name = "o";
			specs[i].out.idx = 1;
			specs[i].has_out = 1;
		}
		cols[i] = specs[i].op->column;
	}
	cfg.aggs = specs;
	cfg.naggs = n;
	return aggs_new(&cfg);
}

/* A record: integers (ties among them) and quarters, whose sums are exact
 * in any order, and some NULLs. */
static void
add_record(struct aggs *g, struct state *s, aoff p, uint64_t seq)
{
	struct aval v[NAGG];
	char text[32], out[32];
	struct num nu;
	size_t i;

	switch (unit_rnd() % 6) {
	case 0:
		text[0] = '\0';
		break;
	case 1:
		snprintf(text, sizeof(text), "%d.%s", (int)range(-9, 10),
		    unit_rnd() % 2 ? "25" : "5");
		break;
	default:
		snprintf(text, sizeof(text), "%d", (int)range(-20, 21));
		break;
	}
	snprintf(out, sizeof(out), "r%llu", (unsigned long long)seq);
	memset(&nu, 0, sizeof(nu));
	if (text[0] != '\0')
		CHECK(num_parse(text, strlen(text), &nu) == 0);
	for (i = 0; i < NAGG; i++) {
		memset(&v[i], 0, sizeof(v[i]));
		if (text[0] == '\0')
			continue;
		v[i].p = text;
		v[i].n = strlen(text);
		v[i].d = nu.d;
		v[i].is_dec = dec_parse(text, v[i].n, &v[i].dec) == 0;
		v[i].out = out;
		v[i].outn = strlen(out);
	}
	aggs_add(g, &s->a, st_acc(p), v, seq);
}

/* --- one grid --- */

struct grid {
	int64_t size, step, offset, pane;
	struct aggs *g;
	struct state s;
	struct slide sl;
	struct slide_kept kk;
	aoff k;
	uint64_t seq;
	struct memout m;
	long windows, kept_used;
	int failures;
};

static void
grid_init(struct grid *w, int64_t size, int64_t step, int64_t offset)
{
	int created;

	memset(w, 0, sizeof(*w));
	w->size = size;
	w->step = step;
	w->offset = offset;
	w->pane = gcd(size, step);
	w->g = make_aggs(NAGG);
	CHECK(slide_worth(w->g, size / w->pane) == (size / w->pane > 2));
	CHECK(st_init(&w->s, 2 * aggs_accsize(w->g), 8, 8) == 0);
	slide_init(&w->sl, w->g, size, offset);
	CHECK(w->sl.accsize == aggs_accsize(w->g));
	w->k = st_key(&w->s, "k", 1, key_hash("k", 1), &created);
	CHECK(w->k != 0 && created);
	mo_open(&w->m, cols, NAGG);
}

static void
grid_fini(struct grid *w)
{
	aoff p;

	while ((p = st_keyp(&w->s, w->k)->k_head) != 0) {
		aggs_release(w->g, &w->s.a, st_acc(p));
		st_pane_free(&w->s, w->k, p);
	}
	mo_close(&w->m);
	st_fini(&w->s);
	aggs_free(w->g);
}

/* Adds a record at time t to its pane (made if new) and tells the kept
 * folds. */
static void
grid_add(struct grid *w, int64_t t)
{
	int64_t ps = floordiv(t - w->offset, w->pane) * w->pane + w->offset;
	int created;
	aoff p = st_pane(&w->s, w->k, ps, &created);

	add_record(w->g, &w->s, p, w->seq++);
	slide_touch(&w->kk, ps);
}

/* The window starting at start, through slide_fold given first (0: the
 * window's first pane), and pane by pane. */
static void
grid_query_from(struct grid *w, int64_t start, aoff given)
{
	static char want[4096], got[4096];
	struct state *s = &w->s;
	struct slide_kept before = w->kk;
	aoff first = st_first_pane(s, w->k, start), p;

	slide_fold(&w->sl, s, w->k, &w->kk, start, given ? given : first);
	aggs_emit(w->g, &s->a, NULL, w->m.o);
	out_end_row(w->m.o);
	mo_take(&w->m, got, sizeof(got));

	aggs_fold_begin(w->g);
	for (p = first; p != 0 && st_panep(s, p)->p_start < start + w->size;
	    p = st_panep(s, p)->p_next)
		aggs_fold(w->g, &s->a, st_acc(p));
	aggs_emit(w->g, &s->a, NULL, w->m.o);
	out_end_row(w->m.o);
	mo_take(&w->m, want, sizeof(want));

	w->windows++;
	if (before.pivot == w->kk.pivot && before.lo != before.hi)
		w->kept_used++;
	if (strcmp(want, got) != 0 && w->failures++ < 5)
		fprintf(stderr, "size %lld step %lld offset %lld, window "
		    "[%lld, %lld), kept [%lld, %lld, %lld) before:\n"
		    "  want %s  got  %s", (long long)w->size,
		    (long long)w->step, (long long)w->offset, (long long)start,
		    (long long)(start + w->size), (long long)before.lo,
		    (long long)before.pivot, (long long)before.hi, want, got);
}

static void
grid_query(struct grid *w, int64_t start)
{
	grid_query_from(w, start, 0);
}

/* Windows in random order over a fixed stretch of time, records added
 * anywhere in it between them. */
static int
random_order(int64_t size, int64_t step, int64_t offset)
{
	struct grid w;
	int64_t lo = offset - 3 * size, hi = offset + 6 * size;
	int i, n = 150 + (int)(unit_rnd() % 150);

	grid_init(&w, size, step, offset);
	for (i = 0; i < 30; i++)
		grid_add(&w, range(lo, hi));
	for (i = 0; i < n; i++) {
		if (unit_rnd() % 3 == 0) {
			int j, nadd = 1 + (int)(unit_rnd() % 3);

			for (j = 0; j < nadd; j++)
				grid_add(&w, range(lo, hi));
		} else {
			/* the windows that hold some of [lo, hi) */
			int64_t j0 = floordiv(lo - size - offset, step) + 1,
			    j1 = floordiv(hi - offset, step) + 1;

			grid_query(&w, offset + range(j0, j1) * step);
		}
	}
	grid_fini(&w);
	return w.failures;
}

/* The operator's order: windows one after the other, records arriving
 * for the next (and late ones for panes still kept), panes freed once no
 * window to come holds them. */
static int
in_order(int64_t size, int64_t step, int64_t offset)
{
	struct grid w;
	int64_t start = offset + range(-5, 5) * step, j;
	aoff p;
	int i;

	grid_init(&w, size, step, offset);
	for (j = 0; j < 120; j++) {
		int64_t end = start + size;
		int nadd = (int)(unit_rnd() % 4);

		for (i = 0; i < nadd; i++) {
			if (unit_rnd() % 4 == 0)	/* late: into the window */
				grid_add(&w, range(start, end));
			else			/* the newest step */
				grid_add(&w, range(end - step > start ?
				    end - step : start, end));
		}
		grid_query(&w, start);
		start += step;
		/* panes before the next window are no longer needed */
		while ((p = st_keyp(&w.s, w.k)->k_head) != 0 &&
		    st_panep(&w.s, p)->p_start < start) {
			aggs_release(w.g, &w.s.a, st_acc(p));
			st_pane_free(&w.s, w.k, p);
		}
	}
	CHECK(w.kept_used > 0 || step >= size);
	grid_fini(&w);
	return w.failures;
}

/* Count windows the way the operator keeps them: panes of gcd(N, SLIDE)
 * arrivals, a window [n - N, n) folded from the key's first pane each
 * time n is a multiple of SLIDE, and the panes before the next window
 * freed after each record. */
static int
arrivals(int64_t n_, int64_t slide)
{
	struct grid w;
	int64_t n, keep_from;
	aoff p;

	grid_init(&w, n_, slide, 0);
	for (n = 1; n <= 40 * slide + 3 * n_; n++) {
		/* arrival n - 1; now and then a record for an earlier pane
		 * still kept */
		grid_add(&w, n - 1);
		if (unit_rnd() % 8 == 0 && st_keyp(&w.s, w.k)->k_head != 0)
			grid_add(&w, range(st_panep(&w.s,
			    st_keyp(&w.s, w.k)->k_head)->p_start, n));
		if (n % slide == 0)
			grid_query_from(&w, n - n_, st_keyp(&w.s, w.k)->k_head);
		keep_from = (n / slide + 1) * slide - n_;
		while ((p = st_keyp(&w.s, w.k)->k_head) != 0 &&
		    st_panep(&w.s, p)->p_start < keep_from) {
			aggs_release(w.g, &w.s.a, st_acc(p));
			st_pane_free(&w.s, w.k, p);
		}
	}
	CHECK(w.kept_used > 0 || slide >= n_);	/* a cut per window */
	grid_fini(&w);
	return w.failures;
}

static void
test_fixed(void)
{
	struct grid w;
	int64_t t;

	/* --slide 4,1: panes of 1, cut at the multiples of 4 */
	grid_init(&w, 4, 1, 0);
	for (t = 0; t < 8; t++)
		grid_add(&w, t);
	grid_query(&w, 2);	/* [2, 6): suffix of 2..3, prefix of 4..5 */
	CHECK(w.kk.pivot == 4 && w.kk.lo == 2 && w.kk.hi == 6);
	grid_query(&w, 3);	/* [3, 7): kept, extended to 6 */
	CHECK(w.kk.pivot == 4 && w.kk.lo == 2 && w.kk.hi == 7);
	/* a record at 5 spoils the prefixes from 5; at 2, suffixes to 2 */
	grid_add(&w, 5);
	CHECK(w.kk.hi == 5);
	grid_add(&w, 2);
	CHECK(w.kk.lo == 3);
	grid_add(&w, 100);	/* past what is kept: nothing */
	CHECK(w.kk.lo == 3 && w.kk.pivot == 4 && w.kk.hi == 5);
	grid_query(&w, 1);
	CHECK(w.kk.lo == 1 && w.kk.hi == 5);
	grid_query(&w, 4);	/* [4, 8): a cut at 8 */
	CHECK(w.kk.pivot == 8);
	CHECK(w.failures == 0);
	/* an empty window: nothing folded, nothing kept changes */
	grid_query(&w, 50);
	CHECK(w.kk.pivot == 8);
	CHECK(w.failures == 0);
	grid_fini(&w);

	/* slide_touch by itself */
	{
		struct slide_kept kk = { 10, 20, 30 };

		slide_touch(&kk, 30);
		CHECK(kk.lo == 10 && kk.pivot == 20 && kk.hi == 30);
		slide_touch(&kk, 25);
		CHECK(kk.hi == 25);
		slide_touch(&kk, 20);
		CHECK(kk.hi == 20 && kk.lo == 10);
		slide_touch(&kk, 12);
		CHECK(kk.lo == 13);
		slide_touch(&kk, 5);
		CHECK(kk.lo == 13 && kk.pivot == 20 && kk.hi == 20);
		slide_forget(&kk);
		CHECK(kk.lo == 0 && kk.pivot == 0 && kk.hi == 0);
	}
	/* --distinct is folded pane by pane */
	{
		struct aggspec d;
		struct config c;
		struct aggs *g;

		memset(&d, 0, sizeof(d));
		memset(&c, 0, sizeof(c));
		d.op = agg_lookup("distinct");
		c.aggs = &d;
		c.naggs = 1;
		g = aggs_new(&c);
		CHECK(!aggs_keepable(g));
		CHECK(!slide_worth(g, 100));
		aggs_free(g);
	}
}

static void
test_random(void)
{
	int i, bad = 0;

	for (i = 0; i < 120; i++) {
		int64_t step = 1 + (int64_t)(unit_rnd() % 6), size, offset;

		/* sizes of 3 panes or more; some not a multiple of the step */
		size = unit_rnd() % 3 ? step * (3 + (int64_t)(unit_rnd() % 8)) :
		    3 + (int64_t)(unit_rnd() % 30);
		offset = unit_rnd() % 3 ? 0 : range(-50, 50);
		if (size / gcd(size, step) < 3)
			size = 3 * step;
		bad += random_order(size, step, offset) != 0;
		bad += in_order(size, step, offset) != 0;
	}
	CHECK(bad == 0);
	for (i = 0, bad = 0; i < 60; i++) {
		int64_t slide = 1 + (int64_t)(unit_rnd() % 7), n;

		n = unit_rnd() % 2 ? slide * (3 + (int64_t)(unit_rnd() % 6)) :
		    3 + (int64_t)(unit_rnd() % 25);
		if (n / gcd(n, slide) < 3)
			n = 3 * slide;
		bad += arrivals(n, slide) != 0;
	}
	CHECK(bad == 0);
}

int
main(void)
{
	unit_rstate = 0xBF58476D1CE4E5B9ull;
	test_fixed();
	test_random();
	return unit_done("slide");
}
