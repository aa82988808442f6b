/* changelog: the rows windows printed, while they may print again; see
 * changelog.h.
 *
 * In the arena, behind the driver's block: struct clog_root, then an
 * open-addressing table (linear probing, at most half full, deletion by
 * backward shift) of struct clog_slot, each naming one block:
 *
 *	struct clog_entry | key bytes, padded to 8 |
 *	ce_nrows × (struct clog_kept | its cells, padded to 8)
 *
 * An entry is rebuilt whole when a row of it changes (a block of the
 * new size, the old one freed): rows print again far less often than
 * records come, and an entry holds one row but for a key's sessions. */
#include <stdlib.h>
#include <string.h>

#include "window/changelog.h"
#include "io/keycodec.h"
#include "base/util.h"

struct clog_slot {
	uint64_t cs_hash;
	aoff cs_entry;		/* 0: empty */
};
ARENA_LAYOUT(struct clog_slot, 16);

struct clog_entry {
	int64_t ce_start, ce_end;	/* windows on a grid: the bounds */
	uint64_t ce_hash;		/* of the identity (slot's) */
	uint64_t ce_size;		/* bytes of the block */
	uint32_t ce_keylen;
	uint32_t ce_nrows;
};
ARENA_LAYOUT(struct clog_entry, 40);

struct clog_kept {
	int64_t ck_start, ck_end;
	uint64_t ck_len;	/* bytes of cells that follow */
};
ARENA_LAYOUT(struct clog_kept, 24);

enum { CLK_NONE, CLK_GRID, CLK_SESSION, CLK_GLOBAL, CLK_ROLLING };

#define SWEEP_MIN	1024

static size_t
pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

size_t
clog_size(const struct config *c)
{
	if (!c->changelog && c->sqlite == NULL)
		return 0;
	if (c->wkind == WK_COUNT)
		return 0;
	if (c->wkind != WK_NONE && c->allowed <= 0 && c->emit_every <= 0)
		return 0;
	return sizeof(struct clog_root);
}

void
clog_fini(struct clog *cl)
{
	free(cl->buf);
	free(cl->key);
	cl->buf = cl->key = NULL;
	cl->len = cl->cap = cl->keycap = 0;
}

void
clog_init(struct clog *cl, const struct config *c, struct state *st,
    size_t at)
{
	memset(cl, 0, sizeof(*cl));
	cl->c = c;
	cl->st = st;
	cl->at = at;
	switch (c->wkind) {
	case WK_TUMBLE:
	case WK_SLIDE:
	case WK_CUMULATE:
		cl->kind = CLK_GRID;
		break;
	case WK_SESSION:
		cl->kind = CLK_SESSION;
		break;
	case WK_GLOBAL:
		cl->kind = CLK_GLOBAL;
		break;
	case WK_NONE:
		cl->kind = CLK_ROLLING;
		break;
	default:
		cl->kind = CLK_NONE;
		break;
	}
	if (clog_size(c) == 0)
		cl->kind = CLK_NONE;
}

static struct clog_root *
root(const struct clog *cl)
{
	return (struct clog_root *)((char *)st_globals(cl->st) + cl->at);
}

static struct arena *
ar(const struct clog *cl)
{
	return &cl->st->a;
}

static struct clog_slot *
slots(const struct clog *cl)
{
	return arena_ptr(ar(cl), root(cl)->cr_tab);
}

static struct clog_entry *
entry(const struct clog *cl, aoff e)
{
	return arena_ptr(ar(cl), e);
}

static const char *
entry_key(const struct clog_entry *e)
{
	return (const char *)(e + 1);
}

/* The first kept row of e. */
static const struct clog_kept *
first_kept(const struct clog_entry *e)
{
	return (const struct clog_kept *)(entry_key(e) + pad8(e->ce_keylen));
}

static const struct clog_kept *
next_kept(const struct clog_kept *k)
{
	return (const struct clog_kept *)((const char *)(k + 1) +
	    pad8(k->ck_len));
}

/* The identity's bounds: a grid window's own, else none. */
static void
ident(const struct clog *cl, const struct clog_row *row, int64_t *s,
    int64_t *e)
{
	*s = cl->kind == CLK_GRID ? row->start : 0;
	*e = cl->kind == CLK_GRID ? row->end : 0;
}

static uint64_t
ident_hash(const char *key, size_t keylen, int64_t s, int64_t e)
{
	uint64_t h = key_hash(key, keylen);

	h ^= (uint64_t)s * 0x9e3779b97f4a7c15u;
	h ^= (uint64_t)e * 0xc2b2ae3d27d4eb4fu;
	return h ^ (h >> 29);
}

