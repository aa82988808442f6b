/* streamtable: a stream aggregated as read (hashagg.h, hashagg_stream).
 * A tumbling window with no allowed lateness fires once, when the
 * watermark passes its end, and its row is the fold of its records in
 * input order; a table of (window, key) groups gives those rows at the
 * cost of one look-up per record, where the operator keeps a key, its
 * panes and a timer. Records late for it are those the operator would
 * drop, said and counted the same way; rows of the windows that have
 * ended come out in the same order, in batches (the table fires when it
 * has grown enough, when input would block, and at the end), so that
 * what a reader of the output sees differs only in when rows are
 * written between two waits for input, as buffered output differs.
 *
 * Named regular FILEs: when the table passes its budget it gives up
 * (fallback.c): the FILEs are read again through the operator, the rows
 * already written skipped (the operator fires the same ones first): the
 * same bytes, at the operator's cost. A stream read once (a pipe,
 * standard input) cannot be read again: its table has no budget but its
 * reach (as the operator has none without --max-memory).
 *
 * Batch mode's table (table.c) is this table too while its records come
 * in time order, with a window's lateness, its rows held; halves.c joins
 * two of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flow/batch.h"
#include "io/output.h"
#include "flow/parse.h"
#include "exec/tableint.h"
#include "exec/why.h"
#include "base/util.h"

uint64_t
stable_budget(void)
{
	/* (an environment variable, no option: it changes no byte of what
	 * fwin says; fwin(1), ENVIRONMENT) */
	const char *b = getenv("FWIN_TABLE_BUDGET");

	return b != NULL && *b != '\0' ? strtoull(b, NULL, 10) :
	    batch_default_budget() / 2;
}

void
stable_init(struct stable *t, struct ex_env *env, uint64_t budget,
    int64_t lateness, int batch)
{
	memset(t, 0, sizeof(*t));
	t->env = env;
	t->batch = batch;
	t->h = hashagg_new(env->c, env->g, budget);
	hashagg_stream(t->h, lateness);
	if (env->c->wkind == WK_SLIDE)
		hashagg_slide(t->h);
	hashagg_look_ahead(t->h);
}

void
stable_fini(struct stable *t)
{
	hashagg_free(t->h);
	t->h = NULL;
}

/* Fires what is due (all of it with force). */
static void
fire_due(struct stable *t, int force)
{
	uint64_t n = hashagg_fire_due(t->h, force, INT64_MIN, t->env->row,
	    t->env->arg);

	t->fired += n;
	op_globals(t->env->op)->g_fired += n;
}

/* stable_record() past the commonest answer, added in a stream. */
static __attribute__((noinline)) int
record_answered(struct stable *t, const struct parsed *pr,
    const struct op_rec *orec, int rc)
{
	struct op_globals *G;
	int tries;

	for (tries = 1; rc == HA_FULL || rc == HA_DUE; tries++) {
		/* (what has ended frees room; --slide: fires before the
		 * record joins the windows that have not) */
		fire_due(t, 1);
		if (tries == 3)
			break;
		rc = hashagg_add(t->h, orec, pr->has_win ? &pr->win : NULL);
	}
	if (rc == HA_FULL && t->once) {
		fwin_warn("the table of open (window, key) groups is full "
		    "(32 GiB), and input read once cannot be read again "
		    "through the window operator: run with "
		    "FWIN_STRATEGY=ordered");
		return EX_FAIL;
	}
	switch (rc) {
	case HA_ADDED:
		if (!t->batch)
			return EX_ADDED;	/* (stable_advance) */
		/* batch mode: its own watermark, not the operator's, which
		 * a record of another partition moves */
		G = op_globals(t->env->op);
		if (orec->t > G->g_maxt) {
			G->g_maxt = orec->t;
			G->g_wm = hashagg_watermark(t->h);
			fire_due(t, 0);
		}
		return hashagg_gave_up(t->h) ? EX_GIVEUP : EX_KEPT;
	case HA_LATE:
		if (t->batch)	/* not in time order after all */
			return EX_GIVEUP;
		op_globals(t->env->op)->g_late++;
		return EX_LATE;
	case HA_RANGE:
		return EX_RANGE;
	}
	return EX_GIVEUP;	/* (full, or gave up) */
}

