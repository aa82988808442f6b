/* sink.c, the row sink: the rows a window operator fires, written to an
 * -o FILE in the run's time format; a sink like it (a key-group
 * worker's) writes the same bytes into memory, which the first then
 * writes as they are; rows skipped (a table that gave up wrote them) and
 * a halt (no row after it); changelog ops kept in each sink's own state,
 * a window printed again told as -U then +U. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flow/sink.h"
#include "io/keycodec.h"
#include "window/agg.h"
#include "window/operator.h"
#include "unit.h"

#define S	1000000000LL	/* a second, in ns */

static char path[] = "/tmp/fwin-test-sink-XXXXXX";

/* The operator's row callback: to whichever sink is current. */
static struct sink *cur;

static void
to_cur(void *arg, const struct op_row *row)
{
	(void)arg;
	sink_row(cur, row);
}

/* A pipeline: -k 2 --tumble 10s --count -o path, times in seconds;
 * allowed lateness (0: none) and --changelog as asked. */
static void
pipeline(struct config *c, struct aggspec *a, int64_t allowed, int clog)
{
	memset(c, 0, sizeof(*c));
	memset(a, 0, sizeof(*a));
	a->op = agg_lookup("count");
	c->aggs = a;
	c->naggs = 1;
	c->nkeys = 1;
	c->has_time = 1;
	c->delim = -1;
	c->wkind = WK_TUMBLE;
	c->size = c->step = 10 * S;
	c->usize.n = c->ustep.n = 10 * S;
	c->out_time = TF_S;
	c->allowed = allowed;
	c->changelog = clog;
	c->output = path;
	c->threads = 1;
}

static struct op *
operator(const struct config *c, struct aggs *g)
{
	struct op *op = op_new(c, g, to_cur, NULL);

	if (op_init_state(op) != 0)
		abort();
	return op;
}

static void
record(struct op *op, const char *key, int64_t secs)
{
	struct op_rec r;
	struct aval v;

	memset(&v, 0, sizeof(v));
	r.key = key;
	r.keylen = strlen(key);
	r.hash = key_hash(key, r.keylen);
	r.padded = 0;
	r.t = secs * S;
	r.vals = &v;
	if (op_record(op, &r) == OP_ADDED && r.t > op_globals(op)->g_wm)
		op_advance(op, r.t);	/* (lateness 0) */
}

