/* arena: offset-addressed, growable memory with size-class free lists.
 *
 * Blocks are rounded to a size class: multiples of 16 bytes up to 1 KiB,
 * then powers of two. A freed block goes on its class's free list (the
 * list links live in the free blocks themselves, as offsets), so the
 * space of expired windows is reused and memory follows live state, not
 * input length. The region grows with mremap(2), which may move it. */
#include <sys/mman.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"

/* ThreadSanitizer does not intercept mremap(2): memory it moves away
 * keeps its old owner's history in the sanitizer's shadow, and another
 * thread's mapping landing there later looks like a race. Its build
 * grows a region by copying it instead. */
#if defined(__SANITIZE_THREAD__)
#define GROW_IN_PLACE 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GROW_IN_PLACE 0
#endif
#endif
#ifndef GROW_IN_PLACE
#define GROW_IN_PLACE 1
#endif

#define SMALL_MAX	1024
#define NSMALL		(SMALL_MAX / 16)
#define INITIAL_CAP	(1u << 20)

static unsigned
size_class(size_t n, size_t *rounded)
{
	unsigned c;
	size_t sz;

	if (n == 0)
		n = 1;
	if (n <= SMALL_MAX) {
		*rounded = (n + 15) & ~(size_t)15;
		return *rounded / 16 - 1;
	}
	for (c = NSMALL, sz = 2 * SMALL_MAX; sz < n; sz <<= 1)
		c++;
	*rounded = sz;
	return c;
}

/* No MADV_HUGEPAGE: state is reached at random, and on huge pages a
 * lookup would cost a cache miss without a page walk; but getting them
 * costs more where it was measured: a virtual machine whose kernel
 * compacts and zeroes 2 MB at a fault ran 1M keys 11% and an unsorted
 * batch 10% slower with them, four times the system time. */

/* The pages of new blocks are asked for a megabyte ahead, in one call
 * (MADV_POPULATE_WRITE), not found missing one at a time: on a virtual
 * machine each fault is a trip through the hypervisor (--slide 10m,1s
 * on the headline's keys: 22.3k faults to 5.8k, with the table's other
 * changes 1.85 CPU seconds to 1.29). Where the kernel does not know the
 * call, pages come as they are touched. */
#define READY_STEP	((uint64_t)1 << 20)

static void
make_ready(struct arena *a, uint64_t upto)
{
	uint64_t end = (upto + READY_STEP - 1) & ~(READY_STEP - 1);

	if (end > a->cap)
		end = a->cap;
#ifdef MADV_POPULATE_WRITE
	if (!a->filemap && end > a->ready && madvise(a->base + a->ready,
	    end - a->ready, MADV_POPULATE_WRITE) != 0) {
		a->ready = UINT64_MAX;
		return;
	}
	a->ready = end;
#else
	a->ready = UINT64_MAX;
#endif
}

