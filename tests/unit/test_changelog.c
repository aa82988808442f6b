/* Unit tests for changelog.c, the rows windows printed: against a model
 * (an array of what each (window, key) printed last and whether it may
 * print again), over enough keys that the table grows and is swept many
 * times, restored from its arena on the way (clog_check); a session's
 * absorbed rows; and what clog_check refuses. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "window/changelog.h"
#include "window/state.h"
#include "unit.h"

#define AT	8	/* the root's place in the driver's block */
#define NKEYS	3000
#define NWIN	64	/* windows of the model, 10 long, end 10 * (w + 1) */
#define ALLOWED	40

static char got[4096];
static size_t ngot;

static void
emit(void *arg, const char *op, const char *cells, size_t n)
{
	(void)arg;
	ngot += (size_t)snprintf(got + ngot, sizeof(got) - ngot, "%s %.*s;",
	    op, (int)n, cells);
}

static void
new_state(struct state *s, struct clog *cl, const struct config *c)
{
	memset(s, 0, sizeof(*s));
	if (st_init(s, 16, 16, AT + clog_size(c)) != 0)
		abort();
	clog_init(cl, c, s, AT);
}

static const char *
ext_ok(void *arg, const struct arena *a, void *ext, struct arena_claims *m)
{
	(void)arg;
	(void)a;
	(void)ext;
	(void)m;
	return NULL;
}

static const char *
acc_ok(void *arg, const struct arena *a, aoff acc, struct arena_claims *m)
{
	(void)arg;
	(void)a;
	(void)acc;
	(void)m;
	return NULL;
}

/* Takes s's arena as a restore does, into r. What s kept beside the
 * arena (a restore's checks of its own) is freed; the arena is r's. */
static const char *
restore(struct state *s, struct state *r, const struct config *c)
{
	static const struct st_checks ck = {
		.nkeyfields = 1, .acc_ok = acc_ok, .ext_ok = ext_ok,
	};
	struct arena a = s->a;
	struct state old = *s;

	memset(&old.a, 0, sizeof(old.a));
	st_fini(&old);
	s->lazy = NULL;
	s->pidx = NULL;
	memset(r, 0, sizeof(*r));
	return st_adopt(r, &a, arena_hdr(&a)->ah_used, 16, 16,
	    AT + clog_size(c), &ck);
}

/* The model: what (window w, key k) printed last, 0 when nothing kept. */
static uint32_t model[NWIN][NKEYS];

static void
test_model(void)
{
	struct config c;
	struct state s, r;
	struct clog cl;
	struct clog_row row;
	char key[16], cells[32], want[256];
	int64_t wm = 0;
	uint32_t version = 1;
	int i, w, k, lo, bad = 0, restores = 0;

	memset(&c, 0, sizeof(c));
	c.wkind = WK_TUMBLE;
	c.allowed = ALLOWED;
	c.changelog = 1;
	CHECK(clog_size(&c) == sizeof(struct clog_root));
	new_state(&s, &cl, &c);
	unit_rstate = 0x5eed0fc1a9;
	for (i = 0; i < 400000; i++) {
		/* the watermark moves on now and then */
		if (unit_below(2000) == 0 && wm < 10 * (NWIN - 1))
			wm += 1 + (int64_t)unit_below(5);
		/* a window that has ended and may still print: end <= wm <
		 * end + ALLOWED; or, as a partial row, one still open */
		lo = (int)((wm - ALLOWED) / 10);
		w = lo + (int)unit_below(6);
		if (w < 0 || w >= NWIN)
			continue;
		k = (int)unit_below(NKEYS);
		int64_t end = 10 * (int64_t)(w + 1);
		if (end + ALLOWED <= wm)
			continue;
		int final = end <= wm;
		snprintf(key, sizeof(key), "k%d", k);
		snprintf(cells, sizeof(cells), "%d.%u", k, version++);
		memset(&row, 0, sizeof(row));
		row.start = end - 10;
		row.end = end;
		row.has_bounds = 1;
		row.final = final;
		row.key = key;
		row.keylen = strlen(key);
		row.cells = cells;
		row.ncells_len = strlen(cells);
		if (model[w][k] != 0)
			snprintf(want, sizeof(want), "-U %d.%u;+U %s;", k,
			    model[w][k], cells);
		else
			snprintf(want, sizeof(want), "+I %s;", cells);
		ngot = 0;
		clog_print(&cl, wm, &row, emit, NULL);
		if (strcmp(got, want) != 0 && bad++ < 5)
			fprintf(stderr, "row %d: got %s want %s\n", i, got, want);
		model[w][k] = (!final || end + ALLOWED > wm) ? version - 1 : 0;
		/* now and then, a restore: the arena as a checkpoint holds it */
		if (i % 50000 == 49999) {
			CHECK(restore(&s, &r, &c) == NULL);
			s = r;
			cl.st = &s;
			CHECK(clog_check(&cl) == NULL);
			restores++;
		}
	}
	CHECK(bad == 0);
	CHECK(restores == 8);
	/* swept: the entries are those kept, and at most as many more
	 * again as sweeps let through (expired since the last one) */
	{
		const struct clog_root *root = (const struct clog_root *)
		    ((char *)st_globals(&s) + AT);
		uint64_t kept = 0;

		for (w = 0; w < NWIN; w++)
			for (k = 0; k < NKEYS; k++)
				kept += model[w][k] != 0 &&
				    10 * (int64_t)(w + 1) + ALLOWED > wm;
		CHECK(kept > 1024);
		CHECK(root->cr_n >= kept);
		CHECK(root->cr_n <= 2 * kept + 1024);
	}
	/* a damaged entry offset is found */
	{
		struct clog_root *root = (struct clog_root *)
		    ((char *)st_globals(&s) + AT);
		aoff *slot = arena_ptr(&s.a, root->cr_tab);
		uint64_t j;

		for (j = 0; j < root->cr_cap && slot[2 * j + 1] == 0; j++)
			;
		CHECK(j < root->cr_cap);
		slot[2 * j + 1] += 8;
		CHECK(restore(&s, &r, &c) == NULL);
		cl.st = &r;
		CHECK(clog_check(&cl) != NULL);
	}
	clog_fini(&cl);
	st_fini(&r);
}

