/* keyed: --threads 3 or more on a stream (fwin(1): --threads): the keys
 * spread over worker threads by key group (workers.h), each worker a
 * window operator of its own over the groups it owns, as Flink's keyBy
 * spreads keys over parallel instances. The driver's operator judges
 * each record (for every window kind but sessions, whether a record is
 * late needs no keyed state: op_classify) and holds no keys; a kept
 * record goes to its key's worker, each watermark advance to all. */
#include <stdio.h>
#include <stdlib.h>

#include "exec/exec.h"
#include "flow/parse.h"
#include "exec/warm.h"
#include "exec/why.h"
#include "exec/workers.h"
#include "base/util.h"

struct keyed {
	struct ex_env *env;
	struct workers *ws;
	int wm;			/* the watermark fires windows */
};

static int
keyed_fits(const struct config *c, const struct aggs *g,
    const struct plan *p, char *why)
{
	(void)g;
	if (p->pl_mode == MODE_BATCH)
		return why_not(why, WHY_STREAM_ONLY);
	if (c->threads < 3)
		return why_not(why, "--threads %u: workers need 3 or more (a "
		    "reading thread and two workers)", c->threads);
	if (c->checkpoint != NULL || c->restore != NULL)
		return why_not(why, "--checkpoint, --restore or --state: a "
		    "checkpoint is one operator's state");
	if (!c->has_time && c->wkind != WK_COUNT)
		return why_not(why, "no -t: the clock moves the watermark");
	if (c->idle_timeout > 0)
		return why_not(why, "--idle-timeout: the clock moves the "
		    "watermark");
	if (c->top_n > 0)
		return why_not(why, "--top: a window's rows are ranked across "
		    "keys");
	if (c->emit_every > 0)
		return why_not(why, "--emit-every: open windows print partial "
		    "rows");
	if (c->max_memory != 0)
		return why_not(why, "--max-memory: the state it bounds is one "
		    "operator's");
	if (over_window(c))
		return why_not(why, "%s: each record is printed as read, in "
		    "input order", c->wkind == WK_OVER ? "--over" :
		    "--over-rows");
	return 1;
}

static void *
keyed_open(struct ex_env *env, const struct ex_left *from)
{
	struct keyed *s = xcalloc(1, sizeof(*s));

	(void)from;	/* (only ever first) */
	s->env = env;
	s->ws = workers_start(env);
	s->wm = op_uses_watermark(env->op);
	return s;
}

/* Steps 1-2 here (a session's: by its worker), step 3 by the worker. */
static int
keyed_record(void *arg, const struct parsed *pr, const struct op_rec *orec)
{
	struct keyed *s = arg;
	uint64_t seq;

	switch (op_classify(s->env->op, orec->t, &seq)) {
	case OP_ADDED:
		workers_record(s->ws, orec, seq, pr->raw, pr->rawlen);
		return s->wm ? EX_ADDED : EX_KEPT;
	case OP_NOWIN:
		return s->wm ? EX_NOWIN : EX_KEPT;
	case OP_LATE:
		return EX_LATE;
	case OP_RANGE:
		return EX_RANGE;
	}
	return EX_KEPT;
}

static void
keyed_advance(void *arg, int64_t w, int64_t maxt)
{
	struct keyed *s = arg;

	op_advance(s->env->op, w);
	workers_advance(s->ws, w, maxt);
}

static int64_t
keyed_next_timer(void *arg)
{
	return op_next_timer(((struct keyed *)arg)->env->op);
}

/* Their rows, before fwin waits for input. */
static void
keyed_idle(void *arg)
{
	workers_sync(((struct keyed *)arg)->ws);
}

static int
keyed_finish(void *arg, int flush, int failed)
{
	struct keyed *s = arg;
	uint64_t late;
	int64_t by, maxt;

	/* the rows of what was applied, and the late records the workers
	 * found (sessions) counted with the driver's */
	workers_sync(s->ws);
	workers_late(s->ws, &late, &by, &maxt);
	s->env->found_late(s->env->arg, late, by, maxt);
	if (!failed)
		workers_end(s->ws, flush, op_globals(s->env->op)->g_maxt);
	return 0;
}

static void
keyed_size(void *arg, struct ex_size *z, int live)
{
	struct keyed *s = arg;

	if (live) {	/* as they last finished a chunk */
		workers_held(s->ws, &z->panes, &z->keys);
		return;
	}
	workers_size(s->ws, &z->fired, &z->panes, &z->keys, &z->peak);
	snprintf(z->how, sizeof(z->how), ", keys over workers");
}

static void
keyed_prefetch(void *arg, struct source *from)
{
	warm_op(((struct keyed *)arg)->env->op, from);
}

static void
keyed_free(void *arg)
{
	struct keyed *s = arg;

	workers_free(s->ws);
	free(s);
}

const struct ex_methods ex_keyed = {
	.name = "keyed",
	.what = "the keys spread by key group over worker threads, each a "
	    "window operator of its own; the records read on a thread of "
	    "their own",
	.id = ST_KEYED,
	.fits = keyed_fits,
	.open = keyed_open,
	.record = keyed_record,
	.advance = keyed_advance,
	.next_timer = keyed_next_timer,
	.idle = keyed_idle,
	.finish = keyed_finish,
	.size = keyed_size,
	.prefetch = keyed_prefetch,
	.free = keyed_free,
};
