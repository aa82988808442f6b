/* plan: the mode and the strategy of a run, and why; see plan.h.
 *
 * Each strategy has a fits function that says, from the pipeline and
 * its inputs alone, whether the strategy can run it, and if not why, in
 * words a user can act on. The planner asks every one, then picks the
 * first that fits in the order of preference of its mode: stream mode
 * halves, streamtable, keyed, ordered; batch mode halves, table,
 * straight (sorted fits every batch, and is what straight and table fall
 * back to). Nothing here reads a record. */
#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "window/agg.h"
#include "flow/batch.h"
#include "exec/hashagg.h"
#include "exec/plan.h"
#include "exec/split.h"

static const struct {
	const char *name, *what;
} strategies[ST_N] = {
	[ST_ORDERED] = { .name = "ordered",
	    .what = "one pass over the records in arrival "
	    "order through the window operator" },
	[ST_KEYED] = { .name = "keyed",
	    .what = "the keys spread by key group over worker "
	    "threads, each a window operator of its own; the records read "
	    "on a thread of their own" },
	[ST_STREAMTABLE] = { .name = "streamtable",
	    .what = "each record added as read to "
	    "its (window, key) group, a window's groups fired as the "
	    "watermark passes its end" },
	[ST_HALVES] = { .name = "halves",
	    .what = "the file cut at a line end near its "
	    "middle, each half read into a (window, key) table on a thread "
	    "of its own, the two tables fired together" },
	[ST_TABLE] = { .name = "table",
	    .what = "each record added as read to its (window, "
	    "key) group, in any order; while no record is a window out of "
	    "time order, each window fires as the input passes it" },
	[ST_STRAIGHT] = { .name = "straight",
	    .what = "one pass through the window operator "
	    "while the records come in time order, the rows held until the "
	    "end shows they did; at the first record out of order, sorted" },
	[ST_SORTED] = { .name = "sorted",
	    .what = "the records sorted by time in runs "
	    "(spilled to $TMPDIR past the memory budget), merged and "
	    "replayed through the window operator" },
};

/* What only reading can show, and the strategy that takes over then, with
 * the same bytes (fwin(1): THE PLAN): at most one per strategy and mode;
 * --explain plan follows them from the chosen one. */
static const struct {
	enum strategy from, to;
	enum runmode mode;
	const char *when;
} fallbacks[] = {
	{ ST_HALVES, ST_STREAMTABLE, MODE_STREAM, "when the second half has "
	    "anything to say, its table passes its budget, the cut falls in "
	    "a quoted field, the first half's times reach windows the second "
	    "fired, or the first record gives no time format: one table "
	    "reads it all" },
	{ ST_HALVES, ST_TABLE, MODE_BATCH, "when the second half has "
	    "anything to say, its table passes its budget, the cut falls in "
	    "a quoted field, or the first record gives no time format: one "
	    "table reads it all" },
	{ ST_STREAMTABLE, ST_ORDERED, MODE_STREAM, "when the table passes "
	    "its budget: the FILEs are read again through the window "
	    "operator, no row written twice" },
	{ ST_TABLE, ST_SORTED, MODE_BATCH, "when the table passes half the "
	    "memory budget and cannot spill: the FILEs are read again into "
	    "sorted runs" },
	{ ST_STRAIGHT, ST_SORTED, MODE_BATCH, "at the first record out of "
	    "time order, or past a quarter of the memory budget: the FILEs "
	    "are read again, or a pipe's records were kept" },
};

const char *
plan_name(enum strategy s)
{
	return strategies[s].name;
}

/* Sets why to the reason a strategy cannot run the pipeline; returns 0,
 * so that a fits function can say `return no(why, ...)`. */
static int
no(char *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, PLAN_WHY, fmt, ap);
	va_end(ap);
	return 0;
}

/* --- the mode --- */

/* Whether every input is a regular file (standard input counts when it
 * is redirected from one); if not, why names the first that is not. A
 * FILE that cannot be examined has no say: it is reported and skipped
 * when it is read. */
static int
inputs_regular(const struct config *c, char *why)
{
	struct stat sb;
	int i;

	if (c->nfiles == 0) {
		if (fstat(0, &sb) == 0 && S_ISREG(sb.st_mode))
			return 1;
		return no(why, "standard input is not a regular file");
	}
	for (i = 0; i < c->nfiles; i++) {
		if (strcmp(c->files[i], "-") == 0) {
			if (fstat(0, &sb) != 0 || !S_ISREG(sb.st_mode))
				return no(why, "standard input is not a "
				    "regular file");
		} else if (stat(c->files[i], &sb) == 0 &&
		    !S_ISREG(sb.st_mode))
			return no(why, "%s is not a regular file",
			    c->files[i]);
	}
	return 1;
}

