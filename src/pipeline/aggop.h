/* aggop: what an aggregate is, as the pipeline's definition names it:
 * its option, its column, its flags (AGF_*), and the operations the
 * aggregate table (window/agg.c) gives it. The pipeline (config.c)
 * reads the option and the flags; the operations' types are only named
 * here, defined in window/agg.h, whose table holds the entries. */
#ifndef FWIN_AGGOP_H
#define FWIN_AGGOP_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

struct agg;
struct aval;
struct out;

enum {
	AGF_FIELD = 1,		/* takes a FIELD (--sum F); NULLs are skipped */
	AGF_NUMBER = 2,		/* the FIELD must be a number */
	AGF_OUT = 4,		/* F[:OUT] */
	AGF_NOKEEP = 8,		/* its fold is not a block that can be kept */
	AGF_PCT = 16,		/* a column per percentile: column, P's name, F */
	AGF_PLIST = 32,		/* F:P[,P...] (else AGF_PCT is the median) */
	AGF_DEC = 64,		/* wants the exact decimal; its slot is
				 * struct dec_sums: a sum's (sum, avg), a
				 * variance's two (struct stats_var) */
	AGF_TEXT = 128,		/* its result is text, not a number */
	AGF_REGROUP = 256,	/* its fold gives the same bytes however the
				 * blocks folded are grouped (no floats) */
	AGF_ANYORDER = 512,	/* its result is the same bytes whatever the
				 * order of its records were added in (no
				 * floats, no arrival numbers) */
	AGF_HIST = 1024,	/* F:B1,B2,...: a column per bound and one for
				 * all (F_le_B..., F_le_inf); its slot holds a
				 * count per column (aggcounter.c) */
	AGF_PRIOR = 2048,	/* reads its values in event-time order from
				 * the key's value before the window: adds
				 * take the time (aggs_add_at), a key keeps a block
				 * (aggs_keysize), folds take what lies before
				 * the window (aggs_fold_prior) */
	AGF_RECORD = 4096,	/* takes the whole record as read as its
				 * value (--over keeps each record so); no
				 * option, no column */
	AGF_FLAT = 8192,	/* it has a merge, yet counts as flat
				 * (aggs_flat): its slot names no block but
				 * its own, that folds read from any arena
				 * and aggs_fold_store() makes (sums) */
	AGF_ANYARENA = 16384,	/* its blocks are folded from the arenas of
				 * two tables alike (distinct values,
				 * percentiles, sketches) */
	AGF_READTEXT = 32768,	/* its add reads the value's text, not only
				 * its number: a record that waits (the
				 * look-ahead) keeps its numbers, while its
				 * text lies in a buffer read past */
	AGF_BLOCK = 65536	/* its slot is a struct acc_block: one arena
				 * block of its own (percentiles, sketches) */
};

struct aggop {
	const char *option;	/* the long option, without "--" */
	const char *column;	/* header: "count", or column_F (AGF_PCT:
				 * column, P's name, _F: "approx_p95_F") */
	unsigned flags;		/* AGF_* */
	size_t size;		/* bytes of its accumulator, a multiple of 8 */
	/* Adds a record's value (arrival number seq) to the slot at off. */
	void (*add)(struct arena *a, aoff slot, const struct aval *v,
	    uint64_t seq);
	/* Merges the slot at src into the one at dst; what src kept moves
	 * to dst or is freed. NULL: fold works on arena slots too. */
	void (*merge)(struct arena *a, aoff dst, aoff src);
	/* Merges the slot src (in the arena) into the fold scratch dst,
	 * taking nothing from src. */
	void (*fold)(struct agg *ag, const struct arena *a, void *dst,
	    const void *src);
	/* Writes the folded result's cells. */
	void (*emit)(struct agg *ag, const struct arena *a, const void *fold,
	    struct out *o);
	/* Checks a restored slot, claiming in m the blocks it keeps; NULL,
	 * or what is wrong. NULL: any bytes are a sound slot. */
	const char *(*check)(const struct arena *a, const void *slot,
	    struct arena_claims *m);
	/* Frees what the slot keeps. NULL: nothing. */
	void (*release)(struct arena *a, aoff slot);
	/* Takes the slot src out of dst, which holds src's values merged
	 * with others' (a sliding window's running fold, less the pane that
	 * leaves it): 0, or -1 when that cannot be exact (dst is then to be
	 * made again from its parts). NULL: it cannot. */
	int (*unmerge)(struct arena *a, aoff dst, aoff src);
};

#endif
