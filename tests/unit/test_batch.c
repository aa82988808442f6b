/* batch.c: records come back in (time, input order), whole, whatever the
 * memory budget (fwin(1): BATCH AND STREAM MODES). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "window/agg.h"
#include "flow/batch.h"
#include "flow/source.h"
#include "io/keycodec.h"
#include "base/decimal.h"
#include "pipeline/config.h"
#include "unit.h"

#define N 5000

static int64_t times[N];
static char bigtext[200000];

struct seen {
	size_t n;
	int64_t last_t;
	long last_i;
	int bad;
};

/* Record i's values: count (no field), sum (a number, NULL every 5th),
 * min-by with OUT, first (a text; record 77 has a long one); then max
 * of sum's field and max-by of min-by's fields, which store nothing of
 * their own. */
static void
make_vals(long i, struct aval *v, char *num, char *word)
{
	memset(v, 0, 6 * sizeof(*v));
	snprintf(num, 32, "%ld.5", i % 100);
	snprintf(word, 32, "w%ld", i * 7);
	if (i % 5 != 0) {
		v[1].p = num;
		v[1].n = strlen(num);
		v[1].d = (double)(i % 100) + 0.5;
		v[1].is_dec = dec_parse(num, strlen(num), &v[1].dec) == 0;
	}
	v[2].p = num;
	v[2].n = strlen(num);
	v[2].d = (double)(i % 100) + 0.5;
	v[2].out = word;
	v[2].outn = strlen(word);
	v[3].p = i == 77 ? bigtext : word;
	v[3].n = i == 77 ? sizeof(bigtext) : strlen(word);
	v[4] = v[1];
	v[5] = v[2];
}

static void
on_record(struct seen *s, int64_t t, const char *key, size_t keylen,
    const struct aval *vals)
{
	char kb[32], num[32], word[32];
	struct aval want[6];
	long i;

	snprintf(kb, sizeof(kb), "%.*s", (int)keylen, key);
	i = atol(kb);
	make_vals(i, want, num, word);
	if (i < 0 || i >= N || t != times[i] ||
	    (s->n > 0 && (t < s->last_t || (t == s->last_t && i <= s->last_i))) ||
	    (vals[0].p != NULL) ||
	    (want[1].p == NULL) != (vals[1].p == NULL) ||
	    (want[1].p != NULL && (vals[1].n != want[1].n ||
	    memcmp(vals[1].p, want[1].p, want[1].n) != 0 ||
	    vals[1].d != want[1].d || vals[1].is_dec != want[1].is_dec ||
	    (want[1].is_dec && (vals[1].dec.m != want[1].dec.m ||
	    vals[1].dec.scale != want[1].dec.scale)))) ||
	    vals[2].outn != want[2].outn ||
	    memcmp(vals[2].out, want[2].out, want[2].outn) != 0 ||
	    vals[3].n != want[3].n ||
	    memcmp(vals[3].p, want[3].p, want[3].n) != 0 ||
	    (vals[4].p == NULL) != (vals[1].p == NULL) ||
	    (vals[4].p != NULL && (vals[4].n != vals[1].n ||
	    memcmp(vals[4].p, vals[1].p, vals[1].n) != 0 ||
	    vals[4].d != vals[1].d)) ||
	    vals[5].n != vals[2].n || vals[5].outn != vals[2].outn ||
	    memcmp(vals[5].p, vals[2].p, vals[2].n) != 0 ||
	    memcmp(vals[5].out, vals[2].out, vals[2].outn) != 0)
		s->bad++;
	s->n++;
	s->last_t = t;
	s->last_i = i;
}

static void
one(struct config *c, uint64_t budget, int sorted, uint64_t *runs)
{
	struct batch *b = batch_new(c, budget);
	struct aval v[6];
	struct seen s = { 0, 0, 0, 0 };
	char key[32], num[32], word[32];
	const struct parsed *pr;
	struct source *src;
	uint64_t bytes;
	long i;
	int rc;

	srand(7);
	for (i = 0; i < N; i++) {
		if (sorted == 1)
			times[i] = i / 3;
		else if (sorted == 2 && i % 10 != 0)	/* every byte varies */
			times[i] = (int64_t)(((uint64_t)rand() << 42) ^
			    ((uint64_t)rand() << 21) ^ (uint64_t)rand() ^
			    ((uint64_t)(rand() & 1) << 63));
		else if (sorted == 2)
			times[i] = i == 0 ? INT64_MIN : i == 10 ? INT64_MAX :
			    times[i - 1];
		else
			times[i] = (rand() % 200) - 50;
		snprintf(key, sizeof(key), "%ld", i);
		make_vals(i, v, num, word);
		CHECK(batch_add(b, times[i], key, strlen(key), v) == BATCH_OK);
	}
	src = source_sorted(b);
	while ((rc = source_next(src, &pr)) == SOURCE_RECORD) {
		CHECK(pr->kind == PR_RECORD &&
		    pr->hash == key_hash(pr->key, pr->keylen));
		on_record(&s, pr->t, pr->key, pr->keylen, pr->vals);
	}
	CHECK(rc == SOURCE_END);
	CHECK(source_next(src, &pr) == SOURCE_END);
	source_free(src);
	CHECK(s.n == N);
	CHECK(s.bad == 0);
	batch_spilled(b, runs, &bytes);
	batch_free(b);
}

int
main(void)
{
	struct config c;
	struct aggspec a[6];
	uint64_t runs;

	memset(bigtext, 'q', sizeof(bigtext));
	memset(&c, 0, sizeof(c));
	memset(a, 0, sizeof(a));
	a[0].op = agg_lookup("count");
	a[1].op = agg_lookup("sum");
	a[1].f.idx = 2;
	a[2].op = agg_lookup("min-by");
	a[2].f.idx = 3;
	a[2].has_out = 1;
	a[2].out.idx = 5;
	a[3].op = agg_lookup("first");
	a[3].f.idx = 4;
	a[4].op = agg_lookup("max");
	a[4].f.idx = 2;
	a[5].op = agg_lookup("max-by");
	a[5].f.idx = 3;
	a[5].has_out = 1;
	a[5].out.idx = 5;
	c.aggs = a;
	c.naggs = 6;
	c.has_time = 1;
	c.wkind = WK_NONE;
	setenv("TMPDIR", "/tmp", 1);

	one(&c, (uint64_t)64 << 20, 0, &runs);	/* in memory, sorted there */
	CHECK(runs == 0);
	one(&c, (uint64_t)64 << 20, 1, &runs);	/* in time order already */
	CHECK(runs == 0);
	one(&c, 16 * 1024, 0, &runs);		/* many sorted runs */
	CHECK(runs > 10);
	one(&c, 16 * 1024, 1, &runs);		/* one run, lengthened */
	CHECK(runs == 1);
	one(&c, 100, 0, &runs);			/* a run per record, joined */
	CHECK(runs > N / 4 && runs < N);	/* when in time order */
	one(&c, (uint64_t)64 << 20, 2, &runs);	/* times over all of int64 */
	CHECK(runs == 0);
	one(&c, 16 * 1024, 2, &runs);
	CHECK(runs > 10);
	return unit_done("test_batch");
}
