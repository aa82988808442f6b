/* Unit tests for the aggregate table (agg.c). For every entry of the
 * table (agg_at(i) until NULL: a new entry is covered without a change
 * here), and for all of them at once: random values (numbers, NULLs,
 * ties, one value written several ways) are added to one accumulator, and
 * split into random slices added each to its own; the one accumulator
 * emitted must give the bytes of (a) the slices folded in order, (b) in
 * another order, (c) the slices merged pairwise with aggs_merge and the
 * result folded, (d) the fold kept as a block and folded again. Arrival
 * numbers are those of the whole input, so ties and first/last are
 * decided the same way. Every accumulator passes the check of a restored
 * arena, and releasing them all gives back every byte of the arena. A
 * few fixed inputs check the results themselves (see the man page's
 * AGGREGATES), and aggs_extract reads a record's fields. */

#include <sys/mman.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "window/agg.h"
#include "base/decimal.h"
#include "base/num.h"
#include "io/output.h"
#include "memout.h"
#include "unit.h"

/* --- records --- */

#define MAXREC	80
#define MAXSLICE 9
#define MAXAGG	32

struct rec {
	char text[32];		/* "" is NULL */
	char out[16];		/* min-by / max-by OUT */
	struct num nu;
};

/* A random value: mostly small integers (ties), some NULLs, fractions in
 * quarters (their sums are exact in any order), large integers, one value
 * written several ways, and, when words is set, text that is no number. */
static void
rnd_value(struct rec *r, int words)
{
	static const char *const ways[] = {
		"2.5", "2.50", "+2.5", "25e-1", "0", "-0", "0.0", "1", "1.0",
		"01", "-3", "-3.00",
	};

	switch (unit_below(words ? 10 : 9)) {
	case 0:
		r->text[0] = '\0';
		break;
	case 1:
	case 2:
	case 3:
	case 4:
		snprintf(r->text, sizeof(r->text), "%d", (int)unit_below(11) - 5);
		break;
	case 5:
		snprintf(r->text, sizeof(r->text), "%d.%s", (int)unit_below(21) - 10,
		    unit_below(2) ? "25" : unit_below(2) ? "5" : "75");
		break;
	case 6:
		snprintf(r->text, sizeof(r->text), "%lld",
		    (long long)unit_below(2000000000001ull) - 1000000000000ll);
		break;
	case 7:
	case 8:
		snprintf(r->text, sizeof(r->text), "%s",
		    ways[unit_below(sizeof(ways) / sizeof(ways[0]))]);
		break;
	default:
		snprintf(r->text, sizeof(r->text), "w%d", (int)unit_below(6));
		break;
	}
	if (r->text[0] != '\0' && num_parse(r->text, strlen(r->text),
	    &r->nu) != 0)
		memset(&r->nu, 0, sizeof(r->nu));
}

/* The values of record r for aggregates specs[0..n). */
static void
fill_vals(const struct aggspec *specs, size_t n, const struct rec *r,
    struct aval *vals)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct aval *v = &vals[i];

		memset(v, 0, sizeof(*v));
		if (!(specs[i].op->flags & AGF_FIELD) || r->text[0] == '\0')
			continue;
		v->p = r->text;
		v->n = strlen(r->text);
		v->d = r->nu.d;
		/* as aggs_extract does: plain decimals are kept exact */
		v->is_dec = dec_parse(v->p, v->n, &v->dec) == 0;
		v->out = r->out;
		v->outn = strlen(r->out);
	}
}

/* --- one trial --- */

struct setup {
	struct aggspec specs[MAXAGG];
	const char *cols[MAXAGG * 2];
	size_t n, ncols;
	struct config c;
	struct aggs *g;
	int words;		/* may values be non-numbers */
	const char *name;
};

