/* runagg: --mode stream aggregated as read (hashagg.h, hashagg_stream):
 * the driver's side. A tumbling window with no allowed lateness fires
 * once, when the watermark passes its end, and its row is the fold of its
 * records in input order; a table of (window, key) groups gives those
 * rows at the cost of one look-up per record, where the operator keeps a
 * key, its panes and a timer. Records late for it are those the operator
 * would drop, said and counted the same way; rows of the windows that
 * have ended come out in the same order, in batches (the table fires
 * when it has grown enough, and at the end), so that only the timing of
 * writes differs, and only where nothing can see it: named regular
 * files, read to their end without waiting, no checkpoint. When the table
 * passes its budget, the FILEs are read again through the operator, the
 * rows already written skipped (the operator fires the same ones first):
 * the same bytes, at the operator's cost. See runint.h. */
#include <stdlib.h>
#include <unistd.h>

#include "run/runint.h"
#include "base/util.h"

/* The table's budget: half of batch mode's sort budget, as batch mode's
 * table (FWIN_TABLE_BUDGET, bytes, says otherwise: fwin(1), ENVIRONMENT;
 * no option, as it changes no byte of what fwin says). */
uint64_t
stream_agg_budget(void)
{
	const char *b = getenv("FWIN_TABLE_BUDGET");

	return b != NULL && *b != '\0' ? strtoull(b, NULL, 10) :
	    batch_default_budget() / 2;
}

void
stream_agg_begin(struct run *r)
{
	const struct config *c = r->c;

	/* the plan's streamtable or halves (plan.h) */
	if (r->batch != NULL || !plan_table(r->plan))
		return;
	r->hagg = hashagg_new(c, r->g, stream_agg_budget());
	hashagg_stream(r->hagg, c->lateness);
	if (c->threads < 2)	/* (no reading thread to look ahead in) */
		hashagg_look_ahead(r->hagg);
}

/* The table gave up (the fallback from streamtable to ordered, plan.h):
 * the operator takes over, given the first n records
 * again; what they said was said, and the rows the table wrote are the
 * first the operator fires: skipped (by then, or as the run goes on). */
static void
stream_agg_drop(struct run *r, uint64_t n)
{
	struct op_globals kept = *G(r);

	hashagg_free(r->hagg);
	r->hagg = NULL;
	hashagg_free(r->hagg2);	/* (at the end: it read the second half) */
	r->hagg2 = NULL;
	split_drop(r);	/* the operator reads the input in one piece */
	G(r)->g_wm = INT64_MIN;
	G(r)->g_maxt = INT64_MIN;
	sink_skip(r->sink, r->agg_fired);
	if (reread(r, n) != 0)
		r->fatal = 1;
	G(r)->g_late = kept.g_late;
	G(r)->g_fired -= r->agg_fired;
}

/* Fires what is due (all of it with force). */
static void
fire_due(struct run *r, int force)
{
	uint64_t n = hashagg_fire_due(r->hagg, force, INT64_MIN, on_row, r);

	r->agg_fired += n;
	G(r)->g_fired += n;
}

void
stream_agg_advance(struct run *r, int64_t t)
{
	hashagg_advance(r->hagg, t);
	if (t > G(r)->g_maxt) {
		G(r)->g_maxt = t;
		G(r)->g_wm = hashagg_watermark(r->hagg);
		fire_due(r, 0);
	}
}

int
stream_agg_add(struct run *r, const struct parsed *pr,
    const struct op_rec *orec)
{
	struct hashagg *h = r->hagg;
	int rc, tries;

	for (tries = 0; tries < 2; tries++) {
		rc = hashagg_add(h, orec->t, pr->has_win ? &pr->win : NULL,
		    orec->key, orec->keylen, orec->hash, orec->vals);
		if (rc != HA_FULL)
			break;
		fire_due(r, 1);	/* (what has ended frees room) */
	}
	if (rc == HA_ADDED && orec->t > G(r)->g_maxt) {
		FUTURE_CHECK(r, pr, orec->t);
		G(r)->g_maxt = orec->t;
		G(r)->g_wm = hashagg_watermark(h);
		fire_due(r, 0);
	}
	/* (--cumulate: a fold not exact; the operator takes this record) */
	return hashagg_gave_up(h) ? HA_ORDER : rc;
}

int
stream_agg_record(struct run *r, const struct parsed *pr,
    const struct op_rec *orec)
{
	switch (stream_agg_add(r, pr, orec)) {
	case HA_ADDED:
		return 1;
	case HA_LATE:
		G(r)->g_late++;
		if (sat_add(G(r)->g_wm, -orec->t) > r->late_by)
			r->late_by = sat_add(G(r)->g_wm, -orec->t);
		recsink_write(r->late, pr->raw, pr->rawlen);
		return 1;
	case HA_RANGE:
		out_of_range(r, pr);
		return 1;
	}
	stream_agg_drop(r, G(r)->g_read - 1);
	return r->fatal;
}

