/*
 * bigsum: a sum past its fixed-width integer, in GMP's integers.
 *
 * Values written with exponents far apart ("1e300" and "1e-300"), or
 * read as doubles, can need more than 320 bits at the sum's scale. Such
 * a sum keeps its integer in an arena block of limbs (struct dec_big);
 * each operation reads it into an mpz_t (mpz_import), works, and writes
 * it back, the block grown (moved) when it needs more limbs. A sum that
 * fits 320 bits again goes back to the fixed width, so the fast path
 * resumes. This is the cold path: real data stays in decimal.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigsum.h"
#include "base/util.h"

_Static_assert(sizeof(mp_limb_t) == 8 && GMP_NAIL_BITS == 0,
    "a limb is one 64-bit word");

static struct dec_big *
big_at(const struct arena *a, aoff b)
{
	return arena_ptr(a, b);
}

/* z = the 320-bit two's complement w. */
static void
from_words(mpz_t z, const uint64_t w[DEC_WORDS])
{
	uint64_t m[DEC_WORDS], c = 1;
	int neg = (int)(w[DEC_WORDS - 1] >> 63), i;

	for (i = 0; i < DEC_WORDS; i++) {
		m[i] = neg ? ~w[i] + c : w[i];
		c = c && m[i] == 0;
	}
	mpz_import(z, DEC_WORDS, -1, 8, 0, 0, m);
	if (neg)
		mpz_neg(z, z);
}

void
bigsum_get(const struct arena *a, const struct dec_sum *s,
    const struct bigsum_fold *f, mpz_t z)
{
	mpz_t v;

	if (s->big == 0)
		from_words(z, s->w);
	else if (s->big == BIGSUM_FOLD)
		mpz_set(z, f->z);
	else {
		const struct dec_big *b = big_at(a, s->big);

		mpz_set(z, mpz_roinit_n(v, (const mp_limb_t *)b->limb,
		    b->size));
	}
}

/* Whether z fits the fixed width, and then writes it there. */
static int
to_words(const mpz_t z, uint64_t w[DEC_WORDS])
{
	size_t n;
	int i;

	if (mpz_sizeinbase(z, 2) > 64 * DEC_WORDS - 1)
		return 0;
	memset(w, 0, DEC_WORDS * 8);
	mpz_export(w, &n, -1, 8, 0, 0, z);
	if (mpz_sgn(z) < 0) {	/* two's complement of the magnitude */
		uint64_t c = 1;

		for (i = 0; i < DEC_WORDS; i++) {
			w[i] = ~w[i] + c;
			c = c && w[i] == 0;
		}
	}
	return 1;
}

/* Stores z as the integer of the sum at slot, whose block (if any) it
 * owns: back to the fixed width when it fits, else in a block that
 * holds it, grown when it is too small. */
static void
store_sum(struct arena *a, aoff slot, const mpz_t z)
{
	struct dec_sum *s = arena_ptr(a, slot);
	size_t n = mpz_size(z), cap;
	struct dec_big *b;
	aoff nb;

	if (to_words(z, s->w)) {
		bigsum_release(a, slot);
		return;
	}
	if (s->big == 0 || big_at(a, s->big)->cap < n) {
		cap = (n + 3) & ~(size_t)3;
		nb = arena_alloc(a, BIG_BYTES(cap));	/* (moves a) */
		s = arena_ptr(a, slot);
		bigsum_release(a, slot);
		big_at(a, nb)->cap = (uint32_t)cap;
		s->big = nb;
	}
	b = big_at(a, s->big);
	memcpy(b->limb, mpz_limbs_read(z), n * 8);
	b->size = mpz_sgn(z) < 0 ? -(int32_t)n : (int32_t)n;
	memset(s->w, 0, sizeof(s->w));
}

/* z *= 10^k */
static void
scale_up(mpz_t z, uint32_t k)
{
	mpz_t p;

	mpz_init(p);
	mpz_ui_pow_ui(p, 10, k);
	mpz_mul(z, z, p);
	mpz_clear(p);
}

/* z (at scale *zs) += x (at scale xs), at the larger scale. */
static void
add_at(mpz_t z, int32_t *zs, mpz_t x, int32_t xs)
{
	if (mpz_sgn(x) == 0)
		return;
	if (mpz_sgn(z) == 0)
		*zs = xs;	/* zero has every scale */
	else if (xs > *zs) {
		scale_up(z, (uint32_t)(xs - *zs));
		*zs = xs;
	} else if (xs < *zs)
		scale_up(x, (uint32_t)(*zs - xs));
	mpz_add(z, z, x);
}

/* x = the value v as an integer at scale *xs; NULL: the double d, whose
 * value is exactly mant * 2^e = mant * 5^-e * 10^e, mant odd. */
