/* sink: where a fired row (operator.h's struct op_row) becomes bytes,
 * whichever strategy fired it (fwin(1): OUTPUT). It formats the row
 * (tsv, csv, json; the bounds in the run's time format), judges
 * --having and computes --eval (rowexpr.h), tells the row's changelog op
 * (--changelog, -o sqlite:; changelog.h, whose kept cells live in the
 * state's arena), ranks rows for --top and digests them for
 * --emit-every, and writes them to its target: standard output, the -o
 * FILE or the SQLite table (sqlsink.h), opened with its header row.
 *
 * The driver opens one (sink_open); key-group workers and the second
 * half of a stream make sinks like it (sink_like) that format rows on
 * their own thread into memory or a scratch file, which the driver's
 * sink then writes as they are. A sink knows nothing of the driver: the
 * driver tells it what changes (the state after a new operator, the time
 * format once the input shows it, rows to skip, a halt).
 *
 * Records as read (the late file, --bad-file) go to record sinks,
 * recsink.h. */
#ifndef FWIN_SINK_H
#define FWIN_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "base/timefmt.h"
#include "io/output.h"
#include "io/sqlsink.h"
#include "pipeline/config.h"
#include "window/operator.h"

struct sink;

struct sink_spec {
	/* the pipeline (--having and --eval are bound to its columns) */
	struct config *c;
	/* the operator's state: its driver block (operator.h's struct
	 * op_globals) holds the watermark, the input's time format and,
	 * behind it, the changelog's kept rows */
	struct state *st;
	int has_bounds;		/* rows have window bounds (op_has_bounds) */
	/* --over with -H: the input's header names, which name the
	 * record's cells (kept by the caller while the sink lives) */
	const char *const *rec_cols;
	size_t nrec_cols;
	/* a restored run: its output goes on without a header row, the
	 * changelog's rows are checked, and -o sqlite: is rolled back to
	 * position (the checkpoint's) */
	int restored;
	uint64_t position;
	/* -o sqlite: the generations its transactions belong to */
	sqlsink_gens_fn gens;
	void *gens_arg;
};

/* Opens the target of sp->c (standard output, -o FILE or -o sqlite:)
 * with its header, and binds --having, --eval and --top-by to the
 * columns. Returns 0, or the exit status after a message (2: a usage
 * error); *s is set either way, for sink_close to close what was
 * opened. */
int sink_open(const struct sink_spec *sp, struct sink **s);

/* A sink that formats rows as s does (its columns, expressions and time
 * format) into o, with scratch of its own: for another thread (a key-
 * group worker, a half of the input). o stays the caller's. */
struct sink *sink_like(const struct sink *s, struct out *o);
/* Where a sink like another writes from now on. */
void sink_set_out(struct sink *s, struct out *o);
/* A new output in s's format and columns on fd, or with fd -1 one that
 * keeps its rows in memory (output.h's out_open_collect). */
struct out *sink_output_like(const struct sink *s, int fd);

/* Closes and frees: what sink_open opened is flushed and closed, a write
 * error said. Returns 0, or -1 after a message. NULL: 0. */
int sink_close(struct sink *s);

/* The state whose driver block it reads (a new operator's). */
void sink_set_state(struct sink *s, struct state *st);
/* How the rows print times (TF_AUTO: not known yet; the driver sets it
 * once the input shows its format). */
enum tfmt sink_timefmt(const struct sink *s);
void sink_set_timefmt(struct sink *s, enum tfmt f);

/* One fired row, written (or judged out by --having, or skipped);
 * sink_emit is it as an operator's row callback (op_emit_fn, arg the
 * sink). */
void sink_row(struct sink *s, const struct op_row *row);
void sink_emit(void *s, const struct op_row *row);
/* --emit-every: a digest of a row's result (op_digest_fn's). */
uint64_t sink_digest(struct sink *s, const struct op_row *row);
/* --top: the value of a row's --top-by cell (op_rank_fn's: 0, *v and
 * the cell's text, -1 for an empty cell, -2 for a row --having drops). */
int sink_rank(struct sink *s, const struct op_row *row, double *v,
    const char **text, size_t *len);

/* The next n rows (but --over's) are not written: a table that gave up
 * wrote them before the operator that takes over fires them again. */
void sink_skip(struct sink *s, uint64_t n);

/* No row after this one (a batch run stopped by a signal): what was
 * written goes out, later rows are dropped. */
void sink_halt(struct sink *s);

/* Whether a write of rows to its output has failed (the error is said
 * at the close). */
int sink_failed(const struct sink *s);

/* The output rows go to, to flush, divert to a scratch file and back,
 * or copy a scratch file's rows into (output.h). */
struct out *sink_out(struct sink *s);
/* Its name in messages; its file's descriptor (-1: none, -o sqlite:). */
const char *sink_name(const struct sink *s);
int sink_fd(const struct sink *s);
/* Flushes (-o sqlite: commits). Returns 0, or -1 with errno set. */
int sink_flush(struct sink *s);
/* -o sqlite: the database's commit position (0 without one). */
uint64_t sink_position(const struct sink *s);

#endif
