/* exec: one strategy interface (fwin(1): THE PLAN). A strategy is a way
 * from parsed records to rows: the window operator in arrival order, key
 * groups on workers, a table of (window, key) groups, two halves, the
 * operator while the records come in time order, sorted runs. Each is a
 * table of methods, as SQLite's sqlite3_io_methods are, in a file of its
 * own in exec/; the planner (plan.c) is the only caller of fits(), and
 * the driver (run/) knows strategies only through this header: it feeds
 * the one the plan chose (struct exec) and acts on what record() answers.
 * A strategy never reads the driver's fields: what it needs of the
 * driver (the sink, the watermark, the operator made anew, signals) it
 * gets in struct ex_env. When a strategy cannot go on, fallback.c
 * hands the records to the next one, with the same bytes. */
#ifndef FWIN_EXEC_H
#define FWIN_EXEC_H

#include <stdint.h>

#include "window/operator.h"
#include "exec/plan.h"

struct batch;
struct input;
struct parsed;
struct recsink;
struct sink;
struct source;
/* What record() did with a record. */
enum ex_rc {
	EX_ADDED,	/* taken: the watermark follows its time */
	EX_NOWIN,	/* in no window (counted): the watermark follows */
	EX_KEPT,	/* taken, the watermark left as it is (a batch's
			 * record kept for the end; windows in arrival order) */
	EX_LATE,	/* late (counted): for the late file */
	EX_RANGE,	/* its windows are out of the range of times: bad */
	EX_FAIL,	/* it cannot be kept (said): the run fails */
	EX_GIVEUP	/* the strategy cannot go on: fallback.c hands it and
			 * the records before it to the next one */
};

/* What a strategy has of the driver. The driver fills it once; op
 * changes when renew() makes the operator anew. Every callback takes
 * arg first. */
struct ex_env {
	const struct config *c;
	const struct plan *plan;
	struct aggs *g;		/* the operator's aggregates */
	struct op *op;		/* the driver's window operator: its state
				 * holds the counters (op_globals) */
	struct input *in;	/* the input (halves cut it in two) */
	struct source *source;	/* its records, read here (read again:
				 * source_rewind) */
	/* the row sink (sink.h): its output holds rows (hold.h), sinks
	 * like it format rows on other threads, it skips rows */
	struct sink *sink;
	struct recsink *late_file;	/* --late-file, or NULL */
	/* A row to the sink as the driver writes it (arg: not when a
	 * signal stopped a batch run). */
	op_emit_fn row;
	void *arg;
	/* A record at t was taken: the watermark follows (and advance()
	 * is called when it moves). */
	void (*time)(void *arg, int64_t t);
	/* n records found late apart from record()'s answers (workers,
	 * a second half): counted, the farthest by behind the
	 * watermark (INT64_MIN: none); maxt, the largest time read when
	 * the last of them came, tells the late summary whether a time
	 * far ahead of the clock had moved the watermark before them. */
	void (*found_late)(void *arg, uint64_t n, int64_t by, int64_t maxt);
	/* n records that --where rejected, read apart (a second half). */
	void (*filtered)(void *arg, uint64_t n);
	/* n more rows written that another thread formatted (copied from
	 * its scratch file: hold_write), which row() did not see. */
	void (*copied)(void *arg, uint64_t n);
	/* Whether a signal stopped a batch run: no further row. */
	int (*stopped)(void *arg);
	/* The operator made anew, empty, the driver's counters of what was
	 * read (records, bad ones, the time format) kept. */
	void (*renew)(void *arg);
	/* The reading thread, if any, stopped, what it read ahead applied
	 * (returns 0 when that ended the input or the run), and started
	 * again. */
	int (*solo)(void *arg);
	void (*threaded)(void *arg);
};

/* What a strategy that gives up leaves to the next (give_up()). */
struct ex_left {
	void *go_on;		/* a strategy that goes on with every record
				 * so far (halves: its table), or NULL */
	struct batch *kept;	/* every record so far, kept (straight on
				 * a pipe), or NULL: the FILEs are read again */
	uint64_t written;	/* rows written that the next will fire
				 * again: skipped */
	/* Who comes next is the plan's (plan_fallback): the strategy
	 * after from (fallback.c sets it to the one giving up; halves
	 * whose table gave up names the table), or, with again, the
	 * same one opened anew (a table that took records in time order
	 * takes them in any order). */
	enum strategy from;
	int again;
};

/* --stats and --progress: the driver fills fired, panes, keys and peak
 * from its operator first; a strategy says what is its own. */
struct ex_size {
	uint64_t fired, panes, keys, peak;
	uint64_t runs, bytes;	/* sorted runs spilled, and their bytes */
	/* live: the input read by another thread (a second half), its
	 * bytes and records, which the driver's counts leave out */
	uint64_t read_bytes, read_records;
	char how[64];		/* after the mode: ", in time order", ... */
	int replaying;		/* the records kept go through the windows */
	uint64_t replayed;	/* how many did */
};