/* Whether the input is FILEs named on the command line that are regular
 * files: read again from the start, they give the same records (or one
 * that cannot be opened says so when first read). *bytes: their size. */
static int
files_rereadable(const struct config *c, uint64_t *bytes)
{
	struct stat sb;
	int i;

	*bytes = 0;
	if (c->follow)	/* they grow: what is read is read once */
		return 0;
	for (i = 0; i < c->nfiles; i++) {
		if (strcmp(c->files[i], "-") == 0)
			return 0;
		if (stat(c->files[i], &sb) != 0)
			continue;
		if (!S_ISREG(sb.st_mode))
			return 0;
		*bytes += (uint64_t)sb.st_size;
	}
	return c->nfiles > 0;
}

void
plan_mode(struct config *c, const char *stream_only, struct plan *p)
{
	char *why = p->pl_mode_why;

	if (c->mode == MODE_BATCH)
		snprintf(why, PLAN_WHY, "--mode batch");
	else if (c->mode == MODE_STREAM)
		snprintf(why, PLAN_WHY, "--mode stream");
	else if (!c->has_time) {
		c->mode = MODE_STREAM;
		snprintf(why, PLAN_WHY, "no -t: windows in processing time");
	} else if (stream_only != NULL) {
		c->mode = MODE_STREAM;
		snprintf(why, PLAN_WHY, "%s is given, which is for streams",
		    stream_only);
	} else if (!inputs_regular(c, why))
		c->mode = MODE_STREAM;
	else {
		c->mode = MODE_BATCH;
		snprintf(why, PLAN_WHY, "every input is a regular file and "
		    "-t is given");
	}
	p->pl_mode = c->mode;
}

/* --- what each strategy can take --- */

static const char *
window_name(enum wkind k)
{
	static const char *const names[] = {
		[WK_NONE] = "rolling mode (no window)",
		[WK_TUMBLE] = "--tumble windows", [WK_SLIDE] = "--slide windows",
		[WK_SESSION] = "--session windows",
		[WK_COUNT] = "--count-window windows",
		[WK_CUMULATE] = "--cumulate windows",
		[WK_GLOBAL] = "--global windows",
		[WK_OVER] = "--over windows",
		[WK_OVER_ROWS] = "--over-rows windows",
	};

	return names[k];
}

/* The first aggregate without any of the flags want (0: the first with
 * a merge operation), for a reason; NULL when there is none. */
static const char *
agg_lacking(const struct config *c, unsigned want)
{
	size_t i;

	for (i = 0; i < c->naggs; i++)
		if (want != 0 ? !(c->aggs[i].op->flags & want) :
		    c->aggs[i].op->merge != NULL)
			return c->aggs[i].op->option;
	return NULL;
}

/* What stops the table from taking the windows (hashagg_fits; with
 * stream, hashagg_fits_stream): the verdict is theirs, the words ours. */
static int
table_takes(const struct config *c, const struct aggs *g, int stream,
    char *why)
{
	const char *a;

	if (stream ? hashagg_fits_stream(c, g) : hashagg_fits(c, g))
		return 1;
	if (c->wkind != WK_TUMBLE && !(stream && c->wkind == WK_CUMULATE))
		return no(why, "%s: the table holds %s only",
		    window_name(c->wkind), stream ? "tumbling and cumulating "
		    "windows" : "tumbling windows");
	if (c->fill)
		return no(why, "--fill: empty windows fire too");
	if (c->top_n > 0)
		return no(why, "--top: a window's rows are ranked");
	if (c->emit_every > 0)
		return no(why, "--emit-every: open windows print partial rows");
	if (c->wkind == WK_CUMULATE && (a = agg_lacking(c, AGF_REGROUP |
	    AGF_DEC)) != NULL)
		return no(why, "--%s: with --cumulate its result shows how "
		    "the records were grouped", a);
	a = agg_lacking(c, AGF_ANYORDER);
	return no(why, "--%s: its result depends on the order of the "
	    "records", a != NULL ? a : "?");
}

#define STREAM_ONLY "stream mode only (batch mode takes records in any " \
	"order, and none is late)"
#define BATCH_ONLY "batch mode only (a stream takes records as they " \
	"come, and drops late ones)"
#define NOT_FILES "the input is not named regular FILEs (should the " \
	"table give up, they are read again)"

static int
fits_ordered(const struct config *c, const struct plan *p, char *why)
{
	(void)c;
	if (p->pl_mode == MODE_BATCH)
		return no(why, STREAM_ONLY);
	return 1;
}

