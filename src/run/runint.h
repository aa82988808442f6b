/* runint: the driver's insides, shared by run.c (the loop), runbatch.c
 * (--mode batch), outputs.c (the sinks opened and closed) and report.c
 * (messages, --stats, --progress, what was dropped); no other module
 * includes it. */
#ifndef FWIN_RUNINT_H
#define FWIN_RUNINT_H

#include <time.h>

#include "window/agg.h"
#include "flow/batch.h"
#include "pipeline/config.h"
#include "exec/hashagg.h"
#include "run/hint.h"
#include "io/input.h"
#include "window/operator.h"
#include "io/output.h"
#include "flow/parse.h"
#include "run/persist.h"
#include "exec/plan.h"
#include "flow/recsink.h"
#include "flow/sink.h"
#include "flow/source.h"
#include "exec/split.h"
#include "exec/workers.h"

struct run {
	struct config *c;
	/* the strategy, chosen before the first record (plan.h); what the
	 * fields below say is how it runs now, after any fallback from it */
	const struct plan *plan;
	struct aggs *g;
	struct op *op;
	struct state *st;	/* op's, for the driver's block (G) */
	struct input *in;
	/* where rows go (flow/sink.h); records as read: the late file and
	 * --bad-file (flow/recsink.h), or NULL */
	struct sink *sink;
	struct recsink *late, *badout;
	struct parser *parser;	/* the records' parser */
	struct aggs *pg;	/* its aggregates, with a reading thread */
	struct hint *hint;	/* first-hour hints, while they watch */
	/* where records come from (source.h): the input read and parsed
	 * here, or (--threads) the reading thread over it */
	struct source *source, *read_here;
	int ended, endrc;	/* it handed over the input's end */
	char **over_cols;	/* --over with -H: the input's header names */
	size_t nover_cols;
	int fatal;		/* --strict met a bad record */
	int corrupt;		/* restored state found bad: nothing is saved */
	int restored;
	char *fingerprint;
	struct op_globals at_start;	/* counters as restored: stats are per run */
	int64_t late_by;	/* the largest distance of a late record behind W */
	/* the last record that moved W while more than a day ahead of the
	 * clock, which the late summary names (FUTURE_HINT) */
	int64_t fut_bound;	/* the clock when last read, plus a day */
	struct {
		char file[256];
		uint64_t line, late;	/* late: g_late when it came */
		int64_t t, ahead;
	} fut;
	int64_t started;	/* wall time the run began */
	uint64_t others;	/* --partition: records of other partitions */
	uint64_t filtered;	/* --where: records it rejected */
	struct persist ps;
	/* --idle-timeout: input idle since this wall time, with this W */
	uint64_t idle_read;
	int64_t idle_since, idle_wm;
	/* --follow with several FILEs and event time: each input's own
	 * watermark (srcwm.h), and the input of the record applied */
	struct srcwm *srcs;
	int src;
	struct timespec t0;
	struct batch *batch;	/* --mode batch: records kept until the end */
	/* --mode batch while the input is in time order (run.c's
	 * straight_begin): rows held in a scratch file */
	int straight;
	int straight_keep;	/* the batch keeps what the operator takes */
	int straight_fd;	/* the scratch file */
	int straight_out;	/* where the rows go once the order is sure */
	int64_t straight_t;	/* the last time */
	uint64_t straight_max;	/* the most state it may keep */
	int in_order;		/* it did to the end: nothing was sorted */
	/* --mode batch out of time order, where order cannot show: records
	 * added to (window, key) groups as read (hashagg.h), or NULL */
	struct hashagg *hagg;
	int hagg_fits;		/* the pipeline can, and the FILEs can be
				 * read again should it have to stop */
	/* the input's second half read into a table on a thread of its
	 * own (split.h), or NULL; then the table it filled */
	struct split *split;
	int split_tried;
	struct hashagg *hagg2;
	/* --threads 3 or more: keys spread over workers (workers.h), or
	 * NULL; the driver's operator then holds no keys */
	struct workers *workers;
	/* --mode stream aggregated as read (runagg.c): the rows the table
	 * fired (when it gives up, the sink skips as many of the
	 * operator's) */
	uint64_t agg_fired;
	/* its second half's rows, fired on that half's thread (runagg.c
	 * stream_half_sink): to a scratch file, through a sink like the
	 * driver's */
	struct sink *half;
	int half_fd;
	uint64_t half_rows;
	/* --progress */
	int show;		/* 1 on, 0 off, -1 auto */
	int shown;		/* a line is on the terminal, to erase */
	int64_t next_show;	/* monotonic ns of the next line */
	uint64_t total;		/* bytes of the regular FILEs, or 0 */
	/* --mode batch stopped by a signal (runstop.c) */
	int halted;		/* the replay and the sink were halted */
	int read_all;		/* the input was read to its end */
	int replaying;		/* the records kept go through the windows */
	uint64_t replayed;	/* how many did */
};

static inline struct op_globals *
G(struct run *r)
{
	/* the state's struct stays where it is; its arena may move */
	return st_globals(r->st);
}