static void
setup_add(struct setup *s, const struct aggop *op)
{
	struct aggspec *sp = &s->specs[s->n];
	size_t i;

	memset(sp, 0, sizeof(*sp));
	sp->op = op;
	sp->f.spec = sp->f.name = "v";
	sp->f.idx = 0;
	if (op->flags & AGF_OUT) {
		sp->out.spec = sp->out.name = "o";
		sp->out.idx = 1;
		sp->has_out = 1;
	}
	if (op->flags & AGF_HIST) {	/* buckets the values fall in */
		static struct hist_bound b[] = {
			{ -3, "-3" }, { 0, "0" }, { 2.5, "2.5" }, { 1e9, "1e9" },
		};

		sp->bounds = b;
		sp->nbounds = sizeof(b) / sizeof(b[0]);
	}
	s->cols[s->ncols++] = op->column;
	for (i = 1; i < agg_ncols(sp); i++)
		s->cols[s->ncols++] = op->column;
	s->n++;
}

static void
setup_done(struct setup *s)
{
	size_t i;

	memset(&s->c, 0, sizeof(s->c));
	s->c.aggs = s->specs;
	s->c.naggs = s->n;
	s->g = aggs_new(&s->c);
	s->words = 1;
	for (i = 0; i < s->n; i++)
		if (s->specs[i].op->flags & AGF_NUMBER)
			s->words = 0;
}

static int trial_failures;

static void
report(const struct setup *s, const char *what, const char *want,
    const char *got)
{
	if (trial_failures++ < 10)
		fprintf(stderr, "%s: %s:\n  want %s  got  %s", s->name, what,
		    want, got);
}

static void
fold_emit(struct setup *s, struct arena *a, const aoff *accs, const int *order,
    int n, struct out *o)
{
	int i;

	aggs_fold_begin(s->g);
	for (i = 0; i < n; i++)
		aggs_fold(s->g, a, accs[order != NULL ? order[i] : i]);
	aggs_emit(s->g, a, NULL, o);
	out_end_row(o);
}