/* What path holds (at most 4095 bytes). */
static const char *
file_text(void)
{
	static char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static struct sink *
open_sink(struct config *c, struct op *op)
{
	struct sink_spec sp;
	struct sink *s;

	memset(&sp, 0, sizeof(sp));
	sp.c = c;
	sp.st = op_state(op);
	sp.has_bounds = op_has_bounds(op);
	CHECK(sink_open(&sp, &s) == 0);
	return s;
}

/* The same records through the driver's sink, and through a sink like
 * it into memory whose rows the driver's then writes: the same bytes. */
static void
test_like(void)
{
	static const char want[] =
	    "0\t10\ta\t2\n0\t10\tb\t1\n10\t20\ta\t1\n";
	struct config c;
	struct aggspec a;
	struct aggs *g;
	struct op *op;
	struct sink *s, *w;
	struct out *mem;
	const char *p;
	size_t n;

	pipeline(&c, &a, 0, 0);
	g = aggs_new(&c);
	op = operator(&c, g);
	cur = s = open_sink(&c, op);
	CHECK(sink_timefmt(s) == TF_S);
	CHECK(sink_fd(s) > 2);
	CHECK_STR(sink_name(s), path);
	record(op, "a", 1);
	record(op, "b", 2);
	record(op, "a", 3);
	record(op, "a", 12);
	op_end(op, 1);
	CHECK(sink_close(s) == 0);
	CHECK_STR(file_text(), want);
	op_free(op);

	CHECK(truncate(path, 0) == 0);
	op = operator(&c, g);
	s = open_sink(&c, op);
	mem = sink_output_like(s, -1);
	cur = w = sink_like(s, mem);
	sink_set_state(w, op_state(op));
	record(op, "a", 1);
	record(op, "b", 2);
	record(op, "a", 3);
	record(op, "a", 12);
	op_end(op, 1);
	p = out_buffered(mem, &n);
	CHECK(n == strlen(want) && memcmp(p, want, n) == 0);
	CHECK_STR(file_text(), "");	/* (nothing yet) */
	out_rows(sink_out(s), p, n);
	CHECK(sink_close(w) == 0);
	(void)out_close(mem);
	CHECK(sink_close(s) == 0);
	CHECK_STR(file_text(), want);
	op_free(op);
	aggs_free(g);
}

/* Rows skipped, then a halt: the rows before it are written, none
 * after; a like sink takes the time format it had when made. */
static void
test_skip_halt(void)
{
	struct config c;
	struct aggspec a;
	struct aggs *g;
	struct op *op;
	struct sink *s, *w;
	struct out *mem;
	const char *p;
	size_t n;

	CHECK(truncate(path, 0) == 0);
	pipeline(&c, &a, 0, 0);
	c.out_time = TF_AUTO;
	g = aggs_new(&c);
	op = operator(&c, g);
	op_globals(op)->g_timefmt = TF_AUTO;	/* (not seen yet) */
	cur = s = open_sink(&c, op);
	CHECK(sink_timefmt(s) == TF_AUTO);
	sink_set_timefmt(s, TF_MS);
	mem = sink_output_like(s, -1);
	w = sink_like(s, mem);
	sink_set_timefmt(s, TF_S);
	sink_skip(s, 2);
	record(op, "a", 1);
	record(op, "b", 11);
	record(op, "c", 21);
	record(op, "d", 31);	/* a (skipped), b (skipped), c fire */
	sink_halt(s);
	record(op, "e", 41);	/* (fires d: dropped) */
	op_end(op, 1);		/* (e: dropped) */
	CHECK(sink_close(s) == 0);
	CHECK_STR(file_text(), "20\t30\tc\t1\n");
	op_free(op);
	op = operator(&c, g);
	cur = w;
	sink_set_state(w, op_state(op));
	record(op, "f", 51);
	op_end(op, 1);		/* (its bounds in ms) */
	p = out_buffered(mem, &n);
	CHECK(n == 16 && memcmp(p, "50000\t60000\tf\t1\n", 16) == 0);
	CHECK(sink_close(w) == 0);
	(void)out_close(mem);
	op_free(op);
	aggs_free(g);
}

/* --changelog with allowed lateness: a window printed again is -U with
 * the row it printed, then +U; a like sink keeps what its windows
 * printed in its own operator's state. */
static void
test_changelog(void)
{
	static const char want[] =
	    "+I\t0\t10\ta\t1\n-U\t0\t10\ta\t1\n+U\t0\t10\ta\t2\n";
	struct config c;
	struct aggspec a;
	struct aggs *g;
	struct op *op, *op2;
	struct sink *s, *w;
	struct out *mem;
	const char *p;
	size_t n;

	CHECK(truncate(path, 0) == 0);
	pipeline(&c, &a, 60 * S, 1);
	g = aggs_new(&c);
	op = operator(&c, g);
	op2 = operator(&c, g);
	s = open_sink(&c, op);
	mem = sink_output_like(s, -1);
	w = sink_like(s, mem);
	sink_set_state(w, op_state(op2));
	cur = s;
	record(op, "a", 1);
	record(op, "a", 15);	/* fires [0, 10) */
	record(op, "a", 2);	/* late, allowed: fires it again */
	cur = w;
	record(op2, "a", 1);
	record(op2, "a", 15);
	record(op2, "a", 2);
	p = out_buffered(mem, &n);
	CHECK(n == strlen(want) && memcmp(p, want, n) == 0);
	CHECK(sink_close(s) == 0);
	CHECK_STR(file_text(), want);
	CHECK(sink_close(w) == 0);
	(void)out_close(mem);
	op_free(op);
	op_free(op2);
	aggs_free(g);
}

int
main(void)
{
	int fd = mkstemp(path);

	if (fd < 0)
		return 1;
	close(fd);
	test_like();
	test_skip_halt();
	test_changelog();
	unlink(path);
	return unit_done("sink");
}
