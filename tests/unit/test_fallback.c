/* fallback.c and the strategies behind exec.h: a strategy that gives up
 * hands its records to the next one with the bytes of a strategy that
 * never gave up. The stream table past its budget gives up to the
 * operator (the rows it wrote are skipped, its count of rows fired taken
 * back); batch mode's table, when a record comes out of time order by a
 * window, to the table in any order, and that past its budget to sorted;
 * straight on a pipe to sorted with the records it kept, and on FILEs to
 * sorted with the FILEs read again; in time order, straight and the
 * table hold their rows to the end and give up nothing. The rows go to
 * an -o FILE through the row sink, as the driver writes them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/exec.h"
#include "flow/parse.h"
#include "flow/sink.h"
#include "flow/source.h"
#include "io/input.h"
#include "io/keycodec.h"
#include "pipeline/config.h"
#include "window/agg.h"
#include "base/util.h"
#include "unit.h"

#define NREC 20000
#define MS 1000000LL

static char inpath[] = "/tmp/fwin-test-fallback-in-XXXXXX";
static char outpath[] = "/tmp/fwin-test-fallback-out-XXXXXX";
static char *files[1] = { inpath };

static struct config c;
static struct fieldref key;
static struct aggspec aggs[2];

enum { IN_ORDER, NEAR_ORDER, DISORDERED, GROWING };

/* NREC records "T,kK,V" over about 20 minutes, 40 keys: in time order;
 * near it (each up to 2 s behind); disordered (besides, one in 500 up
 * to 3 minutes behind: out of order by more than a 1-minute window); or
 * near order, its second half a new key each record. */
static void
make_data(int how)
{
	FILE *f = fopen(inpath, "w");
	uint64_t k, v;
	int64_t t;
	long i;

	unit_rstate = 0x66616c6c6261636bull + (uint64_t)how;
	for (i = 0; i < NREC; i++) {
		t = 1700000000000LL + i * 60;
		if (how != IN_ORDER)
			t -= (int64_t)unit_below(2000);
		if (how == DISORDERED && unit_below(500) == 0)
			t -= (int64_t)unit_below(180000);
		k = how == GROWING && i >= NREC / 2 ? (uint64_t)i :
		    unit_below(40);
		v = unit_below(1000);
		fprintf(f, "%lld,k%llu,%llu\n", (long long)t,
		    (unsigned long long)k, (unsigned long long)v);
	}
	fclose(f);
}

/* -t 1 -k 2 --tumble 1m --count and agg of field 3 (sum: its table
 * spills; distinct: its table cannot), in mode, -o outpath. */
static void
pipeline(enum runmode mode, const char *agg)
{
	memset(&c, 0, sizeof(c));
	memset(&key, 0, sizeof(key));
	memset(aggs, 0, sizeof(aggs));
	c.fmt = IF_CSV;
	c.delim = -1;
	key.spec = "2";
	c.keys = &key;
	c.nkeys = 1;
	c.has_time = 1;
	c.time.spec = "1";
	c.time_fmt = TF_MS;
	c.out_time = TF_MS;
	c.wkind = WK_TUMBLE;
	c.size = c.step = 60000 * MS;
	c.usize.n = c.ustep.n = c.size;
	c.lateness = mode == MODE_STREAM ? 5000 * MS : 0;
	aggs[0].op = agg_lookup("count");
	aggs[1].op = agg_lookup(agg);
	aggs[1].f.spec = "3";
	c.aggs = aggs;
	c.naggs = 2;
	c.files = files;
	c.nfiles = 1;
	c.output = outpath;
	c.threads = 1;
	c.flush = -1;
	c.mode = mode;
	CHECK(config_resolve(&c, NULL, 0) == 0);
}

/* The driver, as small as it can be: what exec.h asks of it. */
struct drv {
	uint64_t emitted;	/* rows that reached the sink */
	struct exec x;
	struct plan plan;
	struct aggs *g;
	struct op *op;
	struct sink *sink;
};

static void
on_row(void *arg, const struct op_row *row)
{
	struct drv *d = arg;

	d->emitted++;
	sink_row(d->sink, row);
}

/* The watermark follows the largest time, less -l. */
static void
drv_time(void *arg, int64_t t)
{
	struct drv *d = arg;
	struct op_globals *G = op_globals(d->op);
	int64_t w;

	if (t <= G->g_maxt)
		return;
	G->g_maxt = t;
	w = sat_add(t, -c.lateness);
	if (w > G->g_wm)
		exec_advance(&d->x, w, t);
}

static void
drv_late(void *arg, uint64_t n, int64_t by)
{
	(void)by;
	op_globals(((struct drv *)arg)->op)->g_late += n;
}