/* Returns 0 when every way gave the same bytes and every byte came back. */
static int
trial(struct setup *s, struct memout *m)
{
	static struct rec recs[MAXREC];
	static char want[8192], got[8192];
	struct aval vals[MAXAGG];
	aoff all, sl[MAXSLICE], mg[MAXSLICE];
	int slice_of[MAXREC], order[MAXSLICE];
	int nrec = (int)unit_below(MAXREC), nslice = 1 + (int)unit_below(MAXSLICE);
	int contiguous = unit_below(3) == 0, i, k, left, bad = 0;
	size_t accsize = aggs_accsize(s->g);
	struct arena a;
	uint64_t live0;

	for (i = 0; i < nrec; i++) {
		rnd_value(&recs[i], s->words);
		snprintf(recs[i].out, sizeof(recs[i].out), "o%d", i);
		/* slices of arrivals, as panes; or any split, as sessions
		 * that merge */
		slice_of[i] = contiguous ? (int)((int64_t)i * nslice / nrec) :
		    (int)unit_below((uint64_t)nslice);
	}
	CHECK(arena_init(&a) == 0);
	live0 = arena_hdr(&a)->ah_live;

	/* all records in one accumulator, then in slices, twice */
	all = arena_alloc(&a, accsize);
	for (k = 0; k < nslice; k++) {
		sl[k] = arena_alloc(&a, accsize);
		mg[k] = arena_alloc(&a, accsize);
	}
	for (i = 0; i < nrec; i++) {
		fill_vals(s->specs, s->n, &recs[i], vals);
		aggs_add(s->g, &a, all, vals, (uint64_t)i);
		aggs_add(s->g, &a, sl[slice_of[i]], vals, (uint64_t)i);
		aggs_add(s->g, &a, mg[slice_of[i]], vals, (uint64_t)i);
	}
	fold_emit(s, &a, &all, NULL, 1, m->o);
	mo_take(m, want, sizeof(want));

	/* (a) the slices folded in order */
	fold_emit(s, &a, sl, NULL, nslice, m->o);
	mo_take(m, got, sizeof(got));
	if (strcmp(want, got) != 0) {
		report(s, "slices folded", want, got);
		bad++;
	}
	/* (b) in a random order */
	for (k = 0; k < nslice; k++)
		order[k] = k;
	for (k = nslice - 1; k > 0; k--) {
		int j = (int)unit_below((uint64_t)k + 1), t = order[k];

		order[k] = order[j];
		order[j] = t;
	}
	fold_emit(s, &a, sl, order, nslice, m->o);
	mo_take(m, got, sizeof(got));
	if (strcmp(want, got) != 0) {
		report(s, "slices folded in another order", want, got);
		bad++;
	}
	/* (d) the fold kept as a block (as sliding windows keep partial
	 * folds) and folded again by itself */
	if (aggs_keepable(s->g)) {
		aoff kept = arena_alloc(&a, accsize);

		aggs_fold_begin(s->g);
		for (k = 0; k < nslice; k++)
			aggs_fold(s->g, &a, sl[k]);
		/* (not kept: a sum past its fixed width) */
		if (aggs_fold_keep(s->g, &a, kept) == 0) {
			fold_emit(s, &a, &kept, NULL, 1, m->o);
			mo_take(m, got, sizeof(got));
			if (strcmp(want, got) != 0) {
				report(s, "kept fold", want, got);
				bad++;
			}
		}
		/* it names the slices' values: freed, never released */
		arena_free(&a, kept, accsize);
	}
	/* (c) merged two by two, in random pairs, into one */
	for (left = nslice; left > 1; left--) {
		int d = (int)unit_below((uint64_t)left), sr = (int)unit_below(
		    (uint64_t)left - 1);

		if (sr >= d)
			sr++;
		aggs_merge(s->g, &a, mg[d], mg[sr]);
		/* what the source kept moved or was freed: no release */
		arena_free(&a, mg[sr], accsize);
		mg[sr] = mg[left - 1];
	}
	fold_emit(s, &a, mg, NULL, 1, m->o);
	mo_take(m, got, sizeof(got));
	if (strcmp(want, got) != 0) {
		report(s, "slices merged", want, got);
		bad++;
	}

	/* what every accumulator keeps passes the check of a restored
	 * arena, each block claimed once */
	{
		struct arena_claims cl;
		const char *why;

		CHECK(arena_claims_init(&cl, arena_hdr(&a)->ah_used) == 0);
		if ((why = aggs_check(s->g, &a, all, &cl)) == NULL)
			why = aggs_check(s->g, &a, mg[0], &cl);
		for (k = 0; why == NULL && k < nslice; k++)
			why = aggs_check(s->g, &a, sl[k], &cl);
		if (why != NULL) {
			report(s, "check", "NULL\n", why);
			bad++;
		}
		arena_claims_free(&cl);
	}

	/* releasing gives every byte back */
	aggs_release(s->g, &a, all);
	arena_free(&a, all, accsize);
	aggs_release(s->g, &a, mg[0]);
	arena_free(&a, mg[0], accsize);
	for (k = 0; k < nslice; k++) {
		aggs_release(s->g, &a, sl[k]);
		arena_free(&a, sl[k], accsize);
	}
	if (arena_hdr(&a)->ah_live != live0) {
		if (trial_failures++ < 10)
			fprintf(stderr, "%s: %llu bytes left after release\n",
			    s->name, (unsigned long long)(arena_hdr(&a)->ah_live -
			    live0));
		bad++;
	}
	arena_fini(&a);
	return bad;
}

static void
test_table(void)
{
	static struct setup each, every;
	struct memout m;
	const struct aggop *op;
	size_t i, n;
	int t, bad;

	memset(&every, 0, sizeof(every));
	for (i = 0; (op = agg_at(i)) != NULL; i++) {
		CHECK(i < MAXAGG);
		CHECK(agg_lookup(op->option) == op);
		CHECK(op->size % 8 == 0);
		/* counters and histograms add knowing their aggregate */
		CHECK((op->add != NULL || (op->flags & (AGF_PRIOR | AGF_HIST))) &&
		    op->fold != NULL && op->emit != NULL);
		memset(&each, 0, sizeof(each));
		setup_add(&each, op);
		setup_done(&each);
		each.name = op->option;
		CHECK(aggs_accsize(each.g) == ((op->flags & AGF_HIST) ?
		    op->size * (each.specs[0].nbounds + 2) : op->size));
		mo_open(&m, each.cols, each.ncols);
		for (t = bad = 0; t < 400; t++)
			bad += trial(&each, &m) != 0;
		CHECK(bad == 0);
		if (bad)
			fprintf(stderr, "%s: %d trials of 400 failed\n",
			    op->option, bad);
		mo_close(&m);
		aggs_free(each.g);
		setup_add(&every, op);
	}
	n = i;
	CHECK(n >= 10);
	CHECK(agg_lookup("no-such") == NULL);
	/* all of them at once, each in its own slot of the block */
	setup_done(&every);
	every.name = "all aggregates";
	mo_open(&m, every.cols, every.ncols);
	for (t = bad = 0; t < 400; t++)
		bad += trial(&every, &m) != 0;
	CHECK(bad == 0);
	mo_close(&m);
	aggs_free(every.g);
}