/* The slot of the entry of (key, s, e), or the empty slot where it
 * would go. */
static uint64_t
probe(const struct clog *cl, uint64_t h, const char *key, size_t keylen,
    int64_t s, int64_t e)
{
	const struct clog_root *r = root(cl);
	const struct clog_slot *t = slots(cl);
	const struct clog_entry *en;
	uint64_t mask = r->cr_cap - 1, i;

	for (i = h & mask; t[i].cs_entry != 0; i = (i + 1) & mask) {
		if (t[i].cs_hash != h)
			continue;
		en = entry(cl, t[i].cs_entry);
		if (en->ce_start == s && en->ce_end == e &&
		    en->ce_keylen == keylen &&
		    memcmp(entry_key(en), key, keylen) == 0)
			return i;
	}
	return i;
}

/* Puts slot value v into a table of cap slots at tab (no entry of it
 * there yet). */
static void
place(struct clog_slot *tab, uint64_t cap, struct clog_slot v)
{
	uint64_t i;

	for (i = v.cs_hash & (cap - 1); tab[i].cs_entry != 0;
	    i = (i + 1) & (cap - 1))
		;
	tab[i] = v;
}

/* Moves the slots to a new table of cap slots. */
static void
rebuild_table(struct clog *cl, uint64_t cap)
{
	struct arena *a = ar(cl);
	aoff nt = arena_alloc(a, cap * sizeof(struct clog_slot));
	struct clog_root *r = root(cl);
	uint64_t i, n = 0, ocap = r->cr_cap;
	aoff ot = r->cr_tab;
	struct clog_slot s;

	for (i = 0; i < ocap; i++) {
		s = ((struct clog_slot *)arena_ptr(a, ot))[i];
		if (s.cs_entry == 0)
			continue;
		place(arena_ptr(a, nt), cap, s);
		n++;
	}
	if (ot != 0)
		arena_free(a, ot, ocap * sizeof(struct clog_slot));
	r = root(cl);
	r->cr_tab = nt;
	r->cr_cap = cap;
	r->cr_n = n;
}

/* Empties slot i, shifting back the slots after it that probed past it. */
static void
unslot(struct clog *cl, uint64_t i)
{
	struct clog_slot *t = slots(cl);
	struct clog_root *r = root(cl);
	uint64_t mask = r->cr_cap - 1, j = i, home;

	t[i].cs_entry = 0;
	for (;;) {
		j = (j + 1) & mask;
		if (t[j].cs_entry == 0)
			break;
		home = t[j].cs_hash & mask;
		/* j's entry may move to i when i lies on its probe path */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && home <= i && home > j)) {
			t[i] = t[j];
			t[j].cs_entry = 0;
			i = j;
		}
	}
	r->cr_n--;
}

/* Appends a kept row to the entry being built in cl's buffer. */
static void
buf_put(struct clog *cl, const void *p, size_t n)
{
	xgrow(&cl->buf, &cl->cap, cl->len + pad8(n), 1);
	memcpy(cl->buf + cl->len, p, n);
	memset(cl->buf + cl->len + n, 0, pad8(n) - n);
	cl->len += pad8(n);
}

static void
buf_row(struct clog *cl, int64_t s, int64_t e, const char *cells, size_t n)
{
	struct clog_kept k = { s, e, n };

	buf_put(cl, &k, sizeof(k));
	buf_put(cl, cells, n);
}

static void
buf_begin(struct clog *cl, uint64_t h, const char *key, size_t keylen,
    int64_t s, int64_t e)
{
	struct clog_entry en;

	memset(&en, 0, sizeof(en));
	en.ce_start = s;
	en.ce_end = e;
	en.ce_hash = h;
	en.ce_keylen = (uint32_t)keylen;
	cl->len = 0;
	buf_put(cl, &en, sizeof(en));
	buf_put(cl, key, keylen);
}

/* Replaces the entry in slot i (or fills the empty slot i) with the one
 * built in cl's buffer holding nrows rows; none: the slot is emptied. */
static void
commit(struct clog *cl, uint64_t i, uint32_t nrows)
{
	struct arena *a = ar(cl);
	struct clog_entry *en = (struct clog_entry *)cl->buf;
	aoff old = slots(cl)[i].cs_entry, ne;
	uint64_t h = en->ce_hash;

	if (old != 0)
		arena_free(a, old, entry(cl, old)->ce_size);
	if (nrows == 0) {
		if (old != 0)
			unslot(cl, i);
		return;
	}
	en->ce_nrows = nrows;
	en->ce_size = cl->len;
	ne = arena_alloc(a, cl->len);
	memcpy(arena_ptr(a, ne), cl->buf, cl->len);
	slots(cl)[i].cs_hash = h;
	slots(cl)[i].cs_entry = ne;
	if (old == 0)
		root(cl)->cr_n++;
}