static void
drv_filtered(void *arg, uint64_t n)
{
	(void)arg;
	(void)n;
}

static int
drv_stopped(void *arg)
{
	(void)arg;
	return 0;
}

static void
drv_operator(struct drv *d)
{
	d->op = op_new(&c, d->g, on_row, d);
	if (op_init_state(d->op) != 0)
		abort();
	op_globals(d->op)->g_timefmt = c.time_fmt;
}

static void
drv_renew(void *arg)
{
	struct drv *d = arg;
	struct op_globals kept = *op_globals(d->op);

	op_free(d->op);
	drv_operator(d);
	op_globals(d->op)->g_read = kept.g_read;
	op_globals(d->op)->g_bad = kept.g_bad;
	sink_set_state(d->sink, op_state(d->op));
	d->x.env.op = d->op;
}

static int
drv_solo(void *arg)
{
	(void)arg;
	return 1;	/* (one thread: nothing read ahead) */
}

static void
drv_threaded(void *arg)
{
	(void)arg;
}

/* What a run did: its rows, the strategy it ended with, the rows the
 * counters say it fired. */
struct result {
	char *rows;
	size_t len;
	enum strategy last;
	uint64_t fired, emitted;
	char how[64];		/* --stats' words: ", in time order" ... */
};

static void
slurp(struct result *res)
{
	FILE *f = fopen(outpath, "r");
	size_t cap = 1 << 20, n;

	res->rows = xmalloc(cap);
	res->len = 0;
	while ((n = fread(res->rows + res->len, 1, cap - res->len, f)) > 0)
		if ((res->len += n) == cap)
			res->rows = xrealloc(res->rows, cap *= 2);
	fclose(f);
}

/* The pipeline run by strategy s (memory: its budget; rereadable: the
 * FILEs may be read again, else they count as a pipe). */
static void
run(enum strategy s, uint64_t memory, int rereadable, struct result *res)
{
	struct input_opts io = { .fmt = c.fmt, .delim = c.delim };
	struct drv d;
	struct ex_env *e = &d.x.env;
	struct sink_spec sp;
	struct input *in;
	struct aggs *pg = aggs_new(&c);
	struct parser *p;
	struct source *src;
	const struct parsed *pr;
	struct op_rec orec;
	struct ex_size z;
	uint64_t nbad = 0;

	memset(&d, 0, sizeof(d));
	unlink(outpath);
	d.g = aggs_new(&c);
	drv_operator(&d);
	memset(&sp, 0, sizeof(sp));
	sp.c = &c;
	sp.st = op_state(d.op);
	sp.has_bounds = 1;
	CHECK(sink_open(&sp, &d.sink) == 0);
	sink_set_timefmt(d.sink, TF_MS);
	in = input_open(c.files, c.nfiles, &io);
	parse_fields(&c, in);
	p = parser_new(&c, pg, c.time_fmt, 1, c.mode == MODE_STREAM);
	src = source_input(&c, in, p);
	d.plan.pl_mode = c.mode;
	d.plan.pl_strategy = s;
	d.plan.pl_threads = 1;
	d.plan.pl_memory = memory;
	d.plan.pl_rereadable = rereadable;
	e->c = &c;
	e->plan = &d.plan;
	e->g = d.g;
	e->op = d.op;
	e->in = in;
	e->source = src;
	e->sink = d.sink;
	e->row = on_row;
	e->arg = &d;
	e->time = drv_time;
	e->found_late = drv_late;
	e->filtered = drv_filtered;
	e->stopped = drv_stopped;
	e->renew = drv_renew;
	e->solo = drv_solo;
	e->threaded = drv_threaded;
	exec_open(&d.x);
	while (source_next(src, &pr) == SOURCE_RECORD) {
		op_globals(d.op)->g_read++;
		if (pr->kind != PR_RECORD) {
			nbad++;
			continue;
		}
		parsed_op_rec(pr, &orec);
		switch (exec_record(&d.x, pr, &orec)) {
		case EX_ADDED:
		case EX_NOWIN:
			drv_time(&d, orec.t);
			break;
		case EX_FAIL:
		case EX_RANGE:
			CHECK(0);
			break;
		}
	}
	CHECK(nbad == 0);
	CHECK(exec_finish(&d.x, 1, 0) == 0);
	res->last = d.x.m->id;
	res->fired = op_globals(d.op)->g_fired;
	res->emitted = d.emitted;
	memset(&z, 0, sizeof(z));
	exec_size(&d.x, &z, 0);
	memcpy(res->how, z.how, sizeof(res->how));
	exec_close(&d.x);
	CHECK(sink_close(d.sink) == 0);
	source_free(src);
	input_close(in);
	parser_free(p);
	op_free(d.op);
	aggs_free(d.g);
	aggs_free(pg);
	slurp(res);
}

