/* run: the driver; see run.h. The loop reads a record, parses it, hands
 * it to the operator and advances the watermark; when input would block
 * it fires what the clock makes due, flushes output and sleeps in poll(2)
 * until input or the next timer. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agg.h"
#include "batch.h"
#include "ckpt.h"
#include "input.h"
#include "keycodec.h"
#include "num.h"
#include "operator.h"
#include "output.h"
#include "persist.h"
#include "run.h"
#include "stats.h"
#include "timefmt.h"
#include "util.h"

#define MAX_BAD_MESSAGES 10

struct run {
	struct config *c;
	struct aggs *g;
	struct op *op;
	struct state *st;	/* op's, for the driver's block (G) */
	struct input *in;
	struct out *out, *late;
	int outfd, latefd;
	const char *outname;
	struct aval *vals;
	size_t *keyidx;		/* the key fields' columns */
	char *keybuf;
	size_t keycap;
	/* -t F1,F2,...: the fields joined, and their name for messages */
	char *tbuf;
	size_t tcap;
	struct field tval;
	struct fieldref tjoin;
	const struct fieldref *tref;	/* the time's name in messages */
	enum tfmt ofmt;		/* how bounds are printed; TF_AUTO: unknown yet */
	int rolling_time;	/* rolling mode with -t: a time column */
	int fatal;		/* --strict met a bad record */
	int corrupt;		/* restored state found bad: nothing is saved */
	int restored;
	char *fingerprint;
	struct op_globals at_start;	/* counters as restored: stats are per run */
	int64_t late_by;	/* the largest distance of a late record behind W */
	int64_t started;	/* wall time the run began */
	struct out *cells;	/* a row's aggregate cells, to rank or digest */
	size_t rankcol;		/* the --top-by column among them */
	uint64_t others;	/* --partition: records of other partitions */
	struct persist ps;
	/* --idle-timeout: input idle since this wall time, with this W */
	uint64_t idle_read;
	int64_t idle_since, idle_wm;
	struct timespec t0;
	struct batch *batch;	/* --mode batch: records kept until the end */
	/* --progress */
	int show;		/* 1 on, 0 off, -1 auto */
	int shown;		/* a line is on the terminal, to erase */
	int64_t next_show;	/* monotonic ns of the next line */
	uint64_t total;		/* bytes of the regular FILEs, or 0 */
};

static struct op_globals *
G(struct run *r)
{
	/* the state's struct stays where it is; its arena may move */
	return st_globals(r->st);
}

/* --- bad records --- */

/* Appends a short, printable rendering of p[0..n) for messages. */
static void
quote_value(char *buf, size_t bufsz, const char *p, size_t n)
{
	size_t i, j = 0, max = 40;

	buf[j++] = '"';
	for (i = 0; i < n && i < max && j + 5 < bufsz; i++)
		buf[j++] = (p[i] >= 0x20 && p[i] < 0x7f) ? p[i] : '?';
	if (i < n && j + 5 < bufsz) {
		memcpy(buf + j, "...", 3);
		j += 3;
	}
	buf[j++] = '"';
	buf[j] = '\0';
}

static void __attribute__((format(printf, 3, 4)))
bad(struct run *r, const struct record *rec, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	G(r)->g_bad++;
	if (!r->c->strict &&
	    G(r)->g_bad - r->at_start.g_bad > MAX_BAD_MESSAGES)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fwin_warn("%s:%llu: %s%s", rec->file, (unsigned long long)rec->line,
	    msg, r->c->strict ? "" : "; record skipped");
	if (r->c->strict)
		r->fatal = 1;
}

static void
bad_field(struct run *r, const struct record *rec, const struct fieldref *f,
    const char *what, const struct field *v)
{
	char q[64];

	if (v == NULL) {
		bad(r, rec, "field %s: missing (record has %zu field%s)",
		    f->name, rec->nf, rec->nf == 1 ? "" : "s");
		return;
	}
	quote_value(q, sizeof(q), v->p, v->n);
	bad(r, rec, "field %s: %s %s", f->name, what, q);
}

/* Restored state found bad: said once; the run ends and saves nothing. */
static int
check_corrupt(struct run *r)
{
	const char *why = st_corrupt(op_state(r->op));

	if (why == NULL)
		return 0;
	if (!r->corrupt)
		fwin_warn("%s: corrupt state: %s", r->c->restore, why);
	r->corrupt = 1;
	return 1;
}