/* run.c: the signal (SIGINT, SIGTERM, SIGHUP) that asked the run to
 * stop, or 0 */
int run_signal(void);

/* runstop.c: in batch mode, whether a signal stopped the run; the first
 * time, the sink is halted (no further row is written) and so is the
 * replay. Once stopped, batch_interrupted says how far the run came
 * (bytes: of the input read) and returns the exit status, 128 + the
 * signal. */
int batch_stopped(struct run *r);
int batch_interrupted(struct run *r, uint64_t bytes);

/* run.c: the loop's pieces that runbatch.c uses */
void watermark_after(struct run *r, int64_t t);
void out_of_range(struct run *r, const struct parsed *pr);
void new_operator(struct run *r);
void start_reader(struct run *r);
void stop_reader(struct run *r, int apply_ahead);

/* runbatch.c: --mode batch. While the input is in time order: begin;
 * a good record (1: taken, 0: the batch keeps it); the end of input
 * (1: rows written, 0: replay, -1: failed); drop. */
void straight_begin(struct run *r);
int straight_record(struct run *r, const struct parsed *pr,
    const struct op_rec *orec);
int straight_commit(struct run *r);
void straight_drop(struct run *r);
/* Aggregated as read: a good record (1: taken, 0: the batch keeps it);
 * the input cut in two once the table begins; the first half read
 * (1: the second's table kept, the input ends); the second half's
 * thread stopped and its work dropped. */
int hagg_record(struct run *r, const struct parsed *pr,
    const struct op_rec *orec);
void split_begin(struct run *r);
int split_end(struct run *r);
void split_drop(struct run *r);
/* Writes the rows held in scratch file fd after those written so far.
 * Returns 0, or -1 after a message. */
int write_held(struct run *r, int fd);
/* The first n records again, from the FILEs, to the table, the batch or
 * (stream mode) the operator. */
int reread(struct run *r, uint64_t n);
/* One record of the sorted replay (or read again), through the
 * operator. */
void replay_hashed(struct run *r, int64_t t, const char *key, size_t keylen,
    uint64_t hash, const struct aval *vals);

/* runagg.c: --mode stream aggregated as read: begin (if it can); a
 * good record (1: taken, 0: the operator is to take it, as it does all
 * from now on); the end of the run (status 0: every window fires, else
 * those the watermark passed; returns 0, or -1 after a message). */
uint64_t stream_agg_budget(void);
void stream_agg_begin(struct run *r);
int stream_agg_record(struct run *r, const struct parsed *pr,
    const struct op_rec *orec);
/* A record the table does not take (--where, another --partition)
 * moves its watermark to t, firing what that ends. */
void stream_agg_advance(struct run *r, int64_t t);
/* The table's part of it: the record added (HA_ADDED: the watermark
 * moved on, what was due fired), or HA_* said what became of it. */
int stream_agg_add(struct run *r, const struct parsed *pr,
    const struct op_rec *orec);
int stream_agg_end(struct run *r, int status);
/* Two halves of a stream: the sink the second half's thread writes rows
 * to, or NULL; the halves joined (1: kept, 0: dropped, the second half
 * to be read here); what the sink holds, freed. */
struct sink *stream_half_sink(struct run *r);
int stream_half_join(struct run *r, uint64_t nrows);
void stream_half_free(struct run *r);

/* A record this far ahead of the clock that moves the watermark is named
 * by the late summary, with --max-future (the man page's --max-future). */
#define FUTURE_HINT	(86400 * NS_PER_S)

/* report.c: what the run says on stderr. A bad record: counted, kept
 * in --bad-file, said (msg; NULL: not). */
void reject_record(struct run *r, const struct parsed *pr, const char *msg);
int check_corrupt(struct run *r);
void print_stats(struct run *r);
void say_dropped(struct run *r);

/* A record at t, more than a day ahead of fut_bound, is about to move
 * the watermark: kept for the late summary if the clock agrees. */
void note_future(struct run *r, const struct parsed *pr, int64_t t);

/* Whether the record at t moves the watermark from more than a day ahead
 * of the clock (cheap: the clock is read only past fut_bound). */
#define FUTURE_CHECK(r, pr, t) do { \
	if ((t) > (r)->fut_bound && (t) > G(r)->g_maxt) \
		note_future((r), (pr), (t)); \
} while (0)
int over_budget(struct run *r);
void progress_setup(struct run *r);
void progress(struct run *r);
void progress_end(struct run *r);

/* run.c: the row callback of the driver's operator and tables
 * (op_emit_fn, arg the run): the row to the sink, unless a signal
 * stopped a batch run (batch_stopped). */
void on_row(void *arg, const struct op_row *row);

/* outputs.c: the late file, --bad-file and the row sink opened (a
 * restored run's files cut back to the checkpoint first): returns 0, or
 * the exit status after a message; and closed: returns 0, or 1 after a
 * message. */
int open_sinks(struct run *r);
int close_sinks(struct run *r);

#endif
