/* runint: the driver's insides, shared by run.c (the loop), runstop.c
 * (signals), sinks.c (rows, late records and their files) and report.c
 * (messages, --stats, --progress, what was dropped); no other module
 * includes it. The strategy the driver feeds is behind exec.h. */
#ifndef FWIN_RUNINT_H
#define FWIN_RUNINT_H

#include <time.h>

#include "window/agg.h"
#include "window/changelog.h"
#include "pipeline/config.h"
#include "exec/exec.h"
#include "run/hint.h"
#include "io/input.h"
#include "window/operator.h"
#include "io/output.h"
#include "flow/parse.h"
#include "run/persist.h"
#include "exec/plan.h"
#include "flow/reader.h"
#include "flow/rowexpr.h"

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
	struct out *out, *late, *badout;
	int outfd, latefd, badfd;	/* (badout: --bad-file) */
	const char *outname;
	struct parser *parser;	/* the records' parser */
	struct aggs *pg;	/* its aggregates, with a reading thread */
	struct parsed pr;	/* what it said of the last record */
	struct hint *hint;	/* first-hour hints, while they watch */
	struct reader *rd;	/* --threads: the reading thread, or NULL */
	int ended, endrc;	/* it handed over the input's end */
	enum tfmt ofmt;		/* how bounds are printed; TF_AUTO: unknown yet */
	int rolling_time;	/* rolling mode with -t: a time column */
	char **over_cols;	/* --over with -H: the input's header names */
	size_t nover_cols;
	char *over_buf;		/* a csv field unquoted */
	size_t over_cap;
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
	struct out *cells;	/* a row's aggregate cells, to rank or digest */
	size_t rankcol;		/* the --top-by column among them (with
				 * rx: among all) */
	/* --having, --eval (rowexpr.h): the expressions bound to the
	 * columns, and this copy's cells (each thread's: NULL in a copy) */
	struct rowexpr *rx;
	struct rowcells *rcells;
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
	/* rows written by a strategy that gave up, which the one that
	 * took over fires again: the sink skips them (exec.h's skip) */
	uint64_t skip_rows;
	/* --changelog, -o sqlite: (sinks.c): rows start with an op cell;
	 * the rows printed before (in the state); a row's cells after the
	 * op, formatted to be kept; the SQLite sink, or NULL */
	int opcol;
	struct clog clog;
	struct out *cltail;
	size_t ncells;		/* columns after the op */
	struct sqlsink *sql;
	/* --progress */
	int show;		/* 1 on, 0 off, -1 auto */
	int shown;		/* a line is on the terminal, to erase */
	int64_t next_show;	/* monotonic ns of the next line */
	uint64_t total;		/* bytes of the regular FILEs, or 0 */
	/* --mode batch stopped by a signal (runstop.c) */
	int halted;		/* no further row is written */
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
 * that asked the run to stop, or 0; whether a checkpoint was asked for
 * since the last save_begun(). */
void catch_signals(void);
int run_signal(void);
int save_asked(void);
void save_begun(void);

/* runstop.c: in batch mode, whether a signal stopped the run; the first
 * time, no further row is written. Once stopped, batch_interrupted says
 * how far the run came (bytes: of the input read) and returns the exit
 * status, 128 + the signal. */
int batch_stopped(struct run *r);
int batch_interrupted(struct run *r, uint64_t bytes);
/* sinks.c: a copy of the run (a worker's) gets scratch of its own;
 * what it made is freed. A row of a window that stopped passing
 * --having: "-D" with the row it printed, if it did. */
void sink_copied(struct run *r);
void sink_copy_free(struct run *r);
void changelog_drop(struct run *r, const struct op_row *row);
/* -o sqlite: the database's commit position (0 without one). */
uint64_t sink_position(struct run *r);

/* A record this far ahead of the clock that moves the watermark is named
 * by the late summary, with --max-future (the man page's --max-future). */
#define FUTURE_HINT	(86400 * NS_PER_S)

/* report.c: what the run says on stderr */
void bad(struct run *r, const struct parsed *pr, const char *msg);
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

/* sinks.c: rows and late records, and the files they go to */
void on_row(void *arg, const struct op_row *row);
uint64_t digest_row(void *arg, const struct op_row *row);
/* --top: a row's --top-by cell (op_rank_fn) */
int rank_row(void *arg, const struct op_row *row, double *v);
void write_late(struct run *r, const char *raw, size_t rawlen);
/* --bad-file: a bad record, as it was read. */
void write_bad(struct run *r, const char *raw, size_t rawlen);
int open_sinks(struct run *r);
int close_sinks(struct run *r);

#endif