/* A sink like the driver's, for another thread, whose rows go to a new
 * scratch file *fd; or NULL. */
static struct sink *
scratch_sink(struct run *r, int *fd)
{
	const char *dir;

	if ((*fd = scratch_open(&dir)) < 0)
		return NULL;
	return sink_like(r->sink, sink_output_like(r->sink, *fd));
}

static void
scratch_sink_close(struct sink *s, int fd)
{
	struct out *o = sink_out(s);

	(void)sink_close(s);
	(void)out_close(o);
	close(fd);
}

/* The rows of windows before from, both halves' groups merged: with
 * many, the later ones are formatted on a second thread into a scratch
 * file, copied after the first ones (or fired again here if that file
 * could not be written). Returns 0, or -1 after a message. */
static int
fire_joined(struct run *r, int64_t from, uint64_t *n)
{
	struct hashagg_cut cut;
	struct aggs *g2;
	struct sink *sink;
	int fd, rc = 0;

	if (r->hagg2 == NULL || (sink = scratch_sink(r, &fd)) == NULL) {
		*n = hashagg_fire_before(r->hagg, r->hagg2, from, on_row, r);
		return 0;
	}
	g2 = aggs_new(r->c);
	*n = hashagg_fire_split(r->hagg, r->hagg2, from, on_row, r, g2,
	    sink_emit, sink, &cut);
	if (cut.fired2 > 0 && sink_flush(sink) == 0)
		rc = write_held(r, fd);
	else if (cut.fired2 > 0)	/* (the scratch file's error: unsaid) */
		(void)hashagg_fire_cut(r->hagg, r->hagg2, &cut, on_row, r);
	*n += cut.fired2;
	aggs_free(g2);
	scratch_sink_close(sink, fd);
	return rc;
}

/* --cumulate: whether a table met a fold it cannot give the bytes of. */
static int
gave_up(const struct run *r)
{
	return hashagg_gave_up(r->hagg) ||
	    (r->hagg2 != NULL && hashagg_gave_up(r->hagg2));
}

int
stream_agg_end(struct run *r, int status)
{
	int64_t from;
	uint64_t n;

	if (status != 0) {	/* what the operator had fired by now */
		fire_due(r, 1);
		return 0;
	}
	/* the second half's rows written on its thread come after those
	 * of earlier windows, and before those of its windows still open */
	from = r->hagg2 != NULL ? hashagg_fired_from(r->hagg2) : INT64_MAX;
	if (fire_joined(r, from, &n) != 0)
		return -1;
	if (!gave_up(r) && r->half_rows > 0) {
		if (write_held(r, r->half_fd) != 0)
			return -1;	/* (no row after it: said once) */
		n += r->half_rows;
	}
	if (!gave_up(r))
		n += hashagg_fire(r->hagg, r->hagg2, on_row, r);
	r->agg_fired += n;
	G(r)->g_fired += n;
	if (gave_up(r))		/* the operator fires the rest */
		stream_agg_drop(r, G(r)->g_read);
	return 0;
}

struct sink *
stream_half_sink(struct run *r)
{
	if (r->batch != NULL && !r->straight)
		return NULL;
	return r->half = scratch_sink(r, &r->half_fd);
}

int
stream_half_join(struct run *r, uint64_t nrows)
{
	uint64_t late;
	int64_t by;

	/* The guess held when the first half reached no window the second
	 * fired: those lie past its largest time, so none of them is late
	 * for its watermark or has groups in its table. */
	if ((r->half != NULL && sink_flush(r->half) != 0) ||
	    hashagg_fired_from(r->hagg2) <= G(r)->g_maxt)
		return 0;
	/* the watermark goes on: what the first half's made late in the
	 * second's groups, dropped and counted (in batch mode near time
	 * order, none may be: the records are to be sorted after all) */
	late = hashagg_drop_ended(r->hagg2, G(r)->g_wm, &by);
	if (r->batch != NULL && late > 0)
		return 0;
	r->half_rows = nrows;
	G(r)->g_late += late;
	if (by > r->late_by)
		r->late_by = by;
	if (hashagg_max_time(r->hagg2) > G(r)->g_maxt)
		G(r)->g_maxt = hashagg_max_time(r->hagg2);
	if (hashagg_watermark(r->hagg2) > G(r)->g_wm)
		G(r)->g_wm = hashagg_watermark(r->hagg2);
	return 1;
}

void
stream_half_free(struct run *r)
{
	if (r->half == NULL)
		return;
	scratch_sink_close(r->half, r->half_fd);
	r->half = NULL;
}
