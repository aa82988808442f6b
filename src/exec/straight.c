/* straight: batch mode on input in time order (fwin(1): BATCH AND
 * STREAM MODES). Batch output is defined as a stream's with lateness 0
 * over the records stably sorted by time. While the input is in time
 * order it is that sorted stream already: records go to the operator as
 * they are read, and its rows are held in a scratch file (hold.h) until
 * the end of the input shows that no record came out of order; then they
 * are written, and the end fires the rest. The first record out of order
 * (or state past a quarter of the memory budget) gives up (fallback.c):
 * the rows held and the operator's state are dropped, the driver's
 * counters kept, and sorted takes the records: kept as they came when
 * the input cannot be read twice (a pipe, standard input), or read
 * again from the named regular FILEs. So input in time order costs what
 * a stream costs; other input loses only the work done on its ordered
 * prefix. */
#include <stdio.h>
#include <stdlib.h>

#include "flow/batch.h"
#include "exec/exec.h"
#include "exec/hold.h"
#include "exec/warm.h"
#include "exec/why.h"
#include "base/util.h"

struct straight {
	struct ex_env *env;
	struct hold hold;
	struct batch *kept;	/* every record, should the order break (a
				 * pipe's), or NULL */
	int64_t last;		/* the last time */
	uint64_t max;		/* the most state it may keep */
	int wm;			/* the watermark fires windows */
	int in_order;		/* the end showed they came in time order */
};

static void *
straight_open(struct ex_env *env, const struct ex_left *from)
{
	struct straight *s = xcalloc(1, sizeof(*s));

	(void)from;	/* (only ever first) */
	if (hold_begin(&s->hold, env->sink) != 0) {
		free(s);
		return NULL;	/* (sorted, as for any input) */
	}
	s->env = env;
	if (!env->plan->pl_rereadable)
		s->kept = batch_new(env->c, env->plan->pl_memory);
	s->last = INT64_MIN;
	s->max = env->plan->pl_memory / 4;
	s->wm = op_uses_watermark(env->op);
	return s;
}

static int
straight_record(void *arg, const struct parsed *pr,
    const struct op_rec *orec)
{
	struct straight *s = arg;
	struct op *op = s->env->op;

	(void)pr;
	if (orec->t < s->last ||
	    arena_hdr(&op_state(op)->a)->ah_used > s->max)
		return EX_GIVEUP;
	s->last = orec->t;
	switch (op_record(op, orec)) {
	case OP_ADDED:
	case OP_NOWIN:
		if (s->kept != NULL) {
			switch (batch_add(s->kept, orec->t, orec->key,
			    orec->keylen, orec->vals)) {
			case BATCH_RANGE:
				return EX_RANGE;
			case BATCH_FAIL:	/* a spill failed: said */
				return EX_FAIL;
			}
		}
		return s->wm ? EX_ADDED : EX_KEPT;
	case OP_RANGE:
		return EX_RANGE;
	}
	return EX_GIVEUP;	/* (late or corrupt: not in time order) */
}

static void
straight_advance(void *arg, int64_t w, int64_t maxt)
{
	struct straight *s = arg;

	(void)maxt;
	op_advance(s->env->op, w);
}

/* What the operator did is dropped: its rows held, its state. */
static void
drop(struct straight *s)
{
	hold_drop(&s->hold);
	s->env->renew(s->env->arg);
}

static int
straight_finish(void *arg, int flush, int failed)
{
	struct straight *s = arg;

	if (failed) {	/* (batch mode writes no row of a failed run) */
		drop(s);
		return 0;
	}
	switch (hold_commit(&s->hold)) {
	case 0:	/* (the scratch file is full: the records replayed) */
		return EX_GIVEUP;
	case -1:
		s->in_order = 1;
		return -1;
	}
	s->in_order = 1;
	if (!s->env->stopped(s->env->arg))
		op_end(s->env->op, flush);
	return 0;
}

static void
straight_give_up(void *arg, struct ex_left *left)
{
	struct straight *s = arg;

	drop(s);
	left->kept = s->kept;	/* (NULL: the FILEs are read again) */
	s->kept = NULL;
}

static void
straight_size(void *arg, struct ex_size *z, int live)
{
	struct straight *s = arg;

	(void)live;
	if (s->kept != NULL)
		batch_spilled(s->kept, &z->runs, &z->bytes);
	if (s->in_order)
		snprintf(z->how, sizeof(z->how), ", in time order");
}

static void
straight_prefetch(void *arg, struct source *from)
{
	warm_op(((struct straight *)arg)->env->op, from);
}

static void
straight_free(void *arg)
{
	struct straight *s = arg;

	hold_drop(&s->hold);
	batch_free(s->kept);
	free(s);
}

const struct ex_methods ex_straight = {
	.name = "straight",
	.what = "one pass through the window operator while the records "
	    "come in time order, the rows held until the end shows they did; "
	    "at the first record out of order, sorted",
	.id = ST_STRAIGHT,
	.fits = why_batch_fits,
	.open = straight_open,
	.record = straight_record,
	.advance = straight_advance,
	.finish = straight_finish,
	.give_up = straight_give_up,
	.size = straight_size,
	.prefetch = straight_prefetch,
	.free = straight_free,
};
