/* Unit tests for --increase and --rate (aggcounter.c): random counters
 * (small integers and quarters, whose sums are exact as doubles, with
 * resets and equal times) are cut into panes by time and added in a
 * random order of arrival (stream mode: values kept) or in time order
 * (batch mode: none kept); each window of consecutive panes, folded with
 * the values before it (the panes before it, or the key's block of
 * dropped panes), must print the increase reckoned here from the values
 * sorted by (time, arrival), and the rate over the window's length.
 * Panes merged pairwise (sessions) give the same bytes. The checks of a
 * restored arena accept every accumulator and key block, and releasing
 * them gives back every byte. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "window/agg.h"
#include "base/num.h"
#include "io/output.h"
#include "memout.h"
#include "unit.h"

#define MAXV	60
#define NPANE	6
#define PANE	10		/* time units per pane */

struct v {
	int64_t t;
	uint64_t seq;
	char text[16];
	double d;
};

static int
by_time(const void *a, const void *b)
{
	const struct v *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The increase of the sorted values v[0..n) with time in [lo, hi): from
 * the last value before lo; *seen tells whether any lay inside. */
static double
reckon(const struct v *v, int n, int64_t lo, int64_t hi, int *seen)
{
	double inc = 0, prev = 0;
	int has = 0, i;

	*seen = 0;
	for (i = 0; i < n && v[i].t < hi; i++) {
		if (v[i].t >= lo) {
			if (has)
				inc += v[i].d < prev ? v[i].d : v[i].d - prev;
			*seen = 1;
		}
		prev = v[i].d;
		has = 1;
	}
	return inc;
}

/* Emits the fold as "increase,rate" text in buf. */
static void
emit(struct aggs *g, struct arena *a, struct memout *m, char *buf, size_t cap)
{
	aggs_emit(g, a, NULL, m->o);
	out_end_row(m->o);
	mo_take(m, buf, cap);
}

static void
trial(int ordered)
{
	static struct v vals[MAXV], sorted[MAXV];
	static const char *const cols[] = { "increase_v", "rate_v" };
	struct aggspec specs[2];
	struct config c;
	struct aggs *g;
	struct arena a;
	struct aval av[2];
	struct memout m;
	aoff pane[NPANE], kb;
	int order[NPANE];
	char got[256], want[256], nb[64];
	int n = 1 + (int)unit_below(MAXV), i, j, lo, hi, seen;
	double cnt = 0, inc;
	uint64_t live0;

	memset(specs, 0, sizeof(specs));
	specs[0].op = agg_lookup("increase");
	specs[1].op = agg_lookup("rate");
	specs[0].f.spec = specs[0].f.name = specs[1].f.spec = "v";
	specs[1].f.name = "v";
	memset(&c, 0, sizeof(c));
	c.aggs = specs;
	c.naggs = 2;
	g = aggs_new(&c);
	aggs_set_ordered(g, ordered);
	CHECK(aggs_keysize(g) == 2 * 56);
	for (i = 0; i < n; i++) {	/* a counter with resets */
		if (unit_below(8) == 0)
			cnt = (double)unit_below(3);
		else
			cnt += (double)unit_below(5) + (unit_below(3) == 0 ? 0.25 : 0);
		vals[i].t = (int64_t)unit_below(NPANE * PANE / 2) * 2;
		vals[i].d = cnt;
		snprintf(vals[i].text, sizeof(vals[i].text), "%.2f", cnt);
	}
	if (ordered)		/* batch mode: arrival is time order */
		qsort(vals, (size_t)n, sizeof(vals[0]), by_time);
	for (i = 0; i < n; i++)
		vals[i].seq = (uint64_t)i;
	memcpy(sorted, vals, sizeof(vals));
	qsort(sorted, (size_t)n, sizeof(sorted[0]), by_time);

	CHECK(arena_init(&a) == 0);
	live0 = arena_hdr(&a)->ah_live;
	kb = arena_alloc(&a, aggs_keysize(g));
	memset(arena_ptr(&a, kb), 0, aggs_keysize(g));
	for (j = 0; j < NPANE; j++) {
		pane[j] = arena_alloc(&a, aggs_accsize(g));
		memset(arena_ptr(&a, pane[j]), 0, aggs_accsize(g));
	}
	for (i = 0; i < n; i++) {
		memset(av, 0, sizeof(av));
		av[0].p = av[1].p = vals[i].text;
		av[0].n = av[1].n = strlen(vals[i].text);
		av[0].d = av[1].d = vals[i].d;
		aggs_add_at(g, &a, pane[vals[i].t / PANE], av, vals[i].seq,
		    vals[i].t);
	}
	mo_open(&m, cols, 2);
	/* windows [lo, hi) of panes, the panes before lo kept */
	for (lo = 0; lo < NPANE; lo++)
		for (hi = lo + 1; hi <= NPANE; hi++) {
			aggs_fold_begin(g);
			for (j = lo; j < hi; j++)
				aggs_fold(g, &a, pane[j]);
			for (j = 0; j < lo; j++)
				aggs_fold_prior(g, &a, NULL, pane[j]);
			aggs_fold_span(g, (int64_t)(hi - lo) * PANE * 1000000000);
			emit(g, &a, &m, got, sizeof(got));
			inc = reckon(sorted, n, lo * PANE, hi * PANE, &seen);
			if (!seen)
				snprintf(want, sizeof(want), "{\"increase_v\":null,\"rate_v\":null}\n");
			else {
				num_format_double(nb, inc / ((hi - lo) * PANE));
				snprintf(want, sizeof(want), "{\"increase_v\":%.10g,\"rate_v\":%s}\n",
				    inc, nb);
			}
			CHECK_STR(got, want);
		}
	/* the panes dropped in turn: the key's block remembers the last */
	for (lo = 0; lo < NPANE - 1; lo++) {
		aggs_carry(g, &a, arena_ptr(&a, kb), pane[lo]);
		aggs_fold_begin(g);
		aggs_fold(g, &a, pane[lo + 1]);
		aggs_fold_prior(g, &a, arena_ptr(&a, kb), 0);
		aggs_fold_span(g, -1);
		emit(g, &a, &m, got, sizeof(got));
		inc = reckon(sorted, n, (lo + 1) * PANE, (lo + 2) * PANE, &seen);
		if (!seen)
			snprintf(want, sizeof(want), "{\"increase_v\":null,\"rate_v\":null}\n");
		else
			snprintf(want, sizeof(want), "{\"increase_v\":%.10g,\"rate_v\":null}\n", inc);
		CHECK_STR(got, want);
	}
	CHECK(aggs_key_check(g, arena_ptr(&a, kb)) == NULL);
	CHECK(aggs_key_held(g, arena_ptr(&a, kb)) == (n > 0 &&
	    sorted[0].t < (NPANE - 1) * PANE));
	/* sessions: the panes merged into the first, in any order where
	 * values are kept, are the whole */
	for (j = 1; j < NPANE; j++)
		order[j] = j;
	/* (without value lists, sessions merge their neighbours only) */
	for (j = NPANE - 1; j > 1 && !ordered; j--) {
		int t = order[j];

		i = 1 + (int)unit_below((uint64_t)j);
		order[j] = order[i];
		order[i] = t;
	}
	for (j = 1; j < NPANE; j++)
		aggs_merge(g, &a, pane[0], pane[order[j]]);
	aggs_fold_begin(g);
	aggs_fold(g, &a, pane[0]);
	aggs_fold_span(g, 1000000000);
	emit(g, &a, &m, got, sizeof(got));
	inc = reckon(sorted, n, 0, NPANE * PANE, &seen);
	num_format_double(nb, inc);
	snprintf(want, sizeof(want), "{\"increase_v\":%.10g,\"rate_v\":%s}\n",
	    inc, nb);
	CHECK_STR(got, want);
	mo_close(&m);
	{
		struct arena_claims cl;

		CHECK(arena_claims_init(&cl, arena_hdr(&a)->ah_used) == 0);
		CHECK(aggs_check(g, &a, pane[0], &cl) == NULL);
		arena_claims_free(&cl);
	}
	for (j = 0; j < NPANE; j++) {
		aggs_release(g, &a, pane[j]);
		arena_free(&a, pane[j], aggs_accsize(g));
	}
	arena_free(&a, kb, aggs_keysize(g));
	CHECK(arena_hdr(&a)->ah_live == live0);
	arena_fini(&a);
	aggs_free(g);
}

int
main(void)
{
	int t;

	unit_rstate = 0xC0FFEE1234567ull;
	for (t = 0; t < 300; t++) {
		trial(0);
		trial(1);
	}
	return unit_done("counter");
}