static int
fits_keyed(const struct config *c, const struct plan *p, char *why)
{
	if (p->pl_mode == MODE_BATCH)
		return no(why, STREAM_ONLY);
	if (c->threads < 3)
		return no(why, "--threads %u: workers need 3 or more (a "
		    "reading thread and two workers)", c->threads);
	if (c->checkpoint != NULL || c->restore != NULL)
		return no(why, "--checkpoint, --restore or --state: a "
		    "checkpoint is one operator's state");
	if (!c->has_time && c->wkind != WK_COUNT)
		return no(why, "no -t: the clock moves the watermark");
	if (c->idle_timeout > 0)
		return no(why, "--idle-timeout: the clock moves the "
		    "watermark");
	if (c->top_n > 0)
		return no(why, "--top: a window's rows are ranked across "
		    "keys");
	if (c->emit_every > 0)
		return no(why, "--emit-every: open windows print partial "
		    "rows");
	if (c->max_memory != 0)
		return no(why, "--max-memory: the state it bounds is one "
		    "operator's");
	if (over_window(c))
		return no(why, "%s: each record is printed as read, in input "
		    "order", c->wkind == WK_OVER ? "--over" : "--over-rows");
	return 1;
}

static int
fits_streamtable(const struct config *c, const struct aggs *g,
    const struct plan *p, char *why)
{
	if (p->pl_mode == MODE_BATCH)
		return no(why, STREAM_ONLY);
	if (c->checkpoint != NULL || c->restore != NULL)
		return no(why, "--checkpoint, --restore or --state: a "
		    "checkpoint holds the window operator's state");
	if (c->flush == 0)
		return no(why, "--no-flush: open windows are kept, not fired");
	if (!c->has_time)
		return no(why, "no -t: windows in processing time");
	if (c->allowed != 0)
		return no(why, "--allowed-lateness: a window fires again for "
		    "each late record");
	/* (the operator's state past it ends the run, which only the
	 * operator can say) */
	if (c->max_memory != 0)
		return no(why, "--max-memory: it bounds the window "
		    "operator's state");
	if (c->part_n > 1)
		return no(why, "--partition: the records of other partitions "
		    "move the watermark only");
	if (c->follow)
		return no(why, "--follow: the FILEs grow, what is read is read "
		    "once");
	if (!p->pl_rereadable)
		return no(why, NOT_FILES);
	return table_takes(c, g, 1, why);
}

static int
fits_halves(const struct config *c, const struct aggs *g,
    const struct plan *p, char *why)
{
	const char *a;

	/* the table of the mode first: halves are two of it */
	if (p->pl_why[p->pl_mode == MODE_BATCH ? ST_TABLE :
	    ST_STREAMTABLE][0] != '\0')
		return no(why, "%s", p->pl_why[p->pl_mode == MODE_BATCH ?
		    ST_TABLE : ST_STREAMTABLE]);
	if (c->threads < 2)
		return no(why, "--threads 1: the second half needs a thread "
		    "of its own");
	if (p->pl_bytes < SPLIT_MIN)
		return no(why, "the input is %llu bytes: less than %llu K is "
		    "not worth a thread", (unsigned long long)p->pl_bytes,
		    (unsigned long long)(SPLIT_MIN >> 10));
	if (!aggs_flat(g) && (a = agg_lacking(c, 0)) != NULL)
		return no(why, "--%s: its accumulators keep blocks of their "
		    "own, which two tables do not fold together", a);
	if (c->part_n > 1)
		return no(why, "--partition: the records of other partitions "
		    "are counted on one thread");
	/* (a stream's late records of the second half would be written
	 * after the first half's) */
	if (p->pl_mode == MODE_STREAM && c->late_file != NULL)
		return no(why, "--late-file: the second half's late records "
		    "would be written after the first half's");
	return 1;
}

static int
fits_table(const struct config *c, const struct aggs *g,
    const struct plan *p, char *why)
{
	if (p->pl_mode == MODE_STREAM)
		return no(why, BATCH_ONLY);
	if (!p->pl_rereadable)
		return no(why, NOT_FILES);
	return table_takes(c, g, 0, why);
}

static int
fits_batch(const struct plan *p, char *why)
{
	if (p->pl_mode == MODE_STREAM)
		return no(why, BATCH_ONLY);
	return 1;
}

/* --- the choice --- */

/* FWIN_STRATEGY: NAME forces NAME; returns 0, or -1 with err. With
 * FWIN_STRATEGY_SOFT set, a NAME that cannot run the pipeline leaves the
 * choice as it was (the test suites run under each strategy this way). */
