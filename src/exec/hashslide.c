/* hashslide: --slide aggregated as read (hashagg_stream()), when its STEP
 * divides its SIZE on a fixed grid and every aggregate can take a part of
 * its values back out (aggs_unmergeable: counts and exact sums). The
 * table's groups are (pane, key), a pane being a STEP; each key with
 * records in the window to fire next has a running group, the fold of
 * its panes there, the running groups kept in key order. As each window
 * ends, in end order, the pane that ends with it joins its keys' running
 * groups, every running group fires as the window's row of its key, and
 * the pane that the next window no longer holds is taken back out
 * (aggs_unmerge) and freed: a window costs a fold and an unmerge per key,
 * however many panes it spans, where the operator keeps a key's panes
 * and timers. The rows are the operator's bytes: a count or an exact sum
 * is one function of the values it holds, however they were grouped. A
 * running group whose unmerge cannot be exact (a sum of a value written
 * with an exponent, whose flag says how it prints, or of one past the
 * sum's words) is folded again from its panes.
 *
 * A record whose window has ended but not its last one (behind the
 * watermark by more than a STEP) goes to the windows that have not:
 * hashagg_add() answers HA_DUE until the windows that ended have fired,
 * then adds it to its pane's group and to its key's running group.
 *
 * On two halves of a file (halves.c), the second half's table holds
 * back the panes before where the first half can reach (h->hold): its
 * windows that start there or later fire on its thread, the panes that
 * the earlier windows need are kept, and at the join the first half's
 * table takes them in (ha_slide_fire_joined) and fires the windows
 * before the second half's first.
 *
 * Beside hashcum.c: it takes its panes' groups from the table sorted
 * (hashrows.c) and adds to the table (hashagg.c); the firing
 * (hashfire.c) calls it for a sliding table. */
#include <stdlib.h>
#include <string.h>

#include "exec/hashint.h"
#include "io/keycodec.h"
#include "base/util.h"

/* The order of running group r and a group of key prefix bprefix at bg. */
static int
run_order(const struct hashagg *h, const struct srun *r, uint64_t bprefix,
    aoff bg)
{
	const struct group *ga, *gb;

	if (r->prefix != bprefix)
		return r->prefix < bprefix ? -1 : 1;
	ga = group_at(h, r->g);
	gb = group_at(h, bg);
	return key_cmp(h->c->nkeys, ga->g_key, ga->g_len, gb->g_key,
	    gb->g_len);
}

/* A running group of a key of keylen bytes, empty, its key still to be
 * written: in the arena, not in the table. */
static aoff
run_alloc(struct hashagg *h, size_t keylen)
{
	aoff g = arena_alloc(&h->a, group_size(h, keylen));
	struct group *gp = group_at(h, g);

	gp->g_start = INT64_MIN;
	gp->g_len = (uint32_t)keylen;
	memset(arena_ptr(&h->a, group_acc(h, g)), 0, aggs_accsize(h->g));
	if (arena_hdr(&h->a)->ah_used > h->peak)
		h->peak = arena_hdr(&h->a)->ah_used;
	return g;
}

/* h's group g folded with the accumulators at acc in arena a (h's, or
 * the second half's table's). */
static void
fold_into(struct hashagg *h, aoff g, const struct arena *a, aoff acc)
{
	aggs_fold_begin(h->g);
	aggs_fold(h->g, &h->a, group_acc(h, g));
	aggs_fold(h->g, a, acc);
	aggs_fold_store(h->g, &h->a, group_acc(h, g));
}

/* The running group r folded with pane group pg; r 0: a new one, of
 * pg's key. Returns it. */
static aoff
run_fold_in(struct hashagg *h, aoff r, aoff pg)
{
	if (r == 0) {
		r = run_alloc(h, group_at(h, pg)->g_len);
		/* (after the alloc, which may move the arena) */
		memcpy(group_at(h, r)->g_key, group_at(h, pg)->g_key,
		    group_at(h, pg)->g_len);
	}
	fold_into(h, r, &h->a, group_acc(h, pg));
	return r;
}

/* Running group r made again from its key's panes that start in
 * [from, upto) (its unmerge could not be exact). */
