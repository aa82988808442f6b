/* why: the words of the strategies' reasons; see why.h. */
#include <stdarg.h>
#include <stdio.h>

#include "exec/hashagg.h"
#include "exec/plan.h"
#include "exec/why.h"

int
why_not(char *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, PLAN_WHY, fmt, ap);
	va_end(ap);
	return 0;
}

int
why_batch_fits(const struct config *c, const struct aggs *g,
    const struct plan *p, char *why)
{
	(void)c;
	(void)g;
	if (p->pl_mode == MODE_STREAM)
		return why_not(why, WHY_BATCH_ONLY);
	return 1;
}

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

const char *
why_agg_lacking(const struct config *c, unsigned want)
{
	size_t i;

	for (i = 0; i < c->naggs; i++)
		if (!(c->aggs[i].op->flags & want))
			return c->aggs[i].op->option;
	return NULL;
}

/* The first aggregate that cannot take a part of its values back out
 * (aggop.h's unmerge), or NULL. */
static const char *
why_agg_unmerging(const struct config *c)
{
	size_t i;

	for (i = 0; i < c->naggs; i++)
		if (c->aggs[i].op->unmerge == NULL)
			return c->aggs[i].op->option;
	return NULL;
}

const char *
why_agg_merging(const struct config *c, unsigned unless)
{
	size_t i;

	for (i = 0; i < c->naggs; i++)
		if (c->aggs[i].op->merge != NULL &&
		    !(c->aggs[i].op->flags & unless))
			return c->aggs[i].op->option;
	return NULL;
}

int
why_table_takes(const struct config *c, const struct aggs *g, int stream,
    char *why)
{
	const char *a;

	if (stream ? hashagg_fits_stream(c, g) : hashagg_fits(c, g))
		return 1;
	if (c->wkind != WK_TUMBLE && !(stream && (c->wkind == WK_CUMULATE ||
	    c->wkind == WK_SLIDE)))
		return why_not(why, "%s: the table holds %s only",
		    window_name(c->wkind), stream ? "tumbling, cumulating "
		    "and sliding windows" : "tumbling windows");
	if (c->wkind == WK_SLIDE && !hashagg_slides(c))
		return why_not(why, "--slide: the table holds slides whose "
		    "STEP divides their SIZE, in units of fixed length");
	if (c->fill)
		return why_not(why, "--fill: empty windows fire too");
	if (c->top_n > 0)
		return why_not(why, "--top: a window's rows are ranked");
	if (c->emit_every > 0)
		return why_not(why, "--emit-every: open windows print partial "
		    "rows");
	if (c->wkind == WK_CUMULATE && (a = why_agg_lacking(c, AGF_REGROUP |
	    AGF_DEC)) != NULL)
		return why_not(why, "--%s: with --cumulate the table keeps "
		    "a running fold per key, and its fold is no block the "
		    "table can keep", a);
	if (c->wkind == WK_SLIDE && (a = why_agg_unmerging(c)) != NULL)
		return why_not(why, "--%s: with --slide the table takes the "
		    "pane that leaves a window back out of a running fold, "
		    "which counts and exact sums can, and it cannot", a);
	if (stream && (a = aggs_outside_window(g)) != NULL)
		return why_not(why, "--%s: it reads the key's value before "
		    "the window", a);
	a = why_agg_lacking(c, AGF_ANYORDER);
	return why_not(why, "--%s: its result depends on the order of the "
	    "records", a != NULL ? a : "?");
}
