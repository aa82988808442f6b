/* sink: fired rows into bytes, whichever strategy fired them; see
 * sink.h. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/lock.h"
#include "base/num.h"
#include "base/util.h"
#include "flow/recsink.h"
#include "flow/rowexpr.h"
#include "flow/sink.h"
#include "io/fieldcount.h"
#include "io/json.h"
#include "io/keycodec.h"
#include "window/changelog.h"

struct sink {
	struct config *c;
	struct state *st;	/* its driver block: struct op_globals */
	int has_bounds;		/* rows have window bounds */
	int rolling_time;	/* rolling mode with -t: a time column */
	enum tfmt ofmt;		/* how times print; TF_AUTO: unknown yet */
	/* The last time printed in each of the first two time columns, as
	 * printed: the rows of one window share their bounds, and each
	 * bound costs a formatting in the zone. */
	struct shown_time {
		int64_t t;
		enum tfmt fmt;
		size_t n;
		char text[TF_BUFSZ];
	} shown[2];
	/* --over with -H: the input's header names (the caller's) */
	const char *const *rec_cols;
	size_t nrec_cols;
	char *rec_buf;		/* a csv field unquoted */
	size_t rec_cap;
	/* --over with json input: the record's members --having and --eval
	 * read (the opened sink's), and this sink's scanner of them */
	const char **members;
	size_t nmembers;
	struct json *mjson;
	struct field *mfields;
	struct twice *twice;	/* (the opened sink's: no copy prints --over
				   rows) */
	struct out *out;
	int outfd;		/* -o FILE's, 1, or -1: none of its own */
	const char *name;	/* in messages */
	int opened;		/* sink_open's: owns out, outfd, rx, sql */
	struct out *cells;	/* a row's aggregate cells, to rank or digest */
	size_t rankcol;		/* the --top-by column among them (with
				 * rx: among all) */
	/* --having, --eval (rowexpr.h): the expressions bound to the
	 * columns (shared by the sinks like this one), and this sink's
	 * cells (made on its thread) */
	struct rowexpr *rx;
	struct rowcells *rcells;
	uint64_t skip;		/* rows not to write (sink_skip) */
	int halted;		/* no further row is written */
	/* --changelog, -o sqlite: rows start with an op cell; the rows
	 * printed before (in the state); a row's cells after the op,
	 * formatted to be kept; the SQLite sink, or NULL */
	int opcol;
	struct clog clog;
	struct out *cltail;
	size_t ncells;		/* columns after the op */
	struct sqlsink *sql;
};

static struct op_globals *
globals(const struct sink *s)
{
	return st_globals(s->st);
}

/* Time t as printed in the time column col (0 or 1). */
static const struct shown_time *
shown_time(struct sink *s, int64_t t, int col)
{
	struct shown_time *st = &s->shown[col];

	if (st->n == 0 || st->t != t || st->fmt != s->ofmt) {
		st->n = tf_format_tz(st->text, t, s->ofmt, &s->c->zone);
		st->t = t;
		st->fmt = s->ofmt;
	}
	return st;
}

/* Time t into o, in the time column col (0 or 1). */
static void
emit_time_to(struct sink *s, struct out *o, int64_t t, int col)
{
	const struct shown_time *st = shown_time(s, t, col);

	if (s->ofmt == TF_ISO)
		out_str(o, st->text, st->n);
	else
		out_own_num(o, st->text, st->n);
}

/* A row's bounds (or rolling mode's time), keys and aggregates into o. */
static void
row_cells(struct sink *s, struct out *o, const struct op_row *row)
{
	if (row->has_bounds) {
		emit_time_to(s, o, row->start, 0);
		emit_time_to(s, o, row->end, 1);
	} else if (s->rolling_time)
		emit_time_to(s, o, row->time, 0);
	key_write(o, s->c->nkeys, row->key, row->keylen);
	aggs_emit(row->g, row->a, row->acc, o);
}

/* --having, --eval: the row's cells as printed, in memory; its --eval
 * columns computed. Returns whether --having keeps it. */
static int
judge_row(struct sink *s, const struct op_row *row)
{
	struct out *o;

	if (s->rcells == NULL)	/* (made on the sink's thread) */
		s->rcells = rowcells_new(s->rx);
	o = rowcells_sink(s->rcells);
	row_cells(s, o, row);
	if (s->c->emit_every > 0)	/* (--having may read it) */
		out_own_num(o, row->final ? "1" : "0", 1);
	return rowexpr_judge(s->rx, s->rcells);
}

/* A row's cells (after the op column, when there is one) into o: the
 * output, or a tail sink whose cells changelog.h keeps. */
static void
write_cells(struct sink *s, struct out *o, const struct op_row *row)
{
	row_cells(s, o, row);
	if (s->rx != NULL)	/* (judged just before) */
		rowexpr_write(s->rx, s->rcells, o);
	if (s->c->emit_every > 0)
		out_own_num(o, row->final ? "1" : "0", 1);
}

