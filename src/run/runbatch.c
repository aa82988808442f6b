/* runbatch: the driver's side of --mode batch (the man page's BATCH AND
 * STREAM MODES), beside run.c's loop: input in time order taken as read
 * (straight_*), input aggregated as read (hagg_*, hashagg.h) and read in
 * two halves (split_*, split.h), the FILEs read again when either gives
 * up, and the sorted replay's records (batch.h). See runint.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flow/batch.h"
#include "io/input.h"
#include "window/operator.h"
#include "io/output.h"
#include "flow/parse.h"
#include "flow/source.h"
#include "run/runint.h"
#include "base/util.h"

/* --- --mode batch out of time order, where order cannot show --- */

/* Starts the table of groups if the pipeline and the FILEs allow. */
static void
hagg_begin(struct run *r)
{
	const struct config *c = r->c;

	if (!r->hagg_fits)
		return;
	r->hagg = hashagg_new(c, r->g, (c->max_memory ? c->max_memory :
	    batch_default_budget()) / 2);
	/* past it, sorted runs of groups rather than all the records
	 * sorted: the operator's replay would hold every key of a window */
	hashagg_spill(r->hagg);
	if (source_reads_ahead(r->source))	/* (found as read ahead) */
		source_find_windows(r->source);
	else if (c->threads < 2)	/* (no reading thread to look ahead in) */
		hashagg_look_ahead(r->hagg);
}

/* The plan's halves (plan.h), once the table has begun: the rest of the
 * input cut in two, its second half read on a thread of its own
 * (split.h) while this one reads the first, without the reading thread.
 * A time format not known by the first record is a fallback: one table
 * then reads it all. */
void
split_begin(struct run *r)
{
	const struct config *c = r->c;
	/* the two tables share what one would have */
	uint64_t half = (r->batch == NULL ? stream_agg_budget() :
	    r->straight ? r->straight_max :
	    (c->max_memory ? c->max_memory : batch_default_budget()) / 2) / 2;
	uint64_t off;
	struct sink *sink;
	int fi;

	r->split_tried = 1;
	if (r->plan->pl_strategy != ST_HALVES || G(r)->g_timefmt == TF_AUTO)
		return;
	stop_reader(r, 1);	/* what it read ahead is taken first */
	if (r->ended || r->fatal)
		return;		/* (this thread reads the end of the input) */
	sink = stream_half_sink(r);
	if (r->hagg != NULL && (r->split = split_start(c, r->g,
	    (int)G(r)->g_timefmt, input_file_index(r->in),
	    input_offset(r->in), half, r->batch == NULL ? SPLIT_STREAM :
	    r->straight ? SPLIT_NEAR_ORDER : SPLIT_BATCH,
	    hashagg_lateness(r->hagg), sink != NULL ? sink_emit : NULL, sink,
	    &fi, &off)) != NULL) {
		input_set_limit(r->in, fi, off);
		hashagg_budget(r->hagg, half);
		hashagg_look_ahead(r->hagg);
	} else
		start_reader(r);
}

/* The first half was read: the second half's table is kept when the
 * first ended exactly at the cut and the thread met nothing to say;
 * else it is dropped and this thread reads the second half itself.
 * Returns whether it was kept (the input ends). */
int
split_end(struct run *r)
{
	int exact = input_at_limit(r->in);
	struct split_done d;

	r->hagg2 = split_join(r->split, &d);
	r->split = NULL;
	if (r->hagg2 != NULL && exact && ((r->batch != NULL &&
	    !r->straight) || stream_half_join(r, d.nrows))) {
		G(r)->g_read += d.nread;
		r->filtered += d.nfiltered;
		return 1;
	}
	hashagg_free(r->hagg2);
	r->hagg2 = NULL;
	input_set_limit(r->in, -1, 0);
	return 0;
}

/* Stops reading the second half on its own thread, if it was, and drops
 * what it read (a stop, an error, a table that gave up): this thread
 * reads what it reads of the input in one piece. */
void
split_drop(struct run *r)
{
	if (r->split == NULL)
		return;
	split_abort(r->split);
	r->split = NULL;
	input_set_limit(r->in, -1, 0);
}

/* A good record for the table: returns 1 when it took it (or the record
 * was bad), 0 when the batch is to keep it: the table gave up, and the
 * records before it were read again into the batch. */