/* A key's sessions: one that a merge absorbs is told -D. */
static void
test_sessions(void)
{
	struct config c;
	struct state s;
	struct clog cl;
	struct clog_row row;

	memset(&c, 0, sizeof(c));
	c.wkind = WK_SESSION;
	c.allowed = 100;
	c.sqlite = "db";
	new_state(&s, &cl, &c);
	memset(&row, 0, sizeof(row));
	row.has_bounds = row.final = 1;
	row.key = "a";
	row.keylen = 1;
#define ROW(s_, e_, text) do { row.start = (s_); row.end = (e_); \
	row.cells = (text); row.ncells_len = strlen(text); ngot = 0; \
	clog_print(&cl, 50, &row, emit, NULL); } while (0)
	ROW(1, 6, "1-6");
	CHECK_STR(got, "+I 1-6;");
	ROW(20, 25, "20-25");
	CHECK_STR(got, "+I 20-25;");
	ROW(20, 25, "20-25b");
	CHECK_STR(got, "-U 20-25;+U 20-25b;");
	ROW(1, 30, "1-30");
	CHECK_STR(got, "-D 1-6;-D 20-25b;+I 1-30;");
	ngot = 0;
	got[0] = '\0';
	clog_gone(&cl, &row, emit, NULL);
	CHECK_STR(got, "-D 1-30;");
	ROW(1, 30, "again");
	CHECK_STR(got, "+I again;");
	clog_fini(&cl);
	st_fini(&s);

	/* a key's sessions that can print no more leave its entry when it
	 * is rebuilt (an entry per key is not swept while it lives) */
	c.allowed = 10;
	new_state(&s, &cl, &c);
	ROW(30, 45, "30-45");		/* at 50: 45 + 10 > 50, kept */
	row.start = 46;
	row.end = 48;
	row.cells = "46-48";
	row.ncells_len = 5;
	ngot = 0;
	clog_print(&cl, 56, &row, emit, NULL);	/* 45 + 10 <= 56: dropped */
	CHECK_STR(got, "+I 46-48;");
	row.start = 30;
	row.end = 45;
	ngot = 0;
	clog_gone(&cl, &row, emit, NULL);
	CHECK(ngot == 0);
	clog_fini(&cl);
	st_fini(&s);
}

/* Rows that never print twice keep nothing: every one is +I. */
static void
test_none(void)
{
	struct config c;
	struct state s;
	struct clog cl;
	struct clog_row row;

	memset(&c, 0, sizeof(c));
	c.wkind = WK_TUMBLE;
	c.changelog = 1;
	CHECK(clog_size(&c) == 0);
	new_state(&s, &cl, &c);
	memset(&row, 0, sizeof(row));
	row.key = "a";
	row.keylen = 1;
	row.cells = "x";
	row.ncells_len = 1;
	ngot = 0;
	clog_print(&cl, 0, &row, emit, NULL);
	clog_print(&cl, 0, &row, emit, NULL);
	CHECK_STR(got, "+I x;+I x;");
	c.wkind = WK_COUNT;
	c.allowed = 5;
	CHECK(clog_size(&c) == 0);
	c.wkind = WK_NONE;
	CHECK(clog_size(&c) != 0);
	c.changelog = 0;
	CHECK(clog_size(&c) == 0);
	st_fini(&s);
}

int
main(void)
{
	test_model();
	test_sessions();
	test_none();
	return unit_done("changelog");
}
