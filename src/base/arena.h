/* arena: one contiguous, growable region addressed by offsets.
 * Nothing stored in it is a pointer, so its bytes can be saved and mapped
 * back as they are (the checkpoint's payload). Offsets are uint64_t; 0
 * means "none" (offset 0 holds the arena's own header). A pointer made
 * from an offset is valid only until the next arena_alloc(), which may
 * move the region. */
#ifndef FWIN_ARENA_H
#define FWIN_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t aoff;

/*
 * The checkpoint format's version. A checkpoint's payload is the arena's
 * bytes as they are, so every struct stored in the arena is part of the
 * format: each is pinned, where it is defined, to this version with
 * ARENA_LAYOUT. Changing a layout fails the build until the version is
 * raised (older files are then refused) and the pinned sizes with it.
 * Version 3: keys carry their key group and the operator's block; the
 * driver's counters left the root for a block of their own.
 * Version 4: sum and avg keep exact decimal sums (struct dec_sum); the
 * blocks of percentiles and sketches.
 * Version 5: a sum is exact whatever its values (320 bits, or a block of
 * GMP's limbs, struct dec_big), with no floating sum beside it; variance
 * keeps the scale of its values (struct stats_var).
 * Version 6: variance keeps exact sums of its values and of their
 * squares (struct stats_var), the same whatever their order; a DDSketch
 * starts sparse, its buckets as (key, count) pairs (struct dds_pair).
 * Version 7: a DDSketch turns dense past 16 pairs, not 64, and a dense
 * one's counts are 2 bytes up to 65,535 values, then 4, then 8 (struct
 * dds.width).
 * Version 8: min-by and max-by keep the value they compare after OUT's
 * text (struct acc_ext.outn), as extremes compare equal doubles exactly.
 */
#define ARENA_FORMAT 8
#define ARENA_LAYOUT(type, size) \
	_Static_assert(ARENA_FORMAT == 8 && sizeof(type) == (size), \
	    #type " is stored in checkpoints of format 8")
#define ARENA_OFFSET(type, field, off) \
	_Static_assert(ARENA_FORMAT == 8 && offsetof(type, field) == (off), \
	    #type "." #field " is stored in checkpoints of format 8")

#define ARENA_NCLASS 96

/* At offset 0 of the region. */
struct arena_hdr {
	uint64_t ah_used;		/* bytes in use from the start (bump) */
	uint64_t ah_live;		/* bytes in allocated blocks */
	uint64_t ah_peak;		/* largest ah_used seen */
	aoff ah_free[ARENA_NCLASS];	/* free lists, by size class */
	aoff ah_root;			/* the owner's root object */
};

ARENA_LAYOUT(struct arena_hdr, 800);
ARENA_OFFSET(struct arena_hdr, ah_root, 792);

struct arena {
	uint8_t *base;
	uint64_t cap;		/* bytes mapped */
	int filemap;		/* base is a private mapping of a checkpoint */
	uint64_t ready;		/* bytes whose pages are in (arena.c) */
};

/* Maps a new empty arena. Returns 0, or -1 with errno set. */
int arena_init(struct arena *a);
void arena_fini(struct arena *a);

/* Adopts base[0..cap), a private (copy-on-write) mapping of a checkpoint's
 * payload, as the arena, where it lies. Should it have to grow past cap,
 * it moves to anonymous memory then. */
void arena_attach(struct arena *a, void *base, uint64_t cap);

/* Allocates n bytes (8-aligned, zeroed). Returns the offset; exits with a
 * message when memory is exhausted (state that cannot grow is fatal). */
aoff arena_alloc(struct arena *a, size_t n);

/* Returns a block of n bytes (as given to arena_alloc) to its free list. */
void arena_free(struct arena *a, aoff off, size_t n);

static inline void *
arena_ptr(const struct arena *a, aoff off)
{
	return a->base + off;
}

static inline struct arena_hdr *
arena_hdr(const struct arena *a)
{
	return (struct arena_hdr *)a->base;
}

/* Byte strings in the arena, reusable in place when a new value fits. */
struct blob {
	uint32_t b_len;
	uint32_t b_cap;
	char b_data[];
};
ARENA_LAYOUT(struct blob, 8);

/* Sets *slot (a blob offset or 0) to hold p[0..n). slot_off is the
 * offset of the aoff field that holds the blob, so that it can be written
 * after the arena moves. */
void blob_set(struct arena *a, aoff slot_off, const char *p, size_t n);
/* blob_set() of p[0..n) followed by q[0..m). */
void blob_set2(struct arena *a, aoff slot_off, const char *p, size_t n,
    const char *q, size_t m);
/* Frees the blob at off (0 is a no-op). */
void blob_free(struct arena *a, aoff off);

static inline struct blob *
blob_at(const struct arena *a, aoff off)
{
	return (struct blob *)(a->base + off);
}

/* Checking a restored arena: every block found through its offsets is
 * claimed once, so that blocks that overlap each other (or a free block)
 * are refused: writing one would corrupt the other's offsets. */
struct arena_claims {
	uint64_t *map;		/* a bit per 16-byte granule */
	uint64_t used;
};

/* For an arena of used bytes. Returns 0, or -1 with errno set. */
int arena_claims_init(struct arena_claims *m, uint64_t used);
/* Whether b is a blob of the used arena of a restored checkpoint, not
 * overlapping another block; claims it in m. */
int blob_ok(const struct arena *a, aoff b, struct arena_claims *m);
void arena_claims_free(struct arena_claims *m);

/* Claims the block at off that arena_alloc(n) made (its size rounded to
 * its class). Returns 0, or -1 when off is not a block start past the
 * arena's header, the block passes the used bytes, or it overlaps a block
 * claimed before. */
int arena_claim(struct arena_claims *m, aoff off, uint64_t n);

/* The same for a block on free list c. */
int arena_claim_free(struct arena_claims *m, aoff off, unsigned c);

#endif