int
hagg_record(struct run *r, const struct parsed *pr,
    const struct op_rec *orec)
{
	switch (hashagg_add(r->hagg, orec->t, pr->has_win ? &pr->win : NULL,
	    orec->key, orec->keylen, orec->hash, orec->vals)) {
	case HA_ADDED:
		return 1;
	case HA_RANGE:
		out_of_range(r, pr);
		return 1;
	}
	/* the fallback from table (plan.h) to sorted: a value that makes
	 * order show, or the table past its budget */
	hashagg_free(r->hagg);
	r->hagg = NULL;
	split_drop(r);	/* the batch takes the input, in one piece */
	if (reread(r, G(r)->g_read - 1) != 0)
		r->fatal = 1;
	return r->fatal;
}

/* --- --mode batch on input in time order --- */

/*
 * Batch output is defined as a stream's with lateness 0 over the records
 * stably sorted by time. While the input is in time order it is that
 * sorted stream already: records go to the operator as they are read,
 * and its rows are held in a scratch file until the end of the input
 * shows that no record came out of order; then they are written, and the
 * end fires the rest. The first record out of order ends this: the rows
 * held and the operator's state are dropped (the driver's counters
 * kept), the batch gets the records the operator took, and it replays
 * them all sorted at the end, as for any input. The batch keeps each
 * record as it comes when the input cannot be read twice (a pipe,
 * standard input); named regular files are read again instead, up to
 * that record. So input in time order costs what a stream costs; other
 * input loses only the work done on its ordered prefix.
 */
void
straight_begin(struct run *r)
{
	const struct config *c = r->c;
	const char *dir;

	if (r->batch == NULL || r->plan->pl_strategy == ST_SORTED)
		return;		/* (sorted: every record to the batch) */
	r->straight_keep = !r->plan->pl_rereadable;
	/* table and halves begin as straight does, the table taking the
	 * windows; straight falls back to sorted, table to its groups held
	 * in any order */
	r->hagg_fits = plan_table(r->plan);
	if (sink_flush(r->sink) != 0 ||
	    (r->straight_fd = scratch_open(&dir)) < 0) {
		hagg_begin(r);	/* (or batch as for any input) */
		return;
	}
	r->straight_out = out_divert(sink_out(r->sink), r->straight_fd);
	r->straight_t = INT64_MIN;
	r->straight_max = (c->max_memory ? c->max_memory :
	    batch_default_budget()) / 4;
	r->straight = 1;
	/* where the table can take the windows: a stream aggregated as
	 * read (runagg.c), in two halves with two threads, with a lateness
	 * of a window (months: none), as long as no record is late: its
	 * windows are then the folds of all their records, as sorted */
	if (r->hagg_fits) {
		r->hagg = hashagg_new(c, r->g, r->straight_max);
		hashagg_stream(r->hagg, c->size);
		if (c->threads < 2)
			hashagg_look_ahead(r->hagg);
	}
}

/* Hands the first n records of the input again to the table of groups,
 * or the batch, or in stream mode the operator (what they say was said
 * when they were first read). When the table gives up, the batch takes
 * them all. Returns 0, or -1 after a message. */
int
reread(struct run *r, uint64_t n)
{
	struct source *again = source_rewind(r->source, n,
	    (int)G(r)->g_timefmt);
	const struct parsed *pr;
	int rc = 0, got = -1, ha;

	while (again != NULL && rc == 0 &&
	    (got = source_next(again, &pr)) == SOURCE_RECORD) {
		if (pr->kind != PR_RECORD)
			continue;
		if (r->batch == NULL)
			replay_hashed(r, pr->t, pr->key, pr->keylen, pr->hash,
			    pr->vals);
		else if (r->hagg != NULL) {
			ha = hashagg_add(r->hagg, pr->t, NULL, pr->key,
			    pr->keylen, pr->hash, pr->vals);
			if (ha == HA_ORDER || ha == HA_FULL)
				rc = -3;
		} else if (batch_add(r->batch, pr->t, pr->key, pr->keylen,
		    pr->vals) == BATCH_FAIL)
			rc = -2;	/* said by batch_add */
	}
	source_free(again);
	if (rc == 0 && got != SOURCE_END) {
		fwin_warn("an input changed while it was read: its records "
		    "could not be read again to be sorted");
		rc = -1;
	}
	if (rc == -3) {
		hashagg_free(r->hagg);
		r->hagg = NULL;
		return reread(r, n);
	}
	return rc < 0 ? -1 : 0;
}

