/* ordered: the window operator (operator.h) over the records in arrival
 * order, as Flink's WindowOperator takes a stream: it runs every stream,
 * and its state is all in the operator's arena, which checkpoints hold.
 * It is what the stream table gives up to (fallback.c). */
#include <stdlib.h>

#include "exec/exec.h"
#include "exec/warm.h"
#include "exec/why.h"
#include "base/util.h"

struct ordered {
	struct ex_env *env;
	int wm;			/* the watermark fires windows */
};

static int
ordered_fits(const struct config *c, const struct aggs *g,
    const struct plan *p, char *why)
{
	(void)c;
	(void)g;
	if (p->pl_mode == MODE_BATCH)
		return why_not(why, WHY_STREAM_ONLY);
	return 1;
}

static void *
ordered_open(struct ex_env *env, const struct ex_left *from)
{
	struct ordered *s = xcalloc(1, sizeof(*s));

	(void)from;	/* (the records come again through record()) */
	s->env = env;
	s->wm = op_uses_watermark(env->op);
	return s;
}

static int
ordered_record(void *arg, const struct parsed *pr,
    const struct op_rec *orec)
{
	struct ordered *s = arg;

	(void)pr;
	switch (op_record(s->env->op, orec)) {
	case OP_ADDED:
		return s->wm ? EX_ADDED : EX_KEPT;
	case OP_NOWIN:
		return s->wm ? EX_NOWIN : EX_KEPT;
	case OP_LATE:
		return EX_LATE;
	case OP_RANGE:	/* only an event time can be this far out */
		return EX_RANGE;
	}
	return EX_KEPT;	/* (corrupt: the driver ends the run) */
}

static void
ordered_advance(void *arg, int64_t w, int64_t maxt)
{
	struct ordered *s = arg;

	(void)maxt;
	op_advance(s->env->op, w);
}

static int64_t
ordered_next_timer(void *arg)
{
	return op_next_timer(((struct ordered *)arg)->env->op);
}

static int
ordered_finish(void *arg, int flush, int failed)
{
	struct ordered *s = arg;

	if (!failed)
		op_end(s->env->op, flush);
	return 0;
}

static void
ordered_prefetch(void *arg, struct source *from)
{
	warm_op(((struct ordered *)arg)->env->op, from);
}

const struct ex_methods ex_ordered = {
	.name = "ordered",
	.what = "one pass over the records in arrival order through the "
	    "window operator",
	.id = ST_ORDERED,
	.checkpoints = 1,
	.fits = ordered_fits,
	.open = ordered_open,
	.record = ordered_record,
	.advance = ordered_advance,
	.next_timer = ordered_next_timer,
	.finish = ordered_finish,
	.prefetch = ordered_prefetch,
	.free = free,
};
