/* sorted: batch mode's strategy for any input (fwin(1): BATCH AND STREAM
 * MODES): every record kept in sorted runs (batch.h, spilled to $TMPDIR
 * past the memory budget), and at the end of the input merged and
 * replayed in time order through the window operator as a stream with
 * lateness 0 (no record is late). With --threads, the runs are merged
 * and decoded on a thread of their own (source_thread). It is what the
 * other batch strategies give up to (fallback.c). */
#include <stdio.h>
#include <stdlib.h>

#include "flow/batch.h"
#include "exec/exec.h"
#include "flow/parse.h"
#include "flow/source.h"
#include "exec/warm.h"
#include "exec/why.h"
#include "base/util.h"

struct sorted {
	struct ex_env *env;
	struct batch *b;
	int wm;			/* the watermark fires windows */
	int halted;		/* a signal stopped the replay */
	int replaying;
	uint64_t replayed;
};

static void *
sorted_open(struct ex_env *env, const struct ex_left *from)
{
	struct sorted *s = xcalloc(1, sizeof(*s));

	s->env = env;
	/* straight on a pipe kept every record as it came */
	s->b = from != NULL && from->kept != NULL ? from->kept :
	    batch_new(env->c, env->plan->pl_memory);
	return s;
}

static int
sorted_record(void *arg, const struct parsed *pr, const struct op_rec *orec)
{
	struct sorted *s = arg;

	(void)pr;
	switch (batch_add(s->b, orec->t, orec->key, orec->keylen,
	    orec->vals)) {
	case BATCH_RANGE:
		return EX_RANGE;
	case BATCH_FAIL:	/* a spill failed: said */
		return EX_FAIL;
	}
	return EX_KEPT;	/* (no watermark until they are sorted) */
}

static void
sorted_advance(void *arg, int64_t w, int64_t maxt)
{
	struct sorted *s = arg;

	(void)maxt;
	op_advance(s->env->op, w);
}

/* One record back in time order, as a stream with lateness 0 takes it
 * (no record can be late, and batch_add refused the times whose windows
 * are out of range when they were read). */
static void
replay_hashed(struct sorted *s, int64_t t, const char *key, size_t keylen,
    uint64_t hash, const struct aval *vals)
{
	struct ex_env *env = s->env;
	struct op_rec orec;

	if (s->halted)
		return;
	if (env->stopped(env->arg)) {	/* no row started after a signal */
		s->halted = 1;
		batch_halt(s->b);	/* (its merge may be on a thread) */
		return;
	}
	s->replayed++;
	orec.key = key;
	orec.keylen = keylen;
	orec.hash = hash;
	orec.padded = 0;
	orec.t = t;
	orec.vals = vals;
	switch (op_record(env->op, &orec)) {
	case OP_ADDED:
	case OP_NOWIN:
		if (s->wm)
			env->time(env->arg, t);
		break;
	}
}

/* Every record kept, merged back in time order (source_sorted), with
 * --threads on a thread of its own. Returns 0, or -1 after a message
 * (a spill file that cannot be read). */
static int
replay(struct sorted *s)
{
	struct source *sorted = source_sorted(s->b), *from = sorted;
	const struct parsed *pr;
	int rc = SOURCE_END;

	if (s->env->c->threads > 1)
		from = source_thread(sorted, s->env->c, 0);
	/* (a signal halts it: replay_hashed asks) */
	while (!s->halted && (rc = source_next(from, &pr)) == SOURCE_RECORD) {
		if (from != sorted)
			warm_op(s->env->op, from);
		if (pr->kind == PR_NOTE)	/* a spill file's */
			fwin_warn_line(pr->msg, pr->msglen);
		else
			replay_hashed(s, pr->t, pr->key, pr->keylen, pr->hash,
			    pr->vals);
	}
	if (from != sorted)
		source_free(from);
	source_free(sorted);
	return rc < 0 ? -1 : 0;
}

static int
sorted_finish(void *arg, int flush, int failed)
{
	struct sorted *s = arg;

	if (failed)	/* (batch mode writes no row of a failed run) */
		return 0;
	s->wm = op_uses_watermark(s->env->op);
	s->replaying = 1;
	if (replay(s) != 0)
		return -1;
	if (!s->env->stopped(s->env->arg))
		op_end(s->env->op, flush);
	return 0;
}

static void
sorted_size(void *arg, struct ex_size *z, int live)
{
	struct sorted *s = arg;

	(void)live;
	batch_spilled(s->b, &z->runs, &z->bytes);
	z->replaying = s->replaying;
	z->replayed = s->replayed;
}

static void
sorted_free(void *arg)
{
	struct sorted *s = arg;

	batch_free(s->b);
	free(s);
}

const struct ex_methods ex_sorted = {
	.name = "sorted",
	.what = "the records sorted by time in runs (spilled to $TMPDIR past "
	    "the memory budget), merged and replayed through the window "
	    "operator",
	.id = ST_SORTED,
	.fits = why_batch_fits,
	.open = sorted_open,
	.record = sorted_record,
	.advance = sorted_advance,
	.finish = sorted_finish,
	.size = sorted_size,
	.free = sorted_free,
};
