/* sinks: the driver's output side — rows as the operator hands them over
 * (and their cells, to rank for --top or to judge for --emit-every), the
 * late file, and opening and closing the files they go to; see
 * runint.h. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/keycodec.h"
#include "base/lock.h"
#include "base/num.h"
#include "flow/rowexpr.h"
#include "run/runint.h"
#include "io/sqlsink.h"
#include "base/stats.h"
#include "base/timefmt.h"
#include "base/util.h"

static void
emit_time_to(struct run *r, struct out *o, int64_t t)
{
	char buf[TF_BUFSZ];
	size_t n = tf_format_tz(buf, t, r->ofmt, &r->c->zone);

	if (r->ofmt == TF_ISO)
		out_str(o, buf, n);
	else
		out_own_num(o, buf, n);
}

/* A row's bounds (or rolling mode's time), keys and aggregates into o. */
static void
row_cells(struct run *r, struct out *o, const struct op_row *row)
{
	if (row->has_bounds) {
		emit_time_to(r, o, row->start);
		emit_time_to(r, o, row->end);
	} else if (r->rolling_time)
		emit_time_to(r, o, row->time);
	key_write(o, r->c->nkeys, row->key, row->keylen);
	aggs_emit(row->g, row->a, o);
}

/* --having, --eval: the row's cells as printed, in memory; its --eval
 * columns computed. Returns whether --having keeps it. */
static int
judge_row(struct run *r, const struct op_row *row)
{
	struct out *o;

	if (r->rcells == NULL)	/* one per copy of the run: per thread */
		r->rcells = rowcells_new(r->rx);
	o = rowcells_sink(r->rcells);
	row_cells(r, o, row);
	return rowexpr_judge(r->rx, r->rcells);
}

/* A row's cells (after the op column, when there is one) into o: the
 * output, or a tail sink whose cells changelog.h keeps. */
static void
write_cells(struct run *r, struct out *o, const struct op_row *row)
{
	row_cells(r, o, row);
	if (r->rx != NULL)	/* (judged just before) */
		rowexpr_write(r->rx, r->rcells, o);
	if (r->c->emit_every > 0)
		out_own_num(o, row->final ? "1" : "0", 1);
}

/* changelog.h's emit: a row with its op. */
static void
emit_op(void *arg, const char *op, const char *cells, size_t n)
{
	struct run *r = arg;

	out_str(r->out, op, 2);
	out_cells(r->out, cells, n, r->ncells);
	out_end_row(r->out);
}

/* What the changelog knows a row by; its cells formatted (to keep) when
 * rows are kept. */
static void
clog_row_of(struct run *r, const struct op_row *row, struct clog_row *cr)
{
	memset(cr, 0, sizeof(*cr));
	cr->start = row->start;
	cr->end = row->end;
	cr->has_bounds = row->has_bounds;
	cr->final = row->final;
	cr->key = row->key;
	cr->keylen = row->keylen;
	r->clog.st = r->st;	/* (batch mode may have made it anew) */
}

/* --changelog, -o sqlite: a row with its op. */
static void
changelog_row(struct run *r, const struct op_row *row)
{
	struct clog_row cr;

	if (clog_size(r->c) == 0) {	/* no row prints twice */
		out_str(r->out, "+I", 2);
		write_cells(r, r->out, row);
		out_end_row(r->out);
		return;
	}
	if (r->cltail == NULL)
		r->cltail = out_open_tail(r->out);
	out_mem_clear(r->cltail);
	write_cells(r, r->cltail, row);
	clog_row_of(r, row, &cr);
	cr.cells = out_buffered(r->cltail, &cr.ncells_len);
	clog_print(&r->clog, G(r)->g_wm, &cr, emit_op, r);
}

void
changelog_drop(struct run *r, const struct op_row *row)
{
	struct clog_row cr;

	if (!r->opcol || clog_size(r->c) == 0)
		return;
	clog_row_of(r, row, &cr);
	clog_gone(&r->clog, &cr, emit_op, r);
}

uint64_t
sink_position(struct run *r)
{
	return r->sql != NULL ? sqlsink_position(r->sql) : 0;
}

void
sink_copied(struct run *r)
{
	r->cltail = NULL;
	r->cells = NULL;
	r->rcells = NULL;	/* (made on the copy's thread) */
	r->clog.buf = NULL;
	r->clog.len = r->clog.cap = 0;
}

