/* halves: a table of (window, key) groups on two cores (fwin(1): THE
 * PLAN). After the first record, which says the input's time format,
 * the rest of the input is cut in two at a line end near its middle;
 * the second half is read into a table of its own on a thread of its own
 * (split.h) while the driver reads the first into this one (its input
 * stopped at the cut), and at the end the two tables fire together. In a
 * stream (and in a batch while its records come in time order) the
 * second half's thread fires the windows past where the first half can
 * reach, into a scratch file, kept at the join only if the first half
 * did not reach them; the windows the first half's watermark passed are
 * dropped from the second's table and counted late.
 *
 * The second half's work is speculative: when it has anything to say,
 * when the first half does not end exactly at the cut, or when the first
 * half's times reach the windows it fired, halves gives up (fallback.c)
 * to its table, which reads on past the cut, saying what there is to
 * say in its place. When its table gives up, halves gives up as its
 * table does. */
#include <stdlib.h>
#include <unistd.h>

#include "io/input.h"
#include "io/output.h"
#include "exec/split.h"
#include "exec/tableint.h"
#include "exec/why.h"
#include "base/util.h"

struct halves {
	struct ex_env *env;
	const struct ex_methods *im;	/* its table's */
	void *in;			/* its table, the first half's */
	int table_gave_up;
	struct split *split;		/* the second half's thread */
	struct half hf;			/* the second half, joined */
	struct sink *sink;		/* its rows, on its thread: to */
	struct out *sink_out;		/* a scratch file (hf.fd) */
};

static int
halves_fits(const struct config *c, const struct aggs *g,
    const struct plan *p, char *why)
{
	const char *a;

	/* the table of the mode first: halves are two of it */
	if (!(p->pl_mode == MODE_BATCH ? &ex_table :
	    &ex_streamtable)->fits(c, g, p, why))
		return 0;
	if (!p->pl_rereadable)
		return why_not(why, WHY_NOT_HALVES);
	if (c->threads < 2)
		return why_not(why, "--threads 1: the second half needs a "
		    "thread of its own");
	if (p->pl_bytes < SPLIT_MIN)
		return why_not(why, "the input is %llu bytes: less than %llu K "
		    "is not worth a thread", (unsigned long long)p->pl_bytes,
		    (unsigned long long)(SPLIT_MIN >> 10));
	if (!aggs_any_arena(g) &&
	    (a = why_agg_merging(c, AGF_FLAT | AGF_ANYARENA)) != NULL)
		return why_not(why, "--%s: its fold names the texts of its "
		    "table's arena, which two tables do not share", a);
	/* (a stream's table takes those that depend on order) */
	if ((a = why_agg_lacking(c, AGF_ANYORDER)) != NULL)
		return why_not(why, "--%s: its result depends on the order of "
		    "the records, which two halves do not keep", a);
	if (c->part_n > 1)
		return why_not(why, "--partition: the records of other "
		    "partitions are counted on one thread");
	/* (a stream's late records of the second half would be written
	 * after the first half's) */
	if (p->pl_mode == MODE_STREAM && c->late_file != NULL)
		return why_not(why, "--late-file: the second half's late "
		    "records would be written after the first half's");
	return 1;
}

static void *
halves_open(struct ex_env *env, const struct ex_left *from)
{
	struct halves *s = xcalloc(1, sizeof(*s));

	s->env = env;
	s->im = env->plan->pl_mode == MODE_BATCH ? &ex_table : &ex_streamtable;
	/* (first, or after its table gave up: the table in any order) */
	s->in = s->im->open(env, from);
	s->hf.fd = -1;
	return s;
}

static int
halves_record(void *arg, const struct parsed *pr, const struct op_rec *orec)
{
	struct halves *s = arg;
	int rc = s->im->record(s->in, pr, orec);

	if (rc == EX_GIVEUP)
		s->table_gave_up = 1;
	return rc;
}

static void
halves_advance(void *arg, int64_t w, int64_t maxt)
{
	struct halves *s = arg;

	s->im->advance(s->in, w, maxt);
}

/* A time format not known by the first record: one table reads it all. */
static int
halves_ready(void *arg)
{
	struct halves *s = arg;

	return op_globals(s->env->op)->g_timefmt != TF_AUTO;
}

/* The sink the second half's thread fires rows to (a stream's, or a
 * batch's in time order, whose rows are held), or NULL. */
static struct sink *
half_sink_open(struct halves *s)
{
	const char *dir;

	if ((s->hf.fd = scratch_open(&dir)) < 0)
		return NULL;
	s->sink_out = sink_output_like(s->env->sink, s->hf.fd);
	return s->sink = sink_like(s->env->sink, s->sink_out);
}

static void
half_sink_close(struct halves *s)
{
	if (s->sink != NULL) {
		(void)sink_close(s->sink);
		(void)out_close(s->sink_out);
		s->sink = NULL;
	}
	if (s->hf.fd >= 0)
		close(s->hf.fd);
	s->hf.fd = -1;
}

/* The rest of the input cut in two, its second half read on a thread of
 * its own while this one reads the first without the reading thread
 * (stopped by now). */
