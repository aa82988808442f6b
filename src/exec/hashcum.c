/* hashcum: --cumulate aggregated as read (hashagg_stream()). Its
 * windows [S, e) grow by a step up to S + SIZE: the table's groups are
 * (pane, key), and as the panes end, in end order, each is folded into
 * its window of the size, which keeps a group per key (the fold of the
 * key's panes so far) in key order: its window ending at e fires as
 * those groups are when e's pane is in. Each window's row is then a fold
 * of the same records as the operator's, grouped otherwise: so only
 * aggregates whose folds do not show their grouping (hashagg_fits_stream)
 * come here, and a fold that would (a sum past exact) gives up.
 *
 * It takes its panes' groups from the table sorted (hashrows.c) and adds
 * to the table (hashagg.c), below it; the firing (hashfire.c), above it,
 * calls it for a cumulating table. It has nothing to do with the sorted
 * runs (only a batch's tumbling table spills), which are beside it. */
#include <stdlib.h>
#include <string.h>

#include "exec/hashint.h"
#include "io/keycodec.h"
#include "base/util.h"

/* The open window of the size holding the window that ends at e, made
 * if new (its first window to fire: e's). */
static struct cumwin *
cum_window(struct hashagg *h, int64_t e)
{
	const struct assigner *as = &h->as;
	struct cumwin *cw;
	size_t i;

	for (i = 0; i < h->ncw; i++)
		if (h->cw[i].start < e && e <= h->cw[i].end)
			return &h->cw[i];
	xgrow(&h->cw, &h->capcw, h->ncw + 1, sizeof(*h->cw));
	for (i = h->ncw; i > 0 && h->cw[i - 1].start > e; i--)
		h->cw[i] = h->cw[i - 1];
	h->ncw++;
	cw = &h->cw[i];
	memset(cw, 0, sizeof(*cw));
	cw->start = as->ops->start(as, e);
	cw->end = as->ops->last_end(as, e - 1);
	cw->next = e;
	if (cw->start < h->fired_from)	/* (its first row fires now) */
		h->fired_from = cw->start;
	return cw;
}

static int
crow_order(const struct hashagg *h, const struct crow *a, uint64_t bprefix,
    aoff bg)
{
	const struct group *ga, *gb;

	if (a->prefix != bprefix)
		return a->prefix < bprefix ? -1 : 1;
	ga = group_at(h, a->g);
	gb = group_at(h, bg);
	return key_cmp(h->c->nkeys, ga->g_key, ga->g_len, gb->g_key,
	    gb->g_len);
}

/* The groups h->rows[i..j) of the pane that ends at cw's next window's
 * end, in key order, into cw's: a key's new group moves there (its g in
 * h->rows is marked ROW_MOVED), else it is merged into the key's. */
static void
cum_merge(struct hashagg *h, struct cumwin *cw, size_t i, size_t j)
{
	struct crow *m, *t;
	size_t a = 0, n = 0;
	struct hrow *b;
	int cmp;

	if (i == j)
		return;
	xgrow(&h->merged, &h->capmerged, cw->n + (j - i), sizeof(*m));
	m = h->merged;
	while (a < cw->n || i < j) {
		b = i < j ? &h->rows[i] : NULL;
		cmp = b == NULL ? -1 : a == cw->n ? 1 :
		    crow_order(h, &cw->rows[a], b->prefix, b->g);
		if (cmp < 0) {
			m[n++] = cw->rows[a++];
			continue;
		}
		if (cmp == 0) {	/* (merged: freed by ha_drop()) */
			aggs_merge(h->g, &h->a, group_acc(h, cw->rows[a].g),
			    group_acc(h, b->g));
			m[n++] = cw->rows[a++];
		} else {
			m[n].prefix = b->prefix;
			m[n++].g = b->g;
			b->g |= ROW_MOVED;
		}
		i++;
	}
	/* (the two buffers swap: the old one is the next scratch) */
	t = cw->rows;
	cw->rows = m;
	cw->n = n;
	h->merged = t;
	n = cw->cap;
	cw->cap = h->capmerged;
	h->capmerged = n;
}

/* cw's window that ends at e, a row per group; stops at a fold that is
 * not exact (h->gave_up: the operator folds such sums in another
 * grouping, and only it can give their bytes). Returns the rows fired. */
static uint64_t
cum_emit(struct hashagg *h, const struct cumwin *cw, int64_t e,
    op_emit_fn emit, void *arg)
{
	struct op_row row = { .has_bounds = 1, .final = 1, .g = h->g,
		.start = cw->start, .end = e, .a = &h->a };
	const struct group *gp;
	size_t i;

	for (i = 0; i < cw->n; i++) {
		if (i + 4 < cw->n)
			warm(group_at(h, cw->rows[i + 4].g));
		gp = group_at(h, cw->rows[i].g);
		aggs_fold_begin(h->g);
		aggs_fold(h->g, &h->a, group_acc(h, cw->rows[i].g));
		if (!h->regroup && !aggs_fold_exact(h->g)) {
			h->gave_up = 1;
			quick_again(h);
			break;
		}
		row.key = gp->g_key;
		row.keylen = gp->g_len;
		emit(arg, &row);
	}
	return i;
}

