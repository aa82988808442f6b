/* agg: the aggregate table. Every aggregate is one entry of operations,
 * the shape of Flink's AggregateFunction: add (one record), merge (move
 * one accumulator into another: sessions that merge), fold (merge into
 * the fold scratch without taking anything: slices folded into a window)
 * and emit (the result cells), with check (for restored state) and
 * release (what it keeps in the arena). Accumulators live in the arena,
 * at a fixed offset inside each pane; strings and sets they keep are
 * arena blocks too. The command line's options, the usage text, the
 * header names and the pipeline's fingerprint are derived from the
 * table: a new aggregate is one entry and its functions. */
#ifndef FWIN_AGG_H
#define FWIN_AGG_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "pipeline/aggop.h"
#include "pipeline/config.h"
#include "base/bigsum.h"
#include "base/decimal.h"
#include "base/stats.h"
#include "io/input.h"
#include "io/output.h"

/* One aggregate's input from one record. */
struct aval {
	const char *p;		/* the field's text; NULL when NULL (empty) */
	size_t n;
	double d;		/* its value, for numeric aggregates */
	struct dec dec;		/* AGF_DEC: its exact value, when is_dec */
	int is_dec;		/* read exactly (dec_read): dec holds it */
	const char *out;	/* min-by / max-by: the OUT text */
	size_t outn;
};

/* Why a record could not be read; filled by aggs_extract(). */
struct badfield {
	const struct fieldref *f;
	const char *what;	/* "missing", "not a number", ... */
};

struct agg;

/* Whether aggregate a has a value per record: it takes a FIELD or the
 * record, or has an --if (count's value is then a mark: NULL when the
 * record fails it), so that the value travels between threads and
 * runs. */
static inline int
aggspec_valued(const struct aggspec *a)
{
	return (a->op->flags & (AGF_FIELD | AGF_RECORD)) || a->cond != NULL;
}

/* The aggregate whose option is name, or NULL. */
const struct aggop *agg_lookup(const char *name);
/* The table's i-th entry, or NULL past its end. */
const struct aggop *agg_at(size_t i);

struct aggs;

/* Compiles the aggregates of c. Never NULL. */
struct aggs *aggs_new(const struct config *c);
void aggs_free(struct aggs *g);

/* Bytes of one set of accumulators. */
size_t aggs_accsize(const struct aggs *g);

/* Where the i-th aggregate's slot lies in a set of accumulators. */
size_t aggs_slot(const struct aggs *g, size_t i);

/* Reads from r the values of the aggregates that take a field or the
 * record into vals (one per aggregate); the others' are left as they
 * are (NULL in vals zeroed, or an --if's mark: parse.c). Returns 0, or
 * -1 and fills *bad. */
int aggs_extract(const struct aggs *g, const struct record *r,
    struct aval *vals, struct badfield *bad);

/* Adds one record (arrival number seq) to the accumulators at acc. */
void aggs_add(const struct aggs *g, struct arena *a, aoff acc,
    const struct aval *vals, uint64_t seq);

/* The same, with the record's event time t, for aggregates that order
 * their values by time (AGF_PRIOR; t is 0 where arrival orders). */
void aggs_add_at(const struct aggs *g, struct arena *a, aoff acc,
    const struct aval *vals, uint64_t seq, int64_t t);

/* A count's slot. */
struct acc_count {
	uint64_t n;
};
ARENA_LAYOUT(struct acc_count, 8);

/* A value into a sum's (or an average's) slot: inline, per record. */
static inline void
aggs_sum_add(struct arena *a, aoff slot, const struct aval *v)
{
	if (!v->is_dec)
		bigsum_add(a, slot, NULL, v->d);
	else if (dec_sum_add(arena_ptr(a, slot), &v->dec) != 0)
		bigsum_add(a, slot, &v->dec, v->d);
}

/* The aggregates of a set none of which orders its values by time (all
 * but --increase, --rate and histograms): where each one's slot lies and
 * how it adds, side by side, so that a record's values are added without
 * a walk of the aggregates' entries. PA_VAR: a variance's or a standard
 * deviation's exact sums (stats.h). */
enum plain_kind { PA_COUNT, PA_SUM, PA_VAR, PA_CALL };

struct plain_agg {
	uint32_t off;
	uint8_t kind, valued;	/* enum plain_kind */
	void (*add)(struct arena *, aoff, const struct aval *, uint64_t);
};

/* g's aggregates as such a list (as many as g has) when they are counts,
 * sums and variances only, the commonest sets, which a table adds
 * inline (aggs_add_sums); else NULL. */
const struct plain_agg *aggs_sums(const struct aggs *g);

/* g's aggregate, when it has one only and aggs_add() calls its add:
 * the entry to give plain_call(), as aggs_add() does; else NULL. */
const struct plain_agg *aggs_one_call(const struct aggs *g);

/* Adds value v by entry pa's call: unless pa is valued and v NULL (or
 * not for its --if). */
