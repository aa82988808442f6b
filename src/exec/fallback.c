/* fallback: one way to give up (fwin(1): THE PLAN). What only reading
 * can show (a record out of time order, a table past its budget, a value
 * that makes order show, a second half that has something to say) makes
 * the strategy the plan chose answer EX_GIVEUP; then the next one takes
 * over with the same bytes:
 *
 *   - what the strategy printed is held or dropped: rows it held in a
 *     scratch file (hold.h) go with it; rows it wrote are counted, and
 *     the next one's first as many rows (the same ones) are skipped;
 *   - the source is rewound: the named FILEs are read again up to the
 *     record that gave up (their messages were said when first read),
 *     or the records it kept are taken as they are (a pipe's);
 *   - the records go to the next strategy, then the one that gave up.
 *
 * A strategy that speculated beside a table (halves) leaves the table,
 * which goes on with what it holds, reading on. Here also the driver's
 * other entries to the strategy it runs (exec.h). */
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "flow/parse.h"
#include "flow/sink.h"
#include "flow/source.h"
#include "base/util.h"

void
exec_open(struct exec *x)
{
	enum strategy s = x->env.plan->pl_strategy;
	void *o;

	/* (straight cannot begin without a scratch file for its rows) */
	while ((o = ex_methods(s)->open(&x->env, NULL)) == NULL)
		s = plan_fallback(x->env.plan, s);
	x->m = ex_methods(s);
	x->s = o;
	x->begun = 0;
}

enum { RW_SAID = -2, RW_GIVEUP = -3 };

/* Hands the first n records of the input again to x's strategy, from
 * the FILEs (source_rewind): what they say was said when they were first
 * read, and the late ones were counted then. Returns 0, -1 after a
 * message, or EX_GIVEUP: the strategy gave up on one of them. */
static int
rewind_files(struct exec *x, uint64_t n)
{
	struct op_globals *G = op_globals(x->env.op);
	uint64_t late = G->g_late;
	struct source *again = source_rewind(x->env.source, n,
	    (int)G->g_timefmt);
	const struct parsed *pr;
	struct op_rec orec;
	int rc = 0, got = -1;

	while (again != NULL && rc == 0 &&
	    (got = source_next(again, &pr)) == SOURCE_RECORD) {
		if (pr->kind != PR_RECORD)
			continue;
		parsed_op_rec(pr, &orec);
		switch (x->m->record(x->s, pr, &orec)) {
		case EX_ADDED:
		case EX_NOWIN:
			x->env.time(x->env.arg, pr->t);
			break;
		case EX_FAIL:	/* (said) */
			rc = RW_SAID;
			break;
		case EX_GIVEUP:
			rc = RW_GIVEUP;
			break;
		}
	}
	source_free(again);
	if (rc == 0 && got != SOURCE_END) {
		fwin_warn("an input changed while it was read: its records "
		    "could not be read again to be sorted");
		rc = -1;
	}
	op_globals(x->env.op)->g_late = late;
	return rc == RW_GIVEUP ? EX_GIVEUP : rc < 0 ? -1 : 0;
}

int
fallback(struct exec *x, uint64_t n)
{
	struct ex_env *env = &x->env;
	struct ex_left left;
	enum strategy next;
	int rc;

	for (;;) {
		memset(&left, 0, sizeof(left));
		left.from = x->m->id;
		x->m->give_up(x->s, &left);
		next = left.again ? x->m->id : plan_fallback(env->plan,
		    left.from);
		x->m->free(x->s);
		x->m = ex_methods(next);
		if (left.go_on != NULL) {	/* it reads on */
			x->s = left.go_on;
			return 0;
		}
		if (left.written > 0) {	/* the next fires them again */
			op_globals(env->op)->g_fired -= left.written;
			sink_skip(env->sink, left.written);
		}
		while ((x->s = x->m->open(env, &left)) == NULL)
			x->m = ex_methods(plan_fallback(env->plan, x->m->id));
		if (left.kept != NULL)
			return 0;	/* (it has every record) */
		if ((rc = rewind_files(x, n)) != EX_GIVEUP)
			return rc;
		/* the next gave up on one of them too: the one after it
		 * takes the same records */
	}
}

int
exec_retry(struct exec *x, const struct parsed *pr,
    const struct op_rec *orec)
{
	/* (the records before this one, then this one) */
	if (fallback(x, op_globals(x->env.op)->g_read - 1) != 0)
		return EX_FAIL;
	return exec_record(x, pr, orec);
}

void
exec_begin(struct exec *x)
{
	struct ex_env *env = &x->env;

	x->begun = 1;
	if (x->m->ready == NULL)
		return;
	if (!x->m->ready(x->s)) {
		(void)fallback(x, 0);	/* (its table goes on) */
		return;
	}
	/* what the reading thread read ahead is taken first: it may make
	 * the strategy give up, or end the input */
	if (!env->solo(env->arg))
		return;
	if (x->m->begin == NULL) {
		env->threaded(env->arg);
		return;
	}
	if (x->m->begin(x->s) == EX_GIVEUP) {
		(void)fallback(x, 0);
		env->threaded(env->arg);
	}
}

int
exec_input_end(struct exec *x)
{
	if (x->m->input_end == NULL || x->m->input_end(x->s) != EX_GIVEUP)
		return 1;
	(void)fallback(x, 0);	/* (its table reads on) */
	return 0;
}

int
exec_finish(struct exec *x, int flush, int failed)
{
	int rc;

	while ((rc = x->m->finish(x->s, flush, failed)) == EX_GIVEUP)
		if (fallback(x, op_globals(x->env.op)->g_read) != 0)
			return -1;
	return rc;
}

void
exec_close(struct exec *x)
{
	if (x->m != NULL && x->s != NULL)
		x->m->free(x->s);
	x->s = NULL;
}
