/* Unit tests for state's checks of a restored arena: what st_adopt refuses
 * at once, and what a key's check finds on its first use (a stale or
 * duplicated slot, a full table, a timer that names no key, a key that
 * names another's timer, a window list that loops) or before a save. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/keycodec.h"
#include "window/state.h"
#include "unit.h"

#define ACC	16	/* bytes behind each pane */
#define EXT	16	/* bytes of the operator's block behind each key */
#define GLOB	8	/* bytes of the driver's block */
#define NKEYS	20

/* The operator's block of a restored key: a kept value to forget. */
static const char *
ext_ok(void *arg, const struct arena *a, void *ext, struct arena_claims *m)
{
	(void)arg;
	(void)a;
	(void)m;
	memset(ext, 0, EXT);
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

static const char *
pane_ok(void *arg, const struct pane *p)
{
	(void)arg;
	return p->p_start % 10 == 0 ? NULL : "bad window bounds";
}

static const struct st_checks checks = {
	.nkeyfields = 1,
	.acc_ok = acc_ok,
	.pane_ok = pane_ok,
	.ext_ok = ext_ok,
};

static uint64_t
hash(const char *b)
{
	return key_hash(b, strlen(b));
}

static aoff
key(struct state *s, int i)
{
	char b[16];

	snprintf(b, sizeof(b), "k%d", i);
	return st_key_find(s, b, strlen(b), hash(b));
}

/* NKEYS keys "k0".., each with one pane starting at 10*i and a timer at
 * 100+i. */
static void
build(struct state *s)
{
	char b[16];
	aoff k;
	int i, created;

	if (st_init(s, ACC, EXT, GLOB) != 0)
		abort();
	for (i = 0; i < NKEYS; i++) {
		snprintf(b, sizeof(b), "k%d", i);
		k = st_key(s, b, strlen(b), hash(b), &created);
		(void)st_pane(s, k, 10 * i, &created);
		st_timer_set(s, k, 100 + i);
		((int64_t *)st_keyext(s, k))[0] = 5;	/* a kept fold to forget */
		((int64_t *)st_keyext(s, k))[1] = 7;
	}
}

/* Takes s's arena as a restore would take a checkpoint's. */
static const char *
restore(struct state *s, struct state *r)
{
	struct arena a = s->a;

	memset(r, 0, sizeof(*r));
	return st_adopt(r, &a, arena_hdr(&a)->ah_used, ACC, EXT, GLOB, &checks);
}

static struct keyslot *
table(struct state *s)
{
	return arena_ptr(&s->a, st_root(s)->sr_keytab);
}

static uint64_t
slot_of(struct state *s, aoff k)
{
	uint64_t i;

	for (i = 0; table(s)[i].ks_key != k; i++)
		;
	return i;
}

static struct timer *
timers(struct state *s)
{
	return arena_ptr(&s->a, st_root(s)->sr_heap);
}

/* The uses a run makes of restored keys. */
static void
use_all(struct state *r)
{
	int i;

	/* a key found bad is found no more: the run stops there */
	for (i = 0; i < NKEYS; i++)
		if (key(r, i) == 0 && st_corrupt(r) == NULL)
			abort();
}

static void
use_k0(struct state *r)
{
	(void)key(r, 0);
}

static void
use_absent(struct state *r)
{
	(void)st_key_find(r, "absent", 6, hash("absent"));
}

static void
pop_all(struct state *r)
{
	while (st_timer_pop(r, INT64_MAX) != 0)
		;
}

static void
check_all(struct state *r)
{
	(void)st_check_all(r);
}

/* Runs f(r); returns what a key's check found bad, or NULL. */
static const char *
try(void (*f)(struct state *), struct state *r)
{
	f(r);
	return st_corrupt(r);
}

static void
test_intact(void)
{
	struct state s, r;
	const struct key *kp;
	aoff k;
	int i, created;

	build(&s);
	CHECK(restore(&s, &r) == NULL);
	CHECK(try(use_all, &r) == NULL);
	k = key(&r, 3);
	kp = st_keyp(&r, k);
	CHECK(kp->k_run == r.run && ((int64_t *)st_keyext(&r, k))[0] == 0 &&
	    ((int64_t *)st_keyext(&r, k))[1] == 0);
	CHECK(kp->k_group == key_group(kp->k_hash));
	CHECK(st_panep(&r, kp->k_head)->p_start == 30);
	CHECK(try(check_all, &r) == NULL);
	for (i = 0; i < NKEYS; i++)
		CHECK(st_timer_pop(&r, INT64_MAX) == key(&r, i));
	CHECK(st_timer_pop(&r, INT64_MAX) == 0);
	/* a key made by the run after the restore */
	CHECK(st_key(&r, "new", 3, hash("new"), &created) == st_key_find(&r,
	    "new", 3, hash("new")));
	CHECK(created == 1);
	st_fini(&r);
}

/* Only the timer queue's keys are checked by popping it. */
static void
test_timers_first(void)
{
	struct state s, r;

	build(&s);
	CHECK(restore(&s, &r) == NULL);
	CHECK(try(pop_all, &r) == NULL);
	CHECK(try(check_all, &r) == NULL);
	st_fini(&r);
}

static void
test_adopt_refuses(void)
{
	struct state s, r;
	aoff root;

	build(&s);
	st_root(&s)->sr_keycap = 48;
	CHECK_STR(restore(&s, &r), "bad key table");
	st_root(&s)->sr_keycap = 64;
	st_root(&s)->sr_heapcap = UINT64_MAX / 8;
	CHECK_STR(restore(&s, &r), "bad timer queue");
	st_root(&s)->sr_heapcap = 64;
	st_root(&s)->sr_nkeys = 33;
	CHECK_STR(restore(&s, &r), "bad counts");
	st_root(&s)->sr_nkeys = NKEYS;
	root = arena_hdr(&s.a)->ah_root;
	arena_hdr(&s.a)->ah_root = 12;
	CHECK_STR(restore(&s, &r), "bad root offset");
	arena_hdr(&s.a)->ah_root = root;
	arena_hdr(&s.a)->ah_used += 8;	/* the next block would be misaligned */
	CHECK_STR(restore(&s, &r), "bad arena length");
	st_fini(&s);
}

/* Two slots name k0: once k0 is deleted, the other is found stale. */
static void
test_duplicate_slot(void)
{
	struct state s, r;
	struct keyslot *t;
	uint64_t i, mask;
	aoff k;

	build(&s);
	k = key(&s, 0);
	t = table(&s);
	mask = st_root(&s)->sr_keycap - 1;
	for (i = slot_of(&s, k); t[i].ks_key != 0; i = (i + 1) & mask)
		;
	t[i] = t[slot_of(&s, k)];
	CHECK(restore(&s, &r) == NULL);
	CHECK(try(use_all, &r) == NULL);
	k = key(&r, 0);
	st_pane_free(&r, k, st_keyp(&r, k)->k_head);
	st_timer_set(&r, k, T_NONE);
	st_key_delete(&r, k);
	CHECK_STR(try(use_k0, &r), "bad key");
	st_fini(&r);
}

/* Damages done to a state before it is restored. */

/* A table with no empty slot (its count says 20). */
static void
fill_table(struct state *s)
{
	struct keyslot *t = table(s);
	uint64_t i;

	for (i = 0; i < st_root(s)->sr_keycap; i++)
		if (t[i].ks_key == 0) {
			t[i].ks_key = key(s, 1);
			t[i].ks_hash = 1;
		}
}

/* A timer that names a pane, not a key. */
static void
timer_names_pane(struct state *s)
{
	timers(s)[0].t_key = st_keyp(s, key(s, 0))->k_head;
}

/* A timer that names no place a key could be. */
static void
timer_off_arena(struct state *s)
{
	timers(s)[1].t_key = s->a.cap + 8;
}

/* k2 says k5's timer is its own. */
static void
key_names_other_timer(struct state *s)
{
	st_keyp(s, key(s, 2))->k_hpos = st_keyp(s, key(s, 5))->k_hpos;
}

/* k4's window list loops back to its own pane. */
static void
window_loop(struct state *s)
{
	aoff p = st_keyp(s, key(s, 4))->k_head;

	st_panep(s, p)->p_next = p;
}

/* k6's pane is k7's too: the second check finds it claimed. */
static void
shared_pane(struct state *s)
{
	st_keyp(s, key(s, 7))->k_head = st_keyp(s, key(s, 6))->k_head;
	st_keyp(s, key(s, 7))->k_tail = st_keyp(s, key(s, 6))->k_tail;
}

/* k3's pane starts off the grid (the test's grid: multiples of 10). */
static void
pane_off_grid(struct state *s)
{
	st_panep(s, st_keyp(s, key(s, 3))->k_head)->p_start = 31;
}

/* k8's group is not its hash's. */
static void
wrong_group(struct state *s)
{
	st_keyp(s, key(s, 8))->k_group ^= 1;
}

/* A key the run never uses (found before a save). */
static void
long_key(struct state *s)
{
	st_keyp(s, key(s, 9))->k_len = 1u << 30;
}

/* A count that is not the table's (found before a save). */
static void
miscount(struct state *s)
{
	st_root(s)->sr_nkeys = NKEYS + 1;
}

static const struct {
	const char *name;
	void (*damage)(struct state *);
	void (*use)(struct state *);	/* the use that meets it */
	const char *want;		/* what the check says */
} damaged[] = {
	{ "full table", fill_table, use_absent, "bad key table" },
	{ "timer names a pane", timer_names_pane, pop_all, "bad key" },
	{ "timer off the arena", timer_off_arena, pop_all, "bad key offset" },
	{ "key names another's timer", key_names_other_timer, use_all,
	    "bad timer" },
	{ "window list loops", window_loop, use_all, "bad window list" },
	{ "window shared by two keys", shared_pane, use_all,
	    "bad window list" },
	{ "key group not its hash's", wrong_group, use_all, "bad key" },
	{ "pane off the grid", pane_off_grid, use_all, "bad window bounds" },
	{ "key never used", long_key, use_absent, "nothing found" },
	{ "key never used, then a save", long_key, check_all, "bad key" },
	{ "count", miscount, check_all, "bad counts" },
};

/* Each damage is met by its use, not before, and named. */
static void
test_damaged(void)
{
	struct state s, r;
	const char *got;
	size_t i;

	for (i = 0; i < sizeof(damaged) / sizeof(damaged[0]); i++) {
		build(&s);
		damaged[i].damage(&s);
		if (restore(&s, &r) != NULL) {
			st_fini(&s);
			got = "refused at restore";
		} else {
			got = try(damaged[i].use, &r);
			st_fini(&r);
		}
		if (got == NULL)
			got = "nothing found";
		if (strcmp(got, damaged[i].want) != 0)
			fprintf(stderr, "damage \"%s\": ", damaged[i].name);
		CHECK_STR(got, damaged[i].want);
	}
}

int
main(void)
{
	test_intact();
	test_timers_first();
	test_adopt_refuses();
	test_duplicate_slot();
	test_damaged();
	return unit_done("state");
}
