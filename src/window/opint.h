/* opint: the window operator's insides, shared by operator.c (records,
 * timers, keys) and fire.c (firing windows, --top, --emit-every); not for
 * any other module, which sees operator.h only. */
#ifndef FWIN_OPINT_H
#define FWIN_OPINT_H

#include "window/assign.h"
#include "window/operator.h"
#include "window/slide.h"
#include "window/wire.h"

/* The operator's block behind each key (st_keyext). */
struct opkey {
	int64_t ok_next_fire;	/* smallest unfired window end holding data
				   (with --fill: the next window end) */
	uint64_t ok_count;	/* count windows: records seen */
	struct slide_kept ok_kept;	/* sliding windows' kept folds */
	int64_t ok_tmin, ok_tmax;	/* the global window's times */
	aoff ok_dig;		/* --emit-every: struct digest[ok_capdig] */
	uint32_t ok_ndig, ok_capdig;
};
ARENA_LAYOUT(struct opkey, 72);

/* --emit-every: the digest of a window's last partial row. */
struct digest {
	int64_t d_end;		/* the window's end (INT64_MAX: global) */
	uint64_t d_sum;
};
ARENA_LAYOUT(struct digest, 16);

/* A window to fire: [start, end) of key. A session is the one pane
 * `pane`; a time window is made of the key's panes in that range, the
 * first of which is `pane` (0: not known yet). */
struct fire {
	int64_t end, start;
	uint64_t prefix;	/* key_prefix() of the key */
	aoff key, pane;
	int partial;		/* --emit-every: before the window's end */
};

struct op {
	const struct config *c;
	struct assigner as;
	struct aggs *g;
	struct state st;
	struct slide slide;	/* slide.g != NULL: windows of many panes */
	int (*process)(struct op *, const struct op_rec *);
	struct span last;	/* the last record's pane and windows */
	op_emit_fn emit;
	void *emit_arg;
	op_rank_fn rank;	/* --top */
	void *rank_arg;
	op_digest_fn digest;	/* --emit-every */
	void *digest_arg;
	int64_t span_lo, span_hi;	/* op_set_span */
	int has_span;
	struct ranked *ranked;	/* --top: a window's rows and values */
	size_t capranked;
	char *ranktext;		/* --top: their values' texts */
	size_t capranktext;
	struct fire *batch, *sortbuf;
	size_t nbatch, capbatch, capsort;
	aoff *touched;
	size_t ntouched, captouched;
	aoff *more;		/* keys with more windows due than FIRE_CAP */
	size_t nmore, capmore;
	/* --over: a waiting record's values in wire form (over.c) */
	struct wire_fields over_wf;
	struct aval *over_vals;
	char *over_buf;
	size_t over_cap;
	size_t rec_off;		/* the record's slot among the accumulators */
	int halted;		/* op_halt: no further window is collected */
};

static inline struct opkey *
opkey(const struct op *o, aoff k)
{
	return st_keyext(&o->st, k);
}

/* The aggregates' block behind the operator's (aggs_keysize). */
static inline void *
opkey_aggs(const struct op *o, aoff k)
{
	return (char *)st_keyext(&o->st, k) + sizeof(struct opkey);
}

static inline struct op_globals *
globals(const struct op *o)
{
	return st_globals(&o->st);
}

#define FIRE_CAP 4096	/* windows of one key collected at a time */

/* A row of a window and the value it ranks by (--top). */
struct ranked {
	size_t i;		/* its place in the batch */
	double v;
	size_t text, n;		/* the value as printed: in ranktext */
	int empty;
};

/* fire.c: firing a batch of windows in (end, start, key) order, --top,
 * and early firing (--emit-every). */
void fire_row(struct op *o, aoff k, int has_bounds, int64_t start,
    int64_t end, int64_t time, int final);
void fire_one(struct op *o, const struct fire *f);
void fire_window(struct op *o, aoff k, int64_t end);
int fire_key_order(const struct op *o, aoff a, aoff b);
void fire_add(struct op *o, int64_t end, int64_t start, aoff k, aoff p);
void fire_batch(struct op *o);
void fire_batch_upto(struct op *o, int64_t upto);
int64_t fire_crossed(const struct op *o, int64_t wold, int64_t w);
int64_t fire_next_crossing(const struct op *o, int64_t w);
void fire_partials(struct op *o, int64_t w, int64_t m);
void fire_digest_free(struct op *o, aoff k);
void fire_fold_context(struct op *o, aoff k, aoff first, int64_t start,
    int64_t end);

/* over.c: --over and --over-rows. */
void over_init(struct op *o);
void over_fini(struct op *o);
size_t over_pane_block(const struct op *o);
int over_follows(void *arg, const struct arena *a, aoff q, aoff p);
const char *over_acc_ok(void *arg, const struct arena *a, aoff acc,
    struct arena_claims *m);
int over_process(struct op *o, const struct op_rec *r);
void over_advance(struct op *o, int64_t w);

#endif
