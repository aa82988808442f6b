/* config: the pipeline definition, as parsed from the command line. */
#ifndef FWIN_CONFIG_H
#define FWIN_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "io/input.h"
#include "io/output.h"
#include "base/timefmt.h"

/* WK_NONE is rolling mode: a running aggregate per key. WK_OVER and
 * WK_OVER_ROWS print each record with aggregates of its key's records
 * before it (size: the range D; count_n: the rows N). */
enum wkind {
	WK_NONE, WK_TUMBLE, WK_SLIDE, WK_SESSION, WK_COUNT, WK_CUMULATE, WK_GLOBAL,
	WK_OVER,	/* --over D: each record with its key's [t - D, t] */
	WK_OVER_ROWS	/* --over-rows N: with its key's last N records */
};

/* --mode: auto is decided on the command line (cli.c), before a run. */
enum runmode { MODE_AUTO, MODE_STREAM, MODE_BATCH };

struct aggop;		/* an entry of the aggregate table (aggop.h) */
struct expr;		/* an expression (expr.h) */
struct stats_pct;	/* a requested percentile (stats.h) */

/* A bound of --histogram F:B1,B2,...: its value and its text as written,
 * which names its column (F_le_B). */
struct hist_bound {
	double b;
	char *name;
};

/* A FIELD as the user wrote it: a 1-based number, or a header name. */
struct fieldref {
	const char *spec;	/* as written */
	size_t idx;		/* 0-based column, once resolved */
	const char *name;	/* for messages and headers, once resolved */
	char *owned;		/* name, when copied from the header */
};

/* A field as messages name it: its name once resolved, else as written. */
static inline const char *
fieldref_said(const struct fieldref *f)
{
	return f->name != NULL ? f->name : f->spec;
}

struct aggspec {
	const struct aggop *op;
	struct fieldref f;	/* when op takes a FIELD */
	struct fieldref out;	/* min-by / max-by OUT */
	int has_out;
	struct stats_pct *pct;	/* percentiles: one column each (AGF_PCT) */
	size_t npct;
	struct hist_bound *bounds;	/* --histogram: ascending (AGF_HIST) */
	size_t nbounds;
	struct expr *cond;	/* --if: only records it is true for */
	char *as;		/* --as NAME: its column's name */
};

/* A record's field that --where or an --if names (a slot of theirs):
 * framed like a -k field, but never bad (missing or empty is NULL). */
struct xfield {
	struct fieldref f;
	char *spec;		/* f.spec's text */
	const char *opt;	/* where it was first named, for messages */
	size_t pos;
};

/* --eval NAME=EXPR */
struct evalcol {
	char *name;
	struct expr *e;
};

