/* runint: the driver's insides, shared by run.c (the loop), runstop.c
 * (signals), outputs.c (the sinks opened and closed) and report.c
 * (messages, --stats, --progress, what was dropped); no other module
 * includes it. The strategy the driver feeds is behind exec.h. */
#ifndef FWIN_RUNINT_H
#define FWIN_RUNINT_H

#include <signal.h>
#include <time.h>

#include "window/agg.h"
#include "pipeline/config.h"
#include "exec/exec.h"
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

struct run {
	struct config *c;
	/* the strategy, chosen before the first record (plan.h), and the
	 * one that runs (exec.h), after any fallback from it */
	const struct plan *plan;
	struct exec x;
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
	/* the records that moved W while more than a day ahead of the
	 * clock (FUTURE_HINT): the last (fut), the one before it (prev),
	 * and the last after which records were dropped as late (named,
	 * once a later one replaced it), which the late summary names */
	int64_t fut_bound;	/* the clock when last read, plus a day */
	struct future {
		char file[256];
		uint64_t line, late;	/* late: g_late when it came */
		int64_t t, ahead;
	} fut, prev, named;
	int64_t started;	/* wall time the run began */
	uint64_t others;	/* --partition: records of other partitions */
	uint64_t filtered;	/* --where: records it rejected */
	struct persist ps;
	/* --idle-timeout: input idle since this wall time, with this W
	 * (several FILEs: the W once every one is idle) */
	uint64_t idle_read;
	int64_t idle_since, idle_wm;
	/* --follow with several FILEs and event time: each input's own
	 * watermark (srcwm.h), and the input of the record applied */
	struct srcwm *srcs;
	int src;
	struct timespec t0;
	/* --progress */
	int show;		/* 1 on, 0 off, -1 auto */
	int shown;		/* a line is on the terminal, to erase */
	int rows_first;		/* rows and messages share a file */
	int64_t next_show;	/* monotonic ns of the next line */
	uint64_t total;		/* bytes of the regular FILEs, or 0 */
	int writing;		/* the input is done: the rows at its end */
	uint64_t rows;		/* rows written through on_row() */
	/* --mode batch stopped by a signal (runstop.c) */
	int halted;		/* the sink was halted */
	int read_all;		/* the input was read to its end */
};

static inline struct op_globals *
G(struct run *r)
{
	/* the state's struct stays where it is; its arena may move */
	return st_globals(r->st);
}

/* runstop.c: signals. SIGINT, SIGTERM and SIGHUP end the input as its
 * end would; SIGUSR1 asks for a checkpoint (catch_signals). The signal
 * that asked the run to stop, or 0 (run_signal(): read per record, so
 * inline); whether a checkpoint was asked for since the last
 * save_begun(). */
extern volatile sig_atomic_t run_stop_signal;

static inline int
run_signal(void)
{
	return run_stop_signal;
}

void catch_signals(void);
int save_asked(void);
void save_begun(void);

/* runstop.c: in batch mode, whether a signal stopped the run; the first
 * time, the sink is halted (no further row is written; sorted halts its
 * replay). Once stopped, batch_interrupted says how far the run came
 * (bytes: of the input read) and returns the exit status, 128 + the
 * signal. */
int batch_stopped(struct run *r);
int batch_interrupted(struct run *r, uint64_t bytes);
/* A stream that a signal stopped without a checkpoint: the named files
 * it did not read to their end are said. */
void stream_interrupted(struct run *r);

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

/* Whether the run stops after a record: --strict met a bad one, the
 * restored state was found corrupt, or it passed --max-memory (the
 * cheap tests here: they come at every record). */
static inline int
record_stops(struct run *r)
{
	return r->fatal || (st_corrupt(r->st) != NULL && check_corrupt(r)) ||
	    (r->c->max_memory != 0 && over_budget(r));
}
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