static void
value(mpz_t x, int32_t *xs, const struct dec *v, double d)
{
	uint64_t u[2];
	mp_bitcnt_t b;
	int e;

	if (v != NULL) {
		unsigned __int128 m = v->m < 0 ? -(unsigned __int128)v->m :
		    (unsigned __int128)v->m;

		u[0] = (uint64_t)m;
		u[1] = (uint64_t)(m >> 64);
		mpz_import(x, 2, -1, 8, 0, 0, u);
		if (v->m < 0)
			mpz_neg(x, x);
		*xs = v->scale;
		return;
	}
	*xs = 0;
	if (d == 0 || !isfinite(d)) {	/* (num_parse refuses non-finite) */
		mpz_set_ui(x, 0);
		return;
	}
	d = frexp(d, &e);		/* |d| in [0.5, 1) */
	mpz_set_d(x, ldexp(d, 53));	/* exact: 53 bits */
	e -= 53;
	/* the least scale: mant odd (2.5 is 25e-1, not 55 places) */
	b = mpz_scan1(x, 0);
	mpz_tdiv_q_2exp(x, x, b);
	e += (int)b;
	if (e >= 0)
		mpz_mul_2exp(x, x, (mp_bitcnt_t)e);
	else {
		mpz_t p;

		mpz_init(p);
		mpz_ui_pow_ui(p, 5, (unsigned long)-e);
		mpz_mul(x, x, p);
		mpz_clear(p);
		*xs = -e;
	}
}

/* bigsum_add(), of the value's square when square. */
static void
add_value(struct arena *a, aoff slot, const struct dec *v, double d,
    int square)
{
	struct dec_sum *s = arena_ptr(a, slot);
	int32_t zs = s->scale, xs;
	mpz_t z, x;

	mpz_init(z);
	mpz_init(x);
	bigsum_get(a, s, NULL, z);
	value(x, &xs, v, d);
	if (square) {
		mpz_mul(x, x, x);
		xs *= 2;
	}
	add_at(z, &zs, x, xs);
	s->n++;
	s->flags |= square || v == NULL || v->exp ? DS_EXP : 0;
	s->scale = zs;
	store_sum(a, slot, z);
	mpz_clear(z);
	mpz_clear(x);
}

void
bigsum_add(struct arena *a, aoff slot, const struct dec *v, double d)
{
	if (v != NULL && dec_sum_add(arena_ptr(a, slot), v) == 0)
		return;
	add_value(a, slot, v, d, 0);
}

void
bigsum_add_square(struct arena *a, aoff slot, const struct dec *v, double d)
{
	add_value(a, slot, v, d, 1);
}

void
bigsum_merge(struct arena *a, aoff dst, aoff src)
{
	struct dec_sum *d = arena_ptr(a, dst), *s = arena_ptr(a, src);
	int32_t zs = d->scale;
	mpz_t z, x;

	if (dec_sum_merge(d, s) == 0)
		return;
	mpz_init(z);
	mpz_init(x);
	bigsum_get(a, d, NULL, z);
	bigsum_get(a, s, NULL, x);
	add_at(z, &zs, x, s->scale);
	d->n += s->n;
	d->flags |= s->flags;
	d->scale = zs;
	bigsum_release(a, src);
	store_sum(a, dst, z);
	mpz_clear(z);
	mpz_clear(x);
}

void
bigsum_fold(struct bigsum_fold *f, const struct arena *a,
    struct dec_sum *dst, const struct dec_sum *src)
{
	int32_t zs = dst->scale;
	mpz_t x;

	if (dec_sum_merge(dst, src) == 0)
		return;
	if (!f->init) {
		mpz_init(f->z);
		f->init = 1;
	}
	if (dst->big != BIGSUM_FOLD) {
		from_words(f->z, dst->w);
		memset(dst->w, 0, sizeof(dst->w));
		dst->big = BIGSUM_FOLD;
	}
	mpz_init(x);
	bigsum_get(a, src, f, x);
	add_at(f->z, &zs, x, src->scale);
	mpz_clear(x);
	dst->n += src->n;
	dst->flags |= src->flags;
	dst->scale = zs;
}

int
bigsum_keep(const struct bigsum_fold *f, struct arena *a, aoff dst,
    const struct dec_sum *fs, int own)
{
	struct dec_sum *s = arena_ptr(a, dst);

	if (fs->big != BIGSUM_FOLD) {
		*s = *fs;
		return 0;
	}
	if (!own)
		return -1;
	*s = *fs;
	s->big = 0;
	store_sum(a, dst, f->z);
	return 0;
}

/* The fold's integer as "digits e-scale" for strtod(3), in f->text. */
static const char *
fold_text(struct bigsum_fold *f, const struct dec_sum *fs)
{
	size_t need;

	if (fs->big != BIGSUM_FOLD) {
		if (f->cap < DEC_BUFSZ)
			xgrow(&f->text, &f->cap, DEC_BUFSZ, 1);
		dec_sum_text(f->text, fs);
		return f->text;
	}
	need = mpz_sizeinbase(f->z, 10) + 16;
	if (f->cap < need)
		xgrow(&f->text, &f->cap, need, 1);
	mpz_get_str(f->text, 10, f->z);
	sprintf(f->text + strlen(f->text), "e%d", -(int)fs->scale);
	return f->text;
}

