/* bigsum: a sum (decimal.h) past its fixed-width integer, in GMP's
 * integers. The integer's limbs are an arena block of their own, named
 * by the sum's big, so that the arena's bytes remain the checkpoint; an
 * mpz_t exists only while an operation runs. A fold, outside the arena,
 * keeps its integer in a struct bigsum_fold instead. */
#ifndef FWIN_BIGSUM_H
#define FWIN_BIGSUM_H

#include <gmp.h>

#include "base/arena.h"
#include "base/decimal.h"

/* An arena block: the integer's limbs, lowest first; size is GMP's
 * (limbs in use, negative for a negative integer), |size| <= cap. */
struct dec_big {
	uint32_t cap;
	int32_t size;
	uint64_t limb[];
};
ARENA_LAYOUT(struct dec_big, 8);

#define BIG_BYTES(cap)	(sizeof(struct dec_big) + (size_t)(cap) * 8)

/* A fold's sum whose integer is its struct bigsum_fold's: never an
 * arena offset (those are multiples of 8). */
#define BIGSUM_FOLD	1

/* The integer of a folded sum (big == BIGSUM_FOLD), and text scratch. */
struct bigsum_fold {
	mpz_t z;
	int init;
	char *text;
	size_t cap;
};

void bigsum_fold_free(struct bigsum_fold *f);

/* Adds v (NULL: the double d, a number not read exactly: its exact
 * binary value) to the sum at slot. */
void bigsum_add(struct arena *a, aoff slot, const struct dec *v, double d);

/* Adds the square of v (NULL: of the double d), exactly, as DS_EXP. */
void bigsum_add_square(struct arena *a, aoff slot, const struct dec *v,
    double d);

/* The integer of the sum s, wherever it is: its words, its block in a,
 * or the fold f's (s->big == BIGSUM_FOLD). */
void bigsum_get(const struct arena *a, const struct dec_sum *s,
    const struct bigsum_fold *f, mpz_t z);

/* Adds the sum at src into the one at dst, both in a; src's block is
 * freed (src itself is left as it was). */
void bigsum_merge(struct arena *a, aoff dst, aoff src);

/* Adds src, a sum in arena a, into dst, a fold's sum held with f. */
void bigsum_fold(struct bigsum_fold *f, const struct arena *a,
    struct dec_sum *dst, const struct dec_sum *src);

/* Writes the fold's sum fs as the sum at slot dst of arena a. own: dst
 * owns a block of its own (freed first by the caller), made here when
 * the fold's integer is big. Without own, a big fold is not written and
 * -1 returned. */
int bigsum_keep(const struct bigsum_fold *f, struct arena *a, aoff dst,
    const struct dec_sum *fs, int own);

/* The fold's sum fs, n > 0: its exact decimal (when dec_sum_exact())
 * in *text, or else its double, correctly rounded, in *d (+-HUGE_VAL
 * beyond the doubles). Returns the text's length, 0 for the double. */
size_t bigsum_result(struct bigsum_fold *f, const struct dec_sum *fs,
    const char **text, double *d);

/* The fold's sum's mean, n > 0: the exact sum divided by n, correctly
 * rounded once; never -0. */
double bigsum_avg(struct bigsum_fold *f, const struct dec_sum *fs);

/* Checks a restored sum (squares: of squares, whose scales are twice
 * the values'), claiming its block in m. NULL, or what is wrong. */
const char *bigsum_check(const struct arena *a, const struct dec_sum *s,
    struct arena_claims *m, int squares);

/* Frees the sum's block, if any. */
void bigsum_release(struct arena *a, aoff slot);

#endif