/* --- fixed inputs --- */

/* Adds texts[0..n) (NULL: a NULL field) to one accumulator of the ten
 * aggregates below and checks the row. */
static void
fixed(const char *const *texts, int n, const char *want)
{
	static struct setup s;
	static char got[4096];
	struct aval vals[MAXAGG];
	struct memout m;
	struct arena a;
	struct rec r;
	static const char *const names[] = {
		"count", "sum", "avg", "min", "max", "first", "last",
		"distinct", "min-by", "max-by",
	};
	aoff acc;
	size_t i;
	int j;

	memset(&s, 0, sizeof(s));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		setup_add(&s, agg_lookup(names[i]));
	setup_done(&s);
	CHECK(arena_init(&a) == 0);
	acc = arena_alloc(&a, aggs_accsize(s.g));
	for (j = 0; j < n; j++) {
		memset(&r, 0, sizeof(r));
		if (texts[j] != NULL) {
			snprintf(r.text, sizeof(r.text), "%s", texts[j]);
			CHECK(num_parse(r.text, strlen(r.text), &r.nu) == 0);
		}
		snprintf(r.out, sizeof(r.out), "o%d", j);
		fill_vals(s.specs, s.n, &r, vals);
		aggs_add(s.g, &a, acc, vals, (uint64_t)j);
	}
	mo_open(&m, s.cols, s.n);
	aggs_fold_begin(s.g);
	aggs_fold(s.g, &a, acc);
	aggs_emit(s.g, &a, NULL, m.o);
	out_end_row(m.o);
	mo_take(&m, got, sizeof(got));
	CHECK_STR(got, want);
	mo_close(&m);
	aggs_release(s.g, &a, acc);
	arena_free(&a, acc, aggs_accsize(s.g));
	CHECK(arena_hdr(&a)->ah_live == 0);
	arena_fini(&a);
	aggs_free(s.g);
}

static void
test_fixed(void)
{
	static const char *const ties[] = {
		"2.50", "1", NULL, "2.5", "1.0", "3", "3.0", "1",
	};
	static const char *const quarters[] = { "0.25", "-1.5", "2" };
	static const char *const nulls[] = { NULL, NULL };

	/* min keeps the first of equal values, as written ("1", not
	 * "1.0"); max the first "3"; min-by/max-by their records */
	fixed(ties, 8, "{\"count\":8,\"sum\":14,\"avg\":2,\"min\":1,"
	    "\"max\":3,\"first\":\"2.50\",\"last\":\"1\",\"distinct\":6,"
	    "\"min_by\":\"o1\",\"max_by\":\"o5\"}\n");
	fixed(quarters, 3, "{\"count\":3,\"sum\":0.75,\"avg\":0.25,"
	    "\"min\":-1.5,\"max\":2,\"first\":\"0.25\",\"last\":\"2\","
	    "\"distinct\":3,\"min_by\":\"o1\",\"max_by\":\"o2\"}\n");
	/* only NULLs: every aggregate but the counts (count, distinct) is NULL */
	fixed(nulls, 2, "{\"count\":2,\"sum\":null,\"avg\":null,\"min\":null,"
	    "\"max\":null,\"first\":null,\"last\":null,\"distinct\":0,"
	    "\"min_by\":null,\"max_by\":null}\n");
	fixed(NULL, 0, "{\"count\":0,\"sum\":null,\"avg\":null,\"min\":null,"
	    "\"max\":null,\"first\":null,\"last\":null,\"distinct\":0,"
	    "\"min_by\":null,\"max_by\":null}\n");
}

/* Reading a record's fields into values: NULLs, numbers, OUT fields and
 * the whole record, and what makes a record bad. */