size_t
bigsum_result(struct bigsum_fold *f, const struct dec_sum *fs,
    const char **text, double *d)
{
	const char *t = fold_text(f, fs);
	size_t at, k, need;
	char *out;
	int neg = t[0] == '-';

	if (!dec_sum_exact(fs)) {
		*d = dec_text_double(t);
		return 0;
	}
	/* plain values only: the exact decimal, laid out after the text
	 * it is made from (scale 0 to 38) */
	at = (size_t)(strchr(t, 'e') - t);
	k = at - (size_t)neg;
	need = at + 1 + k + (size_t)fs->scale + 3;
	xgrow(&f->text, &f->cap, need, 1);
	t = f->text;
	out = f->text + at + 1;
	if (k == 1 && t[neg] == '0')
		k = 0;
	*text = out;
	return dec_layout(out, t + neg, k, neg, fs->scale);
}

/*
 * The mean q = N / D, N the integer and D = n * 10^scale, as the text
 * strtod(3) rounds: q's digits truncated at P places and, when the rest
 * is not zero, a digit 1 after them. Every double and every halfway
 * point between two near q is a multiple of 2^(E - 53), 2^E <= |q|
 * (2^-1075 for the least), which has at most 53 - E places: with P past
 * that, no such point lies strictly between the truncated text and q,
 * and the digit 1 keeps the text on q's side of each; strtod's correct
 * rounding of the text is then q's.
 */
double
bigsum_avg(struct bigsum_fold *f, const struct dec_sum *fs)
{
	mpz_t n, dd, q, r;
	long elow, p;
	size_t need, k;
	double d;
	int neg;

	if (fs->big != BIGSUM_FOLD && dec_sum_avg(fs, &d) == 0)
		return d;
	mpz_init(n);
	mpz_init_set_ui(dd, 1);
	mpz_init(q);
	mpz_init(r);
	if (fs->big == BIGSUM_FOLD)
		mpz_set(n, f->z);
	else
		from_words(n, fs->w);
	neg = mpz_sgn(n) < 0;
	mpz_abs(n, n);
	if (fs->scale < 0)
		scale_up(n, (uint32_t)-fs->scale);
	else
		mpz_ui_pow_ui(dd, 10, (unsigned long)fs->scale);
	mpz_mul_ui(dd, dd, fs->n);
	d = 0;
	if (mpz_sgn(n) != 0) {
		/* q > 2^(bits(N) - 1 - bits(D)) */
		elow = (long)mpz_sizeinbase(n, 2) - 1 -
		    (long)mpz_sizeinbase(dd, 2);
		p = 55 - (elow > -1076 ? elow : -1076);
		if (p < 0)
			p = 0;
		scale_up(n, (uint32_t)p);
		mpz_tdiv_qr(q, r, n, dd);
		need = mpz_sizeinbase(q, 10) + 32;
		if (f->cap < need)
			xgrow(&f->text, &f->cap, need, 1);
		f->text[0] = '-';
		mpz_get_str(f->text + neg, 10, q);
		k = strlen(f->text);
		if (mpz_sgn(r) != 0) {
			f->text[k++] = '1';
			p++;
		}
		sprintf(f->text + k, "e-%ld", p);
		d = dec_text_double(f->text);
	}
	mpz_clear(n);
	mpz_clear(dd);
	mpz_clear(q);
	mpz_clear(r);
	return d;
}

const char *
bigsum_check(const struct arena *a, const struct dec_sum *s,
    struct arena_claims *m, int squares)
{
	const struct dec_big *b;
	uint64_t used = m->used;
	int k = squares ? 2 : 1;

	if (s->scale > k * (DEC_MAXSCALE + 400) ||
	    s->scale < k * (DEC_MINSCALE - 400) ||
	    s->flags > DS_EXP || (!(s->flags & DS_EXP) && (s->scale < 0 ||
	    s->scale > DEC_DIGITS)))
		return "bad sum in an accumulator";
	if (s->big == 0)
		return NULL;
	if (s->big < sizeof(struct arena_hdr) || s->big % 8 != 0 ||
	    s->big >= used || used - s->big < sizeof(struct dec_big))
		return "bad sum in an accumulator";
	b = big_at(a, s->big);
	if (b->cap == 0 || (uint64_t)(b->size < 0 ? -(int64_t)b->size :
	    b->size) > b->cap || BIG_BYTES(b->cap) > used - s->big ||
	    arena_claim(m, s->big, BIG_BYTES(b->cap)) != 0)
		return "bad sum in an accumulator";
	return NULL;
}

void
bigsum_release(struct arena *a, aoff slot)
{
	struct dec_sum *s = arena_ptr(a, slot);

	if (s->big == 0)
		return;
	arena_free(a, s->big, BIG_BYTES(big_at(a, s->big)->cap));
	s->big = 0;
}

void
bigsum_fold_free(struct bigsum_fold *f)
{
	if (f->init)
		mpz_clear(f->z);
	free(f->text);
	memset(f, 0, sizeof(*f));
}