/* --- rows --- */

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
static void
on_row(void *arg, const struct op_row *row)
{
	struct run *r = arg;

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
static uint64_t
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

static void
write_late(struct run *r, const struct record *rec)
{
	if (r->late == NULL)
		return;
	out_str(r->late, rec->raw, rec->rawlen);
	out_end_row(r->late);
}

/* --- records --- */

/* --max-future: a time too far ahead of the clock is bad, so that one
 * corrupt time cannot push the watermark past every later record. */
static void
too_far(struct run *r, const struct record *rec, int64_t t)
{
	static const char *const unit[] = {
		"year", "day", "hour", "minute", "second"
	};
	static const int64_t ns[] = {
		365 * 86400 * NS_PER_S, 86400 * NS_PER_S, 3600 * NS_PER_S,
		60 * NS_PER_S, NS_PER_S
	};
	char when[TF_BUFSZ];
	int64_t ahead = sat_add(t, -now_ns()), n;
	size_t i;

	for (i = 0; i < 4 && ahead < ns[i]; i++)
		;
	n = ahead / ns[i];
	when[tf_format(when, t, TF_ISO)] = '\0';
	bad(r, rec, "time %s is %lld %s%s in the future", when, (long long)n,
	    unit[i], n == 1 ? "" : "s");
}

/* -t F1,F2,...: the fields joined by one space into r->tval, in a
 * buffer that is kept and grown. Returns it, or NULL (reported, unless
 * quiet). */
static const struct field *
join_time(struct run *r, const struct record *rec, int quiet)
{
	const struct config *c = r->c;
	const struct field *f;
	size_t i, len;

	len = rec->f[c->time.idx].n;
	for (i = 0; i < c->ntime_more; i++) {
		if (c->time_more[i].idx >= rec->nf) {
			if (!quiet)
				bad_field(r, rec, &c->time_more[i], NULL, NULL);
			return NULL;
		}
		len += 1 + rec->f[c->time_more[i].idx].n;
	}
	if (len > r->tcap)
		xgrow(&r->tbuf, &r->tcap, len, 1);
	f = &rec->f[c->time.idx];
	memcpy(r->tbuf, f->p, f->n);
	len = f->n;
	for (i = 0; i < c->ntime_more; i++) {
		f = &rec->f[c->time_more[i].idx];
		r->tbuf[len++] = ' ';
		memcpy(r->tbuf + len, f->p, f->n);
		len += f->n;
	}
	r->tval.p = r->tbuf;
	r->tval.n = len;
	return &r->tval;
}

/* Reads the record's event time into *t. Returns 0, or -1: reported,
 * unless quiet (a record of another partition). */
static int
record_time(struct run *r, const struct record *rec, int64_t *t, int quiet)
{
	const struct config *c = r->c;
	const struct field *f;
	enum tfmt fmt;

	if (!c->has_time) {
		*t = now_ns();
		return 0;
	}
	if (c->time.idx >= rec->nf) {
		if (!quiet)
			bad_field(r, rec, &c->time, NULL, NULL);
		return -1;
	}
	f = &rec->f[c->time.idx];
	if (c->ntime_more > 0 && (f = join_time(r, rec, quiet)) == NULL)
		return -1;
	r->tval = *f;	/* for a later message */
	fmt = (enum tfmt)G(r)->g_timefmt;
	if ((fmt == TF_AUTO && (fmt = tf_detect(f->p, f->n)) == TF_AUTO) ||
	    tf_parse_time_tz(f->p, f->n, fmt, c->strp, &c->zone, t) != 0) {
		if (!quiet)
			bad_field(r, rec, r->tref, "bad time", f);
		return -1;
	}
	if (c->max_future > 0 && *t > sat_add(now_ns(), c->max_future)) {
		if (!quiet)
			too_far(r, rec, *t);
		return -1;
	}
	if (G(r)->g_timefmt == TF_AUTO) {
		G(r)->g_timefmt = fmt;
		if (r->ofmt == TF_AUTO)
			r->ofmt = fmt == TF_STRPTIME ? TF_ISO : fmt;
	}
	return 0;
}

/* Step 4: the watermark follows the largest event time, less -l. */
static void
watermark_after(struct run *r, int64_t t)
{
	int64_t w;

	if (t <= G(r)->g_maxt)
		return;
	G(r)->g_maxt = t;
	w = sat_add(t, -r->c->lateness);
	if (w > G(r)->g_wm)
		op_advance(r->op, w);
}

/*
 * --partition I/N (the man page's BEYOND ONE MACHINE): a key group g
 * belongs to partition g * N / KEY_GROUPS + 1, Flink's assignment of key
 * groups to parallel instances. A record of another partition is someone
 * else's: not added, not reported, not late; but, with event time, it
 * moves the watermark exactly as it would in one run over the whole input
 * (when its time and values parse, which its owner checks), so that every
 * partition drops and fires what one run would.
 */
static int
partition_mine(const struct config *c, uint64_t hash)
{
	return c->part_n <= 1 ||
	    key_group(hash) * c->part_n / KEY_GROUPS + 1 == c->part_i;
}

static void
other_partition(struct run *r, const struct record *rec)
{
	struct badfield bf;
	int64_t t;

	r->others++;
	/* in batch mode nothing is late: no watermark to move */
	if (!op_uses_watermark(r->op) || !r->c->has_time || r->batch != NULL ||
	    record_time(r, rec, &t, 1) != 0 ||
	    aggs_extract(r->g, rec, r->vals, &bf) != 0 ||
	    !op_time_fits(r->op, t))
		return;
	watermark_after(r, t);
}

static void
process(struct run *r, const struct record *rec)
{
	const struct config *c = r->c;
	struct badfield bf;
	struct op_rec orec;
	size_t i;

	G(r)->g_read++;
	/* a record without a key has no partition: the first reports it */
	if (rec->bad != NULL) {
		if (c->part_i <= 1)
			bad(r, rec, "%s", rec->bad);
		else
			r->others++;
		return;
	}
	for (i = 0; i < c->nkeys; i++)
		if (r->keyidx[i] >= rec->nf) {
			if (c->part_i <= 1)
				bad_field(r, rec, &c->keys[i], NULL, NULL);
			else
				r->others++;
			return;
		}
	orec.key = key_encode(rec->f, r->keyidx, c->nkeys, &r->keybuf,
	    &r->keycap, &orec.keylen);
	orec.hash = key_hash(orec.key, orec.keylen);
	if (!partition_mine(c, orec.hash)) {
		other_partition(r, rec);
		return;
	}
	orec.t = 0;
	if ((op_uses_time(r->op) || r->batch != NULL) &&
	    record_time(r, rec, &orec.t, 0) != 0)
		return;
	if (aggs_extract(r->g, rec, r->vals, &bf) != 0) {
		bad_field(r, rec, bf.f, bf.what,
		    bf.f->idx < rec->nf ? &rec->f[bf.f->idx] : NULL);
		return;
	}
	if (r->batch != NULL) {	/* kept; replayed in time order at the end */
		switch (batch_add(r->batch, orec.t, orec.key, orec.keylen,
		    r->vals)) {
		case BATCH_RANGE:
			bad_field(r, rec, &c->time,
			    "window out of range for time",
			    &rec->f[c->time.idx]);
			break;
		case BATCH_FAIL:	/* a spill failed: said; exit 1 */
			r->fatal = 1;
			break;
		}
		return;
	}
	orec.vals = r->vals;
	switch (op_record(r->op, &orec)) {
	case OP_ADDED:
	case OP_NOWIN:
		if (op_uses_watermark(r->op))
			watermark_after(r, orec.t);
		break;
	case OP_LATE:
		if (sat_add(G(r)->g_wm, -orec.t) > r->late_by)
			r->late_by = sat_add(G(r)->g_wm, -orec.t);
		write_late(r, rec);
		break;
	case OP_RANGE:	/* only an event time can be this far out */
		bad_field(r, rec, r->tref, "window out of range for time",
		    &r->tval);
		break;
	}
}

/* --mode batch: one record back in time order, as a stream with
 * lateness 0 takes it (no record can be late, and batch_add refused the
 * times whose windows are out of range when they were read). */
static void
replay(void *arg, int64_t t, const char *key, size_t keylen,
    const struct aval *vals)
{
	struct run *r = arg;
	struct op_rec orec;

	orec.key = key;
	orec.keylen = keylen;
	orec.hash = key_hash(key, keylen);
	orec.t = t;
	orec.vals = vals;
	switch (op_record(r->op, &orec)) {
	case OP_ADDED:
	case OP_NOWIN:
		if (op_uses_watermark(r->op))
			watermark_after(r, t);
		break;
	}
}

/* --- live input: timers while fwin waits --- */

static volatile sig_atomic_t stop_requested, save_requested;

static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		save_requested = 1;
	else
		stop_requested = 1;
}