/* cw's windows have all fired: its groups are freed. */
static void
cum_close(struct hashagg *h, struct cumwin *cw)
{
	size_t i;
	aoff g;

	for (i = 0; i < cw->n; i++) {
		g = cw->rows[i].g;
		aggs_release(h->g, &h->a, group_acc(h, g));
		arena_free(&h->a, g, group_size(h, group_at(h, g)->g_len));
	}
	free(cw->rows);
	h->ncw--;
	memmove(cw, cw + 1, (size_t)(h->cw + h->ncw - cw) * sizeof(*cw));
}

/* The earliest end of a window to fire (INT64_MAX: none). */
int64_t
ha_cum_due(const struct hashagg *h)
{
	int64_t e = h->min_start != INT64_MAX ? h->min_end : INT64_MAX;
	size_t i;

	for (i = 0; i < h->ncw; i++)
		if (h->cw[i].next < e)
			e = h->cw[i].next;
	return e;
}

/* The start of the window of the size that holds t. */
int64_t
ha_cum_size_start(const struct hashagg *h, int64_t t)
{
	struct span sp;

	if (h->as.ops->assign(&h->as, t, &sp) != AS_OK)
		return t < 0 ? INT64_MIN : INT64_MAX;
	return h->as.ops->start(&h->as, sp.last_end);
}

/* The first start of a window of the size at or after t. */
int64_t
ha_cum_align(const struct hashagg *h, int64_t t)
{
	int64_t ws;

	if (t == INT64_MIN || t == INT64_MAX ||
	    (ws = ha_cum_size_start(h, t)) == t)
		return t;
	return ws == INT64_MIN || ws == INT64_MAX ? ws :
	    h->as.ops->last_end(&h->as, t);
}

/* Fires every window that ends at or before w and starts at or after
 * from (the start of a window of the size), in (end, start, key) order:
 * the panes that ended, in end order, each folded into its window of
 * the size as that window's row fires. Returns the rows fired. */
uint64_t
ha_cum_fire(struct hashagg *h, int64_t w, int64_t from, op_emit_fn emit,
    void *arg)
{
	int64_t upto = ha_ended_before(h, w), e;
	uint64_t fired = 0;
	size_t i = 0, j, k;
	struct cumwin *cw;

	ha_collect(h, from, upto);
	for (;;) {
		/* the next end: a pane's, or an open window's next */
		e = i < h->nrows ? h->as.ops->end_after(&h->as,
		    h->rows[i].start) : INT64_MAX;
		for (k = 0; k < h->ncw; k++)
			if (h->cw[k].next < e && h->cw[k].start >= from)
				e = h->cw[k].next;
		if (e > w || e == INT64_MAX)
			break;
		cw = cum_window(h, e);
		/* (ends are pane bounds: the panes before e end at e) */
		for (j = i; j < h->nrows && h->rows[j].start < e; j++)
			;
		cum_merge(h, cw, i, j);
		i = j;
		fired += cum_emit(h, cw, e, emit, arg);
		if (h->gave_up)
			return fired;	/* (the table is dropped) */
		if (e >= cw->end)
			cum_close(h, cw);
		else
			cw->next = h->as.ops->end_after(&h->as, e);
	}
	ha_fired(h, from, upto, 1);
	return fired;
}

/* other's groups of windows of the size that start before upto, into
 * h's: another part of the same input, after h's (split.h; flat
 * aggregates, their folds kept as accumulators). A group whose pane
 * ended before h's watermark joins the watermark's pane, as its records
 * would have, read after h's. */
void
ha_cum_absorb(struct hashagg *h, struct hashagg *other, int64_t upto)
{
	const struct group *gp;
	int64_t start;
	size_t i;
	aoff g;

	ha_collect(other, INT64_MIN, upto);
	for (i = 0; i < other->nrows; i++) {
		gp = group_at(other, other->rows[i].g);
		start = gp->g_start;
		if (h->as.ops->end_after(&h->as, start) <= h->wm)
			(void)assign_pane(&h->as, &h->wm_span, h->wm, &start);
		g = ha_group_of(h, group_hash(key_hash(gp->g_key, gp->g_len),
		    start), start, gp->g_key, gp->g_len);
		aggs_fold_begin(h->g);
		aggs_fold(h->g, &h->a, group_acc(h, g));
		aggs_fold(h->g, &other->a, group_acc(other, other->rows[i].g));
		aggs_fold_store(h->g, &h->a, group_acc(h, g));
	}
	ha_fired(other, INT64_MIN, upto, 0);
}