int
stable_record(struct stable *t, const struct parsed *pr,
    const struct op_rec *orec)
{
	/* (--cumulate: a fold not exact, met while firing, now or before:
	 * HA_GAVEUP; the operator takes the records from the first) */
	int rc = hashagg_add(t->h, orec, pr->has_win ? &pr->win : NULL);

	return rc == HA_ADDED && !t->batch ? EX_ADDED :
	    record_answered(t, pr, orec, rc);
}

void
stable_advance(struct stable *t, int64_t w, int64_t maxt)
{
	if (t->batch) {
		op_advance(t->env->op, w);
		return;
	}
	hashagg_advance(t->h, w, maxt);
	op_globals(t->env->op)->g_wm = hashagg_watermark(t->h);
	fire_due(t, 0);
}

/* The rows of windows before from, both halves' groups merged: with
 * many, the later ones are formatted on a second thread into a scratch
 * file, copied after the first ones (or fired again here if that file
 * could not be written). Returns 0, or -1 after a message. */
static int
fire_joined(struct stable *t, struct hashagg *h2, int64_t from,
    uint64_t *n)
{
	struct ex_env *env = t->env;
	struct hashagg_cut cut;
	const char *dir;
	struct aggs *g2;
	struct out *o;
	struct sink *sink;
	int fd, rc = 0;

	if (h2 == NULL || (fd = scratch_open(&dir)) < 0) {
		*n = hashagg_fire_before(t->h, h2, from, env->row, env->arg);
		return 0;
	}
	o = sink_output_like(env->sink, fd);
	sink = sink_like(env->sink, o);
	g2 = aggs_new(env->c);
	*n = hashagg_fire_split(t->h, h2, from, env->row, env->arg, g2,
	    sink_emit, sink, &cut);
	if (cut.fired2 > 0 && sink_flush(sink) == 0)
		rc = hold_write(env->sink, fd, cut.fired2, env->copied,
		    env->arg);
	else if (cut.fired2 > 0)	/* (the scratch file's error: unsaid) */
		(void)hashagg_fire_cut(t->h, h2, &cut, env->row, env->arg);
	*n += cut.fired2;
	aggs_free(g2);
	(void)sink_close(sink);
	(void)out_close(o);
	close(fd);
	return rc;
}

/* --cumulate: whether a table met a fold it cannot give the bytes of. */
static int
gave_up(const struct stable *t, const struct hashagg *h2)
{
	return hashagg_gave_up(t->h) || (h2 != NULL && hashagg_gave_up(h2));
}

int
stable_end(struct stable *t, int failed, const struct half *hf)
{
	struct hashagg *h2 = hf != NULL ? hf->h2 : NULL;
	int64_t from;
	uint64_t n;

	if (failed) {	/* what the operator had fired by now */
		fire_due(t, 1);
		return 0;
	}
	/* the second half's rows written on its thread come after those
	 * of earlier windows, and before those of its windows still open */
	from = h2 != NULL ? hashagg_fired_from(h2) : INT64_MAX;
	if (fire_joined(t, h2, from, &n) != 0)
		return -1;
	if (!gave_up(t, h2) && hf != NULL && hf->rows > 0) {
		if (hold_write(t->env->sink, hf->fd, hf->rows, t->env->copied,
		    t->env->arg) != 0)
			return -1;	/* (no row after it: said once) */
		n += hf->rows;
	}
	if (!gave_up(t, h2))
		n += hashagg_fire(t->h, h2, t->env->row, t->env->arg);
	t->fired += n;
	op_globals(t->env->op)->g_fired += n;
	/* (the operator fires the rest: fallback.c) */
	return gave_up(t, h2) ? EX_GIVEUP : 0;
}

void
stable_give_up(struct stable *t, struct ex_left *left)
{
	struct op_globals *G = op_globals(t->env->op);

	stable_fini(t);
	G->g_wm = INT64_MIN;
	G->g_maxt = INT64_MIN;
	/* the rows it wrote are the first the operator fires */
	left->written = t->fired;
}

void
table_stats(const struct hashagg *h, const struct half *hf, int in_order,
    struct ex_size *z)
{
	uint64_t peak2, keys;