/* write_cells() and the row's end, for the commonest row, in one piece
 * (output.h: out_row_room): bounds in numbers and one key written as it
 * is, in csv or tsv, then counts and sums that print as integers, or
 * any other aggregates a cell at a time. Returns 0 for write_cells() to
 * write any other row. */
static int
write_row_whole(struct sink *s, const struct op_row *row)
{
	const struct shown_time *a, *b;
	char *p, *e, sep;

	if (!row->has_bounds || s->ofmt == TF_ISO || s->c->nkeys != 1 ||
	    s->rx != NULL || s->c->emit_every > 0)
		return 0;
	a = shown_time(s, row->start, 0);
	b = shown_time(s, row->end, 1);
	if ((p = out_row_room(s->out, a->n + b->n + row->keylen +
	    s->c->naggs * (1 + NUM_BUFSZ) + 3, &sep)) == NULL ||
	    !out_str_as_is(s->out, row->key, row->keylen))
		return 0;
	memcpy(p, a->text, a->n);
	p += a->n;
	*p++ = sep;
	memcpy(p, b->text, b->n);
	p += b->n;
	*p++ = sep;
	if (row->keylen != 0)	/* (an empty key may come as NULL) */
		memcpy(p, row->key, row->keylen);
	p += row->keylen;
	if ((e = aggs_put_ints(row->g, row->acc, p, sep)) != NULL) {
		out_row_done(s->out, e);
		return 1;
	}
	out_row_cells(s->out, p, 3);
	aggs_emit(row->g, row->a, row->acc, s->out);
	out_end_row(s->out);
	return 1;
}

/* changelog.h's emit: a row with its op. */
static void
emit_op(void *arg, const char *op, const char *cells, size_t n)
{
	struct sink *s = arg;

	out_str(s->out, op, 2);
	out_cells(s->out, cells, n, s->ncells);
	out_end_row(s->out);
}

/* What the changelog knows a row by; its cells formatted (to keep) when
 * rows are kept. */
static void
clog_row_of(const struct op_row *row, struct clog_row *cr)
{
	memset(cr, 0, sizeof(*cr));
	cr->start = row->start;
	cr->end = row->end;
	cr->has_bounds = row->has_bounds;
	cr->final = row->final;
	cr->key = row->key;
	cr->keylen = row->keylen;
}

/* --changelog, -o sqlite: a row with its op. */
static void
changelog_row(struct sink *s, const struct op_row *row)
{
	struct clog_row cr;

	if (clog_size(s->c) == 0) {	/* no row prints twice */
		out_str(s->out, "+I", 2);
		write_cells(s, s->out, row);
		out_end_row(s->out);
		return;
	}
	if (s->cltail == NULL)
		s->cltail = out_open_tail(s->out);
	out_mem_clear(s->cltail);
	write_cells(s, s->cltail, row);
	clog_row_of(row, &cr);
	cr.cells = out_buffered(s->cltail, &cr.ncells_len);
	clog_print(&s->clog, globals(s)->g_wm, &cr, emit_op, s);
}

/* A row of a window that stopped passing --having: "-D" with the row it
 * printed, if it did. */
static void
changelog_drop(struct sink *s, const struct op_row *row)
{
	struct clog_row cr;

	if (!s->opcol || clog_size(s->c) == 0)
		return;
	clog_row_of(row, &cr);
	clog_gone(&s->clog, &cr, emit_op, s);
}

/* --over: the cells of the record as read into o, as many as the
 * header names (csv's framed as the reader frames them, and unquoted;
 * lines split as read, on runs of blanks or -d), missing ones empty: what
 * --having and --eval read. */
static void
record_cells(struct sink *s, struct out *o, const char *p, size_t n)
{
	const struct config *c = s->c;
	const char *e = p + n, *q;
	int sep = c->fmt == IF_CSV ? ',' : c->fmt == IF_TSV ? '\t' : c->delim;
	size_t k, len;

	for (k = 0; k < s->nrec_cols; k++) {
		if (sep < 0)	/* lines: runs of blanks */
			while (p < e && (*p == ' ' || *p == '\t'))
				p++;
		if (c->fmt == IF_CSV) {
			q = csv_field_end(p, e, sep);
			len = (size_t)(q - p);
			if (len > 0 && *p == '"') {
				xgrow(&s->rec_buf, &s->rec_cap, len, 1);
				len = csv_field_text(p, len, s->rec_buf);
				out_str(o, s->rec_buf, len);
			} else
				out_str(o, p, len);
		} else {
			q = sep < 0 ? p : memchr(p, sep, (size_t)(e - p));
			if (sep < 0)
				while (q < e && *q != ' ' && *q != '\t')
					q++;
			out_str(o, p, (size_t)((q != NULL ? q : e) - p));
		}
		p = q != NULL && q < e ? q + (sep >= 0) : e;
	}
}

/* --over: the record as read, as the first cells of its row: csv, tsv
 * and json as they came, a csv or tsv record with fewer fields than the
 * header with empty cells for the missing ones (the aggregates then stand
 * under their names); lines split as read into tsv cells (with -H, as
 * many as the header names). */