/* SIGINT, SIGTERM and SIGHUP end the input as its end would; SIGUSR1
 * asks for a checkpoint. No SA_RESTART: they interrupt poll(2), so a
 * waiting fwin notices at once. */
static void
catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
}

static int
flush_outputs(struct run *r)
{
	return out_flush(r->out) != 0 ||
	    (r->late != NULL && out_flush(r->late) != 0) ? -1 : 0;
}

static int
save(struct run *r, int background)
{
	struct persist_files f = {
		.in = r->in, .outfd = r->outfd, .latefd = r->latefd,
		.outname = r->outname,
	};

	if (flush_outputs(r) != 0) {
		fwin_warn("%s: %s", r->outname, strerror(errno));
		return -1;
	}
	if (persist_save(&r->ps, r->op, &f, background) != 0) {
		check_corrupt(r);
		return -1;
	}
	return 0;
}

/* A periodic or requested save, in the background; one writer at a time:
 * a save due while one runs is skipped. */
static void
maybe_save(struct run *r)
{
	persist_reap(&r->ps, 0);
	if (r->ps.saver > 0)
		return;
	save_requested = 0;
	if (save(r, 1) != 0)
		r->ps.failed = 1;
}

/* The watermark that the wall clock gives now, or INT64_MIN when the
 * clock does not move it: processing time follows the clock; event time
 * with --idle-timeout follows it once input has been idle that long. */
