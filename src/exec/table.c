/* table: batch mode without a sort, where order cannot show (fwin(1):
 * BATCH AND STREAM MODES; hashagg.h). A tumbling window whose aggregates
 * give the same bytes in any order (AGF_ANYORDER) is the fold of its
 * records: each record is added as read to its (window, key) group, and
 * the groups fire at the end in (end, start, key) order.
 *
 * While the records come in time order, the table is the stream table's
 * (streamtable.c) with a window's lateness: each window fires as the
 * input passes it, its rows held in a scratch file (hold.h) until the
 * end shows that no record came out of order by a window. The first that
 * does gives up (fallback.c): the rows held are dropped, and the FILEs
 * are read again into a table that takes records in any order, which
 * past its budget spills sorted runs of groups (hashspill.c), and when
 * it cannot, gives up to sorted. */
#include <stdlib.h>

#include "flow/batch.h"
#include "flow/parse.h"
#include "exec/tableint.h"
#include "exec/why.h"
#include "base/util.h"

struct table {
	struct ex_env *env;
	int any;		/* records in any order: h; else in time
				 * order: st, its rows held */
	struct stable st;
	struct hold hold;
	uint64_t max;		/* st's budget */
	struct hashagg *h;
	int in_order;		/* the end showed they came in time order */
};

static int
table_fits(const struct config *c, const struct aggs *g,
    const struct plan *p, char *why)
{
	if (p->pl_mode == MODE_STREAM)
		return why_not(why, WHY_BATCH_ONLY);
	if (!p->pl_rereadable)
		return why_not(why, WHY_NOT_FILES);
	return why_table_takes(c, g, 0, why);
}

/* Records in any order from now on. */
static void
any_begin(struct table *t)
{
	const struct config *c = t->env->c;

	t->any = 1;
	t->h = hashagg_new(c, t->env->g, t->env->plan->pl_memory / 2);
	/* past it, sorted runs of groups rather than all the records
	 * sorted: the operator's replay would hold every key of a window */
	hashagg_spill(t->h);
	hashagg_look_ahead(t->h);
}

static void *
table_open(struct ex_env *env, const struct ex_left *from)
{
	struct table *t = xcalloc(1, sizeof(*t));

	t->env = env;
	t->hold.fd = -1;
	/* first: in time order, as long as the rows can be held; taking
	 * over from that: in any order */
	if (from == NULL && hold_begin(&t->hold, env->sink) == 0) {
		t->max = env->plan->pl_memory / 4;
		/* (with a lateness of a window, months: none: while no record
		 * is late its windows are the folds of all their records) */
		stable_init(&t->st, env, t->max, env->c->size, 1);
	} else
		any_begin(t);
	return t;
}

static int
table_record(void *arg, const struct parsed *pr, const struct op_rec *orec)
{
	struct table *t = arg;

	if (!t->any)
		return stable_record(&t->st, pr, orec);
	switch (hashagg_add(t->h, orec, pr->has_win ? &pr->win : NULL)) {
	case HA_ADDED:
		return EX_KEPT;
	case HA_RANGE:
		return EX_RANGE;
	}
	/* a value that makes order show, or the table past its budget */
	return EX_GIVEUP;
}

static void
table_advance(void *arg, int64_t w, int64_t maxt)
{
	struct table *t = arg;

	(void)maxt;	/* (records of another partition: the operator's) */
	op_advance(t->env->op, w);
}

/* What the table did in time order is dropped: its rows held, and the
 * operator's counters of it. */
static void
drop(struct table *t)
{
	stable_fini(&t->st);
	hold_drop(&t->hold);
	t->env->renew(t->env->arg);
}

int
table_end(struct table *t, int flush, int failed, const struct half *hf)
{
	struct ex_env *env = t->env;
	struct op_globals *G = op_globals(env->op);
	struct hashagg *h2 = hf != NULL ? hf->h2 : NULL;

	(void)flush;	/* (every window fires: a batch's end) */
	if (!t->any && failed) {	/* its rows are not written */
		drop(t);
		return 0;
	}
	if (!t->any) {
		switch (hold_commit(&t->hold)) {
		case 0:	/* (the scratch file is full) */
			return EX_GIVEUP;
		case -1:
			t->in_order = 1;
			return -1;
		}
		t->in_order = 1;
		return env->stopped(env->arg) ? 0 : stable_end(&t->st, 0, hf);
	}
	if (failed)
		return 0;
	/* every group, fired as its window */
	G->g_maxt = hashagg_max_time(t->h);
	if (h2 != NULL && hashagg_max_time(h2) > G->g_maxt)
		G->g_maxt = hashagg_max_time(h2);
	G->g_fired += hashagg_fire(t->h, h2, env->row, env->arg);
	return hashagg_failed(t->h) ? -1 : 0;
}

static int
table_finish(void *t, int flush, int failed)
{
	return table_end(t, flush, failed, NULL);
}

static void
table_give_up(void *arg, struct ex_left *left)
{
	struct table *t = arg;

	if (!t->any) {	/* a record out of time order, or the table full */
		drop(t);
		left->again = 1;	/* in any order */
		return;
	}
	hashagg_free(t->h);
	t->h = NULL;
}

/* The table the records go to: in any order, or in time order so far
 * (NULL once a failed run dropped it). */
static struct hashagg *
current(const struct table *t)
{
	return t->any ? t->h : t->st.h;
}

struct hashagg *
table_hashagg(struct table *t, int *in_order, uint64_t *max)
{
	*in_order = !t->any;
	*max = t->max;
	return current(t);
}

void
table_size(const struct table *t, const struct half *hf, struct ex_size *z)
{
	const struct hashagg *h = current(t);

	if (h != NULL)	/* (a failed run dropped it) */
		table_stats(h, hf, t->in_order, z);
}

static void
table_size_of(void *arg, struct ex_size *z, int live)
{
	const struct table *t = arg;
	const struct hashagg *h = current(t);

	if (!live)
		table_size(t, NULL, z);
	else if (h != NULL)
		table_live(h, z);
}

static void
table_free(void *arg)
{
	struct table *t = arg;

	hold_drop(&t->hold);
	stable_fini(&t->st);
	hashagg_free(t->h);
	free(t);
}

const struct ex_methods ex_table = {
	.name = "table",
	.what = "each record added as read to its (window, key) group, in "
	    "any order; while no record is a window out of time order, each "
	    "window fires as the input passes it",
	.id = ST_TABLE,
	.windows = 1,
	.fits = table_fits,
	.open = table_open,
	.record = table_record,
	.advance = table_advance,
	.finish = table_finish,
	.give_up = table_give_up,
	.size = table_size_of,
	.free = table_free,
};