static void
run_refold(struct hashagg *h, aoff r, int64_t from, int64_t upto)
{
	const struct group *gp = group_at(h, r);
	uint64_t kh = key_hash(gp->g_key, gp->g_len);
	int64_t p;
	aoff g;

	aggs_fold_begin(h->g);
	for (p = from; p < upto; p = sat_add(p, h->as.step))
		if ((g = ha_group_find(h, group_hash(kh, p), p, gp->g_key,
		    gp->g_len)) != 0)
			aggs_fold(h->g, &h->a, group_acc(h, g));
	aggs_fold_store(h->g, &h->a, group_acc(h, r));
}

static void
run_free(struct hashagg *h, aoff r)
{
	aggs_release(h->g, &h->a, group_acc(h, r));
	arena_free(&h->a, r, group_size(h, group_at(h, r)->g_len));
}

/* The pane groups rows[i..j) (one pane's, in key order) into the
 * running groups: a key's new running group is made. */
static void
enter_pane(struct hashagg *h, const struct hrow *rows, size_t i, size_t j)
{
	struct srun *m, *t;
	size_t a = 0, n = 0;
	int cmp;

	xgrow(&h->srm, &h->capsrm, h->nsr + (j - i), sizeof(*h->srm));
	m = h->srm;
	while (a < h->nsr || i < j) {
		cmp = i == j ? -1 : a == h->nsr ? 1 :
		    run_order(h, &h->sr[a], rows[i].prefix, rows[i].g);
		if (cmp < 0) {
			m[n++] = h->sr[a++];
			continue;
		}
		if (cmp == 0)
			m[n] = h->sr[a++];
		else {
			m[n].prefix = rows[i].prefix;
			m[n].g = 0;
			m[n].panes = 0;
			m[n].redo = 0;
		}
		m[n].g = run_fold_in(h, m[n].g, rows[i].g);
		m[n++].panes++;
		i++;
	}
	/* (the two buffers swap: the old one is the next scratch) */
	t = h->sr;
	h->sr = m;
	h->nsr = n;
	h->srm = t;
	n = h->capsr;
	h->capsr = h->capsrm;
	h->capsrm = n;
}

/* The pane groups rows[i..j) (one pane's, in key order) taken back out
 * of their keys' running groups; a running group left with no pane is
 * freed, one whose unmerge was not exact is marked to be made again. */
static void
leave_pane(struct hashagg *h, const struct hrow *rows, size_t i, size_t j)
{
	size_t a = 0, n = 0;

	for (; i < j; i++) {
		while (a < h->nsr &&
		    run_order(h, &h->sr[a], rows[i].prefix, rows[i].g) < 0)
			a++;
		/* (every pane group in a window joined its key's running
		 * group when its pane ended) */
		if (a == h->nsr || run_order(h, &h->sr[a], rows[i].prefix,
		    rows[i].g) != 0)
			continue;
		if (--h->sr[a].panes > 0 && aggs_unmerge(h->g, &h->a,
		    group_acc(h, h->sr[a].g), group_acc(h, rows[i].g)) != 0)
			h->sr[a].redo = 1;
	}
	for (a = 0; a < h->nsr; a++)
		if (h->sr[a].panes == 0)
			run_free(h, h->sr[a].g);
		else
			h->sr[n++] = h->sr[a];
	h->nsr = n;
}

/* The running groups fired as the rows of the window that ends at e. */
static uint64_t
emit_window(struct hashagg *h, int64_t e, op_emit_fn emit, void *arg)
{
	struct op_row row = { .has_bounds = 1, .final = 1, .g = h->g,
		.end = e, .a = &h->a };
	const struct group *gp;
	size_t i;

	row.start = h->as.ops->start(&h->as, e);
	if (row.start < h->hold)	/* (the first half's: held) */
		return 0;
	if (row.start < h->fired_from)
		h->fired_from = row.start;
	for (i = 0; i < h->nsr; i++) {
		if (i + 4 < h->nsr)
			warm(group_at(h, h->sr[i + 4].g));
		gp = group_at(h, h->sr[i].g);
		aggs_fold_begin(h->g);
		aggs_fold(h->g, &h->a, group_acc(h, h->sr[i].g));
		row.key = gp->g_key;
		row.keylen = gp->g_len;
		emit(arg, &row);
	}
	return h->nsr;
}

int64_t
ha_slide_due(const struct hashagg *h)
{
	int64_t s = INT64_MAX;
	size_t i;

	if (h->nsr > 0)	/* (the next window holds a running group) */
		return h->as.ops->end_after(&h->as, h->sl_in);
	/* else the first window of the first pane not in */
	i = ha_window_at(h, h->sl_in);
	if (i < h->nwin)
		s = h->win[i].start;
	for (i = 0; i < h->npend; i++)
		if (h->pend[i].start >= h->sl_in && h->pend[i].start < s)
			s = h->pend[i].start;
	return s == INT64_MAX ? INT64_MAX : h->as.ops->end_after(&h->as, s);
}

