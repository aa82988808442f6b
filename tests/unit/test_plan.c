/* plan.c: over random pipelines, the planner's choice keeps its
 * promises (fwin(1): THE PLAN): it chooses a strategy that can run the
 * pipeline, the first of its mode's order that can; the other mode's
 * strategies are all rejected; ordered runs every stream, straight and
 * sorted every batch; halves only where the table of its mode could;
 * FWIN_STRATEGY forces a strategy that fits and is refused, with the
 * reason, for one that does not; a strategy whose state is not all the
 * operator's is never possible with a checkpoint. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "window/agg.h"
#include "pipeline/config.h"
#include "exec/exec.h"
#include "exec/plan.h"
#include "unit.h"

static const char *const aggnames[] = {
	"count", "sum", "avg", "min", "max", "first", "last", "distinct",
	"median", "stddev",
};
static const enum wkind kinds[] = {
	WK_NONE, WK_TUMBLE, WK_SLIDE, WK_SESSION, WK_COUNT, WK_CUMULATE,
	WK_GLOBAL,
};

/* A pipeline drawn at random over the regular file *file. */
static void
draw(struct config *c, struct aggspec *aggs, char **file)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->flush = unit_below(4) == 0 ? 0 : -1;
	c->has_time = unit_below(5) != 0;
	c->wkind = kinds[unit_below(sizeof(kinds) / sizeof(kinds[0]))];
	c->size = c->step = 60000000000LL;
	c->naggs = 1 + unit_below(2);
	for (i = 0; i < c->naggs; i++) {
		memset(&aggs[i], 0, sizeof(aggs[i]));
		aggs[i].op = agg_lookup(aggnames[unit_below(
		    sizeof(aggnames) / sizeof(aggnames[0]))]);
	}
	c->aggs = aggs;
	c->fill = unit_below(8) == 0;
	c->top_n = unit_below(8) == 0;
	c->allowed = unit_below(8) == 0;
	c->max_memory = unit_below(6) == 0 ? 1 << 26 : 0;
	c->late_file = unit_below(6) == 0 ? "late" : NULL;
	c->checkpoint = unit_below(8) == 0 ? "ck" : NULL;
	c->threads = 1 + (unsigned)unit_below(4);
	c->mode = unit_below(2) ? MODE_BATCH : MODE_STREAM;
	c->files = file;
	c->nfiles = 1;
}

static void
promises(const struct config *c, const struct plan *p)
{
	static const enum strategy stream[] = {
		ST_HALVES, ST_STREAMTABLE, ST_KEYED, ST_ORDERED,
	}, batch[] = {
		ST_HALVES, ST_TABLE, ST_STRAIGHT, ST_SORTED,
	};
	const enum strategy *order = p->pl_mode == MODE_BATCH ? batch : stream;
	int i;

	CHECK(p->pl_why[p->pl_strategy][0] == '\0');
	for (i = 0; order[i] != p->pl_strategy; i++)
		CHECK(p->pl_why[order[i]][0] != '\0');
	if (p->pl_mode == MODE_BATCH) {
		CHECK(p->pl_why[ST_ORDERED][0] != '\0');
		CHECK(p->pl_why[ST_KEYED][0] != '\0');
		CHECK(p->pl_why[ST_STREAMTABLE][0] != '\0');
		CHECK(p->pl_why[ST_STRAIGHT][0] == '\0');
		CHECK(p->pl_why[ST_SORTED][0] == '\0');
		CHECK(p->pl_why[ST_HALVES][0] != '\0' ||
		    p->pl_why[ST_TABLE][0] == '\0');
	} else {
		CHECK(p->pl_why[ST_TABLE][0] != '\0');
		CHECK(p->pl_why[ST_STRAIGHT][0] != '\0');
		CHECK(p->pl_why[ST_SORTED][0] != '\0');
		CHECK(p->pl_why[ST_ORDERED][0] == '\0');
		CHECK(p->pl_why[ST_HALVES][0] != '\0' ||
		    p->pl_why[ST_STREAMTABLE][0] == '\0');
		/* keyed: never with a checkpoint or fewer than 3 threads */
		if (c->checkpoint != NULL || c->threads < 3)
			CHECK(p->pl_why[ST_KEYED][0] != '\0');
	}
	if (c->threads < 2)
		CHECK(p->pl_why[ST_HALVES][0] != '\0');
	/* a checkpoint holds the operator's state only: a strategy with
	 * state of its own (exec.h) is never possible with one */
	for (i = 0; i < ST_N; i++)
		if (c->checkpoint != NULL && !ex_methods(i)->checkpoints)
			CHECK(p->pl_why[i][0] != '\0');
	/* and each one's methods are the strategy the plan names */
	for (i = 0; i < ST_N; i++)
		CHECK(ex_methods(i)->id == (enum strategy)i &&
		    strcmp(ex_methods(i)->name, plan_name(i)) == 0);
}