static int
force(struct plan *p, const char *name, char *err, size_t errsz)
{
	const char *soft = getenv("FWIN_STRATEGY_SOFT");
	int s;

	for (s = 0; s < ST_N; s++)
		if (strcmp(name, strategies[s].name) == 0)
			break;
	if (s == ST_N) {
		snprintf(err, errsz, "FWIN_STRATEGY: unknown strategy '%s' "
		    "(ordered, keyed, streamtable, halves, table, straight "
		    "or sorted)", name);
		return -1;
	}
	if (p->pl_why[s][0] == '\0') {
		p->pl_strategy = (enum strategy)s;
		p->pl_forced = 1;
	} else if (soft == NULL || *soft == '\0') {
		snprintf(err, errsz, "FWIN_STRATEGY=%s cannot run this "
		    "pipeline: %s", name, p->pl_why[s]);
		return -1;
	}
	return 0;
}

int
plan_make(const struct config *c, struct plan *p, char *err, size_t errsz)
{
	/* the aggregates' flags, as the strategies will see them */
	struct aggs *g = aggs_new(c);
	static const enum strategy prefer[2][4] = {
		{ ST_HALVES, ST_STREAMTABLE, ST_KEYED, ST_ORDERED },
		{ ST_HALVES, ST_TABLE, ST_STRAIGHT, ST_SORTED },
	};
	const char *env = getenv("FWIN_STRATEGY");
	char (*why)[PLAN_WHY] = p->pl_why;
	int i;

	p->pl_threads = c->threads;
	p->pl_memory_set = c->max_memory != 0;
	p->pl_memory = c->max_memory != 0 ? c->max_memory :
	    p->pl_mode == MODE_BATCH ? batch_default_budget() : 0;
	p->pl_rereadable = files_rereadable(c, &p->pl_bytes);
	memset(why, 0, sizeof(p->pl_why));
	fits_ordered(c, p, why[ST_ORDERED]);
	fits_keyed(c, p, why[ST_KEYED]);
	fits_streamtable(c, g, p, why[ST_STREAMTABLE]);
	fits_table(c, g, p, why[ST_TABLE]);
	fits_halves(c, g, p, why[ST_HALVES]);	/* (after the tables) */
	fits_batch(p, why[ST_STRAIGHT]);
	fits_batch(p, why[ST_SORTED]);
	aggs_free(g);
	p->pl_forced = 0;
	for (i = 0; i < 4; i++) {
		p->pl_strategy = prefer[p->pl_mode == MODE_BATCH][i];
		if (why[p->pl_strategy][0] == '\0')
			break;
	}
	if (env != NULL && *env != '\0')
		return force(p, env, err, errsz);
	return 0;
}

/* --- --explain plan --- */

/* A size as --max-memory takes it: in the largest unit that divides it. */
static void
print_size(FILE *f, uint64_t v)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		fprintf(f, "%llu bytes", (unsigned long long)v);
	else
		fprintf(f, "%llu%c", (unsigned long long)v, units[u]);
}

/* One "fallback: NAME: when" line for each step from the chosen
 * strategy. */
static void
print_fallbacks(const struct plan *p, FILE *f)
{
	enum strategy s = p->pl_strategy;
	size_t i;

	for (i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++)
		if (fallbacks[i].from == s && fallbacks[i].mode == p->pl_mode) {
			fprintf(f, "fallback: %s: %s\n",
			    strategies[fallbacks[i].to].name,
			    fallbacks[i].when);
			s = fallbacks[i].to;
			i = (size_t)-1;	/* (from the top, for the next) */
		}
}

int
plan_print(const struct plan *p, FILE *f)
{
	int s;

	fprintf(f, "mode: %s (%s)\n", p->pl_mode == MODE_BATCH ? "batch" :
	    "stream", p->pl_mode_why);
	fprintf(f, "strategy: %s \xe2\x80\x94 %s%s\n",
	    strategies[p->pl_strategy].name, strategies[p->pl_strategy].what,
	    p->pl_forced ? " (FWIN_STRATEGY)" : "");
	print_fallbacks(p, f);
	for (s = 0; s < ST_N; s++)
		if (s != (int)p->pl_strategy && p->pl_why[s][0] == '\0')
			fprintf(f, "possible: %s\n", strategies[s].name);
	for (s = 0; s < ST_N; s++)
		if (p->pl_why[s][0] != '\0')
			fprintf(f, "rejected: %s: %s\n", strategies[s].name,
			    p->pl_why[s]);
	fprintf(f, "threads: %u\n", p->pl_threads);
	fputs("memory: ", f);
	if (p->pl_memory == 0)
		fputs("no limit (a stream without --max-memory)\n", f);
	else {
		print_size(f, p->pl_memory);
		fputs(p->pl_memory_set ? " (--max-memory)\n" :
		    " (a quarter of physical memory)\n", f);
	}
	return 0;
}