static inline void
plain_call(const struct plain_agg *pa, struct arena *a, aoff acc,
    const struct aval *v, uint64_t seq)
{
	if (!pa->valued || v->p != NULL)
		pa->add(a, acc + pa->off, v, seq);
}

/* aggs_add() of a set that aggs_sums() lists as pa[0..n). */
static inline void
aggs_add_sums(const struct plain_agg *pa, size_t n, struct arena *a,
    aoff acc, const struct aval *vals)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (pa[i].valued && vals[i].p == NULL)
			continue;	/* NULL, or not for its --if */
		if (pa[i].kind == PA_SUM)
			aggs_sum_add(a, acc + pa[i].off, &vals[i]);
		else if (pa[i].kind == PA_COUNT)
			((struct acc_count *)arena_ptr(a, acc + pa[i].off))->n++;
		else
			stats_var_add(a, acc + pa[i].off, vals[i].is_dec ?
			    &vals[i].dec : NULL, vals[i].d);
	}
}

/* Merges the accumulators at src into those at dst, both in the arena
 * (sessions that merge). Whatever src kept moves to dst or is freed: src
 * needs no aggs_release() afterwards. */
void aggs_merge(const struct aggs *g, struct arena *a, aoff dst, aoff src);

/* Checks every offset in the accumulators at acc of a restored arena, and
 * claims in m the blocks they keep (a callback of st_adopt; arg is the
 * struct aggs). Returns NULL, or what is wrong. */
const char *aggs_check(void *arg, const struct arena *a, aoff acc,
    struct arena_claims *m);

/* Whether every aggregate can take a part of its values back out
 * (aggop.h's unmerge: counts and exact sums), and that: the accumulators
 * at src out of those at dst, which hold them merged with others'. 0,
 * or -1 when that cannot be exact: dst is then to be made again from
 * its parts. */
int aggs_unmergeable(const struct aggs *g);
int aggs_unmerge(const struct aggs *g, struct arena *a, aoff dst, aoff src);

/* Frees what the accumulators at acc keep in the arena. */
void aggs_release(const struct aggs *g, struct arena *a, aoff acc);

/* Folding: begin, fold one or more accumulators, then write the result
 * cells (acc NULL), or write those of one set of accumulators without a
 * fold (acc, where aggs_emit_as_is() says the fold would be the same).
 * The arena must not change between begin and emit. */
void aggs_fold_begin(struct aggs *g);
void aggs_fold(struct aggs *g, const struct arena *a, aoff acc);
void aggs_emit(struct aggs *g, const struct arena *a, const void *acc,
    struct out *o);

/* Whether the accumulators at acc, folded alone, would print what they
 * print as they are: counts, sums (aggs_sums) that hold no big value and
 * no zero at a scale (a fold writes zero at scale 0), and variances
 * whose sums hold no big value. Rows of one group each are then written
 * without a fold. */
int aggs_emit_as_is(const struct aggs *g, const struct arena *a, aoff acc);

/* aggs_emit()'s cells straight into a row being written whole (output.h:
 * out_row_room), each after sep, where every aggregate is a count or a
 * sum and each prints as an integer: the end of the last, or NULL for
 * aggs_emit() to write them. 1 + NUM_BUFSZ bytes an aggregate at most. */
char *aggs_put_ints(const struct aggs *g, const void *acc, char *p,
    char sep);

/* Whether a fold can be kept as an accumulator block and folded again
 * later (not with --distinct, percentiles or sketches, whose folds are
 * outside the arena). */
int aggs_keepable(const struct aggs *g);

/* Whether every fold gives the same bytes whatever the grouping. */
int aggs_regroupable(const struct aggs *g);

/* The same while the fold is exact: every fold is AGF_REGROUP or a
 * decimal sum (AGF_DEC), which writes its exact value while it has one.
 * aggs_fold_exact() says whether the fold so far has. */
int aggs_regroupable_exact(const struct aggs *g);
int aggs_fold_exact(const struct aggs *g);
/* Whether every aggregate's result is the same whatever the order of
 * its records (AGF_ANYORDER). */
int aggs_any_order(const struct aggs *g);
/* Whether each aggregate's result is that of the values added to one
 * window's slot in arrival order (a table of groups, fed in input order,
 * gives the operator's bytes): none reads the key's value before the
 * window (AGF_PRIOR) nor keeps the record (AGF_RECORD). Else NULL, or the
 * option of the first that does. */
const char *aggs_outside_window(const struct aggs *g);

/* Whether every accumulator is flat: plain bytes with no merge
 * operation, or AGF_FLAT: folds work on slots of any arena alike, and
 * aggs_fold_store() can write a fold back. */
int aggs_flat(const struct aggs *g);

/* Whether every aggregate's add reads only the values' numbers, never
 * their text (which points into the input's buffer): a record's values
 * may wait while its group is fetched (hashagg_look_ahead). */
