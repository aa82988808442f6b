/* explain_int.h: what explain.c, explain_sql.c and explain_notes.c
 * share: the script being built (see explain.h), and the SQL text of
 * fwin's parts (explain_sql.c). */
#ifndef FWIN_EXPLAIN_INT_H
#define FWIN_EXPLAIN_INT_H

#include <stdint.h>
#include <stdio.h>

#include "window/agg.h"
#include "pipeline/config.h"

#define MS	1000000LL	/* nanoseconds */

struct ex {
	struct config *c;
	char **cols;		/* the source table's columns, in order */
	char **names;		/* and fwin's names of them: the header's,
				   which may name two alike */
	size_t ncols;
	char *tcol;		/* the event (or processing) time column */
	enum tfmt tfmt;
	enum outfmt of;
	int legacy;		/* a group window (GROUP BY SESSION / HOP) */
	int64_t offset;		/* the windows' offset from the epoch: --offset,
				   less 3 days for weeks from Monday */
	int byjoin;		/* min-by / max-by: a Top-N joined per window */
	const char **eval_types;	/* each --eval column's SQL type
					   (ex_bind_rows) */
	FILE *notes[2];		/* the leading comment's lists, being built:
				   for every pipeline, for this one */
	char *notebuf[2];
	size_t notelen[2];
};

/* How fwin's rows print window bounds: as --output-time says, else in
 * the input times' format (ISO for strptime and processing time). */
static inline enum tfmt
ex_bound_format(const struct ex *x)
{
	if (x->c->out_time != TF_AUTO)
		return x->c->out_time;
	return !x->c->has_time || x->tfmt == TF_STRPTIME ? TF_ISO : x->tfmt;
}

/* --- explain_sql.c: SQL text --- */

/* An identifier, in backticks (a backtick in it doubled). */
void sql_ident(FILE *o, const char *s);

/* A string literal (a quote in it doubled). */
void sql_literal(FILE *o, const char *s);

/* An interval literal for ns, in whole milliseconds: the largest unit
 * that holds it exactly under 100 (the default leading precision of SQL
 * interval fields), else DAY TO SECOND. */
void sql_interval(FILE *o, int64_t ns);

/* The input column a field reference names. */
const char *sql_col(const struct ex *x, const struct fieldref *f);

/* The i-th key's column name, as the run's header has it. */
char *ex_key_header(const struct ex *x, size_t i);

/* The i-th key's column of the sink: as the run's header names it, or
 * $N (N its column number) when an earlier key has that name. */
char *sql_key_name(const struct ex *x, size_t i);

/* The columns of an aggregate: one per percentile, else one. */
size_t sql_agg_ncols(const struct aggspec *a);

/* The j-th column's name, as the run's header has it. */
char *sql_agg_name(const struct aggspec *a, size_t j);

/* Writes the j-th column of an aggregate; returns -1 for one without a
 * counterpart. */
int sql_agg_expr(const struct ex *x, FILE *o, const struct aggspec *a,
    size_t j);

/* Whether the aggregate has a counterpart here. */
int sql_agg_known(const struct aggspec *a);

/* The SQL type of an aggregate's column. */
const char *sql_agg_type(const struct aggspec *a);

/* The Java pattern of a strptime format (malloc'd), or NULL and the
 * conversion in *bad. Letters outside conversions are quoted. */
char *sql_java_pattern(const char *s, char *bad);

/* The event time column's expression (the format is known by now): a
 * TIMESTAMP_LTZ, or for text times a TIMESTAMP, read as UTC, or with
 * --tz a TIMESTAMP_LTZ of the session time zone. */
void sql_time_expr(const struct ex *x, FILE *o);

/* --changelog, -o sqlite: ",\n  PRIMARY KEY (window_start, window_end,
 * keys) NOT ENFORCED" (the keys alone for the global window, whose
 * bounds move), or nothing where there is no key at all. */
void sql_primary_key(const struct ex *x, FILE *o);

/* --changelog, -o sqlite: the sink as a JDBC table, commented out. */
void sql_jdbc_comment(const struct ex *x, FILE *o);

/* Whether the aggregate is --min-by or --max-by. */
int ex_is_by(const struct aggspec *a);

/* Whether a min-by or max-by prints the whole record (no OUT). */
int ex_by_whole(const struct config *c);

/* Writes the leading comment's lists into x->notes: what Flink SQL does
 * not keep of this pipeline's semantics, with the nearest equivalent. */
void ex_notes(struct ex *x);

/* --- explain_expr.c: the expressions --- */

/* Writes lead and the WHERE clause of --where, if any. */
void ex_where(struct ex *x, FILE *o, const char *lead);
/* Writes an aggregate's --if condition. */
void ex_cond(struct ex *x, FILE *o, const struct aggspec *a);
/* The SQL agg of aggregate a (its input column col, or NULL) with its
 * --if, as CASE WHEN (malloc'd). */
char *sql_filtered(struct ex *x, const struct aggspec *a, const char *agg,
    const char *col);

/* Binds --having and --eval to the query's columns, and types the
 * --eval ones. Returns 0, or 2 after a usage message. */
int ex_bind_rows(struct ex *x);
/* The query body (malloc'd, taken) with the --eval columns and the
 * --having condition around it. */
char *ex_wrap_rows(struct ex *x, char *body);
/* Writes lead and each --eval column's name (typed: and its SQL
 * type). */
void ex_eval_cols(struct ex *x, FILE *o, const char *lead, int typed);

#endif
