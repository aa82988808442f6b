/* hashfire: the firing of the table of hashagg.h: its groups, sorted by
 * (start, key) (hashrows.c), fired as rows in (end, start, key) order,
 * two parts of one input merged (on two threads when they are many), a
 * stream's ended windows fired as the watermark passes them, and the
 * fired groups let go (hashrows.c). It is the top of the table's files: it chooses
 * how the rows are made, from the table's groups here, from the sorted
 * runs (hashspill.c), from --cumulate's windows (hashcum.c) or --slide's
 * running folds (hashslide.c), and calls
 * down into each; none of them calls it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec/hashint.h"
#include "io/keycodec.h"
#include "base/util.h"

/* The order of two rows: (start, key). */
static int
row_order(const struct hrow *a, const struct hrow *b, size_t nkeys)
{
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->prefix != b->prefix)
		return a->prefix < b->prefix ? -1 : 1;
	/* (one key of at most 8 bytes: its prefix is all of it) */
	if (nkeys == 1 && row_group(a)->g_len <= 8 &&
	    row_group(a)->g_len == row_group(b)->g_len)
		return 0;
	return key_order(a, b, &nkeys);
}

/* The first of the rows [i, w) warmed last, a batch before w. */
static size_t
last_batch(size_t i, size_t w)
{
	return w - i > WARM_ROWS ? w - WARM_ROWS : i;
}

/* h's rows [i, n) and other's [j, m) (other NULL: none), merged in
 * (start, key) order, each a row to emit(arg, row) folded with g (a
 * group of each: folded together); as for the windows' ends (its cache
 * is one thread's). */
static uint64_t
merge_rows(const struct hashagg *h, size_t i, size_t n,
    const struct hashagg *other, size_t j, size_t m, struct aggs *g,
    const struct assigner *as, op_emit_fn emit, void *arg)
{
	size_t nkeys = h->c->nkeys, fired = 0, wi = i, wj = j, e;
	struct op_row row = { .has_bounds = 1, .final = 1, .g = g };
	const struct hrow *a, *b, *first;
	const struct group *gp;
	int cmp;

	while (i < n || j < m) {
		a = i < n ? &h->rows[i] : NULL;
		b = j < m ? &other->rows[j] : NULL;
		cmp = a == NULL ? 1 : b == NULL ? -1 : row_order(a, b, nkeys);
		first = cmp <= 0 ? a : b;
		/* (the next rows' groups, a batch at a time, one or two
		 * ahead; and the blocks of the batch whose groups were
		 * warmed before) */
		if (i + 2 * WARM_ROWS >= wi && wi < n) {
			e = wi + WARM_ROWS < n ? wi + WARM_ROWS : n;
			if (h->blocks && wi > i)
				warm_row_blocks(h, h->rows + last_batch(i, wi),
				    wi - last_batch(i, wi));
			warm_rows(h, h->rows + wi, e - wi);
			wi = e;
		}
		if (other != NULL && j + 2 * WARM_ROWS >= wj && wj < m) {
			e = wj + WARM_ROWS < m ? wj + WARM_ROWS : m;
			if (other->blocks && wj > j)
				warm_row_blocks(other, other->rows +
				    last_batch(j, wj), wj - last_batch(j, wj));
			warm_rows(other, other->rows + wj, e - wj);
			wj = e;
		}
		/* (first is NULL only past both ends: said for the analyzer) */
		if (first == NULL)
			break;
		gp = row_group(first);
		row.start = gp->g_start;
		row.end = as->ops->end_after(as, gp->g_start);
		row.key = gp->g_key;
		row.keylen = gp->g_len;
		row.a = &first->h->a;
		row.acc = NULL;
		if (cmp != 0 && aggs_emit_as_is(g, row.a,
		    group_acc(first->h, first->g)))
			row.acc = arena_ptr(row.a, group_acc(first->h,
			    first->g));
		else {
			aggs_fold_begin(g);
			if (cmp <= 0)
				aggs_fold(g, &h->a, group_acc(h, a->g));
			if (cmp >= 0)
				aggs_fold(g, &other->a,
				    group_acc(other, b->g));
		}
		i += cmp <= 0;
		j += cmp >= 0;
		emit(arg, &row);
		fired++;
	}
	return fired;
}