static void
same(const struct result *a, const struct result *b)
{
	CHECK(a->len > 0 && a->len == b->len &&
	    memcmp(a->rows, b->rows, a->len) == 0);
	CHECK(a->fired == b->fired);
}

/* A stream whose windows hold more keys as it goes: the table, past a
 * budget of 128 KB, gives up to the operator when it has written rows,
 * which the operator fires again, skipped. */
static void
stream_table(void)
{
	struct result want, got;

	pipeline(MODE_STREAM, "sum");
	run(ST_ORDERED, 0, 1, &want);
	CHECK(want.last == ST_ORDERED);
	setenv("FWIN_TABLE_BUDGET", "131072", 1);
	run(ST_STREAMTABLE, 0, 1, &got);
	CHECK(got.last == ST_ORDERED);
	CHECK(got.emitted > want.emitted);	/* (rows skipped) */
	same(&got, &want);
	free(got.rows);
	unsetenv("FWIN_TABLE_BUDGET");
	run(ST_STREAMTABLE, 0, 1, &got);	/* (with room) */
	CHECK(got.last == ST_STREAMTABLE);
	same(&got, &want);
	free(got.rows);
	free(want.rows);
}

/* A batch out of time order: each strategy gives up, down to sorted
 * where the table cannot spill. */
static void
batch_disordered(void)
{
	struct result want, got;

	pipeline(MODE_BATCH, "distinct");
	run(ST_SORTED, 1 << 30, 1, &want);
	CHECK(want.last == ST_SORTED);
	run(ST_TABLE, 1 << 30, 1, &got);	/* in any order */
	CHECK(got.last == ST_TABLE);
	CHECK_STR(got.how, ", aggregated as read");
	same(&got, &want);
	free(got.rows);
	run(ST_TABLE, 1 << 18, 1, &got);	/* full: sorted */
	CHECK(got.last == ST_SORTED);
	same(&got, &want);
	free(got.rows);
	run(ST_STRAIGHT, 1 << 30, 0, &got);	/* kept, as from a pipe */
	CHECK(got.last == ST_SORTED);
	same(&got, &want);
	free(got.rows);
	run(ST_STRAIGHT, 1 << 30, 1, &got);	/* the FILEs read again */
	CHECK(got.last == ST_SORTED);
	same(&got, &want);
	free(got.rows);
	free(want.rows);
}

/* A batch near time order (no record behind by a window): the table
 * takes it in time order, its rows held to the end; straight gives up
 * at the first record out of order. */
static void
batch_near_order(void)
{
	struct result want, got;

	pipeline(MODE_BATCH, "sum");
	run(ST_SORTED, 1 << 30, 1, &want);
	run(ST_TABLE, 1 << 30, 1, &got);
	CHECK(got.last == ST_TABLE);
	CHECK_STR(got.how, ", in time order");
	same(&got, &want);
	free(got.rows);
	run(ST_STRAIGHT, 1 << 30, 0, &got);
	CHECK(got.last == ST_SORTED);
	same(&got, &want);
	free(got.rows);
	free(want.rows);
}

/* In time order: straight and the table give up nothing. */
static void
batch_in_order(void)
{
	struct result want, got;

	pipeline(MODE_BATCH, "sum");
	run(ST_SORTED, 1 << 30, 1, &want);
	run(ST_STRAIGHT, 1 << 30, 0, &got);
	CHECK(got.last == ST_STRAIGHT);
	CHECK_STR(got.how, ", in time order");
	same(&got, &want);
	free(got.rows);
	run(ST_TABLE, 1 << 30, 1, &got);
	CHECK(got.last == ST_TABLE);
	CHECK_STR(got.how, ", in time order");
	same(&got, &want);
	free(got.rows);
	free(want.rows);
}

int
main(void)
{
	int fd;

	if ((fd = mkstemp(inpath)) < 0 || close(fd) != 0 ||
	    (fd = mkstemp(outpath)) < 0 || close(fd) != 0) {
		perror("mkstemp");
		return 1;
	}
	unsetenv("FWIN_TABLE_BUDGET");
	make_data(GROWING);
	stream_table();
	make_data(DISORDERED);
	batch_disordered();
	make_data(NEAR_ORDER);
	batch_near_order();
	make_data(IN_ORDER);
	batch_in_order();
	unlink(inpath);
	unlink(outpath);
	return unit_done("fallback");
}