static void
write_record(struct sink *s, const char *p, size_t n)
{
	const struct config *c = s->c;
	const char *e = p + n, *q;
	size_t nf;

	if (c->fmt != IF_LINES && s->nrec_cols > 0) {	/* csv, tsv */
		nf = text_fields(p, n, c->fmt == IF_CSV ? ',' : '\t',
		    c->fmt == IF_CSV);
		out_record(s->out, p, n, nf);
		for (; nf < s->nrec_cols; nf++)
			out_null(s->out);
		return;
	}
	if (c->fmt != IF_LINES) {
		out_record(s->out, p, n, 1);
		return;
	}
	if (s->nrec_cols > 0) {
		record_cells(s, s->out, p, n);
		return;
	}
	for (;;) {
		if (c->delim < 0)
			while (p < e && (*p == ' ' || *p == '\t'))
				p++;
		if (p == e && c->delim < 0)
			return;
		q = c->delim >= 0 ? memchr(p, c->delim, (size_t)(e - p)) : p;
		if (c->delim < 0)
			while (q < e && *q != ' ' && *q != '\t')
				q++;
		out_str(s->out, p, (size_t)((q != NULL ? q : e) - p));
		if (q == NULL || q == e)
			return;
		p = q + (c->delim >= 0);
	}
}

/* --over with json input: the members of the record as read into o,
 * those --having and --eval name; missing ones (and null) empty. */
static void
member_cells(struct sink *s, struct out *o, const char *p, size_t n)
{
	const char *err;
	size_t i;
	int found;

	if (s->mjson == NULL) {
		s->mjson = json_new(s->members, s->nmembers);
		s->mfields = xcalloc(s->nmembers ? s->nmembers : 1,
		    sizeof(*s->mfields));
	}
	/* (read before as one object: never -1) */
	found = json_scan(s->mjson, p, n, s->mfields, NULL, &err) == 1;
	for (i = 0; i < s->nmembers; i++)
		if (found && s->mfields[i].n > 0)
			out_str(o, s->mfields[i].p, s->mfields[i].n);
		else
			out_null(o);
}

/* --over with json input: the names of the members a row adds (the
 * aggregates' and --eval columns'), which its record may have too, the
 * record's own being known only as it is read; the first row that holds
 * a name twice is warned of. */
struct twice {
	char **names;		/* (a name with a '.' is left out: a path
				   would read it as nested) */
	size_t *len;
	size_t n;
	unsigned char first[256];	/* 1 where a name begins so */
	struct json *j;		/* the record read for them */
	unsigned char *kind;
	struct field *f;
	int said;
};

/* The twice of names[0..n), or NULL when it has none to look for. */
static struct twice *
twice_new(const char *const *names, size_t n)
{
	struct twice *tw;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += strchr(names[i], '.') == NULL;
	if (k == 0)
		return NULL;
	tw = xcalloc(1, sizeof(*tw));
	tw->names = xcalloc(k, sizeof(*tw->names));
	tw->len = xcalloc(k, sizeof(*tw->len));
	for (i = 0; i < n; i++)
		if (strchr(names[i], '.') == NULL) {
			tw->names[tw->n] = xstrdup(names[i]);
			tw->len[tw->n++] = strlen(names[i]);
			tw->first[(unsigned char)names[i][0]] = 1;
		}
	tw->j = json_new((const char *const *)tw->names, tw->n);
	tw->kind = xcalloc(k, sizeof(*tw->kind));
	tw->f = xcalloc(k, sizeof(*tw->f));
	return tw;
}

static void
twice_free(struct twice *tw)
{
	size_t i;

	if (tw == NULL)
		return;
	for (i = 0; i < tw->n; i++)
		free(tw->names[i]);
	free(tw->names);
	free(tw->len);
	json_free(tw->j);
	free(tw->kind);
	free(tw->f);
	free(tw);
}

/* Whether p[0..n) holds one of the names in quotes (as a member's name,
 * or a string): most records do not, and need not be read again. One
 * pass over the record, its quotes found by memchr(3), whatever the
 * number of names. */
static int
holds_quoted(const struct twice *tw, const char *p, size_t n)
{
	const char *e = p + n, *q = p;
	size_t i;

	while ((q = memchr(q, '"', (size_t)(e - q))) != NULL) {
		if (++q < e && tw->first[(unsigned char)*q])
			for (i = 0; i < tw->n; i++)
				if ((size_t)(e - q) > tw->len[i] &&
				    q[tw->len[i]] == '"' &&
				    memcmp(q, tw->names[i], tw->len[i]) == 0)
					return 1;
	}
	return 0;
}

/* Warns, once, when the json record p[0..n) has a member named as one
 * its row adds. */
static void
twice_check(struct twice *tw, const char *p, size_t n)
{
	const char *err;
	size_t i;

	if (!holds_quoted(tw, p, n) ||
	    json_scan(tw->j, p, n, tw->f, tw->kind, &err) != 1)
		return;
	for (i = 0; i < tw->n; i++)
		if (tw->kind[i] != JSON_MISSING) {
			fwin_warn("a record has a member '%s', as a column of "
			    "the output is named: its row holds the name "
			    "twice; name the column apart (--as)",
			    tw->names[i]);
			tw->said = 1;
			return;
		}
}