/* The panes before this are kept for the first half's table: the
 * windows that start before the hold end by hold - STEP + SIZE. */
static int64_t
held_need(const struct hashagg *h)
{
	return h->hold == INT64_MIN ? INT64_MIN :
	    sat_add(h->hold, h->as.size - h->as.step);
}

int64_t
ha_slide_align(const struct hashagg *h, int64_t t)
{
	/* (windows start where panes do: the first pane bound at or after
	 * t is the end of the first window after t - 1) */
	if (t == INT64_MIN || t == INT64_MAX)
		return t;
	return h->as.ops->end_after(&h->as, t - 1);
}

/* The last window end at or before w (INT64_MIN: none known, as before
 * the first record, when an input that waits has the table fire what
 * is due: the end before the first one after w would pass the range). */
static int64_t
end_by(const struct hashagg *h, int64_t w)
{
	int64_t e = h->as.ops->end_after(&h->as, w);

	return e == INT64_MAX ? INT64_MIN : sat_add(e, -h->as.step);
}

uint64_t
ha_slide_fire(struct hashagg *h, int64_t w, op_emit_fn emit, void *arg)
{
	/* (a window's start from its end: the next one's, back) */
	int64_t back = h->as.step - h->as.size;
	int64_t e, ns, keep, out = h->sl_out, last = end_by(h, w);
	struct hrow *in;
	size_t nin, incap, ii = 0, li = 0, j, k;
	uint64_t fired = 0;

	if (w == INT64_MAX)
		last = INT64_MAX;
	if (h->sl_in < h->hold)	/* (held: the panes before are not in) */
		h->sl_in = h->sl_out = out = h->hold;
	/* the panes that join (start before the last end) and those that
	 * leave (before the start of the window after it), each sorted
	 * once: those that leave are the table's rows, dropped at the end */
	ha_collect(h, h->sl_in, last);
	in = h->rows;
	nin = h->nrows;
	incap = h->caprows;
	h->rows = NULL;
	h->caprows = 0;
	ha_collect(h, out, last == INT64_MAX || last == INT64_MIN ? last :
	    sat_add(last, back));
	while ((e = ha_slide_due(h)) != INT64_MAX && e <= w) {
		for (j = ii; j < nin && in[j].start < e; j = k) {
			for (k = j + 1; k < nin && in[k].start == in[j].start;
			    k++)
				;
			enter_pane(h, in, j, k);
		}
		ii = j;
		h->sl_in = e;
		fired += emit_window(h, e, emit, arg);
		ns = sat_add(e, back);	/* (the start of the window after) */
		if (ns < h->hold)	/* (held panes never joined) */
			ns = h->hold;
		for (j = li; j < h->nrows && h->rows[j].start < ns; j = k) {
			for (k = j + 1; k < h->nrows &&
			    h->rows[k].start == h->rows[j].start; k++)
				;
			leave_pane(h, h->rows, j, k);
		}
		li = j;
		h->sl_out = ns;
		for (j = 0; j < h->nsr; j++)
			if (h->sr[j].redo) {
				run_refold(h, h->sr[j].g, ns, e);
				h->sr[j].redo = 0;
			}
	}
	ha_rows_keep(h, in, incap);
	/* the panes that left are dropped from the table, the rest kept;
	 * held, so are those the windows before the hold need */
	keep = held_need(h);
	for (j = 0; j < li && h->rows[j].start < keep; j++)
		;
	memmove(h->rows, h->rows + j, (h->nrows - j) * sizeof(*h->rows));
	h->nrows = li - j;
	ha_fired(h, out > keep ? out : keep, h->sl_out, 0);
	/* no window holds a running group: those that end by w are done */
	if (h->nsr == 0 && last != INT64_MAX && last > h->sl_in)
		h->sl_in = last;
	return fired;
}

/* The index in h->sr of the running group of the key of group g (key
 * prefix prefix), made empty if there was none. */
