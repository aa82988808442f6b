/* run: the driver; see run.h. The loop reads a record, parses it, hands
 * it to the strategy the plan chose (exec.h) and advances the watermark;
 * when input would block it fires what the clock makes due, flushes
 * output and sleeps in poll(2) until input or the next timer. */
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

#include "window/agg.h"
#include "run/ckpt.h"
#include "run/guard.h"
#include "io/input.h"
#include "io/keycodec.h"
#include "base/num.h"
#include "window/operator.h"
#include "io/output.h"
#include "run/persist.h"
#include "run/run.h"
#include "run/runint.h"
#include "run/srcwm.h"
#include "base/stats.h"
#include "base/timefmt.h"
#include "base/util.h"


/* --- records --- */

/* --time-format auto: the input's format is known from now on. */
static void
time_format_found(struct run *r, int fmt)
{
	if (G(r)->g_timefmt != TF_AUTO)
		return;
	G(r)->g_timefmt = fmt;
	if (sink_timefmt(r->sink) == TF_AUTO)
		sink_set_timefmt(r->sink, fmt == TF_STRPTIME ? TF_ISO :
		    (enum tfmt)fmt);
}

/* The watermark moves to w: what it passes fires. */
static void
advance(struct run *r, int64_t w)
{
	exec_advance(&r->x, w, G(r)->g_maxt);
}

/* --follow with several FILEs: the watermark is the smallest of the
 * inputs' that are not idle, less -l (srcwm.h says what it is when all
 * are; --idle-timeout's clock moves it on from there). */
static void
sources_advance(struct run *r, int64_t now)
{
	int64_t m = srcwm_min(r->srcs, now), w;

	if (m == T_NONE || m == INT64_MIN)
		return;
	w = sat_add(m, -r->c->lateness);
	if (w > G(r)->g_wm)
		advance(r, w);
}

/* Step 4: the watermark follows the largest event time, less -l. In
 * batch mode it stays 1 ns below it (the man page's BATCH AND STREAM
 * MODES), so that every record at a time t is added before a window
 * ending at t fires: sessions that touch merge whatever the order of
 * the records with equal times. Windows on a grid print the same rows
 * either way (a record at t never joins a window ending at t), so they
 * fire at t and hold no window longer than they must. */
static inline void
watermark_after(struct run *r, int64_t t)
{
	const struct config *c = r->c;
	int64_t w, now;

	if (r->srcs != NULL) {
		now = now_ns();
		srcwm_record(r->srcs, r->src, t, now);
		if (t > G(r)->g_maxt)
			G(r)->g_maxt = t;
		sources_advance(r, now);
		return;
	}
	if (t <= G(r)->g_maxt)
		return;
	G(r)->g_maxt = t;
	w = sat_add(t, c->mode == MODE_BATCH && c->wkind == WK_SESSION ? -1 :
	    -c->lateness);
	if (w > G(r)->g_wm)
		advance(r, w);
}

/* A good record's windows are out of the range of times. */
static void
out_of_range(struct run *r, const struct parsed *pr)
{
	char msg[512];

	say_field(msg, sizeof(msg), parse_time_name(r->parser),
	    "window out of range for time", pr->tval, pr->tvaln);
	reject_record(r, pr, msg);
}

/* Hands a good record to the strategy (exec.h), acting on its answer. */
static inline void
apply_good(struct run *r, const struct parsed *pr)
{
	const struct config *c = r->c;
	struct op_rec orec;
	int64_t by;

	parsed_op_rec(pr, &orec);
	if (!c->has_time && (op_uses_time(r->op) || c->mode == MODE_BATCH))
		orec.t = now_ns();	/* processing time: when applied */
	switch (exec_record(&r->x, pr, &orec)) {
	case EX_ADDED:
	case EX_NOWIN:
		FUTURE_CHECK(r, pr, orec.t);
		watermark_after(r, orec.t);
		break;
	case EX_LATE:
		by = sat_sub(G(r)->g_wm, orec.t);
		if (by > r->late_by)
			r->late_by = by;
		recsink_write(r->late, pr->raw, pr->rawlen);
		break;
	case EX_RANGE:
		out_of_range(r, pr);
		break;
	case EX_FAIL:	/* (said): exit 1 */
		r->fatal = 1;
		break;
	}
}