/* The end of h's sorted rows from at that start before upto. */
static size_t
rows_before(const struct hashagg *h, size_t at, int64_t upto)
{
	size_t lo = at, hi = h->nrows, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (h->rows[mid].start < upto)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first of h's rows [lo, hi) at or after row r. */
static size_t
rows_from(const struct hashagg *h, size_t lo, size_t hi, const struct hrow *r)
{
	size_t mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (row_order(&h->rows[mid], r, h->c->nkeys) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Fires h's rows (ha_collect()), and other's, merged, from where the last
 * call stopped up to those of windows that start at or after upto. */
static uint64_t
fire_rows(struct hashagg *h, struct hashagg *other, int64_t upto,
    op_emit_fn emit, void *arg)
{
	size_t n = rows_before(h, h->at, upto), m = 0;
	uint64_t fired;

	if (other != NULL)
		m = rows_before(other, other->at, upto);
	fired = merge_rows(h, h->at, n, other, other != NULL ? other->at : 0,
	    m, h->g, &h->as, emit, arg);
	h->at = n;
	if (other != NULL)
		other->at = m;
	return fired;
}

/* The second part of hashagg_fire_split(), on a thread of its own. */
struct merge_job {
	const struct hashagg *h, *other;
	size_t i, n, j, m;
	struct aggs *g;
	struct assigner as;
	op_emit_fn emit;
	void *arg;
	uint64_t fired;
};

static void *
merge_main(void *p)
{
	struct merge_job *job = p;

	job->fired = merge_rows(job->h, job->i, job->n, job->other, job->j,
	    job->m, job->g, &job->as, job->emit, job->arg);
	return NULL;
}

/* Fewer rows than this are not worth a thread. */
#define SPLIT_ROWS 65536

uint64_t
hashagg_fire_split(struct hashagg *h, struct hashagg *other, int64_t upto,
    op_emit_fn emit, void *arg, struct aggs *g2, op_emit_fn emit2,
    void *arg2, struct hashagg_cut *cut)
{
	struct merge_job job;
	size_t n, m, ci, cj;
	uint64_t fired;
	pthread_t th;
	int threaded;

	memset(cut, 0, sizeof(*cut));
	if (h->cum || h->slide || other == NULL)
		return hashagg_fire_before(h, other, upto, emit, arg);
	hashagg_sort(h);
	hashagg_sort(other);
	n = rows_before(h, h->at, upto);
	m = rows_before(other, other->at, upto);
	if ((n - h->at) + (m - other->at) < SPLIT_ROWS)
		return fire_rows(h, other, upto, emit, arg);
	/* cut at the middle of the longer: the other's rows from there
	 * on (a group of the same window and key too) are the second's */
	if (n - h->at >= m - other->at) {
		ci = h->at + (n - h->at) / 2;
		cj = rows_from(other, other->at, m, &h->rows[ci]);
	} else {
		cj = other->at + (m - other->at) / 2;
		ci = rows_from(h, h->at, n, &other->rows[cj]);
	}
	memset(&job, 0, sizeof(job));
	job.h = h;
	job.other = other;
	job.i = ci;
	job.n = n;
	job.j = cj;
	job.m = m;
	job.g = g2;
	assigner_init(&job.as, h->c);
	job.emit = emit2;
	job.arg = arg2;
	threaded = pthread_create(&th, NULL, merge_main, &job) == 0;
	fired = merge_rows(h, h->at, ci, other, other->at, cj, h->g, &h->as,
	    emit, arg);
	if (threaded)
		pthread_join(th, NULL);
	else
		(void)merge_main(&job);
	cut->i = ci;
	cut->n = n;
	cut->j = cj;
	cut->m = m;
	cut->fired2 = job.fired;
	h->at = n;
	other->at = m;
	return fired;
}

uint64_t
hashagg_fire_cut(struct hashagg *h, struct hashagg *other,
    const struct hashagg_cut *cut, op_emit_fn emit, void *arg)
{
	return merge_rows(h, cut->i, cut->n, other, cut->j, cut->m, h->g,
	    &h->as, emit, arg);
}

uint64_t
hashagg_fire_before(struct hashagg *h, struct hashagg *other, int64_t upto,
    op_emit_fn emit, void *arg)
{
	uint64_t n;

	if (h->slide)
		return ha_slide_fire_joined(h, other, upto, emit, arg);
	/* --cumulate: other's windows that it has not begun to fire are
	 * h's (h has none where it has), all of which fire; the rest of
	 * other's fire at the end */
	if (h->cum) {
		if (other != NULL)
			ha_cum_absorb(h, other, upto < other->fired_from ? upto :
			    other->fired_from);
		n = ha_cum_fire(h, INT64_MAX, INT64_MIN, emit, arg);
		if (upto == INT64_MAX && other != NULL && !h->gave_up)
			n += ha_cum_fire(other, INT64_MAX, INT64_MIN, emit, arg);
		return n;
	}
	hashagg_sort(h);
	if (other != NULL)
		hashagg_sort(other);
	return fire_rows(h, other, upto, emit, arg);
}

uint64_t
hashagg_fire(struct hashagg *h, struct hashagg *other, op_emit_fn emit,
    void *arg)
{
	if (h->runs != NULL && h->runs_n > 0)	/* (hashspill.c) */
		return ha_fire_runs(h, other, emit, arg);
	return hashagg_fire_before(h, other, INT64_MAX, emit, arg);
}


uint64_t
hashagg_drop_ended(struct hashagg *h, int64_t w, int64_t *late_by)
{
	/* (--cumulate: a window of the size ends at or before w; --slide:
	 * a pane's last window) */
	int64_t upto = h->cum ? ha_cum_size_start(h, w) : ha_ended_before(h, w);
	int64_t lag;
	uint64_t n = 0;
	size_t i;
	const struct ledger_win *e;

	if (h->slide && upto != INT64_MIN && upto != INT64_MAX)
		upto = sat_add(upto, h->as.step - h->as.size);
	*late_by = INT64_MIN;
	/* the rows sorted (on the part's thread): those dropped are the
	 * first, the rest stay sorted to fire */
	hashagg_sort(h);
	for (i = 0; i < h->nrows && h->rows[i].start < upto; i++)
		;
	n = h->nrows;
	h->nrows = i;
	ha_drop(h, INT64_MIN, upto, 0);
	memmove(h->rows, h->rows + i, (n - i) * sizeof(*h->rows));
	h->nrows = n - i;
	n = 0;
	for (i = 0; i <= h->nlw; i++) {
		e = i < h->nlw ? &h->lw[i] : &h->late;
		if (e->n == 0 || (i < h->nlw && e->start >= upto))
			continue;
		n += e->n;
		lag = sat_sub(w, e->mint);
		if (lag < e->lag)
			lag = e->lag;
		if (lag > *late_by)
			*late_by = lag;
	}
	return n;
}

/* The windows that start before from are held from now on. */
static void
hold_before(struct hashagg *h, int64_t from)
{
	h->hold = from;
	ha_recount(h);
	h->kept = h->n - h->held;
}

/* The windows before hashagg_fire_due()'s from (or the rest's) are
 * held from now on. */
static void
hold_from(struct hashagg *h, int64_t from)
{
	if (from != h->hold_from) {
		h->hold_from = from;
		hold_before(h, h->cum ? ha_cum_align(h, from) :
		    h->slide ? ha_slide_align(h, from) : from);
	}
}

/* Fires the windows that start in [from, upto), and frees them. */
static uint64_t
fire_range(struct hashagg *h, int64_t from, int64_t upto, op_emit_fn emit,
    void *arg)
{
	uint64_t fired;

	ha_collect(h, from, upto);
	if (h->nrows > 0 && h->rows[0].start < h->fired_from)
		h->fired_from = h->rows[0].start;
	fired = fire_rows(h, NULL, INT64_MAX, emit, arg);
	ha_fired(h, from, upto, 0);
	return fired;
}

uint64_t
hashagg_fire_due(struct hashagg *h, int force, int64_t from, op_emit_fn emit,
    void *arg)
{
	hold_from(h, from);
	/* (--slide: once its open panes hold as many groups, and a window
	 * is due; a firing reads the panes that join and leave, not those
	 * held between, which are most of the table) */
	if (h->slide)
		return !force && (h->sl_open < FIRE_MIN ||
		    ha_slide_due(h) > h->wm) ? 0 :
		    ha_slide_fire(h, h->wm, emit, arg);
	if (!force && h->n - h->held < 2 * h->kept + FIRE_MIN)
		return 0;
	if (h->cum)
		return ha_cum_due(h) > h->wm ? 0 :
		    ha_cum_fire(h, h->wm, h->hold, emit, arg);
	if (h->min_start == INT64_MAX || h->min_end > h->wm)
		return 0;
	return fire_range(h, h->hold, ha_ended_before(h, h->wm), emit, arg);
}

int64_t
hashagg_next_due(const struct hashagg *h)
{
	if (h->cum)
		return ha_cum_due(h);
	if (h->slide)
		return ha_slide_due(h);
	return h->min_start != INT64_MAX ? h->min_end : INT64_MAX;
}

uint64_t
hashagg_fire_rest(struct hashagg *h, int64_t from, op_emit_fn emit, void *arg)
{
	hold_from(h, from);
	if (h->cum)
		return ha_cum_fire(h, INT64_MAX, h->hold, emit, arg);
	if (h->slide)
		return ha_slide_fire(h, INT64_MAX, emit, arg);
	return fire_range(h, h->hold, INT64_MAX, emit, arg);
}
