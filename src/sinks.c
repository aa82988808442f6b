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

#include "keycodec.h"
#include "num.h"
#include "runint.h"
#include "stats.h"
#include "timefmt.h"
#include "util.h"

static void
emit_time(struct run *r, int64_t t)
{
	char buf[TF_BUFSZ];
	size_t n = tf_format_tz(buf, t, r->ofmt, &r->c->zone);

	if (r->ofmt == TF_ISO)
		out_str(r->out, buf, n);
	else
		out_own_num(r->out, buf, n);
}

/* The operator's callback: one row. */
void
on_row(void *arg, const struct op_row *row)
{
	struct run *r = arg;

	if (r->halted || batch_stopped(r))	/* (a signal: runstop.c) */
		return;
	if (r->skip_rows > 0) {	/* written by the table before (runagg.c) */
		r->skip_rows--;
		return;
	}
	if (row->has_bounds) {
		emit_time(r, row->start);
		emit_time(r, row->end);
	} else if (r->rolling_time)
		emit_time(r, row->time);
	key_write(r->out, r->c->nkeys, row->key, row->keylen);
	aggs_emit(row->g, row->a, r->out);
	if (r->c->emit_every > 0)
		out_own_num(r->out, row->final ? "1" : "0", 1);
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

	p = out_cell(render_cells(r, row), r->rankcol, &n);
	if (p == NULL || n == 0 || num_parse(p, n, &nu) != 0)
		return -1;
	*v = nu.d;
	return 0;
}

/* Finds --top-by among the n aggregate columns aggcols (the first by
 * default; colagg[i] is column i's aggregate) and sets up ranking.
 * Returns 0, or -1 after a message (a usage error). */
static int
top_column(struct run *r, const char *const *aggcols, size_t n,
    const size_t *colagg)
{
	const struct config *c = r->c;
	size_t i;

	for (i = 0; i < n; i++)
		if (c->top_by == NULL || strcmp(aggcols[i], c->top_by) == 0)
			break;
	if (i == n) {
		fwin_warn("--top-by: no aggregate column '%s'", c->top_by);
		return -1;
	}
	if (c->aggs[colagg[i]].op->flags & AGF_TEXT) {
		fwin_warn("--top-by: '%s' is text, not a number", aggcols[i]);
		return -1;
	}
	r->rankcol = i;		/* (run.c's new_operator ranks by it) */
	return 0;
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

/* Builds the output's column names and opens it. Returns 0, or the exit
 * status after a message. */
static int
open_output(struct run *r)
{
	const struct config *c = r->c;
	size_t ncols = 3 + c->nkeys + c->naggs, i, j = 0, k, first;
	const char **cols;
	char **owned;
	size_t *colagg;		/* the aggregate of each aggregate column */
	struct stat sb;
	enum outfmt of;
	int status = 1;

	for (i = 0; i < c->naggs; i++)	/* a percentile's column per P */
		if (c->aggs[i].op->flags & AGF_PCT)
			ncols += c->aggs[i].npct - 1;
	cols = xmalloc(ncols * sizeof(*cols));
	owned = xcalloc(ncols, sizeof(*owned));
	colagg = xcalloc(ncols, sizeof(*colagg));

	if (r->rolling_time)
		cols[j++] = "time";
	else if (op_has_bounds(r->op)) {
		cols[j++] = "window_start";
		cols[j++] = "window_end";
	}
	for (i = 0; i < c->nkeys; i++, j++) {
		if (named(c))
			cols[j] = c->keys[i].name;
		else {
			if (asprintf(&owned[j], "key%zu", i + 1) < 0)
				fwin_oom();
			cols[j] = owned[j];
		}
	}
	first = j;
	for (i = 0; i < c->naggs; i++) {
		const struct aggspec *as = &c->aggs[i];
		int pct = (as->op->flags & AGF_PCT) != 0;

		colagg[j - first] = i;
		if (!(as->op->flags & AGF_FIELD)) {
			cols[j++] = as->op->column;
			continue;
		}
		/* "sum_F"; a percentile's column per P: "p95_F", "approx_p95_F" */
		for (k = 0; k < (pct ? as->npct : 1); k++, j++) {
			colagg[j - first] = i;
			if (asprintf(&owned[j], "%s%s_%s", as->op->column,
			    pct ? as->pct[k].name : "", as->f.name) < 0)
				fwin_oom();
			cols[j] = owned[j];
		}
	}
	if (c->top_n > 0 && top_column(r, cols + first, j - first, colagg) != 0) {
		status = 2;
		goto fail;
	}
	if (c->emit_every > 0)
		cols[j++] = "final";
	ncols = j;
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