static int64_t
clock_watermark(struct run *r, int64_t now)
{
	const struct config *c = r->c;
	int64_t idle_from;

	if (!c->has_time)
		return sat_add(now, -c->lateness);
	if (c->idle_timeout <= 0 || r->idle_wm == INT64_MIN)
		return INT64_MIN;	/* no event time yet: nothing to advance */
	idle_from = sat_add(r->idle_since, c->idle_timeout);
	if (now < idle_from)
		return INT64_MIN;
	return sat_add(r->idle_wm, now - idle_from);
}

/* Wall time at which the clock watermark reaches w, or T_NONE. */
static int64_t
clock_due(struct run *r, int64_t w)
{
	const struct config *c = r->c;

	if (w == T_NONE)
		return T_NONE;
	if (!c->has_time)
		return sat_add(w, c->lateness);
	if (c->idle_timeout <= 0 || r->idle_wm == INT64_MIN)
		return T_NONE;
	return sat_add(sat_add(r->idle_since, c->idle_timeout), w - r->idle_wm);
}

/* Milliseconds for poll(2) until due (-1: forever), rounded up: waking
 * early would only spin. */
static int
poll_timeout(int64_t due, int64_t now)
{
	if (due == T_NONE)
		return -1;
	if (due - now > (int64_t)INT32_MAX * 1000000)
		return INT32_MAX;
	return (int)((due - now + 999999) / 1000000);
}

/*
 * Input would block: fires what the clock makes due, flushes output,
 * saves if due, and sleeps in poll(2) until input is readable or the next
 * timer is due. Returns -1 to stop reading (a signal, output that cannot
 * be written, corrupt state).
 */