/* Whether a row of a window with these bounds may print again at w. */
static int
may_print(const struct clog *cl, int64_t end, int final, int64_t w)
{
	switch (cl->kind) {
	case CLK_ROLLING:
		return 1;
	case CLK_GLOBAL:
		return !final;
	default:
		return !final || sat_add(end, cl->c->allowed) > w;
	}
}

/* A sweep's test: keeps the entry at e when a row of it may print again
 * (a session entry loses its rows that may not). */
static int
sweep_keep(struct clog *cl, aoff e, int64_t w)
{
	const struct clog_entry *en = entry(cl, e);
	const struct clog_kept *k = first_kept(en);
	uint32_t i, n = 0, all = en->ce_nrows;
	aoff ne;

	buf_begin(cl, en->ce_hash, entry_key(en), en->ce_keylen,
	    en->ce_start, en->ce_end);
	for (i = 0; i < all; i++, k = next_kept(k))
		if (may_print(cl, k->ck_end, 1, w)) {
			buf_row(cl, k->ck_start, k->ck_end,
			    (const char *)(k + 1), k->ck_len);
			n++;
		}
	if (n == all)
		return 1;
	arena_free(ar(cl), e, en->ce_size);
	if (n == 0)
		return 0;
	/* a session entry that keeps some of its rows: rebuilt in place of
	 * the old (the slot still names e, rewritten below) */
	((struct clog_entry *)cl->buf)->ce_nrows = n;
	((struct clog_entry *)cl->buf)->ce_size = cl->len;
	ne = arena_alloc(ar(cl), cl->len);
	memcpy(arena_ptr(ar(cl), ne), cl->buf, cl->len);
	cl->moved = ne;
	return 2;
}

/* Sweeps out entries whose windows can print no more, when they have
 * doubled since the last sweep, and grows the table when half full. */
static void
make_room(struct clog *cl, int64_t w)
{
	struct clog_root *r = root(cl);
	uint64_t i;
	struct clog_slot *t;
	int k;

	if (r->cr_sweep == 0)
		r->cr_sweep = SWEEP_MIN;
	if (r->cr_n + 1 >= r->cr_sweep && cl->kind != CLK_ROLLING &&
	    cl->kind != CLK_GLOBAL) {
		/* in place: a kept entry stays in its slot; others go */
		for (i = 0; i < r->cr_cap; i++) {
			t = slots(cl);
			if (t[i].cs_entry == 0)
				continue;
			cl->moved = 0;
			k = sweep_keep(cl, t[i].cs_entry, w);
			if (k == 2)
				slots(cl)[i].cs_entry = cl->moved;
			else if (k == 0)
				slots(cl)[i].cs_entry = 0;
			r = root(cl);
		}
		rebuild_table(cl, r->cr_cap);	/* re-probe */
		r = root(cl);
		r->cr_sweep = r->cr_n * 2 > SWEEP_MIN ? r->cr_n * 2 : SWEEP_MIN;
	}
	r = root(cl);
	if (r->cr_cap == 0 || (r->cr_n + 1) * 2 > r->cr_cap)
		rebuild_table(cl, r->cr_cap ? r->cr_cap * 2 : 64);
}

void
clog_print(struct clog *cl, int64_t w, const struct clog_row *row,
    clog_emit_fn emit, void *arg)
{
	const struct clog_entry *en;
	const struct clog_kept *k;
	const char *old = NULL;
	size_t oldlen = 0;
	int64_t s, e;
	uint64_t h, i;
	uint32_t j, n = 0;
	int keep;

	if (cl->kind == CLK_NONE) {
		emit(arg, "+I", row->cells, row->ncells_len);
		return;
	}
	keep = may_print(cl, row->end, row->final, w);
	/* the key lies in the operator's state, whose arena the store
	 * shares and make_room() may move: it is read from a copy */
	xgrow(&cl->key, &cl->keycap, row->keylen ? row->keylen : 1, 1);
	memcpy(cl->key, row->key, row->keylen);
	make_room(cl, w);
	ident(cl, row, &s, &e);
	h = ident_hash(cl->key, row->keylen, s, e);
	i = probe(cl, h, cl->key, row->keylen, s, e);
	buf_begin(cl, h, cl->key, row->keylen, s, e);
	if (slots(cl)[i].cs_entry != 0) {
		en = entry(cl, slots(cl)[i].cs_entry);
		k = first_kept(en);
		for (j = 0; j < en->ce_nrows; j++, k = next_kept(k)) {
			if (cl->kind != CLK_SESSION || (k->ck_start ==
			    row->start && k->ck_end == row->end)) {
				old = (const char *)(k + 1);
				oldlen = k->ck_len;
			} else if (row->start <= k->ck_start &&
			    k->ck_end <= row->end)	/* absorbed */
				emit(arg, "-D", (const char *)(k + 1),
				    k->ck_len);
			else if (may_print(cl, k->ck_end, 1, w)) {
				/* a key's other sessions, while they may
				 * print (the entry is swept only as a whole) */
				buf_row(cl, k->ck_start, k->ck_end,
				    (const char *)(k + 1), k->ck_len);
				n++;
			}
		}
	}
	if (old != NULL) {
		emit(arg, "-U", old, oldlen);
		emit(arg, "+U", row->cells, row->ncells_len);
	} else
		emit(arg, "+I", row->cells, row->ncells_len);
	if (keep) {
		buf_row(cl, row->start, row->end, row->cells, row->ncells_len);
		n++;
	}
	commit(cl, i, n);
}

