/* report: what a run says on standard error — bad records, corrupt
 * restored state, --stats, --progress, and at exit what was dropped; see
 * runint.h. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/keycodec.h"
#include "base/num.h"
#include "run/runint.h"
#include "base/timefmt.h"
#include "base/util.h"

/* A bad record: counted, kept in --bad-file as read, and said (file,
 * line and msg) while fewer than MAX_BAD_MESSAGES have been; with
 * --strict, the first ends the run. */
void
reject_record(struct run *r, const struct parsed *pr, const char *msg)
{
	/* (a record past 1 GiB was not kept: no bytes, not an empty line) */
	int unkept = r->badout != NULL && pr->rawlen == 0;

	G(r)->g_bad++;
	if (!unkept)
		recsink_write(r->badout, pr->raw, pr->rawlen);
	if (r->c->strict)
		r->fatal = 1;
	else if (G(r)->g_bad - r->at_start.g_bad > MAX_BAD_MESSAGES)
		return;
	if (msg == NULL)	/* the parser stopped writing them earlier */
		return;
	fwin_warn("%s:%llu: %s%s%s", pr->file, (unsigned long long)pr->line,
	    msg, r->c->strict ? "" : "; record skipped",
	    unkept ? ", not kept in --bad-file" : "");
}

/* Restored state found bad: said once; the run ends and saves nothing. */
int
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

void
print_stats(struct run *r)
{
	const struct op_globals *g = G(r), *b = &r->at_start;
	const struct state *s = op_state(r->op);
	struct timespec t1;
	struct ex_size z;
	double secs;
	uint64_t nread = g->g_read - b->g_read;
	char part[64] = "", mode[128], filt[48] = "";

	memset(&z, 0, sizeof(z));
	z.fired = g->g_fired - b->g_fired;
	z.panes = st_root(s)->sr_npanes;
	z.keys = st_root(s)->sr_peak_keys;
	z.peak = arena_hdr(&s->a)->ah_peak;
	exec_size(&r->x, &z, 0);	/* the strategy's own */
	snprintf(mode, sizeof(mode), "%s%s", r->c->mode == MODE_BATCH ?
	    "batch" : "stream", z.how);
	if (z.runs > 0)
		snprintf(mode + strlen(mode), sizeof(mode) - strlen(mode),
		    ", %llu sorted run%s spilled (%llu bytes)",
		    (unsigned long long)z.runs, z.runs == 1 ? "" : "s",
		    (unsigned long long)z.bytes);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - r->t0.tv_sec) + (t1.tv_nsec - r->t0.tv_nsec) / 1e9;
	if (r->c->part_n > 0)
		snprintf(part, sizeof(part), " (%llu of other partitions)",
		    (unsigned long long)r->others);
	if (r->c->where != NULL)	/* not dropped: asked for */
		snprintf(filt, sizeof(filt), ", filtered %llu",
		    (unsigned long long)r->filtered);
	fwin_warn("stats: records %llu%s, bad %llu%s, late %llu, in no "
	    "window %llu, windows fired %llu, open windows %llu, keys %llu, "
	    "peak state %llu bytes, %.3f s, %.0f records/s, mode %s",
	    (unsigned long long)nread, part,
	    (unsigned long long)(g->g_bad - b->g_bad), filt,
	    (unsigned long long)(g->g_late - b->g_late),
	    (unsigned long long)(g->g_nowin - b->g_nowin),
	    (unsigned long long)z.fired, (unsigned long long)z.panes,
	    (unsigned long long)z.keys, (unsigned long long)z.peak, secs,
	    secs > 0 ? nread / secs : 0.0, mode);
}

void
note_future(struct run *r, const struct parsed *pr, int64_t t)
{
	int64_t now = now_ns();

	r->fut_bound = sat_add(now, FUTURE_HINT);
	if (t <= r->fut_bound)
		return;
	if (r->fut.line > 0 && G(r)->g_late > r->fut.late)
		r->named = r->fut;	/* (records were dropped after it) */
	r->prev = r->fut;
	snprintf(r->fut.file, sizeof(r->fut.file), "%s", pr->file);
	r->fut.line = pr->line;
	r->fut.late = G(r)->g_late;
	r->fut.t = t;
	r->fut.ahead = t - now;
}

/* Late records that a time far ahead of the clock (f) made late: a
 * corrupt time, most likely, which -l would not cure; --max-future
 * would. */
static void
say_future(const struct future *f, uint64_t late)
{
	char when[TF_BUFSZ], ahead[TF_BUFSZ];

	when[tf_format(when, f->t, TF_ISO)] = '\0';
	tf_format_rough(ahead, f->ahead);
	fwin_warn("%llu late record%s dropped; %s:%llu (%s, %s ahead of the "
	    "clock) moved the watermark; --max-future 1d makes such records "
	    "bad", (unsigned long long)late, late == 1 ? "" : "s", f->file,
	    (unsigned long long)f->line, when, ahead);
}

/* Nothing is dropped quietly: late records that no --late-file took,
 * and records in no window, are counted and said at exit. */