/* --over with --having, --eval: the record's cells and its frame's, in
 * memory. Returns whether --having keeps it. */
static int
judge_record(struct sink *s, const struct op_row *row)
{
	struct out *o;

	if (s->rcells == NULL)
		s->rcells = rowcells_new(s->rx);
	o = rowcells_sink(s->rcells);
	if (s->c->fmt == IF_JSON)
		member_cells(s, o, row->rec, row->reclen);
	else if (s->nrec_cols > 0)	/* (without -H: not read) */
		record_cells(s, o, row->rec, row->reclen);
	aggs_emit(row->g, row->a, row->acc, o);
	return rowexpr_judge(s->rx, s->rcells);
}

void
sink_row(struct sink *s, const struct op_row *row)
{
	if (s->halted)		/* (a stopped batch run) */
		return;
	if (row->rec != NULL) {	/* --over: the record, then its frame's */
		if (s->rx != NULL && !judge_record(s, row))
			return;		/* --having */
		if (s->twice != NULL && !s->twice->said)
			twice_check(s->twice, row->rec, row->reclen);
		write_record(s, row->rec, row->reclen);
		aggs_emit(row->g, row->a, row->acc, s->out);
		if (s->rx != NULL)
			rowexpr_write(s->rx, s->rcells, s->out);
		out_end_row(s->out);
		return;
	}

	if (s->skip > 0) {	/* written by a table before */
		s->skip--;
		return;
	}
	if (s->rx != NULL && !judge_row(s, row)) {	/* --having */
		if (s->opcol)	/* a row it printed before is gone */
			changelog_drop(s, row);
		return;
	}
	if (s->opcol) {		/* --changelog, -o sqlite: */
		changelog_row(s, row);
		return;
	}
	if (write_row_whole(s, row))
		return;
	write_cells(s, s->out, row);
	out_end_row(s->out);
}

void
sink_emit(void *s, const struct op_row *row)
{
	sink_row(s, row);
}

/* Renders a row's aggregate cells in memory: to rank or digest them. */
static struct out *
render_cells(struct sink *s, const struct op_row *row)
{
	if (s->cells == NULL)
		s->cells = out_open_mem();
	out_mem_clear(s->cells);
	aggs_emit(row->g, row->a, row->acc, s->cells);
	return s->cells;
}

/* --emit-every: a window's result, as its cells' hash. */
uint64_t
sink_digest(struct sink *s, const struct op_row *row)
{
	struct out *o = render_cells(s, row);
	const char *p;
	size_t i, n;
	uint64_t h = 0;

	for (i = 0; (p = out_cell(o, i, &n)) != NULL; i++)
		h = key_hash(p, n) ^ (h * 0x100000001b3u + n);
	return h;
}

/* --top: the value of a row's --top-by cell. */
int
sink_rank(struct sink *s, const struct op_row *row, double *v,
    const char **text, size_t *len)
{
	struct num nu;
	const char *p;
	size_t n;

	if (s->rx != NULL) {	/* --having first, as SQL's before Top-N */
		if (!judge_row(s, row))
			return -2;
		p = rowexpr_cell(s->rcells, s->rankcol, &n);
	} else
		p = out_cell(render_cells(s, row), s->rankcol, &n);
	if (p == NULL || n == 0 || num_parse(p, n, &nu) != 0)
		return -1;
	*v = nu.d;
	*text = p;
	*len = n;
	return 0;
}

/* Finds --top-by (agg_top_column) among the n aggregate columns, which
 * follow first other columns, or among the --eval columns after them,
 * and sets up ranking. Returns 0, or -1 after a message (a usage
 * error). */
static int
top_column(struct sink *s, size_t first, size_t n)
{
	size_t i;

	if (agg_top_column(s->c, &i, NULL) != 0)
		return -1;
	if (i >= n) {	/* an --eval column */
		s->rankcol = first + i;
		return 0;
	}
	/* (sink_rank ranks by it): among the aggregates' cells, or with
	 * --having and --eval among all */
	s->rankcol = i + (s->rx != NULL ? first : 0);
	return 0;
}

/* How many of the n columns cols and the --eval columns are named
 * name. */
static size_t
columns_named(const struct config *c, const char *const *cols, size_t n,
    const char *name)
{
	size_t i, j = 0;

	for (i = 0; i < n; i++)
		j += strcmp(cols[i], name) == 0;
	for (i = 0; i < c->nevals; i++)
		j += strcmp(c->evals[i].name, name) == 0;
	return j;
}

/* --as and --eval names: each must name one column. Returns 0, or -1
 * after a usage message. */
static int
unique_names(const struct config *c, const char *const *cols, size_t n)
{
	const char *name = NULL, *opt = NULL;
	size_t k;

	for (k = 0; k < c->naggs && name == NULL; k++)
		if (c->aggs[k].as != NULL &&
		    columns_named(c, cols, n, c->aggs[k].as) > 1) {
			name = c->aggs[k].as;
			opt = "--as";
		}
	for (k = 0; k < c->nevals && name == NULL; k++)
		if (columns_named(c, cols, n, c->evals[k].name) > 1) {
			name = c->evals[k].name;
			opt = "--eval";
		}
	if (name != NULL) {
		fwin_warn("%s: the output has two columns named '%s'", opt,
		    name);
		return -1;
	}
	return 0;
}