static int
wait_input(struct run *r)
{
	const struct config *c = r->c;
	struct pollfd pfd;
	int64_t now, w, due;

	if (G(r)->g_read != r->idle_read) {
		/* records came since the last wait: idle from now */
		r->idle_read = G(r)->g_read;
		r->idle_since = now_ns();
		r->idle_wm = G(r)->g_wm;
	}
	for (;;) {
		if (stop_requested)
			return -1;
		now = now_ns();
		w = clock_watermark(r, now);
		if (w > G(r)->g_wm && op_uses_watermark(r->op))
			op_advance(r->op, w);
		if (check_corrupt(r) || flush_outputs(r) != 0)
			return -1;
		if (c->checkpoint != NULL &&
		    (save_requested || persist_due(&r->ps, now)))
			maybe_save(r);
		if (r->corrupt)
			return -1;
		due = clock_due(r, op_next_timer(r->op));
		if (c->checkpoint != NULL && c->ckpt_every_n == 0 &&
		    r->ps.next_save < due)
			due = r->ps.next_save;
		if (due != T_NONE && due <= now)
			continue;
		pfd.fd = input_fd(r->in);
		pfd.events = POLLIN;
		if (poll(&pfd, 1, poll_timeout(due, now)) > 0)
			return 0;
	}
}

/* -H on live input: the header comes before any state; only a signal to
 * stop can happen while it is awaited. Returns as input_header(). */
static int
read_header(struct run *r, const struct field **names, size_t *n)
{
	struct pollfd pfd;
	int rc;

	while ((rc = input_header(r->in, names, n)) == INPUT_WAIT) {
		if (stop_requested)
			return 0;
		pfd.fd = input_fd(r->in);
		pfd.events = POLLIN;
		(void)poll(&pfd, 1, -1);
	}
	return rc;
}

/* --- output --- */

static int
open_append(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);

	if (fd < 0)
		fwin_warn("%s: %s", path, strerror(errno));
	return fd;
}

/* --top: the value of a row's --top-by cell. */
static int
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
	r->rankcol = i;
	op_set_rank(r->op, rank_row, r);
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

static void
print_stats(struct run *r)
{
	const struct op_globals *g = G(r), *b = &r->at_start;
	const struct state *s = op_state(r->op);
	struct timespec t1;
	double secs;
	uint64_t nread = g->g_read - b->g_read, runs = 0, bytes = 0;
	char part[64] = "", mode[96];

	if (r->batch != NULL)
		batch_spilled(r->batch, &runs, &bytes);
	if (runs > 0)
		snprintf(mode, sizeof(mode), "batch, %llu sorted run%s spilled "
		    "(%llu bytes)", (unsigned long long)runs,
		    runs == 1 ? "" : "s", (unsigned long long)bytes);
	else
		snprintf(mode, sizeof(mode), "%s",
		    r->batch != NULL ? "batch" : "stream");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - r->t0.tv_sec) + (t1.tv_nsec - r->t0.tv_nsec) / 1e9;
	if (r->c->part_n > 0)
		snprintf(part, sizeof(part), " (%llu of other partitions)",
		    (unsigned long long)r->others);
	fwin_warn("stats: records %llu%s, bad %llu, late %llu, in no window "
	    "%llu, windows fired %llu, open windows %llu, keys %llu, peak "
	    "state %llu bytes, %.3f s, %.0f records/s, mode %s",
	    (unsigned long long)nread, part,
	    (unsigned long long)(g->g_bad - b->g_bad),
	    (unsigned long long)(g->g_late - b->g_late),
	    (unsigned long long)(g->g_nowin - b->g_nowin),
	    (unsigned long long)(g->g_fired - b->g_fired),
	    (unsigned long long)st_root(s)->sr_npanes,
	    (unsigned long long)st_root(s)->sr_peak_keys,
	    (unsigned long long)arena_hdr(&s->a)->ah_peak, secs,
	    secs > 0 ? nread / secs : 0.0, mode);
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

/* Nothing is dropped quietly: late records that no --late-file took,
 * and records in no window, are counted and said at exit. */
static void
say_dropped(struct run *r)
{
	uint64_t late = G(r)->g_late - r->at_start.g_late;
	uint64_t nowin = G(r)->g_nowin - r->at_start.g_nowin;
	char d[TF_BUFSZ];

	if (late > 0 && r->late == NULL) {
		tf_format_duration(d, r->late_by > 0 ? r->late_by : 1);
		fwin_warn("%llu late record%s dropped (the latest by %s behind "
		    "the watermark); -l %s, --late-file or --mode batch keeps "
		    "them", (unsigned long long)late, late == 1 ? "" : "s", d, d);
	}
	if (nowin > 0)
		fwin_warn("%llu record%s in no window dropped (between --slide "
		    "windows whose step passes their size)",
		    (unsigned long long)nowin, nowin == 1 ? "" : "s");
}