struct ex_methods {
	const char *name;	/* as FWIN_STRATEGY and --explain plan say */
	const char *what;	/* --explain plan's line */
	enum strategy id;
	/* Whether its state is all the operator's, which a checkpoint
	 * holds: if not, the planner rejects it with --checkpoint. */
	int checkpoints;
	/* Whether the reading thread is to find each record's tumbling
	 * window (struct parsed's win). */
	int windows;
	/* Whether it can run pipeline c (aggregates g) planned as p; if
	 * not, why in words a user can act on (PLAN_WHY bytes). */
	int (*fits)(const struct config *c, const struct aggs *g,
	    const struct plan *p, char *why);
	/* Begins: first (from NULL), or taking over from one that gave
	 * up. NULL: it cannot begin (nothing read yet): the next one. */
	void *(*open)(struct ex_env *env, const struct ex_left *from);
	/* A good record (orec: its key, time and values). Returns EX_*. */
	int (*record)(void *s, const struct parsed *pr,
	    const struct op_rec *orec);
	/* The watermark moved to w, the largest time seen being maxt. */
	void (*advance)(void *s, int64_t w, int64_t maxt);
	/* The earliest time a timer is due (T_NONE: none; NULL: none). */
	int64_t (*next_timer)(void *s);
	/* Optional: the input would block: what is final is written. */
	void (*idle)(void *s);
	/* Optional: after the first record (its time format known).
	 * ready(s): whether it can begin its own reading; 0 is a give-up.
	 * begin(s): the reading thread stopped, it begins (EX_GIVEUP: it
	 * could not; the reading thread is started again). */
	int (*ready)(void *s);
	int (*begin)(void *s);
	/* Optional: the input reached its end (or a limit the strategy
	 * set): 1 when the input ends, EX_GIVEUP when it is to read on. */
	int (*input_end)(void *s);
	/* The run is over: with failed, it failed or a signal stopped it
	 * (a stream fires only what is due, a batch writes no further
	 * row); flush: the end of input fires every window. Returns 0, -1
	 * after a message, or EX_GIVEUP: the next one is to finish. */
	int (*finish)(void *s, int flush, int failed);
	/* It cannot go on: what it leaves (*left). The plan says which
	 * strategy takes over (plan_fallback). */
	void (*give_up)(void *s, struct ex_left *left);
	/* Optional: --stats (live 0) and --progress (live 1), where its
	 * size is not the operator's. */
	void (*size)(void *s, struct ex_size *z, int live);
	/* Optional: warms the cache for the records from reads ahead
	 * (source_ahead(), which looks past the last record handed over:
	 * the driver takes them one at a time for it). */
	void (*prefetch)(void *s, struct source *from);
	void (*free)(void *s);
};

/* The methods of strategy s (exec.c). */
const struct ex_methods *ex_methods(enum strategy s);

/* Each strategy's, in a file of its own. */
extern const struct ex_methods ex_ordered, ex_keyed, ex_streamtable,
    ex_halves, ex_table, ex_straight, ex_sorted;

/* The strategy a run feeds (fallback.c). */
struct exec {
	struct ex_env env;
	const struct ex_methods *m;
	void *s;
	int begun;		/* begin() was offered */
};

/* Opens the plan's strategy (or the one it falls back to when it
 * cannot begin). */
void exec_open(struct exec *x);

/* A good record for the strategy (exec_record); on EX_GIVEUP, the
 * fallback is made and the record handed to the next one (exec_retry).
 * Returns its answer (EX_FAIL: the fallback failed, said). */
int exec_retry(struct exec *x, const struct parsed *pr,
    const struct op_rec *orec);

static inline int
exec_record(struct exec *x, const struct parsed *pr,
    const struct op_rec *orec)
{
	int rc = x->m->record(x->s, pr, orec);

	return rc != EX_GIVEUP ? rc : exec_retry(x, pr, orec);
}

/* After the first record: begin()s. */
void exec_begin(struct exec *x);

/* The input reached its end: 1 when it ends, 0 when it reads on. */
int exec_input_end(struct exec *x);

/* The strategy gives up after the first n records: what it printed is
 * dropped (held) or skipped (written), the records are read again (or
 * taken as kept) by the next one. Returns 0, or -1 after a message. */
int fallback(struct exec *x, uint64_t n);

/* The end of the run (finish(), falling back as needed). Returns 0, or
 * -1 after a message. */
int exec_finish(struct exec *x, int flush, int failed);

/* Frees the strategy (and x's). */
void exec_close(struct exec *x);

static inline void
exec_advance(struct exec *x, int64_t w, int64_t maxt)
{
	x->m->advance(x->s, w, maxt);
}

static inline int64_t
exec_next_timer(struct exec *x)
{
	return x->m->next_timer != NULL ? x->m->next_timer(x->s) : T_NONE;
}

static inline void
exec_idle(struct exec *x)
{
	if (x->m->idle != NULL)
		x->m->idle(x->s);
}

static inline void
exec_prefetch(struct exec *x, struct source *from)
{
	if (x->m->prefetch != NULL)
		x->m->prefetch(x->s, from);
}

static inline int
exec_prefetches(const struct exec *x)
{
	return x->m->prefetch != NULL;
}

static inline void
exec_size(struct exec *x, struct ex_size *z, int live)
{
	if (x->m->size != NULL)
		x->m->size(x->s, z, live);
}

#endif