int
arena_init(struct arena *a)
{
	void *p;

	p = mmap(NULL, INITIAL_CAP, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	a->base = p;
	a->cap = INITIAL_CAP;
	a->filemap = 0;
	a->ready = 0;
	memset(a->base, 0, sizeof(struct arena_hdr));
	arena_hdr(a)->ah_used = (sizeof(struct arena_hdr) + 15) & ~(uint64_t)15;
	arena_hdr(a)->ah_peak = arena_hdr(a)->ah_used;
	return 0;
}

void
arena_fini(struct arena *a)
{
	if (a->base != NULL)
		munmap(a->base, a->cap);
	a->base = NULL;
	a->cap = 0;
}

void
arena_attach(struct arena *a, void *base, uint64_t cap)
{
	a->base = base;
	a->cap = cap;
	a->filemap = 1;
	a->ready = cap;	/* (a checkpoint's pages: in as they are read) */
}

static void
grow(struct arena *a, uint64_t need)
{
	uint64_t cap = a->cap;
	void *p;

	while (cap < need)
		cap *= 2;
	if (a->filemap || !GROW_IN_PLACE) {
		/* Past the file's end a private file mapping would fault
		 * (SIGBUS): copy the state to anonymous memory, once. */
		p = mmap(NULL, cap, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			memcpy(p, a->base, a->cap);
			munmap(a->base, a->cap);
			a->filemap = 0;
			if (a->ready != UINT64_MAX)
				a->ready = a->cap;	/* (the copy's) */
		}
	} else
		p = mremap(a->base, a->cap, cap, MREMAP_MAYMOVE);
	if (p == MAP_FAILED) {
		fwin_die("cannot grow state to %llu bytes: %s",
		    (unsigned long long)cap, strerror(errno));
	}
	a->base = p;
	a->cap = cap;
}

aoff
arena_alloc(struct arena *a, size_t n)
{
	struct arena_hdr *h = arena_hdr(a);
	size_t sz;
	unsigned c = size_class(n, &sz);
	aoff off;

	if (c >= ARENA_NCLASS) {
		fwin_die("state block of %zu bytes is too large", n);
	}
	if ((off = h->ah_free[c]) != 0) {
		h->ah_free[c] = *(aoff *)(a->base + off);
	} else {
		off = h->ah_used;
		if (off + sz > a->cap) {
			grow(a, off + sz);
			h = arena_hdr(a);
		}
		h->ah_used = off + sz;
		if (h->ah_used > h->ah_peak)
			h->ah_peak = h->ah_used;
		if (h->ah_used > a->ready)
			make_ready(a, h->ah_used);
	}
	h->ah_live += sz;
	memset(a->base + off, 0, sz);
	return off;
}

void
arena_free(struct arena *a, aoff off, size_t n)
{
	struct arena_hdr *h = arena_hdr(a);
	size_t sz;
	unsigned c = size_class(n, &sz);

	if (off == 0)
		return;
	*(aoff *)(a->base + off) = h->ah_free[c];
	h->ah_free[c] = off;
	h->ah_live -= sz;
}

/* Whether b is a blob of the used arena, not overlapping another block;
 * claims it in m. */
int
blob_ok(const struct arena *a, aoff b, struct arena_claims *m)
{
	uint64_t used = m->used;	/* the restored bytes, not those since */
	const struct blob *x;

	if (b < sizeof(struct arena_hdr) || b % 8 != 0 || b >= used ||
	    used - b < sizeof(struct blob))
		return 0;
	x = blob_at(a, b);
	return x->b_len <= x->b_cap &&
	    x->b_cap <= used - b - sizeof(struct blob) &&
	    arena_claim(m, b, sizeof(struct blob) + x->b_cap) == 0;
}

void
blob_set2(struct arena *a, aoff slot_off, const char *p, size_t n,
    const char *q, size_t m)
{
	aoff cur = *(aoff *)(a->base + slot_off), off;
	struct blob *b;

	if (cur != 0) {
		b = blob_at(a, cur);
		if (b->b_cap >= n + m) {
			memcpy(b->b_data, p, n);
			if (m != 0)
				memcpy(b->b_data + n, q, m);
			b->b_len = (uint32_t)(n + m);
			return;
		}
		blob_free(a, cur);
	}
	/* p and q never point into the arena, so they stay valid if it
	 * moves. */
	off = arena_alloc(a, sizeof(struct blob) + n + m);
	b = blob_at(a, off);
	b->b_len = (uint32_t)(n + m);
	b->b_cap = (uint32_t)(n + m);
	memcpy(b->b_data, p, n);
	if (m != 0)
		memcpy(b->b_data + n, q, m);
	*(aoff *)(a->base + slot_off) = off;
}

void
blob_set(struct arena *a, aoff slot_off, const char *p, size_t n)
{
	blob_set2(a, slot_off, p, n, NULL, 0);
}

void
blob_free(struct arena *a, aoff off)
{
	if (off != 0)
		arena_free(a, off, sizeof(struct blob) + blob_at(a, off)->b_cap);
}

int
arena_claims_init(struct arena_claims *m, uint64_t used)
{
	m->used = used;
	m->map = calloc(used / 16 / 64 + 1, sizeof(*m->map));
	return m->map != NULL ? 0 : -1;
}

void
arena_claims_free(struct arena_claims *m)
{
	free(m->map);
	m->map = NULL;
}

/* Claims [off, off + sz), sz a multiple of 16: a word of the map (64
 * granules) at a time, a key table of millions of slots included. */
static int
claim(struct arena_claims *m, aoff off, uint64_t sz)
{
	uint64_t g, e, lo, hi, mask;

	if (off < sizeof(struct arena_hdr) || off % 16 != 0 || off > m->used ||
	    sz > m->used - off)
		return -1;
	for (g = off / 16, e = (off + sz) / 16; g < e; g = (g | 63) + 1) {
		lo = g % 64;
		hi = e - (g - lo) < 64 ? e - (g - lo) : 64;	/* bits [lo, hi) */
		mask = (hi == 64 ? ~(uint64_t)0 : ((uint64_t)1 << hi) - 1) &
		    ~(((uint64_t)1 << lo) - 1);
		if (m->map[g / 64] & mask)
			return -1;
		m->map[g / 64] |= mask;
	}
	return 0;
}

int
arena_claim(struct arena_claims *m, aoff off, uint64_t n)
{
	size_t sz;

	if (n > m->used)	/* and size_class() cannot overflow */
		return -1;
	if (size_class(n, &sz) >= ARENA_NCLASS)
		return -1;
	return claim(m, off, sz);
}

int
arena_claim_free(struct arena_claims *m, aoff off, unsigned c)
{
	uint64_t sz;

	if (c >= ARENA_NCLASS)
		return -1;
	sz = c < NSMALL ? (uint64_t)(c + 1) * 16 :
	    (uint64_t)2 * SMALL_MAX << (c - NSMALL);
	return claim(m, off, sz);
}