/* Stream mode with --max-memory: state that grows past it stops the run
 * (exit 1) before it takes all of the machine; the last checkpoint saved
 * stays as it is. */
static int
over_budget(struct run *r)
{
	const struct config *c = r->c;
	const struct state *s = op_state(r->op);
	static const char units[] = "KMGT";
	uint64_t v = c->max_memory;
	int u = -1;

	if (v == 0 || r->batch != NULL || arena_hdr(&s->a)->ah_used <= v)
		return 0;
	while (u < 3 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	fwin_warn("state would pass --max-memory %llu%.*s (%llu keys, %llu "
	    "open windows)", (unsigned long long)v, u >= 0, u >= 0 ?
	    units + u : "", (unsigned long long)st_root(s)->sr_nkeys,
	    (unsigned long long)st_root(s)->sr_npanes);
	r->fatal = 1;
	return 1;
}

/* --- progress --- */

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* The bytes of the inputs that are regular files (0 when one is not:
 * then no total, percent or time left is shown). */
static uint64_t
input_total(const struct config *c)
{
	struct stat sb;
	uint64_t n = 0;
	int i;

	if (c->nfiles == 0)
		return fstat(0, &sb) == 0 && S_ISREG(sb.st_mode) ?
		    (uint64_t)sb.st_size : 0;
	for (i = 0; i < c->nfiles; i++) {
		if (strcmp(c->files[i], "-") == 0 ? fstat(0, &sb) != 0 :
		    stat(c->files[i], &sb) != 0)
			return 0;
		if (!S_ISREG(sb.st_mode))
			return 0;
		n += (uint64_t)sb.st_size;
	}
	return n;
}

static void
progress_setup(struct run *r)
{
	r->show = r->c->progress;
	/* auto: for a person watching a terminal while the rows go on */
	if (r->show < 0 && (!isatty(2) || isatty(1)))
		r->show = 0;
	r->total = input_total(r->c);
	r->next_show = mono_ns() + NS_PER_S;	/* auto shows after 1 s */
	if (r->show > 0)
		r->next_show = mono_ns() + NS_PER_S / 4;
}

/* At most four times a second, one line on stderr, rewritten in place:
 * bytes read (of the total, with percent and time left), records per
 * second, the watermark, open windows and keys. */
static void
progress(struct run *r)
{
	const struct state *s = op_state(r->op);
	int64_t now = mono_ns(), el, left;
	uint64_t done = input_bytes(r->in), nread;
	char wm[TF_BUFSZ] = "-", of[96] = "";
	double secs;

	if (r->show == 0 || now < r->next_show)
		return;
	r->next_show = now + NS_PER_S / 4;
	el = now - ((int64_t)r->t0.tv_sec * NS_PER_S + r->t0.tv_nsec);
	secs = el / 1e9;
	nread = G(r)->g_read - r->at_start.g_read;
	if (G(r)->g_wm != INT64_MIN)
		wm[tf_format_tz(wm, G(r)->g_wm, TF_ISO, &r->c->zone)] = '\0';
	if (r->total > 0 && done <= r->total) {
		left = done > 0 ? (int64_t)((double)el * (r->total - done) /
		    done / 1e9) : 0;
		snprintf(of, sizeof(of), " of %.1f MB (%.0f%%, %lld:%02lld "
		    "left)", r->total / 1e6, 100.0 * done / r->total,
		    (long long)(left / 60), (long long)(left % 60));
	}
	fprintf(stderr, "\rfwin: %.1f MB%s, %.0f records/s, watermark %s, "
	    "%llu open windows, %llu keys\033[K", done / 1e6, of,
	    secs > 0 ? nread / secs : 0.0, wm,
	    (unsigned long long)st_root(s)->sr_npanes,
	    (unsigned long long)st_root(s)->sr_nkeys);
	fflush(stderr);
	r->shown = 1;
}

/* Erases the progress line: nothing of it stays in a log. */
static void
progress_end(struct run *r)
{
	if (r->shown)
		fputs("\r\033[K", stderr);
	r->shown = 0;
}

/* --- the run --- */

/* Reads the input to its end, fires what is due and saves; returns the
 * exit status. */
static int
run_stream(struct run *r)
{
	const struct config *c = r->c;
	struct record rec;
	uint64_t nbad;
	int status = 0, rc = 0, flush;

	r->at_start = *G(r);
	progress_setup(r);
	/* Exactly-once from the first record: a fresh run records where
	 * its output starts before writing any, so that a run killed before
	 * its first periodic save is undone too. */
	if (c->checkpoint != NULL && !r->restored && save(r, 0) != 0)
		return 1;
	while (!stop_requested) {
		rc = input_next(r->in, &rec);
		if (rc == INPUT_WAIT) {
			progress(r);
			if (wait_input(r) != 0)
				break;
			continue;
		}
		if (rc != INPUT_RECORD)
			break;
		process(r, &rec);
		if (r->fatal || check_corrupt(r) || over_budget(r))
			break;
		if ((G(r)->g_read & 4095) == 0)
			progress(r);
		if (c->checkpoint != NULL && ++r->ps.since_save >= r->ps.save_check) {
			r->ps.since_save = 0;
			if (save_requested || c->ckpt_every_n > 0 ||
			    persist_due(&r->ps, now_ns()))
				maybe_save(r);
		}
	}
	progress_end(r);
	if (rc < 0 || r->fatal || r->corrupt)
		status = 1;
	/* End of input: W becomes +inf. Count windows fire a partial window
	 * only when --flush is given, as in Flink. */
	if (!op_uses_time(r->op))
		flush = c->flush == 1;
	else
		flush = c->flush < 0 ? c->checkpoint == NULL : c->flush;
	if (r->batch != NULL && status == 0 &&
	    batch_replay(r->batch, replay, r) != 0)
		status = 1;
	if (status == 0) {
		if (!c->has_time)	/* the global window is the run's */
			op_set_span(r->op, r->started, now_ns());
		op_end(r->op, flush);
		if (check_corrupt(r))
			status = 1;
	}
	/* With a checkpoint, open windows are saved unfired for the next
	 * run (unless --flush fired them), and on a fatal error the last
	 * good checkpoint is kept. */
	persist_reap(&r->ps, 1);
	if (c->checkpoint != NULL && status == 0 && save(r, 0) != 0)
		status = 1;
	if (r->ps.failed || input_failed(r->in))
		status = 1;
	if (c->stats)
		print_stats(r);
	say_dropped(r);
	nbad = G(r)->g_bad - r->at_start.g_bad;
	/* a partition sees only part of the input: it cannot judge it */
	if (nbad > 0 && !c->strict && c->part_n <= 1 &&
	    nbad == G(r)->g_read - r->at_start.g_read) {
		/* nothing came through: a wrong option, not bad luck */
		fwin_warn("all %llu record%s %s bad; see the messages above",
		    (unsigned long long)nbad, nbad == 1 ? "" : "s",
		    nbad == 1 ? "was" : "were");
		status = 1;
	} else if (nbad > 0 && !c->strict)
		fwin_warn("%llu bad record%s skipped", (unsigned long long)nbad,
		    nbad == 1 ? "" : "s");
	return status;
}

/* Opens the late file and the output. Returns 0, or the exit status. */
static int
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
	return open_output(r);
}