void
clog_gone(struct clog *cl, const struct clog_row *row, clog_emit_fn emit,
    void *arg)
{
	const struct clog_entry *en;
	const struct clog_kept *k;
	int64_t s, e;
	uint64_t h, i;
	uint32_t j, n = 0;

	if (cl->kind == CLK_NONE || root(cl)->cr_cap == 0)
		return;
	ident(cl, row, &s, &e);
	h = ident_hash(row->key, row->keylen, s, e);
	i = probe(cl, h, row->key, row->keylen, s, e);
	if (slots(cl)[i].cs_entry == 0)
		return;
	buf_begin(cl, h, row->key, row->keylen, s, e);
	en = entry(cl, slots(cl)[i].cs_entry);
	k = first_kept(en);
	for (j = 0; j < en->ce_nrows; j++, k = next_kept(k)) {
		if (cl->kind != CLK_SESSION || (k->ck_start == row->start &&
		    k->ck_end == row->end))
			emit(arg, "-D", (const char *)(k + 1), k->ck_len);
		else {
			buf_row(cl, k->ck_start, k->ck_end,
			    (const char *)(k + 1), k->ck_len);
			n++;
		}
	}
	commit(cl, i, n);
}

/* Checks one restored entry at off, claiming its block. */
static const char *
check_entry(struct clog *cl, uint64_t h, aoff off)
{
	const struct clog_entry *en;
	const struct clog_kept *k;
	uint64_t left;
	uint32_t j;

	if (!st_in_arena(cl->st, off, sizeof(*en)))
		return "bad changelog entry";
	en = entry(cl, off);
	if (en->ce_hash != h || en->ce_size < sizeof(*en) ||
	    en->ce_keylen > en->ce_size ||
	    st_claim(cl->st, off, en->ce_size) != 0)
		return "bad changelog entry";
	left = en->ce_size - sizeof(*en);
	if (pad8(en->ce_keylen) > left)
		return "bad changelog entry";
	left -= pad8(en->ce_keylen);
	if (ident_hash(entry_key(en), en->ce_keylen, en->ce_start,
	    en->ce_end) != h)
		return "bad changelog entry";
	k = first_kept(en);
	for (j = 0; j < en->ce_nrows; j++, k = next_kept(k)) {
		if (left < sizeof(*k) || pad8(k->ck_len) > left - sizeof(*k))
			return "bad changelog row";
		left -= sizeof(*k) + pad8(k->ck_len);
	}
	return left == 0 ? NULL : "bad changelog entry";
}

const char *
clog_check(struct clog *cl)
{
	const struct clog_root *r;
	const struct clog_slot *t;
	uint64_t i, n = 0;
	const char *why;

	if (cl->kind == CLK_NONE)
		return NULL;
	r = root(cl);
	if (r->cr_cap == 0)
		return r->cr_tab == 0 && r->cr_n == 0 ? NULL :
		    "bad changelog table";
	if ((r->cr_cap & (r->cr_cap - 1)) != 0 || r->cr_n > r->cr_cap / 2 ||
	    r->cr_cap > ar(cl)->cap / sizeof(*t) ||
	    st_claim(cl->st, r->cr_tab, r->cr_cap * sizeof(*t)) != 0)
		return "bad changelog table";
	t = slots(cl);
	for (i = 0; i < r->cr_cap; i++) {
		if (t[i].cs_entry == 0)
			continue;
		if ((why = check_entry(cl, t[i].cs_hash, t[i].cs_entry)) != NULL)
			return why;
		n++;
	}
	return n == r->cr_n ? NULL : "bad changelog count";
}