static void
test_extract(void)
{
	static const char *const ops[] = {
		"count", "sum", "min-by", "max-by", "first",
	};
	static const size_t fidx[] = { 0, 0, 0, 0, 2 };
	struct aggspec sp[5];
	struct config c;
	struct aggs *g;
	struct aval v[5];
	struct badfield bad;
	struct field f[3] = { { "3.5", 3 }, { "x", 1 }, { "", 0 } };
	struct record r;
	size_t i;

	memset(sp, 0, sizeof(sp));
	for (i = 0; i < 5; i++) {
		sp[i].op = agg_lookup(ops[i]);
		sp[i].f.spec = sp[i].f.name = "f";
		sp[i].f.idx = fidx[i];
	}
	sp[2].out.spec = sp[2].out.name = "o";
	sp[2].out.idx = 1;
	sp[2].has_out = 1;		/* min-by f:o; max-by f: the record */
	memset(&c, 0, sizeof(c));
	c.aggs = sp;
	c.naggs = 5;
	g = aggs_new(&c);
	memset(&r, 0, sizeof(r));
	r.f = f;
	r.nf = 3;
	r.raw = "3.5,x,";
	r.rawlen = 6;
	memset(v, 0, sizeof(v));
	v[0].n = 7;
	CHECK(aggs_extract(g, &r, v, &bad) == 0);
	/* count: no field, its value left as it was (NULL, or an --if's
	 * mark) */
	CHECK(v[0].p == NULL && v[0].n == 7);
	/* sum: its exact value, no double */
	CHECK(v[1].p == f[0].p && v[1].n == 3 && v[1].is_dec &&
	    v[1].dec.m == 35 && v[1].dec.scale == 1 && !v[1].dec.exp);
	CHECK(v[2].out == f[1].p && v[2].outn == 1);
	CHECK(v[3].out == r.raw && v[3].outn == 6);
	CHECK(v[4].p == NULL);				/* empty: NULL */
	f[0].p = "-12";
	f[0].n = 3;
	CHECK(aggs_extract(g, &r, v, &bad) == 0);
	CHECK(v[1].is_dec && v[1].dec.m == -12 && v[1].dec.scale == 0);
	/* with an exponent: exact too, no strtod well within the doubles */
	f[0].p = "-1.5e-3";
	f[0].n = 7;
	CHECK(aggs_extract(g, &r, v, &bad) == 0);
	CHECK(v[1].is_dec && v[1].dec.m == -15 && v[1].dec.scale == 4 &&
	    v[1].dec.exp);
	/* near the doubles' end: num_parse says whether it is in range */
	f[0].p = "1.5e300";
	CHECK(aggs_extract(g, &r, v, &bad) == 0);
	CHECK(v[1].is_dec && v[1].dec.m == 15 && v[1].dec.scale == -299 &&
	    v[1].d == 1.5e300);
	f[0].p = "1.5e309";
	CHECK(aggs_extract(g, &r, v, &bad) == -1);
	CHECK(strcmp(bad.what, "a number beyond the range of doubles") == 0);
	/* 39 digits: only its double */
	f[0].p = "123456789012345678901234567890123456789";
	f[0].n = 39;
	CHECK(aggs_extract(g, &r, v, &bad) == 0);
	CHECK(!v[1].is_dec && v[1].d == 123456789012345678901234567890123456789.0);
	f[0].p = "-12";
	f[0].n = 3;
	/* a number that is not, a field or an OUT past the record */
	f[0].p = "12x";
	CHECK(aggs_extract(g, &r, v, &bad) == -1);
	CHECK(bad.f == &sp[1].f && strcmp(bad.what, "not a number") == 0);
	f[0].p = "12";
	f[0].n = 2;
	r.nf = 2;
	CHECK(aggs_extract(g, &r, v, &bad) == -1);
	CHECK(bad.f == &sp[4].f && strcmp(bad.what, "missing") == 0);
	r.nf = 1;
	CHECK(aggs_extract(g, &r, v, &bad) == -1);
	CHECK(bad.f == &sp[2].out && strcmp(bad.what, "missing") == 0);
	aggs_free(g);
}

int
main(void)
{
	unit_rstate = 0xD1B54A32D192ED03ull;
	test_table();
	test_fixed();
	test_extract();
	return unit_done("agg");
}