/* Closes what open_sinks opened. Returns 0, or 1 after a message. */
static int
close_sinks(struct run *r)
{
	int status = 0;

	if (close_out(r->out, r->outname) != 0)
		status = 1;
	if (close_out(r->late, r->c->late_file) != 0)
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
	return status;
}

/* Reads the header, resolves the fields and builds the operator and its
 * state (restored or new). Returns 0 or the exit status; *empty says the
 * input held not even a header (there is nothing to run). */
static int
setup(struct run *r, int *empty)
{
	struct config *c = r->c;
	const struct field *names = NULL;
	size_t nnames = 0, i;
	int rc;

	*empty = 0;
	if ((rc = persist_lock(&r->ps)) != 0 ||
	    (c->restore != NULL && (rc = persist_open(&r->ps, r->in)) != 0))
		return rc;
	if (c->header) {
		rc = read_header(r, &names, &nnames);
		if (rc <= 0) {	/* an error, or empty input: nothing to name */
			*empty = 1;
			return rc < 0 || input_failed(r->in) ? 1 : 0;
		}
	}
	if (config_resolve(c, names, nnames) != 0)
		return 2;
	if (c->fmt == IF_JSON)
		input_set_paths(r->in, c->paths, c->npaths);
	r->tref = &c->time;
	if (c->ntime_more > 0) {	/* "date,time" in messages */
		size_t len = strlen(c->time.name) + 1;
		char *p;

		for (i = 0; i < c->ntime_more; i++)
			len += strlen(c->time_more[i].name) + 1;
		r->tjoin.owned = p = xmalloc(len);
		p += sprintf(p, "%s", c->time.name);
		for (i = 0; i < c->ntime_more; i++)
			p += sprintf(p, ",%s", c->time_more[i].name);
		r->tjoin.name = r->tjoin.owned;
		r->tref = &r->tjoin;
	}
	/* Split only the columns in use; the raw record (late file, min-by
	 * without OUT) is kept whole by the framer anyway. */
	input_set_maxfields(r->in, config_maxfield(c));
	r->keyidx = xmalloc((c->nkeys ? c->nkeys : 1) * sizeof(*r->keyidx));
	for (i = 0; i < c->nkeys; i++)
		r->keyidx[i] = c->keys[i].idx;
	r->g = aggs_new(c);
	r->vals = xmalloc((c->naggs ? c->naggs : 1) * sizeof(*r->vals));
	r->op = op_new(c, r->g, on_row, r);
	r->st = op_state(r->op);
	r->rolling_time = c->wkind == WK_NONE && c->has_time;
	if (c->emit_every > 0)
		op_set_digest(r->op, digest_row, r);
	if (c->wkind == WK_GLOBAL && !c->has_time)	/* the run's window */
		op_set_span(r->op, r->started, INT64_MIN);
	if (c->mode == MODE_BATCH)
		r->batch = batch_new(c, c->max_memory ? c->max_memory :
		    batch_default_budget());
	if (c->restore != NULL) {
		if ((rc = persist_adopt(&r->ps, r->op)) != 0)
			return rc;
		r->restored = 1;
	} else if (op_init_state(r->op) != 0) {
		fwin_warn("cannot map state: %s", strerror(errno));
		return 1;
	} else	/* auto stays open until the first time is read */
		G(r)->g_timefmt = c->time_fmt;
	r->ofmt = c->out_time;
	if (r->ofmt == TF_AUTO && !c->has_time)
		r->ofmt = TF_ISO;
	else if (r->ofmt == TF_AUTO && G(r)->g_timefmt != TF_AUTO)
		r->ofmt = G(r)->g_timefmt == TF_STRPTIME ? TF_ISO :
		    (enum tfmt)G(r)->g_timefmt;
	return 0;
}

