/* plan: the mode and the strategy of a run, and why; see plan.h.
 *
 * Each strategy has a fits function (its table of methods, exec.h) that
 * says, from the pipeline and its inputs alone, whether the strategy can
 * run it, and if not why, in words a user can act on; this is the only
 * place that asks it. The planner asks every one, then picks the
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
#include "exec/exec.h"
#include "exec/plan.h"
#include "exec/why.h"

/* What only reading can show, and the strategy that takes over then, with
 * the same bytes (fwin(1): THE PLAN): at most one per strategy and mode;
 * --explain plan follows them from the chosen one. */
static const struct {
	enum strategy from, to;
	enum runmode mode;
	int files;	/* only when the FILEs can be read again */
	const char *when;
} fallbacks[] = {
	{ ST_HALVES, ST_STREAMTABLE, MODE_STREAM, 0, "when the second half has "
	    "anything to say, its table passes its budget, the cut falls in "
	    "a quoted field, the first half's times reach windows the second "
	    "fired, or the first record gives no time format: one table "
	    "reads it all" },
	{ ST_HALVES, ST_TABLE, MODE_BATCH, 0, "when the second half has "
	    "anything to say, its table passes its budget, the cut falls in "
	    "a quoted field, or the first record gives no time format: one "
	    "table reads it all" },
	{ ST_STREAMTABLE, ST_ORDERED, MODE_STREAM, 1, "when the table "
	    "passes its budget: the FILEs are read again through the window "
	    "operator, no row written twice" },
	{ ST_TABLE, ST_SORTED, MODE_BATCH, 0, "when the table passes half the "
	    "memory budget and cannot spill: the FILEs are read again into "
	    "sorted runs" },
	{ ST_STRAIGHT, ST_SORTED, MODE_BATCH, 0, "at the first record out of "
	    "time order, or past a quarter of the memory budget: the FILEs "
	    "are read again, or a pipe's records were kept" },
};

const char *
plan_name(enum strategy s)
{
	return ex_methods(s)->name;
}

/* Whether fallbacks[i] is a step from s in p. */
static int
falls_back(const struct plan *p, enum strategy s, size_t i)
{
	return fallbacks[i].from == s && fallbacks[i].mode == p->pl_mode &&
	    (!fallbacks[i].files || p->pl_rereadable);
}

enum strategy
plan_fallback(const struct plan *p, enum strategy s)
{
	size_t i;

	for (i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++)
		if (falls_back(p, s, i))
			return fallbacks[i].to;
	/* (ordered and sorted run every pipeline of theirs; a stream
	 * table on input read once has no budget to pass) */
	return s;
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
		return why_not(why, "standard input is not a regular file");
	}
	for (i = 0; i < c->nfiles; i++) {
		if (strcmp(c->files[i], "-") == 0) {
			if (fstat(0, &sb) != 0 || !S_ISREG(sb.st_mode))
				return why_not(why, "standard input is not a "
				    "regular file");
		} else if (stat(c->files[i], &sb) == 0 &&
		    !S_ISREG(sb.st_mode))
			return why_not(why, "%s is not a regular file",
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
		if (strcmp(name, plan_name((enum strategy)s)) == 0)
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

/* Asks strategy m whether it can run the pipeline, into p's reasons. */
static void
ask(const struct ex_methods *m, const struct config *c, const struct aggs *g,
    struct plan *p)
{
	char *why = p->pl_why[m->id];

	/* (its fits says so in its own words; this keeps a strategy that
	 * forgot it from losing a checkpoint) */
	if (m->fits(c, g, p, why) && !m->checkpoints &&
	    (c->checkpoint != NULL || c->restore != NULL))
		why_not(why, "--checkpoint, --restore or --state: %s keeps "
		    "state beside the window operator's", m->name);
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
	for (i = 0; i < ST_N; i++)
		ask(ex_methods((enum strategy)i), c, g, p);
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
		if (falls_back(p, s, i)) {
			fprintf(f, "fallback: %s: %s\n",
			    plan_name(fallbacks[i].to), fallbacks[i].when);
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
	    plan_name(p->pl_strategy), ex_methods(p->pl_strategy)->what,
	    p->pl_forced ? " (FWIN_STRATEGY)" : "");
	print_fallbacks(p, f);
	for (s = 0; s < ST_N; s++)
		if (s != (int)p->pl_strategy && p->pl_why[s][0] == '\0')
			fprintf(f, "possible: %s\n",
			    plan_name((enum strategy)s));
	for (s = 0; s < ST_N; s++)
		if (p->pl_why[s][0] != '\0')
			fprintf(f, "rejected: %s: %s\n",
			    plan_name((enum strategy)s), p->pl_why[s]);
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