	hashagg_spilled(h, &z->runs, &z->bytes);
	hashagg_size(h, &keys, &z->peak);
	if (hf != NULL && hf->h2 != NULL) {	/* the groups of both */
		hashagg_size(hf->h2, &keys, &peak2);
		z->peak += peak2;
	}
	z->keys = z->fired;	/* each window's key is a key of its own */
	snprintf(z->how, sizeof(z->how), "%s%s", in_order ?
	    ", in time order" : ", aggregated as read",
	    hf != NULL && hf->h2 != NULL ? ", in two halves" : "");
}

void
table_live(const struct hashagg *h, struct ex_size *z)
{
	uint64_t peak;

	z->panes = hashagg_windows(h);
	hashagg_size(h, &z->keys, &peak);
}

/* --- the strategy --- */

static int
streamtable_fits(const struct config *c, const struct aggs *g,
    const struct plan *p, char *why)
{
	if (p->pl_mode == MODE_BATCH)
		return why_not(why, WHY_STREAM_ONLY);
	if (c->checkpoint != NULL || c->restore != NULL)
		return why_not(why, "--checkpoint, --restore or --state: a "
		    "checkpoint holds the window operator's state");
	if (c->flush == 0)
		return why_not(why, "--no-flush: open windows are kept, not "
		    "fired");
	if (!c->has_time)
		return why_not(why, "no -t: windows in processing time");
	if (c->allowed != 0)
		return why_not(why, "--allowed-lateness: a window fires again "
		    "for each late record");
	/* (the operator's state past it ends the run, which only the
	 * operator can say) */
	if (c->max_memory != 0)
		return why_not(why, "--max-memory: it bounds the window "
		    "operator's state");
	if (c->part_n > 1)
		return why_not(why, "--partition: the records of other "
		    "partitions move the watermark only");
	if (c->follow)
		return why_not(why, "--follow: each FILE's records move a "
		    "watermark of its own");
	return why_table_takes(c, g, 1, why);
}

static void *
streamtable_open(struct ex_env *env, const struct ex_left *from)
{
	struct stable *t = xmalloc(sizeof(*t));
	int once = !env->plan->pl_rereadable;

	(void)from;	/* (only ever first, or its halves' table) */
	stable_init(t, env, once ? UINT64_MAX : stable_budget(),
	    env->c->lateness, 0);
	t->once = once;
	return t;
}

static int
streamtable_record(void *t, const struct parsed *pr,
    const struct op_rec *orec)
{
	return stable_record(t, pr, orec);
}

static void
streamtable_advance(void *t, int64_t w, int64_t maxt)
{
	stable_advance(t, w, maxt);
}

/* When a window ends: --idle-timeout's clock wakes the driver then. */
static int64_t
streamtable_next_timer(void *t)
{
	return hashagg_next_due(((struct stable *)t)->h);
}

/* Input would block: what has ended is written now, as the operator
 * would have written it by now. */
static void
streamtable_idle(void *t)
{
	fire_due(t, 1);
}

static int
streamtable_finish(void *t, int flush, int failed)
{
	(void)flush;	/* (every window fires: no --no-flush) */
	return stable_end(t, failed, NULL);
}

static void
streamtable_give_up(void *t, struct ex_left *left)
{
	stable_give_up(t, left);
}

static void
streamtable_size(void *t, struct ex_size *z, int live)
{
	const struct hashagg *h = ((struct stable *)t)->h;

	if (live)
		table_live(h, z);
	else
		table_stats(h, NULL, 0, z);
}

static void
streamtable_free(void *t)
{
	stable_fini(t);
	free(t);
}

const struct ex_methods ex_streamtable = {
	.name = "streamtable",
	.what = "each record added as read to its (window, key) group, a "
	    "window's groups fired as the watermark passes its end",
	.id = ST_STREAMTABLE,
	.windows = 1,
	.fits = streamtable_fits,
	.open = streamtable_open,
	.record = streamtable_record,
	.advance = streamtable_advance,
	.next_timer = streamtable_next_timer,
	.idle = streamtable_idle,
	.finish = streamtable_finish,
	.give_up = streamtable_give_up,
	.size = streamtable_size,
	.free = streamtable_free,
};