/* apply() of any record: counts it, says what is wrong with it, and
 * hands a good one on. (Out of line: apply() takes the commonest.) */
static __attribute__((noinline)) void
apply_any(struct run *r, const struct parsed *pr)
{
	const struct config *c = r->c;

	if (pr->kind == PR_NOTE) {	/* the reading thread's message */
		fwin_warn_line(pr->msg, pr->msglen);
		return;
	}
	G(r)->g_read++;
	if (r->srcs != NULL)
		r->src = input_source(r->in, pr->file);
	if (pr->fmt != TF_AUTO)
		time_format_found(r, pr->fmt);
	if (pr->kind == PR_BAD)
		reject_record(r, pr, pr->msg);
	if (r->hint != NULL && !hint_record(r->hint, pr)) {
		hint_free(r->hint);	/* (said what it had to) */
		r->hint = NULL;
	}
	if (pr->kind == PR_BAD)
		return;
	if (pr->kind == PR_OTHER || pr->kind == PR_FILTERED) {
		if (pr->kind == PR_OTHER)
			r->others++;
		else
			r->filtered++;
		/* (batch mode: no watermark until the records are sorted,
		 * and a rejected record is none of them) */
		if (!pr->has_t || !op_time_fits(r->op, pr->t) ||
		    (pr->kind == PR_FILTERED && c->mode == MODE_BATCH))
			return;
		FUTURE_CHECK(r, pr, pr->t);
		watermark_after(r, pr->t);
		return;
	}
	apply_good(r, pr);
}

/* Applies a parsed record (parse.h): counts it, says what is wrong with
 * it, and hands it to the strategy, acting on its answer. A good record
 * that found no time format, in a run of one source whose hint has said
 * what it had to, needs nothing of apply_any() but its count. */
static void
apply(struct run *r, const struct parsed *pr)
{
	if (pr->kind != PR_RECORD || pr->fmt != TF_AUTO || r->srcs != NULL ||
	    r->hint != NULL) {
		apply_any(r, pr);
		return;
	}
	G(r)->g_read++;
	apply_good(r, pr);
}

/* --- live input: timers while fwin waits --- */

static int
flush_outputs(struct run *r)
{
	return sink_flush(r->sink) != 0 || recsink_flush(r->late) != 0 ?
	    -1 : 0;
}

/* --threads: applies what the reading thread read ahead, up to where it
 * pauses, so that the input stands where the last record applied ends
 * (what a checkpoint records). Returns -1 when a record ended the run. */
static int
quiesce(struct run *r)
{
	const struct parsed *pr;
	int rc;

	if (r->ended || !source_pause(r->source))
		return 0;	/* (nothing read ahead) */
	while ((rc = source_next(r->source, &pr)) != SOURCE_PAUSED) {
		if (rc == SOURCE_RECORD) {
			apply(r, pr);
			if (record_stops(r))
				return -1;
		} else if (rc != SOURCE_WAIT) {	/* its end: it has stopped */
			r->ended = 1;
			r->endrc = rc;
			return 0;
		}
	}
	return 0;
}

static int
save(struct run *r, int background)
{
	struct persist_files f = {
		.in = r->in, .outfd = sink_fd(r->sink),
		.latefd = recsink_fd(r->late), .outname = sink_name(r->sink),
	};
	int rc = 0;


	if (quiesce(r) != 0)
		return -1;	/* a record ended the run: the loop stops */
	/* an output that failed is said once, when it is closed (every
	 * periodic save would say it again) */
	if (flush_outputs(r) != 0)
		rc = -1;
	else if ((f.dbpos = sink_position(r->sink)),	/* the flush committed */
	    persist_save(&r->ps, r->op, &f, background) != 0) {
		check_corrupt(r);
		rc = -1;
	}
	if (!r->ended)
		source_resume(r->source);
	return rc;
}

/* A periodic or requested save, in the background; one writer at a time:
 * a save due while one runs is skipped. */