void
sink_copy_free(struct run *r)
{
	if (r->cltail != NULL)
		(void)out_close(r->cltail);
	if (r->cells != NULL)
		(void)out_close(r->cells);
	rowcells_free(r->rcells);
	clog_fini(&r->clog);
}

/* --over: the cells of the record as read into o, as many as the
 * header names (csv unquoted; lines split as read, on runs of blanks or
 * -d), missing ones empty: what --having and --eval read. */
static void
record_cells(struct run *r, struct out *o, const char *p, size_t n)
{
	const struct config *c = r->c;
	const char *e = p + n, *q;
	int sep = c->fmt == IF_CSV ? ',' : c->fmt == IF_TSV ? '\t' : c->delim;
	size_t k, len;

	for (k = 0; k < r->nover_cols; k++) {
		if (sep < 0)	/* lines: runs of blanks */
			while (p < e && (*p == ' ' || *p == '\t'))
				p++;
		if (c->fmt == IF_CSV && p < e && *p == '"') {
			for (len = 0, p++; p < e; p++) {
				if (*p == '"' && (p + 1 == e || p[1] != '"'))
					break;
				p += *p == '"';	/* a doubled quote */
				xgrow(&r->over_buf, &r->over_cap, len + 1, 1);
				r->over_buf[len++] = *p;
			}
			out_str(o, r->over_buf, len);
			q = memchr(p, sep, (size_t)(e - p));
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
 * and json as they came; lines split as read into tsv cells. */
static void
write_record(struct run *r, const char *p, size_t n)
{
	const struct config *c = r->c;
	const char *e = p + n, *q;

	if (c->fmt != IF_LINES) {
		out_record(r->out, p, n, r->nover_cols > 0 ? r->nover_cols : 1);
		return;
	}
	if (r->nover_cols > 0) {
		record_cells(r, r->out, p, n);
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
		out_str(r->out, p, (size_t)((q != NULL ? q : e) - p));
		if (q == NULL || q == e)
			return;
		p = q + (c->delim >= 0);
	}
}

/* --over with --having, --eval: the record's cells and its frame's, in
 * memory. Returns whether --having keeps it. */
static int
judge_record(struct run *r, const struct op_row *row)
{
	struct out *o;

	if (r->rcells == NULL)
		r->rcells = rowcells_new(r->rx);
	o = rowcells_sink(r->rcells);
	record_cells(r, o, row->rec, row->reclen);
	aggs_emit(row->g, row->a, o);
	return rowexpr_judge(r->rx, r->rcells);
}

/* The operator's callback: one row. */
void
on_row(void *arg, const struct op_row *row)
{
	struct run *r = arg;

	if (r->halted || batch_stopped(r))	/* (a signal: runstop.c) */
		return;
	if (row->rec != NULL) {	/* --over: the record, then its frame's */
		if (r->rx != NULL && !judge_record(r, row))
			return;		/* --having */
		write_record(r, row->rec, row->reclen);
		aggs_emit(row->g, row->a, r->out);
		if (r->rx != NULL)
			rowexpr_write(r->rx, r->rcells, r->out);
		out_end_row(r->out);
		return;
	}

	if (r->skip_rows > 0) {	/* written by the table before (runagg.c) */
		r->skip_rows--;
		return;
	}
	if (r->rx != NULL && !judge_row(r, row)) {	/* --having */
		if (r->opcol)	/* a row it printed before is gone */
			changelog_drop(r, row);
		return;
	}
	if (r->opcol) {		/* --changelog, -o sqlite: */
		changelog_row(r, row);
		return;
	}
	write_cells(r, r->out, row);
	out_end_row(r->out);
}

/* Renders a row's aggregate cells in memory: to rank or digest them. */
static struct out *
render_cells(struct run *r, const struct op_row *row)
{
	if (r->cells == NULL)
		r->cells = out_open_mem();
	out_mem_clear(r->cells);
	aggs_emit(row->g, row->a, r->cells);
	return r->cells;
}

/* --emit-every: a window's result, as its cells' hash. */
uint64_t
digest_row(void *arg, const struct op_row *row)
{
	struct out *o = render_cells(arg, row);
	const char *p;
	size_t i, n;
	uint64_t h = 0;

	for (i = 0; (p = out_cell(o, i, &n)) != NULL; i++)
		h = key_hash(p, n) ^ (h * 0x100000001b3u + n);
	return h;
}

void
write_late(struct run *r, const char *raw, size_t rawlen)
{
	if (r->late == NULL)
		return;
	out_str(r->late, raw, rawlen);
	out_end_row(r->late);
}

void
write_bad(struct run *r, const char *raw, size_t rawlen)
{
	if (r->badout == NULL)
		return;
	out_str(r->badout, raw, rawlen);
	out_end_row(r->badout);
}

static int
open_append(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);

	if (fd < 0)
		fwin_warn("%s: %s", path, strerror(errno));
	return fd;
}

/* --top: the value of a row's --top-by cell. */
int
rank_row(void *arg, const struct op_row *row, double *v)
{
	struct run *r = arg;
	struct num nu;
	const char *p;
	size_t n;

	if (r->rx != NULL) {	/* --having first, as SQL's before Top-N */
		if (!judge_row(r, row))
			return -2;
		p = rowexpr_cell(r->rcells, r->rankcol, &n);
	} else
		p = out_cell(render_cells(r, row), r->rankcol, &n);
	if (p == NULL || n == 0 || num_parse(p, n, &nu) != 0)
		return -1;
	*v = nu.d;
	return 0;
}

/* Finds --top-by among the n aggregate columns aggcols (the first by
 * default; colagg[i] is column i's aggregate), which follow first other
 * columns, or among the --eval columns after them, and sets up ranking.
 * Returns 0, or -1 after a message (a usage error). */
static int
top_column(struct run *r, const char *const *aggcols, size_t first,
    size_t n, const size_t *colagg)
{
	const struct config *c = r->c;
	size_t i, k;

	for (i = 0; i < n; i++)
		if (c->top_by == NULL || strcmp(aggcols[i], c->top_by) == 0)
			break;
	if (i == n && c->top_by != NULL)	/* an --eval column */
		for (k = 0; k < c->nevals; k++)
			if (strcmp(c->evals[k].name, c->top_by) == 0) {
				r->rankcol = first + n + k;
				return 0;
			}
	if (i == n || n == 0) {
		fwin_warn("--top-by: no aggregate column '%s'", c->top_by);
		return -1;
	}
	if (c->aggs[colagg[i]].op->flags & AGF_TEXT) {
		fwin_warn("--top-by: '%s' is text, not a number", aggcols[i]);
		return -1;
	}
	/* (run.c's new_operator ranks by it): among the aggregates' cells,
	 * or with --having and --eval among all */
	r->rankcol = i + (r->rx != NULL ? first : 0);
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
	if (name == NULL)
		return 0;
	fwin_warn("%s: the output has two columns named '%s'", opt, name);
	return -1;
}

/* Whether the fields have names (-H, or json's paths): the output then
 * starts with a header row. */
static int
named(const struct config *c)
{
	return c->header || c->fmt == IF_JSON;
}

/* Writes p[0..n) into buf[0..sz) for a message: quoted, cut short with
 * "..." when it does not fit, control bytes shown as '?'. */
static void
quote_line(char *buf, size_t sz, const char *p, size_t n)
{
	size_t i, j = 0;

	buf[j++] = '\'';
	for (i = 0; i < n && j + 5 < sz; i++)
		buf[j++] = (unsigned char)p[i] >= 0x20 && p[i] != 0x7f ?
		    p[i] : '?';
	if (i < n) {
		memcpy(buf + j, "...", 3);
		j += 3;
	}
	buf[j++] = '\'';
	buf[j] = '\0';
}

/* -o FILE, not empty, with a header row: whether its first line is
 * another header than this run's (reported: such a FILE is not appended
 * to). */
static int
other_header(struct run *r)
{
	char qgot[208], qwant[208], *want, *got;
	size_t wn, gn;
	ssize_t k;
	const char *nl;
	int fd, same;

	/* a FILE that cannot be read (write-only) is not looked into */
	if ((fd = open(r->c->output, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	want = out_header_line(r->out, &wn);
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
		    "%s, this run's is %s", r->c->output, qgot, qwant);
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

/* The SQLite sink's transactions: the generation of the checkpoint that
 * will cover their rows, and of the last one known to be on disk. */
static void
sql_generations(void *arg, uint64_t *tag, uint64_t *durable)
{
	const struct persist *p = arg;

	*tag = p->generation + 1;
	/* a save in the background may yet fail: then the one before it
	 * is what a restore finds */
	*durable = p->failed ? 0 : p->saver > 0 && p->generation > 0 ?
	    p->generation - 1 : p->generation;
}

/* -o sqlite:DB[:TABLE]: the sink of cells cols[0..n) (cols[0] the op)
 * into the table, keyed by the window's bounds (not the global
 * window's, which move) and the keys. Returns 0 or the exit status. */
static int
open_sqlite(struct run *r, const char **cols, const enum sqlcol *types,
    size_t n)
{
	const struct config *c = r->c;
	struct sqlsink_spec sp;
	size_t pk[2 + 64], npk = 0, i, at = 0;
	char *owner, *from;
	int status;

	if (r->rolling_time)
		at = 1;
	else if (op_has_bounds(r->op)) {
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
	sp.iso = r->ofmt == TF_ISO;
	owner = c->checkpoint != NULL ? lock_abspath(c->checkpoint) : NULL;
	from = c->restore != NULL ? lock_abspath(c->restore) : NULL;
	sp.owner = owner;
	sp.from = from;
	r->sql = sqlsink_open(&sp, &status);
	free(owner);
	free(from);
	if (r->sql == NULL)
		return status;
	sqlsink_generations(r->sql, sql_generations, &r->ps);
	if ((r->restored ? sqlsink_rollback(r->sql, r->ps.outlen) :
	    sqlsink_fresh(r->sql)) != 0)
		return 1;
	r->outfd = -1;
	r->outname = c->sqlite;
	r->out = out_open(-1, c->sqlite, OF_CELLS, cols, n);
	out_set_writer(r->out, sqlsink_write, r->sql);
	return 0;
}

/* The columns before the aggregates: the time or the window's bounds,
 * then the keys (--over: the record's fields instead). Returns how many. */
static size_t
lead_columns(struct run *r, const char **cols, enum sqlcol *types,
    char **owned)
{
	const struct config *c = r->c;
	size_t i, j = 0;

	if (r->rolling_time) {
		types[j] = SQLC_TIME;
		cols[j++] = "time";
	} else if (op_has_bounds(r->op)) {
		types[j] = types[j + 1] = SQLC_TIME;
		cols[j++] = "window_start";
		cols[j++] = "window_end";
	}
	if (over_window(c)) {	/* the record's fields, as its input names */
		for (i = 0; i < r->nover_cols; i++) {
			types[j] = SQLC_TEXT;
			cols[j++] = r->over_cols[i];
		}
		if (r->nover_cols == 0) {
			types[j] = SQLC_TEXT;
			cols[j++] = "record";
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

/* Builds the output's column names and opens it. Returns 0, or the exit
 * status after a message. */
static int
open_output(struct run *r)
{
	const struct config *c = r->c;
	size_t ncols = 4 + c->nkeys + c->naggs + r->nover_cols + c->nevals;
	size_t i, j = 0, k, first;
	const char **cols;
	enum sqlcol *types;
	char **owned;
	size_t *colagg;		/* the aggregate of each aggregate column */
	struct stat sb;
	enum outfmt of;
	const char *why;
	int status = 1;

	for (i = 0; i < c->naggs; i++)	/* a percentile's column per P */
		ncols += agg_ncols(&c->aggs[i]) - 1;
	cols = xmalloc(ncols * sizeof(*cols));
	types = xcalloc(ncols, sizeof(*types));
	owned = xcalloc(ncols, sizeof(*owned));
	colagg = xcalloc(ncols, sizeof(*colagg));

	j = lead_columns(r, cols, types, owned);
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
	if (unique_names(c, cols, j) != 0 ||
	    rowexpr_new(r->c, cols, j, &r->rx) != 0 ||
	    (c->top_n > 0 && top_column(r, cols + first, first, j - first,
	    colagg) != 0)) {
		status = 2;
		goto fail;
	}
	for (i = 0; i < c->nevals; i++) {	/* (numeric affinity: text stays) */
		types[j] = SQLC_NUMERIC;
		cols[j++] = c->evals[i].name;
	}
	if (c->emit_every > 0) {
		types[j] = SQLC_INTEGER;
		cols[j++] = "final";
	}
	ncols = j;
	/* --changelog, -o sqlite: op leads, before the header's columns */
	r->opcol = c->changelog || c->sqlite != NULL;
	if (r->opcol) {
		memmove(cols + 1, cols, ncols * sizeof(*cols));
		memmove(types + 1, types, ncols * sizeof(*types));
		cols[0] = "op";
		types[0] = SQLC_TEXT;
		ncols++;
	}
	r->ncells = ncols - 1;
	clog_init(&r->clog, c, r->st, sizeof(struct op_globals));
	if (r->restored && (why = clog_check(&r->clog)) != NULL) {
		fwin_warn("%s: corrupt state: %s", c->restore, why);
		goto fail;
	}
	if (c->sqlite != NULL) {
		status = open_sqlite(r, cols, types, ncols);
		goto fail;
	}
	r->outfd = 1;
	r->outname = "standard output";
	if (c->output != NULL) {
		if ((r->outfd = open_append(c->output)) < 0)
			goto fail;
		r->outname = c->output;
	}
	of = c->outfmt_set ? c->outfmt : c->fmt == IF_CSV ? OF_CSV :
	    c->fmt == IF_JSON ? OF_JSON : OF_TSV;
	r->out = out_open(r->outfd, r->outname, of, cols, ncols);
	/* a restored run continues its output: the header row is there
	 * already (and a file that has rows keeps them without a second,
	 * when they are rows of this pipeline) */
	if (named(c) && !r->restored && c->output != NULL && of != OF_JSON &&
	    fstat(r->outfd, &sb) == 0 && sb.st_size > 0 && other_header(r)) {
		status = 2;
		goto fail;
	}
	if (named(c) && !r->restored && (c->output == NULL ||
	    (fstat(r->outfd, &sb) == 0 && sb.st_size == 0)))
		out_header(r->out);
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

/* Closes a sink and reports its write error. Returns 0 or -1. */
static int
close_out(struct out *o, const char *name)
{
	if (o == NULL || out_close(o) == 0)
		return 0;
	if (errno == EPIPE) {
		/* the reader is gone: end as a filter does, without a word */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	fwin_warn("%s: %s", name, strerror(errno));
	return -1;
}

/* Opens the late file and the output. Returns 0, or the exit status. */
int
open_sinks(struct run *r)
{
	const struct config *c = r->c;
	const char *late_col = "record";

	if (r->restored && (persist_truncate(c->output, r->ps.outlen) != 0 ||
	    persist_truncate(c->late_file, r->ps.latelen) != 0))
		return 1;
	if (c->late_file != NULL) {
		if ((r->latefd = open_append(c->late_file)) < 0)
			return 1;
		r->late = out_open(r->latefd, c->late_file, OF_TSV, &late_col, 1);
	}
	if (c->bad_file != NULL) {
		if ((r->badfd = open_append(c->bad_file)) < 0)
			return 1;
		r->badout = out_open(r->badfd, c->bad_file, OF_TSV, &late_col,
		    1);
	}
	return open_output(r);
}

/* Closes what open_sinks opened. Returns 0, or 1 after a message. */
int
close_sinks(struct run *r)
{
	int status = 0;

	if (close_out(r->out, r->outname) != 0)
		status = 1;
	if (r->sql != NULL && sqlsink_close(r->sql) != 0)
		status = 1;
	r->sql = NULL;
	if (r->cltail != NULL)
		(void)out_close(r->cltail);
	r->cltail = NULL;
	clog_fini(&r->clog);
	if (close_out(r->late, r->c->late_file) != 0)
		status = 1;
	if (close_out(r->badout, r->c->bad_file) != 0)
		status = 1;
	/* some file systems (NFS, quotas) report lost writes only here */
	if (r->outfd > 1 && close(r->outfd) != 0) {
		fwin_warn("%s: %s", r->outname, strerror(errno));
		status = 1;
	}
	if (r->latefd >= 0 && close(r->latefd) != 0) {
		fwin_warn("%s: %s", r->c->late_file, strerror(errno));
		status = 1;
	}
	if (r->badfd >= 0 && close(r->badfd) != 0) {
		fwin_warn("%s: %s", r->c->bad_file, strerror(errno));
		status = 1;
	}
	return status;
}