/* The output's columns as named_once() sees them: cols[0..n), the
 * window's bounds or the time and the keys (--over: the record's fields)
 * before first, then the aggregates' nagg columns (column first + i is
 * aggregate colagg[i]'s), then --eval's and final. */
struct colnames {
	const char *const *cols;
	size_t n, first, nagg;
	const size_t *colagg;
	int op;			/* --changelog's op is one more, index n */
};

/* What may give column i another name. */
enum renamer { RN_NONE, RN_AS, RN_PLIST, RN_EVAL };

static enum renamer
renamer(const struct config *c, const struct colnames *cn, size_t i,
    const struct aggspec **agg)
{
	const struct aggspec *a;

	if (i < cn->first || i >= cn->n)	/* the window's, a key's, op */
		return RN_NONE;
	if (i >= cn->first + cn->nagg)
		return i < cn->first + cn->nagg + c->nevals ? RN_EVAL : RN_NONE;
	*agg = a = &c->aggs[cn->colagg[i - cn->first]];
	/* --as names no column of a list of percentiles (cliexpr.c) */
	return (a->op->flags & AGF_PLIST) && a->npct > 1 ? RN_PLIST : RN_AS;
}

/* Where the output knows columns by their names (named_by: a SQLite
 * table, JSON objects), two named alike would be one (--count --if E
 * --count, a key field named op with --changelog). Returns 0, or -1
 * after a usage message whose hint is only what renames one of the
 * two: --as renames an aggregate's column, nothing a key field's. */
static int
named_once(const struct config *c, const struct colnames *cn,
    const char *named_by)
{
	const struct aggspec *aa = NULL, *ab = NULL, *as;
	enum renamer ra, rb;
	char hint[96];
	size_t a, b, n = cn->n + (cn->op != 0);

	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++)
			if (strcmp(cn->cols[a], b < cn->n ? cn->cols[b] :
			    "op") == 0)
				goto alike;
	return 0;
alike:
	ra = renamer(c, cn, a, &aa);
	rb = renamer(c, cn, b, &ab);
	as = ra == RN_AS ? aa : rb == RN_AS ? ab : NULL;
	if (ra == RN_AS && rb == RN_AS)
		snprintf(hint, sizeof(hint), "; name one with --as");
	else if (as != NULL)
		snprintf(hint, sizeof(hint), "; name --%s's column%s with --as",
		    as->op->option, agg_ncols(as) > 1 ? "s" : "");
	else if (ra == RN_EVAL || rb == RN_EVAL)
		snprintf(hint, sizeof(hint), "; give the --eval column another "
		    "name");
	else if (ra == RN_PLIST && rb == RN_PLIST)
		snprintf(hint, sizeof(hint), "; ask for each percentile once");
	else if (ra == RN_PLIST || rb == RN_PLIST)
		snprintf(hint, sizeof(hint), "; ask for that percentile with a "
		    "--%s of its own, and name it with --as",
		    (ra == RN_PLIST ? aa : ab)->op->option);
	else if (c->sqlite == NULL)	/* a key's, the window's, op, final */
		snprintf(hint, sizeof(hint), "; CSV and TSV output keep both");
	else
		hint[0] = '\0';
	fwin_warn("%s: two columns are named '%s'%s", named_by, cn->cols[a],
	    hint);
	return -1;
}

/* Whether the fields have names (-H, or json's paths): the output then
 * starts with a header row. */
static int
named(const struct config *c)
{
	return c->header || c->fmt == IF_JSON;
}

/* Writes p[0..n) into buf[0..sz) for a message: quoted, as
 * shown_bytes() shows it. */
static void
quote_line(char *buf, size_t sz, const char *p, size_t n)
{
	buf[0] = '\'';
	(void)shown_bytes(buf + 1, sz - 2, p, n);
	strcat(buf, "'");
}

/* -o FILE, not empty, with a header row: whether its first line is
 * another header than this run's (reported: such a FILE is not appended
 * to). */