void
say_dropped(struct run *r)
{
	uint64_t late = G(r)->g_late - r->at_start.g_late;
	uint64_t nowin = G(r)->g_nowin - r->at_start.g_nowin;
	char d[TF_BUFSZ], l[TF_BUFSZ];
	int64_t by;
	int batch;

	if (late > 0 && r->late == NULL && r->at_start.g_wm == INT64_MAX)
		/* restored after --flush: no -l keeps a record behind the
		 * end of time (persist_adopt said why) */
		fwin_warn("%llu late record%s dropped (the stream was ended by "
		    "--flush); --late-file keeps them", (unsigned long long)late,
		    late == 1 ? "" : "s");
	else if (late > 0 && r->late == NULL && r->fut.line > 0 &&
	    G(r)->g_late > r->fut.late)
		say_future(&r->fut, late);
	else if (late > 0 && r->late == NULL && r->named.line > 0)
		say_future(&r->named, late);
	else if (late > 0 && r->late == NULL) {
		/* the -l that would have kept them: this one plus the way */
		by = r->late_by > 0 ? r->late_by : 1;
		tf_format_lag(d, by);
		tf_format_lag(l, sat_add(r->c->lateness, by));
		/* (batch mode takes no checkpoint: not offered with one) */
		batch = r->c->checkpoint == NULL && r->c->restore == NULL;
		fwin_warn("%llu late record%s dropped (the latest by %s behind "
		    "the watermark); -l %s%s --late-file%s keeps them",
		    (unsigned long long)late, late == 1 ? "" : "s", d, l,
		    batch ? "," : " or", batch ? " or --mode batch" : "");
	}
	if (nowin > 0)
		fwin_warn("%llu record%s in no window dropped (between --slide "
		    "windows whose step passes their size)",
		    (unsigned long long)nowin, nowin == 1 ? "" : "s");
}

/* Stream mode with --max-memory: state that grows past it stops the run
 * (exit 1) before it takes all of the machine; the last checkpoint saved
 * stays as it is. */
int
over_budget(struct run *r)
{
	const struct config *c = r->c;
	const struct state *s = op_state(r->op);
	static const char units[] = "KMGT";
	uint64_t v = c->max_memory;
	int u = -1;

	if (v == 0 || c->mode == MODE_BATCH || arena_hdr(&s->a)->ah_used <= v)
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

void
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

/* --follow: each file and how far behind its end fwin is. */
static void
progress_files(struct run *r, char *buf, size_t size)
{
	size_t n = 0;
	int64_t b;
	int i;

	buf[0] = '\0';
	for (i = 0; i < r->c->nfiles && n + 1 < size; i++) {
		b = input_behind(r->in, i);
		if (b < 0)
			n += snprintf(buf + n, size - n, "; %s: not there",
			    r->c->files[i]);
		else if (b == 0)
			n += snprintf(buf + n, size - n, "; %s: at its end",
			    r->c->files[i]);
		else if (b < 1000000)
			n += snprintf(buf + n, size - n, "; %s: %lld bytes behind",
			    r->c->files[i], (long long)b);
		else
			n += snprintf(buf + n, size - n, "; %s: %.1f MB behind",
			    r->c->files[i], b / 1e6);
	}
}

/* At most four times a second, one line on stderr, rewritten in place:
 * bytes read (of the total, with percent and time left), records per
 * second, the watermark, open windows and keys; once the input is done,
 * the rows written so far (a batch run writes them all then). */
void
progress(struct run *r)
{
	const struct state *s = op_state(r->op);
	int64_t now = mono_ns(), el, left;
	uint64_t done = source_bytes(r->source), nread;
	char wm[TF_BUFSZ] = "-", of[512] = "";
	struct ex_size z;
	double secs;

	if (r->show == 0 || now < r->next_show)
		return;
	r->next_show = now + NS_PER_S / 4;
	if (r->writing) {	/* the input is done */
		fprintf(stderr, "\rfwin: all input read; %llu rows written "
		    "so far\033[K", (unsigned long long)r->rows);
		fflush(stderr);
		r->shown = 1;
		return;
	}
	memset(&z, 0, sizeof(z));
	z.panes = st_root(s)->sr_npanes;
	z.keys = st_root(s)->sr_nkeys;
	exec_size(&r->x, &z, 1);	/* (workers: the keys are theirs) */
	done += z.read_bytes;		/* (a second half's) */
	el = now - ((int64_t)r->t0.tv_sec * NS_PER_S + r->t0.tv_nsec);
	secs = el / 1e9;
	nread = G(r)->g_read - r->at_start.g_read + z.read_records;
	if (G(r)->g_wm != INT64_MIN)
		wm[tf_format_tz(wm, G(r)->g_wm, TF_ISO, &r->c->zone)] = '\0';
	if (r->c->follow)
		progress_files(r, of, sizeof(of));
	else if (r->total > 0 && done <= r->total) {
		left = done > 0 ? (int64_t)((double)el * (r->total - done) /
		    done / 1e9) : 0;
		snprintf(of, sizeof(of), " of %.1f MB (%.0f%%, %lld:%02lld "
		    "left)", r->total / 1e6, 100.0 * done / r->total,
		    (long long)(left / 60), (long long)(left % 60));
	}
	fprintf(stderr, "\rfwin: %.1f MB%s, %.0f records/s, watermark %s, "
	    "%llu open windows, %llu keys\033[K", done / 1e6, of,
	    secs > 0 ? nread / secs : 0.0, wm, (unsigned long long)z.panes,
	    (unsigned long long)z.keys);
	fflush(stderr);
	r->shown = 1;
}

/* Erases the progress line: nothing of it stays in a log. */
void
progress_end(struct run *r)
{
	if (r->shown)
		fputs("\r\033[K", stderr);
	r->shown = 0;
}