int
run_pipeline(struct config *c)
{
	struct run r;
	struct input_opts io;
	int status, empty;

	memset(&r, 0, sizeof(r));
	r.c = c;
	r.fingerprint = config_fingerprint(c);
	r.idle_wm = INT64_MIN;
	r.latefd = -1;
	r.outfd = -1;
	r.started = now_ns();
	clock_gettime(CLOCK_MONOTONIC, &r.t0);
	persist_init(&r.ps, c, r.fingerprint, now_ns());
	memset(&io, 0, sizeof(io));
	io.fmt = c->fmt;
	io.delim = c->delim;
	io.header = c->header;
	/* with a checkpoint, an unfinished last line waits for the next run,
	 * as open windows do (unless --flush ends the stream for good) */
	io.hold_partial = c->checkpoint != NULL && c->flush != 1;
	io.may_wait = 1;
	catch_signals();
	r.in = input_open(c->files, c->nfiles, &io);
	if ((status = setup(&r, &empty)) == 0 && !empty &&
	    (status = open_sinks(&r)) == 0)
		status = run_stream(&r);
	if (close_sinks(&r) != 0)
		status = 1;
	persist_fini(&r.ps);
	input_close(r.in);
	batch_free(r.batch);
	op_free(r.op);
	aggs_free(r.g);
	free(r.vals);
	free(r.keyidx);
	free(r.keybuf);
	free(r.tbuf);
	free(r.tjoin.owned);
	free(r.fingerprint);
	if (r.cells != NULL)
		(void)out_close(r.cells);
	return status;
}