void
straight_drop(struct run *r)
{
	struct op_globals kept = *G(r);

	hashagg_free(r->hagg);	/* (the table, if it took the windows) */
	r->hagg = NULL;
	split_drop(r);
	hashagg_free(r->hagg2);
	r->hagg2 = NULL;
	r->agg_fired = 0;
	r->half_rows = 0;

	out_drop(sink_out(r->sink));
	(void)out_divert(sink_out(r->sink), r->straight_out);
	close(r->straight_fd);
	r->straight = 0;
	op_free(r->op);
	new_operator(r);
	if (op_init_state(r->op) != 0)
		fwin_die("cannot map state: %s", strerror(errno));
	G(r)->g_read = kept.g_read;
	G(r)->g_bad = kept.g_bad;
	G(r)->g_timefmt = kept.g_timefmt;
}

/* Drops what the operator did while the input was in time order, and
 * hands the first n records to the table of groups, or the batch if it
 * did not keep them. Returns 0, or -1 after a message. */
static int
straight_end(struct run *r, uint64_t n)
{
	straight_drop(r);
	if (r->straight_keep)
		return 0;
	hagg_begin(r);
	return reread(r, n);
}

/* A good record while the input is in time order: returns 1 when the
 * operator took it (or it was bad), 0 when the batch is to keep it (it
 * keeps every record, or this one ends the order). */
int
straight_record(struct run *r, const struct parsed *pr,
    const struct op_rec *orec)
{
	if (r->hagg != NULL) {
		switch (stream_agg_add(r, pr, orec)) {
		case HA_ADDED:
			return 1;
		case HA_RANGE:
			out_of_range(r, pr);
			return 1;
		}
		/* (late, or full) */
	} else if (orec->t >= r->straight_t &&
	    arena_hdr(&r->st->a)->ah_used <= r->straight_max) {
		r->straight_t = orec->t;
		switch (op_record(r->op, orec)) {
		case OP_ADDED:
		case OP_NOWIN:
			if (op_uses_watermark(r->op))
				watermark_after(r, orec->t);
			return !r->straight_keep;
		case OP_RANGE:
			out_of_range(r, pr);
			return 1;
		}
		/* (late or corrupt: not in time order after all) */
	}
	/* the fallback from straight to sorted, from table to its groups in
	 * any order (plan.h) */
	if (straight_end(r, G(r)->g_read - 1) != 0)
		r->fatal = 1;
	return r->fatal;
}

int
write_held(struct run *r, int fd)
{
	if (sink_flush(r->sink) != 0)
		return -1;	/* (said at the close: the output keeps it) */
	switch (out_copy_from(sink_out(r->sink), fd)) {
	case -1:
		fwin_warn("%s: %s", sink_name(r->sink), strerror(errno));
		return -1;
	case -2:
		fwin_warn("cannot read back the rows held in a scratch file: "
		    "%s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The input ended in time order: the rows held go out. Returns 1, or 0
 * when they could not be held (a full scratch file: nothing written, the
 * records are to be replayed), or -1 after a message. */
int
straight_commit(struct run *r)
{
	int rc = 1;

	if (out_error(sink_out(r->sink)) == 0 &&
	    lseek(r->straight_fd, 0, SEEK_CUR) == 0) {
		/* all still in the output's buffer: no copy */
		(void)out_divert(sink_out(r->sink), r->straight_out);
		goto done;
	}
	if (sink_flush(r->sink) != 0)
		return straight_end(r, G(r)->g_read) == 0 ? 0 : -1;
	(void)out_divert(sink_out(r->sink), r->straight_out);
	rc = write_held(r, r->straight_fd) == 0 ? 1 : -1;
done:
	close(r->straight_fd);
	r->straight = 0;
	r->in_order = 1;
	return rc;
}

/* --mode batch: one record back in time order, as a stream with
 * lateness 0 takes it (no record can be late, and batch_add refused the
 * times whose windows are out of range when they were read). */
void
replay_hashed(struct run *r, int64_t t, const char *key, size_t keylen,
    uint64_t hash, const struct aval *vals)
{
	struct op_rec orec;

	if (r->batch != NULL) {	/* (reread in stream mode: no batch) */
		if (r->halted || batch_stopped(r))
			return;
		r->replayed++;
	}
	orec.key = key;
	orec.keylen = keylen;
	orec.hash = hash;
	orec.t = t;
	orec.vals = vals;
	switch (op_record(r->op, &orec)) {
	case OP_ADDED:
	case OP_NOWIN:
		if (op_uses_watermark(r->op))
			watermark_after(r, t);
		break;
	}
}