static size_t
run_of(struct hashagg *h, uint64_t prefix, aoff g)
{
	size_t lo = 0, hi = h->nsr, mid = 0, keylen;
	aoff r;
	int cmp;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		cmp = run_order(h, &h->sr[mid], prefix, g);
		if (cmp == 0)
			return mid;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	keylen = group_at(h, g)->g_len;
	r = run_alloc(h, keylen);
	/* (after the alloc, which may move the arena) */
	memcpy(group_at(h, r)->g_key, group_at(h, g)->g_key, keylen);
	xgrow(&h->sr, &h->capsr, h->nsr + 1, sizeof(*h->sr));
	memmove(h->sr + lo + 1, h->sr + lo, (h->nsr - lo) * sizeof(*h->sr));
	h->sr[lo].prefix = prefix;
	h->sr[lo].g = r;
	h->sr[lo].panes = 0;
	h->sr[lo].redo = 0;
	h->nsr++;
	return lo;
}

/* h->slide_join (hashagg.c): a record whose pane has ended, and so
 * has joined the running groups once the windows that ended with it
 * have fired (else HA_DUE), added to its pane's group and its key's
 * running group. Held (the second half's table), it is not: the first
 * half's windows would take it as their watermark says, which this
 * table does not know (HA_DUE, which halves.c does not take). */
static int
slide_join(struct hashagg *h, uint64_t gh, int64_t start, const char *key,
    size_t keylen, const struct aval *vals)
{
	uint64_t n;
	size_t r;
	aoff g;

	if (start >= h->sl_in || ha_slide_due(h) <= h->wm ||
	    h->hold != INT64_MIN)
		return HA_DUE;
	ha_take_pending(h);
	n = h->n;
	g = ha_group_of(h, gh, start, key, keylen);
	aggs_add(h->g, &h->a, group_acc(h, g), vals, h->seq);
	r = run_of(h, key_prefix(h->c->nkeys, key, keylen), g);
	aggs_add(h->g, &h->a, group_acc(h, h->sr[r].g), vals, h->seq++);
	if (h->n > n)	/* (its pane's group is new: it joins too) */
		h->sr[r].panes++;
	return HA_ADDED;
}

/* other's panes that start before upto, into h's table (the second
 * half's, after h's windows that had ended fired): each into its
 * pane's group, and, where that pane is in, its key's running group, as
 * its records would have been added to h after h's own. */
static void
slide_absorb(struct hashagg *h, struct hashagg *other, int64_t upto)
{
	const struct group *gp;
	struct hrow *o;
	uint64_t n;
	size_t i, r;
	aoff g;

	ha_take_pending(h);
	ha_collect(other, INT64_MIN, upto);
	for (i = 0; i < other->nrows; i++) {
		o = &other->rows[i];
		gp = group_at(other, o->g);
		n = h->n;
		g = ha_group_of(h, group_hash(key_hash(gp->g_key, gp->g_len),
		    o->start), o->start, gp->g_key, gp->g_len);
		fold_into(h, g, &other->a, group_acc(other, o->g));
		if (o->start >= h->sl_in)
			continue;	/* (it joins when its pane ends) */
		r = run_of(h, o->prefix, g);
		fold_into(h, h->sr[r].g, &other->a, group_acc(other, o->g));
		if (h->n > n)	/* (its pane's group is new: it joins too) */
			h->sr[r].panes++;
	}
	ha_fired(other, INT64_MIN, upto, 0);
}

/* Every running group and pane let go. */
static void
slide_drop_all(struct hashagg *h)
{
	size_t i;

	for (i = 0; i < h->nsr; i++)
		run_free(h, h->sr[i].g);
	h->nsr = 0;
	ha_collect(h, INT64_MIN, INT64_MAX);
	ha_fired(h, INT64_MIN, INT64_MAX, 0);
}

uint64_t
ha_slide_fire_joined(struct hashagg *h, struct hashagg *other, int64_t upto,
    op_emit_fn emit, void *arg)
{
	/* (the end of the last window that starts before upto) */
	int64_t last = upto == INT64_MAX ? INT64_MAX :
	    sat_add(upto, h->as.size - h->as.step);
	uint64_t n = 0;

	if (other != NULL) {
		n = ha_slide_fire(h, h->wm, emit, arg);
		slide_absorb(h, other, last);
	}
	n += ha_slide_fire(h, last, emit, arg);
	if (upto != INT64_MAX)	/* (the windows from upto on: other's) */
		slide_drop_all(h);
	return n;
}

void
hashagg_slide(struct hashagg *h)
{
	h->slide = 1;
	if (h->front == NULL)
		h->front = xcalloc(FRONT, sizeof(*h->front));
	quick_again(h);
	h->slide_join = slide_join;
	h->sl_in = h->sl_out = INT64_MIN;
}