static void
maybe_save(struct run *r)
{
	persist_reap(&r->ps, 0);
	if (r->ps.saver > 0)
		return;
	save_begun();
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
	int64_t idle_from;

	if (w == T_NONE)
		return T_NONE;
	if (!c->has_time)
		return sat_add(w, c->lateness);
	if (c->idle_timeout <= 0 || r->idle_wm == INT64_MIN)
		return T_NONE;
	idle_from = sat_add(r->idle_since, c->idle_timeout);
	/* (several FILEs: a window that the watermark passes when the
	 * last of them goes idle is due then) */
	return w <= r->idle_wm ? idle_from : sat_add(idle_from, w - r->idle_wm);
}

/* --follow with several FILEs: the clock moves the watermark on only
 * once every file is idle, and from what it is then (srcwm_all_idle():
 * the watermark of the file that went idle last), not from the one now,
 * which a file not idle yet may hold back. */
static void
idle_wm_of_sources(struct run *r)
{
	int64_t m = srcwm_all_idle(r->srcs), w;

	if (m == INT64_MIN)
		return;
	w = sat_add(m, -r->c->lateness);
	if (w > r->idle_wm)
		r->idle_wm = w;
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

/* A poll(2) timeout no longer than the input's own (--follow looks at
 * its files again every second). */
static int
wake_ms(const struct run *r, int ms)
{
	int wake = source_wait_ms(r->source);

	return wake >= 0 && (ms < 0 || ms > wake) ? wake : ms;
}

/* poll(2) on pfd for ms (-1: no end), unless a signal to stop came: one
 * that comes after the look and before the sleep would not end it, so
 * the signals are held over the look and let in by ppoll(2) alone.
 * Returns as poll(2), or -1 with errno EINTR for the signal. */
static int
poll_unless_stopped(struct pollfd *pfd, int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	sigset_t stops, old;
	int rc;

	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	sigaddset(&stops, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &stops, &old);
	if (run_signal() != 0) {
		errno = EINTR;
		rc = -1;
	} else
		rc = ppoll(pfd, 1, ms < 0 ? NULL : &ts, &old);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* The watermark moved to where the clock has taken it by now (an input
 * that went idle, --idle-timeout, processing time). */
static void
clock_advance(struct run *r, int64_t now)
{
	int64_t w;

	if (r->srcs != NULL)	/* an input may have gone idle */
		sources_advance(r, now);
	w = clock_watermark(r, now);
	if (w > G(r)->g_wm && op_uses_watermark(r->op))
		advance(r, w);
}

/* Input may have come after a pause: with --idle-timeout, the clock moved
 * the event-time watermark all the while, not only to the times a timer
 * woke fwin at, so the records read now meet the watermark of now (a
 * record whose windows it passed meanwhile is late). Processing time is
 * left to its timers: its records take their times as they are taken. */
static void
idle_catch_up(struct run *r)
{
	if (r->c->has_time && r->c->idle_timeout > 0)
		clock_advance(r, now_ns());
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
	int64_t now, due;

	if (G(r)->g_read != r->idle_read) {
		/* records came since the last wait: idle from now */
		r->idle_read = G(r)->g_read;
		r->idle_since = now_ns();
		r->idle_wm = G(r)->g_wm;
		if (r->srcs != NULL)
			idle_wm_of_sources(r);
	}
	for (;;) {
		if (run_signal() != 0)
			return -1;
		now = now_ns();
		clock_advance(r, now);
		exec_idle(&r->x);	/* (workers: their rows) */
		if (check_corrupt(r) || flush_outputs(r) != 0)
			return -1;
		if (c->checkpoint != NULL &&
		    (save_asked() || persist_due(&r->ps, now)))
			maybe_save(r);
		if (r->corrupt || r->fatal)
			return -1;
		due = clock_due(r, exec_next_timer(&r->x));
		if (c->checkpoint != NULL && c->ckpt_every_n == 0 &&
		    r->ps.next_save < due)
			due = r->ps.next_save;
		if (r->srcs != NULL && srcwm_next_idle(r->srcs, now) < due)
			due = srcwm_next_idle(r->srcs, now);
		if (due != T_NONE && due <= now)
			continue;
		if (source_ready(r->source))
			return 0;
		pfd.fd = source_fd(r->source);
		pfd.events = POLLIN;
		if (poll_unless_stopped(&pfd, wake_ms(r, poll_timeout(due,
		    now))) > 0 || source_wait_ms(r->source) >= 0) {
			idle_catch_up(r);
			return 0;
		}
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
		if (run_signal() != 0)
			return 0;
		pfd.fd = input_fd(r->in);
		pfd.events = POLLIN;
		(void)poll(&pfd, 1, input_wait_ms(r->in));
	}
	return rc;
}

/* --- the run --- */

/* The next records, parsed (a block of them, up to max, from the input
 * read here): from the source, on this thread or the reading thread;
 * past the first half's end (halves), the second half is joined, or
 * read here after all. Returns as source_next_n(). */
static int
next_parsed(struct run *r, const struct parsed **pr, size_t max, size_t *n)
{
	int rc;

	while ((rc = source_next_n(r->source, pr, max, n)) == SOURCE_END &&
	    !exec_input_end(&r->x))
		;
	if (rc != SOURCE_RECORD && rc != SOURCE_WAIT) {
		r->ended = 1;
		r->endrc = rc;
	}
	return rc;
}

/* --threads: reading and parsing on a thread of their own. */
static void
start_reader(struct run *r)
{
	r->source = source_thread(r->read_here, r->c,
	    r->late != NULL || r->badout != NULL);
	if (r->x.m->windows)	/* (a table's) */
		source_find_windows(r->source);
}

/* --threads: ends the reading thread; the input is read here from now
 * on. After a stop asked for (a signal), what it read ahead is applied
 * first, as if it had been read here. */
static void
stop_reader(struct run *r, int apply_ahead)
{
	if (r->source == r->read_here)
		return;
	if (apply_ahead)
		(void)quiesce(r);
	source_free(r->source);
	r->source = r->read_here;
}

/* --- what the strategy has of the driver (exec.h's ex_env) --- */

static void
ex_time(void *arg, int64_t t)
{
	watermark_after(arg, t);
}

static void
ex_late(void *arg, uint64_t n, int64_t by, int64_t maxt)
{
	struct run *r = arg;

	G(r)->g_late += n;
	/* found apart, after the fact: those that came before the time
	 * far ahead of the clock (the largest time then was below it) were
	 * not made late by it (say_dropped) */
	if (r->fut.line > 0 && maxt < r->fut.t) {
		r->fut.late += n;
		if (r->prev.line > 0 && maxt >= r->prev.t)
			r->named = r->prev;	/* (dropped after that one) */
	}
	if (by > r->late_by)
		r->late_by = by;
}

static void
ex_filtered(void *arg, uint64_t n)
{
	((struct run *)arg)->filtered += n;
}

/* (the rows of --progress: on_row()'s) */
static void
ex_copied(void *arg, uint64_t n)
{
	struct run *r = arg;

	r->rows += n;
	if (r->writing)
		progress(r);
}

static int
ex_stopped(void *arg)
{
	return batch_stopped(arg);
}

static void new_operator(struct run *r);

static void
ex_renew(void *arg)
{
	struct run *r = arg;
	struct op_globals kept = *G(r);

	op_free(r->op);
	new_operator(r);
	if (op_init_state(r->op) != 0)
		fwin_die("cannot map state: %s", strerror(errno));
	r->x.env.op = r->op;
	G(r)->g_read = kept.g_read;
	G(r)->g_bad = kept.g_bad;
	G(r)->g_timefmt = kept.g_timefmt;
}

static int
ex_solo(void *arg)
{
	struct run *r = arg;

	stop_reader(r, 1);	/* what it read ahead is taken first */
	return !r->ended && !r->fatal;
}

static void
ex_threaded(void *arg)
{
	start_reader(arg);
}

/* The strategy's view of the driver, once the sinks are open. */
static void
exec_env(struct run *r)
{
	struct ex_env *e = &r->x.env;

	e->c = r->c;
	e->plan = r->plan;
	e->g = r->g;
	e->op = r->op;
	e->in = r->in;
	e->source = r->read_here;
	e->sink = r->sink;
	e->late_file = r->late;
	e->row = on_row;
	e->arg = r;
	e->time = ex_time;
	e->found_late = ex_late;
	e->filtered = ex_filtered;
	e->copied = ex_copied;
	e->stopped = ex_stopped;
	e->renew = ex_renew;
	e->solo = ex_solo;
	e->threaded = ex_threaded;
}

/* Whether rows cannot be written (a full disk), which ends the run: the
 * rest of the input would be read, and windows fired, for nothing (said
 * at the close). */
static int
rows_unwritable(struct run *r)
{
	if (!sink_failed(r->sink))
		return 0;
	r->fatal = 1;
	return 1;
}

/* Applies the block of n records at pr, and after each what comes at
 * every record (and every 4096: the progress line, rows_unwritable).
 * Returns -1 when one ended the run, the rest not applied. */
static int
apply_block(struct run *r, const struct parsed *const *pr, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		if (source_reads_ahead(r->source))
			exec_prefetch(&r->x, r->source);
		apply(r, pr[k]);
		if (record_stops(r))
			return -1;
		if (!r->x.begun)	/* (halves: the second half begins) */
			exec_begin(&r->x);
		if ((G(r)->g_read & 4095) == 0) {
			progress(r);
			if (rows_unwritable(r))
				return -1;
		}
	}
	return 0;
}

/* How many records the next block may hold: one until the strategy has
 * begun (exec_begin() may stop or start the reading thread, which holds
 * a block's records or reads the input they lie in), and one where it
 * looks ahead of the record handed over last (exec_prefetch). */
static size_t
block_max(struct run *r)
{
	return !r->x.begun || (source_reads_ahead(r->source) &&
	    exec_prefetches(&r->x)) ? 1 : PARSE_SETS;
}

/* Reads the input to its end, fires what is due and saves; returns the
 * exit status. */
static int
run_stream(struct run *r)
{
	const struct config *c = r->c;
	const struct parsed *pr[PARSE_SETS];
	size_t n;
	uint64_t nbad;
	int status = 0, rc = 0, flush, stopped;

	r->at_start = *G(r);
	progress_setup(r);
	/* the plan's strategy begins (plan.h); the driver does not choose */
	exec_env(r);
	exec_open(&r->x);
	/* Exactly-once from the first record: a fresh run records where
	 * its output starts before writing any, so that a run killed before
	 * its first periodic save is undone too. */
	if (c->checkpoint != NULL && !r->restored && save(r, 0) != 0)
		return 1;
	if (c->threads > 1)
		start_reader(r);
	while (run_signal() == 0 && !r->fatal && !r->corrupt) {
		rc = next_parsed(r, pr, block_max(r), &n);
		if (rc == SOURCE_WAIT) {
			progress(r);
			if (wait_input(r) != 0)
				break;
			continue;
		}
		if (rc != SOURCE_RECORD) {
			r->read_all = rc == SOURCE_END;
			break;
		}
		if (apply_block(r, pr, n) != 0)
			break;
		if (c->checkpoint != NULL &&
		    (r->ps.since_save += n) >= r->ps.save_check) {
			r->ps.since_save = 0;
			if (save_asked() || c->ckpt_every_n > 0 ||
			    persist_due(&r->ps, now_ns()))
				maybe_save(r);
		}
	}
	stop_reader(r, !r->ended && !r->fatal && !r->corrupt);
	stream_interrupted(r);
	r->writing = 1;
	hint_end(r->hint);
	if (rc < 0 || r->fatal || r->corrupt)
		status = 1;
	/* End of input: W becomes +inf. Count windows fire a partial window
	 * only when --flush is given, as in Flink. */
	if (!op_uses_time(r->op))
		flush = c->flush == 1;
	else
		flush = c->flush < 0 ? c->checkpoint == NULL : c->flush;
	/* (a stopped batch run writes no further row: batch_stopped; a
	 * failed one writes none) */
	if (!c->has_time && status == 0 && !batch_stopped(r))
		op_set_span(r->op, r->started, now_ns());	/* the run's */
	if (exec_finish(&r->x, flush, status != 0 || batch_stopped(r)) != 0)
		status = 1;
	progress_end(r);
	if (status == 0 && !batch_stopped(r) && check_corrupt(r))
		status = 1;
	stopped = batch_stopped(r);	/* (a signal after this: too late) */
	/* With a checkpoint, open windows are saved unfired for the next
	 * run (unless --flush fired them), and on a fatal error the last
	 * good checkpoint is kept. */
	persist_reap(&r->ps, 1);
	if (c->checkpoint != NULL && status == 0) {
		if (save(r, 0) != 0)
			status = 1;
		else
			r->ps.saved_last = 1;
	}
	if (r->ps.failed || input_failed(r->in))
		status = 1;
	if (c->stats)
		print_stats(r);
	say_dropped(r);
	aggs_say_huge(c);
	nbad = G(r)->g_bad - r->at_start.g_bad;
	/* a partition sees only part of the input: it cannot judge it */
	if (nbad > 0 && !c->strict && c->part_n <= 1 && !stopped &&
	    nbad == G(r)->g_read - r->at_start.g_read) {
		/* nothing came through: a wrong option, not bad luck */
		fwin_warn("all %llu record%s %s bad; see the messages above",
		    (unsigned long long)nbad, nbad == 1 ? "" : "s",
		    nbad == 1 ? "was" : "were");
		status = 1;
	} else if (nbad > 0 && !c->strict)
		fwin_warn("%llu bad record%s skipped", (unsigned long long)nbad,
		    nbad == 1 ? "" : "s");
	if (stopped && status == 0)
		status = batch_interrupted(r, input_bytes(r->in));
	return status;
}

/* The operator's and the tables' row callback: the driver halts the
 * sink (batch_stopped) when a signal stops a batch run, and the operator
 * when rows cannot be written (rows_unwritable): a window
 * that fires more rows than could ever be printed (--fill over days of
 * milliseconds) would make them all for nothing. */
void
on_row(void *arg, const struct op_row *row)
{
	struct run *r = arg;

	if (batch_stopped(r))
		return;
	sink_row(r->sink, row);
	if ((++r->rows & 1023) != 0)
		return;
	/* (the rows at the end of input: a batch run's all, written as
	 * fast as their reader takes them) */
	if (r->writing)
		progress(r);
	if (rows_unwritable(r))
		op_halt(r->op);
}

/* --emit-every, --top: the sink's (op_digest_fn, op_rank_fn); the sink
 * is opened after the operator is made. */
static uint64_t
digest_row(void *arg, const struct op_row *row)
{
	return sink_digest(((struct run *)arg)->sink, row);
}

static int
rank_row(void *arg, const struct op_row *row, double *v, const char **text,
    size_t *n)
{
	return sink_rank(((struct run *)arg)->sink, row, v, text, n);
}

/* The window operator, its state not made or restored yet. */
static void
new_operator(struct run *r)
{
	const struct config *c = r->c;

	r->op = op_new(c, r->g, on_row, r);
	r->st = op_state(r->op);
	if (r->sink != NULL)	/* (batch mode makes it anew) */
		sink_set_state(r->sink, r->st);
	if (c->emit_every > 0)
		op_set_digest(r->op, digest_row, r);
	if (c->top_n > 0)	/* (the column is found with the header) */
		op_set_rank(r->op, rank_row, r);
	if (c->wkind == WK_GLOBAL && !c->has_time)	/* the run's window */
		op_set_span(r->op, r->started, INT64_MIN);
}

/* Reads the header, resolves the fields and builds the operator and its
 * state (restored or new). Returns 0 or the exit status; *empty says the
 * input held not even a header (there is nothing to run). */
static int
setup(struct run *r, int *empty)
{
	struct config *c = r->c;
	const struct field *names = NULL;
	size_t nnames = 0;
	int rc;

	*empty = 0;
	if ((rc = persist_lock(&r->ps, &c->restore)) != 0 ||
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
	if (over_window(c)) {	/* each record printed, under its names */
		r->over_cols = xcalloc(nnames ? nnames : 1, sizeof(char *));
		for (r->nover_cols = 0; r->nover_cols < nnames; r->nover_cols++)
			r->over_cols[r->nover_cols] = xstrndup(
			    names[r->nover_cols].p, names[r->nover_cols].n);
		over_add_record_agg(c);
	}
	parse_fields(c, r->in);
	r->g = aggs_new(c);
	new_operator(r);
	if (c->restore != NULL) {
		if ((rc = persist_adopt(&r->ps, r->op)) != 0)
			return rc;
		r->restored = 1;
	} else if (op_init_state(r->op) != 0) {
		fwin_warn("cannot map state: %s", strerror(errno));
		return 1;
	} else	/* auto stays open until the first time is read */
		G(r)->g_timefmt = c->time_fmt;
	/* a reading thread parses with aggregates of its own: the
	 * operator's are written while windows fire, and lines written on
	 * one core and read on the other at every record cost a miss */
	r->pg = c->threads > 1 ? aggs_new(c) : NULL;
	r->parser = parser_new(c, r->pg != NULL ? r->pg : r->g,
	    G(r)->g_timefmt,
	    op_uses_time(r->op) || c->mode == MODE_BATCH,
	    op_uses_watermark(r->op) && c->has_time && c->mode != MODE_BATCH);
	if (op_uses_time(r->op) || c->mode == MODE_BATCH)	/* (times) */
		r->hint = hint_new(c, G(r)->g_timefmt);
	if (c->follow && c->nfiles > 1 && c->has_time &&
	    c->mode != MODE_BATCH && op_uses_watermark(r->op))
		r->srcs = srcwm_new(c->nfiles, c->idle_timeout, now_ns());
	r->source = r->read_here = source_input(c, r->in, r->parser);
	return 0;
}

int
run_pipeline(struct config *c, const struct plan *p)
{
	struct run r;
	struct input_opts io;
	int status, empty;

	memset(&r, 0, sizeof(r));
	r.c = c;
	r.plan = p;
	r.fingerprint = config_fingerprint(c);
	r.idle_wm = INT64_MIN;
	r.started = now_ns();
	clock_gettime(CLOCK_MONOTONIC, &r.t0);
	persist_init(&r.ps, c, r.fingerprint, now_ns());
	/* before anything is made: a lock file, the input's first read */
	if ((status = guard_checkpoint(c, r.fingerprint, &r.ps.replaced)) != 0 ||
	    (status = guard_outputs(c)) != 0) {
		free(r.fingerprint);
		return status;
	}
	memset(&io, 0, sizeof(io));
	io.fmt = c->fmt;
	io.delim = c->delim;
	io.header = c->header;
	/* with a checkpoint, an unfinished last line waits for the next run,
	 * as open windows do (unless --flush ends the stream for good) */
	io.hold_partial = c->checkpoint != NULL && c->flush != 1;
	io.may_wait = 1;
	io.follow = c->follow;
	catch_signals();
	r.in = input_open(c->files, c->nfiles, &io);
	if ((status = setup(&r, &empty)) == 0 && !empty &&
	    (status = open_sinks(&r)) == 0)
		status = run_stream(&r);
	if (close_sinks(&r) != 0)
		status = 1;
	/* after the last byte the run writes, its messages' too (2>>FILE) */
	if (status == 0 && persist_ended(&r.ps) != 0)
		status = 1;
	persist_fini(&r.ps);
	exec_close(&r.x);
	if (r.source != r.read_here)
		source_free(r.source);
	source_free(r.read_here);
	input_close(r.in);
	op_free(r.op);
	aggs_free(r.g);
	parser_free(r.parser);
	hint_free(r.hint);
	srcwm_free(r.srcs);
	aggs_free(r.pg);
	free(r.fingerprint);
	while (r.nover_cols > 0)
		free(r.over_cols[--r.nover_cols]);
	free(r.over_cols);
	return status;
}