int aggs_numbers_only(const struct aggs *g);

/* Loads the first line of each block the accumulators at acc name
 * (percentiles, sketches), for the look-ahead: a load whose value
 * nothing uses, so that the misses of records waiting overlap. */
void aggs_warm_blocks(const struct aggs *g, const struct arena *a, aoff acc);

/* The offset in a set of accumulators of the first that keeps its
 * values in a block of its own (a sketch, a percentile's values), or -1
 * when none does. That accumulator's first 8 bytes are the block's
 * offset in the arena (0 until it has one): aggs_block_at(). */
ptrdiff_t aggs_block_slot(const struct aggs *g);

static inline aoff
aggs_block_at(const struct arena *a, aoff acc, ptrdiff_t slot)
{
	return *(const aoff *)arena_ptr(a, acc + (aoff)slot);
}

/* Whether a group's accumulators in one table's arena fold with the
 * same group's in another's (flat ones, percentiles, sketches): two
 * tables fire together. */
int aggs_any_arena(const struct aggs *g);

/* Writes the fold as the accumulator block at dst, which must not be
 * released: the values it names belong to the blocks folded. Returns
 * -1, having written part of it, when the fold holds a sum too big to
 * keep without a block of its own (bigsum.h): rare, and not kept. */
int aggs_fold_keep(const struct aggs *g, struct arena *a, aoff dst);

/* Whether the accumulators at acc name an arena block (a sum past its
 * fixed width): flat ones that do cannot be copied out as bytes. */
int aggs_keep_blocks(const struct aggs *g, const struct arena *a, aoff acc);

/* Flat aggregates (aggs_flat): writes the fold as the accumulators at
 * dst, which own what they keep: what they kept is released first (the
 * fold has read it), a big sum gets a block of its own. */
void aggs_fold_store(const struct aggs *g, struct arena *a, aoff dst);

/* Says, once at the end of a run, which variance aggregates had a result
 * past the largest double (printed as an empty cell, never inf). */
void aggs_say_huge(const struct config *c);
/* --- what --increase and --rate read beyond their window (aggcounter.c) ---
 *
 * A counter's step is counted from the key's previous value, which may
 * lie in an earlier window: a key keeps, behind the operator's block, a
 * block of aggs_keysize() bytes (0 when no aggregate needs one, all
 * zeros when new) with the last value of the panes it has dropped. */

/* Bytes of the per-key block; 0 when no aggregate is AGF_PRIOR. */
size_t aggs_keysize(const struct aggs *g);

/* Whether every value of the pipeline's panes arrives in (time, arrival)
 * order (batch mode's sorted replay, count windows, rolling mode): a
 * counter then keeps no list of its values. Call before any add. */
void aggs_set_ordered(struct aggs *g, int ordered);

/* Pane acc of the key with block kb is dropped: its last values become
 * the key's (call before aggs_release). */
void aggs_carry(const struct aggs *g, struct arena *a, void *kb, aoff acc);

/* Checks a restored key's block: NULL, or what is wrong. */
const char *aggs_key_check(const struct aggs *g, const void *kb);

/* Whether the key block kb holds a value, so that the key must be kept
 * when it has no pane left. */
int aggs_key_held(const struct aggs *g, const void *kb);

/* Between aggs_fold_begin and aggs_emit: values that lie before the
 * window folded, from the key's block kb (may be NULL) and from a pane
 * acc of the key before the window (0: none); the latest one is the
 * previous value. */
void aggs_fold_prior(struct aggs *g, const struct arena *a, const void *kb,
    aoff acc);

/* Between aggs_fold_begin and aggs_emit: whether every counter has a
 * value before the window folded (by aggs_fold_prior). */
int aggs_prior_known(const struct aggs *g);

/* Between aggs_fold_begin and aggs_emit: the window's length in
 * nanoseconds for --rate, or -1 where it has none. */
void aggs_fold_span(struct aggs *g, int64_t len);

/* --- --histogram's bounds (aggcounter.c) --- */

/* Parses "B1,B2,..." into *out (n of them, malloc'd names): numbers,
 * strictly ascending. Returns NULL, or what is wrong. */
const char *agg_hist_bounds(const char *list, struct hist_bound **out,
    size_t *n);

/* The output columns of aggregate a, and the j-th's header name (name:
 * what --as gave it, or NULL), malloc'd. */
size_t agg_ncols(const struct aggspec *a);
char *agg_colname(const struct aggspec *a, size_t j, const char *name);
/* --top-by's column (the first aggregate column by default): *col its
 * place among the aggregate columns (agg_colname's, of aggregates that
 * have one), or past them the --eval column's, of n + k for the k-th;
 * with name, its name (malloc'd). Returns 0, or -1 after the message a
 * run and --explain flink-sql give (none so named, with the close ones;
 * a text aggregate's). */
int agg_top_column(const struct config *c, size_t *col, char **name);

#endif