static int
halves_begin(void *arg)
{
	struct halves *s = arg;
	struct ex_env *env = s->env;
	const struct config *c = env->c;
	int stream = env->plan->pl_mode == MODE_STREAM, in_order, kind, fi;
	struct hashagg *h;
	uint64_t max, half, off;
	struct sink *sink = NULL;

	if (stream)
		h = ((struct stable *)s->in)->h, in_order = 1, max = 0;
	else
		h = table_hashagg(s->in, &in_order, &max);
	/* the two tables share what one would have */
	half = (stream ? stable_budget() : in_order ? max :
	    env->plan->pl_memory / 2) / 2;
	kind = stream ? SPLIT_STREAM : in_order ? SPLIT_NEAR_ORDER :
	    SPLIT_BATCH;
	if (kind != SPLIT_BATCH)
		sink = half_sink_open(s);
	if ((s->split = split_start(c, env->g,
	    (int)op_globals(env->op)->g_timefmt, input_file_index(env->in),
	    input_offset(env->in), half, kind, hashagg_lateness(h),
	    sink != NULL ? sink_emit : NULL, sink, &fi, &off)) == NULL)
		return EX_GIVEUP;
	input_set_limit(env->in, fi, off);
	hashagg_budget(h, half);
	hashagg_look_ahead(h);
	return 0;
}

/* Whether the second half's table, which fired nrows on its thread,
 * joins the first's in a stream (or a batch in time order): the guess
 * held when the first half reached no window the second fired (those lie
 * past its largest time, so none of them is late for its watermark or
 * has groups in its table). */
static int
join(struct halves *s, struct hashagg *h2, uint64_t nrows)
{
	struct op_globals *G = op_globals(s->env->op);
	uint64_t late;
	int64_t by;

	if ((s->sink != NULL && sink_flush(s->sink) != 0) ||
	    hashagg_fired_from(h2) <= G->g_maxt)
		return 0;
	/* the watermark goes on: what the first half's made late in the
	 * second's groups, dropped and counted (in batch mode near time
	 * order, none may be: the records are to be sorted after all) */
	late = hashagg_drop_ended(h2, G->g_wm, &by);
	if (s->env->plan->pl_mode == MODE_BATCH && late > 0)
		return 0;
	s->hf.rows = nrows;
	s->env->found_late(s->env->arg, late, by, G->g_maxt);
	G = op_globals(s->env->op);
	if (hashagg_max_time(h2) > G->g_maxt)
		G->g_maxt = hashagg_max_time(h2);
	if (hashagg_watermark(h2) > G->g_wm)
		G->g_wm = hashagg_watermark(h2);
	return 1;
}

/* The first half was read: the second half's table is kept when the
 * first ended exactly at the cut and the thread met nothing to say;
 * else it is dropped and the table reads the second half itself. */
static int
halves_input_end(void *arg)
{
	struct halves *s = arg;
	struct ex_env *env = s->env;
	int exact = input_at_limit(env->in), in_order = 1;
	struct split_done d;
	struct hashagg *h2;
	uint64_t max;

	if (s->split == NULL)
		return 1;
	h2 = split_join(s->split, &d);
	s->split = NULL;
	if (env->plan->pl_mode == MODE_BATCH)
		(void)table_hashagg(s->in, &in_order, &max);
	if (h2 != NULL && exact && (!in_order || join(s, h2, d.nrows))) {
		s->hf.h2 = h2;
		op_globals(env->op)->g_read += d.nread;
		env->filtered(env->arg, d.nfiltered);
		return 1;
	}
	hashagg_free(h2);
	input_set_limit(env->in, -1, 0);
	return EX_GIVEUP;
}

/* Stops reading the second half on its own thread, if it was, and drops
 * what it read: the input is read in one piece. */
static void
split_drop(struct halves *s)
{
	if (s->split == NULL)
		return;
	split_abort(s->split);
	s->split = NULL;
	input_set_limit(s->env->in, -1, 0);
}

static int
halves_finish(void *arg, int flush, int failed)
{
	struct halves *s = arg;
	int rc;

	split_drop(s);	/* stopped before the cut: the records read so far */
	rc = s->im == &ex_table ? table_end(s->in, flush, failed, &s->hf) :
	    stable_end(s->in, failed, &s->hf);
	if (rc == EX_GIVEUP)
		s->table_gave_up = 1;
	return rc;
}

static void
halves_give_up(void *arg, struct ex_left *left)
{
	struct halves *s = arg;

	split_drop(s);
	half_sink_close(s);
	hashagg_free(s->hf.h2);
	s->hf.h2 = NULL;
	/* as its table gives up (the plan's next is the table's); where
	 * that takes records in any order, in halves still (no second half
	 * once the first has begun) */
	if (s->table_gave_up) {
		left->from = s->im->id;
		s->im->give_up(s->in, left);
		return;
	}
	left->go_on = s->in;	/* its table reads on: the plan's next */
	s->in = NULL;
}

static void
halves_size(void *arg, struct ex_size *z, int live)
{
	struct halves *s = arg;
	struct stable *t = s->in;

	if (live) {	/* the first half's table (the second's is its
			   thread's), and how far each half has read */
		if (s->in != NULL)
			s->im->size(s->in, z, 1);
		if (s->split != NULL)
			split_read(s->split, &z->read_bytes,
			    &z->read_records);
		return;
	}
	if (s->im == &ex_table)
		table_size(s->in, &s->hf, z);
	else
		table_stats(t->h, &s->hf, 0, z);
}

static void
halves_free(void *arg)
{
	struct halves *s = arg;

	split_drop(s);
	half_sink_close(s);
	hashagg_free(s->hf.h2);
	if (s->in != NULL)
		s->im->free(s->in);
	free(s);
}

const struct ex_methods ex_halves = {
	.name = "halves",
	.what = "the file cut at a line end near its middle, each half read "
	    "into a (window, key) table on a thread of its own, the two "
	    "tables fired together",
	.id = ST_HALVES,
	.windows = 1,
	.fits = halves_fits,
	.open = halves_open,
	.record = halves_record,
	.advance = halves_advance,
	.ready = halves_ready,
	.begin = halves_begin,
	.input_end = halves_input_end,
	.finish = halves_finish,
	.give_up = halves_give_up,
	.size = halves_size,
	.free = halves_free,
};