struct config {
	/* records */
	enum infmt fmt;
	int delim;			/* -1: the format's default */
	int header;
	struct fieldref *keys;
	size_t nkeys;
	/* time */
	int has_time;
	struct fieldref time;
	struct fieldref *time_more;	/* -t F1,F2,...: F2 on, joined by a
					   space to F1 before parsing */
	size_t ntime_more;
	enum tfmt time_fmt;
	const char *strp;		/* strptime format */
	enum tfmt out_time;
	struct cal_zone zone;		/* --tz (UTC by default) */
	/* windows */
	enum wkind wkind;
	int64_t size, step, offset;	/* size is the gap of --session */
	/* --tumble, --slide, --cumulate SIZE and STEP as written: fixed, or
	 * calendar units (size and step above are then 0 for months) */
	struct cal_unit usize, ustep;
	uint64_t count_n, count_slide;	/* --count-window N,SLIDE */
	int64_t lateness, allowed;
	int64_t idle_timeout;		/* 0: none */
	const char *late_file;
	int flush;			/* -1: default */
	int fill;			/* --fill: empty windows fire too */
	int64_t emit_every;		/* --emit-every D; 0: none */
	uint64_t top_n;			/* --top N; 0: every row */
	char *top_by;			/* --top-by NAME (NULL: the first aggregate) */
	int top_asc;			/* --top-by NAME:asc */
	/* --partition I/N: only keys whose key group g has
	 * g * N / KEY_GROUPS + 1 == I (part_n 0: every key) */
	unsigned part_i, part_n;
	/* --threads N (0 until decided: FWIN_THREADS, else the CPUs) */
	unsigned threads;
	/* aggregates */
	struct aggspec *aggs;
	size_t naggs;
	/* output */
	int outfmt_set;
	enum outfmt outfmt;
	const char *output;
	/* -o sqlite:DB[:TABLE] (output is then NULL) */
	char *sqlite;			/* DB, or NULL */
	char *sqlite_table;		/* TABLE: "fwin" by default */
	int changelog;			/* --changelog */
	int strict, stats;
	const char *bad_file;		/* --bad-file: bad records, verbatim */
	int progress;			/* --progress 1, --no-progress 0, -1 auto */
	int64_t max_future;		/* --max-future D; 0: none */
	/* checkpoints */
	const char *checkpoint;		/* --checkpoint, or --state */
	const char *restore;		/* --restore, or --state if it exists
					   (looked at again under its lock:
					   persist_lock()) */
	int state;			/* --state */
	int new_input;
	uint64_t ckpt_every_n;		/* records; 0: by time */
	int64_t ckpt_every_ns;
	/* input */
	char **files;
	int nfiles;
	int follow;			/* -F, --follow: FILEs are followed */
	/* json: the distinct paths that FIELDs name, once resolved; a
	 * FIELD's idx is its path's place here */
	const char **paths;
	size_t npaths;
	/* expressions (fwin(1), EXPRESSIONS): --where, the fields it and
	 * the aggregates' --if name, --having, --eval */
	struct expr *where;
	struct xfield *xfields;
	size_t nxfields;
	struct expr *having;
	struct evalcol *evals;
	size_t nevals;
	/* --mode, --max-memory (0: the default) */
	enum runmode mode;
	uint64_t max_memory;
	/* -H with csv or tsv: the header's fields (config_resolve); a
	 * record with more is bad: its values have shifted */
	size_t nheader;
};

/* The format rows print in without --output-format: the input's (tsv
 * for lines). */
static inline enum outfmt
input_outfmt(const struct config *c)
{
	return c->fmt == IF_CSV ? OF_CSV : c->fmt == IF_JSON ? OF_JSON :
	    OF_TSV;
}

/* The format rows print in (but to -o sqlite:). */
static inline enum outfmt
row_outfmt(const struct config *c)
{
	return c->outfmt_set ? c->outfmt : input_outfmt(c);
}

/* Whether c's window is --over or --over-rows. */
static inline int
over_window(const struct config *c)
{
	return c->wkind == WK_OVER || c->wkind == WK_OVER_ROWS;
}

/* Resolves every FIELD against the header names (names may be NULL when
 * there is no header); for json, every FIELD is a path, resolved to its
 * place in c->paths. Returns 0, or -1 after printing a usage message. */
int config_resolve(struct config *c, const struct field *names, size_t n);

/* The canonical text of the options that define the pipeline's state, one
 * per line, as a user would write them ("--tumble 1h"). Options that do
 * not change state (-o, --stats; the output format and --output-time but
 * with --changelog or -o sqlite:) are not in it. The caller frees it. */
char *config_fingerprint(const struct config *c);

/* Compares two fingerprints option by option. Returns NULL when equal;
 * otherwise (malloc'd) the first option that differs, as old has it and
 * as cur has it: "with --tumble 1m, not --tumble 5m", "without --tz, not
 * with --tz Europe/Berlin". */
char *config_fingerprint_diff(const char *old, const char *cur);

/* Frees what parsing and resolving allocated. */
void config_free(struct config *c);

/* The largest 0-based column any FIELD refers to, plus one. */
size_t config_maxfield(const struct config *c);

/* Binds the fields of e (given as option opt: "--where", "--if") to
 * slots of c->xfields, adding those not there yet. */
void config_bind_fields(struct config *c, struct expr *e, const char *opt);

/* Whether any aggregate has an --if. */
int config_has_cond(const struct config *c);

/* Parses a FIELD: stores the spec; a number is resolved now, a name later
 * by config_resolve(). Returns NULL, or what is wrong with it. */
const char *config_field(struct fieldref *f, const char *spec);

#endif