/* FWIN_STRATEGY=each name: forced where it fits, refused where not. */
static void
forcing(const struct config *c, const struct plan *planned)
{
	struct plan p;
	char err[2 * PLAN_WHY];
	int s;

	for (s = 0; s < ST_N; s++) {
		p = *planned;
		setenv("FWIN_STRATEGY", plan_name((enum strategy)s), 1);
		if (planned->pl_why[s][0] == '\0') {
			CHECK(plan_make(c, &p, err, sizeof(err)) == 0);
			CHECK(p.pl_strategy == (enum strategy)s && p.pl_forced);
		} else {
			CHECK(plan_make(c, &p, err, sizeof(err)) == -1);
			CHECK(strstr(err, planned->pl_why[s]) != NULL);
			setenv("FWIN_STRATEGY_SOFT", "1", 1);
			CHECK(plan_make(c, &p, err, sizeof(err)) == 0);
			CHECK(p.pl_strategy == planned->pl_strategy &&
			    !p.pl_forced);
			unsetenv("FWIN_STRATEGY_SOFT");
		}
	}
	setenv("FWIN_STRATEGY", "quick", 1);
	p = *planned;
	CHECK(plan_make(c, &p, err, sizeof(err)) == -1);
	CHECK(strstr(err, "unknown strategy 'quick'") != NULL);
	unsetenv("FWIN_STRATEGY");
}

int
main(void)
{
	char path[] = "/tmp/fwin-plan-XXXXXX", *file = path;
	static char big[300 << 10];
	struct aggspec aggs[2];
	struct config c;
	struct plan p;
	char err[2 * PLAN_WHY];
	int fd, i, halves = 0, keyed = 0;

	unsetenv("FWIN_STRATEGY");
	unsetenv("FWIN_STRATEGY_SOFT");
	unit_rstate = 0x706c616e;	/* "plan" */
	if ((fd = mkstemp(path)) < 0 || write(fd, big, sizeof(big)) !=
	    (ssize_t)sizeof(big)) {
		perror(path);
		return 1;
	}
	close(fd);
	for (i = 0; i < 3000; i++) {
		draw(&c, aggs, &file);
		if (c.mode == MODE_BATCH && (!c.has_time || c.checkpoint ||
		    c.late_file || c.allowed))
			continue;	/* (usage errors, said by cli.c) */
		memset(&p, 0, sizeof(p));
		plan_mode(&c, NULL, &p);
		CHECK(plan_make(&c, &p, err, sizeof(err)) == 0);
		promises(&c, &p);
		forcing(&c, &p);
		halves += p.pl_strategy == ST_HALVES;
		keyed += p.pl_strategy == ST_KEYED;
	}
	/* (the draws reach the strategies that need most) */
	CHECK(halves > 0 && keyed > 0);
	unlink(path);
	return unit_done("plan");
}