static int
other_header(struct sink *s)
{
	char qgot[208], qwant[208], *want, *got;
	size_t wn, gn;
	ssize_t k;
	const char *nl;
	int fd, same;

	/* a FILE that cannot be read (write-only) is not looked into */
	if ((fd = open(s->c->output, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	want = out_header_line(s->out, &wn);
	/* enough for this header and its '\n', and for a message */
	got = xmalloc(wn + 256);
	k = pread(fd, got, wn + 256, 0);
	close(fd);
	same = k < 0 || ((size_t)k > wn && got[wn] == '\n' &&
	    memcmp(got, want, wn) == 0);
	if (!same) {
		gn = (size_t)k;
		if ((nl = memchr(got, '\n', gn)) != NULL)
			gn = (size_t)(nl - got);
		quote_line(qgot, sizeof(qgot), got, gn);
		quote_line(qwant, sizeof(qwant), want, wn);
		fwin_warn("%s holds rows of another pipeline: its header is "
		    "%s, this run's is %s", s->c->output, qgot, qwant);
	}
	free(got);
	free(want);
	return !same;
}

/* A column's type in the SQLite sink: counts are INTEGER, text results
 * TEXT, other numbers NUMERIC. */
static enum sqlcol
agg_type(const struct aggop *op)
{
	if (op->flags & AGF_TEXT)
		return SQLC_TEXT;
	if ((op->flags & AGF_HIST) || strcmp(op->column, "count") == 0 ||
	    strcmp(op->column, "distinct") == 0 ||
	    strcmp(op->column, "approx_distinct") == 0)
		return SQLC_INTEGER;
	return SQLC_NUMERIC;
}

/* -o sqlite:DB[:TABLE]: the sink of cells cols[0..n) (cols[0] the op)
 * into the table, keyed by the window's bounds (not the global
 * window's, which move) and the keys. Returns 0 or the exit status. */
static int
open_sqlite(struct sink *s, const struct sink_spec *ssp, const char **cols,
    const enum sqlcol *types, size_t n)
{
	const struct config *c = s->c;
	struct sqlsink_spec sp;
	size_t pk[2 + 64], npk = 0, i, at = 0;
	char *owner, *from;
	int status;

	if (s->rolling_time)
		at = 1;
	else if (s->has_bounds) {
		if (c->wkind != WK_GLOBAL) {
			pk[npk++] = 0;
			pk[npk++] = 1;
		}
		at = 2;
	}
	if (c->nkeys > 64) {
		fwin_warn("-o sqlite: at most 64 key fields");
		return 2;
	}
	for (i = 0; i < c->nkeys; i++)
		pk[npk++] = at + i;
	memset(&sp, 0, sizeof(sp));
	sp.db = c->sqlite;
	sp.table = c->sqlite_table;
	sp.cols = cols + 1;
	sp.types = types + 1;
	sp.ncols = n - 1;
	sp.pk = pk;
	sp.npk = npk;
	sp.journal = c->checkpoint != NULL || c->restore != NULL;
	sp.iso = s->ofmt == TF_ISO;
	owner = c->checkpoint != NULL ? lock_abspath(c->checkpoint) : NULL;
	from = c->restore != NULL ? lock_abspath(c->restore) : NULL;
	sp.owner = owner;
	sp.from = from;
	s->sql = sqlsink_open(&sp, &status);
	free(owner);
	free(from);
	if (s->sql == NULL)
		return status;
	sqlsink_generations(s->sql, ssp->gens, ssp->gens_arg);
	if ((ssp->restored ? sqlsink_rollback(s->sql, ssp->position) :
	    sqlsink_fresh(s->sql)) != 0)
		return 1;
	s->outfd = -1;
	s->name = c->sqlite;
	s->out = out_open(-1, c->sqlite, OF_CELLS, cols, n);
	out_set_writer(s->out, sqlsink_write, s->sql);
	return 0;
}

/* The columns before the aggregates: the time or the window's bounds,
 * then the keys (--over: the record's fields instead). Returns how many. */
static size_t
lead_columns(struct sink *s, const char **cols, enum sqlcol *types,
    char **owned)
{
	const struct config *c = s->c;
	size_t i, j = 0;

	if (s->rolling_time) {
		types[j] = SQLC_TIME;
		cols[j++] = "time";
	} else if (s->has_bounds) {
		types[j] = types[j + 1] = SQLC_TIME;
		cols[j++] = "window_start";
		cols[j++] = "window_end";
	}
	if (over_window(c)) {	/* the record's fields, as its input names */
		for (i = 0; i < s->nrec_cols; i++) {
			types[j] = SQLC_TEXT;
			cols[j++] = s->rec_cols[i];
		}
		if (s->nrec_cols == 0) {	/* (json's members, lines
						   without -H: a cell of no
						   name, which no --as or
						   --eval name can be) */
			types[j] = SQLC_TEXT;
			cols[j++] = "";
		}
	}
	for (i = 0; i < c->nkeys && !over_window(c); i++, j++) {
		types[j] = SQLC_TEXT;
		if (named(c))
			cols[j] = c->keys[i].name;
		else {
			if (asprintf(&owned[j], "key%zu", i + 1) < 0)
				fwin_oom();
			cols[j] = owned[j];
		}
	}
	return j;
}

/* Binds --having and --eval (rowexpr.h) to the row's n columns cols, the
 * aggregates' from first; with --over and json input, whose record has
 * no columns until read, to the record's members they name and then the
 * aggregates' columns. Returns 0, or -1 after a usage message. */
static int
bind_rows(struct sink *s, const char **cols, size_t n, size_t first)
{
	const char **names;
	int rc;

	if (over_window(s->c) && s->c->fmt != IF_JSON && s->nrec_cols == 0)
		/* (no -H: the record's cells are not read, its fields
		 * having no names) */
		return rowexpr_names_only(s->c) != 0 ? -1 :
		    rowexpr_new(s->c, cols + first, n - first, &s->rx);
	if (!over_window(s->c) || s->c->fmt != IF_JSON)
		return rowexpr_new(s->c, cols, n, &s->rx);
	if (s->c->having == NULL && s->c->nevals == 0)
		return 0;
	if (rowexpr_members(s->c, cols + first, n - first, &s->members,
	    &s->nmembers) != 0)
		return -1;
	names = xmalloc((s->nmembers + n - first) * sizeof(*names));
	memcpy(names, s->members, s->nmembers * sizeof(*names));
	memcpy(names + s->nmembers, cols + first, (n - first) *
	    sizeof(*names));
	rc = rowexpr_new(s->c, names, s->nmembers + n - first, &s->rx);
	free(names);
	return rc;
}

/* Builds the output's column names and opens it. Returns 0, or the exit
 * status after a message. */
static int
open_output(struct sink *s, const struct sink_spec *sp)
{
	const struct config *c = s->c;
	size_t ncols = 4 + c->nkeys + c->naggs + s->nrec_cols + c->nevals;
	size_t i, j = 0, k, first;
	const char **cols;
	enum sqlcol *types;
	char **owned;
	size_t *colagg;		/* the aggregate of each aggregate column */
	struct colnames cn;
	struct stat sb;
	enum outfmt of;
	const char *why, *named_by;
	int status = 1;

	for (i = 0; i < c->naggs; i++)	/* a percentile's column per P */
		ncols += agg_ncols(&c->aggs[i]) - 1;
	cols = xmalloc(ncols * sizeof(*cols));
	types = xcalloc(ncols, sizeof(*types));
	owned = xcalloc(ncols, sizeof(*owned));
	colagg = xcalloc(ncols, sizeof(*colagg));

	j = lead_columns(s, cols, types, owned);
	first = j;
	for (i = 0; i < c->naggs; i++) {
		const struct aggspec *as = &c->aggs[i];

		if (as->op->flags & AGF_RECORD)
			continue;	/* --over's record: no column */
		/* "sum_F"; a percentile's column per P: "p95_F",
		 * "approx_p95_F"; a histogram's per bound */
		for (k = 0; k < agg_ncols(as); k++, j++) {
			colagg[j - first] = i;
			types[j] = agg_type(as->op);
			owned[j] = agg_colname(as, k, as->as);	/* --as */
			cols[j] = owned[j];
		}
	}
	of = row_outfmt(c);
	named_by = c->sqlite != NULL ? "-o sqlite" :
	    of == OF_JSON ? "JSON output" : NULL;
	cn.cols = cols;
	cn.first = first;
	cn.nagg = j - first;
	cn.colagg = colagg;
	/* (a SQLite table holds no op column: the op is how a row is
	 * applied) */
	cn.op = c->changelog && c->sqlite == NULL;
	if (unique_names(c, cols, j) != 0 ||
	    bind_rows(s, cols, j, first) != 0 ||
	    (c->top_n > 0 && top_column(s, first, j - first) != 0)) {
		status = 2;
		goto fail;
	}
	for (i = 0; i < c->nevals; i++) {	/* (numeric affinity: text stays) */
		types[j] = SQLC_NUMERIC;
		cols[j++] = c->evals[i].name;
	}
	if (over_window(c) && c->fmt == IF_JSON)	/* (the record's names are
							   known as it is read) */
		s->twice = twice_new(cols + first, j - first);
	if (c->emit_every > 0) {
		types[j] = SQLC_INTEGER;
		cols[j++] = "final";
	}
	ncols = j;
	cn.n = ncols;
	if (named_by != NULL && named_once(c, &cn, named_by) != 0) {
		status = 2;
		goto fail;
	}
	/* --changelog, -o sqlite: op leads, before the header's columns */
	s->opcol = c->changelog || c->sqlite != NULL;
	if (s->opcol) {
		memmove(cols + 1, cols, ncols * sizeof(*cols));
		memmove(types + 1, types, ncols * sizeof(*types));
		cols[0] = "op";
		types[0] = SQLC_TEXT;
		ncols++;
	}
	s->ncells = ncols - 1;
	clog_init(&s->clog, c, s->st, sizeof(struct op_globals));
	if (sp->restored && (why = clog_check(&s->clog)) != NULL) {
		fwin_warn("%s: corrupt state: %s", c->restore, why);
		goto fail;
	}
	if (c->sqlite != NULL) {
		status = open_sqlite(s, sp, cols, types, ncols);
		goto fail;
	}
	s->outfd = 1;
	s->name = "standard output";
	if (c->output == NULL && std_closed(1)) {	/* (/dev/null holds it) */
		fwin_warn("standard output: %s", strerror(EBADF));
		status = 1;
		goto fail;
	}
	if (c->output != NULL) {
		if ((s->outfd = append_open(c->output)) < 0)
			goto fail;
		s->name = c->output;
	}
	s->out = out_open(s->outfd, s->name, of, cols, ncols);
	/* a restored run continues its output: the header row is there
	 * already (and a file that has rows keeps them without a second,
	 * when they are rows of this pipeline) */
	if (named(c) && !sp->restored && c->output != NULL && of != OF_JSON &&
	    fstat(s->outfd, &sb) == 0 && sb.st_size > 0 && other_header(s)) {
		status = 2;
		goto fail;
	}
	if (named(c) && !sp->restored && (c->output == NULL ||
	    (fstat(s->outfd, &sb) == 0 && sb.st_size == 0)))
		out_header(s->out);
	status = 0;
fail:
	for (i = 0; i < ncols; i++)
		free(owned[i]);
	free(owned);
	free(cols);
	free(colagg);
	free(types);
	return status;
}

/* How rows print times: --out-time-format, else the input's once known
 * (a restored run's: the checkpoint's), ISO without event times. */
static enum tfmt
first_timefmt(const struct sink *s)
{
	enum tfmt f = s->c->out_time;
	uint32_t in = globals(s)->g_timefmt;

	if (f == TF_AUTO && !s->c->has_time)
		return TF_ISO;
	if (f == TF_AUTO && in != TF_AUTO)
		return in == TF_STRPTIME ? TF_ISO : (enum tfmt)in;
	return f;
}

int
sink_open(const struct sink_spec *sp, struct sink **sink)
{
	struct sink *s = xcalloc(1, sizeof(*s));

	s->c = sp->c;
	s->st = sp->st;
	s->has_bounds = sp->has_bounds;
	s->rolling_time = sp->c->wkind == WK_NONE && sp->c->has_time;
	s->ofmt = first_timefmt(s);
	s->rec_cols = sp->rec_cols;
	s->nrec_cols = sp->nrec_cols;
	s->outfd = -1;
	s->opened = 1;
	*sink = s;
	return open_output(s, sp);
}

struct sink *
sink_like(const struct sink *s, struct out *o)
{
	struct sink *n = xcalloc(1, sizeof(*n));

	n->c = s->c;
	n->st = s->st;
	n->has_bounds = s->has_bounds;
	n->rolling_time = s->rolling_time;
	n->ofmt = s->ofmt;
	n->rec_cols = s->rec_cols;
	n->nrec_cols = s->nrec_cols;
	n->members = s->members;
	n->nmembers = s->nmembers;
	n->out = o;
	n->outfd = -1;
	n->name = s->name;
	n->rankcol = s->rankcol;
	n->rx = s->rx;
	n->opcol = s->opcol;
	n->ncells = s->ncells;
	clog_init(&n->clog, s->c, s->st, sizeof(struct op_globals));
	return n;
}

void
sink_set_out(struct sink *s, struct out *o)
{
	s->out = o;
}

struct out *
sink_output_like(const struct sink *s, int fd)
{
	return fd < 0 ? out_open_collect(s->out) : out_open_like(s->out, fd);
}

int
sink_close(struct sink *s)
{
	int rc = 0;

	if (s == NULL)
		return 0;
	if (s->sql != NULL) {
		/* its writer said what failed, as SQLite said it: an
		 * errno's text after that would only repeat it, worse */
		if (s->opened && s->out != NULL && out_close(s->out) != 0)
			rc = -1;
	} else if (s->opened && append_close(s->out, s->outfd, s->name) != 0)
		rc = -1;
	if (s->sql != NULL && sqlsink_close(s->sql) != 0)
		rc = -1;
	if (s->cltail != NULL)
		(void)out_close(s->cltail);
	if (s->cells != NULL)
		(void)out_close(s->cells);
	clog_fini(&s->clog);
	rowcells_free(s->rcells);
	if (s->opened) {
		rowexpr_free(s->rx);
		free(s->members);
		twice_free(s->twice);
	}
	if (s->mjson != NULL)
		json_free(s->mjson);
	free(s->mfields);
	free(s->rec_buf);
	free(s);
	return rc;
}

void
sink_set_state(struct sink *s, struct state *st)
{
	s->st = st;
	s->clog.st = st;
}

enum tfmt
sink_timefmt(const struct sink *s)
{
	return s->ofmt;
}

void
sink_set_timefmt(struct sink *s, enum tfmt f)
{
	s->ofmt = f;
}

void
sink_skip(struct sink *s, uint64_t n)
{
	s->skip = n;
}

void
sink_halt(struct sink *s)
{
	if (s->halted)
		return;
	s->halted = 1;
	(void)out_halt(s->out);	/* a write error is said at the close */
}

int
sink_failed(const struct sink *s)
{
	/* (rows diverted to a scratch file are not yet its output: that
	 * file failing costs only the sort, hold.h) */
	return s->out != NULL && out_error(s->out) != 0 &&
	    out_fd(s->out) == s->outfd;
}

struct out *
sink_out(struct sink *s)
{
	return s->out;
}

const char *
sink_name(const struct sink *s)
{
	return s->name;
}

int
sink_fd(const struct sink *s)
{
	return s->outfd;
}

int
sink_flush(struct sink *s)
{
	return out_flush(s->out);
}

uint64_t
sink_position(const struct sink *s)
{
	return s->sql != NULL ? sqlsink_position(s->sql) : 0;
}
