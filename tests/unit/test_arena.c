/* Unit tests for the arena (arena.c): size classes and the reuse of freed
 * blocks, zeroing, growth that keeps contents at their offsets, blobs
 * reused in place or moved, the ah_live/ah_used/ah_peak accounting, and
 * the claims that find overlapping blocks in a restored arena. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "unit.h"

#define HDR	((uint64_t)sizeof(struct arena_hdr))

/* The bytes arena_alloc(n) takes: multiples of 16 up to 1 KiB, then
 * powers of two from 2 KiB. */
static uint64_t
rounded(uint64_t n)
{
	uint64_t sz;

	if (n == 0)
		n = 1;
	if (n <= 1024)
		return (n + 15) & ~(uint64_t)15;
	for (sz = 2048; sz < n; sz <<= 1)
		;
	return sz;
}

static int
all_zero(const struct arena *a, aoff off, size_t n)
{
	const uint8_t *p = arena_ptr(a, off);
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

static void
test_alloc_free(void)
{
	struct arena a;
	struct arena_hdr *h;
	aoff b1, b2, b3, b4, x;
	uint64_t live;

	CHECK(arena_init(&a) == 0);
	h = arena_hdr(&a);
	CHECK(h->ah_used == HDR);	/* the header, 16-aligned */
	CHECK(HDR % 16 == 0);
	CHECK(h->ah_live == 0);
	CHECK(h->ah_peak == HDR);
	CHECK(h->ah_root == 0);

	b1 = arena_alloc(&a, 1);
	CHECK(b1 == HDR);
	h = arena_hdr(&a);
	CHECK(h->ah_used == HDR + 16 && h->ah_live == 16);
	b2 = arena_alloc(&a, 24);		/* 32 bytes */
	CHECK(b2 == b1 + 16);
	b3 = arena_alloc(&a, 1025);		/* 2 KiB */
	CHECK(b3 == b2 + 32);
	b4 = arena_alloc(&a, 0);		/* 16 bytes, like 1 */
	CHECK(b4 == b3 + 2048);
	h = arena_hdr(&a);
	CHECK(h->ah_live == 16 + 32 + 2048 + 16);
	CHECK(h->ah_used == HDR + 16 + 32 + 2048 + 16);
	CHECK(h->ah_peak == h->ah_used);
	CHECK(all_zero(&a, b1, 16) && all_zero(&a, b2, 32) &&
	    all_zero(&a, b3, 2048));

	/* a freed block is reused by any size of its class, last freed
	 * first, and comes back zeroed */
	memset(arena_ptr(&a, b2), 0xab, 32);
	arena_free(&a, b2, 24);
	h = arena_hdr(&a);
	CHECK(h->ah_live == 16 + 2048 + 16);
	CHECK(h->ah_used == HDR + 16 + 32 + 2048 + 16);	/* bump only */
	x = arena_alloc(&a, 17);		/* another size, class 32 */
	CHECK(x == b2);
	CHECK(all_zero(&a, x, 32));
	arena_free(&a, b1, 1);
	arena_free(&a, b4, 16);
	x = arena_alloc(&a, 16);
	CHECK(x == b4);
	x = arena_alloc(&a, 3);
	CHECK(x == b1);
	/* a class with nothing freed takes new bytes */
	x = arena_alloc(&a, 48);
	CHECK(x == HDR + 16 + 32 + 2048 + 16);
	/* 2 KiB and 1025 bytes share a class; 2049 does not */
	memset(arena_ptr(&a, b3), 0xcd, 2048);
	arena_free(&a, b3, 1025);
	x = arena_alloc(&a, 2049);
	CHECK(x != b3);
	CHECK(arena_alloc(&a, 2048) == b3);
	CHECK(all_zero(&a, b3, 2048));
	/* freeing offset 0 is nothing */
	live = arena_hdr(&a)->ah_live;
	arena_free(&a, 0, 100);
	CHECK(arena_hdr(&a)->ah_live == live);
	arena_fini(&a);
	CHECK(a.base == NULL);
}

/* Random allocations and frees: ah_live is the sum of the live blocks'
 * classes, ah_used only grows, ah_peak follows it, blocks never overlap,
 * and a block's bytes survive the region's growth (which may move it). */
#define NB 4000

static void
test_random(void)
{
	static aoff off[NB];
	static uint32_t len[NB], tag[NB];
	struct arena a;
	uint64_t live = 0, used;
	int i, bad = 0, step;

	CHECK(arena_init(&a) == 0);
	memset(off, 0, sizeof(off));
	used = arena_hdr(&a)->ah_used;
	for (step = 0; step < 60000; step++) {
		i = (int)(unit_rnd() % NB);
		if (off[i] != 0) {
			/* its bytes are as written */
			const uint32_t *p = arena_ptr(&a, off[i]);
			uint32_t j;

			for (j = 0; j < len[i] / 4; j++)
				bad += p[j] != tag[i] + j;
			arena_free(&a, off[i], len[i]);
			live -= rounded(len[i]);
			off[i] = 0;
		} else {
			uint32_t *p, j;

			len[i] = (uint32_t)(unit_rnd() % 8 == 0 ? unit_rnd() % 40000 :
			    unit_rnd() % 700);
			tag[i] = (uint32_t)unit_rnd();
			off[i] = arena_alloc(&a, len[i]);
			live += rounded(len[i]);
			bad += off[i] % 16 != 0 || off[i] < HDR;
			bad += !all_zero(&a, off[i], rounded(len[i]));
			p = arena_ptr(&a, off[i]);
			for (j = 0; j < len[i] / 4; j++)
				p[j] = tag[i] + j;
		}
		bad += arena_hdr(&a)->ah_live != live;
		bad += arena_hdr(&a)->ah_used < used;
		bad += arena_hdr(&a)->ah_peak != arena_hdr(&a)->ah_used;
		bad += arena_hdr(&a)->ah_used > a.cap;
		used = arena_hdr(&a)->ah_used;
	}
	CHECK(bad == 0);
	CHECK(a.cap > (1u << 20));	/* it grew past its first MiB */
	/* no two live blocks overlap: claim them all */
	{
		struct arena_claims m;

		CHECK(arena_claims_init(&m, arena_hdr(&a)->ah_used) == 0);
		for (i = 0, bad = 0; i < NB; i++)
			if (off[i] != 0)
				bad += arena_claim(&m, off[i], len[i]) != 0;
		CHECK(bad == 0);
		arena_claims_free(&m);
	}
	for (i = 0, bad = 0; i < NB; i++)
		if (off[i] != 0) {
			const uint32_t *p = arena_ptr(&a, off[i]);
			uint32_t j;

			for (j = 0; j < len[i] / 4; j++)
				bad += p[j] != tag[i] + j;
			arena_free(&a, off[i], len[i]);
		}
	CHECK(bad == 0);
	CHECK(arena_hdr(&a)->ah_live == 0);
	arena_fini(&a);
}

/* Growth keeps contents: fill the first MiB, then grow well past it. */
static void
test_growth(void)
{
	struct arena a;
	aoff first, big;
	uint64_t cap;
	uint8_t *p;
	size_t i;
	int bad = 0;

	CHECK(arena_init(&a) == 0);
	cap = a.cap;
	first = arena_alloc(&a, 1000);
	p = arena_ptr(&a, first);
	for (i = 0; i < 1000; i++)
		p[i] = (uint8_t)(i * 7);
	big = arena_alloc(&a, (size_t)cap);	/* more than is left */
	CHECK(a.cap >= HDR + 1008 + cap);
	CHECK(big == HDR + 1008);
	CHECK(arena_hdr(&a)->ah_used == big + cap);
	CHECK(arena_hdr(&a)->ah_peak == big + cap);
	CHECK(arena_hdr(&a)->ah_live == 1008 + cap);
	p = arena_ptr(&a, first);
	for (i = 0; i < 1000; i++)
		bad += p[i] != (uint8_t)(i * 7);
	CHECK(bad == 0);
	CHECK(all_zero(&a, big, (size_t)cap));
	arena_fini(&a);
}

/* Blobs: set in place while the new value fits its capacity, moved to a
 * larger block (the old one freed) when it does not; the slot is found
 * again by its offset after the arena moves. */
static void
test_blob(void)
{
	struct arena a;
	aoff holder, slot, b, b2;
	uint64_t live;
	struct blob *x;
	char *bigv;
	size_t i;
	int bad = 0;

	CHECK(arena_init(&a) == 0);
	holder = arena_alloc(&a, 16);
	slot = holder + 8;			/* an aoff field inside it */
	live = arena_hdr(&a)->ah_live;
	blob_set(&a, slot, "hello", 5);
	b = *(aoff *)arena_ptr(&a, slot);
	CHECK(b != 0);
	x = blob_at(&a, b);
	CHECK(x->b_len == 5 && x->b_cap == 5 &&
	    memcmp(x->b_data, "hello", 5) == 0);
	CHECK(arena_hdr(&a)->ah_live == live + 16);
	/* shorter and equal: in place */
	blob_set(&a, slot, "hi", 2);
	CHECK(*(aoff *)arena_ptr(&a, slot) == b);
	x = blob_at(&a, b);
	CHECK(x->b_len == 2 && x->b_cap == 5 && memcmp(x->b_data, "hi", 2) == 0);
	blob_set(&a, slot, "world", 5);
	CHECK(*(aoff *)arena_ptr(&a, slot) == b);
	CHECK(blob_at(&a, b)->b_len == 5);
	blob_set(&a, slot, "", 0);
	CHECK(*(aoff *)arena_ptr(&a, slot) == b && blob_at(&a, b)->b_len == 0);
	CHECK(arena_hdr(&a)->ah_live == live + 16);
	/* longer: a new block; the old one is reused by the next of its
	 * class */
	blob_set(&a, slot, "hello, world", 12);
	b2 = *(aoff *)arena_ptr(&a, slot);
	CHECK(b2 != b);
	x = blob_at(&a, b2);
	CHECK(x->b_len == 12 && x->b_cap == 12 &&
	    memcmp(x->b_data, "hello, world", 12) == 0);
	CHECK(arena_hdr(&a)->ah_live == live + 32);	/* 8 + 12 -> 32 */
	CHECK(arena_alloc(&a, 13) == b);
	arena_free(&a, b, 13);
	/* a value that makes the arena grow: the slot is written where it
	 * lies after the move */
	bigv = malloc(3u << 20);
	CHECK(bigv != NULL);
	for (i = 0; i < (3u << 20); i++)
		bigv[i] = (char)('a' + i % 26);
	blob_set(&a, slot, bigv, 3u << 20);
	b = *(aoff *)arena_ptr(&a, slot);
	CHECK(b != b2);
	x = blob_at(&a, b);
	CHECK(x->b_len == 3u << 20 && memcmp(x->b_data, bigv, 3u << 20) == 0);
	CHECK(arena_hdr(&a)->ah_live == live + rounded(8 + (3u << 20)));
	for (i = 0; i < 100; i++) {
		blob_set(&a, slot, bigv + i, (3u << 20) - i);
		bad += *(aoff *)arena_ptr(&a, slot) != b;
	}
	CHECK(bad == 0);
	blob_free(&a, b);
	blob_free(&a, 0);
	CHECK(arena_hdr(&a)->ah_live == live);
	free(bigv);
	arena_fini(&a);
}

static void
test_claims(void)
{
	struct arena_claims m;
	uint64_t used = HDR + 16 * 1024;

	CHECK(arena_claims_init(&m, used) == 0);
	CHECK(arena_claim(&m, HDR, 1) == 0);
	CHECK(arena_claim(&m, HDR, 1) == -1);		/* twice */
	CHECK(arena_claim(&m, HDR + 16, 20) == 0);	/* 32 bytes */
	CHECK(arena_claim(&m, HDR + 32, 16) == -1);	/* inside it */
	CHECK(arena_claim(&m, HDR + 48, 16) == 0);	/* just after */
	CHECK(arena_claim(&m, HDR - 16, 16) == -1);	/* the header */
	CHECK(arena_claim(&m, 0, 16) == -1);
	CHECK(arena_claim(&m, HDR + 72, 8) == -1);	/* not a block start */
	CHECK(arena_claim(&m, HDR + 8, 8) == -1);
	CHECK(arena_claim(&m, used, 16) == -1);		/* past the end */
	CHECK(arena_claim(&m, used - 16, 17) == -1);	/* crosses it */
	CHECK(arena_claim(&m, used - 16, 16) == 0);	/* the last granule */
	CHECK(arena_claim(&m, HDR + 64, used) == -1);	/* too large */
	CHECK(arena_claim(&m, HDR + 64, UINT64_MAX) == -1);
	CHECK(arena_claim(&m, UINT64_MAX - 15, 16) == -1);
	/* a 4 KiB block spans several words of the map; one granule of it
	 * already claimed, at its far end, is found (in a map of its own: a
	 * refused claim may leave part of its block marked) */
	{
		struct arena_claims m2;

		CHECK(arena_claims_init(&m2, used) == 0);
		CHECK(arena_claim(&m2, HDR + 8192 - 16, 16) == 0);
		CHECK(arena_claim(&m2, HDR + 4096, 4080) == -1);	/* 4 KiB */
		arena_claims_free(&m2);
		CHECK(arena_claims_init(&m2, used) == 0);
		CHECK(arena_claim(&m2, HDR + 8192 - 16, 16) == 0);
		CHECK(arena_claim(&m2, HDR + 4096, 2048) == 0);
		CHECK(arena_claim(&m2, HDR + 6144, 1024) == 0);
		CHECK(arena_claim(&m2, HDR + 7168, 1008) == 0);
		CHECK(arena_claim(&m2, HDR + 8176, 1) == -1);
		arena_claims_free(&m2);
	}
	/* free blocks, by class: 16 * (c + 1) up to 1 KiB, then 2 KiB << */
	CHECK(arena_claim_free(&m, HDR + 64, 0) == 0);
	CHECK(arena_claim_free(&m, HDR + 64, 0) == -1);
	CHECK(arena_claim_free(&m, HDR + 80, 2) == 0);	/* 48 bytes */
	CHECK(arena_claim(&m, HDR + 112, 16) == -1);
	CHECK(arena_claim(&m, HDR + 128, 16) == 0);
	CHECK(arena_claim_free(&m, HDR + 1024, 64) == 0);	/* 2 KiB */
	CHECK(arena_claim(&m, HDR + 1024 + 2032, 1) == -1);
	CHECK(arena_claim_free(&m, HDR + 8192, 65) == 0);	/* 4 KiB */
	CHECK(arena_claim_free(&m, HDR + 16, 96) == -1);	/* no class */
	CHECK(arena_claim_free(&m, HDR + 16, 95) == -1);	/* too big */
	arena_claims_free(&m);
	CHECK(m.map == NULL);
}

/* Random claims against a map of granules kept here, in rounds that each
 * start from an empty map. A claim refused for an overlap may have marked
 * part of its block (a refusal ends a restore's check), so the map is
 * then made again from the blocks accepted so far. */
static void
test_claims_random(void)
{
	enum { USED = 800 + 16 * 6000, TRIES = 300 };
	static uint8_t mine[USED / 16];
	static uint64_t acc_off[TRIES], acc_n[TRIES];
	struct arena_claims m;
	int round, i, k, nacc, bad = 0, ok = 0, overlaps = 0, invalid = 0;

	for (round = 0; round < 100; round++) {
		CHECK(arena_claims_init(&m, USED) == 0);
		memset(mine, 0, sizeof(mine));
		for (i = nacc = 0; i < TRIES; i++) {
			uint64_t off, n = 0, sz, g;
			int want, valid, got, isfree = unit_rnd() % 4 == 0;
			unsigned c = 0;

			off = unit_rnd() % 8 == 0 ? unit_rnd() % (USED + 64) :
			    unit_rnd() % (USED / 16) * 16;
			if (isfree) {
				c = (unsigned)(unit_rnd() % 70);
				sz = c < 64 ? 16 * (uint64_t)(c + 1) :
				    (uint64_t)2048 << (c - 64);
			} else {
				n = unit_rnd() % 4 == 0 ? unit_rnd() % 9000 : unit_rnd() % 200;
				sz = rounded(n);
			}
			valid = off >= HDR && off % 16 == 0 && off + sz <= USED;
			for (g = off / 16, want = valid;
			    want && g < (off + sz) / 16; g++)
				if (mine[g])
					want = 0;
			got = isfree ? arena_claim_free(&m, off, c) :
			    arena_claim(&m, off, n);
			if (got != (want ? 0 : -1))
				bad++;
			if (want) {
				for (g = off / 16; g < (off + sz) / 16; g++)
					mine[g] = 1;
				acc_off[nacc] = off;
				acc_n[nacc++] = sz;
				ok++;
			} else if (!valid)
				invalid++;
			else {
				overlaps++;
				arena_claims_free(&m);
				CHECK(arena_claims_init(&m, USED) == 0);
				for (k = 0; k < nacc; k++)
					bad += arena_claim(&m, acc_off[k],
					    acc_n[k]) != 0;
			}
		}
		arena_claims_free(&m);
	}
	CHECK(bad == 0);
	CHECK(ok > 1000 && overlaps > 1000 && invalid > 1000);
}

int
main(void)
{
	unit_rstate = 0x2545F4914F6CDD1Dull;
	test_alloc_free();
	test_random();
	test_growth();
	test_blob();
	test_claims();
	test_claims_random();
	return unit_done("arena");
}
